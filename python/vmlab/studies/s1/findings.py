"""The five must-hold findings of experiments.md S1, judged from the rows."""

from __future__ import annotations

import math
import statistics

from .grid import SWEPT_SCHEMES, Grid, _size
from .paper import FINDING1_MIN_L2_KB, PAPER_TABLE5
from .rows import _gmean, _ratios, _sel, _twin

def findings(rows: list[dict], grid: Grid) -> list[tuple[str, bool, str]]:
    """The five must-hold findings of experiments.md S1, each with a verdict
    and the numbers it rests on. Thresholds: "a small factor" is <= 4x;
    "about an order of magnitude" is 3x-30x; "close" is within 30 %;
    "about 2x" is >= 1.5x."""
    out: list[tuple[str, bool, str]] = []
    sweep_rows = _sel(rows, role="sweep")
    big = [r for r in sweep_rows if r["l2_kb"] >= FINDING1_MIN_L2_KB and r["l2_line"] >= 64]
    ratios = []
    for r in _sel(big, scheme="softvm"):
        for other in ("ultrix", "mach"):
            twin = _twin(_sel(big, scheme=other), r)
            if twin and twin["vmcpi"] > 0:
                ratios.append(r["vmcpi"] / twin["vmcpi"])

    def spread(scheme: str) -> float:
        # max/min VMCPI over L2 size and L2 line at each L1 point: sensitivity.
        groups: dict[tuple, list[float]] = {}
        for r in _sel(sweep_rows, scheme=scheme):
            groups.setdefault((r["trace"], r["l1_kb"], r["l1_line"]), []).append(r["vmcpi"])
        vals = [max(v) / min(v) for v in groups.values() if len(v) > 1 and min(v) > 0]
        return _gmean(vals)

    g = _gmean(ratios)
    s_soft, s_ul = spread("softvm"), spread("ultrix")
    ok = bool(ratios) and g <= 4.0 and s_soft > s_ul
    out.append(("1. SOFTVM within a small factor of ULTRIX/MACH once L2 >= 1-2 MB and L2 line >= 64 B, "
                "and more sensitive to L2 size and line size", ok,
                f"SOFTVM/ULTRIX-MACH geometric mean {g:.2f}x over {len(ratios)} points with L2 >= "
                f"{_size(FINDING1_MIN_L2_KB)}, line >= 64 B; "
                f"max/min over L2 size and line: SOFTVM {s_soft:.2f}x, ULTRIX {s_ul:.2f}x"))
    l2s = sorted(grid.l2_kb)
    dbl = []
    for a, b in zip(l2s, l2s[1:]):
        if b == 2 * a:
            dbl += _ratios(rows, "softvm", "l2_kb", a, b)
    l1r = _ratios(rows, "softvm", "l1_kb", min(grid.l1_kb), max(grid.l1_kb)) if 1 in grid.l1_kb and 128 in grid.l1_kb else []
    gd, gl = _gmean(dbl), _gmean(l1r)
    ok2 = bool(dbl) and 2 <= gd <= 10 and (bool(l1r) and 2 <= gl <= 5)
    out.append(("2. Doubling L2 cuts SOFTVM overhead 2x-10x; growing L1 1 KB -> 128 KB cuts it 2x-5x", ok2,
                f"doubling L2: {gd:.2f}x (geometric mean of {len(dbl)}); L1 1->128 KB: "
                + (f"{gl:.2f}x (of {len(l1r)})" if l1r else "not in this grid")))
    t64 = {}
    for s in ("ultrix", "mach", "softvm"):
        rs = []
        for r in _sel(rows, scheme=s, role="tlb64"):
            base = _twin(_sel(sweep_rows, scheme=s), r)
            if base and base["vmcpi"] > 0:
                rs.append(r["vmcpi"] / base["vmcpi"])
        t64[s] = _gmean(rs)
    ok3 = all(3 <= t64[s] <= 30 for s in ("ultrix", "mach")) and abs(t64["softvm"] - 1) < 1e-9
    out.append(("3. 64-entry TLBs raise ULTRIX/MACH overhead ~10x and leave SOFTVM unchanged", ok3,
                f"64/128 entries: ULTRIX {t64['ultrix']:.2f}x, MACH {t64['mach']:.2f}x, SOFTVM {t64['softvm']:.3f}x"))
    dense = [t for t in grid.traces if t != "sparse"]
    md = _gmean([x for t in dense for x in _mach_ultrix(sweep_rows, t)])
    ms = _gmean(_mach_ultrix(sweep_rows, "sparse")) if "sparse" in grid.traces else float("nan")
    ok4 = md <= 1.3 and (ms >= 1.5 if not math.isnan(ms) else False)
    out.append(("4. MACH close to ULTRIX except on a large sparse address space, where it is ~2x", ok4,
                "MACH/ULTRIX: "
                + (f"dense traces {md:.2f}x" if not math.isnan(md) else "dense traces: none in this run") + ", "
                + (f"sparse {ms:.2f}x" if not math.isnan(ms) else "sparse: not in this run (the finding needs it)")))
    parts = []
    ok5 = True
    for s in SWEPT_SCHEMES:
        d_l1, d_l2 = _line_effect(sweep_rows, s, "l1_line"), _line_effect(sweep_rows, s, "l2_line")
        if math.isnan(d_l1) or math.isnan(d_l2):
            ok5 = False
            parts.append(f"{s}: not measurable in this grid")
            continue
        groups_by = "L1" if d_l2 < d_l1 else "L2"
        want = "L2" if s in ("softvm", "spur") else "L1"
        if s in ("ultrix", "mach", "softvm"):
            ok5 = ok5 and groups_by == want
        parts.append(f"{s}: L1-line effect {d_l1:.2f}, L2-line effect {d_l2:.2f} -> groups by {groups_by} line")
    out.append(("5. TLB-based curves group by L1 line size; SOFTVM curves by L2 line size", ok5, "; ".join(parts)))
    return out


