#!/usr/bin/env bash
# Instructions per reference (callgrind; deterministic on a shared machine)
# for the .vmt decoder alone, each machine fed from memory, and a whole
# one-thread run (decode + simulate), on the first N events of a trace.
#
#   bash bench/icount.sh [TRACE.vmt] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
trace="${1:-traces/bench-cc1.vmt}"
n="${2:-5000000}"
cargo build --release -q -p vmlab-bench --bin icount
bin="${CARGO_TARGET_DIR:-target}/release/icount"
count() {
    local out
    out=$(mktemp)
    local events
    events=$(valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no \
        --toggle-collect='*measured_region*' "$bin" "$@" 2>/dev/null | sed -n 's/.*: \([0-9]*\) events.*/\1/p')
    local ir
    ir=$(grep -m1 '^summary:' "$out" | awk '{print $2}')
    rm -f "$out"
    awk -v ir="$ir" -v n="$events" -v what="$*" 'BEGIN { printf "%-62s %9d events %7.1f instructions/ref\n", what, n, ir / n }'
}
count decode "$trace" "$n"
for m in jm-base bench/machines/l1-32k8-l2-1m16.toml; do
    count sim "$trace" "$n" "$m"
    count run "$trace" "$n" "$m"
done
