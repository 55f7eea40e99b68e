"""The S1 workload registry, and real captures of the small compiler and
database traces (skipped on a machine without valgrind, cc1 or sqlite3)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vmlab import workloads
from vmlab.traces import convert_trace, trace_info


def test_registry_names_and_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert list(workloads.WORKLOADS) == ["compiler", "database", "bigfoot", "sparse"]
    w = workloads.get("database")
    assert w.trace_path("small", tmp_path) == tmp_path / "database-small.vmt"
    monkeypatch.setenv("VMLAB_CACHE_DIR", str(tmp_path / "c"))
    assert w.trace_path("full") == tmp_path / "c" / "traces" / "s1" / "database-full.vmt"
    assert workloads.default_build_dir() == tmp_path / "c" / "build" / "workloads"
    for name, wl in workloads.WORKLOADS.items():
        assert wl.character and wl.why, name
        assert set(wl.expected) == set(workloads.SIZES), name
        for src, _ in wl.build:
            assert (workloads.SOURCES / src).is_file(), src


def test_the_default_cache_is_the_users_never_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    monkeypatch.delenv("VMLAB_CACHE_DIR", raising=False)
    assert workloads.cache_dir() == platformdirs.user_cache_path("vmlab")
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere/cache")
    assert workloads.default_trace_dir() == Path("/somewhere/cache/vmlab/traces/s1")
    package = Path(workloads.__file__).parent
    assert not workloads.default_build_dir().is_relative_to(package)
    # The sources are package data, beside the module.
    assert workloads.SOURCES == package / "workload_sources"


def test_a_build_goes_to_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("cc") is None:
        pytest.skip("needs a C compiler")
    monkeypatch.setenv("VMLAB_CACHE_DIR", str(tmp_path))
    workloads.build("bigfoot")
    assert sorted(p.name for p in (tmp_path / "build" / "workloads").iterdir()) == ["hashjoin"]


def test_unknown_names_and_sizes_are_errors() -> None:
    with pytest.raises(workloads.WorkloadError, match="unknown S1 workload `gcc`: expected one of compiler"):
        workloads.get("gcc")
    with pytest.raises(workloads.WorkloadError, match="unknown workload size `medium`"):
        workloads.ensure("database", "medium")
    assert workloads.main(["huge"]) == 2


def test_commands_trace_the_worker_process_itself(tmp_path: Path) -> None:
    """valgrind does not follow exec: the traced program is the one doing the work."""
    db = workloads.get("database").command("full", tmp_path / "b", tmp_path)
    assert Path(db[0]).name == "sqlite3" and db[1:4] == ["-batch", "-init", "/dev/null"]
    assert db[4] == str(tmp_path / "s1.sqlite")
    assert ".parameter set @n 700" in db
    assert workloads.get("bigfoot").command("small", tmp_path, tmp_path) == [str(tmp_path / "hashjoin"), "16", "100000"]
    assert workloads.get("sparse").command("full", tmp_path, tmp_path)[1:] == ["128", "8", "200000"]
    if shutil.which("cc") and shutil.which("gcc"):
        cc = workloads.get("compiler").command("small", tmp_path, tmp_path)
        assert Path(cc[0]).name == "cc1" and "-fsyntax-only" in cc


def test_an_existing_trace_is_not_captured_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    existing = tmp_path / "bigfoot-full.vmt"
    existing.write_bytes(b"anything")

    def no_capture(*a, **k):
        raise AssertionError("capture must not run when the trace exists")

    monkeypatch.setattr("vmlab.traces.capture_trace", no_capture)
    assert workloads.ensure("bigfoot", "full", trace_dir=tmp_path, progress=False) == existing


def _need(*tools: str) -> None:
    missing = [t for t in ("valgrind", *tools) if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")


# Bounds from captures on Debian 12 (gcc 12.2, sqlite 3.40, valgrind 3.19),
# wide enough for other patch releases of those, tight enough that a wrong
# program, wrong size or broken capture falls outside.
BOUNDS = {
    # name: (references, data pages 4 KB, instruction pages)
    "compiler": ((15e6, 60e6), (300, 6000), (300, 4000)),
    "database": ((6e6, 40e6), (100, 4000), (100, 2000)),
}


@pytest.mark.parametrize("name", ["database", "compiler"])
def test_small_capture_is_sane_and_round_trips(name: str, tmp_path: Path) -> None:
    _need(*workloads.get(name).needs)
    path = workloads.ensure(name, "small", trace_dir=tmp_path, progress=False)
    assert path == tmp_path / f"{name}-small.vmt" and path.exists()
    assert not list(tmp_path.glob("*.partial"))
    info = trace_info(path)
    (lo, hi), (dlo, dhi), (ilo, ihi) = BOUNDS[name]
    assert lo <= info["accesses"] <= hi, info["accesses"]
    kinds = info["by_kind"]
    assert kinds["ifetch"] > 0.4 * info["accesses"]
    assert kinds["load"] > 0 and kinds["store"] > 0
    assert dlo <= info["pages_4k"]["data"] <= dhi, info["pages_4k"]
    assert ilo <= info["pages_4k"]["instr"] <= ihi, info["pages_4k"]
    assert info["context_switches"] == 0 and list(info["by_asid"]) == ["0"]
    # Round trip: writing it again gives the same numbers.
    copy = tmp_path / "copy.vmt"
    convert_trace(path, copy)
    again = trace_info(copy)
    assert dict(again) == dict(info)


def test_cli_interleaves_traces_as_processes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from vmlab.cli import main

    a, b = tmp_path / "a.lackey", tmp_path / "b.lackey"
    a.write_text("I  00400000,4\n L 7ff00000,8\n S 7ff00008,8\n")
    b.write_text("I  00400000,4\n")
    out = tmp_path / "ab.vmt"
    assert main(["trace", "interleave", str(a), str(b), "--quantum", "2", "-o", str(out)]) == 0
    assert "2 traces as asids 1..=2, quantum 2: 7 events, 3 context switches" in capsys.readouterr().err
    info = trace_info(out)
    # switch to 1, two accesses; switch to 2, one; switch to 1, the last one.
    assert info["context_switches"] == 3
    assert info["by_asid"] == {"1": 3, "2": 1}
    assert main(["trace", "interleave", str(a), "--quantum", "0", "-o", str(out)]) == 2
