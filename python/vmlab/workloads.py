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
data, seeds), each capture runs in a directory of fixed name with a fixed
environment and standard streams, and valgrind lays the address space out
the same way each run, so two captures of a workload on one machine are the
same file, wherever the package or checkout is. Each trace gets a
``<trace>.json`` sidecar with its sha256 and the versions of what it depends
on; ``workload_sources/reference-traces.json`` holds the hashes of the
reference captures.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

from vmlab.cache import cache_dir

SIZES = ("small", "full")

#: The workloads' sources and inputs, package data beside this module (read only).
SOURCES = Path(__file__).resolve().parent / "workload_sources"
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
    the real worker process itself (valgrind does not follow ``exec``). It
    runs in ``scratch`` and names its files relative to it: ``inputs(build_dir)``
    lists the files copied there first, so no path of the checkout reaches
    the traced program. ``build`` (the C sources to compile natively, with
    extra flags) and ``needs`` (programs that must be on the machine) are
    checked first.
    """

    name: str
    character: str
    why: str
    command: Callable[[str, Path, Path], list[str]]
    inputs: Callable[[Path], Sequence[Path]] = lambda build_dir: ()
    build: Sequence[tuple[str, Sequence[str]]] = ()
    needs: Sequence[str] = ()
    #: Rough number of references per size, for the progress message.
    expected: dict = field(default_factory=dict)
    #: Whether two captures give the same file (docs/workloads.md, Determinism).
    repeatable: bool = True
    #: The benchmark of Jacob & Mudge (seed 002) it stands for, if any.
    stands_for: str = ""

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
    # cc1 opens its assembly output even with -fsyntax-only (next to the
    # source unless told). -frandom-seed: cc1 otherwise seeds the names it
    # makes up (and its local tick) from /dev/urandom and the clock.
    if size == "small":
        return [_cc1(), "-quiet", "-fsyntax-only", "-frandom-seed=vmlab", "-o", "calc.s", "calc.c"]
    return [_cc1(), "-quiet", "-fsyntax-only", "-frandom-seed=vmlab", "-o", "zstd_v07.s", "zstd_v07.i"]


#: Orders of queries.sql (small) and objects of vortex.sql (full).
_DB_SCALE = {"small": 20, "full": 3000}


def _database(size: str, build: Path, scratch: Path) -> list[str]:
    # -batch -init /dev/null: no ~/.sqliterc, no interactive setup. The PRNG
    # seed: sqlite seeds it from /dev/urandom, and it names temporary files
    # (a random 64-bit number printed in hex, of varying length).
    return [
        shutil.which("sqlite3") or "sqlite3",
        "-batch",
        "-init",
        "/dev/null",
        "s1.sqlite",
        ".testctrl prng_seed 1",
        ".output /dev/null",
        f".parameter set @n {_DB_SCALE[size]}",
        ".read queries.sql" if size == "small" else ".read vortex.sql",
    ]


_BIGFOOT = {"small": ("16", "100000"), "full": ("64", "2000000")}


def _bigfoot(size: str, build: Path, scratch: Path) -> list[str]:
    return ["./hashjoin", *_BIGFOOT[size]]


_SPARSE = {"small": ("128", "8", "2000"), "full": ("128", "8", "200000")}


def _sparse(size: str, build: Path, scratch: Path) -> list[str]:
    return ["./sparse", *_SPARSE[size]]


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in [
        Workload(
            "compiler",
            "GCC's cc1 parsing C: calc.c (small, 8 KB) or zstd_v07.i (full: zstd's v0.7 decoder, 254 KB preprocessed)",
            "GCC (SPEC95 gcc, Jacob & Mudge's Fig. 13): a compiler run over a real preprocessed source; large, "
            "branchy instruction footprint and a pointer-rich heap (trees, GC pages) that grows with the source. "
            "Front end only (-fsyntax-only): code generation of a source this size is 450 M instructions at -O0",
            _compiler,
            inputs=lambda build_dir: [SOURCES / "compiler" / "calc.c", SOURCES / "compiler" / "zstd_v07.i"],
            needs=("cc",),
            expected={"small": 27_000_000, "full": 155_000_000},
            stands_for="GCC",
        ),
        Workload(
            "database",
            "sqlite3 running queries.sql (small: an order mix) or vortex.sql (full: a 12 MB object store)",
            "VORTEX (SPEC95's object database, Fig. 14): B-tree and page-cache traffic under an interpreter "
            f"loop (VDBE). Small: queries.sql with {_DB_SCALE['small']} orders; full: vortex.sql, "
            f"{_DB_SCALE['full']} objects of 3 KB held in a 128 MB page cache (the database lives in the "
            "process, larger than any cache swept) put through link traversals, index lookups and updates",
            _database,
            inputs=lambda build_dir: [SOURCES / "database" / "queries.sql", SOURCES / "database" / "vortex.sql"],
            needs=("sqlite3",),
            expected={"small": 13_000_000, "full": 200_000_000},
            stands_for="VORTEX",
        ),
        Workload(
            "bigfoot",
            "hashjoin.c: a hash join over a 16 MB (small) or 64 MB (full) open-addressing table",
            "none of the paper's three: a stress case beyond them (a footprint far past every TLB's reach and "
            "every L2 swept, poor locality: every build and probe lands on an unrelated page), as the Etch "
            "programs the paper chose WINWORD from 'tend to have larger footprints'",
            _bigfoot,
            inputs=lambda build_dir: [build_dir / "hashjoin"],
            build=(("bigfoot/hashjoin.c", ()),),
            expected={"small": 6_000_000, "full": 125_000_000},
        ),
        Workload(
            "sparse",
            "sparse.c: 30 dlopened libraries, 128 regions at spread-out fixed addresses, 8 worker stacks "
            "(coroutines, one after another)",
            "a large, sparse address space (experiments.md S1 finding 4): pages spread over many "
            "4 MB and 1 GB regions, where MACH's page tables cost more than ULTRIX's",
            _sparse,
            inputs=lambda build_dir: [build_dir / "sparse"],
            build=(("sparse/sparse.c", ("-ldl",)),),
            expected={"small": 15_000_000, "full": 110_000_000},
            stands_for="WINWORD",
        ),
    ]
}


#: Multi-process traces made from the workloads' own (``vmlab trace
#: interleave``): the inputs, each its own process (asids 1, 2, ...), and the
#: quantum in references. ``mix`` runs the dense programs (GCC-, VORTEX-like
#: and bigfoot) as three processes sharing one kernel: MACH's kernel-table
#: pages then map several processes' user tables, as in a real system.
INTERLEAVED: dict[str, tuple[tuple[str, ...], int]] = {
    "mix": (("compiler", "database", "bigfoot"), 100_000),
}


def ensure_interleaved(name: str, size: str, trace_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
                       progress: bool = True) -> Path:
    """Returns the path of the interleaved trace ``name`` (``INTERLEAVED``) at
    ``size``, made from its inputs' traces (each captured first with
    :func:`ensure` if missing) unless the file is there. Writes a sidecar
    with its sha256, references, inputs and quantum."""
    from vmlab import _engine

    if name not in INTERLEAVED:
        raise WorkloadError(f"unknown interleaved trace `{name}`: expected one of {', '.join(INTERLEAVED)}")
    _check_size(size)
    inputs, quantum = INTERLEAVED[name]
    out = Path(trace_dir or default_trace_dir()) / f"{name}-{size}.vmt"
    # The inputs are ensured first (each is captured again if its sources
    # changed), and the interleaving is reused only if it was made from
    # exactly these input files and this quantum.
    paths = [ensure(n, size, trace_dir, progress) for n in inputs]
    made_from = [{"trace": p.name, "sha256": json.loads(sidecar_path(p).read_text()).get("sha256")} for p in paths]
    if out.exists():
        try:
            side = json.loads(sidecar_path(out).read_text())
        except (OSError, ValueError):
            side = {}
        if side.get("inputs") == made_from and side.get("quantum") == quantum:
            return out
    tmp = out.with_name(out.name + ".partial")
    started = time.monotonic()
    if progress:
        print(f"vmlab workloads: interleaving {', '.join(p.name for p in paths)} (quantum {quantum:,}) into {out.name}",
              file=sys.stderr, flush=True)
    try:
        data, _ = _engine.trace_interleave([str(p) for p in paths], quantum, str(tmp))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, out)
    from vmlab.runs import file_sha256

    sha = file_sha256(out)
    summary = json.loads(data) if isinstance(data, str) else data
    record = {"trace": out.name, "sha256": sha, "references": summary.get("events") if isinstance(summary, dict) else None,
              "inputs": made_from, "quantum": quantum}
    sidecar_path(out).write_text(json.dumps(record, indent=2) + "\n")
    if progress:
        print(f"vmlab workloads: {out}: {time.monotonic() - started:.0f} s, sha256 {sha}", file=sys.stderr, flush=True)
    return out


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
        compile_c(name, SOURCES / src, out_dir, "-O2", extra, log)


def compile_c(name: str, src: Path, out_dir: Path, opt: str, extra: Sequence[str],
              log: Callable[[str], None]) -> Path:
    """``out_dir/<stem of src>``, compiled natively (``cc OPT -o EXE SRC
    EXTRA...``) unless it is newer than ``src``; ``name`` is the workload
    errors are about."""
    exe = out_dir / src.stem
    if exe.exists() and exe.stat().st_mtime >= src.stat().st_mtime:
        return exe
    out_dir.mkdir(parents=True, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    cmd = [cc, opt, "-o", str(exe), str(src), *extra]
    log(f"building {name}: {' '.join(cmd)}")
    try:
        subprocess.run(cmd, check=True, capture_output=True, text=True)
    except FileNotFoundError as e:
        raise WorkloadError(f"{name}: no C compiler `{cc}` (apt-get install gcc)") from e
    except subprocess.CalledProcessError as e:
        raise WorkloadError(f"{name}: `{' '.join(cmd)}` failed:\n{e.stderr.strip()}") from e
    return exe


#: Where workload captures run, one directory per workload (override with
#: the environment variable VMLAB_CAPTURE_DIR). The path is fixed, not a
#: fresh temporary name, because it reaches the traced program: as its
#: working directory (sqlite3 resolves the database's full path with
#: getcwd), as PWD and TMPDIR in its environment, whose length moves every
#: stack address.
CAPTURE_DIR = Path("/tmp/vmlab-capture")

#: The sha256 and references of the reference captures, and the versions
#: of what they were captured with (docs/workloads.md, "Determinism").
REFERENCE_FILE_NAME = "reference-traces.json"


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
    being done on stderr. A failed capture leaves no file behind. A capture
    also writes ``<trace>.json`` (:func:`sidecar_path`): the trace's sha256,
    its references, the command, the program's output and the versions of
    what the trace depends on, and says whether it is the reference trace."""
    w = get(name)
    _check_size(size)
    out = w.trace_path(size, Path(trace_dir) if trace_dir is not None else None)
    native = default_build_dir()
    key = workload_key(name, size, native)
    if out.exists() and not force and captured_with(out, key):
        return out
    log = (lambda s: print(f"vmlab workloads: {s}", file=sys.stderr, flush=True)) if progress else (lambda s: None)
    missing = missing_tools(name)
    if missing:
        stale = (f"{out} was captured from other sources or by another capture revision (its sidecar's "
                 "capture_key differs), and it ") if out.exists() else ""
        raise WorkloadError(f"{name}: {stale}cannot capture without {', '.join(missing)} "
                            f"(apt-get install {' '.join(missing)})")
    if out.exists() and not force:
        log(f"{out.name}: the stored trace was made from other sources or by another capture revision "
            "(its sidecar's capture_key differs); capturing it again")
    build(name, native, log=log)
    out.parent.mkdir(parents=True, exist_ok=True)
    machine = dependencies(name)
    # Capture to a temporary name and rename: a half-written trace is never
    # mistaken for a finished one by the exists() check above.
    tmp = out.with_name(out.name + ".partial")
    started = time.monotonic()
    with _capture_scratch(name, log) as scratch:
        for f in w.inputs(native):
            shutil.copy(f, scratch / f.name)
        cmd = w.command(size, native, scratch)
        expected = w.expected.get(size)
        about = f" (about {expected / 1e6:.0f} M references)" if expected else ""
        log(f"capturing {out.name}{about} in {scratch}: {' '.join(cmd)}")
        summary, output = _pinned_capture(name, cmd, scratch, tmp, log, progress=progress,
                                          metadata={"workload": name, "size": size})
    os.replace(tmp, out)
    sha = summary["sha256"]
    record = {
        "trace": out.name,
        "sha256": sha,
        "references": summary.get("events"),
        "command": cmd,
        "stdout": output,
        "depends_on": machine,
        "capture_key": key,
    }
    reference = reference_for(name, size)
    record["reference"] = _compare_with_reference(reference, sha, machine)
    if not w.repeatable and record["reference"]["sha256"] not in (None, sha):
        record["reference"]["verdict"] += f"; {name}'s captures differ from run to run anyway"
    sidecar_path(out).write_text(json.dumps(record, indent=2) + "\n")
    log(f"{out}: {summary.get('events', 0):,} references in {time.monotonic() - started:.0f} s, "
        f"sha256 {sha}; {record['reference']['verdict']}")
    return out


