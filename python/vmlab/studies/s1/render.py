"""S1's outputs: the paper's tables beside vmlab's, the printed text, the
figures, and the rows and page written to disk."""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from vmlab import optional

from .diagnose import CostModel, diagnose
from .findings import NAMES, PAPER_BOUND, PAPER_SAYS, per_trace, verdicts
from .grid import ALL_SCHEMES, SWEPT_SCHEMES, Grid, _size
from .paper import PAPER_PROTECTION_CPI, PAPER_TABLE1, PAPER_TABLE4, PAPER_TABLE4_TOTAL, PAPER_TABLE5
from .rows import _sel
from .run import SIDE_FIELDS

@dataclass(frozen=True)
class PaperTable:
    """One of the paper's tables beside vmlab's, for one trace: printed by
    ``render`` and shown on the study's page, from the same rows."""

    title: str
    rows: list
    floatfmt: str = "{:.4f}"
    notes: tuple = ()


def paper_tables(rows: list[dict], grid: Grid, trace: str) -> list[PaperTable]:
    """Tables 1, 4 and 5, section 5.6 and the base machine's VMCPI, paper beside vmlab, on one trace."""
    out: list[PaperTable] = []
    base = {r["scheme"]: r for r in _sel(rows, trace=trace, role="base")}
    u = base.get("ultrix")
    if u:
        ti = sum(u[f"i_side_{f}"] for f in SIDE_FIELDS) or 1
        td = sum(u[f"d_side_{f}"] for f in SIDE_FIELDS) or 1
        out.append(PaperTable(
            "Table 1 (ULTRIX, 8K/8K L1, 512K/512K L2, 16 B lines): % of user references",
            [{"event": name, "paper I": pi, "vmlab I": 100 * u["i_side_" + f] / ti,
              "paper D": pd, "vmlab D": 100 * u["d_side_" + f] / td}
             for (name, pi, pd), f in zip(PAPER_TABLE1, SIDE_FIELDS)]))
    t4row = _sel(rows, trace=trace, role="table4")
    sv = t4row[0] if t4row else base.get("softvm")
    if sv:
        t4 = [{"component": comp, "paper freq": pf, "vmlab freq": sv["freq_" + comp], "paper CPI": pc,
               "vmlab CPI": sv["cpi_" + comp]} for comp, (pf, pc) in PAPER_TABLE4.items()]
        t4.append({"component": "total", "paper CPI": PAPER_TABLE4_TOTAL, "vmlab CPI": sv["vmcpi"]})
        notes = [f"distance {sv['vmcpi'] / PAPER_TABLE4_TOTAL:.2f}x; the paper's trace is GCC on Alpha"]
        paper_freq = PAPER_TABLE4["uhandler"][0]
        notes.append(f"at {sv['l1_line']} B L1 and {sv['l2_line']} B L2 lines: Table 4's uhandler frequency "
                     f"({paper_freq:.4f}) is Table 5's 32 B-line GCC misses at 512K/512K "
                     f"({sum(PAPER_TABLE5[512]) / 1000:.5f}); at 16 B L2 lines they would be higher")
        sv16 = base.get("softvm")
        if sv16 and sv is not sv16:
            notes.append(f"vmlab's uhandler frequency: {sv['freq_uhandler']:.5f} at {sv['l2_line']} B L2 lines, "
                         f"{sv16['freq_uhandler']:.5f} at 16 B (VMCPI {sv16['vmcpi']:.4f})")
        wb = _sel(rows, trace=trace, role="table4-wb")
        if wb and sv["vmcpi"] > 0:
            notes.append(f"softvm+wb (write-backs translated again, section 5.5): VMCPI {wb[0]['vmcpi']:.4f} vs "
                         f"{sv['vmcpi']:.4f} as measured (+{100 * (wb[0]['vmcpi'] / sv['vmcpi'] - 1):.0f} %; "
                         "the paper projects about +50 %)")
        out.append(PaperTable(f"Table 4 (SOFTVM, 8K/8K L1, 512K/512K L2, {sv['l1_line']}/{sv['l2_line']} B lines): "
                              "frequency per instruction and CPI by component",
                              t4, notes=tuple(notes)))
    prot = sorted(_sel(rows, trace=trace, role="protection"), key=lambda r: -r["protect_per_million"])
    if prot:
        out.append(PaperTable(
            "Section 5.6: protection changes sweeping the page in L1 D and L2 (4 KB pages, 16 B lines)",
            [{"per million instructions": f"{r['protect_per_million']:g}", "changes": r["protection_changes"],
              "paper CPI": PAPER_PROTECTION_CPI.get(r["protect_per_million"], 6908 * r["protect_per_million"] * 1e-6),
              "vmlab CPI": r["protection_cpi"]} for r in prot],
            notes=("the paper assumes 10 L1 and 50 L2 lines of the page present",)))
    t5 = {r["l2_kb"]: r for r in _sel(rows, trace=trace, role="table5")}
    if t5:
        out.append(PaperTable(
            "Table 5: L2 misses per 1,000 instructions (32 B L2 lines); paper = GCC/Alpha",
            [{"L2 (each side)": f"{kb}K", "paper I": PAPER_TABLE5.get(kb, (None, None))[0],
              "vmlab I": t5[kb]["l2i_misses_per_kinstr"], "paper D": PAPER_TABLE5.get(kb, (None, None))[1],
              "vmlab D": t5[kb]["l2d_misses_per_kinstr"]} for kb in sorted(t5)], "{:.2f}"))
    if base:
        row = {s: base[s]["vmcpi"] for s in ALL_SCHEMES if s in base}
        out.append(PaperTable("VMCPI at the base machine (8K/8K L1, 512K/512K L2, 16 B lines)", [row],
                              notes=(f"the paper's SOFTVM on GCC: {PAPER_TABLE4_TOTAL} (Table 4)",)))
    return out


