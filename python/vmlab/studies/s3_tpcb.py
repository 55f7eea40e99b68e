"""S3's TPC-B operation mix from a real TPC-B-like run (issue 21):
PostgreSQL serving pgbench's built-in tpcb-like script, its raw counters
gathered by ``presets/mp/workloads/tpcb-pgbench.sh`` (perf tracepoints on
every client backend, /proc, callgrind), turned here into counts per
committed transaction.

Per window (bounded by two counts of ``pgbench_history``, one row per
committed transaction), every page fault of a backend is classified by the
mapping it falls in (the backend's ``/proc/PID/maps`` at the window's end)
and its x86 error code (bit 0: the page was present, bit 1: a write):

* ``shared``: in the shared segment (``/dev/zero (deleted)`` or
  ``/SYSV...``: shared_buffers and PostgreSQL's other shared memory), page
  not present: a minor fault on a page other servers map;
* ``file``: a file-backed mapping (text, libraries), not present: a minor
  fault on a page in the page cache;
* ``zero_fill``: private anonymous (heap, stack, anonymous mmap), not
  present;
* ``cow``: a write to a present page of a private mapping: copy-on-write;
* ``unknown``: in no mapping of the snapshot (unmapped before it).

S3's ops per transaction: ``minor-fault`` = shared + file;
``cow-fault`` = cow; ``pageout`` = pages the kernel reclaimed
(``/proc/vmstat`` pgsteal_*) over the window; ``brk`` = brk calls raising
the break. ``user_cycles``: the callgrind instruction difference between a
long and a short one-client run over the difference in transactions (CPI
1, as Kenbus1's). Nothing is fitted: the counts are the run's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, List, Sequence, Tuple, Union

CLASSES = ("shared", "file", "zero_fill", "cow", "unknown")
RECLAIM = ("pgsteal_kswapd", "pgsteal_direct", "pgsteal_khugepaged")

_EVENT = re.compile(r"^\s*(\d+)\s+exceptions:page_fault_(user|kernel):\s+address=(0x[0-9a-f]+)\s.*error_code=(0x[0-9a-f]+)")
_SYSCALL = re.compile(r"^\s*(\d+)\s+(syscalls:sys_exit_brk|syscalls:sys_enter_mmap|syscalls:sys_enter_munmap|"
                      r"sched:sched_process_fork):(.*)$")


class RawError(ValueError):
    """Raw counters from which no mix can be derived."""


def parse_maps(text: str) -> List[Tuple[int, int, str, str]]:
    """(start, end, perms, path) of each line of a ``/proc/PID/maps``."""
    out = []
    for line in text.splitlines():
        f = line.split(None, 5)
        if len(f) < 5:
            continue
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        out.append((lo, hi, f[1], f[5].strip() if len(f) > 5 else ""))
    return out


def classify(address: int, error_code: int, maps: Sequence[Tuple[int, int, str, str]]) -> str:
    for lo, hi, perms, path in maps:
        if lo <= address < hi:
            present, write = error_code & 1, error_code & 2
            if perms[3] == "s":
                return "shared"
            if present and write:
                return "cow"
            if path and not path.startswith("["):
                return "file"
            return "zero_fill"
    return "unknown"


def count_window(events: str, maps: Dict[int, str]) -> dict:
    """Fault classes and call counts of one window's ``perf script -F
    pid,event,trace`` output, against each backend's maps."""
    parsed = {pid: parse_maps(m) for pid, m in maps.items()}
    faults = dict.fromkeys(CLASSES, 0)
    calls = dict(brk_raises=0, mmap=0, munmap=0, fork=0)
    brk: Dict[int, int] = {}
    for line in events.splitlines():
        m = _EVENT.match(line)
        if m:
            pid, addr, err = int(m[1]), int(m[3], 16), int(m[4], 16)
            if pid not in parsed:
                raise RawError(f"fault of pid {pid}, which has no maps")
            faults[classify(addr, err, parsed[pid])] += 1
            continue
        m = _SYSCALL.match(line)
        if not m:
            continue
        pid, what, rest = int(m[1]), m[2], m[3]
        if what == "syscalls:sys_exit_brk":
            ret = int(rest.split("0x")[-1], 16)
            if pid in brk and ret > brk[pid]:
                calls["brk_raises"] += 1
            brk[pid] = ret
        elif what.endswith("mmap"):
            calls["mmap"] += 1
        elif what.endswith("munmap"):
            calls["munmap"] += 1
        else:
            calls["fork"] += 1
    return dict(faults=faults, calls=calls)


def _stat(text: str) -> Dict[int, List[int]]:
    return {int(f[0]): [int(x) for x in f[1:]] for f in (ln.split() for ln in text.splitlines()) if f}


def _vmstat(text: str) -> Dict[str, int]:
    return {k: int(v) for k, v in (ln.split() for ln in text.splitlines() if ln.strip())}


