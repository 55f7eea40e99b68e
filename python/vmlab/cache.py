"""The one folder where vmlab keeps what it can make again: captured traces,
native builds of the workloads, the trace-digest cache. ``$VMLAB_CACHE_DIR``
moves it; otherwise it is the user's cache folder for vmlab (platformdirs:
``~/.cache/vmlab`` on Linux, honouring ``XDG_CACHE_HOME``). Nothing is ever
written next to the installed package."""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable that moves the cache folder.
CACHE_ENV = "VMLAB_CACHE_DIR"


def cache_dir() -> Path:
    """The cache folder; read at each call, so setting the variable takes effect at once."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given).expanduser()
    import platformdirs

    return platformdirs.user_cache_path("vmlab")
