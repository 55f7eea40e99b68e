"""Study S1 in its `test` grid: a prefix of the small real database trace,
every scheme; and the translation binding's errors."""

import json
import shutil

import pytest

from vmlab import _engine
from vmlab.studies import s1


def test_vm_config_errors_name_the_key():
    with pytest.raises(_engine.VmlabError, match="unknown key `sise`"):
        _engine.vm_load_config("jacob-mudge", ["l1d.sise=8K"])
    with pytest.raises(_engine.VmlabError, match="scheme"):
        _engine.vm_load_config("jacob-mudge", ["scheme=vax"])
    with pytest.raises(_engine.VmlabError, match="not a translation preset"):
        _engine.vm_load_config("no-such-preset", [])


def test_points_are_unique_and_cover_every_scheme():
    pts = s1.points(s1.GRIDS["test"])
    assert len({p.key() for p in pts}) == len(pts)
    assert {p.scheme for p in pts} == set(s1.ALL_SCHEMES)


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("sqlite3") is None,
                    reason="needs valgrind and sqlite3 to capture the database trace")
def test_s1_test_grid_runs_resumes_and_reports(tmp_path):
    from vmlab import workloads

    grid = s1.GRIDS["test"]
    trace = str(workloads.ensure("database", "small", progress=False))
    rows = s1.sweep(grid, {"database": trace}, tmp_path / "r", jobs=1, log=lambda s: None)
    assert len(rows) == len(s1.points(grid))
    by = {(r["scheme"], r["role"]): r for r in rows if r["role"] == "base"}
    # NOTLB costs nothing; every other scheme costs something on a real trace.
    assert by[("notlb", "base")]["vmcpi"] == 0.0
    for s in s1.SWEPT_SCHEMES:
        assert by[(s, "base")]["vmcpi"] > 0, s
    # Every scheme sees the same user instructions.
    assert len({r["user_instructions"] for r in rows}) == 1
    # A second sweep finds everything done and runs nothing.
    calls = []
    again = s1.sweep(grid, {"database": trace}, tmp_path / "r", jobs=1, log=calls.append)
    assert "0 batches" in calls[0] and len(again) == len(rows)
    # A crash mid-write leaves a cut line; it is ignored and that point reruns.
    store = tmp_path / "r" / "runs.jsonl"
    text = store.read_text().splitlines()
    store.write_text("\n".join(text[:-1]) + "\n" + text[-1][: len(text[-1]) // 2])
    calls.clear()
    again = s1.sweep(grid, {"database": trace}, tmp_path / "r", jobs=1, log=calls.append)
    assert "1 batches" in calls[0] and len(again) == len(rows)
    text = s1.render(rows, grid)
    assert "Table 1" in text and "Table 4" in text and "Table 5" in text
    assert sum(line.strip().startswith(("HOLDS", "FAILS")) for line in text.splitlines()) == 5
    written = s1.write_outputs(rows, grid, tmp_path / "r", tmp_path / "rep", text)
    assert (tmp_path / "rep" / "fragment.html").exists()
    assert any(p.suffix == ".png" for p in written)
