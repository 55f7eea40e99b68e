"""HTML reports: sections of text, tables and matplotlib figures.

A :class:`Report` is a list of sections written to one folder (``index.html``
plus one PNG per figure), so later studies add their own sections::

    rep = Report("Cache study")
    sec = rep.section("Miss rates", "Every preset on gcc's trace.")
    sec.table(frame)                      # a pandas/polars frame or a list of dicts
    sec.figure(fig, "Miss rate by cache") # a matplotlib Figure
    rep.write("report/index.html")

:func:`presets_report` is what ``make reproduce`` writes: every shipped preset
on every trace given.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

from vmlab import _engine
from vmlab.machine import Machine, presets
from vmlab.result import COLUMNS, KINDS, Result

# One stylesheet for every page of the report (the index and each study's
# page): prose wraps at the page's width; a table or a block of fixed-width
# text wider than the page scrolls inside its own box, never the page.
STYLE = """
:root { --holds: #1b7f3b; --holds-bg: #e3f4e8; --fails: #b3261e; --fails-bg: #fbe6e4; }
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222;
       line-height: 1.45; overflow-wrap: anywhere; }
h1 { border-bottom: 2px solid #444; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #bbb; }
nav.back { font-size: 0.9rem; margin-bottom: 0.5rem; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 1rem 0; overflow-wrap: normal; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: right; vertical-align: top; }
th { background: #f0f0f0; } td.s { text-align: left; }
th.s { text-align: left; }
td.prose { text-align: left; min-width: 14rem; max-width: 48rem; overflow-wrap: anywhere; }
figure { margin: 1.5rem 0; } figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.9rem; color: #444; max-width: 60rem; }
pre { background: #f7f7f7; padding: 0.5rem; overflow-x: auto; font-size: 0.8rem; overflow-wrap: normal; }
.meta { color: #666; font-size: 0.85rem; }
.verdict { font-weight: bold; padding: 0.1rem 0.4rem; border-radius: 0.2rem; white-space: nowrap; }
.HOLDS { color: var(--holds); background: var(--holds-bg); }
.FAILS { color: var(--fails); background: var(--fails-bg); }
table.verdicts { width: 100%; table-layout: fixed; } table.verdicts th { text-align: left; }
table.verdicts td { text-align: left; } table.verdicts td.prose { min-width: 0; }
"""


def page(title: str, body: Sequence[str], back: Optional[tuple[str, str]] = None) -> str:
    """A complete HTML page in the report's one style; ``back`` is (href, text)
    of a link shown above the title."""
    nav = f'<nav class="back"><a href="{html.escape(back[0])}">&larr; {html.escape(back[1])}</a></nav>\n' if back else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{nav}"
            + "\n".join(body) + "\n</body></html>\n")


@dataclass
class Section:
    title: str
    intro: str = ""
    parts: list = field(default_factory=list)

    def text(self, text: str) -> "Section":
        """A paragraph of plain text (escaped)."""
        self.parts.append(("html", f"<p>{html.escape(text)}</p>"))
        return self

    def html(self, fragment: str) -> "Section":
        """Raw HTML, for what the other helpers do not cover."""
        self.parts.append(("html", fragment))
        return self

    def pre(self, text: str) -> "Section":
        """Fixed-width text (a table printed by a tool); scrolls in its own box if wide."""
        self.parts.append(("html", f"<pre>{html.escape(text)}</pre>"))
        return self

    def table(self, data: Any, columns: Optional[Sequence[str]] = None, floatfmt: str = "{:.4f}",
              prose: Sequence[str] = ()) -> "Section":
        """A table from a pandas or polars frame, a pyarrow table, or a list of
        dicts. Columns named in ``prose`` hold sentences: they wrap."""
        rows, cols = _rows_of(data, columns)
        self.parts.append(("html", _html_table(rows, cols, floatfmt, prose)))
        return self

    def figure(self, fig: Any, caption: str = "", name: Optional[str] = None) -> "Section":
        """A matplotlib Figure, saved as a PNG beside the HTML (``name``, or
        figure-N.png). The caption says what the figure shows."""
        self.parts.append(("figure", (fig, caption, name)))
        return self


class Report:
    def __init__(self, title: str, intro: str = "", back: Optional[tuple[str, str]] = None):
        self.title = title
        self.intro = intro
        self.back = back
        self.sections: list[Section] = []
        self.files: list[str] = []  # what the last write() wrote: the HTML and each figure

    def section(self, title: str, intro: str = "") -> Section:
        s = Section(title, intro)
        self.sections.append(s)
        return s

    def write(self, path: str = "report/index.html") -> str:
        """Writes the HTML and its figures; returns the HTML file's path."""
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        self.files = []
        body = [f"<h1>{html.escape(self.title)}</h1>"]
        stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
        body.append(f'<p class="meta">vmlab {html.escape(_engine.__version__)}, written {stamp}</p>')
        if self.intro:
            body.append(f"<p>{html.escape(self.intro)}</p>")
        if len(self.sections) > 1:
            body.append("<ul>" + "".join(
                f'<li><a href="#s{i}">{html.escape(s.title)}</a></li>' for i, s in enumerate(self.sections)) + "</ul>")
        n_fig = 0
        for i, s in enumerate(self.sections):
            body.append(f'<h2 id="s{i}">{html.escape(s.title)}</h2>')
            if s.intro:
                body.append(f"<p>{html.escape(s.intro)}</p>")
            for kind, part in s.parts:
                if kind == "html":
                    body.append(part)
                    continue
                fig, caption, name = part
                n_fig += 1
                name = name or f"figure-{n_fig}.png"
                fig.savefig(os.path.join(folder, name), dpi=110, bbox_inches="tight")
                self.files.append(os.path.join(os.path.dirname(path), name))
                body.append(f'<figure><img src="{html.escape(name)}" alt="{html.escape(caption)}">'
                            f"<figcaption>Figure {n_fig}. {html.escape(caption)}</figcaption></figure>")
        with open(path, "w", encoding="utf-8") as f:
            f.write(page(self.title, body, self.back))
        self.files.insert(0, path)
        return path


# -- study verdicts -------------------------------------------------------------
# Each study writes, beside its page, VERDICTS_FILE: its findings with HOLDS /
# FAILS and the figures they rest on. The report's index gathers these files,
# so it shows the verdicts of whatever studies were run, without importing
# them. The format (JSON):
#
#   {"format": 1, "study": "s1", "title": "...", "page": "index.html",
#    "verdicts": [{"claim": "...", "verdict": "HOLDS" | "FAILS",
#                  "measured": "...", "paper": "..."}, ...]}
#
# "claim" is the paper's finding as the study states it; "measured" is vmlab's
# figure(s) the verdict rests on; "paper" the paper's own figure for the same,
# or "" where the paper gives none.
VERDICTS_FILE = "verdicts.json"
VERDICTS_FORMAT = 1


@dataclass(frozen=True)
class Verdict:
    """One must-hold finding of a study, judged."""

    claim: str
    holds: bool
    measured: str
    paper: str = ""


def verdict_badge(holds: bool) -> str:
    word = "HOLDS" if holds else "FAILS"
    return f'<span class="verdict {word}">{word}</span>'


def verdict_table(verdicts: Sequence[Verdict]) -> str:
    """The verdicts as an HTML table: verdict, finding, vmlab's figure, the paper's."""
    rows = "".join(
        f"<tr><td>{verdict_badge(v.holds)}</td><td class=\"prose\">{html.escape(v.claim)}</td>"
        f"<td class=\"prose\">{html.escape(v.measured)}</td><td class=\"prose\">{html.escape(v.paper) or '&ndash;'}</td></tr>"
        for v in verdicts)
    return ('<div class="scroll"><table class="verdicts"><colgroup><col style="width: 5.5rem"><col><col><col>'
            '</colgroup><thead><tr><th>verdict</th><th>finding</th><th>vmlab measured</th><th>paper</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></div>")


def verdicts_summary(verdicts: Sequence[Verdict]) -> str:
    held = sum(v.holds for v in verdicts)
    return f"{held} of {len(verdicts)} findings hold"


def write_study(folder: str, study: str, report: Report, verdicts: Sequence[Verdict]) -> list[str]:
    """Writes a study's page (``folder/index.html``, with a link back to the
    report's index one folder up) and its ``verdicts.json``; returns the files."""
    if report.back is None:
        report.back = ("../index.html", "report index: every study's verdicts")
    report.write(os.path.join(folder, "index.html"))
    doc = {"format": VERDICTS_FORMAT, "study": study, "title": report.title, "page": "index.html",
           "verdicts": [{"claim": v.claim, "verdict": "HOLDS" if v.holds else "FAILS", "measured": v.measured,
                         "paper": v.paper} for v in verdicts]}
    path = os.path.join(folder, VERDICTS_FILE)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return [*report.files, path]


@dataclass(frozen=True)
class StudyVerdicts:
    study: str
    title: str
    page: str  # relative to the folder holding the verdicts file
    verdicts: tuple


def read_verdicts(path: str) -> StudyVerdicts:
    """A study's ``verdicts.json``; a file not in the format is a VmlabError naming it."""
    def bad(what: str) -> _engine.VmlabError:
        return _engine.VmlabError(f"{path}: {what} (expected the verdicts format {VERDICTS_FORMAT} of vmlab.report)")

    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except json.JSONDecodeError as e:
        raise bad(f"not JSON at line {e.lineno} column {e.colno}") from None
    if not isinstance(doc, dict) or doc.get("format") != VERDICTS_FORMAT:
        raise bad(f"format is {doc.get('format') if isinstance(doc, dict) else None!r}")
    try:
        verdicts = tuple(Verdict(str(v["claim"]), {"HOLDS": True, "FAILS": False}[v["verdict"]],
                                 str(v["measured"]), str(v.get("paper", ""))) for v in doc["verdicts"])
        return StudyVerdicts(str(doc["study"]), str(doc["title"]), str(doc["page"]), verdicts)
    except (KeyError, TypeError) as e:
        raise bad(f"missing or wrong field {e}") from None


def studies_in(folder: str) -> list[tuple[str, StudyVerdicts]]:
    """(subfolder, verdicts) of every study written under ``folder``, by subfolder name."""
    found = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        path = os.path.join(folder, name, VERDICTS_FILE)
        if os.path.isfile(path):
            found.append((name, read_verdicts(path)))
    return found


def _rows_of(data: Any, columns: Optional[Sequence[str]]) -> tuple[list[dict], list[str]]:
    if hasattr(data, "to_dicts"):  # polars
        rows = data.to_dicts()
    elif hasattr(data, "to_pylist"):  # pyarrow
        rows = data.to_pylist()
    elif hasattr(data, "to_dict") and hasattr(data, "columns"):  # pandas
        rows = data.to_dict(orient="records")
    else:
        rows = [dict(r) for r in data]
    cols = list(columns) if columns else (list(rows[0]) if rows else [])
    return rows, cols


def _cell(v: Any, floatfmt: str) -> tuple[str, bool]:
    if v is None or (isinstance(v, float) and v != v):
        return "–", False
    if isinstance(v, bool):
        return str(v), True
    if isinstance(v, int):
        return f"{v:,}", False
    if isinstance(v, float):
        return floatfmt.format(v), False
    return html.escape(str(v)), True


def _html_table(rows: list[dict], cols: list[str], floatfmt: str, prose: Sequence[str] = ()) -> str:
    text_cols = {c for c in cols if c in prose or all(isinstance(r.get(c), str) or r.get(c) is None for r in rows)}
    head = "".join(f'<th class="s">{html.escape(c)}</th>' if c in text_cols else f"<th>{html.escape(c)}</th>"
                   for c in cols)
    body = []
    for r in rows:
        cells = []
        for c in cols:
            text, is_str = _cell(r.get(c), floatfmt)
            cls = ' class="prose"' if c in prose else ' class="s"' if is_str else ""
            cells.append(f"<td{cls}>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def text_table(data: Any, columns: Optional[Sequence[str]] = None, floatfmt: str = "{:.4f}") -> str:
    """The same rows as ``Section.table`` takes, as fixed-width text for a
    terminal: text columns left-aligned, numbers right-aligned."""
    rows, cols = _rows_of(data, columns)
    cells = [[_plain(r.get(c), floatfmt) for c in cols] for r in rows]
    left = [all(isinstance(r.get(c), str) or r.get(c) is None for r in rows) for c in cols]
    width = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(cols)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) if lf else v.rjust(w) for v, w, lf in zip(values, width, left)).rstrip()

    return "\n".join([line(cols)] + [line(row) for row in cells])


def _plain(v: Any, floatfmt: str) -> str:
    if v is None or (isinstance(v, float) and v != v):
        return "-"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    return f"{v:,}" if isinstance(v, int) else floatfmt.format(v)


# -- plots ------------------------------------------------------------------
def _figure(width: float = 8.0, height: float = 4.0):
    from matplotlib.figure import Figure  # no pyplot: no global state, no display

    return Figure(figsize=(width, height))


def miss_rate_figure(results: Iterable[Result], title: str = "Miss rate by cache"):
    """Grouped bars: each cache's miss rate (all request kinds), one bar per machine."""
    results = list(results)
    caches: list[str] = []
    for r in results:
        caches += [c for c in r.caches if c not in caches]
    fig = _figure()
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(results))
    for i, r in enumerate(results):
        xs, ys = [], []
        for j, c in enumerate(caches):
            if c in r.caches and r.accesses(c):
                xs.append(j - 0.4 + width * (i + 0.5))
                ys.append(100.0 * r.miss_rate(c))
        bars = ax.bar(xs, ys, width, label=r.machine_name)
        ax.bar_label(bars, [_percent(y) for y in ys], fontsize="xx-small", padding=2, rotation=90)
    ax.set_xticks(range(len(caches)), caches)
    ax.set_yscale("log")  # first-level rates are often 100x below the last level's
    ax.margins(y=0.25)
    ax.set_ylabel("miss rate (%, log scale)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return fig


def log_axis(ax, which: str = "y") -> None:
    """A log scale whose labels read 0.2, 5, 1000 rather than powers of ten,
    with minor ticks labelled when the axis spans few decades."""
    from matplotlib import ticker

    class Plain(ticker.LogFormatter):
        def __call__(self, x, pos=None):  # LogFormatter picks which ticks to label; "%g" writes them
            return f"{x:,g}" if super().__call__(x, pos) else ""

    (ax.set_yscale if which == "y" else ax.set_xscale)("log")
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_formatter(Plain(labelOnlyBase=False))
    axis.set_minor_formatter(Plain(labelOnlyBase=False, minor_thresholds=(2, 0.6)))


def sizes_axis(ax, sizes: Sequence[int], label: str) -> None:
    """An x axis of sizes that double (1, 2, 4, ... KB), evenly spaced and labelled with each size."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(sizes), [str(k) for k in sizes])
    ax.minorticks_off()
    ax.set_xlabel(label)


def _percent(y: float) -> str:
    return f"{y:.0f}" if y >= 10 else f"{y:.1f}" if y >= 1 else f"{y:.2g}"


def three_c_figure(results: Iterable[Result], title: str = "Misses by cause"):
    """Stacked bars per machine and cache: compulsory, capacity and conflict misses
    per 1000 references to that cache."""
    labels, parts = [], {"compulsory": [], "capacity": [], "conflict": []}
    for r in results:
        for c, info in r.caches.items():
            n = r.accesses(c)
            if not n:
                continue
            labels.append(f"{r.machine_name} {c}")
            for cause in parts:
                parts[cause].append(1000.0 * sum(info["stats"][k][cause] for k in KINDS) / n)
    fig = _figure(max(7.0, 0.7 * len(labels)), 4.8)
    ax = fig.add_subplot()
    bottom = [0.0] * len(labels)
    for cause, ys in parts.items():
        ax.bar(range(len(labels)), ys, 0.7, bottom=bottom, label=cause)
        bottom = [b + y for b, y in zip(bottom, ys)]
    ax.set_xticks(range(len(labels)), labels, fontsize="x-small", rotation=60, ha="right")
    ax.set_ylabel("misses per 1000 accesses")
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return fig


# -- the report `make reproduce` writes --------------------------------------
def _studies_section(rep: Report, folder: str) -> None:
    """The verdicts of every study written under ``folder``, each linking to its page."""
    found = studies_in(folder)
    sec = rep.section("Studies at a glance",
                      "Each study of experiments.md run into this folder: the paper's must-hold findings, "
                      "HOLDS or FAILS on vmlab's numbers, with the figure each verdict rests on and the paper's. "
                      "Each study's page has its tables, plots and the diagnosis of every FAILS.")
    if not found:
        sec.text(f"No study was run into {folder} (vmlab reproduce sN --report {os.path.join(folder, 'sN')}).")
    for sub, sv in found:
        href = html.escape(f"{sub}/{sv.page}")
        sec.html(f'<h3><a href="{href}">{html.escape(sv.title)}</a></h3>'
                 f"<p>{verdicts_summary(sv.verdicts)}.</p>" + verdict_table(sv.verdicts))


def _trace_facts(info: dict) -> list[dict]:
    """``trace_info`` as (fact, value) rows: nested counts flattened to "pages_4k data" and so on."""
    rows = []
    for key, value in info.items():
        if isinstance(value, dict):
            rows += [{"fact": f"{key} {k}", "value": v} for k, v in value.items()]
        else:
            rows.append({"fact": key, "value": value})
    return rows


def loadable_presets() -> list[str]:
    """Shipped presets that load on this machine (x86-64-host needs Linux sysfs)."""
    names = []
    for name in presets():
        try:
            Machine.from_preset(name)
        except _engine.VmlabError:
            continue
        names.append(name)
    return names


def presets_report(traces: Sequence[str], machines: Optional[Sequence[str]] = None,
                   out: str = "report/index.html", progress: bool = False, classify: bool = True) -> str:
    """Runs each machine on each trace and writes the report; returns its path.

    ``classify`` turns on 3C miss classification for every machine (slower,
    but it is what the "misses by cause" figure shows)."""
    from vmlab.traces import trace_info

    machines = list(machines) if machines else loadable_presets()
    overrides = {"stats.classify_misses": True} if classify else {}
    rep = Report("vmlab report: the studies' verdicts, and the shipped presets on captured traces",
                 "First, every study run into this folder: each finding of its paper with vmlab's verdict "
                 "and the figures it rests on. Then each machine preset simulated on each trace; miss rates count "
                 "every request kind a cache saw (instruction fetches, reads, writes, including those from the level "
                 "above). x86-64-host is read from the sysfs of the machine that wrote this report.")
    _studies_section(rep, os.path.dirname(os.path.abspath(out)))
    setup = rep.section("Machines")
    setup.table([{"preset": n, "description": presets().get(n, Machine.from_preset(n).description)}
                 for n in machines])
    for trace in traces:
        info = trace_info(trace)
        results = [Machine.from_preset(m, overrides).run(trace, progress=progress) for m in machines]
        sec = rep.section(f"Trace {os.path.basename(trace)}",
                          f"{info['accesses']:,} references ({info['by_kind']['ifetch']:,} instruction fetches); "
                          f"footprint {info['pages_4k']['total']:,} 4 KB pages.")
        sec.html("<details><summary>The trace's facts (vmlab trace info)</summary>")
        sec.table(_trace_facts(info), floatfmt="{:g}")
        sec.html("</details>")
        sec.figure(miss_rate_figure(results, f"Miss rate by cache: {os.path.basename(trace)}"),
                   "Miss rate of each cache (all request kinds), one bar per preset.")
        if classify:
            sec.figure(three_c_figure(results, f"Misses by cause: {os.path.basename(trace)}"),
                       "Compulsory, capacity and conflict misses per 1000 accesses (Dinero's 3C classification).")
        summary = []
        for r in results:
            for c in r.caches:
                n = r.accesses(c)
                summary.append({"machine": r.machine_name, "cache": c, "accesses": n, "misses": r.misses(c),
                                "miss_rate": r.miss_rate(c) if n else None,
                                "misses_per_1000_instr": 1000.0 * r.misses(c) / r.instructions if r.instructions else None})
        sec.table(summary)
        detail = [row for r in results for row in r.rows(all_kinds=False)]
        sec.html("<details><summary>Every cache and request kind</summary>")
        sec.table(detail, [c for c in COLUMNS if c != "trace"])
        sec.html("</details>")
    return rep.write(out)


if __name__ == "__main__":  # pragma: no cover
    import sys

    from vmlab.cli import main

    sys.exit(main(["report", *sys.argv[1:]]))
