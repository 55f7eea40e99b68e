#!/bin/bash
# Raw counters of a real TPC-B-like run, from which S3's TPC-B operation mix
# (presets/mp/workloads/tpcb-pgbench.toml) is derived: PostgreSQL serving pgbench's
# built-in "tpcb-like" script (BEGIN; UPDATE pgbench_accounts; SELECT;
# UPDATE pgbench_tellers; UPDATE pgbench_branches; INSERT INTO
# pgbench_history; END), several clients, each with its own server process
# (backend) that lives for the whole run, as a TPC-B server's does.
#
#   bash presets/mp/workloads/tpcb-pgbench.sh OUTDIR
#   python -m vmlab.studies.s3_tpcb OUTDIR      # the per-transaction mix
#
# Needs root (perf tracepoints; the cluster runs as the postgres user),
# Debian's postgresql (apt-get install -y postgresql postgresql-contrib),
# perf (linux-perf) and valgrind. Takes about 3 minutes on 2 cores. Not run
# by CI or make test (CI has no PostgreSQL); the numbers it gave are in
# tpcb-pgbench.toml and tpcb-pgbench.json, which tests/python/test_s3_tpcb.py checks.
#
# What is measured, per window of WINDOW seconds after WARM seconds of
# warm-up (each window bounded by two counts of pgbench_history, which gets
# one row per committed transaction):
#  * every page fault of every client backend, user and kernel mode
#    (perf record -e exceptions:page_fault_user,exceptions:page_fault_kernel:
#    address and x86 error code), classified later against the backend's
#    /proc/PID/maps: the shared segment (shared_buffers and the rest of
#    PostgreSQL's shared memory), file-backed, private anonymous; present+
#    write = a write to a write-protected private page (copy-on-write);
#  * brk, mmap, munmap, fork (perf record of their tracepoints);
#  * each backend's minflt, majflt, utime, stime (/proc/PID/stat) and the
#    kernel's reclaim counters (/proc/vmstat) before and after, as checks;
#  * each backend's resident pages of the shared segment at the end
#    (/proc/PID/smaps Rss).
# User instructions per transaction: the postmaster under valgrind's
# callgrind, one client, two runs of SHORT and LONG transactions; every
# backend that exited (its callgrind.out is written at exit) summed, and
# the difference over LONG - SHORT transactions (connection set-up and
# pgbench's own queries cancel).
set -euo pipefail

out=${1:?usage: tpcb-pgbench.sh OUTDIR}
SCALE=${SCALE:-10}
CLIENTS=${CLIENTS:-$((4 * $(nproc)))}   # 4 per CPU: tpcb-pgbench.toml's processes_per_cpu
WARM=${WARM:-10}
WINDOW=${WINDOW:-15}
WINDOWS=${WINDOWS:-3}
SHORT=${SHORT:-50}
LONG=${LONG:-250}
PORT=${PORT:-54329}
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}

[ "$(id -u)" = 0 ] || { echo "tpcb-pgbench.sh: run as root (perf tracepoints, su postgres)" >&2; exit 2; }
for t in "$PGBIN/postgres" "$PGBIN/initdb" "$PGBIN/pg_ctl" pgbench psql perf valgrind callgrind_annotate; do
    command -v "$t" >/dev/null || { echo "tpcb-pgbench.sh: $t not found" >&2; exit 2; }
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
scratch=$(mktemp -d /tmp/tpcb-pgbench.XXXXXX)
chown postgres "$scratch"
data=$scratch/data sock=$scratch/sock
as_pg() { su postgres -s /bin/bash -c "$*"; }
psql_() { as_pg "psql -h $sock -p $PORT -Atc \"$1\" postgres"; }
stop() {
    as_pg "$PGBIN/pg_ctl -D $data -m fast -w stop" >/dev/null 2>&1 || true
}
trap 'stop; rm -rf "$scratch"' EXIT

# Loopback only: a Unix socket, no TCP. 4 KB pages for the shared segment
# (huge_pages=off), as the SRMMU's; everything else PostgreSQL's default
# (shared_buffers 128 MB).
OPTS="-c listen_addresses='' -c unix_socket_directories=$sock -c port=$PORT -c huge_pages=off"
as_pg "mkdir -p $sock && $PGBIN/initdb -D $data -A trust -U postgres >$scratch/initdb.log"
as_pg "$PGBIN/pg_ctl -D $data -l $scratch/server.log -o \"$OPTS\" -w start" >/dev/null
as_pg "pgbench -h $sock -p $PORT -i -q -s $SCALE postgres" >"$out/pgbench-init.log" 2>&1

