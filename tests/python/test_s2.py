"""Study S2 (seed 000): calibration on Tables 1-2 + unmap only, predictions,
must-hold findings; must-show 3 and 4 of issue 4."""

import copy
import os
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from vmlab.studies import s2


@pytest.fixture(scope="module")
def data():
    ms = s2.measurements()
    model = s2.cost_model()
    return ms, model, s2.compute(ms, model)


def test_tables_1_and_2_within_10_percent(data):
    _, _, res = data
    cal = [r for r in res["rows"] if r["figure"].startswith(("Table 1", "Table 2"))]
    assert len(cal) == 20
    worst = max(abs(r["error_pct"]) for r in cal)
    assert worst < 10.0, worst
    assert all(r["kind"] == "fitted" for r in cal)
    # Of Table 3 only the null is fitted (with the pseudo fault); every size
    # and every per-page slope is predicted.
    kinds = {r["figure"]: r["kind"] for r in res["rows"] if r["figure"].startswith(("Table 3", "pseudo"))}
    fitted = {"Table 3 ipc-copy null", "pseudo page fault (IPC-move, 2 KB receive)"}
    assert {f for f, k in kinds.items() if k == "fitted"} == fitted
    assert len(kinds) == len(fitted) + sum(len(c) for c in s2.TABLE3.values()) - 1 + len(s2.TABLE3)


def test_must_hold_orderings_hold(data):
    _, _, res = data
    verdicts = {v.claim: v.holds for v in res["findings"]}
    assert verdicts["VAC: pure-copy < IPC-move < IPC-copy for 2-16 KB"]
    assert verdicts["VAC: eager IPC-move < pure-copy for 2-16 KB"]
    assert verdicts["pmap: case 2 costs more than cases 1 and 3 and leaves the new page cold"]


def test_pac_move_loses_to_copy_by_its_fitted_pseudo_faults(data):
    # With the pseudo fault fitted on the paper's ~400 us, lazy IPC-move on
    # the physically addressed machine pays ~400 us per page, more than two
    # warm copies: the claim fails, and it fails by the faults alone.
    ms, _, res = data
    verdicts = {v.claim: v.holds for v in res["findings"]}
    assert not verdicts["PAC: IPC-move < pure-copy beyond a few KB (4-16 KB)"]
    for kb in (4, 8, 16):
        m = s2._find(ms, "ipc", "ipc-move", kb * 1024, "pac")
        faults = m["components"][s2.FAULT_ENTRY]["traps"]
        assert faults == kb // 2
        fault_us = faults * res["paths"]["pseudo_fault_handler"] * res["all_params"]["cpi"] * res["cycle_ns"] / 1000
        move, copy_ = res["curves"][("pac", "ipc-move")][kb], res["curves"][("pac", "pure-copy")][kb]
        assert move > copy_ and move - fault_us < copy_
        assert res["curves"][("pac", "ipc-move-eager")][kb] < copy_


def test_changing_a_table3_target_changes_no_parameter(data):
    ms, model, res = data
    t3 = copy.deepcopy(s2.TABLE3)
    t3["pure-copy"][4] *= 3
    t3["ipc-move"][16] = 1
    t3["ipc-copy"][8] = 2
    other = s2.compute(ms, model, table3=t3)
    assert other["params"] == res["params"]
    assert other["paths"] == res["paths"]
    # The slopes are predictions: the model's does not move, the paper's does.
    slope = lambda r, v: next(x for x in r["slopes"] if x["variant"] == v)
    assert slope(other, "ipc-move")["vmlab"] == slope(res, "ipc-move")["vmlab"]
    assert slope(other, "ipc-move")["paper"] == (1 - 4225) / 4
    # ...while the comparison does see the new targets.
    row = lambda r, f: next(x for x in r["rows"] if x["figure"] == f)
    assert row(other, "Table 3 pure-copy 4 KB")["paper"] == 3 * 2282
    assert row(other, "Table 3 pure-copy 4 KB")["vmlab"] == row(res, "Table 3 pure-copy 4 KB")["vmlab"]


