"""``vmlab reproduce s1``: the click command."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence

import click

from vmlab import _engine

from .diagnose import CostModel, footprints
from .grid import GRIDS, Grid
from .render import render, write_outputs
from .run import sweep

def _trace_files(ctx: click.Context, param: click.Parameter, values: Sequence[str]) -> dict[str, str]:
    """``--trace NAME=FILE`` values as {NAME: FILE}, each FILE an existing file."""
    out: dict[str, str] = {}
    for v in values:
        name, sep, file = v.partition("=")
        if not sep or not name or not file:
            raise click.BadParameter(f"`{v}` is not NAME=FILE (e.g. database=traces/s1/database-small.vmt)")
        if not os.path.isfile(file):
            raise click.BadParameter(f"{v}: {file}: no such file")
        out[name] = file
    return out


@click.command()
@click.option("--grid", "grid_name", type=click.Choice(sorted(GRIDS)), default="whole", show_default=True,
              help="whole: every workload's whole trace, L1 1/4/16/128 KB, L2 512K-2M, four line pairs; "
                   "test: a few points on a small trace; standard: every workload's small trace, 10 M-reference "
                   "prefixes; paper: the paper's whole grid on whole traces.")
@click.option("--traces", "trace_names", default=None, metavar="NAME,...",
              help="Traces to use (default: the grid's): workloads compiler, database, bigfoot, sparse, "
                   "the multi-process mix, or names given a file with --trace.")
@click.option("--trace", "trace_files", multiple=True, metavar="NAME=FILE", callback=_trace_files,
              help="Use this .vmt for trace NAME instead of capturing it (repeatable).")
@click.option("--max-events", type=click.IntRange(min=0), default=None,
              help="Events per trace (0 = all; default: the grid's).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Worker processes (>= 1).")
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS",
              help="Run batches on the Dask scheduler at ADDRESS (needs vmlab[cluster]).")
@click.option("--results", "results_dir", default="results/s1", show_default=True)
@click.option("--report", "report_dir", default="report/s1", show_default=True)
@click.option("--fresh", is_flag=True, help="Ignore finished runs in RESULTS/runs.jsonl and start over.")
def command(grid_name: str, trace_names: Optional[str], trace_files: dict[str, str], max_events: Optional[int],
            jobs: int, dask_address: Optional[str], results_dir: str, report_dir: str, fresh: bool) -> None:
    """Study S1: VMCPI of ULTRIX, MACH, INTEL, PA-RISC, SOFTVM, SPUR and NOTLB over cache sizes and line sizes."""
    from vmlab import workloads
    from vmlab.runs.executor import check_dask

    grid = GRIDS[grid_name]
    names = tuple(n.strip() for n in trace_names.split(",")) if trace_names else grid.traces
    unknown = [n for n in names if n not in workloads.WORKLOADS and n not in workloads.INTERLEAVED
               and n not in trace_files]
    if unknown or not all(names):
        raise click.BadParameter(
            f"unknown trace `{(unknown or [''])[0]}`: expected workloads "
            f"{', '.join([*workloads.WORKLOADS, *workloads.INTERLEAVED])}, "
            "or a name given a file with --trace NAME=FILE", param_hint="'--traces'")
    unused = [n for n in trace_files if n not in names]
    if unused:
        raise click.BadParameter(f"`{unused[0]}` is not among this run's traces ({', '.join(names)}); "
                                 "add it to --traces", param_hint="'--trace'")
    if dask_address:
        check_dask(dask_address)
    grid = Grid(grid.l1_kb, grid.l2_kb, grid.lines, names, grid.size,
                grid.max_events if max_events is None else max_events, grid.batch)
    paths = {}
    for n in names:
        try:
            if n in trace_files:
                paths[n] = trace_files[n]
            elif n in workloads.INTERLEAVED:
                paths[n] = str(workloads.ensure_interleaved(n, grid.size))
            else:
                paths[n] = str(workloads.ensure(n, grid.size))
        except workloads.WorkloadError as e:
            raise _engine.VmlabError(str(e)) from None
    out = Path(results_dir) / grid_name
    if fresh and (out / "runs.jsonl").exists():
        (out / "runs.jsonl").unlink()
    rows = sweep(grid, paths, out, jobs, dask_address, log=lambda s: click.echo(s, err=True))
    # The prefix footprints the diagnosis of failing findings rests on.
    fps = footprints(paths, grid.max_events, out / "footprint.json", log=lambda s: click.echo(s, err=True))
    model = CostModel.from_preset()
    click.echo(render(rows, grid, fps, model))
    for p in write_outputs(rows, grid, out, Path(report_dir), fps, model):
        click.echo(f"wrote {p}", err=True)