def _pinned_capture(name: str, cmd: Sequence[str], scratch: Path, tmp: Path, log: Callable[[str], None],
                    children: bool = False, keep_stdout: bool = True, **kw) -> tuple[dict, str]:
    """Captures ``cmd`` in ``scratch`` into ``tmp`` with everything pinned
    (environment, stack limit, standard streams; the capture itself passes
    no other descriptor of this process): the capture's summary and what the
    program wrote on stdout (unless ``keep_stdout`` is false: then stdout
    is /dev/null, for a program whose output is its input again). A failed
    capture leaves no ``tmp`` and says what the program wrote on stderr."""
    from vmlab.traces import capture_trace

    stdout, stderr = scratch / "stdout.txt", scratch / "stderr.txt"
    if not keep_stdout:
        stdout = Path(os.devnull)
    try:
        with _pinned_stack_limit():
            summary = capture_trace(
                cmd, tmp, cwd=scratch, env=_pinned_environment(scratch),
                stdin=os.devnull, stdout=stdout, stderr=stderr, children=children, **kw,
            )
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        said = _tail(stderr)
        if said and isinstance(e, Exception):
            raise type(e)(f"{e}\n{name}'s stderr ended with:\n{said}") from e
        raise
    said = _tail(stderr)
    if said:
        log(f"{name} wrote on stderr:\n{said}")
    return summary, _tail(stdout)


