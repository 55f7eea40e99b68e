"""The Python API: machines, runs, results, tables, pickling, determinism."""

from __future__ import annotations

import json
import math
import pickle

import pytest

import vmlab
from conftest import TINY_EVENTS, TINY_EXPECTED, TINY_FETCHES, TINY_WRITEBACKS


# -- machines -----------------------------------------------------------------
def test_presets_listed_with_descriptions():
    listing = vmlab.presets()
    assert "jm-base" in listing
    assert listing["jm-base"]
    assert "[l1d]" in vmlab.preset_text("jm-base")


def test_from_preset_keyword_and_mapping_overrides_agree():
    a = vmlab.Machine.from_preset("jm-base", l1d_size="16K", l1d_assoc=2)
    b = vmlab.Machine.from_preset("jm-base", overrides={"l1d.size": "16K", "l1d.assoc": 2})
    c = vmlab.Machine.from_preset("jm-base", sets=["l1d.size=16K", "l1d.assoc=2"])
    assert a == b == c
    assert a.config["l1d"]["size"] == "16K"
    assert a.config["l1d"]["assoc"] == 2
    assert vmlab.Machine.from_preset("jm-base").config["l1d"]["size"] == "8K"


def test_keyword_override_of_two_word_fields():
    m = vmlab.Machine.from_preset("jm-base", l1d_write_miss="no-write-allocate", memory_page_size="8K",
                                  stats_classify_misses=True)
    assert m.config["l1d"]["write_miss"] == "no-write-allocate"
    assert m.config["memory"]["page_size"] == "8K"
    assert m.config["stats"]["classify_misses"] is True


def test_bad_override_key_lists_valid_keys():
    with pytest.raises(vmlab.VmlabError) as e:
        vmlab.Machine.from_preset("jm-base", l1d_sise="16K")
    msg = str(e.value)
    assert "sise" in msg
    for key in ("size", "line", "assoc", "replacement"):
        assert key in msg
    assert isinstance(e.value, Exception)


def test_bad_override_table_and_value():
    with pytest.raises(vmlab.VmlabError, match="unknown table"):
        vmlab.Machine.from_preset("jm-base", overrides={"l9.size": "1K"})
    with pytest.raises(vmlab.VmlabError, match="l1d.replacement"):
        vmlab.Machine.from_preset("jm-base", l1d_replacement="sometimes")


def test_overrides_apply_together_in_any_order():
    # 8K of 16-byte lines (512) is not divisible by 3 ways; 12K (768) is.
    a = vmlab.Machine.from_preset("jm-base", sets=["l1d.assoc=3", "l1d.size=12K"])
    b = vmlab.Machine.from_preset("jm-base", sets=["l1d.size=12K", "l1d.assoc=3"])
    assert a == b
    assert (a.config["l1d"]["size"], a.config["l1d"]["assoc"]) == ("12K", 3)
    assert vmlab.Machine.from_preset("jm-base").with_overrides(l1d_assoc=3, l1d_size="12K") == a
    # jm-base's VIVT l1d has ASID tags, which physical tags refuse: a switch
    # to PIPT needs both keys, and either may come first.
    for keywords in ({"l1d_indexing": "pipt", "l1d_asid_tags": False},
                     {"l1d_asid_tags": False, "l1d_indexing": "pipt"}):
        m = vmlab.Machine.from_preset("jm-base", **keywords)
        assert (m.config["l1d"]["indexing"], m.config["l1d"]["asid_tags"]) == ("pipt", False)
    with pytest.raises(vmlab.VmlabError, match=r"^--set l1d.indexing=pipt: \[l1d\]: asid_tags needs virtual tags"):
        vmlab.Machine.from_preset("jm-base", l1d_indexing="pipt")