def test_the_null_and_the_fault_move_only_their_own_paths(data):
    ms, model, res = data
    t3 = copy.deepcopy(s2.TABLE3)
    t3["ipc-copy"][0] = 2 * 337
    other = s2.compute(ms, model, table3=t3, pseudo_fault=800.0)
    assert other["params"] == res["params"]  # the cost parameters never see them
    p0, p1 = res["paths"], other["paths"]
    per_us = 1000 / res["cycle_ns"] / res["all_params"]["cpi"]  # instructions per us of path
    assert p1["ipc_null"] - p0["ipc_null"] == pytest.approx(337 * per_us)
    assert p1["pseudo_fault_handler"] - p0["pseudo_fault_handler"] == pytest.approx(400 * per_us)
    row = lambda r, f: next(x for x in r["rows"] if x["figure"] == f)
    assert row(other, "Table 3 ipc-copy null")["vmlab"] == pytest.approx(2 * 337)
    assert row(other, "pseudo page fault (IPC-move, 2 KB receive)")["vmlab"] == pytest.approx(800)
    # Only the null changes: pure-copy takes no fault, so its slope stays.
    slope = lambda r, v: next(x for x in r["slopes"] if x["variant"] == v)["vmlab"]
    assert slope(other, "pure-copy") == pytest.approx(slope(res, "pure-copy"))
    # A lazy variant takes one fault per page, so its slope moves by the fault.
    assert slope(other, "ipc-move") == pytest.approx(slope(res, "ipc-move") + 400, rel=1e-6)
    # ...and nothing that takes no pseudo fault: eager IPC-move only gains the null.
    assert other["curves"][("vac", "ipc-move-eager")][16] == pytest.approx(
        res["curves"][("vac", "ipc-move-eager")][16] + 337)


def test_path_runs_counts_pseudo_faults_only():
    # One pseudo fault (3900-instruction path) and two ordinary ones (300 each).
    preset = {"ipc_null": 3301.0, "pseudo_fault_handler": 3900.0, "fault_handler": 300.0}
    m = dict(group="x", variant="y", components={s2.FAULT_ENTRY: dict(traps=3, instructions=3900 + 2 * 300),
                                                 s2.IPC_PATH: dict(traps=2, instructions=3301)})
    assert s2.path_runs(m, "pseudo_fault_handler", preset) == 1
    assert s2.path_runs(m, "ipc_null", preset) == 1
    assert s2.path_runs(dict(m, components={}), "pseudo_fault_handler", preset) == 0


def test_slopes_are_the_models_per_page_costs(data):
    ms, _, res = data
    us = lambda v, kb: s2.micros(s2._find(s2.with_paths(ms, res["preset_paths"], res["paths"]), "ipc", v, kb * 1024)
                                 ["counters"], res["all_params"], res["cycle_ns"])
    for sl in res["slopes"]:
        v = sl["variant"]
        assert sl["sizes"] == "8->16 KB"
        assert sl["vmlab"] == pytest.approx((us(v, 16) - us(v, 8)) / 4)
        assert sl["vmlab"] == pytest.approx((res["curves"][("vac", v)][16] - res["curves"][("vac", v)][8]) / 4)
        assert sum(sl["per_page"].values()) == pytest.approx(sl["vmlab"])
        assert sl["null_vmlab"] == pytest.approx(337.0)
    # The paper's slopes from Table 3 (seed 000): 1116, 856 and 867 us per extra 2 KB page.
    assert [round(sl["paper"]) for sl in res["slopes"]] == [1116, 856, 867]
    # Adding instructions to the copy loop of pure-copy's 16 KB message moves its slope by exactly that.
    changed = copy.deepcopy(ms)
    m = s2._find(changed, "ipc", "pure-copy", 16 * 1024)
    m["counters"]["instructions"] += 4000
    m["components"][s2.COPY_LOOP]["instructions"] += 4000
    other = s2.compute(changed, s2.cost_model())
    sl = lambda r: next(x for x in r["slopes"] if x["variant"] == "pure-copy")["vmlab"]
    assert sl(other) - sl(res) == pytest.approx(4000 * res["all_params"]["cpi"] * res["cycle_ns"] / 1000 / 4)


