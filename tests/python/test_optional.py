"""Optional packages (vmlab/optional.py): a missing one is a VmlabError
naming the extra where it is needed, and a one-line note where only a
study's figures are lost. The packages are hidden by a None entry in
sys.modules, which makes their import fail as if they were not installed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import vmlab
from vmlab import optional
from vmlab.studies import s1, s2


def _hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def test_a_needed_package_that_is_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide(monkeypatch, "pyarrow", "pyarrow.parquet")
    with pytest.raises(vmlab.VmlabError, match=r"^--parquet needs pyarrow, which is not installed: "
                                               r"pip install 'vmlab\[parquet\]'$"):
        optional.need("pyarrow.parquet", "--parquet")
    assert optional.need("json", "anything").dumps([1]) == "[1]"


def test_study_figures_are_skipped_with_one_note(monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path) -> None:
    _hide(monkeypatch, "matplotlib", "matplotlib.figure")
    assert optional.figure_class("the S9 figures") is None
    assert capsys.readouterr().err == ("vmlab: note: the S9 figures skipped: matplotlib is not installed "
                                       "(pip install 'vmlab[report]')\n")
    # S1 without matplotlib: the tables and the page, no figure.
    from test_s1 import GRID, _rows

    rows = _rows()
    assert s1.figures(rows, GRID) == []
    written = s1.write_outputs(rows, GRID, tmp_path / "r1", tmp_path / "p1")
    assert {p.name for p in written} >= {"runs.csv", "index.html"}
    assert not [p for p in written if p.suffix == ".png"]
    assert "<img" not in (tmp_path / "p1" / "index.html").read_text()
    # S2 without matplotlib: every table, no figure.
    model = s2.cost_model()
    written = s2.write_outputs(s2.compute(s2.measurements(), model), model, str(tmp_path / "r"), str(tmp_path / "p"))
    names = sorted(Path(p).name for p in written)
    assert "findings.csv" in names and "index.html" in names
    assert not [n for n in names if n.endswith(".png")]
    assert "<img" not in (tmp_path / "p" / "index.html").read_text()
