"""`vmlab pagetables` and vmlab.pagetables: page-table memory per organisation.

The exact numbers are worked out in crates/mmu/tests/pagetables_sparse.rs
(presets) and below (the tiny trace)."""

from __future__ import annotations

import csv
import io
import json

import pytest

import vmlab
from vmlab.pagetables import pagetable_kinds, pagetable_memory

KINDS = ["mips", "mach", "puma", "x86-2level", "x86-4level", "parisc", "powerpc"]


def by_table(report):
    return {r["table"]: r for r in report.rows}


def test_kinds_in_order():
    assert pagetable_kinds() == KINDS


def test_presets_dense_and_sparse_differ_where_they_should():
    dense = by_table(pagetable_memory("dense"))
    sparse = by_table(pagetable_memory("sparse"))
    # ULTRIX: 5 frames dense, 51 sparse (see pagetables_sparse.rs).
    assert dense["mips"]["bytes"] == 5 * 4096
    assert sparse["mips"]["bytes"] == 51 * 4096
    assert sparse["mach"]["bytes"] == sparse["mips"]["bytes"] + 4096
    # Same 2,560 pages: the hashed tables do not care how they are spread.
    assert dense["powerpc"]["bytes"] == sparse["powerpc"]["bytes"] == 2 << 20  # 256 MB / 128
    assert dense["parisc"]["parts"][0] == sparse["parisc"]["parts"][0] == ["hash table", 2 << 20]
    for k in KINDS:
        assert dense[k]["mapped_pages"] == sparse[k]["mapped_pages"] == 2560
        assert dense[k]["error"] is None


def test_tiny_trace_pages(tiny_trace):
    # Pages touched: 1, 2, 3 (0x1000..0x3003) and 5, all of space 0.
    r = pagetable_memory(trace=str(tiny_trace), phys_mb=1)
    assert r.description == {"name": "tiny.lackey", "spaces": 1, "regions": 2, "pages": 4, "folded": False}
    t = by_table(r)
    assert t["mips"]["bytes"] == 2 * 4096  # root frame + UPT page 0
    assert t["mach"]["bytes"] == 3 * 4096  # + its kernel-table page
    assert t["x86-2level"]["bytes"] == 2 * 4096  # directory + one table
    assert t["x86-4level"]["bytes"] == 4 * 4096  # one page per level
    assert t["parisc"]["bytes"] == 8192  # 256 frames x 2 entries x 16 B
    assert t["parisc"]["useful_bytes"] == 4 * 16
    # Buckets of pages 1, 2, 3, 5 (space 0, 512 entries): the pages themselves.
    assert t["parisc"]["chains"]["occupied"] == 4 and t["parisc"]["chains"]["max_chain"] == 1
    assert t["mips"]["chains"] is None
    assert t["powerpc"]["bytes"] == 64 * 1024  # the architecture's minimum
    assert t["mips"]["useful_bytes"] == (4 + 1) * 4  # 4 UPTEs + 1 root PTE


def test_sixty_four_bit_pages_fold_or_error(tmp_path):
    p = tmp_path / "x64.lackey"
    p.write_text("I  00401000,4\n L 1ffefff008,8\n")
    folded = pagetable_memory(trace=str(p))
    assert folded.description["folded"] is True
    assert all(r["error"] is None for r in folded.rows)
    raw = by_table(pagetable_memory(trace=str(p), fold=False))
    assert "31-bit" in raw["mips"]["error"]
    assert raw["x86-4level"]["error"] is None


def test_bad_arguments_are_vmlab_errors(tmp_path):
    with pytest.raises(vmlab.VmlabError, match="unknown address-space preset"):
        pagetable_memory("medium")
    with pytest.raises(vmlab.VmlabError, match="unknown page-table organisation"):
        pagetable_memory(kinds=["sparc"])
    with pytest.raises(vmlab.VmlabError):
        pagetable_memory(trace=str(tmp_path / "missing.vmt"))


def test_cli_table_csv_and_json(cli):
    p = cli("pagetables", "--space", "sparse", check=True)
    lines = p.stdout.splitlines()
    assert lines[0].startswith("sparse: 2560 pages of 4 KB")
    assert [line.split()[0] for line in lines[2:]] == ["table", *KINDS]
    mips = next(line for line in lines if line.startswith("mips "))
    assert mips.split()[1] == "204"  # 51 frames = 204 KB

    p = cli("pagetables", "--csv", "-", "--table", "mips", "--table", "powerpc", check=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert [(r["table"], r["bytes"]) for r in rows] == [("mips", str(5 * 4096)), ("powerpc", str(2 << 20))]
    p = cli("pagetables", "--csv", "-", "--table", "parisc", check=True)
    row = next(csv.DictReader(io.StringIO(p.stdout)))
    assert float(row["chain_mean"]) >= 1.0 and int(row["chain_max"]) >= 1

    p = cli("pagetables", "--json", "-", "--phys-mb", "16", check=True)
    data = json.loads(p.stdout)
    assert data["phys_frames"] == 4096
    assert by_table(vmlab.pagetables.PagetableReport.from_json(p.stdout))["powerpc"]["bytes"] == 128 * 1024

    # 8 MB is 2,048 frames, fewer than the 2,560 data pages: error rows.
    p = cli("pagetables", "--phys-mb", "8", check=True)
    mips = next(line for line in p.stdout.splitlines() if line.startswith("mips "))
    assert "out of physical memory" in mips


def test_cli_errors_are_one_line(cli, bad_trace):
    p = cli("pagetables", "--trace", bad_trace)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vmlab: error: ") and "bad.lackey" in lines[0], p.stderr
    p = cli("pagetables", "--space", "medium")
    assert p.returncode == 2 and "Traceback" not in p.stderr
