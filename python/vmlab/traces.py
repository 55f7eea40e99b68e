"""Trace files: what is in one, converting between formats, capturing one."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from typing import Any, Callable, Optional, Sequence, Union

from vmlab import _engine
from vmlab._files import fspath

PathLike = Union[str, "os.PathLike[str]"]


def trace_formats() -> list[str]:
    """The format names ``format=`` accepts (``lackey``, ``din``, ``vmt``)."""
    return list(_engine.trace_formats())


class Summary(dict):
    """What a trace operation found or did, as a dict; ``str()`` of it is the
    engine's own text for people (a table for :func:`trace_info`)."""

    def __init__(self, data: dict, text: str):
        super().__init__(data)
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __reduce__(self):
        return (type(self), (dict(self), self.text))



def trace_info(path: PathLike, format: Optional[str] = None) -> Summary:
    """Reads the whole trace once and summarises it."""
    data, text = _engine.trace_info(fspath(path, "trace_info: path"), format)
    return Summary(json.loads(data), text)


def trace_syscalls(path: PathLike, format: Optional[str] = None) -> list[dict]:
    """The system-call markers of a trace, in order: one dict per call with
    ``event`` (the index of its marker among all events), ``asid``,
    ``number``, ``name`` (``syscall_N`` for a number without one), ``ret``
    (``-errno`` on failure) and ``args``."""
    return json.loads(_engine.trace_syscalls(os.fspath(path), format))


def trace_header(path: PathLike) -> Optional[dict]:
    """The header of a ``.vmt`` trace as a dict (``created_by``, the captured
    ``command``, ``metadata`` with the capture's ``launch`` record), or
    ``None`` for a trace in another format."""
    data = _engine.trace_header(os.fspath(path))
    return json.loads(data) if data is not None else None


def describe_capture(header: dict) -> list[str]:
    """Lines for people: what a captured trace's program started with."""
    lines = []
    if header.get("command"):
        lines.append(f"{'command':<20} {' '.join(header['command'])}")
    launch = header.get("metadata", {}).get("launch")
    if launch:
        env = launch.get("environment", {})
        if "pinned" in env:
            env_text = "pinned: " + " ".join(f"{k}={v}" for k, v in env["pinned"].items())
        else:
            inherited = env.get("inherited", {})
            env_text = f"inherited: {inherited.get('variables')} variables, {inherited.get('bytes')} bytes"
        lines += [
            f"{'working directory':<20} {launch.get('cwd')}",
            f"{'environment':<20} {env_text}",
            f"{'stdin/stdout/stderr':<20} {launch.get('stdin')} / {launch.get('stdout')} / {launch.get('stderr')}",
            f"{'stack limit':<20} {_stack_limit_text(launch.get('stack_limit'))}",
        ]
    return lines


def _stack_limit_text(limit: Any) -> str:
    if isinstance(limit, dict):
        return f"{limit.get('soft')} (hard {limit.get('hard')})"
    return str(limit)


def convert_trace(
    src: PathLike, dst: PathLike, to: Optional[str] = None, src_format: Optional[str] = None
) -> Summary:
    """Writes ``src`` again as ``dst`` in format ``to`` (default: from ``dst``'s
    extension, else ``vmt``). Returns counts and what the target format lost."""
    src, dst = fspath(src, "convert_trace: src"), fspath(dst, "convert_trace: dst")
    to = to or format_from_extension(dst) or "vmt"
    data, text = _engine.trace_convert(src, dst, to, src_format)
    return Summary(json.loads(data), text)


def format_from_extension(path: PathLike) -> Optional[str]:
    ext = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    return {"vmt": "vmt", "din": "din", "lackey": "lackey", "txt": "lackey"}.get(ext)


def default_capture_name(command: Sequence[str]) -> str:
    """``gcc -c x.c`` -> ``gcc.vmt``."""
    base = os.path.basename(command[0]) if command else "trace"
    base = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in base) or "trace"
    return f"{base}.vmt"