def read_raw(raw: Union[str, Path]) -> dict:
    """The summary of a raw directory (meta, each window's counts, the
    callgrind totals): what ``tpcb-pgbench.json`` records."""
    raw = Path(raw)
    if not (raw / "meta.txt").exists():
        raise RawError(f"{raw}: no meta.txt (not a tpcb-pgbench.sh output directory)")
    meta = dict(ln.split("=", 1) for ln in (raw / "meta.txt").read_text().splitlines() if "=" in ln)
    windows = []
    for d in sorted(raw.glob("window-*"), key=lambda p: int(p.name.split("-")[1])):
        maps = {int(p.name): p.read_text() for p in (d / "maps").iterdir() if p.name.isdigit()}
        w = count_window((d / "events.txt").read_text(), maps)
        before, after = _stat((d / "stat-before").read_text()), _stat((d / "stat-after").read_text())
        va, vb = _vmstat((d / "vmstat-after").read_text()), _vmstat((d / "vmstat-before").read_text())
        rss = [int(p.read_text().split()[0]) for p in (d / "maps").glob("*.shared-rss-kb") if p.read_text().split()]
        w.update(
            transactions=int((d / "history-after").read_text()) - int((d / "history-before").read_text()),
            backends=len(maps),
            proc=dict(zip(("minflt", "majflt", "utime_ticks", "stime_ticks"),
                          (sum(after[p][i] - before[p][i] for p in after) for i in range(4)))),
            reclaimed_pages=sum(va.get(k, 0) - vb.get(k, 0) for k in RECLAIM),
            shared_rss_kb_mean=round(sum(rss) / len(rss)) if rss else 0,
        )
        windows.append(w)
    cg = [tuple(int(x) for x in ln.split()) for ln in (raw / "callgrind.txt").read_text().splitlines() if ln.strip()]
    return dict(meta=meta, windows=windows, callgrind=[dict(transactions=t, instructions=i) for t, i in cg])


def derive(summary: dict, window: int = -1) -> dict:
    """Per-transaction counts from a summary, over one window (the last by
    default: the backends longest running, nearest a long-lived server)."""
    if not summary["windows"]:
        raise RawError("no measurement window")
    w = summary["windows"][window]
    n = w["transactions"]
    if n <= 0:
        raise RawError("no transaction committed in the window")
    (a, b) = sorted(summary["callgrind"], key=lambda c: c["transactions"])[:2]
    if b["transactions"] == a["transactions"]:
        raise RawError("the callgrind runs need two different transaction counts")
    f, c = w["faults"], w["calls"]
    return dict(
        transactions=n,
        backends=w["backends"],
        minor_fault=(f["shared"] + f["file"]) / n,
        cow_fault=f["cow"] / n,
        zero_fill=f["zero_fill"] / n,
        unknown=f["unknown"] / n,
        pageout=w["reclaimed_pages"] / n,
        brk=c["brk_raises"] / n,
        fork=c["fork"] / n,
        majflt=w["proc"]["majflt"] / n,
        minflt=w["proc"]["minflt"] / n,
        shared_pages=w["shared_rss_kb_mean"] * 1024 // 4096,
        user_cycles=round((b["instructions"] - a["instructions"]) / (b["transactions"] - a["transactions"])),
    )


def describe(summary: dict) -> str:
    m = summary["meta"]
    lines = [f"# {m.get('postgres')}, {m.get('pgbench')}, scale {m.get('scale')}, {m.get('clients')} clients on "
             f"{m.get('cpus')} CPUs, {m.get('date')}"]
    for k, w in enumerate(summary["windows"]):
        d = derive(summary, k)
        lines.append(f"# window {k + 1}: {w['transactions']} transactions; per transaction: minor {d['minor_fault']:.4g} "
                     f"(shared {w['faults']['shared']}, file {w['faults']['file']}), copy-on-write {d['cow_fault']:.4g}, "
                     f"zero-fill {d['zero_fill']:.4g}, unknown {d['unknown']:.4g}, reclaimed {d['pageout']:.4g}, "
                     f"brk {d['brk']:.4g}, fork {d['fork']:.4g}; /proc minflt {d['minflt']:.4g}, majflt {d['majflt']:.4g}")
    d = derive(summary)
    lines.append(f"# user instructions per transaction {d['user_cycles']:,}; shared segment resident per backend "
                 f"{d['shared_pages']} pages")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    """``python -m vmlab.studies.s3_tpcb RAWDIR``: the summary (JSON) and
    the per-transaction mix of a ``tpcb-pgbench.sh`` output directory."""
    import sys

    if len(argv) != 1:
        print("usage: python -m vmlab.studies.s3_tpcb RAWDIR", file=sys.stderr)
        return 2
    try:
        s = read_raw(argv[0])
        print(describe(s))
        print(json.dumps(s, indent=1, sort_keys=True))
    except (RawError, OSError, ValueError) as e:
        print(f"vmlab: error: {argv[0]}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
