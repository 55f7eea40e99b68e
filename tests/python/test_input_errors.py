"""Bad input that used to pass silently or end in a bare Python exception
(issue 18, item 5): each is now one ``vmlab: error:`` line with exit 2 on
the command line, or a ``VmlabError`` naming the problem in Python."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import vmlab
from conftest import TINY_EVENTS
from test_cli import assert_one_line_error


def test_an_empty_text_trace_is_an_error(cli, tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    assert_one_line_error(cli("run", "-m", "jm-base", "-t", "empty.txt"),
                          "empty.txt: the file is empty: expected lackey references")
    (tmp_path / "quiet.txt").write_text("==1== Lackey\n\n==1== exit\n")
    assert_one_line_error(cli("trace", "info", "quiet.txt"),
                          "quiet.txt: no lackey reference in the file: its 3 lines are all blank or valgrind's own")
    (tmp_path / "empty.din").write_text("")
    assert_one_line_error(cli("run", "-m", "jm-base", "-t", "empty.din"), "empty.din: the file is empty")
    with pytest.raises(vmlab.VmlabError, match="the file is empty"):
        vmlab.Machine.from_preset("jm-base").run(tmp_path / "empty.txt")


def test_lackey_sizes_outside_lackeys_range_are_errors(cli, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("I  00401000,4\n S 00001000,99999\n")
    assert_one_line_error(cli("run", "-m", "jm-base", "-t", "big.txt"),
                          "big.txt: line 2: size `99999` is outside lackey's range for a store: 1 to 512 bytes")
    (tmp_path / "fetch.txt").write_text("I  00401000,21\n")
    assert_one_line_error(cli("trace", "info", "fetch.txt"),
                          "fetch.txt: line 1: size `21` is outside lackey's range for an instruction fetch: 1 to 20")


def test_lackey_addresses_may_have_leading_zeros(cli, tmp_path: Path) -> None:
    (tmp_path / "zeros.txt").write_text(" L 0000000000000000001000,4\n L 00000000000000000000001004,4\n")
    info = json.loads(cli("trace", "info", "zeros.txt", "--json", check=True).stdout)
    assert info["accesses"] == 2
    assert info["addr_range"] == {"min": 0x1000, "max": 0x1007}
    # 17 digits after the zeros still do not fit.
    (tmp_path / "long.txt").write_text(" L 000011112222333344445,4\n")
    assert_one_line_error(cli("trace", "info", "long.txt"), "long.txt: line 1:", "does not fit in 64 bits")


def test_run_without_a_trace_names_the_argument() -> None:
    m = vmlab.Machine.from_preset("jm-base")
    with pytest.raises(vmlab.VmlabError, match=r"^Machine.run: trace must be a path \(str or os.PathLike\), got None$"):
        m.run(None)
    with pytest.raises(vmlab.VmlabError, match=r"trace_info: path must be a path .*got 3"):
        vmlab.trace_info(3)


def _unwritable(tmp_path: Path) -> list[Path]:
    """Folders a file cannot be created in, whoever runs the test: a
    read-only folder (root writes anywhere, so only when not root) and a
    'folder' that is a file."""
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    folders = [not_a_folder]
    if os.geteuid() != 0:
        read_only = tmp_path / "ro"
        read_only.mkdir()
        read_only.chmod(0o555)
        folders.append(read_only)
    return folders


def test_result_writers_name_the_path(tmp_path: Path) -> None:
    r = vmlab.Machine.from_preset("jm-base").run_events(TINY_EVENTS)
    for folder in _unwritable(tmp_path):
        for write, what in [(r.to_csv, "CSV"), (r.write_json, "JSON"), (r.to_parquet, "Parquet")]:
            path = folder / f"out.{what.lower()}"
            with pytest.raises(vmlab.VmlabError, match=f"^{path}: cannot write the result as {what}: "):
                write(path)


def test_cli_outputs_that_cannot_be_written(cli, tmp_path: Path, tiny_preset, tiny_trace) -> None:
    (tmp_path / "file").write_text("")
    assert_one_line_error(cli("run", "-m", tiny_preset, "-t", tiny_trace, "--csv", "file/out.csv"),
                          "file/out.csv: cannot write the result as CSV: Not a directory")
    # A study's results folder that is a file: what the OS said, naming it.
    assert_one_line_error(cli("reproduce", "s2", "--results", "file"), "file: File exists")


def test_addresses_past_64_bits_say_so() -> None:
    m = vmlab.Machine.from_preset("jm-base")
    with pytest.raises(vmlab.VmlabError, match=r"events\[0\]: address 18446744073709551616 does not fit in 64 "
                                               r"bits: expected an integer from 0 to 2\^64-1"):
        m.run_events([("load", 2**64, 4)])
    with pytest.raises(vmlab.VmlabError, match=r"address -1 is negative: expected an integer from 0 to 2\^64-1"):
        m.run_events([("load", -1, 4)])
    with pytest.raises(vmlab.VmlabError, match=r"address '0x10' is not an integer"):
        m.run_events([("load", "0x10", 4)])
    with pytest.raises(vmlab.VmlabError, match=r"events\[1\]: asid 4294967296 does not fit in 32 bits"):
        m.run_events([("load", 0, 4), ("load", 0, 4, 2**32)])
    # The largest address is a reference like any other.
    assert m.run_events([("load", 2**64 - 1, 1)]).references == 1