def test_every_slope_off_by_more_than_25_percent_names_its_mechanism(data):
    _, _, res = data
    by_figure = {x["figure"]: x for x in res["explanations"]}
    off = [sl for sl in res["slopes"] if abs(sl["error_pct"]) > s2.TOLERANCE_PCT]
    assert off
    for sl in off:
        text = by_figure[sl["figure"]]["text"]
        assert "mechanism the model lacks" in text or "No step the seed lists accounts" in text, sl["figure"]


def test_changing_a_calibration_target_does_change_the_fit(data):
    # The test above could pass trivially if the fit ignored its targets.
    ms, model, res = data
    saved = s2.TABLE1["dirty"][:]
    try:
        s2.TABLE1["dirty"][:] = [v * 2 for v in saved]
        assert s2.compute(ms, model)["params"]["writeback"] > res["params"]["writeback"] * 1.5
    finally:
        s2.TABLE1["dirty"][:] = saved


def test_nnls_on_a_hand_case():
    a = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    b = [1.0, -1.0, 0.0]
    # Unconstrained: x = (1/3 + ..); with x >= 0 the second is 0, first 0.5.
    assert list(s2._nnls(a, b)) == pytest.approx([0.5, 0.0])


_FIT = "from vmlab.studies import s2; print(repr(s2.compute(s2.measurements(), s2.cost_model())['all_params']))"


def test_the_fit_has_the_same_bits_whichever_blas_kernel_the_cpu_gets():
    # OpenBLAS picks its kernels by CPU; numpy's lstsq through it gave other
    # last bits on another machine, and so other S2 tables (golden). Forcing
    # two kernel families here stands for two machines (numpy, if pandas
    # brings it, reads OPENBLAS_CORETYPE when it is imported).
    got = {kernel: subprocess.run([sys.executable, "-c", _FIT], check=True, capture_output=True, text=True,
                                  env=dict(os.environ, OPENBLAS_CORETYPE=kernel)).stdout
           for kernel in ("Haswell", "Sandybridge")}
    assert got["Haswell"] == got["Sandybridge"], got


def test_command_writes_results_and_report(tmp_path):
    out = CliRunner().invoke(s2.command, ["--results", str(tmp_path / "r"), "--report", str(tmp_path / "p")])
    assert out.exit_code == 0, out.output
    assert "HOLDS" in out.output and "fitted" in out.output and "predicted" in out.output
    assert "explained from the model's breakdown" in out.output
    assert "Table 3 per page: fitted null plus predicted slope" in out.output
    for f in ("params.csv", "table3_slopes.csv", "comparison.csv", "ipc_curves.csv", "findings.csv", "pmap.csv", "explanations.csv",
              "components.csv"):
        assert (tmp_path / "r" / f).exists()
    for f in ("index.html", "verdicts.json", "ipc_vac.png", "ipc_pac.png", "calibration.png"):
        assert (tmp_path / "p" / f).exists()
    if shutil.which("valgrind") is None:  # the policies' real workloads cannot be captured
        assert "Consistency policies: not compared: S2 workload pipeline: cannot capture without valgrind" \
            in out.output
        return
    assert "Consistency policies (real multi-process workloads" in out.output
    for f in ("policies.csv", "policies_findings.csv"):
        assert (tmp_path / "r" / f).exists()
    assert (tmp_path / "p" / "policies.png").exists()


