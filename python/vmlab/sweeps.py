"""``vmlab.sweep``: a grid of machines over traces, one table.

Every point of a grid (``grid.py``) is resolved by the engine to its whole
configuration, and run on every trace through ``vmlab.runs`` (content
keys, the append-only store, resume, local processes or Dask, Ctrl-C).
Per trace, the configurations that differ only in the size and
associativity of one LRU cache of the last level share one pass over the
trace (``vmlab_onepass``: the same numbers as single runs, proved by its
property test); every other configuration is a run of its own.

The table has one row per point x trace x cache: the point's varied keys,
the trace, the cache's geometry and counters, and the run key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from vmlab import _engine, runs
from vmlab._engine import VmlabError
from vmlab.grid import Grid
from vmlab.result import size_bytes

#: What a grid sweep stores per run (``runs.RunKey.kind``): a ``RunResult``.
RUN_KIND = "sweep.run/1"
TABLE_FILE = "sweep.parquet"
STORE_FILE = "runs.jsonl"
CURVES_FILE = "curves.png"

PathLike = Union[str, "os.PathLike[str]"]


def _work(payload: tuple) -> list[dict]:
    """A batch on a worker: one pass sweeping a cache, or one run."""
    swept, trace, configs = payload
    if swept is None:
        return [json.loads(_engine.run(c, trace)) for c in configs]
    return [json.loads(r) for r in _engine.onepass_run(list(configs), swept, trace)]


def _batches(todo: list[runs.RunKey], paths: Mapping[str, str]) -> list[runs.Batch]:
    """Per trace, the passes `onepass_plan` finds: a one-pass batch per
    group, a batch per configuration otherwise."""
    by_trace: dict[str, list[runs.RunKey]] = {}
    for k in todo:
        by_trace.setdefault(k.trace_sha256, []).append(k)
    out = []
    for sha, keys in by_trace.items():
        configs = [k.config for k in keys]
        for swept, members in _engine.onepass_plan(configs):
            group = tuple(keys[i] for i in members)
            out.append(runs.Batch(group, (swept, paths[sha], [k.config for k in group])))
    # The longest first: one-pass batches hold many runs.
    return sorted(out, key=lambda b: -len(b.runs))


def _trace_names(traces: Sequence[PathLike]) -> dict[str, str]:
    """A short name per trace: its file name, or its path where two share one."""
    paths = [os.fspath(t) for t in traces]
    stems = [Path(p).name for p in paths]
    return {p: (s if stems.count(s) == 1 else p) for p, s in zip(paths, stems)}


def sweep(grid: Union[Grid, PathLike, Mapping[str, Any]], traces: Sequence[PathLike], *,
          out: Optional[PathLike] = None, jobs: Optional[int] = None, dask: Optional[str] = None,
          log: Callable[[str], None] = lambda s: None, fresh: bool = False):
    """Runs every point of ``grid`` (a ``Grid``, a grid file's path, or its
    content as a dict) on every trace, and returns a pandas DataFrame with
    one row per point x trace x cache.

    Finished runs are kept in ``out/runs.jsonl`` (a temporary folder's when
    ``out`` is None) and reused when the trace's bytes, the resolved
    configuration and the engine are the same; ``fresh`` starts a new
    store. ``jobs`` local processes (default: every CPU), or the Dask
    scheduler at ``dask``. ``log`` receives progress lines."""
    import pandas as pd  # the table's library; vmlab[test] and vmlab[report] have it

    if not isinstance(grid, Grid):
        grid = Grid.load(grid) if isinstance(grid, (str, os.PathLike)) else Grid.from_dict(grid)
    if not traces:
        raise VmlabError("a sweep needs at least one trace")
    for t in traces:
        if not os.path.isfile(t):
            raise VmlabError(f"{os.fspath(t)}: no such trace file")
    points = grid.configs(log=log)
    names = _trace_names(traces)
    paths = {runs.file_sha256(t): os.fspath(t) for t in traces}
    keys = {(tp, i): runs.RunKey.make(RUN_KIND, runs.file_sha256(tp), 0, cfg)
            for tp in names for i, (_, cfg) in enumerate(points)}
    tmp = None
    if out is None:
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix="vmlab-sweep-")
        out = tmp.name
    store = Path(out) / STORE_FILE
    if fresh and store.exists():
        store.unlink()
    try:
        results = runs.run(list(keys.values()), lambda todo: _batches(todo, paths), _work, store,
                           jobs=jobs or os.cpu_count() or 1, dask=dask, log=log, name="sweep")
    finally:
        if tmp is not None:
            tmp.cleanup()
    rows = []
    for (tp, i), k in keys.items():
        point, _ = points[i]
        rows.extend(_rows(point, names[tp], k, results[k.digest]))
    return pd.DataFrame(rows)


def _rows(point: Mapping[str, Any], trace: str, key: runs.RunKey, result: dict) -> list[dict]:
    out = []
    for c in result["caches"]:
        cfg, st = c["config"], c["stats"]
        kinds = ("ifetch", "read", "write")
        accesses = sum(st[k]["accesses"] for k in kinds)
        misses = sum(st[k]["misses"] for k in kinds)
        row = {f"point.{k}": str(v) for k, v in point.items()}
        row.update({
            "trace": trace,
            "machine": result["machine"]["name"],
            "cache": c["name"],
            "level": int(c["name"][1]),
            "size_bytes": size_bytes(cfg["size"]),
            "line_bytes": size_bytes(cfg["line"]),
            "assoc": str(cfg["assoc"]),
            "replacement": cfg["replacement"],
            "accesses": accesses,
            "misses": misses,
            "miss_ratio": misses / accesses if accesses else None,
            **{f"{k}_misses": st[k]["misses"] for k in kinds},
            "fetches": st["fetches"],
            "writebacks": st["writebacks"],
            "write_throughs": st["write_throughs"],
            "bytes_in": st["bytes_in"],
            "bytes_out": st["bytes_out"],
            "memory_reads": result["memory"]["reads"],
            "memory_writes": result["memory"]["writes"],
            "references": sum(result["events"][k] for k in ("ifetch", "load", "store", "modify")),
            **key.columns(),
        })
        out.append(row)
    return out


def curves_figure(df, grid: Grid):
    """Miss-ratio curves: per trace a panel, x the first varied key, y the
    miss ratio of the cache that key belongs to (``l2.size`` -> ``l2``; a
    memory key -> every cache of the last level), a line per value of the
    other varied keys."""
    from vmlab.report import _figure, log_axis, sizes_axis

    keys = list(grid.vary)
    x_key = keys[0]
    table = x_key.split(".", 1)[0]
    others = [f"point.{k}" for k in keys[1:]]
    traces = list(dict.fromkeys(df["trace"]))
    fig = _figure(width=6.0 * len(traces), height=4.0)
    axes = [fig.add_subplot(1, len(traces), n + 1) for n in range(len(traces))]
    caches = [table] if table in set(df["cache"]) else sorted(set(df[df["level"] == df["level"].max()]["cache"]))
    for ax, trace in zip(axes, traces):
        sub = df[(df["trace"] == trace) & (df["cache"].isin(caches))]
        by = others + (["cache"] if len(caches) > 1 else [])
        groups = sub.groupby(by, sort=False) if by else [((), sub)]
        for label, g in groups:
            xs = [_number(v) for v in g[f"point.{x_key}"]]
            order = sorted(range(len(xs)), key=lambda i: xs[i])
            ax.plot([xs[i] for i in order], [list(g["miss_ratio"])[i] for i in order], marker=".",
                    label=", ".join(str(x) for x in (label if isinstance(label, tuple) else (label,))) or None)
        xs = sorted({_number(v) for v in sub[f"point.{x_key}"]})
        if xs and all(x > 0 and float(x).is_integer() and int(x) & (int(x) - 1) == 0 for x in xs):
            sizes_axis(ax, [int(x) for x in xs], x_key)
            ax.set_xticks(xs, [_size_label(int(x)) for x in xs], fontsize="small", rotation=45)
        else:
            ax.set_xscale("log")
            ax.set_xlabel(x_key)
        log_axis(ax, "y")
        ax.set_ylabel(f"{'/'.join(caches)} miss ratio")
        ax.set_title(trace)
        if by:
            ax.legend(fontsize="small", title=", ".join(k.removeprefix("point.") for k in by))
    fig.tight_layout()
    return fig


def _size_label(n: int) -> str:
    for unit, suffix in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def _number(v: Any) -> float:
    try:
        return float(size_bytes(str(v)))
    except ValueError:
        return float("nan")