{
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "postgres=$("$PGBIN/postgres" --version)"
    echo "pgbench=$(pgbench --version)"
    echo "perf=$(perf --version)"
    echo "valgrind=$(valgrind --version)"
    echo "kernel=$(uname -sr)"
    echo "system=$(. /etc/os-release; echo "$PRETTY_NAME")"
    echo "cpus=$(nproc)"
    echo "scale=$SCALE"
    echo "clients=$CLIENTS"
    echo "warm_s=$WARM"
    echo "window_s=$WINDOW"
    echo "windows=$WINDOWS"
    echo "shared_buffers=$(psql_ 'show shared_buffers')"
    echo "block_size=$(psql_ 'show block_size')"
    echo "page_size=$(getconf PAGESIZE)"
    echo "command=pgbench -h SOCKET -p $PORT -c $CLIENTS -j $(nproc) -T $((WARM + WINDOW * WINDOWS + 5)) postgres"
} >"$out/meta.txt"

committed() { psql_ "select count(*) from pgbench_history"; }
stats() { for p in ${1//,/ }; do echo "$p $(awk '{print $10, $12, $14, $15}' /proc/$p/stat)"; done; }

as_pg "pgbench -h $sock -p $PORT -c $CLIENTS -j $(nproc) -T $((WARM + WINDOW * WINDOWS + 5)) postgres" \
    >"$out/pgbench.log" 2>&1 &
bench=$!
sleep "$WARM"
pids=$(psql_ "select string_agg(pid::text, ',' order by pid) from pg_stat_activity where application_name = 'pgbench'")
[ -n "$pids" ] || { echo "tpcb-pgbench.sh: no pgbench backends found" >&2; exit 1; }
echo "$pids" >"$out/backends.txt"
for w in $(seq 1 "$WINDOWS"); do
    d=$out/window-$w
    mkdir -p "$d/maps"
    cp /proc/vmstat "$d/vmstat-before"
    stats "$pids" >"$d/stat-before"
    committed >"$d/history-before"
    timeout -s INT "$WINDOW" perf record -q -o "$d/perf.data" -p "$pids" \
        -e exceptions:page_fault_user -e exceptions:page_fault_kernel \
        -e syscalls:sys_enter_brk -e syscalls:sys_exit_brk -e syscalls:sys_enter_mmap \
        -e syscalls:sys_enter_munmap -e sched:sched_process_fork || true
    committed >"$d/history-after"
    stats "$pids" >"$d/stat-after"
    cp /proc/vmstat "$d/vmstat-after"
    for p in ${pids//,/ }; do
        cp "/proc/$p/maps" "$d/maps/$p"
        # Resident pages of the shared segment (the largest shared mapping).
        awk '/^[0-9a-f]+-[0-9a-f]+ rw-s / {s = 0; if ($6 == "/dev/zero") s = 1; next}
             /^[0-9a-f]+-/ {s = 0; next}
             s && /^Rss:/ {print $2}' "/proc/$p/smaps" >"$d/maps/$p.shared-rss-kb"
    done
    perf script -i "$d/perf.data" -F pid,event,trace 2>/dev/null >"$d/events.txt"
    rm -f "$d/perf.data"
done
wait "$bench"
stop

# User instructions per transaction: the postmaster under callgrind.
cg=$scratch/cg
as_pg "mkdir -p $cg"
as_pg "cd $cg && valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=$cg/callgrind.out.%p \
    $PGBIN/postgres -D $data $OPTS" >"$scratch/valgrind.log" 2>&1 &
for _ in $(seq 1 120); do
    psql_ "select 1" >/dev/null 2>&1 && break
    sleep 1
done
ir_of_new() {  # total Ir of the callgrind outputs written since the marker
    find "$cg" -name 'callgrind.out.*' -newer "$1" -print0 | xargs -0 -r grep -h '^totals:' | awk '{s += $2} END {print s + 0}'
}
for n in "$SHORT" "$LONG"; do
    touch "$scratch/mark-$n"
    sleep 1
    as_pg "pgbench -h $sock -p $PORT -n -c 1 -t $n postgres" >"$out/callgrind-pgbench-$n.log" 2>&1
    sleep 5   # the backends' callgrind outputs are written as they exit
    echo "$n $(ir_of_new "$scratch/mark-$n")" >>"$out/callgrind.txt"
done
stop
wait || true
echo "raw counters in $out; derive with: python -m vmlab.studies.s3_tpcb $out"
