"""Compatibility modes end to end (docs/reference-semantics.md, *Compatibility
modes*): `vmlab run --compat cachegrind` against valgrind's own Cachegrind on
a real program, and `--compat dinero` through the CLI and the Python API on
traces worked by hand (the engine's own hand-worked cases are in
crates/machine/tests/compat.rs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import vmlab
from conftest import TINY_PRESET, TINY_TRACE, needs_valgrind, vmlab_command

PROGRAM = Path(__file__).parent / "programs" / "straddle.c"

# (I1, D1, LL) as Cachegrind takes them: size,assoc,line. Cachegrind needs
# every line >= the largest guest register (32 bytes with AVX).
GEOMETRIES = [
    # L1 lines shorter than LL's: the packed 8-byte fields straddle 32-byte lines.
    ("1024,2,32", "2048,4,32", "16384,8,64"),
    # Equal lines everywhere (Cachegrind's IrNoX fast path), a direct-mapped I1.
    ("4096,1,64", "1024,2,64", "8192,4,64"),
    # I1 lines longer than D1's, 128-byte LL lines, 16 ways.
    ("2048,4,64", "4096,8,32", "32768,16,128"),
]

# Cachegrind's totals (cachegrind.out's `events:` and `summary:` lines) as
# vmlab's counters: (cache, request kind, accesses or misses).
EVENTS = {
    "Ir": ("l1i", "ifetch", "accesses"),
    "I1mr": ("l1i", "ifetch", "misses"),
    "ILmr": ("l2", "ifetch", "misses"),
    "Dr": ("l1d", "read", "accesses"),
    "D1mr": ("l1d", "read", "misses"),
    "DLmr": ("l2", "read", "misses"),
    "Dw": ("l1d", "write", "accesses"),
    "D1mw": ("l1d", "write", "misses"),
    "DLmw": ("l2", "write", "misses"),
}


def _environment() -> dict:
    """The one environment both valgrind runs get. The environment is copied
    onto the client's stack, so any difference moves every stack address: a
    shell's `_` (the path of the command it ran, vmlab's or valgrind's) alone
    shifted the stack by 16 bytes and changed D1 misses by ~50 while every
    instruction and access count still agreed. pytest's own
    PYTEST_CURRENT_TEST ("... (setup)" while the fixture captures, "...
    (call)" while the test runs Cachegrind) also changes the instruction
    count: the dynamic loader reads every variable."""
    return {k: v for k, v in os.environ.items() if k not in ("_", "PYTEST_CURRENT_TEST")}


def _preset(geometry: tuple[str, str, str]) -> str:
    """A machine like Cachegrind's: virtually indexed and tagged (Cachegrind
    sees virtual addresses), LRU, write-allocate, bit-select."""
    text = 'name = "cachegrind-like"\n[memory]\npage_size = "4K"\nsize = "1G"\nallocation = "sequential"\n'
    for name, spec in zip(("l1i", "l1d", "l2"), geometry):
        size, assoc, line = spec.split(",")
        text += (f'[{name}]\nsize = {size}\nline = {line}\nassoc = {assoc}\nindexing = "vivt"\n'
                 'replacement = "lru"\nwrite_miss = "write-allocate"\n')
    return text


def _cachegrind_totals(path: Path) -> dict:
    names = values = None
    for line in path.read_text().splitlines():
        if line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith("summary:"):
            values = [int(v) for v in line.split()[1:]]
    assert names and values, f"{path}: no events/summary lines"
    return dict(zip(names, values))


def _vmlab_totals(result: dict) -> dict:
    caches = {c["name"]: c["stats"] for c in result["caches"]}
    return {e: caches[c][k][what] for e, (c, k, what) in EVENTS.items()}


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    """The program compiled, and its trace captured with `vmlab trace`."""
    d = tmp_path_factory.mktemp("cachegrind")
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler (cc) is needed, as for the S1 workloads"
    subprocess.run([cc, "-O1", "-o", str(d / "straddle"), str(PROGRAM)], check=True)
    trace = d / "straddle.vmt"
    subprocess.run([*vmlab_command(), "trace", "-q", "-o", str(trace), "--", "./straddle"],
                   cwd=d, env=_environment(), check=True, capture_output=True)
    return d, trace


def _vmlab_run(d: Path, trace: Path, preset: Path, *extra: str) -> dict:
    out = subprocess.run([*vmlab_command(), "run", "-q", "-m", str(preset), "-t", str(trace), *extra, "--json", "-"],
                         cwd=d, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@needs_valgrind
@pytest.mark.parametrize("geometry", GEOMETRIES, ids=["l1-32-ll-64", "all-64", "i64-d32-ll-128"])
def test_compat_cachegrind_equals_cachegrind(captured, geometry):
    d, trace = captured
    i1, d1, ll = geometry
    out = d / f"cachegrind.out.{'_'.join(geometry).replace(',', '-')}"
    subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--I1={i1}", f"--D1={d1}", f"--LL={ll}",
                    f"--cachegrind-out-file={out}", "./straddle"],
                   cwd=d, env=_environment(), check=True, capture_output=True)
    cg = _cachegrind_totals(out)
    preset = d / f"{out.name}.toml"
    preset.write_text(_preset(geometry))
    result = _vmlab_run(d, trace, preset, "--compat", "cachegrind")
    assert result["compat"] == "cachegrind"

    # The same instruction stream first: lackey and Cachegrind instrument the
    # same VEX code from the program's first instruction (the dynamic
    # loader's entry; valgrind's own start-up is not the client's), so every
    # instruction and data access is seen by both. A modify (lackey's `M`,
    # Cachegrind's `Dm`) is a read to Cachegrind.
    events = result["events"]
    assert (cg["Ir"], cg["Dr"], cg["Dw"]) == (events["ifetch"], events["load"] + events["modify"], events["store"])
    assert cg["Ir"] > 400_000 and cg["Dr"] + cg["Dw"] > 100_000
    # Then every miss count, reads and writes apart.
    assert _vmlab_totals(result) == cg

    if geometry == GEOMETRIES[0]:
        # vmlab's own rules count differently on the same machine (line
        # fills below, a reference per line, a write miss's fill as a read):
        # the comparison above can fail.
        own = _vmlab_totals(_vmlab_run(d, trace, preset))
        assert own != cg
        assert own["DLmw"] != cg["DLmw"] and own["D1mr"] != cg["D1mr"]


# A one-level machine of 2-way sets (64 B, 16-byte lines, 2 sets) and a
# second level where the order of the copy-back decides a count (the
# `dinero_copies_back_two_levels_least_recent_first` case of the engine's
# tests): L1 one set of two ways, L2 direct-mapped with 0x00 and 0x40 in
# one set.
TWO_LEVELS = """\
name = "dinero-order"
[memory]
page_size = "4K"
size = "16M"
allocation = "sequential"
[l1]
size = 32
line = 16
assoc = 2
[l2]
size = 64
line = 16
assoc = 1
"""


def test_compat_dinero_copies_back_in_dinero_order(tmp_path):
    p = tmp_path / "two.toml"
    p.write_text(TWO_LEVELS)
    m = vmlab.Machine.from_preset(str(p))
    events = [("store", 0x40, 4), ("store", 0x00, 4), ("load", 0x40, 4)]
    own = m.run_events(events)
    assert own.compat == "vmlab" and "compat" not in own.to_dict()
    assert own.memory == {"reads": 2, "writes": 0, "bytes_read": 32, "bytes_written": 0}
    din = m.run_events(events, compat="dinero")
    assert din.compat == "dinero"
    # Least recently used first: 0x00 hits L2, 0x40 misses and evicts it
    # dirty; L2 then copies back 0x40.
    assert (din.accesses("l2", "write"), din.misses("l2", "write")) == (2, 1)
    assert din.caches["l1"]["stats"]["writebacks"] == 2
    assert din.memory == {"reads": 2, "writes": 2, "bytes_read": 32, "bytes_written": 32}
    # Hits and misses above are Dinero's and vmlab's alike.
    assert din.misses("l1") == own.misses("l1") and din.accesses("l1") == own.accesses("l1")


def test_cli_compat(cli, tmp_path):
    preset = tmp_path / "tiny.toml"
    preset.write_text(TINY_PRESET.replace("classify_misses = true", "classify_misses = false"))
    trace = tmp_path / "tiny.lackey"
    # The tiny trace ends with no dirty line; one more store leaves one.
    trace.write_text(TINY_TRACE.replace("==123== exit\n", " S 00004000,4\n==123== exit\n"))
    own = json.loads(cli("run", "-q", "-m", preset, "-t", trace, "--json", "-", check=True).stdout)
    din = json.loads(cli("run", "-q", "-m", preset, "-t", trace, "--compat", "dinero", "--json", "-",
                         check=True).stdout)
    assert "compat" not in own and din["compat"] == "dinero"
    assert (own["memory"]["writes"], din["memory"]["writes"]) == (2, 3)
    table = cli("run", "-m", preset, "-t", trace, "--compat", "dinero", check=True).stdout
    assert table.splitlines()[0].endswith("compat dinero")

    bad = cli("run", "-m", preset, "-t", trace, "--compat", "dinero4")
    assert bad.returncode == 2 and bad.stderr.startswith("vmlab: error:") and len(bad.stderr.splitlines()) == 1
    assert "dinero4" in bad.stderr and "cachegrind" in bad.stderr
    # Cachegrind's one miss per reference has no 3C class.
    classified = tmp_path / "classified.toml"
    classified.write_text(TINY_PRESET)
    refused = cli("run", "-m", classified, "-t", trace, "--compat", "cachegrind")
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert "stats.classify_misses" in refused.stderr


def test_python_compat_errors(tmp_path):
    m = vmlab.Machine.from_preset("jm-base")
    with pytest.raises(vmlab.VmlabError, match="unknown compatibility mode `bogus`"):
        m.run_events([("load", 0, 4)], compat="bogus")
    with pytest.raises(vmlab.VmlabError, match="not a mode name"):
        m.run_events([("load", 0, 4)], compat=3)