def test_every_figure_outside_25_percent_has_an_explanation(data):
    _, _, res = data
    by_figure = {x["figure"]: x for x in res["explanations"]}
    outside = [r for r in res["rows"] if abs(r["error_pct"]) > s2.TOLERANCE_PCT]
    assert outside, "nothing outside the tolerance: this test would check nothing"
    for r in outside:
        assert r["explained"] == "yes", r["figure"]
        x = by_figure[r["figure"]]
        assert x["text"] and x["components"], r["figure"]
    # Every Table 3 cell of the paper is either within 25 % or explained.
    t3 = [r for r in res["rows"] if r["figure"].startswith("Table 3")]
    assert len(t3) == sum(len(c) for c in s2.TABLE3.values()) + len(s2.TABLE3)  # the cells and the slopes
    assert all(abs(r["error_pct"]) <= s2.TOLERANCE_PCT or r["figure"] in by_figure for r in t3)
    # Within the tolerance means no explanation line.
    assert all(r["explained"] == "" for r in res["rows"] if abs(r["error_pct"]) <= s2.TOLERANCE_PCT)


def test_explanations_are_the_models_own_breakdown(data):
    _, _, res = data
    rows = {r["figure"]: r for r in res["rows"]}
    for x in res["explanations"]:
        # The mechanism parts add up to the predicted figure...
        assert sum(x["components"].values()) == pytest.approx(x["model"], rel=1e-9), x["figure"]
        assert x["model"] == pytest.approx(rows[x["figure"]]["vmlab"], rel=1e-9), x["figure"]
        if "ipc_path" in x:
            # ...and the gap is split without remainder.
            assert x["ipc_path"] + x["pseudo_faults"] + x["unattributed"] == pytest.approx(x["gap"], abs=1e-6)
            assert x["gap"] == pytest.approx(x["paper"] - x["model"], abs=1e-6)


def test_explanations_change_when_the_model_changes(data):
    ms, model, res = data
    extra = 1000  # instructions added to the IPC path of every message with data
    changed = copy.deepcopy(ms)
    for m in changed:
        if m["group"] == "ipc" and m["bytes"] > 0:
            m["counters"]["instructions"] += extra
            m["components"].setdefault(s2.IPC_PATH, dict.fromkeys(m["counters"], 0))["instructions"] += extra
    other = s2.compute(changed, model)
    assert other["params"] == res["params"]  # the calibration set is untouched
    assert other["paths"] == res["paths"]  # so is the null ipcSend the IPC path is fitted on
    us = extra * res["all_params"]["cpi"] * res["cycle_ns"] / 1000
    f = "Table 3 pure-copy 2 KB"
    before = next(x for x in res["explanations"] if x["figure"] == f)
    after = next(x for x in other["explanations"] if x["figure"] == f)
    assert after["model"] == pytest.approx(before["model"] + us)
    assert after["components"][s2.IPC_PATH] == pytest.approx(before["components"][s2.IPC_PATH] + us)
    # The null ipcSend did not grow (and is fitted), so [A] stays and the
    # unattributed part shrinks by the added cost.
    assert after["ipc_path"] == pytest.approx(before["ipc_path"], abs=1e-6)
    assert after["unattributed"] == pytest.approx(before["unattributed"] - us)


def test_unmap_explanation_says_why_the_fit_misses_it(data):
    _, _, res = data
    x = next(x for x in res["explanations"] if x["figure"].startswith("unmap"))
    assert "cpi" in x["text"] and "Table 2" in x["text"]
    ms = s2.measurements()
    c = s2._find(ms, "unmap", "no-flush", 2048)["counters"]
    # The unmap runs no routine call, cache op, miss, write-back or trap:
    # cpi is the only fitted cost that multiplies it.
    assert (c["flush_calls"], c["copy_calls"], c["cache_ops"], c["misses"], c["writebacks"], c["traps"]) == (0,) * 6
