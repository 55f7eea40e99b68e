#!/usr/bin/env bash
# Translating runs on a real trace (issue 3's speed checks), measured in one
# process: decode alone, the foundation engine on the same caches, then every
# scheme from memory; then the whole trace streamed from its file on one
# thread (foundation vs NOTLB vs ULTRIX, decode included: "with ULTRIX on,
# at least half the no-translation rate"); then the S1 paper grid's time on
# a 100 M-reference trace, estimated from every 3rd simulator.
#
#   bash bench/translation.sh [TRACE.vmt] [N]
#   CRITERION=1 bash bench/translation.sh   # also the criterion benches
set -euo pipefail
cd "$(dirname "$0")/.."
trace="${1:-traces/bench-cc1.vmt}"
n="${2:-20000000}"
if [ ! -f "$trace" ]; then
    echo "no trace at $trace: run 'bash bench/run.sh' once to capture it, or pass a .vmt" >&2
    exit 2
fi
cargo build --release -q -p vmlab-translation --example vmrate --example vmsweep
bin="${CARGO_TARGET_DIR:-target}/release/examples"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/vmrate" "$trace" "$n" --stream
"$bin/vmsweep" "$trace" 3000000 3
if [ "${CRITERION:-0}" = 1 ]; then
    cargo bench -p vmlab-translation
fi
