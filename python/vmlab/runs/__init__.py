"""Stored runs: many engine runs, each stored under a key made of
everything that made it, resumed after any stop, run here, on local
processes or on a Dask cluster. The machinery of every sweep: S1's and
``vmlab.sweep`` (``vmlab/sweeps.py``, the grid sweep of ``vmlab sweep``).

A study describes its runs as ``RunKey``\\ s (trace content hash, event
limit, resolved configuration, engine; ``key.py``), groups the ones still
to do into ``Batch``\\ es (runs that share a pass over one trace), and gives
a module-level ``work(payload) -> [result, ...]`` that a worker runs:

    >>> from vmlab import runs
    >>> keys = [runs.RunKey.make("s1.vm/1", runs.file_sha256(path), 0, cfg) for cfg in configs]  # doctest: +SKIP
    >>> results = runs.run(keys, make_batches, work, "results/x/runs.jsonl", jobs=2)        # doctest: +SKIP
    >>> results[keys[0].digest]                                                              # doctest: +SKIP

| module | owns |
|---|---|
| ``key.py`` | ``RunKey``: what a result depends on; ``engine_identity`` |
| ``digest.py`` | ``file_sha256``: a file's content hash, cached by (path, size, mtime, inode) |
| ``store.py`` | ``Store``: the append-only ``runs.jsonl`` (fsync per batch, a torn last line dropped) |
| ``executor.py`` | ``execute``: the loop (serial, process pool, Dask), progress, Ctrl-C |
| ``worker.py`` | a local worker's start: Ctrl-C left to the parent, death with the parent |

``run`` below joins them: it loads the store, keeps the results whose key
is asked for, and runs the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from vmlab.cache import cache_dir
from vmlab.runs.digest import file_sha256
from vmlab.runs.executor import Batch, dask_client, execute
from vmlab.runs.key import RunKey, canonical_json, engine_identity
from vmlab.runs.store import Store

__all__ = ["Batch", "RunKey", "Store", "cache_dir", "canonical_json", "dask_client", "engine_identity", "execute",
           "file_sha256", "run"]


def run(keys: Sequence[RunKey], batches: Callable[[list[RunKey]], Sequence[Batch]],
        work: Callable[[Any], Sequence[dict]], store: Union[str, Path], *, jobs: int = 1,
        dask: Optional[str] = None, log: Callable[[str], None] = print, name: str = "sweep") -> dict[str, dict]:
    """Every result ``keys`` ask for, by ``RunKey.digest``: those in the
    store ``store`` (a ``runs.jsonl`` path) whose key is equal, and the rest
    run now, ``batches(todo)`` grouping them and ``work`` running each batch
    (see ``execute``). A key asked for twice runs once."""
    st = Store(store)
    stored = st.load()
    wanted: dict[str, RunKey] = {}
    for k in keys:
        wanted.setdefault(k.digest, k)
    results = {d: stored[d]["result"] for d in wanted if d in stored and "result" in stored[d]}
    todo = [k for d, k in wanted.items() if d not in results]
    unused = len(stored) - len(results)
    plan = list(batches(todo)) if todo else []
    where = f"the Dask scheduler {dask}" if dask else f"{jobs} worker{'s' * (jobs != 1)}"
    log(f"{name}: {len(wanted)} runs, {len(results)} already done, {len(plan)} batches on {where}"
        + (f" ({unused} stored runs of another trace, event limit, configuration or engine left unused)"
           if unused else ""))
    results.update(execute(plan, work, st, jobs=jobs, dask=dask, log=log, name=name, before=len(results)))
    return results
