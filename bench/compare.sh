#!/usr/bin/env bash
# vmlab beside Cachegrind on the same program run: gcc's cc1 compiling
# bench/workloads/compile_me.c (the run bench/run.sh captures as its trace).
# Cachegrind simulates 32 KB 8-way I1 and D1 and a 1 MB 16-way LL with
# 64-byte lines (its smallest line is 32 bytes, so jm-base's 16-byte lines
# cannot be compared), while the program runs under valgrind; vmlab runs
# the same geometry (bench/machines/l1-32k8-l2-1m16.toml) on the captured
# .vmt trace, on one thread (decode and simulation on one core). Also timed:
# the program under valgrind's no-op tool, which is the part of
# Cachegrind's time that is not its cache simulation.
#
#   bash bench/compare.sh              # uses traces/bench-cc1.vmt (bench/run.sh captures it)
#   bash bench/compare.sh TRACE.vmt
set -euo pipefail
cd "$(dirname "$0")/.."
trace="${1:-traces/bench-cc1.vmt}"
if [ ! -f "$trace" ]; then
    echo "no $trace: run bash bench/run.sh first (it captures the trace)" >&2
    exit 2
fi
cargo build --release -q -p vmlab-bench --bins
bin="${CARGO_TARGET_DIR:-target}/release"
mkdir -p traces
gcc -E bench/workloads/compile_me.c -o traces/compile_me.i
cc1="$(gcc -print-prog-name=cc1)"
prog=("$cc1" -fpreprocessed -quiet -O0 traces/compile_me.i -o /dev/null)
now() { date +%s.%N; }
out="$(mktemp)"
trap 'rm -f "$out" "$out.cg"' EXIT

t0=$(now)
valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$out.cg" \
    --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64 "${prog[@]}" 2>"$out"
t1=$(now)
valgrind --tool=none "${prog[@]}" 2>/dev/null
t2=$(now)
vm="$("$bin/icount" run "$trace" 100000000000 bench/machines/l1-32k8-l2-1m16.toml)"

python3 - "$out" "$t0" "$t1" "$t2" "$vm" <<'EOF'
import re, sys
log, t0, t1, t2, vm = sys.argv[1], *map(float, sys.argv[2:5]), sys.argv[5]
text = open(log).read()
def count(label):
    m = re.search(label + r":\s+([\d,]+)", text)
    if not m:
        sys.exit(f"bench/compare.sh: no '{label}' line in Cachegrind's output ({log})")
    return int(m.group(1).replace(",", ""))
refs = count("I   refs") + count("D   refs")
cg, none = t1 - t0, t2 - t1
m = re.match(r"run: (\d+) events, ([\d.]+) M refs/s, misses Some\(\[(\d+), (\d+), (\d+)\]\)", vm)
if not m:
    sys.exit(f"bench/compare.sh: unexpected icount output: {vm}")
events, rate, i1, d1, l2 = int(m[1]), float(m[2]), int(m[3]), int(m[4]), int(m[5])
print(f"{'':44}{'references':>14}{'seconds':>10}{'M refs/s':>10}")
print(f"{'Cachegrind (program under valgrind)':44}{refs:>14,}{cg:>10.2f}{refs / cg / 1e6:>10.1f}")
print(f"{'  of which the no-op tool (valgrind alone)':44}{'':>14}{none:>10.2f}")
print(f"{'  Cachegrind less the no-op tool':44}{'':>14}{cg - none:>10.2f}{refs / max(cg - none, 1e-9) / 1e6:>10.1f}")
print(f"{'vmlab, one thread, from the .vmt trace':44}{events:>14,}{events / rate / 1e6:>10.2f}{rate:>10.1f}")
print()
print(f"{'misses':44}{'Cachegrind':>14}{'vmlab':>10}")
for name, cgl, ours in (("I1 / l1i", "I1  misses", i1), ("D1 / l1d", "D1  misses", d1), ("LL / l2", "LL misses", l2)):
    print(f"{name:44}{count(cgl):>14,}{ours:>10,}")
EOF
