"""``vmlab os-run``: traces through the OS model (crates/os/src/replay.rs, run_trace)."""

import json
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from vmlab import _engine
from vmlab.cli import cli
from vmlab.osrun import os_run

# The HP 9000/834 has 2 KB pages. Data pages touched: 0x10000, 0x10800 and
# 0x11000 (the load at 0x10ffe crosses into both), and the stack page
# 0x1ffefff000, folded below the 2 GB user limit to 0x7efff000.
LACKEY = """\
==1== a valgrind line, skipped
I  00400000,4
 L 00010000,4
 S 00010004,4
 L 00010ffe,4
 M 1ffefff010,8
"""


@pytest.fixture
def trace(tmp_path):
    p = tmp_path / "tiny.lackey"
    p.write_text(LACKEY)
    return str(p)


def test_exact_counts(trace):
    out = os_run(trace, policy="flush-on-unmap")
    assert (out["events"], out["accesses"], out["ifetches_skipped"], out["folded_pages"]) == (5, 5, 1, 1)
    assert out["faults"]["zero_fill"] == 4
    assert out["faults"]["minor"] == 0 and out["faults"]["copy_on_write"] == 0
    c = out["counters"]
    assert (c["traps"], c["tlb_hits"], c["tlb_misses"]) == (4, 1, 4)
    assert out["violation_count"] == 0 and out["oracle_checks"] > 0


def test_none_shows_the_unflushed_kernel_zero_fill(trace):
    out = os_run(trace, policy="none")
    stale = [v for v in out["violations"] if v["kind"] == "stale-read"]
    # The three first reads see the pre-zero contents (kernel window alias).
    assert len(stale) == 3
    assert all(v["policy"] == "none" for v in out["violations"])
    assert os_run(trace, policy="none", oracle=False)["violation_count"] == 0


def test_cli(trace):
    r = CliRunner().invoke(cli, ["os-run", "--trace", trace, "--policy", "pseudo-alias"])
    assert r.exit_code == 0, r.output
    assert "zero_fill 4" in r.output and "oracle violations 0" in r.output
    r = CliRunner().invoke(cli, ["os-run", "--trace", trace, "--json", "--no-oracle"])
    assert json.loads(r.output)["faults"]["zero_fill"] == 4


def test_bad_input_names_the_file(tmp_path):
    p = tmp_path / "bad.lackey"
    p.write_text(" L zz,4\n")
    with pytest.raises(_engine.VmlabError, match="bad.lackey"):
        os_run(str(p))


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")
def test_real_trace_of_bin_true(tmp_path):
    vmt = tmp_path / "true.vmt"
    subprocess.run([sys.executable, "-m", "vmlab", "trace", "-o", str(vmt), "--", "/bin/true"], check=True,
                   capture_output=True)
    out = os_run(str(vmt), policy="flush-on-unmap")
    # Every fault is the first touch of a page: one zero-fill per distinct page.
    assert out["faults"]["zero_fill"] == out["counters"]["traps"] > 0
    assert out["faults"]["minor"] == out["faults"]["copy_on_write"] == 0
    assert out["violation_count"] == 0
    assert out["counters"]["tlb_misses"] >= out["faults"]["zero_fill"]
