"""The shared sweep module (`vmlab.runs`): run keys, the store, the digest
cache, and stopping. The interrupt tests run the real `vmlab reproduce s1`
in a subprocess and send it real signals."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import vmlab_command, write_random_trace
import vmlab
from vmlab import runs
from vmlab.runs import digest as digest_mod
from vmlab.runs.executor import Batch, execute
from vmlab.runs.key import RunKey
from vmlab.runs.store import Store

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _key(n: int, **kw) -> RunKey:
    parts = dict(kind="test/1", trace_sha256="ab" * 32, max_events=0, config=json.dumps({"n": n}), engine="e")
    parts.update(kw)
    return RunKey(**parts)


# -- the key ---------------------------------------------------------------------
def test_run_key_changes_with_every_part_and_only_with_them():
    base = RunKey.make("test/1", "ab" * 32, 1000, '{"b": 1, "a": [1, 2]}')
    same = RunKey.make("test/1", "ab" * 32, 1000, {"a": [1, 2], "b": 1})  # another spelling of the same config
    assert base.digest == same.digest and len(base.digest) == 64
    assert base.engine == runs.engine_identity() and base.engine.startswith(vmlab.__version__ + "+")
    variants = [
        RunKey.make("test/2", "ab" * 32, 1000, '{"b": 1, "a": [1, 2]}'),
        RunKey.make("test/1", "cd" * 32, 1000, '{"b": 1, "a": [1, 2]}'),
        RunKey.make("test/1", "ab" * 32, 0, '{"b": 1, "a": [1, 2]}'),
        RunKey.make("test/1", "ab" * 32, 1000, '{"b": 2, "a": [1, 2]}'),
        RunKey("test/1", "ab" * 32, 1000, base.config, base.engine + "x"),
    ]
    assert len({v.digest for v in variants} | {base.digest}) == 6
    cols = base.columns()
    assert cols["run_key"] == base.digest and cols["trace_sha256"] == "ab" * 32 and cols["max_events"] == 1000
    assert cols["config_sha256"] == hashlib.sha256(b'{"a":[1,2],"b":1}').hexdigest()


# -- the digest cache --------------------------------------------------------------
def test_file_digest_is_sha256_and_is_remembered_until_the_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("VMLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(digest_mod, "_memo", {})
    f = tmp_path / "t.vmt"
    f.write_bytes(b"x" * 3_000_000)
    real = hashlib.sha256(f.read_bytes()).hexdigest()
    assert runs.file_sha256(f) == real
    cache_file = tmp_path / "cache" / digest_mod.CACHE_FILE
    cached = json.loads(cache_file.read_text())
    assert cached[os.path.realpath(f)]["sha256"] == real
    # A second process (no in-memory memo) takes the digest from the cache:
    # plant a marker there and see it come back, so the file was not read.
    cached[os.path.realpath(f)]["sha256"] = "planted"
    cache_file.write_text(json.dumps(cached))
    monkeypatch.setattr(digest_mod, "_memo", {})
    assert runs.file_sha256(f) == "planted"
    # Rewritten (new size, mtime): hashed again.
    f.write_bytes(b"y" * 3_000_001)
    monkeypatch.setattr(digest_mod, "_memo", {})
    assert runs.file_sha256(f) == hashlib.sha256(b"y" * 3_000_001).hexdigest()


# -- the store ---------------------------------------------------------------------
def test_store_drops_a_torn_last_line_and_cuts_it_before_appending(tmp_path):
    path = tmp_path / "runs.jsonl"
    with Store(path) as st:
        st.append([{"key": "a", "result": {"v": 1}}, {"key": "b", "result": {"v": 2}}])
    with open(path, "a") as f:
        f.write('{"key": "c", "resu')  # a crash mid-write
    assert sorted(Store(path).load()) == ["a", "b"]
    with Store(path) as st:
        st.append([{"key": "d", "result": {"v": 4}}])
    assert Store(path).load() == {"a": {"key": "a", "result": {"v": 1}}, "b": {"key": "b", "result": {"v": 2}},
                                  "d": {"key": "d", "result": {"v": 4}}}
    assert path.read_text().count("\n") == 3


def test_store_damage_before_the_last_line_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"key": "a"}\nnot json\n{"key": "b"}\n')
    with pytest.raises(vmlab.VmlabError, match=r"runs.jsonl:2: not a run record"):
        Store(path).load()


# -- the loop, in this process: a Ctrl-C while a batch is written ------------------
def work_for_test(payload):
    """A batch of the tests below, run in a spawned worker."""
    what, value = payload
    if what == "sleep":
        time.sleep(value)
    if what == "spin":
        end = time.process_time() + value
        while time.process_time() < end:
            pass
    return [{"v": value, "pid": os.getpid()}]


class _SignalledWhileWriting(Store):
    """The first append gets a Ctrl-C in the middle and takes 2 s, time for
    another batch to finish after the signal."""

    def append(self, records):
        if not getattr(self, "signalled", False):
            self.signalled = True
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(2)
        super().append(records)


def test_ctrl_c_keeps_what_finished_after_it_and_does_not_wait_for_running_batches(tmp_path):
    batches = [Batch((_key(0),), ("now", 0)), Batch((_key(1),), ("now", 1)), Batch((_key(2),), ("sleep", 120))]
    store = _SignalledWhileWriting(tmp_path / "runs.jsonl")
    log: list[str] = []
    # A foreground run's Ctrl-C, even when this test runs as a background job
    # (started with SIGINT ignored); the loop leaves the handler as it found it.
    outer = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        before = signal.getsignal(signal.SIGINT)
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            execute(batches, work_for_test, store, jobs=3, log=log.append, name="T")
        after = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, outer)
    assert time.monotonic() - start < 30  # the 120 s batch was not awaited
    kept = Store(tmp_path / "runs.jsonl").load()
    # The batch being written when the signal came, and the one that finished during that write.
    assert sorted(r["result"]["v"] for r in kept.values()) == [0, 1]
    assert {r["key"] for r in kept.values()} == {_key(0).digest, _key(1).digest}
    assert log[-1] == "T: interrupted: 2 runs kept in the store (2 finished in this session), 1 remain; " \
                      "the same command resumes"
    assert multiprocessing.active_children() == []
    assert after is before


def test_a_sweep_started_with_sigint_ignored_stays_shielded(tmp_path):
    # A background job of a shell: the SIGINT a terminal's Ctrl-C would send
    # must not stop it, and the handler is still SIG_IGN afterwards.
    batches = [Batch((_key(0),), ("now", 0)), Batch((_key(1),), ("now", 1))]
    store = _SignalledWhileWriting(tmp_path / "runs.jsonl")
    outer = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        execute(batches, work_for_test, store, jobs=2, log=lambda m: None, name="T")
        during = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, outer)
    assert store.signalled
    assert sorted(r["result"]["v"] for r in Store(tmp_path / "runs.jsonl").load().values()) == [0, 1]
    assert during is signal.SIG_IGN


def test_a_failing_batch_stops_the_sweep_and_keeps_the_others(tmp_path):
    batches = [Batch((_key(0),), ("now", 0)), Batch((_key(1), _key(2)), ("now", 1))]  # 2 runs, 1 result
    with pytest.raises(RuntimeError, match="a batch of 2 runs returned 1 results"):
        execute(batches, work_for_test, Store(tmp_path / "runs.jsonl"), jobs=1, log=lambda s: None)
    assert list(Store(tmp_path / "runs.jsonl").load()) == [_key(0).digest]


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_names_each_batch_and_its_cpu_time_not_its_wall_time(tmp_path, jobs):
    batches = [Batch((_key(0),), ("sleep", 1.0), "asleep"), Batch((_key(1),), ("spin", 0.5), "busy")]
    log: list[str] = []
    execute(batches, work_for_test, Store(tmp_path / "runs.jsonl"), jobs=jobs, log=log.append, name="T")
    line = {b: next(s for s in log if f": {b}, " in s) for b in ("asleep", "busy")}
    cpu = {b: float(line[b].split(f": {b}, ")[1].split(" s CPU")[0]) for b in line}
    # A second of sleep is (almost) no CPU; half a second of spinning is.
    assert cpu["asleep"] < 0.2 and 0.5 <= cpu["busy"] < 1.0, log
    assert log[-1].startswith("T: 2 batches, 2 runs, 1 s of CPU in the processes that ran them, "), log


def test_run_resumes_by_key_and_runs_a_repeated_key_once(tmp_path):
    keys = [_key(0), _key(1), _key(0)]
    planned: list[list[RunKey]] = []

    def plan(todo):
        planned.append(list(todo))
        return [Batch((k,), ("now", json.loads(k.config)["n"])) for k in todo]

    log: list[str] = []
    out = runs.run(keys, plan, work_for_test, tmp_path / "runs.jsonl", log=log.append, name="T")
    assert planned == [[_key(0), _key(1)]] and {out[_key(n).digest]["v"] for n in (0, 1)} == {0, 1}
    assert log[0] == "T: 2 runs, 0 already done, 2 batches on 1 worker"
    log.clear()
    out = runs.run([_key(1), _key(3)], plan, work_for_test, tmp_path / "runs.jsonl", log=log.append, name="T")
    assert planned[-1] == [_key(3)] and out[_key(1).digest]["v"] == 1 and out[_key(3).digest]["v"] == 3
    assert log[0] == ("T: 2 runs, 1 already done, 1 batches on 1 worker "
                      "(1 stored runs of another trace, event limit, configuration or engine left unused)")


# -- the real command, real signals -------------------------------------------------
@pytest.fixture(scope="session")
def long_trace(tmp_path_factory) -> Path:
    """1.5 M random references: a batch of the S1 test grid takes tens of seconds on it."""
    d = tmp_path_factory.mktemp("long")
    text = write_random_trace(d / "long.lackey", 1_500_000, seed=7)
    vmt = d / "long.vmt"
    vmlab.convert_trace(text, vmt)
    text.unlink()
    return vmt


def _foreground_sigint():
    # A shell's foreground job gets SIGINT at its default even when the shell
    # running this test is itself a background job (SIGINT ignored, inherited
    # across exec); without this the sweep would rightly stay shielded.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class _Sweep:
    """`vmlab reproduce s1 --grid test` on a given trace, in its own session
    (as a shell runs a job), its stderr read line by line."""

    def __init__(self, tmp_path: Path, trace: Path, jobs: int):
        env = dict(os.environ, VMLAB_CACHE_DIR=str(tmp_path / "cache"))
        self.proc = subprocess.Popen(
            [*vmlab_command(), "reproduce", "s1", "--grid", "test", "--trace", f"database={trace}", "--max-events",
             "0", "-j", str(jobs), "--results", "R", "--report", "rep"],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
            start_new_session=True, env=env, preexec_fn=_foreground_sigint)
        self.lines: list[str] = []
        self.store = tmp_path / "R" / "test" / "runs.jsonl"
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 240) -> None:
        end = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            assert self.proc.poll() is None, f"exited {self.proc.returncode} before `{text}`: {self.lines}"
            assert time.monotonic() < end, f"no `{text}` after {timeout} s: {self.lines}"
            time.sleep(0.05)

    def workers(self) -> list[int]:
        """The sweep's children: on Linux its pool forks them and nothing else."""
        return _children(self.proc.pid)

    def kill(self):
        """Whatever is left of the group, workers included."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    """Running: not gone and not a zombie waiting for a parent to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@linux_only
