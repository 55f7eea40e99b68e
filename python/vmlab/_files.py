"""Paths given to the API, and files it writes: a wrong argument or a file
that cannot be written is a :class:`VmlabError` naming it, never a bare
``TypeError`` or ``OSError`` from deep inside."""

from __future__ import annotations

import os
from typing import Any, Callable

from vmlab._engine import VmlabError


def fspath(value: Any, what: str) -> str:
    """``value`` as a path string, or a :class:`VmlabError` saying that
    argument ``what`` must be a path and what it was."""
    try:
        return os.fspath(value)
    except TypeError:
        raise VmlabError(f"{what} must be a path (str or os.PathLike), got {value!r}") from None


def writing(path: Any, what: str, write: Callable[[str], None]) -> None:
    """Runs ``write(path)``; an ``OSError`` (a read-only or missing folder, a
    full disk) becomes a :class:`VmlabError` naming the path and what was
    being written."""
    path = fspath(path, "path")
    try:
        write(path)
    except OSError as e:
        raise VmlabError(f"{path}: cannot write {what}: {e.strerror or e}") from None


def write_text(path: Any, text: str, what: str) -> None:
    """Writes ``text`` (UTF-8, newlines as given) to ``path`` through :func:`writing`."""

    def write(p: str) -> None:
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    writing(path, what, write)
