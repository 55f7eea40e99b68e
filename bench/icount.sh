#!/usr/bin/env bash
# Instructions per reference (callgrind; deterministic on a shared machine)
# for the .vmt decoder alone, each machine fed from memory (`sim`), and a
# whole one-thread run (`run`: decode + simulate), on the first N events of
# a trace; the inner loop each machine takes is printed beside it.
#
#   bash bench/icount.sh [TRACE.vmt] [N] [MACHINE ...]
#   MODES=sim bash bench/icount.sh TRACE.vmt 5000000 bench/machines/*.toml
#
# Without machines: jm-base and bench/machines/l1-32k8-l2-1m16.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
trace="${1:-traces/bench-cc1.vmt}"
n="${2:-5000000}"
shift $(($# < 2 ? $# : 2))
machines=("$@")
[ ${#machines[@]} -gt 0 ] || machines=(jm-base bench/machines/l1-32k8-l2-1m16.toml)
modes="${MODES:-sim run}"
cargo build --release -q -p vmlab-bench --bin icount
bin="${CARGO_TARGET_DIR:-target}/release/icount"
count() {
    local out line events inner ir
    out=$(mktemp)
    line=$(valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no \
        --toggle-collect='*measured_region*' "$bin" "$@" 2>/dev/null | grep -m1 ' events')
    events=$(sed -n 's/.*: \([0-9]*\) events.*/\1/p' <<<"$line")
    inner=$(sed -n 's/.*loop \([a-z-]*\).*/\1/p' <<<"$line")
    ir=$(grep -m1 '^summary:' "$out" | awk '{print $2}')
    rm -f "$out"
    awk -v ir="$ir" -v n="$events" -v what="$*" -v inner="$inner" \
        'BEGIN { printf "%-62s %9d events %7.1f instructions/ref  %s\n", what, n, ir / n, inner }'
}
count decode "$trace" "$n"
for m in "${machines[@]}"; do
    for mode in $modes; do
        count "$mode" "$trace" "$n" "$m"
    done
done
