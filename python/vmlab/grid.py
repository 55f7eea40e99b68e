"""Grid files: a machine and the preset keys to sweep, as TOML.

    # bench/grids/l1d-curve.toml
    machine = "jm-base"             # a preset name, or a .toml path relative to this file
    [set]                           # overrides for every point (optional)
    l1d.write = "write-back"
    [vary]                          # one list or range per key; the points are their product
    l1d.size = ["1K", "2K", "4K", "8K"]
    l1d.assoc = { from = 1, to = 8, factor = 2 }     # 1, 2, 4, 8
    l2.size = { from = "64K", to = "256K", step = "64K" }   # 64K, 128K, 192K, 256K

A key is a preset key as ``vmlab run --set`` takes it (``TABLE.KEY``); its
values are what ``--set`` accepts (``"16K"``, ``4``, ``"full"``, ``"lru"``,
``true``). A range is ``{from, to}`` with ``factor`` (geometric, > 1) or
``step`` (arithmetic, > 0), both ends included; sizes may carry K, M or G.
``skip_invalid = true`` at the top drops points whose machine is not valid
(a size that the way count does not divide, say) instead of failing.

Every error names the file, the line and the key: an unknown key, a value
the key does not take, an empty list, a malformed range.

A TLB grid has ``kind = "tlb"`` and no machine; its keys are ``tlb.KEY``
(``entries``, ``assoc``, ``replacement``, ``asid_tags``, ``page_size``,
``serves``, ``seed``) over a default TLB of 64 fully associative LRU
entries of 4 KB pages, ASID-tagged, serving every reference.
``sample = RATE`` (a cache grid) sweeps the one-pass caches sampled
(SHARDS; docs/python.md).
"""

from __future__ import annotations

import itertools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from vmlab import _engine
from vmlab._engine import VmlabError
from vmlab.result import size_bytes

#: Points a grid may have: a typo in a range must not ask for billions.
MAX_POINTS = 100_000
_TOP = {"machine", "set", "vary", "skip_invalid", "kind", "sample"}
_KINDS = ("cache", "tlb")
_RANGE = {"from", "to", "factor", "step"}