def _mach_ultrix(rows: list[dict], trace: str) -> list[float]:
    out = []
    for r in _sel(rows, scheme="mach", trace=trace):
        u = _twin(_sel(rows, scheme="ultrix", trace=trace), r)
        if u and u["vmcpi"] > 0 and r["vmcpi"] > 0:
            out.append(r["vmcpi"] / u["vmcpi"])
    return out


def _line_effect(rows: list[dict], scheme: str, field: str) -> float:
    """Geometric mean of |log| VMCPI change when only ``field`` changes (the
    other line size, sizes and trace held): how far apart curves differing in
    that line size lie."""
    other = "l2_line" if field == "l1_line" else "l1_line"
    groups: dict[tuple, dict] = {}
    for r in _sel(rows, scheme=scheme):
        groups.setdefault((r["trace"], r["l1_kb"], r["l2_kb"], r[other]), {})[r[field]] = r["vmcpi"]
    logs = []
    for d in groups.values():
        vals = [v for v in d.values() if v > 0]
        if len(vals) > 1:
            logs.append(abs(math.log(max(vals) / min(vals))))
    return math.exp(statistics.mean(logs)) if logs else float("nan")


#: What the paper itself says for each must-hold finding (seed 002, section 5),
#: shown beside vmlab's figure in the verdicts.
PAPER_SAYS = (
    "SOFTVM 'tends to do about as well as the other schemes once the L2 cache is large enough' and the L2 line "
    ">= 64 B, and is 'more sensitive to choices of linesize and cache size' (Figures 13-15)",
    "'between a factor of two and an order of magnitude' per L2 doubling; 'between a factor of two and a factor "
    "of five' for L1 1 KB -> 128 KB. Its own GCC L2 misses (Table 5) fall only "
    + ", ".join(f"{PAPER_TABLE5[a][i] / PAPER_TABLE5[b][i]:.2f}x" for i in (0, 1)
                for a, b in ((512, 1024), (1024, 2048))) + " (I, I, D, D) per doubling",
    "64-entry TLBs raise 'the overhead of the hardware schemes by roughly an order of magnitude, while the "
    "software-managed scheme would be unaffected'; no 64-entry data shown",
    "'surprisingly similar overheads' on GCC and VORTEX; MACH about 2x ULTRIX on WINWORD (a large, sparse "
    "address space)",
    "for small L1 caches the TLB-based curves are 'roughly grouped by L1 linesize', SOFTVM's 'by L2 linesize'",
)


def verdicts(rows: list[dict], grid: Grid) -> list:
    """The findings as ``vmlab.report.Verdict``: the claim, HOLDS/FAILS, vmlab's figures, the paper's."""
    from vmlab.report import Verdict

    return [Verdict(name, ok, why, paper) for (name, ok, why), paper in zip(findings(rows, grid), PAPER_SAYS)]
