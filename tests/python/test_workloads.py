"""The S1 workload registry, and real captures of the small traces (skipped
on a machine without valgrind, cc1 or sqlite3): sane, and the same file
when captured again from elsewhere."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from vmlab import workloads
from vmlab.traces import convert_trace, trace_info, trace_sha256


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
    """valgrind does not follow exec: the traced program is the one doing the
    work. It runs in the capture directory and names its files relatively, so
    no path of the checkout reaches it."""
    db = workloads.get("database").command("full", tmp_path / "b", tmp_path)
    assert Path(db[0]).name == "sqlite3" and db[1:5] == ["-batch", "-init", "/dev/null", "s1.sqlite"]
    assert ".testctrl prng_seed 1" in db and ".parameter set @n 3000" in db and ".read vortex.sql" in db
    small = workloads.get("database").command("small", tmp_path / "b", tmp_path)
    assert ".parameter set @n 20" in small and ".read queries.sql" in small
    assert workloads.get("database").inputs(tmp_path) == [workloads.SOURCES / "database" / "queries.sql",
                                                          workloads.SOURCES / "database" / "vortex.sql"]
    assert all(f.is_file() for w in workloads.WORKLOADS.values() for f in w.inputs(tmp_path)
               if workloads.SOURCES in f.parents)
    assert workloads.get("bigfoot").command("small", tmp_path, tmp_path) == ["./hashjoin", "16", "100000"]
    assert workloads.get("bigfoot").inputs(tmp_path) == [tmp_path / "hashjoin"]
    assert workloads.get("sparse").command("full", tmp_path, tmp_path) == ["./sparse", "128", "8", "200000"]
    for name in workloads.WORKLOADS:
        if name == "compiler" and not shutil.which("gcc"):
            continue
        cmd = workloads.get(name).command("small", tmp_path, tmp_path)
        assert not any(str(tmp_path) in word or str(workloads.SOURCES) in word for word in cmd), cmd
    if shutil.which("cc") and shutil.which("gcc"):
        cc = workloads.get("compiler").command("small", tmp_path, tmp_path)
        assert Path(cc[0]).name == "cc1" and "-fsyntax-only" in cc and cc[-1] == "calc.c"
        assert workloads.get("compiler").command("full", tmp_path, tmp_path)[-1] == "zstd_v07.i"
        assert "-frandom-seed=vmlab" in cc


def test_an_existing_trace_is_not_captured_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    existing = tmp_path / "bigfoot-full.vmt"
    existing.write_bytes(b"anything")
    workloads.sidecar_path(existing).write_text(json.dumps({"capture_key": workloads.workload_key("bigfoot", "full")}))

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


@pytest.fixture(scope="module")
def first_capture(tmp_path_factory: pytest.TempPathFactory):
    """Each small workload captured once from this checkout, shared by the
    tests below (a capture takes up to a minute or two)."""
    made: dict[str, Path] = {}

    def get(name: str) -> Path:
        _need(*workloads.get(name).needs)
        if name not in made:
            made[name] = workloads.ensure(name, "small", trace_dir=tmp_path_factory.mktemp(name), progress=False)
        return made[name]

    return get


@pytest.mark.parametrize("name", ["database", "compiler"])
def test_small_capture_is_sane_and_round_trips(name: str, first_capture, tmp_path: Path) -> None:
    path = first_capture(name)
    assert path.name == f"{name}-small.vmt" and path.exists()
    assert not list(path.parent.glob("*.partial"))
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


REPEATABLE = [name for name, w in workloads.WORKLOADS.items() if w.repeatable]


def test_every_workload_is_repeatable() -> None:
    # sparse was not until session 24: its workers were pthreads, scheduled
    # by the host under valgrind; now they are coroutines (docs/workloads.md,
    # "Determinism"), and the repeatability tests below capture it too.
    assert REPEATABLE == list(workloads.WORKLOADS) == ["compiler", "database", "bigfoot", "sparse"]


@pytest.mark.parametrize("name", REPEATABLE)
def test_capture_is_the_same_file_from_another_checkout(
    name: str, first_capture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two captures of a workload give the same bytes although everything
    that used to leak into the trace differs between them: where the sources
    and the built program are (a path of another length), the directory the
    capture is started from, the caller's environment (a long variable,
    TMPDIR, LANG), the umask and the stack limit."""
    import resource

    first = first_capture(name)
    elsewhere = tmp_path / "a-checkout-at-a-much-longer-path" / "somewhere-else"
    shutil.copytree(workloads.SOURCES, elsewhere / "workloads")
    monkeypatch.setattr(workloads, "SOURCES", elsewhere / "workloads")
    monkeypatch.setenv("VMLAB_CACHE_DIR", str(elsewhere / "cache"))  # another build folder
    started_in = tmp_path / "started-from-here"
    started_in.mkdir()
    monkeypatch.chdir(started_in)
    monkeypatch.setenv("VMLAB_TEST_PADDING", "x" * 333)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("LANG", "C.UTF-8")
    old_umask = os.umask(0o077)
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if hard == resource.RLIM_INFINITY or hard >= 16 << 20:
        resource.setrlimit(resource.RLIMIT_STACK, (16 << 20, hard))
    try:
        second = workloads.ensure(name, "small", trace_dir=tmp_path / "second", progress=False)
    finally:
        os.umask(old_umask)
        resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))
    assert trace_sha256(first) == trace_sha256(second)
    assert first.read_bytes() == second.read_bytes()
    # The sidecars say so too, and what they say is the file's hash.
    a, b = (json.loads(workloads.sidecar_path(p).read_text()) for p in (first, second))
    assert a["sha256"] == b["sha256"] == trace_sha256(first)
    assert a["references"] == b["references"] == trace_info(first)["events"]
    assert a["depends_on"] == b["depends_on"] and a["stdout"] == b["stdout"]


