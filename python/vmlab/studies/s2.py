"""Study S2: virtually addressed caches vs VM primitives and IPC (Inouye,
Konuru, Walpole, Sears 1992, seed 000; ``../shared/design/experiments.md`` S2).

The engine (``vmlab-os``) runs every primitive and IPC design as
instructions and references through the simulated HP 9000/834 and returns
*counters* (instructions, cache-control ops, misses, write-backs, traps,
routine calls); these do not depend on any cost parameter. Time is counters
times per-event cycle costs, so calibration is a non-negative least-squares
fit of the cost parameters on **Table 1, Table 2 and the 15-20 us unmap**
(relative errors). The seed gives no path length for Chorus' two fixed
software paths, so its two single-operation figures calibrate them and only
them (experiments.md S2): the null ipcSend (337 us) fixes ``path.ipc_null``,
the ~400 us pseudo fault fixes ``path.pseudo_fault_handler``. Everything that
grows with the message (Table 3's per-page cost) is predicted.

The calibration never sees a Table 3 per-page figure: ``compute`` passes it
only the calibration targets (tests/python/test_s2.py changes such a figure
and checks that no fitted parameter or path moves, and changes the null and
the fault and checks that only the two paths move).
"""

from __future__ import annotations

import copy
import csv
import html
import itertools
import json
import os
from fractions import Fraction
from typing import Dict, List, Tuple

import click

from vmlab import _engine, optional
from vmlab.report import Verdict
from vmlab.studies import s2_policies

KB = 1024
SIZES = [1, 2, 4, 8]

#: Seed 000 Table 1 (us): flush of a block by cache state.
TABLE1 = {"empty": [36, 49, 75, 128], "clean": [36, 49, 75, 128], "dirty": [80, 150, 291, 579]}
#: Seed 000 Table 2 (us): copy by case.
TABLE2 = {"best": [57, 113, 224, 446], "worst": [212, 408, 793, 1562]}
#: Seed 000 section 4.1: unmap of a 2 KB page without flush, 15-20 us.
UNMAP = (15.0, 20.0)
#: Seed 000 Table 3 (us), one-way ipcSend; None where the paper has N/A.
TABLE3 = {
    "ipc-copy": {0: 337, 1: 786, 2: 1668, 4: 2838, 8: 5097, 16: 9562},
    "ipc-move": {2: 1531, 4: 2424, 8: 4225, 16: 7649},
    "pure-copy": {2: 1355, 4: 2282, 8: 3806, 16: 7273},
}
#: Seed 000 section 4.2: the pseudo page fault of lazy mapping, ~400 us.
PSEUDO_FAULT = 400.0

#: Fitted cost parameters (cycles per event), in the engine's COST_KEYS order
#: minus those not identifiable from the calibration set.
FITTED = ["cpi", "cache_op", "miss", "writeback", "flush_call", "copy_call"]
COUNTER_OF = {
    "cpi": "instructions",
    "cache_op": "cache_ops",
    "miss": "misses",
    "writeback": "writebacks",
    "uncached": "uncached",
    "trap": "traps",
    "flush_call": "flush_calls",
    "copy_call": "copy_calls",
}


#: The two fixed software paths the paper's single-operation figures
#: calibrate: path -> (group, variant, bytes) of the measurement it is fitted on.
PATH_FIGURES = {"ipc_null": ("ipc", "ipc-copy", 0), "pseudo_fault_handler": ("ipc-receive", "ipc-move", 2 * KB)}


def measurements(cost: str = "hp9000-834") -> List[dict]:
    return json.loads(_engine.os_s2_measurements(cost))


def cost_model(cost: str = "hp9000-834") -> dict:
    return json.loads(_engine.os_cost_model(cost))


def _find(ms: List[dict], group: str, variant: str, nbytes: int, cache: str = "vac") -> dict:
    for m in ms:
        if m["group"] == group and m["variant"] == variant and m["bytes"] == nbytes and m["cache"] == cache:
            return m
    raise KeyError((group, variant, nbytes, cache))


def calibration_targets() -> List[Tuple[str, str, int, float]]:
    """(group, variant, bytes, paper us) of every calibration figure."""
    out = []
    for state, row in TABLE1.items():
        out += [("table1", state, kb * KB, float(v)) for kb, v in zip(SIZES, row)]
    for case, row in TABLE2.items():
        out += [("table2", case, kb * KB, float(v)) for kb, v in zip(SIZES, row)]
    out.append(("unmap", "no-flush", 2 * KB, sum(UNMAP) / 2))
    return out


def _row(counters: dict, fixed: Dict[str, float]) -> Tuple[List[float], float]:
    """Design-matrix row (cycles per unit of each fitted parameter) and the
    cycles of the parameters held fixed. Uncached references are tied to
    the miss cost (one memory access each)."""
    row = []
    for k in FITTED:
        n = counters[COUNTER_OF[k]]
        if k == "miss":
            n += counters["uncached"]
        row.append(float(n))
    fixed_cycles = sum(v * counters[COUNTER_OF[k]] for k, v in fixed.items())
    return row, fixed_cycles


def _nnls(a: List[List[float]], b: List[float]) -> List[float]:
    """Exact non-negative least squares by enumerating active sets (the
    problem has six unknowns; neither numpy nor scipy is a dependency).
    Each subset is solved in exact rational arithmetic and its loss compared
    exactly: numpy's lstsq (used here before) goes through the BLAS kernel OpenBLAS picks for the
    CPU at run time, and an AVX-512 kernel gave other last bits than an AVX2
    one, which moved every fitted parameter and every S2 table derived from
    them from one machine to the next."""
    rows = [[Fraction(float(v)) for v in r] for r in a]
    rhs = [Fraction(float(v)) for v in b]
    n = len(a[0])
    best, best_loss = [Fraction(0)] * n, sum(v * v for v in rhs)
    margin = Fraction(1e-12)
    for k in range(1, n + 1):
        for cols in itertools.combinations(range(n), k):
            x_sub = _least_squares_exact([[r[c] for c in cols] for r in rows], rhs)
            if x_sub is None or any(v < 0 for v in x_sub):
                continue
            x = [Fraction(0)] * n
            for c, v in zip(cols, x_sub):
                x[c] = v
            loss = sum((sum(r[j] * x[j] for j in cols) - y) ** 2 for r, y in zip(rows, rhs))
            if loss < best_loss - margin:
                best, best_loss = x, loss
    return [float(v) for v in best]


