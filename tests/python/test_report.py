"""vmlab.report: sections, tables and figures written to an HTML folder."""

from __future__ import annotations

import os

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


def test_index_gathers_each_studys_verdicts(tmp_path, tiny_trace):
    from vmlab.report import Verdict, read_verdicts, write_study

    rep = Report("Study S9: a hand-made study")
    rep.section("Numbers").table([{"x": 1, "y": 2.5}])
    judged = [Verdict("A < B", True, "A 1, B 2", "A 3, B 4"), Verdict("C <&> D", False, "C 5, D 4")]
    written = write_study(str(tmp_path / "r" / "s9"), "s9", rep, judged)
    assert [os.path.basename(p) for p in written] == ["index.html", "verdicts.json"]
    page = (tmp_path / "r" / "s9" / "index.html").read_text()
    assert 'href="../index.html"' in page and "<style>" in page
    back = read_verdicts(str(tmp_path / "r" / "s9" / "verdicts.json"))
    assert back.study == "s9" and back.page == "index.html" and list(back.verdicts) == judged
    index = open(presets_report([str(tiny_trace)], ["jm-base"], str(tmp_path / "r" / "index.html"),
                                classify=False), encoding="utf-8").read()
    assert '<a href="s9/index.html">Study S9: a hand-made study</a>' in index
    assert "1 of 2 findings hold" in index
    assert index.count('class="verdict HOLDS"') == 1 and index.count('class="verdict FAILS"') == 1
    assert "C &lt;&amp;&gt; D" in index and "A 3, B 4" in index


def test_a_damaged_verdicts_file_is_one_error_line(cli, tmp_path, tiny_trace):
    (tmp_path / "rep" / "s1").mkdir(parents=True)
    bad = tmp_path / "rep" / "s1" / "verdicts.json"
    for text, says in (('{"format": 1, "study": "s1"', "not JSON at line 1"),
                       ('{"format": 7}', "format is 7"),
                       ('{"format": 1, "study": "s1", "title": "t", "page": "index.html", '
                        '"verdicts": [{"claim": "c", "verdict": "MAYBE", "measured": "m"}]}', "wrong field 'MAYBE'")):
        bad.write_text(text)
        out = cli("report", "-t", tiny_trace, "-m", "jm-base", "-o", "rep/index.html", "-q")
        assert out.returncode == 2, out.stderr
        line = out.stderr.strip()
        assert line.startswith("vmlab: error: ") and "verdicts.json" in line and says in line, line
        assert "\n" not in line
