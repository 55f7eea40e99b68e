"""Trace files: what is in one, converting between formats, capturing one."""

from __future__ import annotations

import json
import os
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


def capture_trace(
    command: Sequence[str],
    out: Optional[PathLike] = None,
    progress: Union[bool, Callable[[int], Any]] = False,
) -> Summary:
    """Runs ``command`` under valgrind and writes its references to ``out`` (``.vmt``).

    ``progress`` is ``True`` for a counter on stderr (on a terminal), or a
    callable that gets the number of references captured so far. Ctrl-C
    stops the capture with ``KeyboardInterrupt``; what was already captured
    is kept in a valid file. Returns the capture summary as a dict.
    """
    command = [os.fspath(c) for c in command]
    if not command:
        raise _engine.VmlabError("capture needs a command to run, e.g. vmlab trace -- ls -l")
    out = os.fspath(out) if out is not None else default_capture_name(command)
    callback: Any = None
    counter = None
    if progress is True:
        if sys.stderr.isatty():
            counter = _Counter(os.path.basename(out))
            callback = counter
    elif callable(progress):
        callback = progress
    try:
        data, text = _engine.trace_capture(command, out, callback)
    finally:
        if counter is not None:
            counter.close()
    return Summary(json.loads(data), text)


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