def render(rows: list[dict], grid: Grid, fps: Optional[dict[str, dict]] = None,
           model: Optional[CostModel] = None) -> str:
    from vmlab.report import text_table

    lines: list[str] = []
    for t in grid.traces:
        lines.append(f"== trace {t} ==")
        for table in paper_tables(rows, grid, t):
            lines.append(table.title)
            lines += ["  " + line for line in text_table(table.rows, floatfmt=table.floatfmt).splitlines()]
            lines += [f"  ({n})" for n in table.notes]
        lines.append("")
    lines.append("Findings (experiments.md S1), per trace:")
    why_fails = diagnose(rows, grid, fps, model)
    judged = per_trace(rows, grid)
    for i, name in enumerate(NAMES, 1):
        lines.append(f"  {name}")
        lines.append(f"    paper: {PAPER_SAYS[i - 1]}")
        if PAPER_BOUND[i - 1]:
            lines.append(f"    bound: {PAPER_BOUND[i - 1]}")
        for f in (f for f in judged if f.number == i):
            lines.append(f"    {'HOLDS' if f.ok else 'FAILS'}  {f.trace}{_stands_for(f.trace)}: {f.figures}")
        for d in why_fails.get(i, ([], {}))[0]:
            lines.append(f"         why: {d}")
    return "\n".join(lines)


def _stands_for(trace: str) -> str:
    """`` (for GCC)``: the paper's benchmark a workload stands for, if it is one."""
    from vmlab.workloads import WORKLOADS

    w = WORKLOADS.get(trace)
    return f" (for {w.stands_for})" if w is not None and w.stands_for else ""