def test_reference_hashes_are_shipped_for_every_small_trace() -> None:
    data = json.loads((workloads.SOURCES / workloads.REFERENCE_FILE_NAME).read_text())
    for name in workloads.WORKLOADS:
        ref = workloads.reference_for(name, "small")
        assert ref is not None, name
        assert re.fullmatch(r"[0-9a-f]{64}", ref["sha256"]), ref
        assert ref["references"] > 1_000_000, ref
        assert {"valgrind", "libc", "cpu_flags", "system", "ld_so_cache"} <= set(ref["depends_on"]), ref
    assert data["traces"]["database-small"]["depends_on"]["sqlite3"]
    assert data["traces"]["compiler-small"]["depends_on"]["cc"]
    # The full traces are whole programs at the paper's scale (issue 20): at least 100 M references.
    for name in workloads.WORKLOADS:
        ref = workloads.reference_for(name, "full")
        assert ref is not None and ref["references"] >= 100_000_000, (name, ref)
        assert ref["repeatable"] == workloads.get(name).repeatable


@pytest.mark.parametrize("name", REPEATABLE)
def test_capture_on_the_reference_machine_is_the_reference_trace(name: str, first_capture) -> None:
    """Where every version the reference trace depends on is the same, the
    capture is the reference trace, byte for byte."""
    first = first_capture(name)
    side = json.loads(workloads.sidecar_path(first).read_text())
    ref = workloads.reference_for(name, "small")
    if side["depends_on"] != ref["depends_on"]:
        pytest.skip(f"not the reference machine: {side['reference']['verdict']}")
    assert side["sha256"] == ref["sha256"]
    assert side["reference"]["verdict"] == "identical to the reference trace"


def test_comparison_with_the_reference_names_what_differs() -> None:
    here = {"valgrind": "valgrind-3.22.0", "libc": "glibc 2.36", "sqlite3": "3.40.1"}
    ref = {"sha256": "ab" * 32, "depends_on": {"valgrind": "valgrind-3.19.0", "libc": "glibc 2.36", "sqlite3": "3.40.1"}}
    assert workloads._compare_with_reference(ref, "ab" * 32, here)["verdict"] == "identical to the reference trace"
    verdict = workloads._compare_with_reference(ref, "cd" * 32, here)["verdict"]
    assert verdict == ("differs from the reference trace (valgrind: 'valgrind-3.22.0' here, "
                       "'valgrind-3.19.0' for the reference)")
    same = workloads._compare_with_reference(ref, "cd" * 32, ref["depends_on"])["verdict"]
    assert "every recorded version is the same" in same
    assert workloads._compare_with_reference(None, "cd" * 32, here)["sha256"] is None
    # A dependency recorded here but not for the reference (one added
    # since) is named, not taken as equal.
    newer = {**ref["depends_on"], "auxv": "22 entries: 33 51"}
    assert workloads._compare_with_reference(ref, "cd" * 32, newer)["verdict"] == (
        "differs from the reference trace (auxv: '22 entries: 33 51' here, not recorded for the reference)")