def _least_squares_exact(a: List[List[Fraction]], b: List[Fraction]):
    """The least-squares solution of ``a x = b`` from the normal equations,
    solved exactly (Gauss-Jordan over fractions); None where the columns are
    linearly dependent (a smaller subset spans the same fits)."""
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] * y for r, y in zip(a, b))]
         for i in range(n)]
    for col in range(n):
        pivot = next((i for i in range(col, n) if m[i][col] != 0), None)
        if pivot is None:
            return None
        m[col], m[pivot] = m[pivot], m[col]
        for i in range(n):
            if i != col and m[i][col] != 0:
                f = m[i][col] / m[col][col]
                m[i] = [u - f * v for u, v in zip(m[i], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(ms: List[dict], targets: List[Tuple[str, str, int, float]], cycle_ns: float,
        fixed: Dict[str, float]) -> Dict[str, float]:
    """Fits FITTED on `targets` only, minimising relative errors."""
    rows, rhs = [], []
    for group, variant, nbytes, us in targets:
        row, fixed_cycles = _row(_find(ms, group, variant, nbytes)["counters"], fixed)
        target_cycles = us * 1000.0 / cycle_ns
        rows.append([v / target_cycles for v in row])
        rhs.append((target_cycles - fixed_cycles) / target_cycles)
    x = _nnls(rows, rhs)
    return dict(zip(FITTED, (float(v) for v in x)))


def path_targets(table3: Dict[str, Dict[int, float]], pseudo_fault: float) -> Dict[str, float]:
    """Paper us of the figure each fixed software path is calibrated on."""
    return {"ipc_null": float(table3["ipc-copy"][0]), "pseudo_fault_handler": float(pseudo_fault)}


def path_runs(m: dict, path: str, preset: Dict[str, float]) -> int:
    """How many times measurement `m` runs `path` (the engine's counters are
    linear in each path length, one term per run)."""
    if path == "ipc_null":
        return m["components"].get(IPC_PATH, {}).get("traps", 0) // 2  # ipcSend + ipcReceive: two traps
    # A fault entry is one trap and one handler path, pseudo or ordinary: its
    # instructions tell how many were pseudo faults.
    entry = m["components"].get(FAULT_ENTRY, {})
    pseudo, other = preset["pseudo_fault_handler"], preset["fault_handler"]
    extra = entry.get("instructions", 0) - entry.get("traps", 0) * other
    if extra and pseudo == other:
        raise ValueError("path.pseudo_fault_handler equals path.fault_handler in the preset: the S2 fit cannot tell "
                         "pseudo faults from the others")
    return round(extra / (pseudo - other)) if extra else 0


def fit_paths(ms: List[dict], targets: Dict[str, float], cycle_ns: float, allp: Dict[str, float],
              preset: Dict[str, float]) -> Dict[str, float]:
    """Instructions of each fixed path such that its figure comes out as the
    paper's. Part of the same least-squares problem as `fit`: each path is an
    unknown of exactly one calibration row, so the joint optimum zeroes that
    row and leaves the cost parameters to the other rows, i.e. `fit` on
    Tables 1-2 + unmap, then this exact solve with the fitted cpi."""
    out = {}
    for path, us in targets.items():
        m = _find(ms, *PATH_FIGURES[path])
        runs = path_runs(m, path, preset)
        gap_cycles = (us - micros(m["counters"], allp, cycle_ns)) * 1000.0 / cycle_ns
        out[path] = max(0.0, preset[path] + gap_cycles / (allp["cpi"] * runs))
    return out


def with_paths(ms: List[dict], preset: Dict[str, float], paths: Dict[str, float]) -> List[dict]:
    """The measurements as the engine would give them with `paths` in place
    of the preset's path lengths (each run adds its path's instructions to the
    counters and to the component that runs it)."""
    component = {"ipc_null": IPC_PATH, "pseudo_fault_handler": FAULT_ENTRY}
    out = copy.deepcopy(ms)
    for m in out:
        for path, length in paths.items():
            extra = path_runs(m, path, preset) * (length - preset[path])
            if extra:
                m["counters"]["instructions"] += extra
                m["components"][component[path]]["instructions"] += extra
    return out


def micros(counters: dict, params: Dict[str, float], cycle_ns: float) -> float:
    cycles = sum(params[k] * counters[COUNTER_OF[k]] for k in params)
    return cycles * cycle_ns / 1000.0


#: A cell further than this from the paper needs an explanation (must-show 3).
TOLERANCE_PCT = 25.0
#: The engine's mechanism names (crates/os/src/primitives.rs) used below.
IPC_PATH, COPY_LOOP, FAULT_ENTRY = "ipc path", "copy loop", "fault entry"
WORD = 4
#: The HP 9000/834's page (seed 000 section 4: 2 KB physical pages).
PAGE = 2 * KB


def breakdown(m: dict, params: Dict[str, float], cycle_ns: float) -> Dict[str, float]:
    """Microseconds of each mechanism of one measurement (they sum to the
    measurement's total: the engine partitions its counters exactly)."""
    return {k: micros(c, params, cycle_ns) for k, c in m["components"].items()}


def _fmt_parts(parts: Dict[str, float]) -> str:
    shown = sorted(((v, k) for k, v in parts.items() if abs(v) >= 0.05), reverse=True)
    return " + ".join(f"{k} {v:.1f}" for v, k in shown) or "nothing"


def _table2_rate(case: str) -> float:
    """Table 2's copy cost per KB (us), over all its sizes."""
    return sum(TABLE2[case]) / sum(SIZES)


def explain_ipc(ms: List[dict], allp: Dict[str, float], cycle_ns: float, variant: str, kb: int,
                paper: float, table3: Dict[str, Dict[int, float]], pseudo_fault: float) -> dict:
    """Why the model's Table 3 cell differs from the paper, from the model's
    own mechanism breakdown. The gap is split into (a) the fixed ipcSend path,
    measured by the paper's null ipcSend; (b) the pseudo faults the cell takes,
    measured by the paper's ~400 us fault; (c) what is left, which no step of
    the seed's lists accounts for, with a what-if on the copy rate. The two
    paper figures are only used here, to explain; they never reach the fit."""
    m = _find(ms, "ipc", variant, kb * KB)
    parts = breakdown(m, allp, cycle_ns)
    model = sum(parts.values())
    gap = paper - model
    null_paper = table3.get("ipc-copy", {}).get(0)
    null_model = micros(_find(ms, "ipc", variant, 0)["counters"], allp, cycle_ns)
    a = (null_paper - null_model) if null_paper is not None and kb > 0 else (gap if kb == 0 else 0.0)
    recv = _find(ms, "ipc-receive", variant, kb * KB)
    faults = recv["components"].get(FAULT_ENTRY, {}).get("traps", 0)
    per_fault = micros(recv["counters"], allp, cycle_ns) / faults if faults else 0.0
    b = faults * (pseudo_fault - per_fault)
    rest = gap - a - b
    pages = max(1, -(-kb * KB // PAGE))
    copy = m["components"].get(COPY_LOOP)
    copied_kb = copy["references"] // 2 * WORD / KB if copy else 0.0
    lines = [f"model {model:.1f} us = {_fmt_parts(parts)}; paper {paper:.0f}; gap {gap:+.1f} us = "
             f"ipcSend path {a:+.1f} [A] + pseudo faults {b:+.1f} [B] + unattributed {rest:+.1f} [C]"]
    if faults:
        lines.append(f"{faults} fault(s) at {per_fault:.1f} us each in the model vs ~{pseudo_fault:.0f} in the paper")
    if kb > 0:
        lines.append(f"[C] is {rest / pages:+.1f} us per {PAGE // KB} KB page")
    cells = table3.get(variant, {})
    sizes = sorted(k for k in cells if k * KB >= PAGE)
    if len(sizes) >= 2 and kb in sizes:
        lo, hi = sizes[-2], sizes[-1]
        dp = (hi - lo) * KB / PAGE
        m_lo = micros(_find(ms, "ipc", variant, lo * KB)["counters"], allp, cycle_ns)
        m_hi = micros(_find(ms, "ipc", variant, hi * KB)["counters"], allp, cycle_ns)
        lines.append(f"per extra page ({lo}->{hi} KB): paper {(cells[hi] - cells[lo]) / dp:.0f} us, "
                     f"model {(m_hi - m_lo) / dp:.0f} us")
    if copied_kb:
        model_rate = parts[COPY_LOOP] / copied_kb
        worst = _table2_rate("worst")
        w = copied_kb * (worst - model_rate)
        lines.append(f"copies {copied_kb:g} KB at {model_rate:.1f} us/KB in the model [D]; at Table 2's worst-case "
                     f"rate ({worst:.1f} us/KB) they would cost {w:+.1f} more, leaving {rest - w:+.1f} of [C]")
    adjusted = model + a + b
    return dict(figure=f"Table 3 {variant} {'null' if kb == 0 else f'{kb} KB'}", model=model, paper=paper, gap=gap,
                ipc_path=a, pseudo_faults=b, unattributed=rest, components=parts,
                with_paper_paths=adjusted, with_paper_paths_error_pct=(adjusted - paper) / paper * 100,
                text="; ".join(lines))


SLOPE_SUFFIX = "per extra 2 KB page"
#: The paper figure each fitted path is calibrated on, for the outputs.
PATH_FIGURE_NAMES = {"ipc_null": "the null ipcSend (Table 3, 337 us)",
                     "pseudo_fault_handler": "the pseudo page fault (section 4.2, ~400 us)"}


def table3_rows(res: dict) -> List[dict]:
    """Table 3 as a fixed null plus a per-page slope for each variant, paper
    beside vmlab, each figure marked fitted or predicted."""
    out = []
    for sl in res["slopes"]:
        out.append(dict(variant=sl["variant"], figure="null ipcSend (us)", paper=sl["null_paper"],
                        vmlab=sl["null_vmlab"], error_pct=(sl["null_vmlab"] - sl["null_paper"]) / sl["null_paper"] * 100,
                        kind="fitted"))
        out.append(dict(variant=sl["variant"], figure=f"us {SLOPE_SUFFIX} ({sl['sizes']})", paper=sl["paper"],
                        vmlab=sl["vmlab"], error_pct=sl["error_pct"], kind="predicted"))
    return out


def table3_slopes(ms: List[dict], allp: Dict[str, float], cycle_ns: float,
                  table3: Dict[str, Dict[int, float]]) -> List[dict]:
    """Table 3 read as a fixed null plus a cost per extra page, per variant:
    the paper's slope between its two largest sizes (8 and 16 KB) beside the
    model's between the same sizes, with the model's slope split by
    mechanism. The model's slope is a prediction: nothing in it is fitted to
    a per-page figure (the fitted fault path enters once per page, as the
    seed's steps say it does)."""
    out = []
    for variant, cells in table3.items():
        sizes = sorted(k for k in cells if k * KB >= PAGE)
        if len(sizes) < 2:
            continue
        lo, hi = sizes[-2], sizes[-1]
        dp = (hi - lo) * KB / PAGE
        m_lo, m_hi = (_find(ms, "ipc", variant, k * KB) for k in (lo, hi))
        b_lo, b_hi = breakdown(m_lo, allp, cycle_ns), breakdown(m_hi, allp, cycle_ns)
        per_page = {k: (b_hi.get(k, 0.0) - b_lo.get(k, 0.0)) / dp for k in set(b_lo) | set(b_hi)}
        model = (micros(m_hi["counters"], allp, cycle_ns) - micros(m_lo["counters"], allp, cycle_ns)) / dp
        paper = (cells[hi] - cells[lo]) / dp
        fig = f"Table 3 {variant} {SLOPE_SUFFIX}"
        err = (model - paper) / paper * 100
        text = (f"model {model:.1f} us per extra page ({lo}->{hi} KB) = {_fmt_parts(per_page)}; paper {paper:.1f}; "
                f"gap {paper - model:+.1f} us per page. {SLOPE_MECHANISM[variant]}")
        copied = [m["components"].get(COPY_LOOP, {}).get("references", 0) // 2 * WORD / KB for m in (m_lo, m_hi)]
        copied_kb = (copied[1] - copied[0]) / dp
        if copied_kb:
            worst = copied_kb * _table2_rate("worst") - per_page[COPY_LOOP]
            text += (f" What-if: the {copied_kb:g} KB copied per page at Table 2's worst-case rate "
                     f"({_table2_rate('worst'):.1f} us/KB) would add {worst:+.1f} us per page, leaving "
                     f"{paper - model - worst:+.1f}.")
        out.append(dict(figure=fig, variant=variant, sizes=f"{lo}->{hi} KB", paper=paper, vmlab=model, error_pct=err,
                        null_paper=float(cells[0]) if 0 in cells else float(table3["ipc-copy"][0]),
                        null_vmlab=micros(_find(ms, "ipc", variant, 0)["counters"], allp, cycle_ns),
                        per_page=per_page,
                        explanation=dict(figure=fig, model=model, paper=paper, gap=paper - model,
                                         components=per_page, text=text)))
    return out


#: Per variant, what the seed's own steps (section 4.2 steps 1-8, footnotes
#: 10-11) say about the per-page cost the model lacks. Filled in from the
#: model's breakdown; the numbers in the text are computed, this is the why.
_DIRTY2, _CLEAN2 = TABLE1["dirty"][1], TABLE1["clean"][1]
_BEST2, _WORST2 = TABLE2["best"][1], TABLE2["worst"][1]
SLOPE_MECHANISM = {
    "ipc-copy": (
        "The seed's steps per page (2-8): allocate, map in the kernel, copy the sender's page into the fresh IPC "
        f"page, flush the receiver's old page (clean, Table 1 {_CLEAN2} us) and the dirty IPC page (Table 1 "
        f"{_DIRTY2} us), lazy map, one pseudo fault (fitted, ~400 us); the model runs every one of them. The "
        "mechanism the model lacks is the cost of step 4's copy: the seed says the fresh destination will not be in "
        "the cache, and the simulated copy into it (the copy loop above) lies between Table 2's best case "
        f"({_BEST2} us per 2 KB) and its worst ({_WORST2} us); the seed does not say which case step 4 runs at. "
        "The what-if below sizes the copy at the worst-case rate; nothing is tuned to it."),
    "ipc-move": (
        "The seed's steps per page (2-5): flush the sender's page (written just before sending: dirty, Table 1 "
        f"{_DIRTY2} us), unmap, destroy and flush the receiver's old page (clean, Table 1 {_CLEAN2} us), lazy map, "
        "one pseudo fault (fitted, ~400 us), and the model's slope is about their sum. No step the seed lists "
        "accounts for the rest: the one further per-page cost it names, the sender's fault on its moved page "
        "(a new physical page replacing the one sent), is among the 'hidden costs that did not show up in table 3'."),
    "pure-copy": (
        "The seed's steps per page (2-5) are two copies through a recycled, cache-resident kernel buffer, which its "
        f"text calls two best-case copies (Table 2: 2 x {_BEST2} us), and which is what the simulated cache does. "
        f"The paper's slope is close to two worst-case copies (2 x {_WORST2} us) instead, so its figures and its "
        "text disagree. No step the seed lists accounts for the gap: the one per-copy step it adds, the recovery "
        "mechanism set up for each user-kernel copy (footnote 10), is modelled, and the seed gives no length for it "
        "that could reach the gap."),
}


#: What the bracketed parts of an IPC explanation mean (printed once).
IPC_NOTES = [
    "[A] the fixed ipcSend/ipcReceive software path: the model's null ipcSend against the paper's (Table 3's null "
    "cell, the same path for every variant). path.ipc_null is fitted on that cell, so [A] is zero.",
    "[B] the pseudo faults of lazy mapping: the model's fault (trap + handler path + PTE insert + TLB refill, "
    "measured on the receiver's read) against the paper's ~400 us. path.pseudo_fault_handler is fitted on the "
    "IPC-move receiver's fault, so [B] is zero there and near zero for IPC-copy's faults.",
    "[C] what is left, per page (see the per-page slopes): the flushes, copies and PTE updates in the model are "
    "calibrated on Tables 1-2 (within 10 %); each slope's explanation names the step the model lacks, or says "
    "that no step the seed lists accounts for it.",
    "[D] the model's copies run in the cache state the simulation reaches, which is the seed's description (pure-copy: "
    "two best-case copies; IPC-copy: warm source, fresh destination). Table 3's per-page slope for pure-copy "
    "is close to two worst-case copies of Table 2 instead, so the seed's figures and its text disagree here; the "
    "model follows the mechanism and the what-if only sizes the disagreement.",
]


def explain_fault(ms: List[dict], allp: Dict[str, float], cycle_ns: float, pseudo_fault: float) -> dict:
    recv = _find(ms, "ipc-receive", "ipc-move", 2 * KB)
    parts = breakdown(recv, allp, cycle_ns)
    model = sum(parts.values())
    cycles_paper = pseudo_fault * 1000 / cycle_ns
    instr = recv["counters"]["instructions"]
    other = model * 1000 / cycle_ns - allp["cpi"] * instr
    implied = (cycles_paper - other) / allp["cpi"]
    text = (f"model {model:.1f} us = {_fmt_parts(parts)}; paper ~{pseudo_fault:.0f} us = {cycles_paper:.0f} cycles, "
            f"which at the fitted cpi {allp['cpi']:.2f} would be ~{implied:.0f} instructions of fault path against the "
            f"model's {instr}; the fault entry (trap {allp['trap']:.0f} cycles, path.pseudo_fault_handler) is an "
            "assumption: the seed lists the fault's steps (validate the access, load the mapping; no flush since the "
            "page was unloaded) but not its length, and Tables 1-2 contain no fault to calibrate it on")
    return dict(figure="pseudo page fault (IPC-move, 2 KB receive)", model=model, paper=pseudo_fault,
                gap=pseudo_fault - model, components=parts, text=text)


def explain_unmap(ms: List[dict], allp: Dict[str, float], cycle_ns: float) -> dict:
    m = _find(ms, "unmap", "no-flush", 2 * KB)
    parts = breakdown(m, allp, cycle_ns)
    model = sum(parts.values())
    c = m["counters"]
    low_cycles = UNMAP[0] * 1000 / cycle_ns
    other = model * 1000 / cycle_ns - allp["cpi"] * c["instructions"]
    cpi_needed = (low_cycles - other) / c["instructions"]
    instr_needed = (low_cycles - other) / allp["cpi"]
    text = (f"model {model:.1f} us = {_fmt_parts(parts)}: {c['instructions']} instructions and {c['pte_refs']} PTE "
            f"read(s) ({c['misses']} missing the cache). The only fitted parameter multiplying them is cpi "
            f"({allp['cpi']:.3f}), which Table 2's best case (a pure copy loop, all hits) pins; reaching "
            f"{UNMAP[0]:.0f} us needs cpi {cpi_needed:.2f} (Table 2 best then {(cpi_needed / allp['cpi'] - 1) * 100:+.0f} %) "
            f"or ~{instr_needed:.0f} instructions of unmap path. So the fit is not constrained badly: the unmap's "
            "path lengths (path.pte_delete, path.vm_unmap_page) are assumptions about half of Chorus' real path. "
            "The seed lists one step, removing the PTE by walking its hash chain (footnote 3), which is modelled; "
            "the region-level work of an unmap (finding and splitting the region) is not charged, because the seed "
            "does not say whether its measurement includes it. No parameter is added to absorb this one target.")
    return dict(figure="unmap 2 KB (15-20 us)", model=model, paper=sum(UNMAP) / 2, gap=sum(UNMAP) / 2 - model,
                components=parts, text=text)


def compute(ms: List[dict], model: dict, table3: Dict[str, Dict[int, float]] = TABLE3,
            pseudo_fault: float = PSEUDO_FAULT) -> dict:
    """The whole study from the engine's measurements: fit, predictions,
    comparisons and must-hold findings. Of Table 3 only the null ipcSend
    reaches the calibration (with the pseudo fault, each fixing one software
    path); its per-size cells enter only the comparison."""
    cycle_ns = model["cycle_ns"]["value"]
    fixed = {"trap": model["cost"]["trap"]["value"]}
    params = fit(ms, calibration_targets(), cycle_ns, fixed)
    allp = dict(params, trap=fixed["trap"], uncached=params["miss"])
    preset_paths = {k: model["path"][k]["value"] for k in (*PATH_FIGURES, "fault_handler")}
    paths = fit_paths(ms, path_targets(table3, pseudo_fault), cycle_ns, allp, preset_paths)
    ms = with_paths(ms, preset_paths, paths)

    def us(m: dict) -> float:
        return micros(m["counters"], allp, cycle_ns)

    rows = []
    for group, variant, nbytes, paper in calibration_targets():
        v = us(_find(ms, group, variant, nbytes))
        if group == "unmap":
            err = 0.0 if UNMAP[0] <= v <= UNMAP[1] else min(abs(v - UNMAP[0]), abs(v - UNMAP[1])) / UNMAP[0] * 100
            rows.append(dict(figure=f"unmap 2 KB (15-20 us)", paper=paper, vmlab=v, error_pct=err, kind="fitted"))
        else:
            rows.append(dict(figure=f"{'Table 1' if group == 'table1' else 'Table 2'} {variant} {nbytes // KB} KB",
                             paper=paper, vmlab=v, error_pct=(v - paper) / paper * 100, kind="fitted"))
    for variant, cells in table3.items():
        for kb, paper in cells.items():
            v = us(_find(ms, "ipc", variant, kb * KB))
            rows.append(dict(figure=f"Table 3 {variant} {'null' if kb == 0 else f'{kb} KB'}", paper=float(paper),
                             vmlab=v, error_pct=(v - paper) / paper * 100, kind="fitted" if kb == 0 else "predicted"))
    pf = us(_find(ms, *PATH_FIGURES["pseudo_fault_handler"]))
    rows.append(dict(figure="pseudo page fault (IPC-move, 2 KB receive)", paper=pseudo_fault, vmlab=pf,
                     error_pct=(pf - pseudo_fault) / pseudo_fault * 100, kind="fitted"))
    slopes = table3_slopes(ms, allp, cycle_ns, table3)
    for sl in slopes:
        rows.append(dict(figure=sl["figure"], paper=sl["paper"], vmlab=sl["vmlab"], error_pct=sl["error_pct"],
                         kind="predicted"))

    # Every figure outside the tolerance gets an explanation computed from
    # the model's mechanism breakdown (must-show 3).
    explanations = []
    for r in rows:
        outside = abs(r["error_pct"]) > TOLERANCE_PCT
        r["explained"] = ""
        if not outside:
            continue
        f = r["figure"]
        if f.startswith("Table 3 ") and not f.endswith(SLOPE_SUFFIX):
            variant, size = f[len("Table 3 "):].split(" ", 1)
            kb = 0 if size == "null" else int(size.split()[0])
            ex = explain_ipc(ms, allp, cycle_ns, variant, kb, r["paper"], table3, pseudo_fault)
        elif f.endswith(SLOPE_SUFFIX):
            ex = next(sl for sl in slopes if sl["figure"] == f)["explanation"]
        elif f.startswith("pseudo page fault"):
            ex = explain_fault(ms, allp, cycle_ns, pseudo_fault)
        elif f.startswith("unmap"):
            ex = explain_unmap(ms, allp, cycle_ns)
        else:
            ex = dict(figure=f, model=r["vmlab"], paper=r["paper"], gap=r["paper"] - r["vmlab"], components={},
                      text="a calibration figure outside the tolerance: the fit itself is off (see the residuals)")
        r["explained"] = "yes"
        explanations.append(ex)

    curves = {}
    for cache in ("vac", "pac"):
        for variant in ("ipc-copy", "ipc-move", "pure-copy", "ipc-move-eager", "mach-cow"):
            curves[(cache, variant)] = {kb: us(_find(ms, "ipc", variant, kb * KB, cache)) for kb in (0, 1, 2, 4, 8, 16)}

    def c(cache, v, kb):
        return curves[(cache, v)][kb]

    mid = [2, 4, 8, 16]

    def pac_faults(kb: int) -> float:
        m = _find(ms, "ipc", "ipc-move", kb * KB, "pac")
        return micros(m["components"].get(FAULT_ENTRY, dict.fromkeys(m["counters"], 0)), allp, cycle_ns)

    def sizes(cache: str, variants: Tuple[str, ...], kbs: List[int]) -> str:
        return " / ".join(variants) + ": " + "; ".join(
            f"{k} KB " + " / ".join(f"{c(cache, v, k):,.0f}" for v in variants) for k in kbs) + " us"

    def paper_sizes(variants: Tuple[str, ...], kbs: List[int]) -> str:
        return "Table 3, " + " / ".join(variants) + ": " + "; ".join(
            f"{k} KB " + " / ".join(f"{table3[v][k]:,.0f}" for v in variants) for k in kbs) + " us"

    flush = {state: [us(_find(ms, "table1", state, k * KB)) for k in SIZES] for state in ("clean", "dirty")}
    best2, dirty2 = us(_find(ms, "table2", "best", 2 * KB)), us(_find(ms, "table1", "dirty", 2 * KB))
    order = ("pure-copy", "ipc-move", "ipc-copy")
    findings = [
        Verdict("VAC: pure-copy < IPC-move < IPC-copy for 2-16 KB",
                all(c("vac", "pure-copy", k) < c("vac", "ipc-move", k) < c("vac", "ipc-copy", k) for k in mid),
                sizes("vac", order, mid),
                paper_sizes(order, mid) if all(k in table3.get(v, {}) for v in order for k in mid) else ""),
        Verdict("VAC: eager IPC-move < pure-copy for 2-16 KB",
                all(c("vac", "ipc-move-eager", k) < c("vac", "pure-copy", k) for k in mid),
                sizes("vac", ("ipc-move-eager", "pure-copy"), mid),
                f"no measurement; section 4.2: without its ~{pseudo_fault:.0f} us pseudo fault, an eagerly mapping "
                "IPC-move 'would outperform the pure-copy IPC'"),
        Verdict("PAC: IPC-move < pure-copy beyond a few KB (4-16 KB)",
                all(c("pac", "ipc-move", k) < c("pac", "pure-copy", k) for k in (4, 8, 16)),
                sizes("pac", ("ipc-move", "pure-copy"), [4, 8, 16]) + "; of which IPC-move's lazy-mapping pseudo "
                "faults (fitted on the paper's ~400 us each): " + "; ".join(
                    f"{k} KB {pac_faults(k):,.0f}" for k in (4, 8, 16)) + " us; eager IPC-move (no fault): "
                + "; ".join(f"{k} KB {c('pac', 'ipc-move-eager', k):,.0f}" for k in (4, 8, 16)) + " us",
                "no measurement: the paper's machine has a virtually addressed cache"),
        Verdict("dirty flush costs about 2x clean or more (ratio >= 1.8 at 1-8 KB)",
                all(d >= 1.8 * cl for d, cl in zip(flush["dirty"], flush["clean"])),
                "dirty / clean: " + ", ".join(f"{k} KB {d / cl:.2f}x" for k, d, cl in
                                              zip(SIZES, flush["dirty"], flush["clean"])),
                "Table 1, dirty / clean: " + ", ".join(f"{k} KB {d / cl:.2f}x" for k, d, cl in
                                                       zip(SIZES, TABLE1["dirty"], TABLE1["clean"]))),
        Verdict("best-case copy of a 2 KB page < dirty flush of it", best2 < dirty2,
                f"copy {best2:,.0f} us, dirty flush {dirty2:,.0f} us",
                f"Tables 1-2: copy {TABLE2['best'][1]} us, dirty flush {TABLE1['dirty'][1]} us"),
    ]
    pm = {m["variant"]: m for m in ms if m["group"] == "pmap"}
    pmap_rows = [dict(case=k, machine=m["cache"], us=us(m), cycles=us(m) * 1000 / cycle_ns,
                      warm_lines=m["warm_lines"], page_lines=m["page_lines"],
                      left=("warm" if m["warm_lines"] == m["page_lines"] else "cold" if m["warm_lines"] == 0 else "partly warm"))
                 for k, m in sorted(pm.items())]
    findings.append(Verdict(
        "pmap: case 2 costs more than cases 1 and 3 and leaves the new page cold",
        pmap_rows[1]["us"] > max(pmap_rows[0]["us"], pmap_rows[2]["us"]) and pmap_rows[1]["left"] == "cold",
        "; ".join(f"{p['case']} {p['us']:,.0f} us, new page {p['left']} ({p['warm_lines']}/{p['page_lines']} lines)"
                  for p in pmap_rows),
        "section 4.3, no figures: case 2 'is much more expensive' and leaves the new page cold; cases 1 and 3 "
        "cost about the same"))
    return dict(params=params, paths=paths, preset_paths=preset_paths, slopes=slopes,
                all_params=allp, cycle_ns=cycle_ns, rows=rows, curves=curves,
                findings=findings, pmap=pmap_rows, explanations=explanations)


def _write_csv(path: str, rows: List[dict]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def write_outputs(res: dict, model: dict, results_dir: str, report_dir: str) -> List[str]:
    os.makedirs(results_dir, exist_ok=True)
    os.makedirs(report_dir, exist_ok=True)
    written = []
    p = os.path.join(results_dir, "params.csv")
    _write_csv(p, [dict(parameter=k, cycles=v, fitted=k in res["params"],
                        source="fit on Tables 1-2 + unmap" if k in res["params"]
                        else ("tied to miss" if k == "uncached" else model["cost"][k]["source"]))
                   for k, v in res["all_params"].items()]
               + [dict(parameter=f"path.{k}", cycles=v, fitted=True,
                       source=f"instructions, fit on {PATH_FIGURE_NAMES[k]} (preset {res['preset_paths'][k]:g})")
                  for k, v in res["paths"].items()])
    written.append(p)
    p = os.path.join(results_dir, "table3_slopes.csv")
    _write_csv(p, table3_rows(res))
    written.append(p)
    p = os.path.join(results_dir, "comparison.csv")
    _write_csv(p, res["rows"])
    written.append(p)
    p = os.path.join(results_dir, "ipc_curves.csv")
    _write_csv(p, [dict(cache=c, variant=v, kb=kb, us=u) for (c, v), d in res["curves"].items() for kb, u in d.items()])
    written.append(p)
    p = os.path.join(results_dir, "findings.csv")
    _write_csv(p, [dict(finding=v.claim, verdict="HOLDS" if v.holds else "FAILS", measured=v.measured, paper=v.paper)
                   for v in res["findings"]])
    written.append(p)
    p = os.path.join(results_dir, "pmap.csv")
    _write_csv(p, res["pmap"])
    written.append(p)
    p = os.path.join(results_dir, "explanations.csv")
    _write_csv(p, [dict(figure=x["figure"], paper=x["paper"], vmlab=x["model"], gap=x["gap"],
                        ipc_path=x.get("ipc_path", ""), pseudo_faults=x.get("pseudo_faults", ""),
                        unattributed=x.get("unattributed", ""), with_paper_paths=x.get("with_paper_paths", ""),
                        explanation=x["text"]) for x in res["explanations"]] or [dict(figure="", explanation="")])
    written.append(p)
    p = os.path.join(results_dir, "components.csv")
    _write_csv(p, [dict(figure=x["figure"], component=k, us=v) for x in res["explanations"]
                   for k, v in sorted(x["components"].items())] or [dict(figure="", component="", us=0.0)])
    written.append(p)
    policy_findings = res.get("policy_findings", [])
    if "policies" in res:
        p = os.path.join(results_dir, "policies.csv")
        keys = list(dict.fromkeys(k for r in res["policies"] for k in r))
        _write_csv(p, [{k: r.get(k, "") for k in keys} for r in res["policies"]])
        written.append(p)
        p = os.path.join(results_dir, "policies_findings.csv")
        _write_csv(p, [dict(finding=v.claim, verdict="HOLDS" if v.holds else "FAILS", measured=v.measured,
                            paper=v.paper) for v in policy_findings])
        written.append(p)

    from vmlab.report import Report, verdicts_summary, verdict_table, write_study

    rep = Report(TITLE, "Cost parameters are fitted on Table 1, Table 2 and the 15-20 us unmap; the two fixed Chorus "
                 "software paths (the null ipcSend and the pseudo fault) are fitted on the paper's 337 us null "
                 "ipcSend and ~400 us pseudo fault; every other figure, and everything that grows with the message, "
                 "is a prediction from the simulated mechanism. Other kernel path lengths the seed does not give are "
                 "assumptions listed in presets/os/hp9000-834.toml. Tables of this page are in "
                 f"{results_dir} as CSV.")
    rep.section("Verdicts", f"The must-hold findings of experiments.md S2: {verdicts_summary(res['findings'])}."
                ).html(verdict_table(res["findings"]))
    figs = figures(res)
    sec = rep.section("Paper and vmlab, side by side")
    if not figs:
        sec.text("No figures: matplotlib is not installed (pip install 'vmlab[report]').")
    for name, fig, caption in figs:
        sec.figure(fig, caption, name)
    rep.section("Fitted cost parameters", "Cycles per event; 'trap' is not identifiable from the calibration "
                "set and stays at the preset's value; uncached references cost what a miss costs."
                ).table([dict(parameter=k, cycles=v, fitted=k in res["params"]) for k, v in res["all_params"].items()],
                        floatfmt="{:.3f}")
    rep.section("Table 3 per page: fitted null plus predicted slope",
                "Table 3 read as the null ipcSend (fitted) plus a cost per extra 2 KB page for each variant "
                "(predicted), between the paper's two largest sizes; error is (vmlab - paper) / paper. Slopes more "
                f"than {TOLERANCE_PCT:.0f} % off are explained below, with the step of the seed the model lacks."
                ).table(table3_rows(res), floatfmt="{:.1f}")
    rep.section("Fitted software paths", "Instructions; each is fitted on one single-operation figure of the paper "
                "and on nothing else (the preset holds the committed result)."
                ).table([dict(path=f"path.{k}", instructions=v, preset=res["preset_paths"][k],
                              fitted_on=PATH_FIGURE_NAMES[k]) for k, v in res["paths"].items()], floatfmt="{:.1f}")
    rep.section("Every figure of the paper", "us; 'fitted' rows are the calibration set, 'predicted' rows never "
                "reach the fit; error is (vmlab - paper) / paper."
                ).table(res["rows"], floatfmt="{:.1f}")
    sec = rep.section(f"Figures more than {TOLERANCE_PCT:.0f} % from the paper, explained from the model's "
                      "mechanism breakdown",
                      "Each Table 3 gap is split into the fixed ipcSend path (against the paper's null ipcSend), "
                      "the pseudo faults (against the paper's ~400 us fault), both fitted now and so zero or near "
                      "it, and what is left; each per-page slope is split by mechanism and names the step of the "
                      "seed the model lacks, or says that none of its steps accounts for the gap.")
    if res["explanations"]:
        sec.table([dict(figure=x["figure"], paper=float(x["paper"]), vmlab=x["model"],
                        with_paper_paths=x.get("with_paper_paths"), explanation=x["text"])
                   for x in res["explanations"]], floatfmt="{:.1f}", prose=("explanation",))
        sec.html("<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in IPC_NOTES) + "</ul>")
    else:
        sec.text("None.")
    rep.section("Mach pmap page initialisation (section 4.3)",
                "Copy-on-write fault served three ways; 'left' is the new page's cache state afterwards."
                ).table(res["pmap"], floatfmt="{:.1f}")
    if "policies" in res:
        _policies_section(rep, res, results_dir)
    written += write_study(report_dir, "s2", rep, res["findings"] + policy_findings)
    return written


def _policies_section(rep, res: dict, results_dir: str) -> None:
    """The consistency policies compared (issue 25 part 2; s2_policies)."""
    from vmlab.report import verdict_table

    from vmlab.studies import s2_real

    workloads = "".join(f"<li>{html.escape(name)}: {html.escape(what)}</li>"
                        for name, (what, *_) in s2_real.WORKLOADS.items())
    sec = rep.section(
        "Consistency policies on real multi-process workloads with sharing (section 5)",
        "Every policy of vmlab-os replayed, with the consistency oracle on, on real multi-process workloads captured "
        "under valgrind with every process traced and pinned (vmlab.studies.s2_real; the sha256 of each capture is "
        "in its sidecar): their system-call markers (mmap, munmap, mprotect, shmat, fork, execve, exit, and the "
        "opens, whose file identity makes one object of a file several processes open) make the mappings, every "
        "reference goes through the hat and the policy. Verdicts are on the real workloads together, each "
        "workload's figure beside, except the flushing claim, which is about a workload without heavy remapping: "
        "it is judged on the long one (workers), the others beside; one synthetic row (labelled so) is kept as the heavy-remapping contrast of the "
        "flushing claim. Cycles are the main study's fitted costs times the counters; every vmlab figure here is "
        "predicted; the paper's figures are from other machines and workloads (PA-RISC Mach, Sun-3) and are shown "
        "beside them, not fitted. 'refused' rows: the policy cannot place the mapping on that machine. Full table: "
        f"{results_dir}/policies.csv.")
    sec.html(f"<ul>{workloads}</ul>")
    sec.html(verdict_table(res["policy_findings"]))
    fig = s2_policies.figure(res["policies"])
    if fig is None:
        sec.text("No figure: matplotlib is not installed (pip install 'vmlab[report]').")
    else:
        sec.figure(fig, "Predicted cycles of the real workloads together by policy, split by mechanism, on each "
                   "machine "
                   "(the 834, the R4000, the 834 physically addressed, the 834 with a 16 KB D-cache and a 16-entry "
                   "TLB). `none` is wrong on purpose: its bar is the cost of no consistency, with the oracle's "
                   "violations in the table.", "policies.png")
    cols = ("workload", "machine", "policy", "status", "cycles", "flush_pct", "lines_empty", "lines_clean",
            "lines_dirty", "misses_added", "tlb_misses_added", "uncached", "pseudo_faults", "relocated", "violations",
            "first_stale_read")
    sec.table([{k: r.get(k, "") for k in cols} for r in res["policies"]], floatfmt="{:.1f}")
    sec.table([dict(claim=k, paper=v, kind="paper (other machines, other workloads)")
               for k, v in s2_policies.PAPER.items()])


def render_policies(res: dict) -> str:
    lines = ["  Consistency policies (real multi-process workloads, one synthetic contrast row; predicted cycles):",
             f"  {'workload':16} {'machine':17} {'policy':16} {'cycles':>12} {'flush %':>8} {'dirty':>6} "
             f"{'misses+':>8} {'tlb+':>6} {'viol':>6}"]
    for r in res["policies"]:
        head = f"  {r['workload'][:16]:16} {r['machine']:17} {r['policy']:16}"
        if r["status"] != "ran":
            lines.append(f"{head} {r['status']}")
            continue
        lines.append(f"{head} {r['cycles']:12,.0f} {r['flush_pct']:8.2f} {r.get('lines_dirty', ''):>6} "
                     f"{r.get('misses_added', ''):>8} {r.get('tlb_misses_added', ''):>6} {r['violations']:6}")
    for v in res["policy_findings"]:
        lines.append(f"  {'HOLDS' if v.holds else 'FAILS'}  {v.claim}")
        lines.append(f"         vmlab: {v.measured}")
        if v.paper:
            lines.append(f"         paper: {v.paper}")
    return "\n".join(lines)


TITLE = "Study S2: virtually addressed caches vs VM primitives and IPC (Inouye et al. 1992, seed 000)"


def figures(res: dict) -> list:
    """(file name, matplotlib Figure, caption) of each plot: the IPC curves on
    both machines with Table 3 beside them, and the calibration tables beside
    the fit. Empty when matplotlib is not installed."""
    Figure = optional.figure_class("the S2 figures")
    if Figure is None:
        return []
    from vmlab.report import log_axis, sizes_axis

    colour = {v: f"C{i}" for i, v in enumerate(("ipc-copy", "ipc-move", "pure-copy", "ipc-move-eager", "mach-cow"))}
    kbs = [1, 2, 4, 8, 16]
    out = []
    for cache, title in (("vac", "virtually addressed cache (the HP 9000/834)"),
                         ("pac", "physically addressed cache of the same speed")):
        fig = Figure(figsize=(8, 4.8))
        ax = fig.add_subplot()
        for (c, v), d in res["curves"].items():
            if c == cache:
                # eager IPC-move lies almost on pure-copy: dashed, so both show
                ax.plot(kbs, [d[k] for k in kbs], marker="o", color=colour[v], label=f"vmlab {v}",
                        linestyle="--" if v == "ipc-move-eager" else "-")
        if cache == "vac":
            for v, cells in TABLE3.items():
                ks = [k for k in kbs if k in cells]
                ax.plot(ks, [cells[k] for k in ks], linestyle=":", marker="x", ms=8, color=colour[v],
                        label=f"paper {v} (Table 3)")
        sizes_axis(ax, kbs, "message size (KB)")
        log_axis(ax)
        ax.set_ylabel("one-way ipcSend (us, log scale)")
        ax.set_title(f"IPC cost by message size, {title}")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize="small", loc="upper left", ncol=2 if cache == "vac" else 1)
        if cache == "vac":
            caption = ("One-way ipcSend cost against message size on the virtually addressed HP 9000/834: vmlab's "
                       "prediction for each IPC design (solid, circles) and the paper's Table 3 for the three designs "
                       "it measured (dotted, crosses, same colour). Of Table 3 only the null message (337 us, in the "
                       "table below) is fitted, together with the ~400 us pseudo fault; the growth with size is "
                       "predicted.")
        else:
            caption = ("The same IPC designs predicted on a machine with a physically addressed cache of the same "
                       "speed, where remapping (IPC-move) should beat copying for large messages. The paper "
                       "measured no such machine, so there are no paper values to draw.")
        out.append((f"ipc_{cache}.png", fig, caption))

    fig = Figure(figsize=(10, 4.2))
    fitted = {r["figure"]: r["vmlab"] for r in res["rows"] if r["kind"] == "fitted"}
    for i, (label, table) in enumerate((("Table 1", TABLE1), ("Table 2", TABLE2))):
        ax = fig.add_subplot(1, 2, i + 1)
        for j, (case, paper) in enumerate(table.items()):
            ax.plot(SIZES, [fitted[f"{label} {case} {k} KB"] for k in SIZES], marker="o", color=f"C{j}",
                    label=f"vmlab {case}")
            ax.plot(SIZES, paper, linestyle=":", marker="x", ms=8, color=f"C{j}", label=f"paper {case}")
        sizes_axis(ax, SIZES, "block size (KB)")
        ax.set_ylabel("us")
        ax.set_title(f"{label}: {'flush by cache state' if i == 0 else 'copy, best and worst case'}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    caption = ("The calibration set: the paper's Table 1 (flush of a block, by the state of its cache lines) and "
               "Table 2 (copy, best and worst case), dotted with crosses, beside vmlab with the fitted costs (solid, "
               "circles, same colour). Empty and clean flushes cost the same in the paper and in vmlab, so their "
               "lines lie on each other.")
    out.append(("calibration.png", fig, caption))
    return out


def render(res: dict) -> str:
    lines = ["S2 - fitted parameters (cycles per event; fit on Tables 1-2 + unmap only):"]
    lines += [f"  {k:11} {v:9.3f}" for k, v in res["params"].items()]
    lines.append(f"  {'trap':11} {res['all_params']['trap']:9.3f}  (not identifiable from the calibration set; preset assumption)")
    lines.append("  fitted software paths (instructions; each on one single-operation figure only):")
    lines += [f"  path.{k:21} {v:9.1f}  on {PATH_FIGURE_NAMES[k]}; preset {res['preset_paths'][k]:g}"
              for k, v in res["paths"].items()]
    lines.append("")
    lines.append("  Table 3 per page: fitted null plus predicted slope (us)")
    lines.append(f"  {'variant':10} {'figure':40} {'paper':>8} {'vmlab':>8} {'err %':>7}  kind")
    for r in table3_rows(res):
        lines.append(f"  {r['variant']:10} {r['figure']:40} {r['paper']:8.1f} {r['vmlab']:8.1f} {r['error_pct']:7.1f}  "
                     f"{r['kind']}")
    lines.append("")
    lines.append(f"  {'figure':52} {'paper':>8} {'vmlab':>8} {'err %':>7}  kind")
    for r in res["rows"]:
        mark = "  (explained below)" if r.get("explained") else ""
        lines.append(f"  {r['figure']:52} {r['paper']:8.0f} {r['vmlab']:8.1f} {r['error_pct']:7.1f}  {r['kind']}{mark}")
    lines.append("")
    lines.append("  IPC one-way cost (us) by size, both machines:")
    for (c, v), d in res["curves"].items():
        lines.append(f"  {c} {v:15} " + " ".join(f"{d[k]:8.1f}" for k in sorted(d)))
    lines.append("")
    lines.append("  Mach pmap page initialisation:")
    for p in res["pmap"]:
        lines.append(f"  {p['case']}: {p['machine']} {p['us']:7.1f} us {p['cycles']:8.0f} cycles; new page left "
                     f"{p['left']} ({p['warm_lines']}/{p['page_lines']} lines)")
    lines.append("")
    for v in res["findings"]:
        lines.append(f"  {'HOLDS' if v.holds else 'FAILS'}  {v.claim}")
        lines.append(f"         vmlab: {v.measured}")
        if v.paper:
            lines.append(f"         paper: {v.paper}")
    lines.append("")
    lines.append(f"  Figures more than {TOLERANCE_PCT:.0f} % from the paper, explained from the model's breakdown:")
    for x in res["explanations"]:
        extra = ""
        if "with_paper_paths" in x and abs(x["with_paper_paths"] - x["model"]) > 0.05:
            extra = (f"  [with the paper's null ipcSend and pseudo fault in place of our assumed paths: "
                     f"{x['with_paper_paths']:.0f} us, {x['with_paper_paths_error_pct']:+.1f} %]")
        lines.append(f"  * {x['figure']}: {x['text']}{extra}")
    if any("ipc_path" in x for x in res["explanations"]):
        lines += [f"    {n}" for n in IPC_NOTES]
    return "\n".join(lines)


@click.command()
@click.option("--cost", default="hp9000-834", show_default=True, help="OS cost preset (name or .toml).")
@click.option("--results", "results_dir", default="results/s2", show_default=True)
@click.option("--report", "report_dir", default="report/s2", show_default=True)
def command(cost: str, results_dir: str, report_dir: str) -> None:
    """Study S2: fit the HP 9000/834 costs on Tables 1-2 + unmap and the two fixed paths on the null ipcSend and
    pseudo fault, predict Table 3's per-page costs, pmap cases."""
    # Before the policy part captures its workloads (minutes on first use):
    # a results folder that cannot be made fails now, not after them.
    os.makedirs(results_dir, exist_ok=True)
    model = cost_model(cost)
    res = compute(measurements(cost), model)
    click.echo(render(res))
    from vmlab.workloads import WorkloadError

    try:
        res["policies"] = s2_policies.rows(res["all_params"])
    except WorkloadError as e:  # no valgrind or no C compiler: the real workloads cannot be captured
        click.echo(f"  Consistency policies: not compared: {e}")
    else:
        res["policy_findings"] = s2_policies.verdicts(res["policies"])
        click.echo(render_policies(res))
    for p in write_outputs(res, model, results_dir, report_dir):
        click.echo(f"wrote {p}")
