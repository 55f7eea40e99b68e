"""The ``vmlab`` command line.

Bad input of any kind (a trace, a preset, an override, a missing file) ends
with exit status 2 and one line on stderr starting ``vmlab: error:``; an
interrupt ends with status 130. Set ``VMLAB_DEBUG=1`` to see a traceback for
an unexpected internal error.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Optional, Sequence

import click

from vmlab import _engine, optional
from vmlab.machine import COMPAT_MODES, Machine, presets, preset_text
from vmlab.traces import capture_trace, convert_trace, default_capture_name, describe_capture, trace_header, trace_info

FORMATS = click.Choice(["lackey", "din", "vmt"], case_sensitive=False)
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class BadInput(click.ClickException):
    """An error in what the user gave; printed as one line, exit status 2."""

    exit_code = 2


def _fail(message: str) -> "NoReturn":  # noqa: F821
    raise BadInput(message)


@click.group(context_settings=CONTEXT)
@click.version_option(_engine.__version__, prog_name="vmlab")
def cli() -> None:
    """vmlab: simulate caches, TLBs and virtual memory on real traces."""


# -- run -------------------------------------------------------------------
@cli.command(context_settings=CONTEXT)
@click.option("--machine", "-m", "machine", required=True, metavar="PRESET",
              help="A preset name (see `vmlab presets`) or a preset .toml file.")
@click.option("--trace", "-t", "trace", required=True, metavar="FILE", help="The trace file to simulate.")
@click.option("--format", "-f", "fmt", type=FORMATS, default=None,
              help="The trace's format (default: detected from its content and name).")
@click.option("--set", "-s", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override one preset field, e.g. --set l1d.size=16K (repeatable).")
@click.option("--json", "json_out", metavar="FILE|-", help="Write the whole result as JSON ('-' for stdout).")
@click.option("--csv", "csv_out", metavar="FILE", help="Write the table (one row per cache and kind) as CSV.")
@click.option("--parquet", "parquet_out", metavar="FILE", help="Write the table as Parquet (needs pyarrow).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no table on stdout.")
@click.option("--compat", type=click.Choice(COMPAT_MODES), default=None,
              help="Count as Dinero IV (copy back dirty lines at the end) or Cachegrind (a reference "
                   "once per level, only misses below) would; docs/reference-semantics.md.")
def run(machine: str, trace: str, fmt: Optional[str], sets: Sequence[str], json_out: Optional[str],
        csv_out: Optional[str], parquet_out: Optional[str], quiet: bool, compat: Optional[str]) -> None:
    """Simulate a trace on a machine and print the miss table."""
    m = Machine.from_preset(machine, sets=list(sets))
    if parquet_out:
        optional.need("pyarrow.parquet", "--parquet")
    start = time.perf_counter()
    result = m.run(trace, format=fmt, progress=not quiet, compat=compat)
    seconds = time.perf_counter() - start
    if json_out == "-":
        click.echo(result.to_json())
    elif json_out:
        result.write_json(json_out)
    if csv_out:
        result.to_csv(csv_out)
    if parquet_out:
        result.to_parquet(parquet_out)
    if not quiet and json_out != "-":
        click.echo(result.table(), nl=False)
    if not quiet and sys.stderr.isatty():
        # Beside the progress bar, on a terminal only: stdout's table and
        # JSON stay the same run to run, and scripts get a quiet stderr.
        refs = result.references
        click.echo(f"simulated {refs:,} references in {seconds:.2f} s "
                   f"({refs / max(seconds, 1e-9) / 1e6:.1f} M refs/s)", err=True)


# -- sweep -----------------------------------------------------------------
@cli.command("sweep", context_settings=CONTEXT)
@click.argument("grid_file", metavar="GRID.toml")
@click.option("--trace", "-t", "traces", multiple=True, required=True, metavar="FILE",
              help="A trace to sweep over (repeatable).")
@click.option("--out", "-o", "out", required=True, metavar="DIR",
              help=f"Where the table ({'sweep.parquet'}), the stored runs (runs.jsonl) and the curves go.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Local processes (default: every CPU).")
@click.option("--dask", "dask_address", metavar="ADDRESS", default=None,
              help="Run on the Dask scheduler at ADDRESS (tcp://HOST:PORT) instead; needs vmlab[cluster].")
@click.option("--fresh", is_flag=True, help="Forget the stored runs in DIR and run everything again.")
@click.option("--no-plot", is_flag=True, help="Write no curves (no matplotlib needed).")
@click.option("--sample", "sample", type=float, default=None, metavar="RATE",
              help="Sample the one-pass caches at RATE in (0, 1] (SHARDS): estimates, marked in the table's "
                   "sampled and sample_rate columns, stored apart from exact runs.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def sweep_cmd(grid_file: str, traces: Sequence[str], out: str, jobs: Optional[int], dask_address: Optional[str],
              fresh: bool, no_plot: bool, sample: Optional[float], quiet: bool) -> None:
    """Run every point of a grid of preset keys on every trace, into one Parquet table.

    \b
    Configurations that differ only in the size and associativity of one LRU
    cache of the last level share one pass over each trace (exactly the
    numbers of single runs); the others run on every local core, or on Dask.
    A rerun reuses every stored run whose trace bytes, configuration and engine
    are unchanged. With --sample RATE those passes are sampled (estimates).
    A grid with kind = "tlb" sweeps TLB points. The grid format: docs/python.md
    (Grid files).
    """
    from vmlab.grid import Grid
    from vmlab.sweeps import CURVES_FILE, TABLE_FILE, curves_figure, sweep

    grid = Grid.load(grid_file)
    optional.need("pyarrow.parquet", "vmlab sweep")
    optional.need("pandas", "vmlab sweep")
    if not no_plot:
        optional.need("matplotlib", "vmlab sweep's curves (--no-plot skips them)")
    if dask_address:
        from vmlab.runs.executor import check_dask

        check_dask(dask_address)
    log = (lambda s: None) if quiet else (lambda s: click.echo(s, err=True))
    start = time.perf_counter()
    df = sweep(grid, list(traces), out=out, jobs=jobs, dask=dask_address, log=log, fresh=fresh, sample=sample)
    table = os.path.join(out, TABLE_FILE)
    df.to_parquet(table, index=False)
    wrote = [table]
    if not no_plot:
        path = os.path.join(out, CURVES_FILE)
        curves_figure(df, grid).savefig(path, dpi=120)
        wrote.append(path)
    log(f"sweep: {df['run_key'].nunique()} runs, {len(df)} rows in {time.perf_counter() - start:.1f} s; "
        f"wrote {', '.join(wrote)}")


# -- trace -----------------------------------------------------------------
class TraceGroup(click.Group):
    """``vmlab trace`` is both a group (``info``, ``convert``) and the capture
    command: anything that is not a subcommand name is a command to capture."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["capture", *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "[-o FILE.vmt] -- COMMAND [ARGS]...")
        formatter.write_usage(ctx.command_path, "info FILE [--json]", prefix="       ")
        formatter.write_usage(ctx.command_path, "convert SRC DST [--to FORMAT]", prefix="       ")
        formatter.write_usage(ctx.command_path, "interleave A B... --quantum N -o OUT.vmt", prefix="       ")


