"""Study S2, part 2 (issue 25): the virtual-cache consistency policies of
``vmlab-os`` compared on a multi-process workload with sharing, with the
consistency oracle on (seed 000 section 5).

The workloads are real multi-process captures with system-call markers
(:mod:`vmlab.studies.s2_real`: ``pipeline``, ``sharing`` and the longer
``workers``), replayed by the engine's OS model (``crates/os/src/replay.rs``):
the markers make and remove the mappings, every reference goes through the
hat and the policy. Beside them, for contrast only, one *synthetic* workload
built here (:func:`workload`: a parent with a shared library, a heap, a file
mapped twice and a System V segment forks children that exec and map them at
addresses of their own, and every process maps, fills and unmaps a scratch
buffer each quantum) runs once, on the 834 under flush-on-unmap; it is
labelled ``synthetic`` wherever it is shown and no verdict is judged on it.

Each machine is the preset as it is (``hp9000-834``: VIVT with space ids;
``mips-r4000``: VIPT, bit-12 synonyms), the 834 made physically addressed,
and the 834 with a 16 KB data cache and a 16-entry TLB (the paper expects
global segments to matter more there). Costs are the 834's cost preset
(with the fitted values the main S2 study uses) on every machine.
"""

from __future__ import annotations

import json
import os
import random
from typing import Dict, List, Optional, Tuple

from vmlab import _engine, optional
from vmlab._engine import VmlabError
from vmlab.report import Verdict

POLICIES = ("flush-on-unmap", "pseudo-alias", "read-only-alias", "cache-aligned", "global-shared",
            "uncached-shared", "none")
CORRECT = POLICIES[:-1]

PAC = ["l1d.indexing=pipt", "l1d.asid_tags=false", "l1i.indexing=pipt", "l1i.asid_tags=false"]
#: (label, preset, overrides, TLB entries or None for the cost preset's 96)
MACHINES: Tuple[Tuple[str, str, List[str], Optional[int]], ...] = (
    ("hp9000-834", "hp9000-834", [], None),
    ("mips-r4000", "mips-r4000", [], None),
    ("hp9000-834-pac", "hp9000-834", PAC, None),
    ("hp9000-834-small", "hp9000-834", ["l1d.size=16K"], 16),
)

#: Seed 000 section 5, each a figure vmlab predicts (nothing here is fitted).
PAPER = {
    "read-only aliasing over simple flushing (PA-RISC Mach)": "6-10 % better overall",
    "global shared address space over read-only aliasing": "a further 2-3 %, more with small caches and TLBs",
    "flushing on the Sun-3": "at most 3.0 % of total time (the DVMA-heavy benchmark)",
}

MASK = (1 << 64) - 1
AT_FDCWD = -100 & MASK
LIB_ID, DATA_ID = 0x11B, 0xDA7A  # file identities appended to openat (see replay.rs)
SHMID = 7
KB = 1024


def _lib(p: int) -> int:
    # 0x13000 apart: a different 64 KB colour (834) and bit 12 (R4000) per process
    return 0x7F00_1000_0000 + p * 0x13000


def _shm(p: int) -> int:
    return 0x7F00_4000_0000 + p * 0x9000


def _heap(p: int) -> int:
    return 0x5555_5555_9000 + p * 0x10_0000


