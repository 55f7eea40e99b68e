#!/usr/bin/env bash
# The machine matrix of issue 19: every machine of bench/machines/ and
# jm-base on one core (decode and simulate on one thread, best of three),
# beside the decode-only rate and the C yardsticks of bench/baseline, all in
# this one run, on a real trace of at least 100 M references (default: the
# cc1 trace bench/run.sh captures, ~129 M). Wall-clock rates: take them on a
# quiet machine. Prints the peak memory of the whole vmlab part.
#
#   bash bench/matrix.sh [TRACE.vmt]
#   YARDSTICKS=0 bash bench/matrix.sh   # without the C loops
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p vmlab-bench --bins
bin="${CARGO_TARGET_DIR:-target}/release"
trace="${1:-traces/bench-cc1.vmt}"
if [ ! -f "$trace" ]; then
    # bench/run.sh captures the default trace; measure nothing yet.
    YARDSTICKS=0 bash bench/run.sh "$trace" >/dev/null
fi
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "trace:   $trace ($(du -h "$trace" | cut -f1))"
/usr/bin/time -f "peak RSS of the vmlab matrix: %M KB" \
    "$bin/throughput" --one-thread "$trace" jm-base bench/machines/*.toml
if [ "${YARDSTICKS:-1}" = 1 ]; then
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    ${CC:-cc} -O2 -o "$tmp/cloop" bench/baseline/cloop.c
    "$bin/words" "$trace" "$tmp/words.u64"
    "$tmp/cloop" "$tmp/words.u64"
fi