def trace_sha256(path: PathLike) -> str:
    """The trace's content hash: sha256 of the file's bytes, as hex. A
    workload capture records it next to the trace, and stored results name
    their trace by it; two captures are the same trace when it is equal."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def pinned_environment(cwd: PathLike) -> dict[str, str]:
    """The fixed, minimal environment of a pinned capture (``vmlab trace
    --pin-env``, and every workload capture, which adds ``TMPDIR``). The
    environment strings sit at the top of the traced program's stack, so
    their total length moves every stack address (and the alignment, hence
    the iteration counts, of libc's string routines); variables such as
    ``LANG``, ``VALGRIND_OPTS`` or a ``HOME`` with a ``~/.sqliterc`` change
    the run itself. ``PWD`` is set because a shell-script valgrind launcher
    (Debian's) exports it from the working directory anyway."""
    return {
        # The program is started by valgrind, looked up by vmlab beforehand;
        # this PATH is for what the program itself runs.
        "PATH": "/usr/bin:/bin",
        "LC_ALL": "C",
        "HOME": "/nonexistent",
        "PWD": os.fspath(cwd),
        "LD_PRELOAD": "",
    }


def capture_trace(
    command: Sequence[str],
    out: Optional[PathLike] = None,
    progress: Union[bool, Callable[[int], Any]] = False,
    *,
    pin_env: bool = False,
    env: Optional[dict] = None,
    cwd: Optional[PathLike] = None,
    stdin: Optional[PathLike] = None,
    stdout: Optional[PathLike] = None,
    stderr: Optional[PathLike] = None,
    metadata: Optional[dict] = None,
    syscalls: bool = False,
    children: bool = False,
) -> Summary:
    """Runs ``command`` under valgrind and writes its references to ``out`` (``.vmt``).

    ``syscalls`` keeps the program's system calls as markers in the trace
    (valgrind's ``--trace-syscalls=yes``; :func:`trace_syscalls` lists them).
    ``children`` traces every process the command starts, each in its own
    address space, merged into one trace where the processes really block
    (crates/trace/README.md, "Multi-process capture"); it implies
    ``syscalls``, and the summary's ``merge`` says how the processes were
    merged.

    ``progress`` is ``True`` for a counter on stderr (on a terminal), or a
    callable that gets the number of references captured so far. Ctrl-C
    stops the capture with ``KeyboardInterrupt``; what was already captured
    is kept in a valid file. Returns the capture summary as a dict, with the
    file's ``sha256`` (:func:`trace_sha256`).

    What the program starts with besides its arguments changes its trace
    (docs/workloads.md, "Determinism"). By default it inherits this
    process's environment, working directory and standard streams; the
    header's ``launch`` metadata records the working directory, the
    environment's size, what each standard stream is and the stack limit.
    ``pin_env`` replaces the environment with :func:`pinned_environment`
    (``env`` gives a whole environment of your own instead); ``cwd`` is
    where the program runs; ``stdin``/``stdout``/``stderr`` are files for
    its standard streams. ``metadata`` (JSON-able) is stored in the header.
    """
    command = [os.fspath(c) for c in command]
    if not command:
        raise _engine.VmlabError("capture needs a command to run, e.g. vmlab trace -- ls -l")
    if pin_env and env is not None:
        raise _engine.VmlabError("capture: give pin_env or env, not both")
    out = os.fspath(out) if out is not None else default_capture_name(command)
    if pin_env:
        env = pinned_environment(cwd if cwd is not None else os.getcwd())
    callback: Any = None
    counter = None
    if progress is True:
        if sys.stderr.isatty():
            counter = _Counter(os.path.basename(out))
            callback = counter
    elif callable(progress):
        callback = progress
    # valgrind is looked up here, on this process's PATH, not on the
    # program's (which a pinned environment replaces).
    valgrind = shutil.which("valgrind") if env is not None else None
    paths = {k: (os.fspath(v) if v is not None else None)
             for k, v in (("cwd", cwd), ("stdin", stdin), ("stdout", stdout), ("stderr", stderr))}
    try:
        options = dict(valgrind=valgrind, env=env, metadata={} if metadata is None else metadata,
                       syscalls=syscalls, children=children, **paths)
        data, text = _engine.trace_capture(command, out, callback, json.dumps(options))
    finally:
        if counter is not None:
            counter.close()
    summary = Summary(json.loads(data), text)
    summary["sha256"] = trace_sha256(out)
    summary.text = f"{text}\nsha256 {summary['sha256']}"
    return summary


class _Counter:
    """References captured so far, on stderr (only used on a terminal)."""

    def __init__(self, label: str):
        self.label = label
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.references: Optional[int] = None

    def __call__(self, references: int) -> None:
        self.references = references
        now = time.monotonic()
        if now - self.drawn_at >= 0.1:
            self.drawn_at = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = now - self.started
        sys.stderr.write(f"\rcapturing {self.label}: {self.references:,} references, {elapsed:.0f} s\x1b[K")
        sys.stderr.flush()

    def close(self) -> None:
        if self.references is not None:
            self._draw(time.monotonic())
            sys.stderr.write("\n")
            sys.stderr.flush()