@cli.group(cls=TraceGroup, context_settings=CONTEXT)
def trace() -> None:
    """Capture a program's references with valgrind, or inspect and convert trace files.

    \b
      vmlab trace -o ls.vmt -- ls -l /     capture (everything after -- is the command)
      vmlab trace --children -o sh.vmt -- /bin/sh -c 'ls | wc'
                                           every process, with its system calls
      vmlab trace info ls.vmt              counts, footprint, address range
      vmlab trace convert ls.vmt ls.din    write it in another format
      vmlab trace interleave a.vmt b.vmt --quantum 10000 -o ab.vmt
                                           two processes, asids 1 and 2, 10,000 references a turn
    """


@trace.command("capture", context_settings={**CONTEXT, "ignore_unknown_options": True,
                                            "allow_interspersed_args": False})
@click.option("--output", "-o", "out", metavar="FILE.vmt",
              help="Where to write the trace (default: the command's name + .vmt).")
@click.option("--pin-env", is_flag=True,
              help="Run COMMAND with a fixed, minimal environment (PATH=/usr/bin:/bin, LC_ALL=C, "
                   "HOME=/nonexistent, PWD) instead of yours, so that a capture elsewhere is the same trace.")
@click.option("--syscalls", is_flag=True,
              help="Keep COMMAND's system calls as markers in the trace (valgrind --trace-syscalls=yes).")
