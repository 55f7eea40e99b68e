"""Page-table memory: what each organisation costs to map an address space.

``vmlab pagetables`` builds every page-table organisation of ``vmlab-mmu``
(ULTRIX/MIPS, MACH, PUMA, x86 2- and 4-level, PA-RISC, PowerPC) for the
dense or sparse preset address space, or for the pages a trace touches, and
prints the memory each occupies. See docs/pagetables.md.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Optional

import click

from vmlab import _engine

__all__ = ["PagetableReport", "pagetable_kinds", "pagetable_memory", "command"]


def pagetable_kinds() -> list[str]:
    """The organisation names, in table order."""
    return list(_engine.pagetable_kinds())


@dataclass
class PagetableReport:
    """The memory table: one row per organisation (plain data, picklable)."""

    description: dict
    phys_frames: int
    rows: list[dict] = field(default_factory=list)

    COLUMNS = ("table", "mapped_pages", "bytes", "useful_bytes", "bytes_per_page", "parts", "chain_mean",
               "chain_max", "error")

    @classmethod
    def from_json(cls, text: str) -> "PagetableReport":
        d = json.loads(text)
        return cls(description=d["description"], phys_frames=d["phys_frames"], rows=d["rows"])

    def to_json(self) -> str:
        return json.dumps({"description": self.description, "phys_frames": self.phys_frames, "rows": self.rows},
                          indent=2)

    def to_csv(self) -> str:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(self.COLUMNS)
        for r in self.rows:
            parts = ";".join(f"{name}={b}" for name, b in r["parts"])
            chains = r.get("chains") or {}
            w.writerow([r["table"], r["mapped_pages"], r["bytes"], r["useful_bytes"],
                        f"{r['bytes_per_page']:.2f}", parts,
                        f"{chains['mean_chain']:.4f}" if chains else "", chains.get("max_chain", ""),
                        r["error"] or ""])
        return out.getvalue()

    def table(self) -> str:
        d = self.description
        mb = self.phys_frames * 4096 / (1 << 20)
        head = (f"{d['name']}: {d['pages']} pages of 4 KB in {d['regions']} regions, "
                f"{d['spaces']} address space(s){', folded into 2 GB' if d['folded'] else ''}; "
                f"{mb:g} MB of physical memory\n")
        lines = [head, f"{'table':<11} {'KB':>9} {'useful KB':>10} {'B/page':>8}  parts (KB)"]
        for r in self.rows:
            if r["error"]:
                lines.append(f"{r['table']:<11} {'-':>9} {'-':>10} {'-':>8}  error: {r['error']}")
                continue
            parts = ", ".join(f"{name} {b / 1024:g}" for name, b in r["parts"])
            if r.get("chains"):
                c = r["chains"]
                parts += f"; chains: mean {c['mean_chain']:.3f}, max {c['max_chain']}"
            lines.append(f"{r['table']:<11} {r['bytes'] / 1024:>9g} {r['useful_bytes'] / 1024:>10.2f} "
                         f"{r['bytes_per_page']:>8.1f}  {parts}")
        return "\n".join(lines) + "\n"


def pagetable_memory(space: str = "dense", trace: Optional[str] = None, format: Optional[str] = None,
                     phys_mb: int = 256, fold: bool = True,
                     kinds: Optional[list[str]] = None) -> PagetableReport:
    """Builds the organisations for ``space`` (``dense``/``sparse``) or for the
    pages ``trace`` touches, on a machine of ``phys_mb`` MB."""
    if phys_mb <= 0 or (phys_mb * (1 << 20)) % 4096:
        raise _engine.VmlabError(f"physical memory {phys_mb} MB: expected a positive number of MB")
    text = _engine.pagetable_memory(space=space, trace=trace, format=format,
                                    phys_frames=phys_mb * 256, fold=fold, kinds=kinds)
    return PagetableReport.from_json(text)


@click.command("pagetables", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--space", type=click.Choice(["dense", "sparse"]), default="dense", show_default=True,
              help="The preset address space (ignored with --trace).")
@click.option("--trace", "-t", "trace", metavar="FILE", help="Use the pages this trace touches instead.")
@click.option("--format", "-f", "fmt", type=click.Choice(["lackey", "din", "vmt"], case_sensitive=False),
              default=None, help="The trace's format (default: detected).")
@click.option("--phys-mb", default=256, show_default=True, type=click.IntRange(1, 4096),
              help="Physical memory; the hashed tables are sized from it.")
@click.option("--no-fold", is_flag=True,
              help="Keep a trace's pages above 2 GB where they are (the 32-bit tables then report an error).")
@click.option("--table", "kinds", multiple=True, type=click.Choice(pagetable_kinds()),
              help="Only this organisation (repeatable; default: all).")
@click.option("--json", "json_out", metavar="FILE|-", help="Write the table as JSON ('-' for stdout).")
@click.option("--csv", "csv_out", metavar="FILE|-", help="Write the table as CSV ('-' for stdout).")
def command(space: str, trace: Optional[str], fmt: Optional[str], phys_mb: int, no_fold: bool,
            kinds: tuple[str, ...], json_out: Optional[str], csv_out: Optional[str]) -> None:
    """Memory each page-table organisation needs for an address space.

    \b
      vmlab pagetables --space sparse      16 libraries, 16 thread stacks, 16 mmaps
      vmlab pagetables --trace gcc.vmt     the pages a trace touches
    """
    report = pagetable_memory(space=space, trace=trace, format=fmt, phys_mb=phys_mb, fold=not no_fold,
                              kinds=list(kinds) or None)
    to_stdout = False
    for dest, text in ((json_out, report.to_json), (csv_out, report.to_csv)):
        if dest == "-":
            click.echo(text(), nl=False)
            to_stdout = True
        elif dest:
            try:
                with open(dest, "w", encoding="utf-8") as f:
                    f.write(text())
            except OSError as e:
                raise click.ClickException(f"{dest}: cannot write: {e.strerror or e}") from e
    if not to_stdout:
        click.echo(report.table(), nl=False)