@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_stops_a_sweep_within_2_s_keeping_every_finished_run(tmp_path, medium_trace, jobs):
    run = _Sweep(tmp_path, medium_trace, jobs)
    try:
        run.wait_for("batch 1/5 done")
        workers = run.workers()
        assert len(workers) == (2 if jobs == 2 else 0)
        os.killpg(run.proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        sent = time.monotonic()
        code = run.proc.wait(timeout=30)
        took = time.monotonic() - sent
    finally:
        run.kill()
    assert code == 130, run.lines
    assert took < 2, f"took {took:.1f} s to stop: {run.lines}"
    said = [line for line in run.lines if "interrupted:" in line]
    assert len(said) == 1, run.lines
    kept = int(said[0].split("interrupted: ")[1].split()[0])
    remain = int(said[0].split("), ")[1].split()[0])
    done = max(int(line.split("(")[1].split("/")[0]) for line in run.lines if "done (" in line)
    stored = [json.loads(line) for line in run.store.read_text().splitlines()]
    assert kept == done == len(stored) and kept >= 9 and remain > 0 and kept + remain == 94, run.lines
    assert not any(_alive(p) for p in workers)
    assert run.lines[-1] == "vmlab: interrupted"


@linux_only
def test_workers_die_with_their_parent(tmp_path, long_trace):
    run = _Sweep(tmp_path, long_trace, 2)
    try:
        run.wait_for("5 batches on 2 workers")
        end = time.monotonic() + 60
        while len(workers := run.workers()) < 2:
            assert time.monotonic() < end, f"no workers after 60 s: {run.lines}"
            time.sleep(0.05)
        time.sleep(1)  # both in the middle of a batch (each takes tens of seconds)
        assert all(_alive(p) for p in workers) and not any("done (" in line for line in run.lines)
        os.kill(run.proc.pid, signal.SIGKILL)
        end = time.monotonic() + 5
        while any(_alive(p) for p in workers) and time.monotonic() < end:
            time.sleep(0.05)
        left = [p for p in workers if _alive(p)]
    finally:
        run.kill()
    assert left == [], f"workers {left} outlived their parent by 5 s"


_ORPHAN_SCRIPT = """
import multiprocessing, os, sys, time
from vmlab.runs import worker

def child(parent):
    worker._watch(parent)  # the fallback alone, without the kernel's help

if __name__ == "__main__":
    p = multiprocessing.get_context("fork").Process(target=child, args=(os.getpid(),))
    p.start()
    print(p.pid, flush=True)
    time.sleep(600)
"""


@linux_only
def test_the_portable_watchdog_also_ends_an_orphaned_worker(tmp_path):
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN_SCRIPT], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        child = int(parent.stdout.readline())
        time.sleep(2 * runs.worker.POLL_SECONDS)
        assert _alive(child)
        os.kill(parent.pid, signal.SIGKILL)
        end = time.monotonic() + 5
        while _alive(child) and time.monotonic() < end:
            time.sleep(0.05)
        assert not _alive(child)
    finally:
        try:
            os.killpg(parent.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        parent.wait()
