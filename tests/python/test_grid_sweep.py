"""Grid sweeps: `vmlab.sweep` (the API), `vmlab sweep` (the command), the
one-pass binding, and every malformed grid file of tests/corpus/grid."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import vmlab_command, write_random_trace
from test_cli import assert_one_line_error
import vmlab
from vmlab import _engine

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "grid"
BAD_GRIDS = sorted(CORPUS.glob("*.toml"))
SAMPLE_TRACE = Path(__file__).resolve().parents[2] / "crates" / "trace" / "tests" / "data" / "sample.lackey"
GRIDS = Path(__file__).resolve().parents[2] / "bench" / "grids"

# jm-base's L2 D at three sizes and two associativities: one pass per trace.
L2_GRID = {"machine": "jm-base", "vary": {"l2d": {"size": ["16K", "64K", "256K"], "assoc": [1, 4]}}}


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("grid")
    vmt = d / "t.vmt"
    vmlab.convert_trace(write_random_trace(d / "t.lackey", 60_000, seed=7), vmt)
    return vmt


def test_the_api_returns_a_row_per_point_trace_and_cache_equal_to_single_runs(trace):
    df = vmlab.sweep(L2_GRID, [trace], jobs=1)
    assert len(df) == 6 * 4  # six points, jm-base's four caches
    assert set(df["cache"]) == {"l1i", "l1d", "l2i", "l2d"}
    for size in ("16K", "256K"):
        for assoc in (1, 4):
            alone = vmlab.Machine.from_preset("jm-base", l2d_size=size, l2d_assoc=assoc).run(trace)
            row = df[(df["point.l2d.size"] == size) & (df["point.l2d.assoc"] == str(assoc)) & (df["cache"] == "l2d")]
            assert len(row) == 1
            r = row.iloc[0]
            assert (r["accesses"], r["misses"], r["writebacks"]) == (
                alone.accesses("l2d"), alone.misses("l2d"), alone.caches["l2d"]["stats"]["writebacks"])
            assert r["memory_reads"] == alone.memory["reads"]
    # 64K 4-way and 16K direct-mapped have 1,024 sets of 16-byte lines; LRU
    # with more ways per set never misses more (inclusion).
    l2d = df[df["cache"] == "l2d"].set_index(["point.l2d.size", "point.l2d.assoc"])["misses"]
    assert l2d[("64K", "4")] < l2d[("16K", "1")]


def test_the_planner_shares_one_pass_and_says_why_not():
    base = json.loads(_engine.load_config("jm-base", []))
    configs = [_engine.load_config("jm-base", [f"l2d.size={s}"]) for s in ("16K", "32K", "64K")]
    configs.append(_engine.load_config("jm-base", ["l1d.size=16K"]))
    plan = _engine.onepass_plan(configs)
    assert plan == [("l2d", [0, 1, 2]), (None, [3])]
    assert "not in the last level" in _engine.onepass_refusal(json.dumps(base), "l1d")
    fifo = _engine.load_config("jm-base", ["l2d.replacement=fifo", "l2d.assoc=2"])
    assert "not LRU" in _engine.onepass_refusal(fifo, "l2d")


def test_onepass_run_equals_single_runs_through_the_binding(trace):
    configs = [_engine.load_config("jm-base", [f"l2d.size={s}", "l2d.assoc=2"]) for s in ("32K", "128K")]
    together = [json.loads(r) for r in _engine.onepass_run(configs, "l2d", str(trace))]
    alone = [json.loads(_engine.run(c, str(trace))) for c in configs]
    assert together == alone


def _sweep(cli, grid: Path, trace: Path, out: str, *extra) -> subprocess.CompletedProcess:
    return cli("sweep", grid, "--trace", trace, "-o", out, "--jobs", "1", *extra)


def test_the_command_writes_a_table_and_curves_and_resumes(cli, tmp_path, trace):
    grid = tmp_path / "g.toml"
    grid.write_text('machine = "jm-base"\n[vary]\nl2d.size = ["16K", "64K", "256K"]\nl2d.assoc = [1, 4]\n')
    p = _sweep(cli, grid, trace, "out")
    assert p.returncode == 0, p.stderr
    assert "6 runs, 0 already done, 1 batches" in p.stderr  # one pass for the whole trace
    import pandas as pd

    df = pd.read_parquet(tmp_path / "out" / "sweep.parquet")
    assert len(df) == 24 and (tmp_path / "out" / "curves.png").stat().st_size > 10_000
    again = _sweep(cli, grid, trace, "out")
    assert "6 runs, 6 already done, 0 batches" in again.stderr
    assert pd.read_parquet(tmp_path / "out" / "sweep.parquet").equals(df)
    # Another trace at the same path: nothing stored is reused.
    changed = tmp_path / "changed.vmt"
    vmlab.convert_trace(write_random_trace(tmp_path / "c.lackey", 20_000, seed=8), changed)
    os.replace(changed, tmp_path / "t2.vmt")
    first = _sweep(cli, grid, tmp_path / "t2.vmt", "out2")
    vmlab.convert_trace(write_random_trace(tmp_path / "d.lackey", 20_000, seed=9), changed)
    os.replace(changed, tmp_path / "t2.vmt")
    rerun = _sweep(cli, grid, tmp_path / "t2.vmt", "out2")
    assert "6 runs, 0 already done" in rerun.stderr and "6 stored runs of another trace" in rerun.stderr, rerun.stderr
    assert first.returncode == rerun.returncode == 0


def test_an_interrupted_sweep_resumes_from_the_stored_runs(tmp_path, medium_trace):
    # FIFO levels cannot share a pass: one batch per point, so there is a
    # moment with some batches stored and others not.
    grid = tmp_path / "g.toml"
    grid.write_text('machine = "jm-base"\n[set]\nl2d.replacement = "fifo"\n'
                    '[vary]\nl2d.size = { from = "16K", to = "8M", factor = 2 }\nl2d.assoc = [2, 4, 8]\n')
    cmd = [*vmlab_command(), "sweep", str(grid), "--trace", str(medium_trace), "-o", "out", "--jobs", "1",
           "--no-plot"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if "batch 2/" in line:
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130, "".join(lines) + rest
    kept = int(re.search(r"interrupted: (\d+) runs kept", rest).group(1))
    assert 2 <= kept < 30, rest
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"30 runs, {kept} already done, {30 - kept} batches" in done.stderr, done.stderr


def test_the_sample_grids_load():
    for path in sorted(GRIDS.glob("*.toml")):
        if path.name == "one-level.toml":
            continue  # a machine, not a grid
        g = vmlab.Grid.load(path)
        assert len(g.points()) >= 2
    assert len(vmlab.Grid.load(GRIDS / "l2-curve-100.toml").points()) == 100


def test_matplotlib_missing_is_one_line_naming_the_extra(cli, tmp_path, trace):
    grid = tmp_path / "g.toml"
    grid.write_text('machine = "jm-base"\n[vary]\nl2d.size = ["16K", "32K"]\n')
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "matplotlib.py").write_text("raise ImportError('blocked for the test')\n")
    env = dict(os.environ, PYTHONPATH=f"{blocker}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    p = subprocess.run([*vmlab_command(), "sweep", str(grid), "--trace", str(trace), "-o", "o"], cwd=tmp_path,
                       capture_output=True, text=True, env=env, timeout=300)
    assert_one_line_error(p, "vmlab[report]")


def test_the_grid_corpus_is_there():
    assert len(BAD_GRIDS) >= 15


@pytest.mark.parametrize("path", BAD_GRIDS, ids=lambda p: p.name)
def test_every_bad_grid_is_one_line_naming_the_file_and_key(cli, path):
    expect = path.read_text().splitlines()[0].removeprefix("# expect: ")
    p = cli("sweep", path, "--trace", SAMPLE_TRACE, "-o", "out", "--no-plot")
    assert_one_line_error(p, str(path), expect)


# -- TLB sweeps ----------------------------------------------------------------
TLB_GRID = {"kind": "tlb", "set": {"tlb": {"asid_tags": False, "page_size": "1K"}},
            "vary": {"tlb": {"entries": [4, 8, 16, 64], "assoc": [1, 4, "full"]}}}


def test_a_tlb_grid_is_one_pass_equal_to_each_point_alone(trace):
    lines = []
    df = vmlab.sweep(TLB_GRID, [trace], jobs=1, log=lines.append)
    assert len(df) == 12 and set(df["cache"]) == {"tlb"}
    assert any("1 batches" in line for line in lines), lines
    assert not df["sampled"].any()
    for _, r in df.iterrows():
        point = _engine.tlb_load_config(["tlb.asid_tags=false", "tlb.page_size=1K",
                                         f"tlb.entries={r['point.tlb.entries']}", f"tlb.assoc={r['point.tlb.assoc']}"])
        alone = json.loads(_engine.tlb_run([point], str(trace), False)[0])["stats"]
        assert (r["hits"], r["misses"], r["evictions"], r["purged"]) == (
            alone["hits"], alone["misses"], alone["evictions"], alone["purged"])
    full = df[df["point.tlb.assoc"] == "full"].set_index("entries")["misses"]
    assert full[64] < full[4]
    assert set(df["run_kind"]) == {"sweep.tlb/1"}


def test_tlb_points_name_their_bad_keys():
    with pytest.raises(vmlab.VmlabError, match="tlb.size"):
        _engine.tlb_load_config(["tlb.size=8"])
    with pytest.raises(vmlab.VmlabError, match="cannot be split"):
        _engine.tlb_load_config(["tlb.entries=6", "tlb.assoc=4"])
    with pytest.raises(vmlab.VmlabError, match="sampling is for cache grids"):
        vmlab.sweep(TLB_GRID, [SAMPLE_TRACE], sample=0.5)
    fifo = _engine.tlb_load_config(["tlb.replacement=fifo", "tlb.assoc=2", "tlb.entries=8"])
    assert _engine.tlb_refusal(fifo) == "the TLB's replacement is not LRU"


# -- sampled sweeps (SHARDS) -------------------------------------------------------
def test_a_sampled_sweep_is_marked_and_never_stored_as_exact(tmp_path, trace):
    out = tmp_path / "o"
    exact = vmlab.sweep(L2_GRID, [trace], out=out, jobs=1)
    lines = []
    sampled = vmlab.sweep(L2_GRID, [trace], out=out, jobs=1, sample=0.5, log=lines.append)
    # Nothing of the exact runs in the same store stands for a sampled one.
    assert any("0 already done" in line for line in lines), lines
    l2d = sampled[sampled["cache"] == "l2d"]
    assert l2d["sampled"].all() and set(l2d["sample_rate"]) == {0.5}
    assert set(l2d["run_kind"]) == {"sweep.sampled/1"}
    others = sampled[sampled["cache"] != "l2d"]
    assert not others["sampled"].any() and others["sample_rate"].isna().all()
    assert not set(sampled["run_key"]) & set(exact["run_key"])
    # The levels above the sampled cache are exact; its accesses too.
    key = ["point.l2d.size", "point.l2d.assoc", "cache"]
    both = exact.merge(sampled, on=key, suffixes=("", "_s"))
    assert (both["accesses"] == both["accesses_s"]).all()
    above = both[both["cache"] != "l2d"]
    assert (above["misses"] == above["misses_s"]).all()
    # A rerun finds every sampled run stored under its own key.
    again = []
    vmlab.sweep(L2_GRID, [trace], out=out, jobs=1, sample=0.5, log=again.append)
    assert any("6 already done" in line for line in again), again


# The error bound of the sampled mode on a real trace, at R = 0.1 on the
# 32-point L1 D curve of bench/grids/l1d-curve.toml. Measured with
# `shards_error` on database-small over hash seeds 0-31 (docs/performance.md,
# "Sampled sweeps"): the worst seed's mean |miss-ratio error| was MEAN_BOUND,
# the largest single error MAX_BOUND. Checked here on seeds that were not
# measured (100-103), so the bound is a prediction the test can refute.
MEAN_BOUND = 0.022  # measured: 0.02198 (seed 11); the 32 seeds averaged 0.01355
MAX_BOUND = 0.118  # measured: 0.11727


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("sqlite3") is None,
                    reason="needs valgrind and sqlite3 to capture the database trace")
def test_the_sampled_curve_stays_within_its_measured_bound_on_a_real_trace():
    from vmlab import workloads
    from vmlab.grid import Grid

    trace = str(workloads.ensure("database", "small", progress=False))
    configs = [c for _, c in Grid.load(GRIDS / "l1d-curve.toml").configs(log=lambda s: None)]

    def ratios(results):
        out = []
        for r in map(json.loads, results):
            st = next(c["stats"] for c in r["caches"] if c["name"] == "l1d")
            kinds = ("ifetch", "read", "write")
            out.append(sum(st[k]["misses"] for k in kinds) / sum(st[k]["accesses"] for k in kinds))
        return out

    exact = ratios(_engine.onepass_run(configs, "l1d", trace))
    means, worst = [], 0.0
    for seed in range(100, 104):
        errors = [abs(e - s) for e, s in
                  zip(exact, ratios(_engine.onepass_run(configs, "l1d", trace, sample=(0.1, seed))))]
        means.append(sum(errors) / len(errors))
        worst = max(worst, max(errors))
    assert sum(means) / len(means) <= MEAN_BOUND, means
    assert worst <= MAX_BOUND
