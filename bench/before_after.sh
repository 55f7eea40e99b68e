#!/usr/bin/env bash
# Speed before and after a change, in one run (issue 24, must-show 2): builds
# REV (default: where this branch left `main`, `git merge-base HEAD main`, so
# that changes merged into main since do not count as this branch's) from
# `git archive` into its own target directory
# (target/before-REV, kept for the next call), builds this tree, and measures
# both on the same trace:
#
#   * instructions per reference (callgrind Ir; deterministic, so it holds on
#     a loaded host) for the foundation machines (`icount sim`: jm-base and
#     the 32K/1M machine, pre-decoded blocks) and for the translating
#     schemes (`vmrate --stream-only`: streamed from the file on one thread,
#     decode included, best-of-3 loop, so Ir / (3 x events));
#   * wall-clock rates (M references a second) of the same runs, the two
#     builds alternated so both see the same minutes of the host (on a
#     shared 2-core host expect +-8 % between runs of one binary; trust Ir).
#
#   bash bench/before_after.sh [REV] [TRACE.vmt] [N] [SCHEMES]
#
# N: events of the trace used (default 2000000); SCHEMES: comma-separated
# (default foundation,notlb,ultrix,mach,intel,parisc,softvm,spur).
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$(git rev-parse --verify "${1:-$(git merge-base HEAD main)}^{commit}")
trace=${2:-traces/bench-cc1.vmt}
[ -f "$trace" ] || trace=traces/s1/database-small.vmt
[ -f "$trace" ] || { echo "before_after.sh: no trace (pass a .vmt)" >&2; exit 2; }
n=${3:-2000000}
schemes=${4:-foundation,notlb,ultrix,mach,intel,parisc,softvm,spur}
machines=(jm-base bench/machines/l1-32k8-l2-1m16.toml)

root=$PWD
before=$root/target/before-${rev:0:12}
if [ ! -x "$before/release/icount" ] || [ ! -x "$before/release/examples/vmrate" ]; then
    echo "building $rev into $before (once)" >&2
    rm -rf "$before/src"
    mkdir -p "$before/src"
    git archive "$rev" | tar -x -C "$before/src"
    # git archive gives every file its commit's time, older than the copied
    # artifacts below, and cargo fingerprints a path crate by its sources'
    # mtimes against its dep-info: without this the "before" binaries would
    # be this tree's, copied and taken as fresh (found in session 24).
    find "$before/src" -type f -exec touch {} +
    # Dependencies built for this tree are the same crates from the same
    # registry paths: reuse them, so only the workspace's crates rebuild.
    if [ ! -d "$before/release" ] && [ -d "${CARGO_TARGET_DIR:-$root/target}/release/deps" ]; then
        cp -a "${CARGO_TARGET_DIR:-$root/target}/release" "$before/release"
    fi
    (cd "$before/src" && CARGO_TARGET_DIR=$before cargo build --release -q -p vmlab-bench --bin icount &&
        CARGO_TARGET_DIR=$before cargo build --release -q -p vmlab-translation --example vmrate)
fi
cargo build --release -q -p vmlab-bench --bin icount
cargo build --release -q -p vmlab-translation --example vmrate
after=${CARGO_TARGET_DIR:-$root/target}

# Ir per reference of one command (callgrind; `region` limits it to icount's
# measured region), and its events.
ir_per_ref() {
    local region=$1 loops=$2
    shift 2
    local out log
    out=$(mktemp) log=$(mktemp)
    local toggle=()
    [ "$region" = yes ] && toggle=(--collect-atstart=no --toggle-collect='*measured_region*')
    valgrind --tool=callgrind --callgrind-out-file="$out" "${toggle[@]}" "$@" >"$log" 2>/dev/null
    local ir events
    ir=$(grep -m1 '^summary:' "$out" | awk '{print $2}')
    events=$(sed -n 's/.*: \([0-9]*\) events.*/\1/p; s/.*(\([0-9]*\) events).*/\1/p' "$log" | head -1)
    [ -n "$events" ] || events=$n
    rm -f "$out" "$log"
    awk -v ir="$ir" -v n="$events" -v k="$loops" 'BEGIN { printf "%.2f", ir / (n * k) }'
}

# Wall-clock rate (M refs/s) printed by one command.
rate_icount() { "$@" 2>&1 | sed -n 's/.*events, \([0-9.]*\) M refs.*/\1/p' | head -1; }
rate_vmrate() { "$@" 2>&1 | awk '/M refs\/s/ {print $2; exit}'; }

row() {
    local name=$1 a=$2 b=$3 ra=$4 rb=$5
    awk -v n="$name" -v a="$a" -v b="$b" -v ra="$ra" -v rb="$rb" 'BEGIN {
        printf "%-34s %8.2f %8.2f %+7.1f %%   %8.1f %8.1f\n", n, a, b, 100 * (b - a) / a, ra, rb }'
}

echo "before: $rev ($(git log -1 --format=%s "$rev" | cut -c1-60))"
echo "after:  this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ', with uncommitted changes'))"
echo "trace:  $trace, first $n events; host load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-34s %8s %8s %9s   %8s %8s\n' "run" "Ir/ref" "Ir/ref" "change" "Mref/s" "Mref/s"
printf '%-34s %8s %8s %9s   %8s %8s\n' "" "before" "after" "" "before" "after"
for m in "${machines[@]}"; do
    args=(sim "$trace" "$n" "$m")
    a=$(ir_per_ref yes 1 "$before/release/icount" "${args[@]}")
    b=$(ir_per_ref yes 1 "$after/release/icount" "${args[@]}")
    ra=$(rate_icount "$before/release/icount" "${args[@]}")
    rb=$(rate_icount "$after/release/icount" "${args[@]}")
    row "machine $(basename "$m" .toml)" "$a" "$b" "$ra" "$rb"
done
IFS=, read -r -a list <<<"$schemes"
for s in "${list[@]}"; do
    args=("$trace" "$n" "$s" --stream-only)
    a=$(ir_per_ref no 3 "$before/release/examples/vmrate" "${args[@]}")
    b=$(ir_per_ref no 3 "$after/release/examples/vmrate" "${args[@]}")
    ra=$(rate_vmrate "$before/release/examples/vmrate" "${args[@]}")
    rb=$(rate_vmrate "$after/release/examples/vmrate" "${args[@]}")
    row "streamed $s" "$a" "$b" "$ra" "$rb"
done