@click.option("--children", is_flag=True,
              help="Trace every process COMMAND starts, each in its own address space, merged where the "
                   "processes block (implies --syscalls).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def capture(out: Optional[str], pin_env: bool, syscalls: bool, children: bool, quiet: bool,
            command: Sequence[str]) -> None:
    """Run COMMAND under valgrind and write its memory references to a .vmt trace.

    Prints the trace's sha256: two captures are the same trace when it is
    equal. What COMMAND starts with besides its arguments changes the trace
    (the environment's size, the working directory, whether its output is a
    terminal, the stack limit); the trace header records them (`vmlab trace
    info`). For a repeatable capture use --pin-env, run from the same
    directory, and redirect the standard streams to files
    (docs/workloads.md, "Determinism")."""
    command = list(command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        _fail("trace needs a command to run, e.g. vmlab trace -o ls.vmt -- ls -l")
    out = out or default_capture_name(command)
    summary = capture_trace(command, out, progress=not quiet, pin_env=pin_env, syscalls=syscalls, children=children)
    if not quiet:
        click.echo(str(summary) if str(summary) else f"wrote {out}", err=True)


@trace.command("info", context_settings=CONTEXT)
@click.argument("file")
@click.option("--format", "-f", "fmt", type=FORMATS, default=None, help="The trace's format (default: detected).")
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as JSON.")
def info(file: str, fmt: Optional[str], as_json: bool) -> None:
    """Counts, bytes, footprint and address range of a trace file, and for
    a captured .vmt trace what its program started with (command, working
    directory, environment, standard streams, stack limit)."""
    summary = trace_info(file, fmt)
    header = trace_header(file)
    if as_json:
        import json

        click.echo(json.dumps({**dict(summary), **({"header": header} if header else {})}, indent=2))
    else:
        click.echo(str(summary), nl=False)
        for line in describe_capture(header or {}):
            click.echo(line)


@trace.command("convert", context_settings=CONTEXT)
@click.argument("src")
@click.argument("dst")
@click.option("--to", "to", type=FORMATS, default=None,
              help="Format of DST (default: from its extension, else vmt).")
@click.option("--from", "src_format", type=FORMATS, default=None, help="Format of SRC (default: detected).")
def convert(src: str, dst: str, to: Optional[str], src_format: Optional[str]) -> None:
    """Write trace SRC again as DST in another format, saying what that format lost."""
    summary = convert_trace(src, dst, to, src_format)
    click.echo(f"{dst}: {summary}")


@trace.command("interleave", context_settings=CONTEXT)
@click.argument("inputs", nargs=-1, required=True, metavar="TRACE...")
@click.option("--quantum", "quantum", type=click.IntRange(min=1), required=True, metavar="N",
              help="References each trace runs before the next one's turn.")
@click.option("--output", "-o", "out", required=True, metavar="FILE.vmt", help="The multi-process trace to write.")
def interleave(inputs: Sequence[str], quantum: int, out: str) -> None:
    """Interleave traces round-robin as separate processes: trace i gets asid i
    (1, 2, ...), each turn is QUANTUM references, and a context-switch marker
    starts every turn. A trace that ends drops out."""
    data, text = _engine.trace_interleave(list(inputs), quantum, out)
    click.echo(text, err=True)


# -- presets ---------------------------------------------------------------
@cli.group(invoke_without_command=True, context_settings=CONTEXT)
@click.pass_context
def presets_cmd(ctx: click.Context) -> None:
    """List the shipped machine presets (`vmlab presets show NAME` prints one)."""
    if ctx.invoked_subcommand is None:
        listing = presets()
        width = max(len(n) for n in listing)
        for name, description in listing.items():
            click.echo(f"{name:<{width}}  {description}")


cli.add_command(presets_cmd, "presets")


@presets_cmd.command("show", context_settings=CONTEXT)
@click.argument("name")
def show(name: str) -> None:
    """Print a preset's TOML (with the sources of its numbers)."""
    click.echo(preset_text(name), nl=False)


# -- report ----------------------------------------------------------------
@cli.command(context_settings=CONTEXT)
@click.option("--trace", "-t", "traces", multiple=True, required=True, metavar="FILE",
              help="A trace to simulate (repeatable).")
@click.option("--machine", "-m", "machines", multiple=True, metavar="PRESET",
              help="A preset to run (repeatable; default: every shipped preset that loads here).")
@click.option("--out", "-o", "out", default="report/index.html", show_default=True, help="The HTML file to write.")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
def report(traces: Sequence[str], machines: Sequence[str], out: str, quiet: bool) -> None:
    """Run presets on traces and write an HTML report with tables and plots."""
    optional.need("matplotlib", "vmlab report")
    from vmlab.report import presets_report

    path = presets_report(list(traces), list(machines) or None, out, progress=not quiet)
    click.echo(f"wrote {path}", err=True)


# -- pagetables --------------------------------------------------------------
def _add_pagetables() -> None:
    from vmlab.pagetables import command as pagetables_command

    cli.add_command(pagetables_command, "pagetables")


_add_pagetables()


def _add_osrun() -> None:
    from vmlab.osrun import command as osrun_command

    cli.add_command(osrun_command, "os-run")


_add_osrun()


# -- entry point -----------------------------------------------------------
# -- reproduce ---------------------------------------------------------------
@cli.group(context_settings=CONTEXT)
def reproduce() -> None:
    """Run one of the studies of experiments.md (s1, s2, ...)."""


def _add_studies() -> None:
    from vmlab.studies import available

    for sid, command in available().items():
        reproduce.add_command(command, sid)


_add_studies()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The console script: runs the CLI and turns every bad input into one line."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        rv = cli.main(args=args, prog_name="vmlab", standalone_mode=False)
    except _engine.VmlabError as e:
        return _error(str(e))
    except _NO_ARGS_IS_HELP as e:  # `vmlab` or `vmlab trace` alone: show the help
        click.echo(e.ctx.get_help() if e.ctx else str(e), err=True)
        return 2
    except click.UsageError as e:
        hint = f" (see {e.ctx.command_path} --help)" if e.ctx else ""
        return _error(e.format_message() + hint)
    except click.ClickException as e:
        return _error(e.format_message(), getattr(e, "exit_code", 2) or 2)
    except click.exceptions.Exit as e:
        return e.exit_code
    except (click.Abort, KeyboardInterrupt):
        click.echo("vmlab: interrupted", err=True)
        return 130
    except FileNotFoundError as e:
        return _error(f"{e.filename}: no such file or directory")
    except BrokenPipeError:
        # `vmlab ... | head`: the reader went away; not an error of ours.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except OSError as e:
        # A file or folder the user named (an output in a read-only folder, a
        # results path that is a file): their input, said in one line. An
        # OSError without a file name is not about their input.
        if e.filename is None:
            return _internal(e)
        return _error(f"{e.filename}: {e.strerror or e}")
    except Exception as e:  # noqa: BLE001 - a bug in vmlab, not in the input
        return _internal(e)
    return rv if isinstance(rv, int) else 0


def _internal(e: Exception) -> int:
    """A bug in vmlab, not in the input: exit status 1, or the traceback with VMLAB_DEBUG=1."""
    if os.environ.get("VMLAB_DEBUG"):
        raise e
    return _error(f"internal error: {type(e).__name__}: {e} (rerun with VMLAB_DEBUG=1 for a traceback)", 1)


# click >= 8.2 raises this for a group called with no arguments.
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _error(message: str, code: int = 2) -> int:
    line = " ".join(message.split("\n")).strip()
    click.echo(f"vmlab: error: {line}", err=True)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
