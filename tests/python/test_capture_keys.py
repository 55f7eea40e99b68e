"""A stored capture is keyed by everything that made it
(``vmlab.workloads.capture_key``) and is never reused for other inputs:
S1's workloads (and their interleavings), S2's real workloads, S4's read
programs and S5's lmbench-like programs. A
trace in the cache whose sidecar records another key (another C source, another input, another capture
revision, or no key at all: the stale ``grep-read.vmt`` of session 17) is
captured again; one with the same key is reused without running valgrind.

valgrind is not run here: the capture itself is replaced by one that records
that it was asked for."""

from __future__ import annotations

import json
import shutil

import pytest

from vmlab import workloads as wl
from vmlab.studies import s2_real, s4_read


class Captured(Exception):
    """The capture was started (the cached trace was not reused)."""


@pytest.fixture
def no_capture(monkeypatch, tmp_path):
    monkeypatch.setenv("VMLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("VMLAB_CAPTURE_DIR", str(tmp_path / "scratch"))

    def capture(name, *args, **kw):
        raise Captured(name)

    monkeypatch.setattr(wl, "_pinned_capture", capture)
    # S2 compiles its sources before capturing; a stand-in compiler keeps
    # the test independent of cc.
    monkeypatch.setattr(wl, "compile_c", lambda name, src, out_dir, *a: out_dir.mkdir(parents=True, exist_ok=True)
                        or (out_dir / src.stem).write_bytes(b"") or out_dir / src.stem)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **kw: f"/usr/bin/{name}")
    return tmp_path


def stored(path, **sidecar):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"a stored trace")
    wl.sidecar_path(path).write_text(json.dumps(sidecar))
    return path


def test_an_s4_trace_with_its_key_is_reused_and_one_without_is_captured_again(no_capture):
    trace = s4_read.trace_dir() / "grep-read.vmt"
    key = s4_read.capture_key("grep")
    assert key["command"] == s4_read.PROGRAMS["grep"][3] and len(key["inputs_sha256"]) == 64
    assert key["capture_revision"] >= 2 and "valgrind" in key["depends_on"] and "program" in key["depends_on"]
    stored(trace, capture_key=key)
    assert s4_read.ensure("grep") == trace
    # the stale file of session 17: captured before the key existed
    stored(trace, trace=trace.name, sha256="0" * 64, command=key["command"])
    with pytest.raises(Captured):
        s4_read.ensure("grep")
    # another input (the generator changed) or another capture revision
    for field, other in (("inputs_sha256", "0" * 64), ("capture_revision", key["capture_revision"] - 1)):
        stored(trace, capture_key={**key, field: other})
        with pytest.raises(Captured):
            s4_read.ensure("grep")


def test_an_s4_input_change_changes_the_key(no_capture, monkeypatch):
    key = s4_read.capture_key("cat")
    assert s4_read.capture_key("cat") == key  # the generated input is the same every time
    monkeypatch.setattr(s4_read, "INPUT_SEED", s4_read.INPUT_SEED + 1)
    assert s4_read.capture_key("cat")["inputs_sha256"] != key["inputs_sha256"]


def test_an_s2_trace_of_the_same_sources_is_reused_and_of_other_sources_captured_again(no_capture, monkeypatch):
    trace = s2_real.trace_dir() / "pipeline.vmt"
    key = s2_real.capture_key("pipeline")
    assert set(key["sources_sha256"]) == {"pipeline.c"} and key["version"] == s2_real.CAPTURE_VERSION
    stored(trace, version=s2_real.CAPTURE_VERSION, capture_key=key)
    assert s2_real.ensure("pipeline", progress=False) == trace
    # what main reused: the right CAPTURE_VERSION, made from other sources
    stored(trace, version=s2_real.CAPTURE_VERSION, capture_key={**key, "sources_sha256": {"pipeline.c": "0" * 64}})
    with pytest.raises(Captured):
        s2_real.ensure("pipeline", progress=False)
    # a changed source changes the key
    sources = no_capture / "sources"
    shutil.copytree(s2_real.SOURCES, sources)
    (sources / "pipeline.c").write_text((sources / "pipeline.c").read_text() + "\n/* changed */\n")
    monkeypatch.setattr(s2_real, "SOURCES", sources)
    assert s2_real.capture_key("pipeline")["sources_sha256"] != key["sources_sha256"]
    # and so do its input files
    monkeypatch.setattr(s2_real, "_WORDS", s2_real._WORDS[:-1])
    assert s2_real.capture_key("pipeline")["inputs_sha256"] != key["inputs_sha256"]


