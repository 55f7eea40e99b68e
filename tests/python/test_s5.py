"""Study S5 (seed 001): the lmbench table under flush and fast address-space
switching, flush costs, recycling, sharing, the TLB-coverage table, and
bad input (issue 23, must-show 1)."""

import json

import pytest
from click.testing import CliRunner

from vmlab import _engine
from vmlab.studies import s5


@pytest.fixture(scope="module")
def res():
    return s5.compute()


def test_every_run_is_consistent(res):
    assert res["violations"] == 0
    assert res["runs"] > 60


def test_switching_heavy_gains_an_order_of_magnitude_creation_little(res):
    by = {r["benchmark"]: r for r in res["rows"]}
    for name in ("pipe", "fifo", "unix"):
        assert by[name]["ratio"] >= 5, by[name]
        assert by[name]["flushes/op (orig)"] == 2 and by[name]["flushes/op (fast)"] == 0
    for name in ("fork", "exec", "shell"):
        assert 1.0 <= by[name]["ratio"] <= 1.25, by[name]
    # Bandwidth: a pipe switches per 4 KB page, a socket per 64 KB write.
    assert by["bw pipe"]["ratio"] > by["bw unix"]["ratio"] > 1.0


def test_verdicts_and_explained_failures(res):
    verdicts = s5.findings(res)
    failed = {v.claim for v in verdicts if not v.holds}
    explained = {f"lmbench {x['benchmark']}: fast/original ratio within 2x of the seed's" for x in res["explanations"]}
    assert failed <= explained, failed - explained
    assert all(x["why"] != "not explained" for x in res["explanations"])


def test_recycling_past_the_domains(res):
    rings = {r["processes"]: r for r in res["rings"]}
    # 13 processes and the shared C library need 14 of Linux's 13 domains.
    assert rings[8]["fass-linux recycles/op"] == 0
    assert rings[13]["fass-linux recycles/op"] > 0
    assert rings[24]["fass-linux us/hop"] < rings[24]["flush us/hop"]


def test_tlb_coverage_table_agrees(res):
    rows = [r for r in res["coverage"] if r["agrees"] is not None]
    assert len(rows) == 7 and all(r["agrees"] for r in rows), rows


def test_flush_costs(res):
    direct = [f["cache_direct"] for f in res["flush"]]
    assert max(direct) <= 18_000 * 1.2 and min(direct) >= 1_000
    # More dirty lines, more direct cost; a larger working set, more indirect.
    assert direct[-1] > direct[-2] > direct[2]
    assert res["flush"][-1]["cache_indirect"] > res["flush"][0]["cache_indirect"]


def test_command_writes_the_page(tmp_path):
    out = CliRunner().invoke(s5.command, ["--results", str(tmp_path / "r"), "--report", str(tmp_path / "p")])
    assert out.exit_code == 0, out.output
    doc = json.loads((tmp_path / "p" / "verdicts.json").read_text())
    assert doc["study"] == "s5" and len(doc["verdicts"]) == 17
    assert (tmp_path / "r" / "rows.csv").exists()


def test_bad_input_is_one_error():
    with pytest.raises(_engine.VmlabError, match="flush, asid, fass-linux"):
        _engine.switch_run(s5.SA1100, "lazy", json.dumps({"name": "x", "processes": 1, "op": [], "warmup": 0, "ops": 1}))
    with pytest.raises(_engine.VmlabError, match="program"):
        _engine.switch_run(s5.SA1100, "flush", json.dumps({"name": "x", "processes": 1, "op": [{"do": "dance"}],
                                                          "warmup": 0, "ops": 1}))
    with pytest.raises(_engine.VmlabError, match="needs PID relocation"):
        _engine.switch_run(s5.MODERN, "fass-linux", json.dumps({"name": "x", "processes": 1, "op": [],
                                                                "warmup": 0, "ops": 1}))
    with pytest.raises(_engine.VmlabError, match="unknown switch preset"):
        _engine.switch_preset("pdp-11")
