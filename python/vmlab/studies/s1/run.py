"""Running the sweep: batches of points sharing their L1 pass, the engine
call in a worker, and each result flattened into a row (``vmlab.runs``
keeps the store, resume and workers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from vmlab import _engine
from vmlab.runs import Batch, RunKey, file_sha256
from vmlab.runs import run as run_sweep

from .grid import PRESET, Grid, Point, points
from .rows import Labels

SIDE_FIELDS = ("l1_hit_tlb_hit", "l1_hit_tlb_miss", "l2_hit_tlb_hit", "l2_hit_tlb_miss",
               "l2_miss_tlb_hit", "l2_miss_tlb_miss")


def _labels(p: Point) -> Labels:
    """What a row says about its point (not what the engine measured)."""
    return Labels(trace=p.trace, scheme=p.scheme, l1_kb=p.l1_kb, l2_kb=p.l2_kb, l1_line=p.l1_line,
                  l2_line=p.l2_line, tlb_entries=p.tlb, retranslate_writebacks=p.retranslate, role=p.role,
                  protect_per_million=p.protect_per_million)


def _measured(r: dict) -> dict:
    """The columns of a row taken from one engine result (``vm_sweep``)."""
    row: dict[str, Any] = {
        "user_instructions": r["user_instructions"], "vmcpi": r["vmcpi"], "vm_cycles": r["vm_cycles"],
        "l2i_misses_per_kinstr": r["l2i_misses_per_kinstr"], "l2d_misses_per_kinstr": r["l2d_misses_per_kinstr"],
        "handler_fetches": r["handler_fetches"], "pte_loads": r["pte_loads"],
        "writeback_translations": r["writeback_translations"], "folded_regions": r["folded_regions"],
        "page_table_bytes": (r.get("page_table") or {}).get("bytes", 0),
        "page_table_kind": r.get("page_table_kind") or "",
        "protection_changes": r.get("protection_changes", 0), "protection_cpi": r.get("protection_cpi", 0.0),
    }
    for c in r["components"]:
        row[f"cpi_{c['component']}"] = c["vmcpi"]
        row[f"freq_{c['component']}"] = c["frequency"]
    for side in ("i_side", "d_side"):
        for f in SIDE_FIELDS:
            row[f"{side}_{f}"] = r[side][f]
    for t in ("itlb", "dtlb"):
        stats = r.get(t) or {}
        row[f"{t}_misses"] = stats.get("misses", 0)
    return row


def _run_batch(payload: tuple[str, list[str], int]) -> list[dict]:
    """One batch, in a worker: every resolved configuration over one trace,
    decoded once. Returns ``_measured`` of each, in order."""
    trace, configs, max_events = payload
    results = _engine.vm_sweep(configs, trace, None, 1, None, max_events or None)
    return [_measured(json.loads(r)) for r in results]


def _above_l2(p: Point) -> tuple:
    """What a point shares with the points that may share its L1 pass."""
    return (p.scheme, p.l1_kb, p.l1_line, p.tlb, p.retranslate, p.protect_per_million)


def _one_pass(p: Point) -> tuple:
    """What a point shares with the points one engine pass may serve: for a
    scheme that translates on every access or never (the TLB schemes and
    NOTLB), without protection changes, everything but the L1 size and the
    L2 (one pass per TLB, ``vmlab_translation::onepass_groups``); for
    SOFTVM and SPUR without protection changes, the L1s (one L1-hit filter
    serves both schemes' machines, whatever their L2s, TLB entries or
    write-back retranslation: ``vmlab_translation::filter_refusal``); for
    the others everything above L2 (the L2 fan-out)."""
    if p.scheme in ("softvm", "spur") and not p.protect_per_million:
        return ("softvm+spur", p.l1_kb, p.l1_line)
    shared_l1s = p.scheme not in ("softvm", "spur") and not p.protect_per_million
    return (p.scheme, 0 if shared_l1s else p.l1_kb, p.l1_line, p.tlb, p.retranslate, p.protect_per_million)


def _batches(todo: list[Point], size: int) -> list[list[Point]]:
    """Batches of about ``size`` points that never split the points one
    engine pass serves (``_one_pass``); a batch is larger only where one
    such group is."""
    groups: dict[tuple, list[Point]] = {}
    for p in todo:
        groups.setdefault(_one_pass(p), []).append(p)
    out: list[list[Point]] = []
    cur: list[Point] = []
    for g in groups.values():
        if cur and len(cur) + len(g) > size:
            out.append(cur)
            cur = []
        cur = cur + g
    if cur:
        out.append(cur)
    return out


def _label(trace: str, batch: list[Point]) -> str:
    """What the progress line calls a batch: its trace and, per shared
    pass (``_one_pass``), the scheme(s), L1 size(s) and L1 line, so each
    batch's CPU time can be put down to what it ran."""
    passes: dict[tuple, list[Point]] = {}
    for p in batch:
        passes.setdefault(_one_pass(p), []).append(p)
    parts = []
    for pts in passes.values():
        schemes = "+".join(dict.fromkeys(p.scheme for p in pts))
        l1 = sorted({p.l1_kb for p in pts})
        l1s = f"{l1[0]}K" if len(l1) == 1 else f"{l1[0]}-{l1[-1]}K"
        roles = ",".join(sorted({p.role for p in pts} - {"sweep"}))
        parts.append(f"{schemes} L1 {l1s}/{pts[0].l1_line} B x{len(pts)}" + (f" ({roles})" if roles else ""))
    return f"{trace} " + "; ".join(parts)


#: What S1 stores per run (``runs.RunKey.kind``): bump the number when
#: ``_measured`` stores something new, so stored runs are not reused.
RUN_KIND = "s1.vm_sweep/1"


def sweep(grid: Grid, trace_paths: dict[str, str], out_dir: Path, jobs: int, dask: Optional[str] = None,
          log=print) -> list[dict]:
    """Every point of ``grid`` as a row: its labels, what the engine
    measured, and its run key (``vmlab.runs``). A run whose key is in
    ``out_dir/runs.jsonl`` is reused; the rest run now (on ``jobs`` local
    processes, or on the Dask scheduler at ``dask``) and are added to it."""
    pts = points(grid)
    digests = {t: file_sha256(trace_paths[t]) for t in grid.traces}
    configs = {p: _engine.vm_load_config(PRESET, p.overrides()) for p in pts}
    keys = {p: RunKey.make(RUN_KIND, digests[p.trace], grid.max_events, configs[p]) for p in pts}
    point_of: dict[str, Point] = {}
    for p in pts:
        point_of.setdefault(keys[p].digest, p)

    def plan(todo: list[RunKey]) -> list[Batch]:
        out = []
        for t in grid.traces:
            for b in _batches([point_of[k.digest] for k in todo if point_of[k.digest].trace == t], grid.batch):
                out.append(Batch(tuple(keys[p] for p in b),
                                 (trace_paths[t], [configs[p] for p in b], grid.max_events), _label(t, b)))
        return out

    results = run_sweep(list(keys.values()), plan, _run_batch, out_dir / "runs.jsonl", jobs=jobs, dask=dask,
                        log=log, name="S1")
    return [{**_labels(p), **results[keys[p].digest], **keys[p].columns()} for p in pts]
