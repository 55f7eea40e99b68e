"""The real-program workloads of study S1: what each is, how to build and
capture it, and where its trace goes.

Each workload comes in two sizes: ``small`` (captured inside ``make test``)
and ``full`` (for ``make reproduce``). :func:`ensure` builds the program if
needed and captures the trace under valgrind unless the file already exists:

    >>> from vmlab.workloads import ensure
    >>> path = ensure("database", "small")   # <cache>/traces/s1/database-small.vmt

The sources ship inside the package (``vmlab/workload_sources/``, see its
README and ``docs/workloads.md``) and are only read. Everything made from
them goes to the cache folder, :func:`cache_dir`: ``$VMLAB_CACHE_DIR`` if set,
else the user's cache folder (``~/.cache/vmlab`` on Linux); traces under
``traces/s1/``, native builds under ``build/workloads/``. Nothing is ever
written next to the installed package. Every input is pinned (arguments,
data, seeds), and valgrind lays the address space out the same way each
run, so a capture is repeatable.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

SIZES = ("small", "full")

#: The workloads' sources and inputs, package data beside this module (read only).
SOURCES = Path(__file__).resolve().parent / "workload_sources"
#: The environment variable that moves the cache folder.
CACHE_ENV = "VMLAB_CACHE_DIR"


def cache_dir() -> Path:
    """Where captured traces and native builds go: ``$VMLAB_CACHE_DIR`` if set,
    else the user's cache folder for vmlab (platformdirs: ``~/.cache/vmlab``
    on Linux, honouring ``XDG_CACHE_HOME``). Read at each call, so setting
    the variable takes effect at once."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given).expanduser()
    import platformdirs

    return platformdirs.user_cache_path("vmlab")


def default_trace_dir() -> Path:
    """The S1 traces: ``<cache>/traces/s1``."""
    return cache_dir() / "traces" / "s1"


def default_build_dir() -> Path:
    """The workloads' native builds: ``<cache>/build/workloads``."""
    return cache_dir() / "build" / "workloads"


@dataclass(frozen=True)
class Workload:
    """One S1 workload.

    ``command(size, build_dir, scratch)`` returns the command line to trace:
    the real worker process itself (valgrind does not follow ``exec``).
    ``build`` (the C sources to compile natively, with extra flags) and
    ``needs`` (programs that must be on the machine) are checked first.
    """

    name: str
    character: str
    why: str
    command: Callable[[str, Path, Path], list[str]]
    build: Sequence[tuple[str, Sequence[str]]] = ()
    needs: Sequence[str] = ()
    #: Rough number of references per size, for the progress message.
    expected: dict = field(default_factory=dict)

    def trace_path(self, size: str, trace_dir: Optional[Path] = None) -> Path:
        _check_size(size)
        return Path(trace_dir or default_trace_dir()) / f"{self.name}-{size}.vmt"


