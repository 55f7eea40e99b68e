"""The content hash of a file (a trace, the engine), remembered between runs.

A stored result is only as trustworthy as the name of the trace that made
it: ``database-small.vmt`` captured again, or ``--trace database=OTHER.vmt``,
is another trace under the same name. So a run is keyed by the SHA-256 of
the trace's bytes (the digest ``sha256sum`` prints, so a user can check it
by hand). Hashing a 100 MB trace takes a fraction of a second, but a sweep
resumed many times would pay it every time: the digest is kept in a small
JSON file, keyed by what changes whenever the bytes can have changed
(the resolved path, size, modification time in ns and inode), and hashed
again when any of them differs.

The file lives in vmlab's cache folder (``vmlab.cache``). It is an
optimisation only: a cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from typing import Union

from vmlab.cache import cache_dir

CACHE_FILE = "file-digests.json"
_CHUNK = 1 << 20
_memo: dict[tuple, str] = {}


def file_sha256(path: Union[str, "os.PathLike[str]"]) -> str:
    """The SHA-256 (hex) of a file's bytes; from the cache when the file's
    path, size, mtime and inode are those it was hashed with."""
    resolved = os.path.realpath(path)
    st = os.stat(resolved)
    stamp = (resolved, st.st_size, st.st_mtime_ns, st.st_ino)
    if stamp in _memo:
        return _memo[stamp]
    cache = _read_cache()
    entry = cache.get(resolved)
    if entry and (entry.get("size"), entry.get("mtime_ns"), entry.get("inode")) == stamp[1:]:
        digest = entry["sha256"]
    else:
        h = hashlib.sha256()
        with open(resolved, "rb") as f:
            for chunk in iter(lambda: f.read(_CHUNK), b""):
                h.update(chunk)
        digest = h.hexdigest()
        cache[resolved] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "inode": st.st_ino, "sha256": digest}
        _write_cache(cache)
    _memo[stamp] = digest
    return digest


def _read_cache() -> dict:
    try:
        data = json.loads((cache_dir() / CACHE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(cache: dict) -> None:
    # Entries of files that are gone are dropped; a concurrent writer may
    # lose an entry (it is hashed again next time), never corrupt the file.
    cache = {p: e for p, e in cache.items() if os.path.exists(p)}
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".digests-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(cache, f, indent=0, sort_keys=True)
        os.replace(tmp, folder / CACHE_FILE)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
