"""Study S1 in its `test` grid: a prefix of the small real database trace,
every scheme; and the translation binding's errors."""

import importlib.util
import json
import os
import shutil
import subprocess
import time
import typing

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
    written = s1.write_outputs(rows, grid, tmp_path / "r", tmp_path / "rep")
    assert (tmp_path / "rep" / "index.html").exists() and (tmp_path / "rep" / "verdicts.json").exists()
    assert any(p.suffix == ".png" for p in written)


# -- diagnosis of failing findings, on hand-made rows and a hand-made trace ----------

INSTR = 100_000  # 100 thousand instructions: cycles per 1,000 = cycles / 100


def _row(trace, scheme, l1, l2, lines, role="sweep", tlb=128, **kw):
    r = {"trace": trace, "scheme": scheme, "l1_kb": l1, "l2_kb": l2, "l1_line": lines[0], "l2_line": lines[1],
         "tlb_entries": tlb, "role": role, "user_instructions": INSTR, "folded_regions": 8,
         "itlb_misses": 0, "dtlb_misses": 0, "writeback_translations": 0}
    for c in s1.COMPONENTS:
        r[f"cpi_{c}"] = r[f"freq_{c}"] = 0.0
    for side in ("i_side", "d_side"):
        for f in s1.SIDE_FIELDS:
            r[f"{side}_{f}"] = 0
    r.update(kw)
    r["vmcpi"] = sum(r[f"cpi_{c}"] for c in s1.COMPONENTS)
    r["vm_cycles"] = round(r["vmcpi"] * INSTR)
    return r


GRID = s1.Grid(l1_kb=(1, 128), l2_kb=(512, 1024), lines=((16, 16), (16, 64), (64, 64)),
               traces=("dense", "sparse"), size="small", max_events=1000)


def _rows():
    """ULTRIX: uhandler 0.01 + upte-MEM (0.03 at 16 B L2 lines, 0.02 at 64 B) +
    handler-L2 (0.01 at 16 B L1 lines, 0.005 at 64 B). MACH: the same plus
    handler-MEM 0.003 and rpte-MEM 0.001. SOFTVM: 0.3 CPI at 512K/512K L2 and
    0.2 at 1M/1M, 150 + 300 user L2 misses at 512K/512K and 100 + 300 at 1M/1M."""
    rows = []
    for t in GRID.traces:
        for l1 in GRID.l1_kb:
            for l2 in GRID.l2_kb:
                for ln in GRID.lines:
                    u = {"cpi_uhandler": 0.01, "freq_uhandler": 0.001,
                         "cpi_upte-MEM": 0.03 if ln[1] == 16 else 0.02,
                         "freq_upte-MEM": (0.03 if ln[1] == 16 else 0.02) / 500,
                         "cpi_handler-L2": 0.01 if ln[0] == 16 else 0.005}
                    rows.append(_row(t, "ultrix", l1, l2, ln, **u))
                    rows.append(_row(t, "mach", l1, l2, ln, **u, **{"cpi_handler-MEM": 0.003, "cpi_rpte-MEM": 0.001,
                                                                     "freq_khandler": 8 / INSTR,
                                                                     "freq_rhandler": 1 / INSTR}))
                    big = l2 == s1.FINDING1_MIN_L2_KB
                    rows.append(_row(t, "softvm", l1, l2, ln, **{
                        "cpi_uhandler": 0.05 if big else 0.06, "freq_uhandler": 0.005 if big else 0.006,
                        "cpi_upte-MEM": 0.15 if big else 0.24,
                        "i_side_l2_miss_tlb_hit": 100 if big else 150, "d_side_l2_miss_tlb_hit": 300}))
        # 64-entry TLBs at L1 128 KB, L2 512K/512K, 16/64 lines: 50 -> 200 misses, 4,000 -> 6,400 cycles.
        base = next(r for r in rows if (r["trace"], r["scheme"], r["l1_kb"], r["l2_kb"], r["l1_line"], r["l2_line"])
                    == (t, "ultrix", 128, 512, 16, 64))
        base.update(itlb_misses=10, dtlb_misses=40)
        assert base["vm_cycles"] == 4000
        rows.append(_row(t, "ultrix", 128, 512, (16, 64), role="tlb64", tlb=64, itlb_misses=50, dtlb_misses=150,
                         **{"cpi_uhandler": 0.064}))
    return rows