def _cc1() -> str:
    cc = os.environ.get("CC", "cc")
    try:
        out = subprocess.run([cc, "-print-prog-name=cc1"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        raise WorkloadError(f"compiler workload: cannot ask `{cc}` where cc1 is ({e}); install gcc") from e
    if not os.path.isabs(out) or not os.access(out, os.X_OK):
        raise WorkloadError(f"compiler workload: `{cc} -print-prog-name=cc1` gave `{out}`, not an executable cc1; "
                            "it needs GCC (apt-get install gcc)")
    return out


def _compiler(size: str, build: Path, scratch: Path) -> list[str]:
    src = str(SOURCES / "compiler" / "calc.c")
    # cc1 opens its assembly output even with -fsyntax-only (next to the
    # source unless told): keep it in the scratch directory.
    flags = ["-fsyntax-only"] if size == "small" else ["-O0"]
    return [_cc1(), "-quiet", *flags, "-o", str(scratch / "calc.s"), src]


_DB_ORDERS = {"small": 20, "full": 700}


def _database(size: str, build: Path, scratch: Path) -> list[str]:
    # -batch -init /dev/null: no ~/.sqliterc, no interactive setup.
    return [
        shutil.which("sqlite3") or "sqlite3",
        "-batch",
        "-init",
        "/dev/null",
        str(scratch / "s1.sqlite"),
        ".output /dev/null",
        f".parameter set @n {_DB_ORDERS[size]}",
        f".read {SOURCES / 'database' / 'queries.sql'}",
    ]


_BIGFOOT = {"small": ("16", "100000"), "full": ("64", "1500000")}


def _bigfoot(size: str, build: Path, scratch: Path) -> list[str]:
    return [str(build / "hashjoin"), *_BIGFOOT[size]]


_SPARSE = {"small": ("128", "8", "2000"), "full": ("128", "8", "200000")}


def _sparse(size: str, build: Path, scratch: Path) -> list[str]:
    return [str(build / "sparse"), *_SPARSE[size]]


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in [
        Workload(
            "compiler",
            "GCC's cc1 compiling a C file (calc.c: lexer, parser, symbol table)",
            "a compiler run, as the GCC trace of Jacob & Mudge: large instruction footprint, "
            "pointer-heavy heap data; small = front end only (-fsyntax-only), full = -O0 code generation",
            _compiler,
            needs=("cc",),
            expected={"small": 27_000_000, "full": 165_000_000},
        ),
        Workload(
            "database",
            "sqlite3 running queries.sql (bulk load, indexes, joins, aggregates, window, updates, deletes)",
            "a database: B-tree and page-cache traffic, an interpreter loop (VDBE), a real query mix "
            f"on a fresh file; {_DB_ORDERS['small']} orders (small) or {_DB_ORDERS['full']} (full)",
            _database,
            needs=("sqlite3",),
            expected={"small": 13_000_000, "full": 110_000_000},
        ),
        Workload(
            "bigfoot",
            "hashjoin.c: a hash join over a 16 MB (small) or 64 MB (full) open-addressing table",
            "a large footprint with poor locality: every build and probe lands on an unrelated page",
            _bigfoot,
            build=(("bigfoot/hashjoin.c", ()),),
            expected={"small": 6_000_000, "full": 95_000_000},
        ),
        Workload(
            "sparse",
            "sparse.c: 30 dlopened libraries, 128 regions at spread-out fixed addresses, 8 thread stacks",
            "a large, sparse address space (experiments.md S1 finding 4): pages spread over many "
            "4 MB and 1 GB regions, where MACH's page tables cost more than ULTRIX's",
            _sparse,
            build=(("sparse/sparse.c", ("-ldl", "-lpthread")),),
            expected={"small": 15_000_000, "full": 110_000_000},
        ),
    ]
}


class WorkloadError(RuntimeError):
    """A workload cannot be built or captured on this machine (the message says why and what to install)."""


def _check_size(size: str) -> None:
    if size not in SIZES:
        raise WorkloadError(f"unknown workload size `{size}`: expected one of {', '.join(SIZES)}")


def get(name: str) -> Workload:
    try:
        return WORKLOADS[name]
    except KeyError:
        raise WorkloadError(f"unknown S1 workload `{name}`: expected one of {', '.join(WORKLOADS)}") from None


def missing_tools(name: str) -> list[str]:
    """Programs the workload needs that are not on PATH (valgrind included)."""
    w = get(name)
    return [t for t in ("valgrind", *w.needs) if shutil.which(t) is None]


def build(name: str, build_dir: Optional[Path] = None, log: Callable[[str], None] = lambda s: None) -> None:
    """Compiles the workload's C sources natively (``-O2``), if they are newer than the binary."""
    w = get(name)
    out_dir = Path(build_dir or default_build_dir())
    for src, extra in w.build:
        src_path = SOURCES / src
        exe = out_dir / Path(src).stem
        if exe.exists() and exe.stat().st_mtime >= src_path.stat().st_mtime:
            continue
        out_dir.mkdir(parents=True, exist_ok=True)
        cc = os.environ.get("CC", "cc")
        cmd = [cc, "-O2", "-o", str(exe), str(src_path), *extra]
        log(f"building {name}: {' '.join(cmd)}")
        try:
            subprocess.run(cmd, check=True, capture_output=True, text=True)
        except FileNotFoundError as e:
            raise WorkloadError(f"{name}: no C compiler `{cc}` (apt-get install gcc)") from e
        except subprocess.CalledProcessError as e:
            raise WorkloadError(f"{name}: `{' '.join(cmd)}` failed:\n{e.stderr.strip()}") from e


def ensure(
    name: str,
    size: str,
    trace_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
    progress: bool = True,
    force: bool = False,
) -> Path:
    """Returns the path of workload ``name``'s ``size`` trace, building the
    program and capturing the trace under valgrind first unless the file is
    already there (``force`` captures again). ``progress`` prints what is
    being done on stderr. A failed capture leaves no file behind."""
    from vmlab.traces import capture_trace

    w = get(name)
    _check_size(size)
    out = w.trace_path(size, Path(trace_dir) if trace_dir is not None else None)
    if out.exists() and not force:
        return out
    log = (lambda s: print(f"vmlab workloads: {s}", file=sys.stderr, flush=True)) if progress else (lambda s: None)
    missing = missing_tools(name)
    if missing:
        raise WorkloadError(f"{name}: cannot capture without {', '.join(missing)} "
                            f"(apt-get install {' '.join(missing)})")
    native = default_build_dir()
    build(name, native, log=log)
    out.parent.mkdir(parents=True, exist_ok=True)
    # Capture to a temporary name and rename: a half-written trace is never
    # mistaken for a finished one by the exists() check above.
    tmp = out.with_name(out.name + ".partial")
    with tempfile.TemporaryDirectory(prefix="vmlab-s1-") as scratch:
        cmd = w.command(size, native, Path(scratch))
        expected = w.expected.get(size)
        about = f" (about {expected / 1e6:.0f} M references)" if expected else ""
        log(f"capturing {out.name}{about}: {' '.join(cmd)}")
        started = time.monotonic()
        try:
            with _pinned_environment(Path(scratch)):
                summary = capture_trace(cmd, tmp, progress=progress)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    os.replace(tmp, out)
    log(f"{out}: {summary.get('events', 0):,} references in {time.monotonic() - started:.0f} s")
    return out


@contextlib.contextmanager
def _pinned_environment(scratch: Path):
    """Runs the capture with a fixed, minimal environment. The environment
    strings sit at the top of the traced program's stack, so their length
    moves every stack address (and the alignment, hence the iteration
    counts, of libc's string routines); variables such as VALGRIND_OPTS or
    a ~/.sqliterc found through HOME would change the run itself. The
    capture inherits this process's environment (the engine's capture takes
    none of its own), so it is swapped for the duration and restored."""
    valgrind = shutil.which("valgrind")
    saved = dict(os.environ)
    pinned = {
        # Only valgrind is looked up on PATH; the traced programs are absolute paths.
        "PATH": os.path.dirname(valgrind) if valgrind else "/usr/bin",
        "LC_ALL": "C",
        "HOME": "/nonexistent",
        "TMPDIR": str(scratch),
    }
    os.environ.clear()
    os.environ.update(pinned)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def ensure_all(size: str, names: Optional[Sequence[str]] = None, **kw) -> dict[str, Path]:
    """:func:`ensure` for every workload (or those named), in registry order."""
    return {n: ensure(n, size, **kw) for n in (names or list(WORKLOADS))}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m vmlab.workloads SIZE [NAME...]``: what the Makefile runs."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in SIZES:
        print(f"usage: python -m vmlab.workloads {{{'|'.join(SIZES)}}} [{'|'.join(WORKLOADS)}...]", file=sys.stderr)
        return 2
    try:
        for path in ensure_all(args[0], args[1:] or None).values():
            print(path)
    except WorkloadError as e:
        print(f"vmlab workloads: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
