"""Machines: a preset (or file) plus overrides, held as the engine's config.

A :class:`Machine` is only its configuration (a dict that the engine checked),
so it pickles, compares and hashes by value and can be shipped to worker
processes. Every run builds a fresh engine machine from that configuration,
so two runs of the same machine on the same trace give identical results.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Optional, Sequence, Union

from vmlab import _engine
from vmlab._files import fspath
from vmlab.result import Result

PathLike = Union[str, "os.PathLike[str]"]

COMPAT_MODES = ("vmlab", "dinero", "cachegrind")
"""Counting rules a run may follow (docs/reference-semantics.md, *Compatibility
modes*): vmlab's own (the default), Dinero IV's (its end-of-run and flush
copy-back) or Cachegrind's (a reference counted once per level; only misses
go below)."""


def _compat(compat: Optional[str]) -> Optional[str]:
    """``compat`` if it is ``None`` or a string (the engine checks the name)."""
    if compat is not None and not isinstance(compat, str):
        raise _engine.VmlabError(f"compat {compat!r} is not a mode name (one of: {', '.join(COMPAT_MODES)})")
    return compat


class Progress(NamedTuple):
    """Handed to a progress callback between blocks of a run."""

    events: int
    """Events simulated so far."""
    bytes_read: int
    """Bytes of the trace file consumed so far."""
    bytes_total: Optional[int]
    """The trace file's size, when known (not for a pipe)."""

    @property
    def fraction(self) -> Optional[float]:
        if not self.bytes_total:
            return None
        return min(1.0, self.bytes_read / self.bytes_total)


def _override_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _override_key(keyword: str) -> str:
    """``l1d_size`` -> ``l1d.size``; ``memory_page_size`` -> ``memory.page_size``.

    The table name never holds an underscore, so the first one separates table
    and key. Top-level keys (``name``, ``description``) have none and pass as they are.
    """
    if "." in keyword or "_" not in keyword:
        return keyword
    table, key = keyword.split("_", 1)
    return f"{table}.{key}"


def override_specs(overrides: Optional[Mapping[str, Any]] = None, **keywords: Any) -> list[str]:
    """Both spellings of overrides as the engine's ``TABLE.KEY=VALUE`` strings."""
    specs = [f"{k}={_override_value(v)}" for k, v in (overrides or {}).items()]
    specs += [f"{_override_key(k)}={_override_value(v)}" for k, v in keywords.items()]
    return specs