def test_the_loader_cache_is_a_dependency_by_its_contents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Proven on this project's machine: a capture with /etc/ld.so.cache rebuilt
    # 80 bytes shorter is another trace, so the contents, not the size, count.
    cache = tmp_path / "ld.so.cache"
    monkeypatch.setattr(workloads, "LD_SO_CACHE", cache)
    cache.write_bytes(b"glibc-ld.so.cache1.1" + bytes(60))
    first = workloads._dependencies(False, False)["ld_so_cache"]
    assert first == f"sha256 {hashlib.sha256(cache.read_bytes()).hexdigest()[:16]}, 80 bytes"
    cache.write_bytes(b"glibc-ld.so.cache1.1" + bytes(59) + b"x")
    second = workloads._dependencies(False, False)["ld_so_cache"]
    assert second != first and second.endswith(", 80 bytes")
    ref = {"sha256": "ab" * 32, "depends_on": {"ld_so_cache": first}}
    assert workloads._compare_with_reference(ref, "cd" * 32, {"ld_so_cache": second})["verdict"] == (
        f"differs from the reference trace (ld_so_cache: {second!r} here, {first!r} for the reference)")
    cache.unlink()
    assert workloads._dependencies(False, False)["ld_so_cache"] == "unreadable (No such file or directory)"


def test_capture_dir_of_another_kind_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "real"
    target.mkdir()
    (tmp_path / "link").symlink_to(target)
    monkeypatch.setenv("VMLAB_CAPTURE_DIR", str(tmp_path / "link"))
    with pytest.raises(workloads.WorkloadError, match="is not a directory of yours"):
        with workloads._capture_scratch("bigfoot", lambda s: None):
            pass
    monkeypatch.setenv("VMLAB_CAPTURE_DIR", str(tmp_path / "mine"))
    with workloads._capture_scratch("bigfoot", lambda s: None) as scratch:
        assert scratch == tmp_path / "mine" / "bigfoot" and scratch.is_dir() and not any(scratch.iterdir())
    assert not scratch.exists()


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


def test_an_interleaved_trace_runs_each_input_as_its_own_process(tmp_path: Path, monkeypatch) -> None:
    """``ensure_interleaved`` on two small traces already there (nothing is
    captured): every input's references appear under its own asid, and the
    sidecar names the inputs' hashes and the quantum."""
    _need("valgrind", "cc", "sqlite3")
    names = ("bigfoot", "database")
    have = {n: workloads.ensure(n, "small", progress=False).parent for n in names}
    for n in names:
        for suffix in (".vmt", ".vmt.json"):
            shutil.copy(have[n] / f"{n}-small{suffix}", tmp_path / f"{n}-small{suffix}")
    monkeypatch.setattr(workloads, "INTERLEAVED", {"pair": (names, 100_000)})

    def no_capture(*a, **k):
        raise AssertionError("the inputs are there: nothing to capture")

    monkeypatch.setattr("vmlab.traces.capture_trace", no_capture)
    out = workloads.ensure_interleaved("pair", "small", trace_dir=tmp_path, progress=False)
    assert out == tmp_path / "pair-small.vmt"
    inputs = {n: trace_info(tmp_path / f"{n}-small.vmt")["events"] for n in names}
    info = trace_info(out)
    assert info["by_asid"] == {"1": inputs["bigfoot"], "2": inputs["database"]}
    side = json.loads(workloads.sidecar_path(out).read_text())
    assert side["sha256"] == trace_sha256(out) and side["quantum"] == 100_000
    assert [i["sha256"] for i in side["inputs"]] == [
        json.loads(workloads.sidecar_path(tmp_path / f"{n}-small.vmt").read_text())["sha256"] for n in names]
    with pytest.raises(workloads.WorkloadError, match="unknown interleaved trace `nope`"):
        workloads.ensure_interleaved("nope", "small", trace_dir=tmp_path)
