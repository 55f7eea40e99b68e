"""``vmlab.sweep``: a grid of machines over traces, one table.

Every point of a grid (``grid.py``) is resolved by the engine to its whole
configuration, and run on every trace through ``vmlab.runs`` (content
keys, the append-only store, resume, local processes or Dask, Ctrl-C).
Per trace, the configurations that differ only in the size and
associativity of one LRU cache of the last level share one pass over the
trace (``vmlab_onepass``: the same numbers as single runs, proved by its
property test); every other configuration is a run of its own.

With a sampling rate (``sample``), the configurations of a one-pass group
are run sampled instead (SHARDS, ``vmlab_onepass::shards``): their swept
cache's counts are estimates, stored under their own kind of key
(``sweep.sampled/1``, the rate in the configuration) so a sampled result
never stands for an exact one. A TLB grid (``kind = "tlb"``) runs TLB
points: every entry count and associativity of an LRU TLB in one pass.

The table has one row per point x trace x cache (or TLB): the point's
varied keys, the trace, the geometry and counters, whether the row is
sampled and at which rate, and the run key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from vmlab import _engine, runs
from vmlab._engine import VmlabError
from vmlab.grid import Grid, check_sample
from vmlab.result import size_bytes

#: What a grid sweep stores per run (``runs.RunKey.kind``): a ``RunResult``.
RUN_KIND = "sweep.run/1"
#: A run whose swept cache is sampled: ``{"machine", "swept", "sample"}``.
SAMPLED_KIND = "sweep.sampled/1"
#: A TLB point's run: a ``TlbResult``.
TLB_KIND = "sweep.tlb/1"
TABLE_FILE = "sweep.parquet"
STORE_FILE = "runs.jsonl"
CURVES_FILE = "curves.png"

PathLike = Union[str, "os.PathLike[str]"]


def _work(payload: tuple) -> list[dict]:
    """A batch on a worker: one pass sweeping a cache (exact or sampled),
    one run, or TLB points."""
    what, swept, trace, configs, sample = payload
    if what == "tlb":
        return [json.loads(r) for r in _engine.tlb_run(list(configs), trace, swept)]
    if sample is not None:
        results = [json.loads(r) for r in _engine.onepass_run(list(configs), swept, trace, sample=(sample, 0))]
        return [{**r, "sample": {"rate": sample, "seed": 0, "cache": swept}} for r in results]
    if swept is None:
        return [json.loads(_engine.run(c, trace)) for c in configs]
    return [json.loads(r) for r in _engine.onepass_run(list(configs), swept, trace)]


def _batches(todo: list[runs.RunKey], paths: Mapping[str, str]) -> list[runs.Batch]:
    """Per trace, the passes `onepass_plan` finds: a one-pass batch per
    group, a batch per configuration otherwise; sampled runs by their
    swept cache (even one left alone is sampled: its key says so); TLB
    points by `tlb_plan`."""
    by_trace: dict[tuple[str, str], list[runs.RunKey]] = {}
    for k in todo:
        by_trace.setdefault((k.trace_sha256, k.kind), []).append(k)
    out = []
    for (sha, kind), keys in by_trace.items():
        if kind == TLB_KIND:
            for shared, members in _engine.tlb_plan([k.config for k in keys]):
                group = tuple(keys[i] for i in members)
                out.append(runs.Batch(group, ("tlb", shared, paths[sha], [k.config for k in group], None)))
        elif kind == SAMPLED_KIND:
            wrapped = [json.loads(k.config) for k in keys]
            configs = [json.dumps(w["machine"]) for w in wrapped]
            for swept, members in _engine.onepass_plan(configs):
                group = tuple(keys[i] for i in members)
                first = wrapped[members[0]]
                out.append(runs.Batch(group, ("cache", swept or first["swept"], paths[sha],
                                              [configs[i] for i in members], first["sample"]["rate"])))
        else:
            configs = [k.config for k in keys]
            for swept, members in _engine.onepass_plan(configs):
                group = tuple(keys[i] for i in members)
                out.append(runs.Batch(group, ("cache", swept, paths[sha], [k.config for k in group], None)))
    # The longest first: one-pass batches hold many runs.
    return sorted(out, key=lambda b: -len(b.runs))


def _config_keys(grid: Grid, points: list, sample: Optional[float], log: Callable[[str], None]) -> list:
    """Per point, (kind, configuration) of its run key: a TLB point; a
    machine whose one-pass group is sampled (the rate and the swept cache
    in the configuration, so the key is never an exact run's); or a
    machine run exactly."""
    if grid.kind == "tlb":
        return [(TLB_KIND, cfg) for _, cfg in points]
    out = [(RUN_KIND, cfg) for _, cfg in points]
    if sample is None:
        return out
    configs = [cfg for _, cfg in points]
    for swept, members in _engine.onepass_plan(configs):
        if swept is None:
            continue
        refused = _engine.onepass_sample_refusal(configs[members[0]], swept)
        if refused:
            log(f"sweep: [{swept}] of {len(members)} points runs exact, not sampled: {refused}")
            continue
        for i in members:
            wrapped = {"machine": json.loads(configs[i]), "swept": swept, "sample": {"rate": sample, "seed": 0}}
            out[i] = (SAMPLED_KIND, wrapped)
    return out


def _trace_names(traces: Sequence[PathLike]) -> dict[str, str]:
    """A short name per trace: its file name, or its path where two share one."""
    paths = [os.fspath(t) for t in traces]
    stems = [Path(p).name for p in paths]
    return {p: (s if stems.count(s) == 1 else p) for p, s in zip(paths, stems)}


def sweep(grid: Union[Grid, PathLike, Mapping[str, Any]], traces: Sequence[PathLike], *,
          out: Optional[PathLike] = None, jobs: Optional[int] = None, dask: Optional[str] = None,
          log: Callable[[str], None] = lambda s: None, fresh: bool = False, sample: Optional[float] = None):
    """Runs every point of ``grid`` (a ``Grid``, a grid file's path, or its
    content as a dict) on every trace, and returns a pandas DataFrame with
    one row per point x trace x cache.

    Finished runs are kept in ``out/runs.jsonl`` (a temporary folder's when
    ``out`` is None) and reused when the trace's bytes, the resolved
    configuration and the engine are the same; ``fresh`` starts a new
    store. ``jobs`` local processes (default: every CPU), or the Dask
    scheduler at ``dask``. ``log`` receives progress lines. ``sample`` (a
    rate in (0, 1]; default the grid's ``sample``) runs the one-pass groups
    sampled (SHARDS): their swept cache's rows are estimates, marked in the
    ``sampled`` and ``sample_rate`` columns."""
    import pandas as pd  # the table's library; vmlab[test] and vmlab[report] have it

    if not isinstance(grid, Grid):
        grid = Grid.load(grid) if isinstance(grid, (str, os.PathLike)) else Grid.from_dict(grid)
    if not traces:
        raise VmlabError("a sweep needs at least one trace")
    for t in traces:
        if not os.path.isfile(t):
            raise VmlabError(f"{os.fspath(t)}: no such trace file")
    sample = grid.sample if sample is None else check_sample(sample)
    if sample is not None and grid.kind == "tlb":
        raise VmlabError("sampling is for cache grids (a TLB sweep is exact and cheap)")
    points = grid.configs(log=log)
    names = _trace_names(traces)
    paths = {runs.file_sha256(t): os.fspath(t) for t in traces}
    kinds = _config_keys(grid, points, sample, log)
    keys = {(tp, i): runs.RunKey.make(kinds[i][0], runs.file_sha256(tp), 0, kinds[i][1])
            for tp in names for i in range(len(points))}
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
        result = results[k.digest]
        rows.extend(_tlb_rows(point, names[tp], k, result) if k.kind == TLB_KIND else
                    _rows(point, names[tp], k, result))
    return pd.DataFrame(rows)


def _tlb_rows(point: Mapping[str, Any], trace: str, key: runs.RunKey, result: dict) -> list[dict]:
    tlb, st = result["point"]["tlb"], result["stats"]
    lookups = st["hits"] + st["misses"]
    row = {f"point.{k}": str(v) for k, v in point.items()}
    row.update({
        "trace": trace,
        "machine": result["point"]["name"],
        "cache": "tlb",
        "level": 0,
        "entries": tlb["entries"],
        "assoc": str(tlb["assoc"]),
        "replacement": tlb["replacement"],
        "page_bytes": tlb["page_sizes"][0],
        "asid_tags": tlb["asid_tags"],
        "serves": result["point"]["serves"],
        "accesses": lookups,
        "hits": st["hits"],
        "misses": st["misses"],
        "miss_ratio": st["misses"] / lookups if lookups else None,
        "inserts": st["inserts"],
        "evictions": st["evictions"],
        "purged": st["purged"],
        "references": sum(result["events"][k] for k in ("ifetch", "load", "store", "modify")),
        "context_switches": result["events"]["context_switches"],
        "sampled": False,
        "sample_rate": None,
        **key.columns(),
    })
    return [row]


def _rows(point: Mapping[str, Any], trace: str, key: runs.RunKey, result: dict) -> list[dict]:
    out = []
    sample = result.get("sample")
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
            # Only the swept cache of a sampled run is an estimate; the
            # levels above it were simulated whole.
            "sampled": bool(sample and sample["cache"] == c["name"]),
            "sample_rate": sample["rate"] if sample and sample["cache"] == c["name"] else None,
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