def test_overrides_may_add_a_level():
    m = vmlab.Machine.from_preset("jm-base", l3_assoc=8, l3_line=16, l3_size="1M")
    assert repr(m) == "Machine('jm-base', caches=['l1i', 'l1d', 'l2i', 'l2d', 'l3'])"
    assert (m.config["l3"]["size"], m.config["l3"]["line"], m.config["l3"]["assoc"]) == ("1M", "16", 8)
    with pytest.raises(vmlab.VmlabError, match=r"^--set l3.size=1M: \[l3\]: missing field `line` \(\[l3\] is not in"):
        vmlab.Machine.from_preset("jm-base", l3_size="1M")


def test_unknown_preset_names_the_choices():
    with pytest.raises(vmlab.VmlabError) as e:
        vmlab.Machine.from_preset("pdp-11")
    assert "jm-base" in str(e.value)


def test_from_file_and_from_dict(tiny_preset):
    m = vmlab.Machine.from_file(tiny_preset)
    assert m.name == "tiny-dm"
    assert vmlab.Machine.from_dict(m.config) == m
    assert m.with_overrides(l1_size=128).config["l1"]["size"] == "128"


def test_bad_preset_file_names_file_and_line(tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text('name = "x"\n[memory]\npage_size = "4K"\n[l1]\nsize = "8K"\nline = 16\nassoc = "sometimes"\n')
    with pytest.raises(vmlab.VmlabError) as e:
        vmlab.Machine.from_file(p)
    assert "broken.toml" in str(e.value)
    assert "line 7" in str(e.value)


# -- runs against hand-worked numbers -----------------------------------------
def check_tiny(r: vmlab.Result) -> None:
    stats = r.caches["l1"]["stats"]
    for kind, expected in TINY_EXPECTED.items():
        got = {k: stats[kind][k] for k in expected}
        assert got == expected, kind
    assert stats["writebacks"] == TINY_WRITEBACKS
    assert stats["fetches"] == TINY_FETCHES
    assert r.memory["reads"] == TINY_FETCHES
    assert r.memory["writes"] == TINY_WRITEBACKS
    assert r.memory["bytes_read"] == 16 * TINY_FETCHES
    assert r.instructions == 3
    assert r.references == 10


def test_hand_worked_counts(tiny_preset, tiny_trace):
    r = vmlab.Machine.from_file(tiny_preset).run(tiny_trace)
    check_tiny(r)
    assert r.trace == str(tiny_trace)
    assert r.misses("l1") == 9
    assert r.miss_rate("l1", "read") == pytest.approx(5 / 6)


def test_run_events_matches_the_trace(tiny_preset, tiny_trace):
    m = vmlab.Machine.from_file(tiny_preset)
    by_events = m.run_events(TINY_EVENTS)
    check_tiny(by_events)
    a, b = by_events.to_dict(), m.run(tiny_trace).to_dict()
    a.pop("trace"), b.pop("trace")
    assert a == b


def test_run_events_markers_and_errors(tiny_preset):
    m = vmlab.Machine.from_file(tiny_preset)
    r = m.run_events([("load", 0x10, 4), ("flush",), ("switch", 3), ("load", 0x10, 4, 3)])
    assert r.events["flush_all"] == 1 and r.events["context_switches"] == 1
    for bad, what in [([("load", 0x10)], "events[0]"), ([("load", 1, 4), ("jump", 1, 4)], "events[1]"),
                      ([("load", -1, 4)], "address"), ([("load", 1, 0)], "size 0"), ([42], "events[0]")]:
        with pytest.raises(vmlab.VmlabError, match=what.replace("[", r"\[").replace("]", r"\]")):
            m.run_events(bad)


def test_run_events_syscall_markers_change_nothing(tiny_preset):
    """A system-call marker reaches the engine (as its head and argument
    events) and no cache sees it: the same result as without it."""
    m = vmlab.Machine.from_file(tiny_preset)
    plain = [("load", 0x10, 4), ("store", 0x2000, 8), ("load", 0x10, 4)]
    marked = plain[:1] + [("syscall", "read", 3, [3, 0x2000, 3]), ("syscall", 9, -12, [0, 4096, 3, 34, 2**64 - 1, 0], 2)] + plain[1:]
    a, b = m.run_events(plain).to_dict(), m.run_events(marked).to_dict()
    a.pop("trace"), b.pop("trace")
    assert a == b
    for bad, what in [([("syscall", "nosuchcall", 0, [])], "unknown system call"),
                      ([("syscall", "read", 0, [1, 2, 3, 4, 5, 6, 7])], "at most 6"),
                      ([("syscall", "read", 0, [-1])], "argument"),
                      ([("syscall", 70000, 0, [])], "system-call number")]:
        with pytest.raises(vmlab.VmlabError, match=what):
            m.run_events(bad)


def test_explicit_format_and_bad_format(tiny_preset, tiny_trace):
    m = vmlab.Machine.from_file(tiny_preset)
    check_tiny(m.run(tiny_trace, format="lackey"))
    with pytest.raises(vmlab.VmlabError, match="unknown trace format"):
        m.run(tiny_trace, format="pdf")
    with pytest.raises(vmlab.VmlabError):
        m.run(tiny_trace, format="din")  # lackey text is not din


def test_bad_trace_names_file_and_line(tiny_preset, bad_trace):
    with pytest.raises(vmlab.VmlabError) as e:
        vmlab.Machine.from_file(tiny_preset).run(bad_trace)
    assert "bad.lackey" in str(e.value)
    assert "line 3" in str(e.value)


def test_missing_trace_file(tiny_preset, tmp_path):
    with pytest.raises(vmlab.VmlabError, match="nope.vmt"):
        vmlab.Machine.from_file(tiny_preset).run(tmp_path / "nope.vmt")


def test_progress_callback_and_its_exception(tiny_preset, medium_trace):
    seen = []
    r = vmlab.Machine.from_file(tiny_preset).run(medium_trace, progress=seen.append)
    assert seen and all(isinstance(p, vmlab.Progress) for p in seen)
    assert seen[-1].events == r.references == 300_000
    assert [p.events for p in seen] == sorted(p.events for p in seen)
    assert seen[-1].bytes_total and seen[-1].fraction == pytest.approx(1.0, abs=0.01)

    class Stop(Exception):
        pass

    def stop(p):
        raise Stop(p.events)

    with pytest.raises(Stop):
        vmlab.Machine.from_file(tiny_preset).run(medium_trace, progress=stop)


# -- tables -------------------------------------------------------------------
def test_to_pandas_shape_and_values(tiny_preset, tiny_trace):
    r = vmlab.Machine.from_file(tiny_preset).run(tiny_trace)
    df = r.to_pandas()
    assert df.shape == (3, len(vmlab.result.COLUMNS))  # one cache x three request kinds
    assert list(df.columns) == list(vmlab.result.COLUMNS)
    row = df.set_index("kind").loc["read"]
    assert (row["accesses"], row["hits"], row["misses"]) == (6, 1, 5)
    assert (row["compulsory"], row["capacity"], row["conflict"]) == (4, 0, 1)
    assert row["miss_rate"] == pytest.approx(5 / 6)
    assert row["size_bytes"] == 64 and row["line_bytes"] == 16 and row["assoc"] == "1"
    assert set(df["writebacks"]) == {TINY_WRITEBACKS}
    assert df["misses"].sum() == 9


def test_to_polars_shape_and_values(tiny_preset, tiny_trace):
    import polars as pl

    r = vmlab.Machine.from_file(tiny_preset).run(tiny_trace)
    df = r.to_polars()
    assert df.shape == (3, len(vmlab.result.COLUMNS))
    ifetch = df.filter(pl.col("kind") == "ifetch").to_dicts()[0]
    assert ifetch["accesses"] == 3 and ifetch["misses"] == 3 and ifetch["hits"] == 0
    assert (ifetch["compulsory"], ifetch["capacity"], ifetch["conflict"]) == (1, 1, 1)
    assert df.schema["miss_rate"] == pl.Float64 and df.schema["misses"] == pl.Int64


def test_tables_of_a_split_hierarchy():
    r = vmlab.Machine.from_preset("jm-base").run_events([("ifetch", 0x1000, 4), ("load", 0x2000, 4)])
    df = r.to_pandas()
    assert df.shape == (4 * 3, len(vmlab.result.COLUMNS))  # l1i l1d l2i l2d x 3 kinds
    # an instruction cache sees no writes: no miss rate rather than a made-up 0
    assert math.isnan(df[(df.cache == "l1i") & (df.kind == "write")]["miss_rate"].iloc[0])
    # misses are not classified unless asked: no numbers rather than zeros
    assert df["compulsory"].isna().all()
    assert r.to_pandas(all_kinds=False).shape[0] == 4
    assert r.to_arrow().num_rows == 12


def test_table_text(tiny_preset, tiny_trace):
    text = vmlab.Machine.from_file(tiny_preset).run(tiny_trace).table()
    assert "tiny-dm" in text and "l1" in text and "compulsory" in text


def test_csv_and_parquet(tmp_path, tiny_preset, tiny_trace):
    import pandas as pd

    r = vmlab.Machine.from_file(tiny_preset).run(tiny_trace)
    r.to_csv(tmp_path / "r.csv")
    r.to_parquet(tmp_path / "r.parquet")
    a = pd.read_csv(tmp_path / "r.csv")
    b = pd.read_parquet(tmp_path / "r.parquet")
    assert list(a["misses"]) == list(b["misses"]) == [3, 5, 1]


# -- value semantics ------------------------------------------------------------
def test_pickle_round_trip_gives_identical_results(tiny_preset, medium_trace):
    m = vmlab.Machine.from_file(tiny_preset).with_overrides(l1_size="1K", l1_assoc=2)
    m2 = pickle.loads(pickle.dumps(m))
    assert m2 == m and hash(m2) == hash(m) and m2.config == m.config
    r = m.run(medium_trace)
    r2 = pickle.loads(pickle.dumps(r))
    assert r2 == r and r2.to_dict() == r.to_dict()
    assert m2.run(medium_trace) == r
    assert r2.to_pandas().equals(r.to_pandas())
    assert json.loads(r2.to_json()) == r.to_dict()


def test_runs_are_deterministic(medium_trace):
    m = vmlab.Machine.from_preset("jm-base", memory_allocation="random", l2d_replacement="random",
                                  l2d_assoc=4, stats_classify_misses=True)
    assert m.run(medium_trace) == m.run(medium_trace)
    assert m.run(medium_trace).to_json() == vmlab.Machine.from_dict(m.config).run(medium_trace).to_json()


def test_to_dict_is_a_copy(tiny_preset, tiny_trace):
    r = vmlab.Machine.from_file(tiny_preset).run(tiny_trace)
    d = r.to_dict()
    d["caches"][0]["stats"]["read"]["misses"] = -1
    assert r.misses("l1", "read") == 5


# -- traces -----------------------------------------------------------------------
def test_trace_info_and_convert(tmp_path, tiny_trace, tiny_preset):
    info = vmlab.trace_info(tiny_trace)
    assert info["accesses"] == 10 and info["by_kind"]["ifetch"] == 3
    assert "footprint" in str(info)
    summary = vmlab.convert_trace(tiny_trace, tmp_path / "t.vmt")
    assert summary["events_read"] == 10 and "nothing lost" in str(summary)
    m = vmlab.Machine.from_file(tiny_preset)
    check_tiny(m.run(tmp_path / "t.vmt"))
    din = vmlab.convert_trace(tmp_path / "t.vmt", tmp_path / "t.din")
    assert din["to"] == "din"
    assert pickle.loads(pickle.dumps(info)) == info


def test_trace_info_error(bad_trace):
    with pytest.raises(vmlab.VmlabError, match="line 3"):
        vmlab.trace_info(bad_trace)


def test_an_engine_panic_is_a_vmlab_error():
    from vmlab import _engine

    with pytest.raises(vmlab.VmlabError, match="internal error.*deliberate panic at .*lib.rs"):
        _engine._panic_for_tests()
    # and the interpreter carries on
    assert vmlab.Machine.from_preset("jm-base").run_events([("load", 0, 4)]).references == 1