def capture_key(command: Sequence[str], depends_on: dict, sources: Sequence[Path] = (),
                inputs: Optional[Path] = None, **more) -> dict:
    """Everything that made a capture, as its sidecar records it under
    ``capture_key``: how the capture starts a program (the engine's
    ``CAPTURE_REVISION``), the command, the sha256 of each C source it is
    built from and of the input files it runs on (``inputs``: a directory,
    by :func:`tree_sha256`), the versions of what it runs with
    (``depends_on``), and anything else a caller names. A stored trace is
    reused only when its key is equal (:func:`captured_with`)."""
    from vmlab import _engine
    from vmlab.runs import file_sha256

    key = {"capture_revision": _engine.CAPTURE_REVISION, "command": [os.fspath(c) for c in command],
           "sources_sha256": {Path(src).name: file_sha256(src) for src in sources},
           "inputs_sha256": tree_sha256(inputs) if inputs is not None else None, "depends_on": depends_on}
    return {**key, **more}


def workload_key(name: str, size: str, build_dir: Optional[Path] = None) -> dict:
    """What an S1 workload trace is reused by (:func:`capture_key`): the
    command, the C sources it is built from with their flags, and the input
    files it reads (the programs built from those sources are keyed by the
    sources). A trace in the cache with another key (the sources changed,
    as sparse's threads became coroutines in session 24, or a trace from
    before the key was recorded) is captured again. The machine's versions
    are not part of it: they are recorded as ``depends_on`` and judged
    against the reference capture, and a trace captured before, say, a
    library update is still a real trace of the same program."""
    w = get(name)
    native = Path(build_dir or default_build_dir())
    sources = [SOURCES / src for src, _ in w.build]
    sources += [f for f in w.inputs(native) if SOURCES in Path(f).parents]
    # The command names its files relative to the capture directory, so
    # no path of this checkout or of the cache enters the key.
    cmd = w.command(size, native, Path(os.environ.get("VMLAB_CAPTURE_DIR") or CAPTURE_DIR) / name)
    return capture_key(cmd, {}, sources=sources, build=[[src, "-O2", *extra] for src, extra in w.build])