FOOTPRINT = {
    "dense": {"events": 1000, "lines": {"16": {"i": 100, "d": 250}, "64": {"i": 50, "d": 120}},
              "read_first_lines": {"16": {"i": 100, "d": 200}, "64": {"i": 50, "d": 100}},
              "pte_lines": {"16": 5, "64": 2}, "pages": {"i": 5, "d": 15, "all": 20}, "regions_4m": 8,
              "lru_tlb_misses": {"i": {"48": 30, "112": 10}, "d": {"48": 90, "112": 30}},
              "whole_trace_regions_4m": 8},
}
FOOTPRINT["sparse"] = dict(FOOTPRINT["dense"], whole_trace_regions_4m=144)


def test_every_failing_finding_gets_a_diagnosis():
    rows = _rows()
    verdicts = s1.findings(rows, GRID)
    diag = s1.diagnose(rows, GRID, FOOTPRINT, s1.CostModel())
    failing = {i for i, (_, ok, _) in enumerate(verdicts, 1) if not ok}
    assert failing == {1, 2, 3, 4, 5}
    assert set(diag) == failing
    for i in failing:
        text, _ = diag[i]
        assert text and all(line.strip() for line in text), i
        assert "no diagnosis" not in " ".join(text), i
    # And with no rows at all: every finding fails and says what is missing.
    empty = s1.diagnose([], GRID)
    assert set(empty) == {1, 2, 3, 4, 5}
    assert all(empty[i][0] for i in empty)
    # The printed report carries them under the verdicts.
    text = s1.render(rows, GRID, FOOTPRINT, s1.CostModel())
    assert sum(line.strip().startswith("why:") for line in text.splitlines()) == sum(len(d[0]) for d in diag.values())


def test_findings_are_judged_per_trace_with_the_paper_beside_them():
    rows = _rows()
    judged = s1.per_trace(rows, GRID)
    assert [(f.number, f.trace) for f in judged] == [(i, t) for i in range(1, 6) for t in GRID.traces]
    # Finding 4 on each trace on its own: MACH = ULTRIX x 1.10 is "similar" on
    # the dense trace and short of the paper's 2x on the sparse (WINWORD) one.
    f4 = {f.trace: f for f in judged if f.number == 4}
    assert f4["dense"].ok and not f4["sparse"].ok
    assert "MACH/ULTRIX 1.10x" in f4["dense"].figures and "MACH/ULTRIX 1.10x" in f4["sparse"].figures
    # Finding 5 "for small L1 caches": the 128 KB rows do not enter.
    assert all(f.figures.startswith("L1 1 KB:") for f in judged if f.number == 5)
    # Finding 3: the TLB-miss ratio beside the VMCPI ratio (50 -> 200 misses, 4,000 -> 6,400 cycles).
    assert "VMCPI ULTRIX 1.60x" in judged[4].figures and "TLB misses ULTRIX 4.00x" in judged[4].figures
    text = s1.render(rows, GRID, FOOTPRINT, s1.CostModel())
    assert sum(line.strip().startswith(("HOLDS", "FAILS")) for line in text.splitlines()) == 10
    assert text.count("    paper: ") == 5 and text.count("    bound: ") == 2
    assert len(s1.verdicts(rows, GRID)) == 10


def test_softvm_write_backs_are_a_named_variant_not_the_default():
    pts = s1.points(s1.GRIDS["test"])
    assert all("retranslate_writebacks=true" not in p.overrides() for p in pts if p.role != "table4-wb")
    (wb,) = [p for p in pts if p.role == "table4-wb"]
    assert wb.scheme == "softvm" and "retranslate_writebacks=true" in wb.overrides()
    (t4,) = [p for p in pts if p.role == "table4"]
    assert (t4.l1_kb, t4.l2_kb, t4.l1_line, t4.l2_line) == (8, 512, *s1.TABLE4_LINES) == (8, 512, 16, 32)


