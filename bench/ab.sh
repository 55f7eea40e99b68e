#!/usr/bin/env bash
# Wall clock of two builds of `icount` on one trace and machine, run in
# alternation so that both see the same minutes of a shared, noisy host; prints
# each build's rates sorted and their medians (M references a second). Use it to
# check that fewer instructions (bench/icount.sh) did make a run faster; on a
# 2-core shared host expect +-8 % between consecutive runs of one binary.
#
#   bash bench/ab.sh OLD_ICOUNT NEW_ICOUNT TRACE.vmt [MACHINE] [RUNS] [MODE]
#
# MACHINE: a preset name or a TOML path (default jm-base); RUNS: runs of each
# (default 15); MODE: run (decode + simulate on one thread, the default), sim
# (pre-decoded blocks) or decode. Keep a baseline with e.g.
# `cp target/release/icount /tmp/icount-before` before the change.
set -euo pipefail
if [ $# -lt 3 ]; then
    sed -n '2,13p' "$0" >&2
    exit 2
fi
a=$1 b=$2 trace=$3 machine=${4:-jm-base} runs=${5:-15} mode=${6:-run}
for f in "$a" "$b"; do
    [ -x "$f" ] || { echo "ab.sh: $f is not an executable icount build" >&2; exit 2; }
done
[ -f "$trace" ] || { echo "ab.sh: no trace at $trace" >&2; exit 2; }
args=("$mode" "$trace" 1000000000000)
[ "$mode" = decode ] || args+=("$machine")
rate() {
    local out
    out=$("$1" "${args[@]}" 2>&1) || { echo "ab.sh: $1 failed: $out" >&2; exit 1; }
    sed -n 's/.*events, \([0-9.]*\) M refs.*/\1/p' <<<"$out"
}
ra=() rb=()
for _ in $(seq "$runs"); do
    ra+=("$(rate "$a")")
    rb+=("$(rate "$b")")
done
report() {
    local name=$1
    shift
    printf '%s\n' "$@" | sort -n | awk -v n="$name" '{v[NR] = $1; s = s " " $1}
        END {printf "%-4s median %7.1f M refs/s   runs:%s\n", n, v[int((NR + 1) / 2)], s}'
}
echo "$mode $(basename "$trace") $machine, $runs alternated runs each"
report old "${ra[@]}"
report new "${rb[@]}"