def captured_with(trace: Path, key: dict) -> bool:
    """Whether ``trace`` exists and its sidecar records the capture key ``key``
    (else it was made by something else: capture again)."""
    try:
        side = json.loads(sidecar_path(trace).read_text())
    except (OSError, ValueError):
        return False
    return trace.exists() and side.get("capture_key") == key


def tree_sha256(directory: Path) -> str:
    """The sha256 of a directory's files: each one's path below it and bytes,
    in path order (an empty file counts by its name)."""
    h = hashlib.sha256()
    for f in sorted(p for p in Path(directory).rglob("*") if p.is_file()):
        h.update(f"{f.relative_to(directory).as_posix()}\0{hashlib.sha256(f.read_bytes()).hexdigest()}\n".encode())
    return h.hexdigest()


def sidecar_path(trace: Union[str, "os.PathLike[str]"]) -> Path:
    """``<trace>.json``: what :func:`ensure` records about a workload trace."""
    p = Path(trace)
    return p.with_name(p.name + ".json")


def _tail(path: Path, limit: int = 2000) -> str:
    """The last ``limit`` characters a capture's program wrote to ``path``."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return text[-limit:].strip()


@contextlib.contextmanager
def _capture_scratch(name: str, log: Callable[[str], None]):
    """The fixed directory ``CAPTURE_DIR/<name>``, emptied, for one capture
    at a time: a lock file beside it makes a second capture of the same
    workload (another process, another checkout) wait for the first."""
    root = Path(os.environ.get("VMLAB_CAPTURE_DIR") or CAPTURE_DIR)
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = root.lstat()
    except OSError as e:
        raise WorkloadError(f"cannot use {root} for captures ({e}); set VMLAB_CAPTURE_DIR to a directory of yours "
                            "(its path is recorded with the trace)") from e
    # A fixed name under /tmp: never follow a link or use another user's directory.
    if not root.is_dir() or root.is_symlink() or st.st_uid != os.getuid():
        raise WorkloadError(f"{root} is not a directory of yours; set VMLAB_CAPTURE_DIR to one "
                            "(its path is recorded with the trace)")
    with open(root / f"{name}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another capture of {name} (lock {root / f'{name}.lock'})")
            fcntl.flock(lock, fcntl.LOCK_EX)
        scratch = root / name
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir()
        try:
            yield scratch
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _pinned_environment(scratch: Path) -> dict[str, str]:
    """The whole environment of a workload capture: the fixed one of
    :func:`vmlab.traces.pinned_environment`, with temporary files in the
    capture's directory. Nothing of the caller's environment passes (an
    inherited VALGRIND_OPTS or a ~/.sqliterc found through HOME would change
    the run, and the strings' length moves every stack address)."""
    from vmlab.traces import pinned_environment

    return {**pinned_environment(scratch), "TMPDIR": str(scratch)}


#: The stack limit of a workload capture: Linux's usual default. valgrind
#: sizes the program's main stack from it, the C library its default thread
#: stacks, and the trace header records it.
STACK_LIMIT = 8 << 20


@contextlib.contextmanager
def _pinned_stack_limit():
    """Sets this process's soft stack limit to STACK_LIMIT while the capture
    starts (the program inherits it) and restores it after. Left alone if
    the hard limit is lower: the header records the limit the program had."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if hard != resource.RLIM_INFINITY and hard < STACK_LIMIT:
        yield
        return
    resource.setrlimit(resource.RLIMIT_STACK, (STACK_LIMIT, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))


def _first_line(cmd: Sequence[str]) -> str:
    try:
        out = subprocess.run(list(cmd), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({e})"
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else f"unknown (`{' '.join(cmd)}` printed nothing)"


#: CPU features by which valgrind chooses the processor it shows the program
#: (its CPUID), and so which of libc's string and memory routines run, as
#: /proc/cpuinfo names them (``pni`` is SSE3).
_VALGRIND_CPU_FLAGS = ("pni", "ssse3", "cx16", "abm", "avx", "rdtscp", "bmi1", "bmi2", "avx2", "f16c",
                       "rdrand", "rdseed")


def dependencies(name: str) -> dict[str, str]:
    """The versions of what workload ``name``'s trace depends on, on this
    machine: valgrind, the C library, the compiler (cc1 itself for
    ``compiler``; the one that built ``bigfoot`` and ``sparse``), sqlite3 for
    ``database``, the CPU features valgrind passes on, and the system."""
    w = get(name)
    return _dependencies(bool(w.build) or name == "compiler", "sqlite3" in w.needs)


def _dependencies(compiled: bool, sqlite3: bool) -> dict[str, str]:
    deps = {
        "valgrind": _first_line([shutil.which("valgrind") or "valgrind", "--version"]),
        "libc": _first_line(["ldd", "--version"]),
    }
    if compiled:
        deps["cc"] = _first_line([os.environ.get("CC", "cc"), "--version"])
    if sqlite3:
        deps["sqlite3"] = _first_line([shutil.which("sqlite3") or "sqlite3", "--version"])
    flags: set[str] = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    deps["cpu_flags"] = " ".join(f for f in _VALGRIND_CPU_FLAGS if f in flags)
    deps["system"] = _os_release()
    deps["ld_so_cache"] = _ld_so_cache()
    return deps


#: The dynamic loader's index of the installed shared libraries. ld.so
#: searches it for every library a program loads, so the loader's own
#: references (and so the trace) depend on its contents: the same workload,
#: with every version above equal, captured with this file rebuilt by
#: ``ldconfig`` from a different set of libraries (even one 80 bytes shorter,
#: the same number of pages) gives another trace and another reference count
#: (docs/workloads.md, "Determinism").
LD_SO_CACHE = Path("/etc/ld.so.cache")


def _ld_so_cache() -> str:
    try:
        data = LD_SO_CACHE.read_bytes()
    except OSError as e:
        return f"unreadable ({e.strerror})"
    return f"sha256 {hashlib.sha256(data).hexdigest()[:16]}, {len(data)} bytes"


def _os_release() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return f"{line.split('=', 1)[1].strip(chr(34))} ({platform.machine()})"
    return f"{platform.system()} {platform.machine()}"


def reference_for(name: str, size: str) -> Optional[dict]:
    """The reference capture of ``name``-``size`` from ``workloads/reference-traces.json``
    (its sha256, references and what it was captured with), if there is one."""
    try:
        data = json.loads((SOURCES / REFERENCE_FILE_NAME).read_text())
    except (OSError, ValueError):
        return None
    return data.get("traces", {}).get(f"{name}-{size}")


def _compare_with_reference(reference: Optional[dict], sha: str, machine: dict) -> dict:
    """Whether a capture is the reference trace and, if not, what differs
    from the machine the reference was captured on."""
    if reference is None:
        return {"sha256": None, "verdict": "no reference hash for this trace"}
    if reference.get("sha256") == sha:
        return {"sha256": sha, "verdict": "identical to the reference trace"}
    theirs = reference.get("depends_on", {})
    differ = [f"{k}: {machine.get(k)!r} here, {theirs[k]!r} for the reference"
              for k in sorted(theirs) if machine.get(k) != theirs[k]]
    differ += [f"{k}: {machine[k]!r} here, not recorded for the reference" for k in sorted(machine) if k not in theirs]
    why = "; ".join(differ) if differ else "every recorded version is the same: please report it"
    return {"sha256": reference.get("sha256"), "verdict": f"differs from the reference trace ({why})"}


def ensure_all(size: str, names: Optional[Sequence[str]] = None, **kw) -> dict[str, Path]:
    """:func:`ensure` for every workload (or those named), in registry order."""
    return {n: ensure(n, size, **kw) for n in (names or list(WORKLOADS))}


def record_reference(sidecars: Sequence[Path]) -> Path:
    """Writes the sha256, references and versions of the traces whose
    sidecars are given into ``workloads/reference-traces.json`` (keeping the
    entries of other traces): how the shipped reference hashes are made."""
    path = SOURCES / REFERENCE_FILE_NAME
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data.setdefault("about", "sha256 of the reference captures of the S1 workload traces, and the versions they "
                             "were captured with; vmlab.workloads.ensure compares every capture with them "
                             "(docs/workloads.md, Determinism)")
    traces = data.setdefault("traces", {})
    for sidecar in sidecars:
        side = json.loads(Path(sidecar).read_text())
        key = side["trace"].removesuffix(".vmt")
        traces[key] = {k: side[k] for k in ("sha256", "references", "command", "depends_on")}
        traces[key]["repeatable"] = get(key.rsplit("-", 1)[0]).repeatable
    data["traces"] = dict(sorted(traces.items()))
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


# -- study S5: the lmbench-like programs, every process traced -----------------

#: Where S5's sources are, and the hashes of their reference captures.
LMBENCH_SOURCES = SOURCES / "lmbench"


@dataclass(frozen=True)
class LmbenchProgram:
    """One row of S5's lmbench table: ``program`` (a C file of
    ``workload_sources/lmbench/``) run with ``args``, captured with every
    process and its system calls (``vmlab trace --children``). ``ops`` is
    how many operations its measured stretch holds (between the first
    process's two ``getppid`` calls); ``sockets``: its reads and writes go
    through the kernel's socket path, not the pipe path."""

    name: str
    #: The trace's file name (without .vmt) and reference-hash key.
    key: str
    program: str
    args: tuple
    ops: int
    sockets: bool = False
    #: Whether two captures give the same file: the shell's own waits are
    #: interrupted by SIGCHLD or not as the host's timing has it, so its
    #: system calls differ from run to run.
    repeatable: bool = True

    def trace_path(self, trace_dir: Optional[Path] = None) -> Path:
        return Path(trace_dir or cache_dir() / "traces" / "s5") / f"{self.key}.vmt"


#: S5's programs, in the seed's table order. Small counts: the whole study,
#: captures included, stays within a few minutes on 2 cores.
LMBENCH: dict[str, LmbenchProgram] = {
    p.name: p
    for p in [
        LmbenchProgram("fcntl", "hot_potato-fcntl", "hot_potato", ("fcntl", "0", "40"), 40),
        LmbenchProgram("fifo", "hot_potato-fifo", "hot_potato", ("fifo", "5", "40"), 40),
        LmbenchProgram("pipe", "hot_potato-pipe", "hot_potato", ("pipe", "5", "40"), 40),
        LmbenchProgram("unix", "hot_potato-unix", "hot_potato", ("unix", "5", "40"), 40, sockets=True),
        LmbenchProgram("bw pipe", "bandwidth-pipe", "bandwidth", ("pipe", "1", "8"), 8),
        LmbenchProgram("bw unix", "bandwidth-unix", "bandwidth", ("unix", "1", "8"), 8, sockets=True),
        LmbenchProgram("fork", "proc-fork", "proc", ("fork", "1", "8"), 8),
        LmbenchProgram("exec", "proc-exec", "proc", ("exec", "1", "5"), 5),
        LmbenchProgram("shell", "proc-shell", "proc", ("shell", "1", "3"), 3, repeatable=False),
    ]
}

#: S5's rings (ring.c): n processes, one hand-over per hop; ``work``: every
#: hop runs a stretch of the C library (extreme sharing).
RING_SIZES = (2, 8, 13, 16, 24)
RINGS: dict[str, LmbenchProgram] = {
    p.name: p
    for p in [
        *(LmbenchProgram(f"ring {n}", f"ring-{n}", "ring", (str(n), "2", str(max(4, 40 // n))), max(4, 40 // n))
          for n in RING_SIZES),
        LmbenchProgram("ring 2 work", "ring-2-work", "ring", ("2", "2", "20", "work"), 20),
        LmbenchProgram("ring 8 work", "ring-8-work", "ring", ("8", "2", "5", "work"), 5),
    ]
}


def _lmbench_build(program: str, log: Callable[[str], None]) -> Path:
    """Compiles ``lmbench/<program>.c`` natively (``-O2``) unless the binary is newer."""
    return compile_c(program, LMBENCH_SOURCES / f"{program}.c", default_build_dir() / "lmbench", "-O2", (), log)


def lmbench_dependencies() -> dict[str, str]:
    """What S5's traces depend on: valgrind, the C library, the compiler,
    the CPU features valgrind passes on, and the system (whose /bin/sh and
    /bin/true the exec and shell programs run)."""
    return _dependencies(True, False)


def lmbench_reference(key: str) -> Optional[dict]:
    try:
        data = json.loads((LMBENCH_SOURCES / REFERENCE_FILE_NAME).read_text())
    except (OSError, ValueError):
        return None
    return data.get("traces", {}).get(key)


def ensure_lmbench(name: str, trace_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
                   progress: bool = True, force: bool = False) -> Path:
    """The trace of S5 program ``name`` (a key of :data:`LMBENCH`), captured
    first unless it is there with the same :func:`capture_key` (``force``:
    again): built natively,
    run under valgrind with every process and its system calls traced, in a
    fixed directory with a fixed environment, as :func:`ensure` does for S1.
    The sidecar ``<trace>.json`` records the sha256 and compares it with
    ``workload_sources/lmbench/reference-traces.json``."""
    try:
        p = {**LMBENCH, **RINGS}[name]
    except KeyError:
        raise WorkloadError(f"unknown S5 program `{name}`: expected one of {', '.join([*LMBENCH, *RINGS])}") from None
    out = p.trace_path(Path(trace_dir) if trace_dir is not None else None)
    cmd = [f"./{p.program}", *p.args]
    source = LMBENCH_SOURCES / f"{p.program}.c"
    machine = lmbench_dependencies()
    key = capture_key(cmd, machine, sources=[source])
    if not force and captured_with(out, key):
        return out
    log = (lambda s: print(f"vmlab workloads: {s}", file=sys.stderr, flush=True)) if progress else (lambda s: None)
    if shutil.which("valgrind") is None:
        raise WorkloadError(f"S5 {name}: cannot capture without valgrind (apt-get install valgrind)")
    exe = _lmbench_build(p.program, log)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".partial")
    started = time.monotonic()
    with _capture_scratch(f"s5-{p.key}", log) as scratch:
        shutil.copy(exe, scratch / p.program)
        log(f"capturing {out.name} (every process) in {scratch}: {' '.join(cmd)}")
        summary, output = _pinned_capture(name, cmd, scratch, tmp, log, children=True,
                                          metadata={"workload": f"s5 {name}"})
    os.replace(tmp, out)
    sha = summary["sha256"]
    record = {
        "trace": out.name,
        "sha256": sha,
        "references": summary.get("events"),
        "command": cmd,
        "stdout": output,
        "merge": summary.get("merge"),
        "source_sha256": key["sources_sha256"][source.name],
        "depends_on": machine,
        "capture_key": key,
    }
    record["reference"] = _compare_with_reference(lmbench_reference(p.key), sha, machine)
    if not p.repeatable and record["reference"]["sha256"] not in (None, sha):
        record["reference"]["verdict"] += f"; {name}'s captures differ from run to run anyway"
    sidecar_path(out).write_text(json.dumps(record, indent=2) + "\n")
    log(f"{out}: {summary.get('events', 0):,} events in {time.monotonic() - started:.0f} s, "
        f"sha256 {sha}; {record['reference']['verdict']}")
    return out


def record_lmbench_reference(traces: Sequence[Path]) -> Path:
    """Writes the sha256, events, command and versions of S5 traces (from
    their sidecars) into ``workload_sources/lmbench/reference-traces.json``."""
    path = LMBENCH_SOURCES / REFERENCE_FILE_NAME
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data["about"] = ("sha256 of the reference captures of study S5's lmbench-like programs (every process "
                     "traced, merged where they block), and the versions they were captured with; "
                     "vmlab.workloads.ensure_lmbench compares every capture with them")
    entries = data.setdefault("traces", {})
    for t in traces:
        side = json.loads(sidecar_path(t).read_text())
        entries[side["trace"].removesuffix(".vmt")] = {k: side[k] for k in ("sha256", "references", "command",
                                                                            "depends_on")}
    data["traces"] = dict(sorted(entries.items()))
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m vmlab.workloads SIZE [NAME...]``: what the Makefile runs.
    ``python -m vmlab.workloads record-reference TRACE.vmt...``: makes the
    traces' hashes the reference ones."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["record-reference"]:
        print(record_reference([sidecar_path(t) for t in args[1:]]))
        return 0
    if args[:1] == ["record-lmbench-reference"]:
        print(record_lmbench_reference([Path(t) for t in args[1:]]))
        return 0
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
