"""Issue 21: S3's TPC-B mix is measured on PostgreSQL + pgbench
(presets/mp/workloads/tpcb-pgbench.sh, vmlab.studies.s3_tpcb): fault
classification and per-transaction arithmetic by hand on a small made-up
sample, and the shipped tpcb-pgbench.toml against a fresh derivation from the
recorded run's summary (tpcb-pgbench.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vmlab import _engine
from vmlab.studies import s3_tpcb

try:
    import tomllib  # Python >= 3.11
except ImportError:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = ROOT / "presets" / "mp" / "workloads"

#: Two backends' maps: a shared segment, a file (text), the heap, a private
#: anonymous mapping.
MAPS = {
    101: "7f0000000000-7f0000010000 rw-s 00000000 00:01 1027  /dev/zero (deleted)\n"
         "555500000000-555500002000 r-xp 00000000 08:01 42  /usr/lib/postgresql/15/bin/postgres\n"
         "555500100000-555500104000 rw-p 00000000 00:00 0  [heap]\n",
    102: "7f0000000000-7f0000010000 rw-s 00000000 00:01 1027  /dev/zero (deleted)\n"
         "7f1000000000-7f1000004000 rw-p 00000000 00:00 0 \n",
}

EVENTS = "\n".join([
    # 101: two shared not-present (user read, kernel write), a text fault,
    # a heap zero-fill, a copy-on-write on the heap, one outside any map.
    "   101   exceptions:page_fault_user: address=0x7f0000000010 ip=0x5555 error_code=0x4",
    "   101 exceptions:page_fault_kernel: address=0x7f000000f000 ip=_copy_to_iter error_code=0x2",
    "   101   exceptions:page_fault_user: address=0x555500001000 ip=0x5555 error_code=0x14",
    "   101   exceptions:page_fault_user: address=0x555500100008 ip=0x5555 error_code=0x6",
    "   101   exceptions:page_fault_user: address=0x555500103ff8 ip=0x5555 error_code=0x7",
    "   101   exceptions:page_fault_user: address=0x600000000000 ip=0x5555 error_code=0x6",
    # 102: a present-write on the shared segment (shared, not copy-on-write),
    # a copy-on-write in its anonymous mapping; a brk query and two raises
    # (one of them the first seen, so not counted), a fork, an mmap.
    "   102   exceptions:page_fault_user: address=0x7f0000004000 ip=0x5555 error_code=0x7",
    "   102   exceptions:page_fault_user: address=0x7f1000000000 ip=0x5555 error_code=0x7",
    "   102 syscalls:sys_exit_brk: 0x5555a000",
    "   102 syscalls:sys_exit_brk: 0x5555b000",
    "   102 syscalls:sys_exit_brk: 0x5555b000",
    "   102 sched:sched_process_fork: comm=postgres pid=102 child_comm=postgres child_pid=103",
    "   102 syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00021000, prot: 0x00000003",
    "",
])


def test_faults_and_calls_are_classified_by_hand():
    w = s3_tpcb.count_window(EVENTS, MAPS)
    assert w["faults"] == dict(shared=3, file=1, zero_fill=1, cow=2, unknown=1)
    assert w["calls"] == dict(brk_raises=1, mmap=1, munmap=0, fork=1)


def test_a_fault_of_an_unknown_backend_is_an_error():
    with pytest.raises(s3_tpcb.RawError, match="pid 101"):
        s3_tpcb.count_window(EVENTS, {102: MAPS[102]})


def summary(transactions=400):
    w = dict(faults=dict(shared=30, file=10, zero_fill=8, cow=4, unknown=2),
             calls=dict(brk_raises=2, mmap=0, munmap=0, fork=1), transactions=transactions, backends=8,
             proc=dict(minflt=52, majflt=0, utime_ticks=10, stime_ticks=4), reclaimed_pages=6,
             shared_rss_kb_mean=8192)
    early = dict(w, faults=dict(w["faults"], shared=4000))
    return dict(meta={}, windows=[early, w],
                callgrind=[dict(transactions=250, instructions=1_300_000), dict(transactions=50, instructions=500_000)])


def test_per_transaction_counts_by_hand():
    d = s3_tpcb.derive(summary())
    # The last window: (30 + 10) / 400 minor, 4 / 400 copy-on-write, 6 / 400
    # reclaimed; (1.3 M - 0.5 M) / (250 - 50) instructions; 8192 KB = 2048 pages.
    assert d == dict(transactions=400, backends=8, minor_fault=0.1, cow_fault=0.01, zero_fill=0.02, unknown=0.005,
                     pageout=0.015, brk=0.005, fork=0.0025, majflt=0.0, minflt=0.13, shared_pages=2048,
                     user_cycles=4000)
    assert s3_tpcb.derive(summary(), 0)["minor_fault"] == (4000 + 10) / 400


def test_empty_windows_are_errors():
    with pytest.raises(s3_tpcb.RawError, match="no transaction"):
        s3_tpcb.derive(summary(transactions=0))
    s = summary()
    s["callgrind"][1]["transactions"] = 250
    with pytest.raises(s3_tpcb.RawError, match="two different"):
        s3_tpcb.derive(s)


def test_a_directory_without_meta_is_an_error(tmp_path, capsys):
    assert s3_tpcb.main([str(tmp_path)]) == 2
    assert "no meta.txt" in capsys.readouterr().err


def test_the_shipped_tpcb_mix_is_the_recorded_runs():
    s = json.loads((WORKLOADS / "tpcb-pgbench.json").read_text())
    d = s3_tpcb.derive(s)
    toml = tomllib.loads((WORKLOADS / "tpcb-pgbench.toml").read_text())
    ops = {o["kind"]: o["per_transaction"] for o in toml["op"]}
    assert ops == {"minor-fault": d["minor_fault"], "cow-fault": d["cow_fault"], "pageout": d["pageout"]}
    assert (toml["user_cycles"], toml["shared_pages"]) == (d["user_cycles"], d["shared_pages"])
    # The engine parses the shipped file to the same numbers.
    shipped = {w["name"]: w for w in json.loads(_engine.mp_sources())["workloads"]}["tpcb-pgbench"]
    assert shipped["user_cycles"] == d["user_cycles"]
    assert {o["kind"]: o["per_transaction"] for o in shipped["ops"]} == ops
    # What the mix leaves out was measured to be absent, not skipped.
    assert (d["zero_fill"], d["brk"], d["fork"], d["unknown"], d["majflt"]) == (0, 0, 0, 0, 0)