def workload(processes: int = 4, rounds: int = 20, seed: int = 1, churn: bool = True) -> List[tuple]:
    """The event list (see the module docstring); deterministic in ``seed``.
    ``churn=False`` leaves out the scratch buffer mapped and unmapped each
    quantum: the workload "without heavy remapping" of the Sun-3 claim."""
    rng = random.Random(seed)
    ev: List[tuple] = []

    def sc(asid: int, name: str, ret: int, args: List[int]) -> None:
        ev.append(("syscall", name, ret, [a & MASK for a in args], asid))

    def image(p: int) -> None:
        sc(p, "brk", _heap(p), [0])
        sc(p, "brk", _heap(p) + 64 * KB, [_heap(p) + 64 * KB])
        sc(p, "openat", 3, [AT_FDCWD, 0x1000, 0, 0, LIB_ID])
        sc(p, "mmap", _lib(p), [0, 32 * KB, 5, 2, 3, 0])  # text: PROT_READ|EXEC, MAP_PRIVATE
        sc(p, "mmap", _lib(p) + 32 * KB, [_lib(p) + 32 * KB, 8 * KB, 3, 0x12, 3, 32 * KB])  # data, MAP_FIXED
        sc(p, "close", 0, [3])
        sc(p, "shmat", _shm(p), [SHMID, 0, 0])

    parent = 1
    sc(parent, "shmget", SHMID, [0, 32 * KB, 0o1600])
    image(parent)
    d1, d2 = 0x7F00_2000_0000, 0x7F00_2000_8000
    sc(parent, "openat", 3, [AT_FDCWD, 0x2000, 2, 0, DATA_ID])
    sc(parent, "mmap", d1, [0, 16 * KB, 3, 1, 3, 0])  # the same file twice, shared
    sc(parent, "mmap", d2, [0, 16 * KB, 1, 1, 3, 0])
    sc(parent, "close", 0, [3])
    for child in range(2, processes + 1):
        sc(parent, "fork", child, [])
        sc(child, "execve", 0, [0x3000, 0x3100, 0x3200])
        image(child)

    def words(base: int, span: int, n: int) -> List[int]:
        return [base + 8 * rng.randrange(span // 8) for _ in range(n)]

    for _ in range(rounds):
        for p in range(1, processes + 1):
            ev.append(("switch", p))
            ev += [("load", a, 8, p) for a in words(_lib(p), 32 * KB, 200)]
            ev += [("store", a, 8, p) for a in words(_lib(p) + 32 * KB, 8 * KB, 20)]
            ev += [(rng.choice(("load", "store")), a, 8, p) for a in words(_heap(p), 64 * KB, 100)]
            ev += [("store" if p == parent else "load", a, 8, p) for a in words(_shm(p), 32 * KB, 30)]
            if p == parent:
                ev += [("store", a, 8, p) for a in words(d1, 16 * KB, 20)]
                ev += [("load", a, 8, p) for a in words(d2, 16 * KB, 20)]
            if not churn:
                continue
            buf = 0x7F00_6000_0000 + p * 0x10000
            sc(p, "mmap", buf, [0, 8 * KB, 3, 0x22, MASK, 0])  # MAP_PRIVATE|MAP_ANONYMOUS
            ev += [("store", buf + 128 * i, 8, p) for i in range(64)]
            sc(p, "munmap", 0, [buf, 8 * KB])
    for p in range(processes, 0, -1):
        sc(p, "exit_group", 0, [0])
    return ev


def replay(events, machine: str, policy: str, overrides: List[str], tlb: Optional[int]) -> dict:
    return json.loads(_engine.os_replay(events, machine, policy, "hp9000-834", True, overrides, tlb))


def _cycles(counters: dict, params: Dict[str, float]) -> float:
    keys = ("instructions", "cache_ops", "misses", "writebacks", "uncached", "traps", "flush_calls", "copy_calls")
    names = ("cpi", "cache_op", "miss", "writeback", "uncached", "trap", "flush_call", "copy_call")
    return sum(params[n] * counters[k] for n, k in zip(names, keys))


#: The workload label of the synthetic row.
SYNTHETIC = "synthetic, heavy remapping"


def _row(events, label: str, preset: str, overrides: List[str], tlb: Optional[int], policy: str,
         params: Dict[str, float], workload: str) -> dict:
    row = dict(machine=label, policy=policy, workload=workload)
    try:
        r = replay(events, preset, policy, overrides, tlb)
    except VmlabError as e:  # the policy refuses a mapping on this machine
        row.update(status=f"refused: {str(e).split(': ', 1)[-1][:160]}")
        return row
    comp = r["components"]
    zero = {k: 0 for k in r["counters"]}
    total = _cycles(r["counters"], params)
    flush = _cycles(comp.get("flush loop", zero), params)
    purge = _cycles(comp.get("tlb purge", zero), params)
    row.update(status="ran", cycles=total, flush_cycles=flush, tlb_purge_cycles=purge,
               flush_pct=100 * flush / total if total else 0.0,
               lines_empty=r["flushed"]["empty"], lines_clean=r["flushed"]["clean"],
               lines_dirty=r["flushed"]["dirty"], misses=r["counters"]["misses"],
               tlb_misses=r["counters"]["tlb_misses"], uncached=r["counters"]["uncached"],
               pseudo_faults=r["faults"]["pseudo"], relocated=r["relocated"],
               violations=r["violation_count"],
               first_stale_event="" if r["first_violation_event"] is None else r["first_violation_event"],
               first_stale_read=locate(r, events), data_references=r["accesses"],
               user_cycles=_cycles(comp.get("user access", zero), params))
    return row


def locate(r: dict, events=None) -> str:
    """Where the first violation of replay result ``r`` is in the trace:
    the event, the process, the address, the call that mapped it then (from
    the markers of ``events``, a trace path or event list), and who wrote
    the data it missed."""
    if not r["violations"]:
        return ""
    v, n = r["violations"][0], r["first_violation_event"]
    a = v.get("access", {})
    asid, va = a.get("asid"), a.get("vaddr", 0)
    where = mapped_by(_calls(events), asid, va, n) if events is not None else None
    by = v.get("latest_by")
    writer = ("" if not by else
              f"; the newer data was written by {'the kernel' if by[0] == 0 else f'process {by[0]}'} at {by[1]:#x}")
    return (f"trace event {n}: {v['kind']} by process {asid} {'store' if a.get('write') else 'load'} at {va:#x}, "
            f"{where or 'a page no call mapped (program image or stack, mapped on first touch)'}{writer}")


def _calls(events) -> List[dict]:
    if isinstance(events, (str, os.PathLike)):
        from vmlab.traces import trace_syscalls

        return trace_syscalls(events)
    return [dict(event=i, name=e[1], ret=e[2], args=list(e[3]), asid=e[4] if len(e) > 4 else 1)
            for i, e in enumerate(events) if e[0] == "syscall"]


def mapped_by(calls: List[dict], asid: int, va: int, n: int) -> Optional[str]:
    """The mapping call that covers ``va`` in process ``asid`` at trace
    event ``n``: its own calls and, before its fork, its parents'."""
    forks = {c["ret"]: (c["asid"], c["event"]) for c in calls
             if c["name"] in ("clone", "fork", "vfork") and c["ret"] > 0}
    until, a = {asid: n}, asid
    while a in forks and forks[a][0] not in until:
        a, at = forks[a]
        until[a] = at
    sizes = {c["ret"]: c["args"][1] for c in calls if c["name"] == "shmget" and c["ret"] >= 0}
    live: List[Tuple[int, int, str]] = []
    for c in calls:
        if until.get(c["asid"], -1) <= c["event"] or (c["ret"] < 0 and c["name"] not in ("exit", "exit_group")):
            continue
        name, args, ret = c["name"], c["args"], c["ret"]
        if name == "mmap":
            flags = args[3]
            kind = ("anonymous" if flags & 0x20 else f"file (fd {args[4]})")
            live.append((ret, ret + args[1], f"{'shared' if flags & 3 in (1, 3) else 'private'} {kind} mapping "
                         f"{ret:#x}+{args[1]:#x} by process {c['asid']}'s mmap at trace event {c['event']}"))
        elif name == "shmat" and args[0] in sizes:
            live.append((ret, ret + sizes[args[0]], f"System V segment {args[0]} attached at {ret:#x} by process "
                         f"{c['asid']}'s shmat at trace event {c['event']}"))
        elif name == "munmap":  # what is left of each mapping it cuts
            lo, hi = args[0], args[0] + args[1]
            live = [(s, e, d) for m0, m1, d in live for s, e in ((m0, min(m1, lo)), (max(m0, hi), m1)) if s < e]
        elif name == "shmdt":
            live = [m for m in live if not (m[0] == args[0] and m[2].startswith("System V"))]
        elif name == "execve" and c["asid"] == asid:
            live = []
    return next((d for lo, hi, d in reversed(live) if lo <= va < hi), None)


def rows(params: Dict[str, float], real: Optional[Dict[str, object]] = None, synthetic: bool = True) -> List[dict]:
    """One row per workload, machine and policy; ``params`` are cycles per
    event (the main study's fitted ones). ``real`` maps a workload name to
    its trace (default: :mod:`vmlab.studies.s2_real`'s captures, captured on
    first use). The synthetic workload runs once, on the 834 under
    flush-on-unmap: the heavy-remapping contrast of the flushing claim."""
    if real is None:
        from vmlab.studies import s2_real

        real = {name: str(s2_real.ensure(name)) for name in s2_real.WORKLOADS}
    jobs = [(events, label, preset, overrides, tlb, policy, params, f"real: {name}")
            for name, events in real.items() for label, preset, overrides, tlb in MACHINES for policy in POLICIES]
    if synthetic:
        jobs.append((workload(), "hp9000-834", "hp9000-834", [], None, "flush-on-unmap", params, SYNTHETIC))
    # Each replay is independent and runs outside the GIL: one thread per
    # core; map keeps the rows in job order, so the output does not depend on it.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
        out = list(pool.map(lambda job: _row(*job), jobs))
    for r in out:
        best = [x for x in out if x["status"] == "ran" and x["workload"] == r["workload"]
                and x["machine"] == r["machine"] and x["policy"] in CORRECT]
        if r["status"] == "ran" and best:
            r["misses_added"] = r["misses"] - min(x["misses"] for x in best)
            r["tlb_misses_added"] = r["tlb_misses"] - min(x["tlb_misses"] for x in best)
    return out


def real_total(rs: List[dict], machine: str, policy: str) -> dict:
    """The real workloads together (a suite's total): summed cycles and flush
    cycles, or status "refused" if the policy refused any of them."""
    mine = [r for r in rs if r["machine"] == machine and r["policy"] == policy and r["workload"].startswith("real")]
    if not mine or any(r["status"] != "ran" for r in mine):
        return dict(status="refused", per={r["workload"]: r for r in mine})
    return dict(status="ran", cycles=sum(r["cycles"] for r in mine), flush_cycles=sum(r["flush_cycles"] for r in mine),
                pseudo_faults=sum(r["pseudo_faults"] for r in mine), per={r["workload"]: r for r in mine})


def _pct(base: dict, other: dict) -> float:
    """How many percent fewer cycles ``other`` takes than ``base``."""
    if "cycles" not in base or "cycles" not in other:
        return float("nan")
    return 100 * (base["cycles"] - other["cycles"]) / base["cycles"]


def _each(base: dict, other: dict) -> str:
    return ", ".join(f"{w.split(': ', 1)[-1]} {_pct(b, other['per'][w]):.2f} %" for w, b in base["per"].items()
                     if b["status"] == "ran" and other["per"].get(w, {}).get("status") == "ran")


#: The real workload the flushing claim is judged on: long-lived processes
#: with little set-up and teardown for their length (s2_real.WORKLOADS).
LONG = "real: workers"


def _scale_to(r: dict, share: float) -> float:
    """How many times its non-flush cycles a run with row ``r``'s flush-loop
    cycles would need for flushing to be ``share`` percent of the total: the
    flushes of a process's exit and exec are of the pages it touched, which
    a longer run of the same program touches again rather than anew."""
    rest = r["cycles"] - r["flush_cycles"]
    return r["flush_cycles"] * (100 - share) / share / rest if rest > 0 else float("nan")


def _flush_diagnosis(total: dict) -> str:
    """What the flush loop did, per workload: lines flushed by state against
    the data references the processes made."""
    parts = []
    for w, r in total["per"].items():
        if r["status"] != "ran" or "data_references" not in r:
            continue
        lines = r["lines_empty"] + r["lines_clean"] + r["lines_dirty"]
        parts.append(f"{w.split(': ', 1)[-1]} flushed {lines:,} lines ({100 * r['lines_empty'] / max(lines, 1):.0f} % "
                     f"empty, {100 * r['lines_dirty'] / max(lines, 1):.0f} % dirty) for {r['data_references']:,} data "
                     f"references, one line per {r['data_references'] / max(lines, 1):.0f}")
    return ("each process's exit or exec unmaps every page it touched, and the flush loop visits each page line "
            "by line, empty lines included, so the share falls only as a process does more work per page it "
            "touches; " + "; ".join(parts))


def verdicts(rs: List[dict]) -> List[Verdict]:
    """The must-show 1 claims, each computed from ``rs``: on the real
    workloads together, each workload's own figure beside."""
    v = []
    names = sorted({r["workload"] for r in rs if r["workload"].startswith("real")})
    on = f"real workloads ({', '.join(n.split(': ', 1)[-1] for n in names)}) together"
    # "Simple minded cache flushes to prevent aliases" (seed 000 section 5)
    # is one alias class live at a time: vmlab's pseudo-alias.
    simple, roa, gs, fou = (real_total(rs, "hp9000-834", p)
                            for p in ("pseudo-alias", "read-only-alias", "global-shared", "flush-on-unmap"))
    gain = _pct(simple, roa)
    v.append(Verdict("VIVT (hp9000-834): read-only aliasing beats simple flushing to prevent aliases (pseudo-alias) "
                     "by several percent (>= 3 %)", gain >= 3.0,
                     f"{gain:.2f} % fewer cycles on the {on} ({_each(simple, roa)}); against flush-on-unmap "
                     f"{_pct(fou, roa):.2f} % ({_each(fou, roa)})",
                     "predicted against: " + PAPER["read-only aliasing over simple flushing (PA-RISC Mach)"]))
    extra = _pct(roa, gs)
    sroa, sgs = (real_total(rs, "hp9000-834-small", p) for p in ("read-only-alias", "global-shared"))
    sextra = _pct(sroa, sgs)
    v.append(Verdict("VIVT: global shared segments add a little more over read-only aliasing (> 0 %), and more with "
                     "a small cache and TLB", extra > 0 and sextra > extra,
                     f"{extra:.2f} % on the 834 ({_each(roa, gs)}); {sextra:.2f} % with a 16 KB D-cache and 16-entry "
                     f"TLB ({_each(sroa, sgs)}); pseudo faults {gs.get('pseudo_faults', '')} under global-shared "
                     f"against {roa.get('pseudo_faults', '')} under read-only-alias. vmlab's global-shared keeps shared "
                     "mappings at one global address and a file's read-only private text (the libraries, "
                     "MAP_PRIVATE) in one global segment where it sits at one address in every process; text at "
                     "another address (ls's C library in the pipeline) stays private and pseudo-aliased",
                     "predicted against: " + PAPER["global shared address space over read-only aliasing"]))
    heavy = next((r for r in rs if r["workload"] == SYNTHETIC and r["status"] == "ran"), None)
    together = 100 * fou["flush_cycles"] / fou["cycles"] if fou["status"] == "ran" else float("nan")
    # The claim is about a workload without heavy remapping: judged on the
    # long one where it was captured, on all of them together otherwise.
    long = fou["per"].get(LONG, {})
    judged = long if long.get("status") == "ran" else None
    share = judged["flush_pct"] if judged else together
    each = ", ".join(f"{w.split(': ', 1)[-1]} {r['flush_pct']:.2f} %" for w, r in fou["per"].items()
                     if r["status"] == "ran")
    scale = (f"; at its flush-loop cycles it would need {_scale_to(judged, 5.0):.1f} times its other cycles (a "
             "run that long, touching the same pages) to come down to 5 %" if judged else "")
    v.append(Verdict("VIVT: flushing stays a few percent (<= 5 %) of total time under flush-on-unmap (SunOS) on "
                     "a workload without heavy remapping", share <= 5.0,
                     (f"{share:.2f} % of cycles in the flush loop on {LONG.split(': ', 1)[-1]}, the long workload"
                      f"{scale}; {together:.2f} % on the {on} ({each})" if judged else
                      f"{share:.2f} % of cycles in the flush loop on the {on} ({each})")
                     + (f"; for contrast, {heavy['flush_pct']:.2f} % on the synthetic workload that maps and unmaps "
                        "a scratch buffer every quantum" if heavy else "") + ". Why: " + _flush_diagnosis(fou),
                     "predicted against: " + PAPER["flushing on the Sun-3"]))
    pac = [(p, real_total(rs, "hp9000-834-pac", p)) for p in CORRECT]
    ran = [(p, t) for p, t in pac if t["status"] == "ran"]
    lo, hi = min(t["cycles"] for _, t in ran), max(t["cycles"] for _, t in ran)
    spread = 100 * (hi - lo) / lo
    v.append(Verdict("physically addressed 834: the policies cost nothing (every correct policy within 0.5 %, "
                     "no flush loop)", spread <= 0.5 and all(t["flush_cycles"] == 0 for _, t in ran),
                     f"spread {spread:.2f} % on the {on}; flush-loop cycles "
                     + ", ".join(f"{p} {t['flush_cycles']:,.0f}" for p, t in ran),
                     "section 5: the policies exist only because the cache is virtually addressed"))
    bad = [f"{r['workload']} {r['machine']} {r['policy']} {r['violations']}" for r in rs
           if r["status"] == "ran" and r["policy"] in CORRECT and r["violations"]]
    v.append(Verdict("the oracle: zero stale reads or cache bombs under every correct policy on every machine and "
                     "workload", not bad, "; ".join(bad) if bad else "0 everywhere", ""))
    none = [r for r in rs if r["policy"] == "none" and r["status"] == "ran" and r["workload"].startswith("real")
            and r["machine"] in ("hp9000-834", "mips-r4000")]
    count = {m: sum(r["violations"] for r in none if r["machine"] == m) for m in ("hp9000-834", "mips-r4000")}
    v.append(Verdict("the oracle: `none` shows violations on both virtually indexed machines (834, R4000) on the "
                     "real workloads", all(count.values()),
                     "; ".join(f"{r['machine']} {r['workload'].split(': ', 1)[-1]} {r['violations']}"
                               + (f" (first: {r['first_stale_read']})" if r["violations"] else "") for r in none), ""))
    return v


def figure(rs: List[dict]):
    """Cycles by policy on the real workloads together, split by mechanism,
    one panel per machine."""
    Figure = optional.figure_class("the S2 policy figure")
    if Figure is None:
        return None
    fig = Figure(figsize=(12, 4.4))
    labels = [m[0] for m in MACHINES]
    for i, m in enumerate(labels):
        ax = fig.add_subplot(1, len(labels), i + 1)
        ran = [real_total(rs, m, p) for p in POLICIES]
        ran = [dict(t, policy=p) for p, t in zip(POLICIES, ran) if t["status"] == "ran"]
        for t in ran:
            t.update(tlb_purge_cycles=sum(r["tlb_purge_cycles"] for r in t["per"].values()),
                     user_cycles=sum(r["user_cycles"] for r in t["per"].values()))
        xs = list(range(len(ran)))
        flush = [r["flush_cycles"] / 1e6 for r in ran]
        purge = [r["tlb_purge_cycles"] / 1e6 for r in ran]
        user = [r["user_cycles"] / 1e6 for r in ran]
        rest = [r["cycles"] / 1e6 - f - p - u for r, f, p, u in zip(ran, flush, purge, user)]
        bottom = [0.0] * len(ran)
        for vals, name, c in ((user, "user accesses", "C0"), (rest, "faults, copies, TLB misses, other", "C2"),
                              (flush, "cache flush/purge loop", "C3"), (purge, "TLB purges", "C1")):
            ax.bar(xs, vals, bottom=bottom, color=c, label=name)
            bottom = [b + x for b, x in zip(bottom, vals)]
        ax.set_xticks(xs)
        ax.set_xticklabels([r["policy"] for r in ran], rotation=60, ha="right", fontsize="small")
        ax.set_title(m, fontsize="medium")
        if i == 0:
            ax.set_ylabel("M cycles (predicted)")
            handles, names = ax.get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", ncol=4, fontsize="small")
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    return fig