class Machine:
    """A simulated machine, as configuration.

    Build one with :meth:`from_preset`, :meth:`from_file` or :meth:`from_dict`;
    run it with :meth:`run` (a trace file) or :meth:`run_events` (a list).
    """

    __slots__ = ("_config_json",)

    def __init__(self, config_json: str):
        # Normalised by the engine: the same machine always has the same text.
        self._config_json = _engine.check_config(config_json)

    # -- construction -----------------------------------------------------
    @classmethod
    def from_preset(
        cls,
        name: str,
        overrides: Optional[Mapping[str, Any]] = None,
        *,
        sets: Sequence[str] = (),
        **keywords: Any,
    ) -> "Machine":
        """A shipped preset (see :func:`presets`) or a ``.toml`` path, with overrides.

        ``Machine.from_preset("jm-base", l1d_size="16K", l1d_assoc=2)`` and
        ``Machine.from_preset("jm-base", overrides={"l1d.size": "16K"})`` are
        the same; ``sets=["l1d.size=16K"]`` takes command-line spellings.
        An unknown key raises :class:`VmlabError` listing the valid ones.
        """
        specs = list(sets) + override_specs(overrides, **keywords)
        return cls(_engine.load_config(os.fspath(name), specs))

    @classmethod
    def from_file(cls, path: PathLike, overrides: Optional[Mapping[str, Any]] = None, **keywords: Any) -> "Machine":
        """A preset TOML file of one's own (the shape of ``presets/*.toml``)."""
        if not os.path.isfile(path):  # never fall back to a shipped preset of that name
            raise _engine.VmlabError(f"{os.fspath(path)}: no such preset file")
        return cls(_engine.load_config(os.fspath(path), override_specs(overrides, **keywords)))

    @classmethod
    def from_dict(cls, config: Mapping[str, Any]) -> "Machine":
        """The inverse of :attr:`config`."""
        return cls(json.dumps(config))

    def with_overrides(self, overrides: Optional[Mapping[str, Any]] = None, **keywords: Any) -> "Machine":
        """A copy with some fields changed, e.g. ``m.with_overrides(l2_size="1M")``."""
        # The engine's override parser gives values exactly the command
        # line's meaning (16K, lru, true, 8).
        return Machine(_engine.apply_overrides(self._config_json, override_specs(overrides, **keywords)))

    # -- inspection -------------------------------------------------------
    @property
    def config(self) -> dict:
        """The whole configuration as a fresh dict (TOML tables become dicts)."""
        return json.loads(self._config_json)

    @property
    def name(self) -> str:
        return self.config["name"]

    @property
    def description(self) -> str:
        return self.config.get("description", "")

    def to_json(self) -> str:
        return self._config_json

    def __repr__(self) -> str:
        caches = [k for k in self.config if k.startswith("l") and k[1:2].isdigit()]
        return f"Machine({self.name!r}, caches={caches})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Machine) and other._config_json == self._config_json

    def __hash__(self) -> int:
        return hash(self._config_json)

    def __getstate__(self) -> str:
        return self._config_json

    def __setstate__(self, state: str) -> None:
        self._config_json = state

    # -- running ----------------------------------------------------------
    def run(
        self,
        trace: PathLike,
        format: Optional[str] = None,
        progress: Union[bool, Callable[[Progress], Any]] = False,
        compat: Optional[str] = None,
    ) -> Result:
        """Simulates a whole trace file (lackey, din or .vmt; detected unless ``format``).

        ``progress=True`` draws a bar on stderr; a callable gets a
        :class:`Progress` between blocks of events (raising from it stops the
        run with that exception). The GIL is released while the engine runs,
        and Ctrl-C stops it with ``KeyboardInterrupt``. ``compat`` (one of
        :data:`COMPAT_MODES`) counts as Dinero IV or Cachegrind would.
        """
        path = fspath(trace, "Machine.run: trace")
        compat = _compat(compat)
        callback = _progress_callback(progress, path)
        try:
            text = _engine.run(self._config_json, path, format, callback, compat)
        finally:
            if hasattr(callback, "close"):
                callback.close()
        return Result.from_json(text)

    def run_events(self, events: Iterable[Sequence[Any]], compat: Optional[str] = None) -> Result:
        """Simulates events given as tuples.

        ``("load"|"store"|"modify"|"ifetch", addr, size[, asid])`` is a
        reference (``"L"``, ``"S"``, ``"M"``, ``"I"`` also work);
        ``("switch", asid)`` is a context switch and ``("flush",)`` writes
        back and invalidates every cache. ``compat`` as for :meth:`run`.
        """
        compat = _compat(compat)
        return Result.from_json(_engine.run_events(self._config_json, list(events), compat))

    def live(self) -> "LiveMachine":
        """A :class:`LiveMachine` of this configuration, every cache empty."""
        return LiveMachine(self)


