"""vmlab.report: sections, tables and figures written to an HTML folder."""

from __future__ import annotations

import vmlab
from vmlab.report import Report, miss_rate_figure, presets_report


def test_report_with_table_and_figure(tmp_path, tiny_preset, tiny_trace):
    r = vmlab.Machine.from_file(tiny_preset).run(tiny_trace)
    rep = Report("Test report", "A report written by a test.")
    sec = rep.section("Tiny", "One run.")
    sec.table(r.to_pandas())
    sec.table(r.to_polars(), ["cache", "kind", "misses"])
    sec.figure(miss_rate_figure([r]), "Miss rate")
    sec.pre(r.table())
    path = rep.write(str(tmp_path / "out" / "index.html"))
    html = open(path, encoding="utf-8").read()
    assert "<h2" in html and "Tiny" in html and "<table>" in html and 'src="figure-1.png"' in html
    assert (tmp_path / "out" / "figure-1.png").stat().st_size > 1000


def test_presets_report(tmp_path, medium_trace):
    path = presets_report([str(medium_trace)], ["jm-base", "mips-r4000"], str(tmp_path / "r" / "index.html"))
    html = open(path, encoding="utf-8").read()
    assert "jm-base" in html and "mips-r4000" in html
    assert (tmp_path / "r" / "figure-1.png").exists() and (tmp_path / "r" / "figure-2.png").exists()


def test_report_cli(cli, tmp_path, tiny_trace):
    cli("report", "-t", tiny_trace, "-m", "jm-base", "-o", "rep/index.html", "-q", check=True)
    assert (tmp_path / "rep" / "index.html").exists()