@dataclass(frozen=True)
class Grid:
    """A machine (preset name or path), fixed overrides, and the values of
    each varied key, in the file's order. ``points()`` is their product."""

    machine: str
    fixed: dict[str, Any] = field(default_factory=dict)
    vary: dict[str, list] = field(default_factory=dict)
    skip_invalid: bool = False
    origin: str = "grid"
    #: "cache" (machines, `vmlab run --set` keys) or "tlb" (`tlb.KEY`).
    kind: str = "cache"
    #: A sampling rate for the one-pass caches (None: exact).
    sample: Optional[float] = None

    @staticmethod
    def load(path: Union[str, "os.PathLike[str]"]) -> "Grid":
        """Reads a grid file; a bad one raises ``VmlabError`` naming it."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise VmlabError(f"{path}: no such grid file") from None
        except (OSError, UnicodeDecodeError) as e:
            raise VmlabError(f"{path}: cannot read: {e}") from None
        try:
            import tomllib  # Python >= 3.11
        except ImportError:  # pragma: no cover - older Pythons
            import tomli as tomllib
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise VmlabError(f"{path}: not a TOML grid file: {e}") from None
        return Grid.from_dict(data, origin=str(path), text=text, base=path.parent)

    @staticmethod
    def from_dict(data: Mapping[str, Any], origin: str = "grid", text: str = "",
                  base: Optional[Path] = None) -> "Grid":
        """A grid from the file's content as a dict (``{"machine": ..., "vary": {...}}``);
        ``vary`` and ``set`` may nest tables (``{"l1d": {"size": [...]}}``) or use dotted keys."""
        where = _Locator(origin, text)
        unknown = sorted(set(data) - _TOP)
        if unknown:
            raise where.error(unknown[0], f"unknown top-level key {unknown[0]!r} (a grid has {', '.join(sorted(_TOP))})")
        kind = data.get("kind", "cache")
        if kind not in _KINDS:
            raise where.error("kind", f"kind must be one of {', '.join(_KINDS)}, got {kind!r}")
        sample = data.get("sample")
        if sample is not None:
            check_sample(sample, lambda m: where.error("sample", m))
            if kind == "tlb":
                raise where.error("sample", "sample is for cache grids (a TLB sweep is exact and cheap)")
        machine = data.get("machine", "" if kind == "tlb" else None)
        if kind == "tlb" and machine:
            raise where.error("machine", "a TLB grid (kind = \"tlb\") has no machine")
        if kind == "cache" and (not isinstance(machine, str) or not machine):
            raise where.error("machine", "needs machine = \"PRESET\" (a preset name or a .toml file)")
        if base is not None and machine.endswith(".toml") and not os.path.isabs(machine):
            machine = str(base / machine)
        skip = data.get("skip_invalid", False)
        if not isinstance(skip, bool):
            raise where.error("skip_invalid", f"skip_invalid must be true or false, got {skip!r}")
        fixed = _flatten(data.get("set", {}), "set", where)
        vary_raw = _flatten(data.get("vary", {}), "vary", where)
        if not vary_raw:
            raise where.error("vary", "needs a [vary] table with at least one key to sweep")
        vary = {k: _values(k, v, where) for k, v in vary_raw.items()}
        both = sorted(set(fixed) & set(vary))
        if both:
            raise where.error(both[0], f"{both[0]} is both in [set] and in [vary]")
        n = 1
        for k, vs in vary.items():
            n *= len(vs)
        if n > MAX_POINTS:
            raise where.error(next(iter(vary)), f"the grid has {n:,} points, more than {MAX_POINTS:,}")
        grid = Grid(machine, fixed, vary, skip, origin, kind, None if sample is None else float(sample))
        grid._check_keys(where)
        return grid

    def points(self) -> list[dict[str, Any]]:
        """Every point: the varied keys' values, in the file's order."""
        keys = list(self.vary)
        return [dict(zip(keys, combo)) for combo in itertools.product(*(self.vary[k] for k in keys))]

    def specs(self, point: Mapping[str, Any]) -> list[str]:
        """The ``TABLE.KEY=VALUE`` overrides of a point (fixed ones first)."""
        return [f"{k}={_spelling(v)}" for k, v in {**self.fixed, **point}.items()]

    def configs(self, log=print) -> list[tuple[dict, str]]:
        """``(point, configuration JSON)`` of every valid point (the engine
        checks each machine); an invalid point fails, naming it, unless
        ``skip_invalid``."""
        out = []
        skipped = []
        for p in self.points():
            try:
                out.append((p, self._load(self.specs(p))))
            except VmlabError as e:
                if not self.skip_invalid:
                    shown = ", ".join(f"{k}={_spelling(v)}" for k, v in p.items())
                    raise VmlabError(f"{self.origin}: the point {shown}: {e} (skip_invalid = true drops such points)") \
                        from None
                skipped.append(p)
        if skipped:
            log(f"{self.origin}: {len(skipped)} of {len(skipped) + len(out)} points skipped (not a valid machine)")
        if not out:
            raise VmlabError(f"{self.origin}: no point of the grid is a valid machine")
        return out

    def _check_keys(self, where: "_Locator") -> None:
        """Each key with its own values alone on the machine: an unknown key
        or a value the key does not take is named with its line."""
        try:
            self._load([])
        except VmlabError as e:
            raise where.error("machine", str(e)) from None
        for k, v in self.fixed.items():
            self._try(where, k, [f"{k}={_spelling(v)}"])
        for k, vs in self.vary.items():
            for v in vs:
                self._try(where, k, [f"{k}={_spelling(v)}"])

    def _load(self, specs: list[str]) -> str:
        """The configuration (JSON) of a machine or TLB point with ``specs``."""
        if self.kind == "tlb":
            return _engine.tlb_load_config(specs)
        return _engine.load_config(self.machine, specs)

    def _try(self, where: "_Locator", key: str, specs: list[str]) -> None:
        try:
            self._load(specs)
        except VmlabError as e:
            msg = str(e)
            # A value that is fine alone on this machine but not with the
            # others (a size the preset's ways do not divide) is the points'
            # business (`configs`), not the key's.
            if _is_key_error(msg):
                raise where.error(key, f"{key}: {msg}") from None


#: Engine messages about a machine that a value makes only together with
#: the others (a size the preset's ways do not divide): the points' business.
_MACHINE_ERRORS = ("do not divide", "not a whole number", "larger than the", "needs a power-of-two",
                   "is configured but level", "needs a matching", "choose one", "beyond the limit",
                   "too many for a fully", "needs virtual tags", "cannot be split into", "must be fewer than")


def check_sample(rate: Any, error=VmlabError) -> float:
    """A sampling rate in (0, 1], or ``error(message)`` raised."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= 1:
        raise error(f"sample is a sampling rate in (0, 1] such as 0.01, got {rate!r}")
    return float(rate)