def test_an_s4_trace_from_other_inputs_without_valgrind_is_left_out_by_name(no_capture, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **kw: None if name == "valgrind" else f"/usr/bin/{name}")
    stored(s4_read.trace_dir() / "cat-read.vmt", trace="cat-read.vmt")
    assert s4_read.cannot_capture("cat") == "captured from other inputs and valgrind not installed"


def test_an_s5_trace_keyed_by_its_source_alone_is_captured_again(no_capture):
    p = wl.LMBENCH["pipe"]
    trace = p.trace_path()
    cmd = [f"./{p.program}", *p.args]
    source = wl.LMBENCH_SOURCES / f"{p.program}.c"
    key = wl.capture_key(cmd, wl.lmbench_dependencies(), sources=[source])
    stored(trace, capture_key=key)
    assert wl.ensure_lmbench("pipe", progress=False) == trace
    # what main reused: the same command and source, captured by an older
    # capture revision (the caller's ignored signals reached the program)
    stored(trace, command=cmd, source_sha256=key["sources_sha256"][source.name])
    with pytest.raises(Captured):
        wl.ensure_lmbench("pipe", progress=False)


def test_an_s1_trace_is_reused_only_with_its_key_and_captured_again_after_its_source_changed(no_capture, monkeypatch):
    trace = wl.get("sparse").trace_path("small")
    key = wl.workload_key("sparse", "small")
    assert set(key["sources_sha256"]) == {"sparse.c"} and key["command"] == ["./sparse", "128", "8", "2000"]
    assert key["build"] == [["sparse/sparse.c", "-O2", "-ldl"]] and key["depends_on"] == {}
    stored(trace, capture_key=key)
    assert wl.ensure("sparse", "small", progress=False) == trace
    # what session 24 found: a trace of the thread version, from before the key was recorded
    stored(trace, trace=trace.name, sha256="0" * 64)
    with pytest.raises(Captured):
        wl.ensure("sparse", "small", progress=False)
    # the source changed under a stored key
    sources = no_capture / "sources"
    shutil.copytree(wl.SOURCES / "sparse", sources / "sparse")
    (sources / "sparse" / "sparse.c").write_text((sources / "sparse" / "sparse.c").read_text() + "\n/* changed */\n")
    monkeypatch.setattr(wl, "SOURCES", sources)
    assert wl.workload_key("sparse", "small")["sources_sha256"] != key["sources_sha256"]
    stored(trace, capture_key=key)
    with pytest.raises(Captured):
        wl.ensure("sparse", "small", progress=False)


def test_an_s1_input_file_is_part_of_the_key_and_the_size_too(no_capture):
    small, full = wl.workload_key("database", "small"), wl.workload_key("database", "full")
    assert set(small["sources_sha256"]) == {"queries.sql", "vortex.sql"} and small["command"] != full["command"]


def test_a_stale_s1_trace_without_valgrind_is_one_clear_error(no_capture, monkeypatch):
    trace = stored(wl.get("sparse").trace_path("small"), trace="sparse-small.vmt")
    monkeypatch.setattr(shutil, "which", lambda name, *a, **kw: None if name == "valgrind" else f"/usr/bin/{name}")
    with pytest.raises(wl.WorkloadError, match=r"captured from other sources.*cannot capture without valgrind"):
        wl.ensure("sparse", "small", progress=False)
    assert trace.exists()


def test_an_interleaving_is_reused_only_from_the_same_input_traces(no_capture, monkeypatch):
    name = next(iter(wl.INTERLEAVED))
    inputs, quantum = wl.INTERLEAVED[name]
    for n in inputs:
        stored(wl.get(n).trace_path("small"), sha256=f"{n}-sha", capture_key=wl.workload_key(n, "small"))
    out = wl.default_trace_dir() / f"{name}-small.vmt"
    made_from = [{"trace": wl.get(n).trace_path("small").name, "sha256": f"{n}-sha"} for n in inputs]
    stored(out, inputs=made_from, quantum=quantum)
    assert wl.ensure_interleaved(name, "small", progress=False) == out

    def interleave(*a, **k):
        raise Captured("interleave")

    from vmlab import _engine

    monkeypatch.setattr(_engine, "trace_interleave", interleave)
    stored(out, inputs=[{**made_from[0], "sha256": "another capture"}, *made_from[1:]], quantum=quantum)
    with pytest.raises(Captured):
        wl.ensure_interleaved(name, "small", progress=False)
