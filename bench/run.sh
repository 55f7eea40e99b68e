#!/usr/bin/env bash
# Throughput of the vmlab engine on a real trace, next to the decode-only rate
# of the same trace measured in the same run. Captures the trace on first use
# (gcc's cc1 -O0 compiling bench/workloads/compile_me.c under valgrind lackey).
# Then the yardsticks of the foundation issue, measured on this host on the
# same trace's words held in memory (bench/baseline/cloop.c): reading 8-byte
# records, a plain C loop for one 32K 8-way LRU cache, and a bare C loop for
# jm-base's four direct-mapped caches. They say what class of machine the
# rates above came from (the issue's figures: ~1,000 and 120-140 M refs/s).
#
#   bash bench/run.sh              # capture if needed, then measure
#   bash bench/run.sh TRACE.vmt    # measure on another trace
#   CRITERION=1 bash bench/run.sh  # also run the criterion benches
#   YARDSTICKS=0 bash bench/run.sh # skip the C yardsticks (they need ~1 GB of
#                                  # disk and memory per 128 M references)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p vmlab-bench --bins
bin="${CARGO_TARGET_DIR:-target}/release"
trace="${1:-traces/bench-cc1.vmt}"
if [ ! -f "$trace" ]; then
    mkdir -p "$(dirname "$trace")"
    cc1="$(gcc -print-prog-name=cc1)"
    gcc -E bench/workloads/compile_me.c -o traces/compile_me.i
    echo "capturing $trace (cc1 -O0 under valgrind, ~129 M references; a few minutes)..."
    "$bin/capture" "$trace" -- "$cc1" -fpreprocessed -quiet -O0 traces/compile_me.i -o /dev/null
fi
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "trace:   $trace ($(du -h "$trace" | cut -f1))"
/usr/bin/time -f "peak RSS of the whole benchmark: %M KB" "$bin/throughput" "$trace" jm-base bench/machines/l1-32k8-l2-1m16.toml
if [ "${YARDSTICKS:-1}" = 1 ]; then
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    ${CC:-cc} -O2 -o "$tmp/cloop" bench/baseline/cloop.c
    "$bin/words" "$trace" "$tmp/words.u64"
    "$tmp/cloop" "$tmp/words.u64"
fi
if [ "${CRITERION:-0}" = 1 ]; then
    cargo bench -p vmlab-bench
fi