def test_diagnosis_of_finding_2_splits_runs_from_cost_and_finds_the_cold_floor():
    _, n = s1.diagnose(_rows(), GRID, FOOTPRINT, s1.CostModel())[2]
    d = n["dense"]
    assert d["vmcpi_cut"] == pytest.approx(1.5, rel=1e-12)
    assert d["handler_run_cut"] == pytest.approx(1.2, rel=1e-12)
    assert d["cost_per_run_cut"] == pytest.approx(1.25, rel=1e-12)
    assert d["user_miss_cut"] == pytest.approx(450 / 400, rel=1e-12)
    # At 1M/1M, 16 B L2 lines: 300 lines first read, of 400 misses; floor (10 x 300 +
    # 520 x 5) / 100,000 = 0.056 of 0.2. At 64 B lines: 150 of 400; floor
    # (10 x 150 + 520 x 2) / 100,000 = 0.0254. One 16 B and two 64 B points per L1 size.
    assert d["cold_miss_share"] == pytest.approx((0.75 + 2 * 0.375) / 3, rel=1e-12)
    assert d["floor_share"] == pytest.approx((0.056 / 0.2 + 2 * 0.0254 / 0.2) / 3, rel=1e-12)
    assert d["max_cut_low"] == pytest.approx(0.3 / 0.056, rel=1e-12)
    assert d["max_cut"] == pytest.approx(((0.3 / 0.056) * (0.3 / 0.0254) ** 2) ** (1 / 3), rel=1e-12)


def test_diagnosis_of_finding_3_splits_misses_from_cost_per_miss():
    _, n = s1.diagnose(_rows(), GRID, FOOTPRINT, s1.CostModel())[3]
    d = n[("dense", "ultrix")]
    assert d["misses_128_per_ki"] == pytest.approx(0.5) and d["misses_64_per_ki"] == pytest.approx(2.0)
    assert d["miss_ratio"] == pytest.approx(4.0)
    assert d["cycles_per_miss_128"] == pytest.approx(80.0) and d["cycles_per_miss_64"] == pytest.approx(32.0)
    assert d["cycles_per_extra_miss"] == pytest.approx(16.0)  # (6,400 - 4,000) / 150
    assert d["vmcpi_ratio"] == pytest.approx(1.6)
    assert d["upte_mem_share_128"] == pytest.approx(0.5)
    assert d["distinct_pages"] == 20 and d["first_touch_share_128"] == pytest.approx(0.4)
    assert (d["lru_big"], d["lru_small"]) == (40, 120) and d["lru_ratio"] == pytest.approx(3.0)
    # First-touch floor: 10 x 20 pages + 520 x 2 PTE lines (64 B) = 1,240 cycles.
    assert d["first_touch_cycles"] == pytest.approx(1240.0)
    assert d["first_touch_share_cycles"] == pytest.approx(0.31)
    assert d["ratio_above_floor"] == pytest.approx((6400 - 1240) / (4000 - 1240))
    assert ("dense", "mach") not in n  # no 64-entry MACH rows were given


def test_diagnosis_of_finding_4_is_a_fixed_extra_over_ultrix():
    text, n = s1.diagnose(_rows(), GRID, FOOTPRINT, s1.CostModel())[4]
    d = n["sparse"]
    assert d["extra_cycles_per_ki"] == pytest.approx(4.0) and d["extra_cycles"] == pytest.approx(400.0)
    mean_ultrix = (0.05 + 0.04 + 0.035) / 3 * 1000
    assert d["ultrix_cycles_per_ki"] == pytest.approx(mean_ultrix)
    assert d["ratio"] == pytest.approx(1 + 4.0 / mean_ultrix)
    assert d["by_component"]["handler-MEM"] == pytest.approx(3.0)
    assert d["by_component"]["rpte-MEM"] == pytest.approx(1.0)
    assert (d["regions"], d["khandler_runs"], d["mach_root_runs"]) == (8, pytest.approx(8), pytest.approx(1))
    assert d["whole_trace_regions"] == 144
    assert "fixed one-time cost" in text[0]
    assert "not sparse at the page-table level" in text[-1] and "144 regions" in text[-1]
    # More user-table pages than wired slots: no such claim is made.
    text, _ = s1.diagnose(_rows(), GRID, FOOTPRINT, s1.CostModel(wired=4))[4]
    assert not any("fixed one-time cost" in t or "not sparse" in t for t in text)


