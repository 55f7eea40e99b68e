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
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

from vmlab import _engine
from vmlab.machine import Machine, presets
from vmlab.result import COLUMNS, KINDS, Result

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { border-bottom: 2px solid #444; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #bbb; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: right; }
th { background: #f0f0f0; } td.s { text-align: left; }
figure { margin: 1rem 0; } figcaption { font-size: 0.9rem; color: #555; }
pre { background: #f7f7f7; padding: 0.5rem; overflow-x: auto; font-size: 0.8rem; }
.meta { color: #666; font-size: 0.85rem; }
"""


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
        self.parts.append(("html", f"<pre>{html.escape(text)}</pre>"))
        return self

    def table(self, data: Any, columns: Optional[Sequence[str]] = None, floatfmt: str = "{:.4f}") -> "Section":
        """A table from a pandas or polars frame, a pyarrow table, or a list of dicts."""
        rows, cols = _rows_of(data, columns)
        self.parts.append(("html", _html_table(rows, cols, floatfmt)))
        return self

    def figure(self, fig: Any, caption: str = "") -> "Section":
        """A matplotlib Figure, saved as a PNG beside the HTML."""
        self.parts.append(("figure", (fig, caption)))
        return self


class Report:
    def __init__(self, title: str, intro: str = ""):
        self.title = title
        self.intro = intro
        self.sections: list[Section] = []

    def section(self, title: str, intro: str = "") -> Section:
        s = Section(title, intro)
        self.sections.append(s)
        return s

    def write(self, path: str = "report/index.html") -> str:
        """Writes the HTML and its figures; returns the HTML file's path."""
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
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
                fig, caption = part
                n_fig += 1
                name = f"figure-{n_fig}.png"
                fig.savefig(os.path.join(folder, name), dpi=110, bbox_inches="tight")
                body.append(f'<figure><img src="{name}" alt="{html.escape(caption)}">'
                            f"<figcaption>Figure {n_fig}. {html.escape(caption)}</figcaption></figure>")
        page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style></head>\n<body>\n"
                + "\n".join(body) + "\n</body></html>\n")
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
        return path


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


def _html_table(rows: list[dict], cols: list[str], floatfmt: str) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = []
    for r in rows:
        cells = []
        for c in cols:
            text, is_str = _cell(r.get(c), floatfmt)
            cells.append(f'<td class="s">{text}</td>' if is_str else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


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
    rep = Report("vmlab: shipped presets on captured traces",
                 "Each machine preset simulated on each trace; miss rates count every request kind "
                 "a cache saw (instruction fetches, reads, writes, including those from the level above). "
                 "x86-64-host is read from the sysfs of the machine that wrote this report.")
    studies = []
    for sid, names in (("s1", ("index.html", "fragment.html")), ("s2", ("index.html", "section.html"))):
        for name in names:
            if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(out)), sid, name)):
                studies.append(f'<li><a href="{sid}/{name}">Study {sid.upper()}</a></li>')
                break
    if studies:
        rep.section("Studies", "Each study of experiments.md that was run, with the paper's figures beside "
                    "vmlab's and a HOLDS/FAILS verdict per finding.").html("<ul>" + "".join(studies) + "</ul>")
    setup = rep.section("Machines")
    setup.table([{"preset": n, "description": presets().get(n, Machine.from_preset(n).description)}
                 for n in machines])
    for trace in traces:
        info = trace_info(trace)
        results = [Machine.from_preset(m, overrides).run(trace, progress=progress) for m in machines]
        sec = rep.section(f"Trace {os.path.basename(trace)}",
                          f"{info['accesses']:,} references ({info['by_kind']['ifetch']:,} instruction fetches); "
                          f"footprint {info['pages_4k']['total']:,} 4 KB pages.")
        sec.pre(str(info))
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