def figures(rows: list[dict], grid: Grid) -> list:
    """(file name, matplotlib Figure, caption) of each plot: Table 5 and Table 4
    beside the paper's GCC figures, then per trace Figures 13-15 style panels
    (VMCPI against L1 size, one panel per scheme and L2 size, one curve per
    line-size pair) with the paper's GCC point where it gives one."""
    Figure = optional.figure_class("the S1 figures")
    if Figure is None:
        return []
    from matplotlib.lines import Line2D

    from vmlab.report import log_axis, sizes_axis

    out = []
    t5 = {t: {r["l2_kb"]: r for r in _sel(rows, trace=t, role="table5")} for t in grid.traces}
    if any(t5.values()):
        fig = Figure(figsize=(8, 4.8))
        ax = fig.add_subplot()
        kbs = sorted(PAPER_TABLE5)
        for side, style, mark in ((0, "-", "o"), (1, "--", "s")):
            name = "I" if side == 0 else "D"
            ax.plot(kbs, [PAPER_TABLE5[k][side] for k in kbs], color="black", linestyle=style, marker=mark,
                    mfc="none", ms=8, lw=2, label=f"paper GCC, L2{name.lower()} (Table 5)")
            for j, t in enumerate(grid.traces):
                ks = sorted(t5[t])
                if ks:
                    ax.plot(ks, [t5[t][k][f"l2{name.lower()}_misses_per_kinstr"] for k in ks], color=f"C{j}",
                            linestyle=style, marker=mark, label=f"vmlab {t}, L2{name.lower()}")
        sizes_axis(ax, kbs, "L2 size per side (KB)")
        log_axis(ax)
        ax.set_ylabel("L2 misses per 1,000 instructions (log)")
        ax.set_title("Table 5: L2 misses per 1,000 user instructions, 32 B L2 lines")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize="small", ncol=2)
        out.append(("s1-table5.png", fig,
                    "Table 5: misses of the instruction-side (L2i, solid, circles) and data-side (L2d, dashed, "
                    "squares) L2 caches per 1,000 user instructions, against L2 size per side, NOTLB with 8K/8K L1 "
                    "and 32 B L2 lines. Black: the paper's GCC on Alpha; colours: vmlab on each trace."))
    base = {t: {r["scheme"]: r for r in _sel(rows, trace=t, role="base")} for t in grid.traces}
    # Table 4 at its own lines (role table4, 16/32 B), else the base machine's.
    t4 = {t: _sel(rows, trace=t, role="table4") for t in grid.traces}
    soft = [(t, t4[t][0] if t4[t] else b["softvm"]) for t, b in base.items() if t4[t] or "softvm" in b]
    if soft:
        comps = list(PAPER_TABLE4) + ["total"]
        fig = Figure(figsize=(8, 0.5 * len(comps) * (1 + len(soft)) / 2 + 1.5))
        ax = fig.add_subplot()
        series = [("paper GCC (Table 4)", [PAPER_TABLE4[c][1] for c in PAPER_TABLE4] + [PAPER_TABLE4_TOTAL])]
        series += [(f"vmlab {t}", [r["cpi_" + c] for c in PAPER_TABLE4] + [r["vmcpi"]]) for t, r in soft]
        h = 0.8 / len(series)
        for j, (label, vals) in enumerate(series):
            ys = [i - 0.4 + h * (j + 0.5) for i in range(len(comps))]
            # a zero has no place on a log axis: such a bar is left out
            kept = [(y, v) for y, v in zip(ys, vals) if v > 0]
            ax.barh([y for y, _ in kept], [v for _, v in kept], h, color="black" if j == 0 else f"C{j - 1}",
                    label=label)
        ax.set_yticks(range(len(comps)), comps)
        ax.invert_yaxis()
        log_axis(ax, "x")
        ax.set_xlabel("CPI (VM cycles per user instruction, log)")
        ax.set_title("Table 4: SOFTVM's VMCPI by component, 8K/8K L1, 512K/512K L2, "
                     f"{soft[0][1]['l1_line']}/{soft[0][1]['l2_line']} B lines")
        ax.grid(axis="x", alpha=0.3, which="both")
        ax.legend(fontsize="small")
        out.append(("s1-table4.png", fig,
                    "Table 4: SOFTVM's VM cycles per user instruction by component (handler runs, PTE loads from "
                    "L2 and from memory, root-level handler and PTEs) and in total, on the paper's base machine. "
                    "Black: the paper's GCC on Alpha; colours: vmlab on each trace. A component vmlab never "
                    "charges (zero) has no bar."))

    lines_legend = [Line2D([], [], color=f"C{k}", marker="o", ms=4, label=f"L1/L2 line {a}/{b} B")
                    for k, (a, b) in enumerate(grid.lines)]
    for t in grid.traces:
        nrow, ncol = len(SWEPT_SCHEMES), len(grid.l2_kb)
        fig = Figure(figsize=(3.3 * ncol + 0.5, 2.3 * nrow + 1.2), layout="constrained")
        axes = fig.subplots(nrow, ncol, squeeze=False, sharex=True, sharey="row")
        extra = []
        for i, s in enumerate(SWEPT_SCHEMES):
            b = base[t].get(s)
            for j, l2 in enumerate(grid.l2_kb):
                ax = axes[i][j]
                for k, (a, bl) in enumerate(grid.lines):
                    pts = sorted((r["l1_kb"], r["vmcpi"]) for r in _sel(rows, trace=t, scheme=s, l2_kb=l2,
                                                                       l1_line=a, l2_line=bl, role="sweep"))
                    if pts:
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=4, color=f"C{k}")
                # The base machine (8K/8K, 16/16) sits on the 512K/512K panels; the
                # paper gives its VMCPI for SOFTVM on GCC (Table 4's total).
                if l2 == 512 and b:
                    ax.plot([8], [b["vmcpi"]], marker="D", ms=7, color="grey", linestyle="none")
                    if "vmlab base" not in extra:
                        extra.append("vmlab base")
                    if s == "softvm":
                        ax.plot([8], [PAPER_TABLE4_TOTAL], marker="*", ms=14, color="black", linestyle="none")
                        extra.append("paper")
                ax.set_xscale("log", base=2)
                log_axis(ax)
                ax.set_title(f"{s.upper()}, L2 {_size(l2)}", fontsize=9)
                ax.tick_params(labelsize=8)
                if j == 0:
                    ax.set_ylabel("VMCPI (log)", fontsize=9)
                if i == nrow - 1:
                    sizes_axis(ax, sorted(set(grid.l1_kb) | {8}), "L1 size per side (KB)")
        handles = list(lines_legend)
        if "vmlab base" in extra:
            handles.append(Line2D([], [], color="grey", marker="D", linestyle="none",
                                  label="vmlab, base machine (8 KB L1, 16/16 B lines)"))
        if "paper" in extra:
            handles.append(Line2D([], [], color="black", marker="*", ms=12, linestyle="none",
                                  label=f"paper GCC, SOFTVM base machine ({PAPER_TABLE4_TOTAL}, Table 4)"))
        fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=9, frameon=False)
        fig.suptitle(f"VMCPI against L1 size, trace {t} (Figures 13-15 style)", fontsize=11)
        out.append((f"s1-{t}.png", fig,
                    f"Figures 13-15 style, trace {t}: VM cycles per user instruction (log scale) against L1 size per "
                    "side, one row per scheme, one column per L2 size per side, one curve per L1/L2 line-size pair. "
                    "Grey diamonds: vmlab on the paper's base machine (8K/8K L1, 16 B lines) on the 512K/512K "
                    "panels; black star: the paper's GCC VMCPI for SOFTVM there (Table 4). The paper's own figures "
                    "are plotted for GCC, VORTEX and WINWORD and give no other number."))
    return out