def test_diagnosis_names_what_the_footprint_counted_prefix_or_whole_trace():
    # On whole traces (the default grid, max_events 0) the footprint is the
    # whole trace's; the diagnosis used to call it "the 1,000-event prefix".
    whole = {t: dict(fp, max_events=0) for t, fp in FOOTPRINT.items()}
    prefix = {t: dict(fp, max_events=1000) for t, fp in FOOTPRINT.items()}
    for fps, says, never in ((whole, "the whole trace (1,000 events)", "prefix"),
                             (prefix, "the 1,000-event prefix", "whole trace (")):
        diag = s1.diagnose(_rows(), GRID, fps, s1.CostModel())
        for i in (2, 3):
            text = " ".join(diag[i][0])
            assert says in text, (i, text)
            assert never not in text.replace("A prefix long enough", ""), (i, text)
        assert not any("the prefix touches" in t for t in diag[4][0])


def test_diagnosis_of_finding_5_names_the_components_of_each_line_effect():
    text, n = s1.diagnose(_rows(), GRID, FOOTPRINT, s1.CostModel())[5]
    u = n["ultrix"]
    assert u["l2_line"]["upte-MEM"] == pytest.approx(1.0) and u["l2_line_total"] == pytest.approx(0.01)
    assert u["l1_line"]["handler-L2"] == pytest.approx(1.0) and u["l1_line_total"] == pytest.approx(0.005)
    # PTE loads from memory: 0.03 / 500 x 100,000 = 6 at 16 B lines, 4 at 64 B, against 5 and 2 first touches.
    assert n["pte_floor"]["dense"] == {16: (5, pytest.approx(6.0)), 64: (2, pytest.approx(4.0))}
    assert any("upte-MEM 100 %" in t for t in text)


def test_diagnosis_of_finding_5_explains_softvm_grouping_by_l1_line():
    # On "dense" SOFTVM's handler fetches that miss L1 cost 0.1 CPI at 16 B L1 lines and
    # 0.05 at 64 B (500 and 250 events in 100,000 instructions); nothing moves with the L2
    # line. So its curves lie apart by L1 line only: the failing SOFTVM half of finding 5.
    # On "sparse" SOFTVM stays as _rows() has it (no line effect): nothing to say there.
    rows = _rows()
    for r in _sel_softvm(rows, "dense"):
        cpi = 0.1 if r["l1_line"] == 16 else 0.05
        r.update({"cpi_handler-L2": cpi, "freq_handler-L2": cpi / 20})
        r["vmcpi"] = sum(r[f"cpi_{c}"] for c in s1.COMPONENTS)
    verdict = s1.findings(rows, GRID)[4]
    assert not verdict[1]
    text, n = s1.diagnose(rows, GRID, FOOTPRINT, s1.CostModel())[5]
    soft = [t for t in text if "SOFTVM groups by L1 line" in t]
    assert len(soft) == 1 and soft[0].startswith("dense: "), text
    d = n["softvm_by_l1"]["dense"]
    assert d["l2_effect"] == pytest.approx(1.0) and d["l1_effect"] > 1.0
    assert d["l1_delta"]["handler-L2"] == pytest.approx(-0.05) and d["l1_ratio"]["handler-L2"] == pytest.approx(0.5)
    assert d["l1_ratio"]["uhandler"] == pytest.approx(1.0) and sum(d["l2_delta"].values()) == pytest.approx(0.0)
    assert "L1 line 16 -> 64 B: -50.00 cycles per 1,000 instructions, mostly handler-L2 -50.00" in soft[0]
    assert "(handler-L2) 0.50x" in soft[0] and "L2 line 16 -> 64 B: +0.00 in all" in soft[0]


def _sel_softvm(rows, trace):
    return [r for r in rows if r["scheme"] == "softvm" and r["trace"] == trace and r["role"] == "sweep"]