def _is_key_error(message: str) -> bool:
    """Whether the engine refused the override itself (an unknown table or
    field, a value of the wrong kind), not the machine it makes."""
    return not any(m in message for m in _MACHINE_ERRORS)


def _spelling(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _flatten(table: Any, name: str, where: "_Locator", prefix: str = "") -> dict[str, Any]:
    if not isinstance(table, Mapping):
        raise where.error(name, f"[{name}] must be a table of preset keys")
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping) and not (name == "vary" and set(v) and set(v) <= _RANGE):
            out.update(_flatten(v, name, where, key + "."))
        else:
            if "." not in key:
                raise where.error(key, f"[{name}] {key}: a preset key is TABLE.KEY (l1d.size, memory.page_size)")
            out[key] = v
    return out


def _values(key: str, v: Any, where: "_Locator") -> list:
    if isinstance(v, list):
        if not v:
            raise where.error(key, f"{key}: an empty list (give at least one value)")
        for x in v:
            if not isinstance(x, (str, int, float, bool)):
                raise where.error(key, f"{key}: {json.dumps(x)} is not a value (a string, number or boolean)")
        return list(v)
    if isinstance(v, Mapping):
        return _range(key, v, where)
    return [v]


def _range(key: str, r: Mapping[str, Any], where: "_Locator") -> list:
    missing = [k for k in ("from", "to") if k not in r]
    if missing or ("factor" in r) == ("step" in r):
        raise where.error(key, f"{key}: a range is {{from, to}} with one of factor or step, got {dict(r)}")
    try:
        lo, hi = size_bytes(r["from"]), size_bytes(r["to"])
        by = r.get("factor", r.get("step"))
        by_n = size_bytes(by) if "step" in r else by
    except (TypeError, ValueError):
        raise where.error(key, f"{key}: range bounds must be numbers or sizes such as \"16K\", got {dict(r)}") from None
    if not isinstance(by_n, (int, float)) or isinstance(by_n, bool):
        raise where.error(key, f"{key}: factor must be a number, got {by!r}")
    if lo > hi:
        raise where.error(key, f"{key}: the range goes from {r['from']} down to {r['to']}")
    out: list = []
    x = lo
    if "factor" in r:
        if by_n <= 1:
            raise where.error(key, f"{key}: factor must be > 1, got {by!r}")
        while x <= hi and len(out) <= MAX_POINTS:
            out.append(int(x) if float(x).is_integer() else x)
            x *= by_n
    else:
        if by_n <= 0:
            raise where.error(key, f"{key}: step must be > 0, got {by!r}")
        while x <= hi and len(out) <= MAX_POINTS:
            out.append(x)
            x += by_n
    if len(out) > MAX_POINTS:
        raise where.error(key, f"{key}: the range has more than {MAX_POINTS:,} values")
    # Sizes stay sizes: a range given in K is written back in bytes,
    # which every size key takes.
    return out


class _Locator:
    """The line of a key in the grid file's text, for error messages."""

    def __init__(self, origin: str, text: str):
        self.origin = origin
        self.lines = text.splitlines()

    def line_of(self, key: str) -> Optional[int]:
        last = key.rsplit(".", 1)[-1]
        for pattern in (re.escape(key), rf"(^|[\s.\"]){re.escape(last)}\"?\s*="):
            for n, line in enumerate(self.lines, 1):
                code = line.split("#", 1)[0]
                if re.search(pattern, code):
                    return n
        return None

    def error(self, key: str, message: str) -> VmlabError:
        n = self.line_of(key)
        return VmlabError(f"{self.origin}:{n}: {message}" if n else f"{self.origin}: {message}")
