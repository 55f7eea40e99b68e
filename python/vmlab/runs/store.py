"""The append-only store of a sweep's finished runs: one JSON record a line.

A record is ``{"key": RunKey.digest, ...the key's columns..., "result": {...}}``.
Records are appended a batch at a time, each batch flushed and fsync'ed,
so a crash or a power cut loses at most the batch being written. Such a
batch leaves its last line cut short: that one line is dropped on load (and
cut off before the next append, so it never glues itself to a new record);
a bad line anywhere else is damage, reported with its line number.
Nothing is rewritten or deleted: a record whose key no run asks for any
more (another trace, limit, configuration or engine) stays, unused.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional, Sequence, Union

from vmlab._engine import VmlabError


class Store:
    """``runs.jsonl`` of one sweep. ``load`` reads it; ``append`` adds records."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]):
        self.path = Path(path)
        self._file: Optional[object] = None

    def load(self) -> dict[str, dict]:
        """Every complete record, by key (a later record of a key wins)."""
        records: dict[str, dict] = {}
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return records
        lines = data.split(b"\n")
        torn = lines.pop()  # b"" when the file ends with a newline
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                key = rec["key"]
            except (ValueError, KeyError, TypeError):
                raise VmlabError(f"{self.path}:{n}: not a run record (a JSON object with a \"key\"); the store is "
                                 "damaged: move it away or rerun with --fresh") from None
            records[key] = rec
        del torn  # a record cut short by a crash: its batch runs again
        return records

    def append(self, records: Sequence[dict]) -> None:
        """Writes the records, then flushes and fsyncs them before returning."""
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._cut_torn_tail()
            self._file = open(self.path, "a", encoding="utf-8")
        f = self._file
        f.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
        f.flush()
        os.fsync(f.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _cut_torn_tail(self) -> None:
        """Drops a last line without its newline (left by a crash mid-write)."""
        try:
            with open(self.path, "rb+") as f:
                size = f.seek(0, os.SEEK_END)
                if size == 0:
                    return
                f.seek(size - 1)
                if f.read(1) == b"\n":
                    return
                # Find the last newline, reading backwards a block at a time.
                pos = size
                while pos > 0:
                    step = min(pos, 1 << 16)
                    pos -= step
                    f.seek(pos)
                    i = f.read(step).rfind(b"\n")
                    if i >= 0:
                        f.truncate(pos + i + 1)
                        return
                f.truncate(0)
        except FileNotFoundError:
            pass