def test_footprint_counts_a_hand_made_trace_and_agrees_with_trace_info(tmp_path):
    # Instruction fetches at pages 0x400 and 0x401, one straddling two 16 B lines;
    # data at page 0x7ff (twice) and page 0x80000 (a second 4 MB region).
    trace = tmp_path / "t.lackey"
    trace.write_text("\n".join([
        "I  00400000,4",   # I line16 0x40000, page 0x400
        "I  0040000e,4",   # straddles: lines 0x40000 and 0x40001
        " L 007ff010,8",   # D page 0x7ff, line16 0x7ff01
        "I  00401000,4",   # I page 0x401
        " S 80000000,4",   # D page 0x80000 (region 0x200)
        " M 007ff020,4",   # D page 0x7ff again, line16 0x7ff02
        "I  00400010,4",   # I line16 0x40001 again, page 0x400 again
    ]) + "\n")
    fp = s1.footprint(str(trace), 0, tlb_user_slots=(1, 2))
    assert (fp["events"], fp["instructions"]) == (7, 4)
    assert fp["lines"]["16"] == {"i": 3, "d": 3}   # I 0x40000, 0x40001, 0x40100; D 0x7ff01, 0x7ff02, 0x8000000
    assert fp["lines"]["64"] == {"i": 2, "d": 2}   # I 0x10000, 0x10040; D 0x1ffc0 (twice), 0x2000000
    assert fp["pages"] == {"i": 2, "d": 2, "all": 4}
    # First touched by a read: every I line; D 0x7ff01 (L) and 0x7ff02 (M), not the stored 0x8000000.
    assert fp["read_first_lines"]["16"] == {"i": 3, "d": 2}
    assert fp["read_first_lines"]["64"] == {"i": 2, "d": 1}
    # PTE lines of a linear table: 4 PTEs per 16 B line, 32 per 128 B line.
    assert fp["pte_lines"]["16"] == 3              # pages 0x400, 0x401 -> group 0x100; 0x7ff -> 0x1ff; 0x80000
    assert fp["pte_lines"]["128"] == 3             # 0x400/0x401 -> 0x20; 0x7ff -> 0x3f; 0x80000 -> 0x4000
    assert fp["regions_4m"] == 2                   # 0x400000-0x7fffff holds 0x400, 0x401 and 0x7ff; 0x80000000
    # LRU: I pages 0x400, 0x400, 0x401, 0x400 -> distances cold, (same), cold, 1;
    # D pages 0x7ff, 0x80000, 0x7ff -> cold, cold, 1.
    assert fp["lru_tlb_misses"] == {"i": {"1": 3, "2": 2}, "d": {"1": 3, "2": 2}}
    # A prefix stops after that many events.
    head = s1.footprint(str(trace), 3)
    assert (head["events"], head["instructions"], head["pages"]["all"]) == (3, 2, 2)
    # The whole-trace numbers agree with the engine's own summary.
    info = json.loads(_engine.trace_info(str(trace), None)[0])
    assert fp["lines"]["64"]["i"] == info["lines_64b"]["instr"]
    assert fp["lines"]["64"]["d"] == info["lines_64b"]["data"]
    assert fp["pages"]["all"] == info["pages_4k"]["total"]
    assert fp["regions_4m"] == info["regions_4m"]["total"]


def test_footprint_refuses_bad_geometry_and_bad_traces(tmp_path):
    with pytest.raises(ValueError, match="powers of two"):
        s1.footprint(str(tmp_path / "none"), 0, line_sizes=(24,))
    # A trace the engine cannot open or decode is its error (file, line), not a hang.
    with pytest.raises(_engine.VmlabError, match="none.vmt.*cannot open"):
        s1.footprint(str(tmp_path / "none.vmt"), 0)
    bad = tmp_path / "bad.lackey"
    bad.write_text("I  00400000,4\nnot a record\n")
    with pytest.raises(_engine.VmlabError, match="line 2"):
        s1.footprint(str(bad), 0)


