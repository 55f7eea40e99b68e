"""Running a sweep's batches: here, on a local process pool, or on a Dask
cluster; recording each finished batch at once; stopping cleanly.

``execute`` is the loop. Each finished batch goes to the store (flushed and
fsync'ed) before the next result is awaited, so whatever happens next,
nothing finished is lost. On Ctrl-C it stops at once, without waiting for
running batches (the engine may be minutes into one, in Rust): pending
batches are cancelled, workers are killed, batches that finished meanwhile
are recorded, and it says how many runs are kept and how many remain
before raising ``KeyboardInterrupt`` again. An error in a batch stops the
sweep the same way and is raised as it is (a ``VmlabError`` for bad input).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from vmlab._engine import VmlabError
from vmlab.runs import worker
from vmlab.runs.key import RunKey
from vmlab.runs.store import Store

#: How long to wait for a Dask scheduler before saying it cannot be reached.
DASK_CONNECT_SECONDS = 5


@dataclass(frozen=True)
class Batch:
    """Runs done together: ``work(payload)`` returns their results (dicts),
    in the order of ``runs``. ``payload`` is sent to a worker, so it must
    pickle (plain data: paths, JSON strings, numbers)."""

    runs: tuple[RunKey, ...]
    payload: Any
    #: What the progress line calls the batch (which trace, which shared pass).
    label: str = ""


def _timed(work: Callable[[Any], Sequence[dict]], payload: Any) -> tuple[Sequence[dict], float]:
    """``work(payload)`` and the CPU seconds the process running it spent
    on it: on a shared host, wall time says how busy the others were, CPU
    time what the batch cost."""
    start = time.process_time()
    results = work(payload)
    return results, time.process_time() - start


@dataclass
class _Progress:
    name: str
    log: Callable[[str], None]
    batches: int
    runs: int
    before: int  # runs already in the store when the sweep started
    start: float = field(default_factory=time.monotonic)
    batches_done: int = 0
    runs_done: int = 0
    cpu: float = 0.0

    def batch_done(self, n_runs: int, label: str = "", cpu: Optional[float] = None) -> None:
        self.batches_done += 1
        self.runs_done += n_runs
        elapsed = time.monotonic() - self.start
        left = self.batches - self.batches_done
        eta = f", about {elapsed / self.batches_done * left:.0f} s to go" if left else ""
        what = f": {label}" if label else ""
        spent = ""
        if cpu is not None:
            self.cpu += cpu
            spent = f", {cpu:.1f} s CPU ({self.cpu:.0f} s so far)"
        self.log(f"  batch {self.batches_done}/{self.batches} done ({self.runs_done}/{self.runs} runs){what}"
                 f"{spent}, {elapsed:.0f} s{eta}")

    def interrupted(self) -> None:
        kept = self.before + self.runs_done
        self.log(f"{self.name}: interrupted: {kept} runs kept in the store ({self.runs_done} finished in this "
                 f"session), {self.runs - self.runs_done} remain; the same command resumes")


class _Recorder:
    """Writes finished batches to the store. A Ctrl-C while a batch is being
    written takes effect once it is written: no record is cut short by us."""

    def __init__(self, store: Store, progress: _Progress):
        self.store = store
        self.progress = progress
        self.results: dict[str, dict] = {}
        self.recorded: set[int] = set()
        self._writing = False
        self._interrupted = False
        #: Set while stopping: a further Ctrl-C must not cut the clean-up short.
        self.stopping = False

    def record(self, batch: Batch, results: Sequence[dict], cpu: Optional[float] = None) -> None:
        if id(batch) in self.recorded:
            return
        if len(results) != len(batch.runs):
            raise RuntimeError(f"a batch of {len(batch.runs)} runs returned {len(results)} results")
        records = [{"key": k.digest, **_key_fields(k), "result": r} for k, r in zip(batch.runs, results)]
        self._writing = True
        try:
            self.store.append(records)
        finally:
            self._writing = False
        self.recorded.add(id(batch))
        for k, r in zip(batch.runs, results):
            self.results[k.digest] = r
        self.progress.batch_done(len(batch.runs), batch.label, cpu)
        if self._interrupted and not self.stopping:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def sigint_deferred_while_writing(self):
        def on_sigint(signum, frame):
            if self._writing or self.stopping:
                self._interrupted = True
            else:
                raise KeyboardInterrupt

        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            # A shell starts a background job with SIGINT ignored so that a
            # Ctrl-C at the terminal does not reach it: the sweep stays shielded.
            yield
            return
        try:
            previous = signal.signal(signal.SIGINT, on_sigint)
        except ValueError:  # not the main thread: signals are not ours to take
            yield
            return
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


def _key_fields(k: RunKey) -> dict:
    cols = k.columns()
    del cols["run_key"]  # it is the record's "key"
    return cols


def execute(batches: Sequence[Batch], work: Callable[[Any], Sequence[dict]], store: Store, *, jobs: int = 1,
            dask: Optional[str] = None, log: Callable[[str], None] = print, name: str = "sweep",
            before: int = 0) -> dict[str, dict]:
    """Runs ``batches`` (serially when ``jobs`` is 1, else on ``jobs`` local
    processes, or on the Dask scheduler at ``dask``), appending each finished
    batch to ``store``. ``work`` must be a module-level function (it is sent
    to workers by name). ``before`` is how many runs the store already had,
    for the messages. Returns the new results by run key digest."""
    runs = sum(len(b.runs) for b in batches)
    progress = _Progress(name, log, len(batches), runs, before)
    recorder = _Recorder(store, progress)
    if not batches:
        return recorder.results
    try:
        with recorder.sigint_deferred_while_writing():
            if dask:
                _on_dask(dask, batches, work, recorder)
            elif jobs <= 1:
                for b in batches:
                    recorder.record(b, *_timed(work, b.payload))
            else:
                _on_pool(min(jobs, len(batches)), batches, work, recorder)
    except KeyboardInterrupt:
        progress.interrupted()
        raise
    finally:
        store.close()
    log(f"{name}: {len(batches)} batches, {runs} runs, {progress.cpu:.0f} s of CPU in the processes that ran them, "
        f"{time.monotonic() - progress.start:.0f} s")
    return recorder.results


# -- a local process pool ----------------------------------------------------
def _on_pool(jobs: int, batches: Sequence[Batch], work, recorder: _Recorder) -> None:
    # Forked where the kernel can tie a worker's life to ours (Linux): no
    # re-import, and a script calling a sweep needs no ``__main__`` guard.
    # Elsewhere the platform's default (spawn). Either way the parent of a
    # worker is this process, which is what ``worker.start`` watches.
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
    pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=worker.start,
                                  initargs=(os.getpid(),))
    futures: dict[cf.Future, Batch] = {}
    try:
        with _sigint_blocked():  # inherited by the workers started here, until they ignore it
            for b in batches:
                futures[pool.submit(_timed, work, b.payload)] = b
        for fut in cf.as_completed(futures):
            recorder.record(futures[fut], *fut.result())
    except BaseException:
        _stop_pool(pool, futures, recorder)
        raise
    pool.shutdown(wait=True)


def _stop_pool(pool: cf.ProcessPoolExecutor, futures: dict, recorder: _Recorder) -> None:
    """Cancels what has not started, kills the workers mid-batch, and
    records every batch whose result reached us, even after the signal."""
    recorder.stopping = True
    for f in futures:
        f.cancel()
    processes = list((getattr(pool, "_processes", None) or {}).values())
    kill = getattr(pool, "kill_workers", None)  # Python >= 3.14
    if kill is not None:
        kill()
    else:
        for p in processes:
            with contextlib.suppress(Exception):
                p.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    # With its workers dead, the pool reads the results already sent, then
    # fails the rest: every future it started is settled in milliseconds.
    # (A cancelled future never counts as done for ``wait``.)
    cf.wait([f for f in futures if not f.cancelled()], timeout=1)
    for p in processes:
        p.join(timeout=1)
    for f, b in futures.items():
        if f.done() and not f.cancelled() and f.exception() is None:
            recorder.record(b, *f.result())


@contextlib.contextmanager
def _sigint_blocked():
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# -- a Dask cluster ------------------------------------------------------------
def dask_client(address: str, timeout: float = DASK_CONNECT_SECONDS):
    """A client of the Dask scheduler at ``address``, or a ``VmlabError``
    saying what to install, that the address is not one, or that nothing
    answered there within ``timeout`` seconds."""
    try:
        from dask.distributed import Client  # optional: vmlab[cluster]
        from distributed.comm import resolve_address
    except ImportError:
        raise VmlabError(f"a sweep on the Dask scheduler {address} needs dask.distributed: "
                         "pip install 'vmlab[cluster]'") from None
    # Checked first: a Client that fails on a malformed address spends 10 s
    # closing itself when it is collected.
    try:
        resolve_address(address)
    except (ValueError, OSError) as e:
        raise VmlabError(f"Dask scheduler {address}: not a scheduler address such as tcp://HOST:PORT ({e})") from None
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise VmlabError(f"Dask scheduler {address}: no answer within {timeout:g} s ({e})") from None


def check_dask(address: str) -> None:
    """Fails now, not after a long capture, when dask.distributed is missing
    or the scheduler does not answer."""
    dask_client(address).close()


def _on_dask(address: str, batches: Sequence[Batch], work, recorder: _Recorder) -> None:
    from dask.distributed import as_completed

    client = dask_client(address)
    futures: dict = {}
    try:
        for b in batches:
            futures[client.submit(_timed, work, b.payload, pure=False)] = b
        for fut in as_completed(list(futures), loop=client.loop):
            recorder.record(futures[fut], *fut.result())
    except BaseException:
        recorder.stopping = True
        finished = [f for f in futures if f.status == "finished"]
        with contextlib.suppress(Exception):
            client.cancel([f for f in futures if f.status != "finished"])
        for f in finished:
            with contextlib.suppress(Exception):
                recorder.record(futures[f], *f.result(timeout=DASK_CONNECT_SECONDS))
        raise
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=DASK_CONNECT_SECONDS)

