"""S4 beyond the paper (2): the kernel's read() copy-out on a real capture
(cat of the generated input). The capture is repeatable and its markers say
what cat read; a .vmt round trip keeps every marker and every number; the
command writes the policy table, figure and verdicts; bad input is one
named error. The injection itself is worked by hand in
crates/copy/tests/read_out.rs."""

import csv
import json

import pytest
from click.testing import CliRunner

from conftest import needs_valgrind
from vmlab import _engine, convert_trace, trace_syscalls
from vmlab.traces import trace_sha256
from vmlab.studies import s4, s4_read

pytestmark = needs_valgrind


@pytest.fixture(scope="module")
def cat():
    return s4_read.ensure("cat")


def test_capture_is_recorded_and_the_same_twice(cat):
    side = json.loads(cat.with_name(cat.name + ".json").read_text())
    assert side["sha256"] == trace_sha256(cat)
    assert side["input_bytes"] == s4_read.INPUT_BYTES and len(side["input_sha256"]) == 64
    again = s4_read.ensure("cat", force=True)
    assert json.loads(again.with_name(again.name + ".json").read_text())["sha256"] == side["sha256"]


def test_markers_say_what_cat_read_and_the_engine_injects_exactly_those(cat):
    calls = trace_syscalls(cat)
    opened = [c for c in calls if c["name"] == "openat" and c["ret"] >= 0][-1]
    fd = opened["ret"]
    later = [c for c in calls if c["event"] > opened["event"] and c["name"] == "read" and c["args"][0] == fd]
    # cat reads the whole generated input through its fd, then sees EOF.
    assert sum(c["ret"] for c in later) == s4_read.INPUT_BYTES
    assert later[-1]["ret"] == 0
    reads = [c for c in calls if c["name"] in ("read", "pread64") and c["ret"] > 0]
    p = s4.fit("hp9000-720", s4.TABLE5)
    outs = s4_read.run("hp9000-720", p, cat, ["none", "fixed"])
    for o in outs:
        assert (o["reads"], o["bytes_read"]) == (len(reads), sum(c["ret"] for c in reads))
    assert outs[0]["copy_cycles"]["total"] == 0 and outs[1]["copy_cycles"]["total"] > 0


def test_a_vmt_round_trip_keeps_every_marker_and_number(cat, tmp_path):
    copy = tmp_path / "cat-again.vmt"
    convert_trace(cat, copy)
    assert trace_syscalls(copy) == trace_syscalls(cat)
    p = s4.fit("hp9000-712", s4.TABLE5)
    assert s4_read.run("hp9000-712", p, copy, ["same-colour"]) == s4_read.run("hp9000-712", p, cat, ["same-colour"])


def test_command_writes_the_policy_table_figure_and_verdicts(cat, tmp_path):
    out, rep = tmp_path / "results", tmp_path / "report"
    r = CliRunner().invoke(s4.command, ["--results", str(out), "--report", str(rep), "--read-programs", "cat"])
    assert r.exit_code == 0, r.output
    with open(out / "read_policies.csv") as f:
        rows = list(csv.DictReader(f))
    policies = [p for p, _ in s4_read.POLICIES]
    assert [(x["machine"], x["policy"]) for x in rows] == [(cpu, p) for _, cpu in s4.MACHINES for p in policies]
    # Every policy copies the same reads; only where the buffer lies differs.
    assert len({(x["reads"], x["bytes_read"]) for x in rows}) == 1
    assert all(float(x["copy_cycles"]) == 0 for x in rows if x["policy"] == "none")
    doc = json.loads((rep / "verdicts.json").read_text())
    assert len(doc["verdicts"]) == 6 + 4
    assert (rep / "read_policies.png").exists()
    assert "the kernel&#x27;s buffer for read()" in (rep / "index.html").read_text() or \
        "the kernel's buffer for read()" in (rep / "index.html").read_text()


def test_bad_input_is_one_named_error(cat, tmp_path):
    from vmlab.cli import main

    assert main(["reproduce", "s4", "--results", str(tmp_path / "r"), "--report", str(tmp_path / "p"),
                 "--read-programs", "cat,ls"]) == 2
    p = s4.fit("hp9000-720", s4.TABLE5)
    with pytest.raises(_engine.VmlabError, match="no kernel buffer policy `purple`; expected one of none, same"):
        s4_read.run("hp9000-720", p, cat, ["purple"])
    with pytest.raises(_engine.VmlabError, match="missing.vmt"):
        s4_read.run("hp9000-720", p, tmp_path / "missing.vmt", ["fixed"])
    with pytest.raises(_engine.VmlabError, match="unknown S4 read program `ls`"):
        s4_read.ensure("ls")


def test_the_program_alone_misses_as_the_whole_trace_replay_does(cat):
    # An independent path: the machine replay of the same trace on the same
    # preset (its own reference splitting and fast paths). A modify is a
    # load and a store there, one store in the injection. Split caches only:
    # the 712's combined cache takes the trace's instruction fetches there,
    # which the injection skips.
    import vmlab

    for cpu in ("hp9000-720", "hp9000-755"):
        d = vmlab.Machine.from_preset(cpu).run(str(cat)).to_dict()
        top = [c for c in d["caches"] if c["name"] in ("l1d", "l1")][0]["stats"]
        o = s4_read.run(cpu, s4.fit(cpu, s4.TABLE5), cat, ["none"])[0]
        assert o["program"]["misses"] == top["read"]["misses"] + top["write"]["misses"], cpu
        assert o["program"]["references"] + d["events"]["modify"] == \
            top["read"]["accesses"] + top["write"]["accesses"], cpu


def test_without_valgrind_and_no_capture_the_read_part_is_left_out_by_name(tmp_path, monkeypatch):
    monkeypatch.setenv("VMLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    out, rep = tmp_path / "results", tmp_path / "report"
    r = CliRunner().invoke(s4.command, ["--results", str(out), "--report", str(rep), "--read-programs", "cat"])
    assert r.exit_code == 0, r.output
    assert "cat left out of the read() study: not captured yet and valgrind not installed" in r.output
    assert not (out / "read_policies.csv").exists()
    assert len(json.loads((rep / "verdicts.json").read_text())["verdicts"]) == 6