TITLE = "Study S1: VM overhead without TLBs (Jacob & Mudge 2001, seed 002)"


def write_outputs(rows: list[dict], grid: Grid, results_dir: Path, report_dir: Path,
                  fps: Optional[dict[str, dict]] = None, model: Optional[CostModel] = None) -> list[Path]:
    """The rows as CSV (and Parquet when pyarrow is there) under ``results_dir``;
    the study's page, figures and verdicts under ``report_dir``."""
    import csv

    from vmlab.report import Report, verdict_table, verdicts_summary, write_study

    written = []
    results_dir.mkdir(parents=True, exist_ok=True)
    report_dir.mkdir(parents=True, exist_ok=True)  # the page is written even without figures
    cols = sorted({k for r in rows for k in r if k != "key"})
    csv_path = results_dir / "runs.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in cols})
    written.append(csv_path)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist([{k: r.get(k) for k in cols} for r in rows])
        pq.write_table(table, results_dir / "runs.parquet")
        written.append(results_dir / "runs.parquet")
    except ImportError:
        pass

    judged = verdicts(rows, grid)
    events = f"the first {grid.max_events:,} references of each" if grid.max_events else "whole traces"
    rep = Report(TITLE, "Every number below is predicted: the cost model (20-cycle L2, 500-cycle memory, handler "
                 "sizes) is the paper's own, nothing is fitted. Traces are real programs captured with valgrind "
                 f"(docs/workloads.md): {', '.join(grid.traces)}, {events}. Every run is in {results_dir} "
                 "(runs.csv).")
    rep.section("Verdicts", f"The must-hold findings of experiments.md S1: {verdicts_summary(judged)}. "
                "The paper's findings are for GCC, VORTEX and WINWORD, on whole traces.").html(verdict_table(judged))
    why_fails = diagnose(rows, grid, fps, model)
    if why_fails:
        sec = rep.section("Why the failing findings fail, from the data",
                          "Each FAILS verdict broken into the mechanisms behind its number, from the runs' VMCPI "
                          "components and the footprint of the references simulated (the whole trace or its prefix).")
        for i, (text, _) in sorted(why_fails.items()):
            sec.html(f"<h3>{html.escape(NAMES[i - 1])}</h3><ul>"
                     + "".join(f"<li>{html.escape(d)}</li>" for d in text) + "</ul>")
    try:
        figs = figures(rows, grid)
    except ImportError:
        figs = []
        rep.section("Figures").text("No figures: matplotlib is not installed (pip install 'vmlab[report]').")
    if figs:
        sec = rep.section("Figures", "The paper's values, where it gives them, drawn in black beside vmlab's.")
        for name, fig, caption in figs:
            sec.figure(fig, caption, name)
    for t in grid.traces:
        sec = rep.section(f"Trace {t}: the paper's tables beside vmlab's")
        for table in paper_tables(rows, grid, t):
            sec.html(f"<h3>{html.escape(table.title)}</h3>")
            sec.table(table.rows, floatfmt=table.floatfmt)
            for n in table.notes:
                sec.text(n[0].upper() + n[1:] + ".")
    written += [Path(p) for p in write_study(str(report_dir), "s1", rep, judged)]
    return written
