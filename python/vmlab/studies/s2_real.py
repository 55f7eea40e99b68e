"""Real multi-process workloads with sharing for study S2's consistency
policies (issue 25): captured under valgrind with every process traced and
its system calls as markers (`docs/syscall-markers.md`), pinned, on first use
into ``<cache>/traces/s2`` with a sidecar holding the sha256.

* ``pipeline``: the pipeline ``ls files/* | sort | uniq -c`` (coreutils) over
  a directory of 200 empty files this module makes, started as a shell would
  by ``workload_sources/s2/pipeline.c`` (a shell's ``$PPID`` would put the
  capturing process's pid into the trace). Real programs: the launcher
  forks three children that exec; each maps the C library,
  ``ld.so.cache`` and valgrind's preload from their own opens (one object per
  path, docs/syscall-markers.md "File identity"). ``ls`` loads libselinux and
  libpcre2 first, so its C library text sits 0x2e000 bytes from the others'
  (another 834 cache colour, the same R4000 one).
* ``sharing``: ``workload_sources/s2/sharing.c``, where a behaviour needs
  forcing: one file mapped twice by one process and again by two children
  at other colours (they ask for addresses 4 MB and an odd number of pages
  away: valgrind lays out every process alike, where ASLR would not), a System V segment attached by all three, a shared
  anonymous mapping inherited across fork, copy-on-write of data written
  before the fork, the processes taking turns through pipes. It checks every
  value it reads and exits non-zero otherwise, so a capture is of a run that
  really shared.
* ``workers``: ``workload_sources/s2/workers.c``, the longer run the
  flushing claim needs ("a workload without heavy remapping"): two forked
  workers parse and qsort their share of a records file mapped shared (three
  orders each) into a shared anonymous area, the parent sorts each share
  again to check them, a fourth process execs the machine's gzip on the file.
  About 16.6 M references, four times the pipeline per process. Each forked
  process copies its /proc/self/maps into ``maps-ROLE.txt`` last thing
  before it exits; the sidecar keeps them (``proc_maps``), the kernel's
  record the replay's mappings are tested against (must-show 3).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from vmlab.cache import cache_dir

SOURCES = Path(__file__).resolve().parent.parent / "workload_sources" / "s2"

#: Dictionary words the pipeline's file names start with.
_WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")


def _pipeline_names() -> List[str]:
    rng = random.Random(1)
    return [f"{rng.choice(_WORDS)}-{i:03d}" for i in range(200)]


def _pipeline_inputs(scratch: Path) -> None:
    files = scratch / "files"
    files.mkdir()
    for name in _pipeline_names():
        (files / name).touch()


def _pipeline_command() -> List[str]:
    # `files/*` as a shell expands it (sorted bytewise: LC_ALL=C), passed on
    # to ls by pipeline.c, which so never depends on the directory's order.
    return ["./pipeline", *sorted(f"files/{n}" for n in _pipeline_names())]


#: Lines of the records file ``workers`` sorts and compresses.
RECORDS = 1500


def _workers_inputs(scratch: Path) -> None:
    rng = random.Random(2)
    lines = (f"{rng.choice(_WORDS)}-{rng.randrange(10 ** 6):06d} {rng.randrange(10 ** 9)}\n" for _ in range(RECORDS))
    (scratch / "records.txt").write_text("".join(lines))


def _workers_command() -> List[str]:
    from vmlab.workloads import WorkloadError

    gzip = shutil.which("gzip")
    if gzip is None:
        raise WorkloadError("S2 workload workers: needs gzip on PATH")
    return ["./workers", os.path.realpath(gzip)]


#: name -> (what it is, how to make its input files in its directory, its
#: command, C sources to build: the programs ``./<stem>``)
WORKLOADS: Dict[str, Tuple[str, Callable[[Path], None], Callable[[], List[str]], Tuple[str, ...]]] = {
    "pipeline": ("real programs: `ls files/* | sort | uniq -c` of the machine's coreutils, started as a shell "
                 "would by workload_sources/s2/pipeline.c (4 processes, exec, pipes, the C library at two "
                 "addresses)", _pipeline_inputs, _pipeline_command, ("pipeline.c",)),
    "sharing": ("a small C program (workload_sources/s2/sharing.c; 3 processes): a file mapped twice and by "
                "each child at another colour, System V and shared anonymous memory, fork and copy-on-write",
                lambda scratch: None, lambda: ["./sharing"], ("sharing.c",)),
    "workers": ("a longer run with little set-up and teardown (workload_sources/s2/workers.c; 4 processes): "
                "two forked workers parse and qsort their share of a records file mapped shared, three orders "
                "each, into a shared anonymous result area; the parent sorts each share again to check them; "
                "a fourth process execs the machine's gzip on the file", _workers_inputs, _workers_command,
                ("workers.c",)),
}


#: What the Python side of a capture does (its input files, its command):
#: raised when that changes, since the capture key (``capture_key``) holds
#: the C sources' and inputs' digests but not this module's code.
CAPTURE_VERSION = 4


def trace_dir() -> Path:
    return cache_dir() / "traces" / "s2"


def ensure(name: str, progress: bool = True, force: bool = False, directory: Optional[Path] = None) -> Path:
    """The path of real workload ``name``'s trace, captured first unless it is
    there with the same :func:`capture_key` (``force``: again). Writes
    ``<trace>.json`` beside it: the key, the sha256, the references, the
    command, the merge summary."""
    from vmlab import workloads as wl

    what, make_inputs, command, sources = WORKLOADS[name]
    out = Path(directory or trace_dir()) / f"{name}.vmt"
    key = capture_key(name)
    if not force and wl.captured_with(out, key):
        return out
    log = (lambda s: print(f"vmlab s2: {s}", file=sys.stderr, flush=True)) if progress else (lambda s: None)
    if shutil.which("valgrind") is None:
        raise wl.WorkloadError(f"S2 workload {name}: cannot capture without valgrind (apt-get install valgrind)"
                               + (" (the trace in the cache was made from other sources or inputs)"
                                  if out.exists() else ""))
    build = cache_dir() / "build" / "s2"
    for src in sources:
        wl.compile_c(f"S2 workload {name}", SOURCES / src, build, "-O1", (), log)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".partial")
    with wl._capture_scratch(f"s2-{name}", log) as scratch:
        make_inputs(scratch)
        for src in sources:
            shutil.copy(build / Path(src).stem, scratch / Path(src).stem)
        cmd = command()
        log(f"capturing {out.name} with every process in {scratch}: {' '.join(cmd)}")
        summary, output = wl._pinned_capture(f"S2 workload {name}", cmd, scratch, tmp, log, children=True,
                                             progress=False, metadata={"workload": f"s2-{name}"})
        # the kernel's record of the mappings, where the processes wrote one
        proc_maps = {f.stem[len("maps-"):]: f.read_text() for f in sorted(scratch.glob("maps-*.txt"))}
    os.replace(tmp, out)
    record = dict(trace=out.name, version=CAPTURE_VERSION, workload=what, sha256=summary["sha256"], references=summary.get("events"),
                  command=cmd, stdout=output, merge=summary.get("merge"), depends_on=key["depends_on"],
                  capture_key=key)
    if proc_maps:
        record["proc_maps"] = proc_maps
    wl.sidecar_path(out).write_text(json.dumps(record, indent=2) + "\n")
    log(f"{out}: {summary.get('events', 0):,} references, sha256 {summary['sha256']}")
    return out


def capture_key(name: str) -> dict:
    """What workload ``name``'s trace is keyed by (``vmlab.workloads.capture_key``):
    its C sources, the input files it makes (made in a temporary directory
    and hashed), its command, the versions of what it runs with and
    ``CAPTURE_VERSION``."""
    import tempfile

    from vmlab import workloads as wl

    _, make_inputs, command, sources = WORKLOADS[name]
    with tempfile.TemporaryDirectory(prefix=f"vmlab-s2-{name}-") as tmp:
        make_inputs(Path(tmp))
        return wl.capture_key(command(), dependencies(), sources=[SOURCES / s for s in sources], inputs=Path(tmp),
                              version=CAPTURE_VERSION)


def dependencies() -> Dict[str, str]:
    """What the S2 captures depend on besides their sources: S5's list
    (valgrind, the C library, the compiler, the CPU features valgrind passes
    on, the system) and the machine's coreutils and gzip, which they run."""
    from vmlab import workloads as wl

    return {**wl.lmbench_dependencies(), "coreutils": wl._first_line(["ls", "--version"]),
            "gzip": wl._first_line([shutil.which("gzip") or "gzip", "--version"])}


def sidecar(trace: Path) -> dict:
    from vmlab.workloads import sidecar_path

    return json.loads(sidecar_path(trace).read_text())