def test_engine_footprint_equals_the_python_reference_on_random_traces(tmp_path):
    """The engine's one-pass count against a deliberately simple Python one
    (tests/python/footprint_reference.py) on random lackey traces: nearby
    and far addresses, all four kinds, sizes that straddle lines and pages,
    prefixes and whole traces, small TLBs so LRU distances matter."""
    import random

    from footprint_reference import footprint_reference

    for seed in range(6):
        rng = random.Random(seed)
        lines = []
        for _ in range(rng.randrange(1, 400)):
            base = rng.choice([0x400000, 0x7ff000, 0x80000000, 0x12345000])
            addr = base + rng.randrange(0, 5 * 4096)
            tag = rng.choice(["I ", " L", " S", " M"])
            size = rng.choice([1, 2, 4, 8, 16, 32])
            # Lackey's fetches are at most 20 bytes (crates/trace/README.md).
            lines.append(f"{tag} {addr:08x},{min(size, 16) if tag == 'I ' else size}")
        trace = tmp_path / f"r{seed}.lackey"
        trace.write_text("\n".join(lines) + "\n")
        for max_events in (0, len(lines) // 2):
            kw = dict(line_sizes=(16, 32, 128), tlb_user_slots=(1, 3, 8))
            got = s1.footprint(str(trace), max_events, **kw)
            want = footprint_reference(str(trace), max_events, **kw)
            assert got == want, (seed, max_events)


def test_engine_footprint_equals_the_reference_on_a_real_trace_prefix():
    from footprint_reference import footprint_reference
    from vmlab import workloads

    path = str(workloads.ensure("database", "small"))
    assert s1.footprint(path, 200_000) == footprint_reference(path, 200_000)


def test_finding_4_says_when_the_sparse_workload_is_missing():
    grid = s1.Grid(GRID.l1_kb, GRID.l2_kb, GRID.lines, ("dense",), GRID.size, GRID.max_events)
    rows = [r for r in _rows() if r["trace"] == "dense"]
    name, ok, why = s1.findings(rows, grid)[3]
    assert name.startswith("4.") and not ok
    assert "sparse: not in this run" in why and "nan" not in why


def test_finding_4_says_when_no_dense_workload_was_run():
    grid = s1.Grid(GRID.l1_kb, GRID.l2_kb, GRID.lines, ("sparse",), GRID.size, GRID.max_events)
    rows = [r for r in _rows() if r["trace"] == "sparse"]
    name, ok, why = s1.findings(rows, grid)[3]
    assert name.startswith("4.") and not ok
    # MACH = ULTRIX + 0.004 CPI at ULTRIX 0.05, 0.04, 0.035 (the three line
    # pairs): geometric mean of 1.08, 1.10, 1.1143 = 1.098.
    assert "dense traces: none in this run" in why and "sparse FAILS: MACH/ULTRIX 1.10x" in why and "nan" not in why


def test_row_labels_are_the_typed_labels() -> None:
    # A label added to a row but not to s1.Labels (or the other way round) fails here.
    hints = typing.get_type_hints(s1.Labels)
    for p in s1.points(s1.GRIDS["standard"]):
        labels = s1.run._labels(p)
        assert list(labels) == list(hints), p
        assert all(type(labels[k]) is t for k, t in hints.items()), (p, labels)


def test_batches_never_split_points_that_share_a_pass():
    grid = s1.GRIDS["paper"]
    pts = [p for p in s1.points(grid) if p.trace == "compiler"]
    batches = s1._batches(pts, grid.batch)
    assert sorted(p.key() for b in batches for p in b) == sorted(p.key() for p in pts)
    home, fanout_home = {}, {}
    for n, b in enumerate(batches):
        groups = {s1._one_pass(p) for p in b}
        assert len(b) <= grid.batch or len(groups) == 1, [len(b), groups]
        for p in b:
            assert home.setdefault(s1._one_pass(p), n) == n, p
            # Points sharing everything above L2 always share a batch.
            assert fanout_home.setdefault(s1._above_l2(p), n) == n, p
    sizes = {k: len([p for p in pts if s1._one_pass(p) == k]) for k in home}
    # A TLB scheme's 16-byte L1 line: 8 L1 sizes x 3 L2 sizes x 3 L2 lines, and the base
    # point, in one pass; SOFTVM's and SPUR's: the 9 L2 twins of one L1 size of each, which share
    # one L1-hit filter (their L1 traffic depends on the L2, so each still runs on its own).
    assert sizes[("ultrix", 0, 16, 128, False, 0.0)] == 8 * 3 * 3 + 1
    assert sizes[("softvm+spur", 4, 16)] == 2 * 9


def test_vm_sweep_fanout_equals_one_run_per_configuration(tmp_path):
    # A lackey trace that misses L1 and L2 differently for each L2 size.
    lines = []
    for i in range(6000):
        lines.append(f"I  {0x400000 + (i * 12) % 5000:x},4")
        op = "S" if i % 3 == 0 else "L"
        lines.append(f" {op} {0x800000 + (i * 52) % 40000:x},4")
    trace = tmp_path / "t.lackey"
    trace.write_text("\n".join(lines) + "\n")
    points = [("ultrix", l2, l2line) for l2 in ("4K", "16K") for l2line in ("16", "64")]
    points += [("softvm", "4K", "16"), ("softvm", "16K", "16"), ("notlb", "4K", "32")]
    configs = [_engine.vm_load_config("jacob-mudge", [f"scheme={s}", "l1i.size=1K", "l1d.size=1K",
                                                      f"l2i.size={l2}", f"l2d.size={l2}",
                                                      f"l2i.line={ln}", f"l2d.line={ln}"])
               for s, l2, ln in points]
    together = [json.loads(r) for r in _engine.vm_sweep(configs, str(trace), "lackey")]
    alone = [json.loads(_engine.vm_sweep([c], str(trace), "lackey")[0]) for c in configs]
    assert together == alone
    l2d = [next(c for c in r["caches"] if c["name"] == "l2d")["stats"]["read"]["misses"] for r in together[:4]]
    assert len(set(l2d)) == 4, l2d


def test_vm_sweep_onepass_over_l1_sizes_equals_one_run_per_configuration(tmp_path):
    # The L1 sizes of a TLB scheme (and of NOTLB) share one pass: the smallest records what
    # reached its caches, the larger replay it (vmlab_translation::OnePass).
    lines = []
    for i in range(6000):
        lines.append(f"I  {0x400000 + (i * 12) % 9000:x},4")
        op = "S" if i % 3 == 0 else "L"
        lines.append(f" {op} {0x800000 + (i * 4100) % 300000:x},4")
        lines.append(f" L {0x900000 + (i * 20) % 1600:x},4")
        if i % 5 == 0:
            lines.append(f" M {0xa00000 + (i * 36) % 7000:x},8")
    trace = tmp_path / "t.lackey"
    trace.write_text("\n".join(lines) + "\n")
    points = [(s, l1, l2) for s in ("ultrix", "notlb") for l1 in ("1K", "2K", "8K") for l2 in ("4K", "16K")]
    configs = [_engine.vm_load_config("jacob-mudge", [f"scheme={s}", f"l1i.size={l1}", f"l1d.size={l1}",
                                                      f"l2i.size={l2}", f"l2d.size={l2}"])
               for s, l1, l2 in points]
    together = [json.loads(r) for r in _engine.vm_sweep(configs, str(trace), "lackey")]
    alone = [json.loads(_engine.vm_sweep([c], str(trace), "lackey")[0]) for c in configs]
    assert together == alone
    l1d = [next(c for c in r["caches"] if c["name"] == "l1d")["stats"]["read"]["misses"] for r in together[:6:2]]
    assert l1d[0] > l1d[1] > l1d[2], l1d


# -- resume: a stored run is reused only when everything that made it is the same ----------
@pytest.fixture(scope="module")
def small_traces(tmp_path_factory):
    """Two different 20,000-reference traces."""
    from conftest import write_random_trace
    import vmlab

    d = tmp_path_factory.mktemp("s1-small")
    out = []
    for seed in (3, 4):
        vmt = d / f"t{seed}.vmt"
        vmlab.convert_trace(write_random_trace(d / f"t{seed}.lackey", 20_000, seed=seed), vmt)
        out.append(vmt)
    return out


def test_resume_reruns_what_another_event_limit_or_trace_made(cli, tmp_path, small_traces):
    import csv
    import hashlib

    a, b = small_traces
    grid = s1.GRIDS["test"]
    coords = ("trace", "scheme", "role", "l1_kb", "l2_kb", "l1_line", "l2_line", "tlb_entries", "protect_per_million")

    def s1_run(trace, *more):
        proc = cli("reproduce", "s1", "--grid", "test", "--trace", f"database={trace}", "-j", "1",
                   "--results", "R", *more, check=True)
        with open(tmp_path / "R" / "test" / "runs.csv", newline="") as f:
            return proc.stderr.splitlines()[0], list(csv.DictReader(f))

    def numbers(rows):
        return {tuple(str(r[c]) for c in coords): (str(r["vmcpi"]), str(r["user_instructions"])) for r in rows}

    def fresh(trace):
        return numbers(s1.sweep(grid, {"database": str(trace)}, tmp_path / f"fresh-{trace.stem}", 1, log=lambda s: None))

    # The case: a 1,000-event run, then the same without --max-events.
    _, short = s1_run(a, "--max-events", "1000")
    header, rows = s1_run(a)
    # 5 batches: the test grid's one-pass groups (run._one_pass) packed by 24.
    assert " 0 already done, 5 batches" in header, header
    assert numbers(rows) == fresh(a) != numbers(short)
    # Then another file under the same name.
    header, rows = s1_run(b)
    assert " 0 already done, 5 batches" in header, header
    assert numbers(rows) == fresh(b)
    # Each row names its trace by content.
    assert {r["trace_sha256"] for r in rows} == {hashlib.sha256(b.read_bytes()).hexdigest()}
    assert {r["max_events"] for r in rows} == {str(grid.max_events)}


# -- bad command lines: one line, exit 2 ------------------------------------------------
def _one_error_line(proc) -> str:
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("vmlab: error: "), proc.stderr
    return lines[0]


@pytest.mark.parametrize("args, says", [
    (["--traces", "bogus"], "unknown trace `bogus`: expected workloads compiler, database, bigfoot, sparse, mix, "
                            "or a name given a file with --trace NAME=FILE"),
    (["--trace", "database"], "`database` is not NAME=FILE"),
    (["--trace", "database=nope.vmt"], "database=nope.vmt: nope.vmt: no such file"),
    (["--traces", "database", "--trace", "other={trace}"], "`other` is not among this run's traces (database)"),
    (["-j", "0", "--trace", "database={trace}"], "'--jobs' / '-j': 0 is not in the range x>=1"),
])
def test_s1_bad_arguments_are_one_line(cli, small_traces, args, says):
    args = [a.format(trace=small_traces[0]) for a in args]
    line = _one_error_line(cli("reproduce", "s1", "--grid", "test", *args))
    assert says in line, line


def test_s1_missing_program_says_what_to_install(tmp_path):
    from conftest import vmlab_command
    from vmlab import workloads

    if workloads.WORKLOADS["database"].trace_path("full").exists():
        pytest.skip("the database trace of the paper grid is already captured: nothing to install")
    bin_dir = tmp_path / "bin"  # valgrind but no sqlite3
    bin_dir.mkdir()
    if shutil.which("valgrind"):
        (bin_dir / "valgrind").symlink_to(shutil.which("valgrind"))
    proc = subprocess.run([*vmlab_command(), "reproduce", "s1", "--grid", "paper", "--traces", "database"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PATH=str(bin_dir)))
    line = _one_error_line(proc)
    assert "database: cannot capture without" in line and "sqlite3" in line and "apt-get install" in line, line


def test_s1_dask_without_dask_names_the_extra(cli, small_traces):
    if importlib.util.find_spec("distributed") is not None:
        pytest.skip("dask.distributed is installed")
    line = _one_error_line(cli("reproduce", "s1", "--grid", "test", "--trace", f"database={small_traces[0]}",
                               "--dask", "tcp://127.0.0.1:1"))
    assert "needs dask.distributed: pip install 'vmlab[cluster]'" in line, line


def test_s1_unreachable_dask_scheduler_is_named_within_seconds(cli, small_traces):
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("needs dask.distributed (vmlab[cluster])")
    start = time.monotonic()
    line = _one_error_line(cli("reproduce", "s1", "--grid", "test", "--trace", f"database={small_traces[0]}",
                               "--dask", "tcp://127.0.0.1:1", "-j", "1"))
    assert "Dask scheduler tcp://127.0.0.1:1: no answer within 5 s" in line, line
    assert time.monotonic() - start < 30
