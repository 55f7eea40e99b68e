"""What a local sweep worker does before its first batch: leave Ctrl-C to
its parent, and die with it.

A terminal's Ctrl-C reaches every process of the foreground group. If the
workers took it too, each would abandon its batch with a traceback while
the parent decides what to keep; so they ignore SIGINT, and the parent,
which alone writes the store, stops them (``execute``).

A parent killed outright (``kill -9``, the OOM killer) runs no clean-up.
Its workers would go on simulating with nobody to read their results, for
as long as a batch takes. On Linux the kernel kills them instead:
``prctl(PR_SET_PDEATHSIG, SIGKILL)``. Elsewhere, a daemon thread polls
``os.getppid()`` twice a second; the engine releases the GIL while it runs,
so the thread gets to look even in the middle of a batch.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
POLL_SECONDS = 0.5


def start(parent_pid: int) -> None:
    """The pool's initializer. ``parent_pid`` is the sweep's process: the
    worker's parent when workers are spawned or forked by it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        # Blocked by the parent while it started us, so that a Ctrl-C before
        # this point waited; ignored now, it can be let through.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if not _kernel_kills_orphan():
        threading.Thread(target=_watch, args=(parent_pid,), name="vmlab-parent-watch", daemon=True).start()
    # The parent may have died before the kernel was told: then nobody
    # would ever send the signal.
    if os.getppid() != parent_pid:
        os._exit(1)


def _kernel_kills_orphan() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(POLL_SECONDS)
    os._exit(1)  # from any thread, mid-batch included
