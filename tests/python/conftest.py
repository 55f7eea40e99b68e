"""Shared fixtures: a tiny hand-checkable machine and trace, a larger
generated trace, and a way to run the `vmlab` command."""

from __future__ import annotations

import faulthandler
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import vmlab

# One unified, direct-mapped, VIVT cache: 64 bytes = 4 sets of 16-byte lines.
# The set of an address is (addr >> 4) & 3.
TINY_PRESET = """\
name = "tiny-dm"
description = "4-line direct-mapped cache for hand-worked tests"
source = "tests/python/conftest.py"

[memory]
page_size = "4K"
size = "64M"
allocation = "sequential"

[stats]
classify_misses = true

[l1]
size = 64
line = 16
assoc = 1
indexing = "vivt"
write = "write-back"
write_miss = "write-allocate"
"""

# Lackey text. Each line: the line address (addr >> 4), its set, and what the
# cache does, worked by hand (see test_api.test_hand_worked_counts).
TINY_TRACE = """\
==123== Lackey, an example Valgrind tool
I  00001000,4
 L 00002000,4
I  00001004,4
 S 00002010,4
 L 00002014,4
 M 00003000,4
 L 00002000,4
 L 00005010,4
 L 00005020,4
I  00001000,4
==123== exit
"""
#  1 I 0x100 s0  miss compulsory
#  2 L 0x200 s0  miss compulsory (evicts 0x100, clean)
#  3 I 0x100 s0  miss conflict: the 4-line fully associative shadow has it
#  4 S 0x201 s1  write miss compulsory; allocated dirty
#  5 L 0x201 s1  hit
#  6 M 0x300 s0  read miss compulsory (evicts 0x100, clean); write hit -> dirty
#  7 L 0x200 s0  miss conflict (shadow holds 0x100 0x200 0x201 0x300); writes back 0x300
#  8 L 0x501 s1  miss compulsory; writes back 0x201
#  9 L 0x502 s2  miss compulsory
# 10 I 0x100 s0  miss capacity: seen before, gone from the shadow (LRU out at 8)
TINY_EXPECTED = {
    "ifetch": {"accesses": 3, "misses": 3, "compulsory": 1, "capacity": 1, "conflict": 1},
    "read": {"accesses": 6, "misses": 5, "compulsory": 4, "capacity": 0, "conflict": 1},
    "write": {"accesses": 2, "misses": 1, "compulsory": 1, "capacity": 0, "conflict": 0},
}
TINY_WRITEBACKS = 2
TINY_FETCHES = 9

TINY_EVENTS = [
    ("ifetch", 0x1000, 4),
    ("load", 0x2000, 4),
    ("I", 0x1004, 4),
    ("store", 0x2010, 4),
    ("L", 0x2014, 4),
    ("modify", 0x3000, 4),
    ("load", 0x2000, 4),
    ("load", 0x5010, 4),
    ("load", 0x5020, 4),
    ("ifetch", 0x1000, 4, 0),
]


# A test that hangs (say, an engine thread waiting forever after an interrupt)
# must fail the run, not stall CI: dump every thread's stack to the real
# stderr (pytest captures fd 2 during a test) and exit.
HANG_SECONDS = float(os.environ.get("VMLAB_TEST_HANG_SECONDS", "300"))
_real_stderr = None


def pytest_configure(config):
    global _real_stderr
    _real_stderr = os.fdopen(os.dup(2), "w")
    # Digests of the tests' traces (vmlab.runs) go to a folder of this run,
    # not the user's cache; subprocesses inherit it.
    os.environ["VMLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="vmlab-test-cache-")


@pytest.fixture(autouse=True)
def _no_hangs():
    if _real_stderr is not None:
        faulthandler.dump_traceback_later(HANG_SECONDS, exit=True, file=_real_stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def tiny_preset(tmp_path: Path) -> Path:
    p = tmp_path / "tiny.toml"
    p.write_text(TINY_PRESET)
    return p


@pytest.fixture
def tiny_trace(tmp_path: Path) -> Path:
    p = tmp_path / "tiny.lackey"
    p.write_text(TINY_TRACE)
    return p


@pytest.fixture
def bad_trace(tmp_path: Path) -> Path:
    """Line 3 is not lackey."""
    p = tmp_path / "bad.lackey"
    p.write_text("I  00001000,4\n L 00002000,4\n X zzzz,4\n L 00002000,4\n")
    return p


def write_random_trace(path: Path, n: int, seed: int = 1) -> Path:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        r = rng.random()
        if r < 0.6:
            out.append("I  %08x,4" % (0x400000 + (i * 4) % 65536))
        elif r < 0.85:
            out.append(" L %08x,8" % (0x10000000 + rng.randrange(1 << 20) * 8))
        else:
            out.append(" S %08x,8" % (0x10000000 + rng.randrange(1 << 18) * 8))
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.fixture(scope="session")
def medium_trace(tmp_path_factory) -> Path:
    """300,000 random references, as .vmt."""
    d = tmp_path_factory.mktemp("medium")
    text = write_random_trace(d / "medium.lackey", 300_000)
    vmt = d / "medium.vmt"
    vmlab.convert_trace(text, vmt)
    return vmt


def vmlab_command() -> list[str]:
    script = Path(sys.executable).parent / "vmlab"
    if script.exists():
        return [str(script)]
    found = shutil.which("vmlab")
    return [found] if found else [sys.executable, "-m", "vmlab"]


@pytest.fixture
def cli(tmp_path: Path):
    """Runs `vmlab ARGS...` in tmp_path; returns the CompletedProcess."""

    def run(*args: str, check: bool = False, timeout: float = 300) -> subprocess.CompletedProcess:
        env = dict(os.environ, COLUMNS="200")
        proc = subprocess.run(
            [*vmlab_command(), *map(str, args)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            env=env,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"vmlab {' '.join(map(str, args))} -> {proc.returncode}\n{proc.stderr}")
        return proc

    return run


needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