def _unsigned(what: str, value: Any, bits: int = 64) -> int:
    """``value`` if it is an integer in [0, 2**bits), else a :class:`VmlabError` saying so."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << bits:
        raise _engine.VmlabError(f"{what} {value!r} is not an integer in [0, 2**{bits})")
    return value


class FlushCounts(NamedTuple):
    """The lines a flush or purge found, summed over every cache of the machine.

    Per cache, a range counts each of that cache's lines it touches once
    (``empty`` when no copy is resident, else each copy ``clean`` or
    ``dirty``); a whole-machine flush counts every line frame once. The
    counts of each cache are in the result's ``flushed`` / ``purged`` stats.
    """

    empty: int
    clean: int
    dirty: int


class LiveMachine:
    """A machine with state: feed it events, flush or purge it, read its result.

    ``Machine.run`` and ``run_events`` start from empty caches every time; a
    live machine keeps its caches and page mappings between calls, so
    operations on the caches can come between pieces of a trace::

        live = vmlab.Machine.from_preset("jm-base").live()
        live.feed([("store", 0x1004, 4), ("load", 0x2000, 4)])
        live.flush_virtual(0x1000, 64)      # FlushCounts(empty=..., clean=..., dirty=...)
        live.result().caches["l1d"]["stats"]["flushed"]

    A *flush* writes dirty lines back to the level below (and from the last
    level to memory) and invalidates; a *purge* invalidates and drops dirty
    data. Every level is flushed top level first, so what a level writes
    back is in the level below before that one is flushed. Errors (a range
    past the last address, 2**64 - 1) raise :class:`VmlabError`.
    """

    __slots__ = ("machine", "_live")

    def __init__(self, machine: Machine):
        self.machine = machine
        self._live = _engine.LiveMachine(machine.to_json())

    def feed(self, events: Iterable[Sequence[Any]]) -> None:
        """Simulates events given as tuples, as :meth:`Machine.run_events` takes them."""
        self._live.feed(list(events))

    def flush_virtual(self, addr: int, length: int, asid: int = 0) -> FlushCounts:
        """Flushes the virtual range ``[addr, addr + length)`` of address space ``asid``.

        Each cache looks up each of its own lines in the range once. A cache
        that needs a physical address holds nothing of a page the address
        space never touched (those lines count as empty; no page is mapped).
        Synonyms of the range under other virtual addresses stay; see
        :meth:`flush_physical`.
        """
        return self._virtual(addr, length, asid, False)

    def purge_virtual(self, addr: int, length: int, asid: int = 0) -> FlushCounts:
        """:meth:`flush_virtual` without writing dirty lines back."""
        return self._virtual(addr, length, asid, True)

    def flush_physical(self, addr: int, length: int) -> FlushCounts:
        """Flushes every line whose physical address is in ``[addr, addr + length)``.

        Every copy goes, whatever virtual address or address space it was
        cached under: in a VIVT cache, every synonym of the frames. Per
        cache, a line of the range with no copy counts once as empty and
        each copy as clean or dirty.
        """
        return self._physical(addr, length, False)

    def purge_physical(self, addr: int, length: int) -> FlushCounts:
        """:meth:`flush_physical` without writing dirty lines back."""
        return self._physical(addr, length, True)

    def _virtual(self, addr: int, length: int, asid: int, purge: bool) -> FlushCounts:
        args = (_unsigned("asid", asid, 32), _unsigned("addr", addr), _unsigned("length", length))
        return FlushCounts(*self._live.flush_virtual(*args, purge))

    def _physical(self, addr: int, length: int, purge: bool) -> FlushCounts:
        return FlushCounts(*self._live.flush_physical(_unsigned("addr", addr), _unsigned("length", length), purge))

    def flush_all(self) -> FlushCounts:
        """Flushes every cache whole (each line frame counts once).

        Unlike a ``("flush",)`` event, not counted among the result's events.
        """
        return FlushCounts(*self._live.flush_all(False))

    def purge_all(self) -> FlushCounts:
        """:meth:`flush_all` without writing dirty lines back."""
        return FlushCounts(*self._live.flush_all(True))

    def translate(self, addr: int, asid: int = 0) -> int:
        """The physical address of ``addr``; maps its page on first touch, as a reference would."""
        return self._live.translate(_unsigned("asid", asid, 32), _unsigned("addr", addr))

    def share_page(self, owner: int, alias: int, owner_asid: int = 0, alias_asid: int = 0) -> None:
        """Maps the page of ``alias`` onto the frame of the page of ``owner``: a synonym."""
        self._live.share_page(_unsigned("owner_asid", owner_asid, 32), _unsigned("owner", owner),
                              _unsigned("alias_asid", alias_asid, 32), _unsigned("alias", alias))

    def result(self) -> Result:
        """The counters so far (trace name ``events``)."""
        return Result.from_json(self._live.result())

    def __repr__(self) -> str:
        return f"LiveMachine({self.machine.name!r})"


def presets() -> dict[str, str]:
    """Every preset name the engine knows, with its one-line description."""
    out = {}
    for name in _engine.preset_names():
        try:
            out[name] = json.loads(_engine.load_config(name, [])).get("description", "")
        except _engine.VmlabError as e:  # e.g. x86-64-host without sysfs
            out[name] = f"(unavailable here: {e})"
    return out


def preset_text(name: str) -> str:
    """The TOML text of a preset (or of a preset file)."""
    _origin, text = _engine.preset_text(os.fspath(name))
    return text


class _Bar:
    """A one-line progress display on stderr (only used on a terminal),
    redrawn at most ten times a second."""

    def __init__(self, label: str):
        self.label = label
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.last: Optional[Progress] = None

    def __call__(self, events: int, bytes_read: int, bytes_total: Optional[int]) -> None:
        self.last = Progress(events, bytes_read, bytes_total)
        now = time.monotonic()
        if now - self.drawn_at >= 0.1:
            self.drawn_at = now
            self._draw(self.last, now)

    def _draw(self, p: Progress, now: float, final: bool = False) -> None:
        frac = 1.0 if final and p.bytes_total else p.fraction
        elapsed = max(now - self.started, 1e-9)
        rate = f"{p.events / elapsed / 1e6:.1f} M events/s"
        if frac is None:
            line = f"{self.label}: {p.events:,} events  {rate}"
        else:
            width = 30
            filled = int(frac * width)
            line = f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {frac * 100:5.1f}%  {p.events:,} events  {rate}"
        sys.stderr.write("\r" + line[:160] + "\x1b[K")
        sys.stderr.flush()

    def close(self) -> None:
        if self.last is not None:
            self._draw(self.last, time.monotonic(), final=True)
            sys.stderr.write("\n")
            sys.stderr.flush()


def _progress_callback(progress: Union[bool, Callable[[Progress], Any], None], label: str):
    if progress is True:
        return _Bar(os.path.basename(label)) if sys.stderr.isatty() else None
    if not progress:
        return None
    if callable(progress):
        user = progress

        def call(events: int, bytes_read: int, bytes_total: Optional[int]) -> None:
            user(Progress(events, bytes_read, bytes_total))

        return call
    raise TypeError(f"progress must be a bool or a callable, got {type(progress).__name__}")
