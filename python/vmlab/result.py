"""Results of a run as plain data, and as tables.

A :class:`Result` holds the engine's ``RunResult`` as a dict (the JSON the
engine wrote), so it pickles and compares by value. Tables have one row per
cache and request kind (``ifetch``, ``read``, ``write``); the per-cache
counters (fetches, write-backs, bytes) repeat on each of a cache's rows.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
from typing import Any, Optional, Union

from vmlab import _engine
from vmlab._files import write_text, writing

KINDS = ("ifetch", "read", "write")

#: Columns of :meth:`Result.rows`, in order.
COLUMNS = (
    "machine",
    "trace",
    "cache",
    "level",
    "indexing",
    "size_bytes",
    "line_bytes",
    "assoc",
    "kind",
    "accesses",
    "hits",
    "misses",
    "miss_rate",
    "compulsory",
    "capacity",
    "conflict",
    "fetches",
    "writebacks",
    "write_throughs",
    "bytes_in",
    "bytes_out",
)

_SUFFIX = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def size_bytes(size: Union[int, str]) -> int:
    """``"16K"`` -> 16384 (the engine writes sizes this way)."""
    if isinstance(size, int):
        return size
    text = str(size).strip()
    mult = _SUFFIX.get(text[-1:].upper())
    return int(text[:-1]) * mult if mult else int(text)


class Result:
    """What one run produced. Build with :meth:`Machine.run`."""

    __slots__ = ("_data",)

    def __init__(self, data: dict):
        self._data = data

    @classmethod
    def from_json(cls, text: str) -> "Result":
        return cls(json.loads(text))

    @classmethod
    def from_dict(cls, data: dict) -> "Result":
        return cls(copy.deepcopy(data))

    # -- plain data -------------------------------------------------------
    def to_dict(self) -> dict:
        """The whole result (machine config, event counts, every counter), a fresh copy."""
        return copy.deepcopy(self._data)

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self._data, indent=indent)

    @property
    def machine(self) -> dict:
        return copy.deepcopy(self._data["machine"])

    @property
    def machine_name(self) -> str:
        return self._data["machine"]["name"]

    @property
    def trace(self) -> str:
        return self._data["trace"]

    @property
    def events(self) -> dict:
        """Events read, by kind (ifetch, load, store, modify, context_switches, flush_all)."""
        return dict(self._data["events"])

    @property
    def references(self) -> int:
        e = self._data["events"]
        return e["ifetch"] + e["load"] + e["store"] + e["modify"]

    @property
    def instructions(self) -> int:
        """Instruction fetches: the denominator of per-instruction rates."""
        return self._data["instructions"]

    @property
    def caches(self) -> dict:
        """Cache name -> ``{"indexing", "config", "stats"}``, top level first."""
        return {c["name"]: copy.deepcopy({k: v for k, v in c.items() if k != "name"}) for c in self._data["caches"]}

    @property
    def memory(self) -> dict:
        """What reached memory below the last level: reads, writes, bytes."""
        return dict(self._data["memory"])

    @property
    def pages_mapped(self) -> int:
        return self._data["pages_mapped"]

    @property
    def compat(self) -> str:
        """Whose counting rules made these numbers: ``vmlab``, ``dinero`` or ``cachegrind``."""
        return self._data.get("compat", "vmlab")

    def misses(self, cache: str, kind: Optional[str] = None) -> int:
        """Misses of one cache, for one request kind or all of them."""
        stats = self.caches[cache]["stats"]
        return sum(stats[k]["misses"] for k in ((kind,) if kind else KINDS))

    def accesses(self, cache: str, kind: Optional[str] = None) -> int:
        stats = self.caches[cache]["stats"]
        return sum(stats[k]["accesses"] for k in ((kind,) if kind else KINDS))

    def miss_rate(self, cache: str, kind: Optional[str] = None) -> float:
        n = self.accesses(cache, kind)
        return self.misses(cache, kind) / n if n else float("nan")

    # -- tables -----------------------------------------------------------
    def rows(self, all_kinds: bool = True) -> list[dict]:
        """One dict per cache x request kind (see :data:`COLUMNS`).

        ``miss_rate`` is ``None`` where a cache saw no request of that kind
        (an instruction cache's ``write`` row); ``all_kinds=False`` leaves
        such rows out. ``compulsory``, ``capacity`` and ``conflict`` are
        ``None`` unless the machine classifies misses
        (``stats.classify_misses = true``; off by default, as in Dinero IV).
        """
        out = []
        classified = self._data["machine"].get("stats", {}).get("classify_misses", False)
        for c in self._data["caches"]:
            name, cfg, stats = c["name"], c["config"], c["stats"]
            for kind in KINDS:
                k = stats[kind]
                if not all_kinds and k["accesses"] == 0:
                    continue
                assoc = cfg["assoc"]
                out.append(
                    {
                        "machine": self.machine_name,
                        "trace": self.trace,
                        "cache": name,
                        "level": int(name[1]),
                        "indexing": c["indexing"],
                        "size_bytes": size_bytes(cfg["size"]),
                        "line_bytes": size_bytes(cfg["line"]),
                        "assoc": str(assoc),
                        "kind": kind,
                        "accesses": k["accesses"],
                        "hits": k["accesses"] - k["misses"],
                        "misses": k["misses"],
                        "miss_rate": (k["misses"] / k["accesses"]) if k["accesses"] else None,
                        "compulsory": k["compulsory"] if classified else None,
                        "capacity": k["capacity"] if classified else None,
                        "conflict": k["conflict"] if classified else None,
                        "fetches": stats["fetches"],
                        "writebacks": stats["writebacks"],
                        "write_throughs": stats["write_throughs"],
                        "bytes_in": stats["bytes_in"],
                        "bytes_out": stats["bytes_out"],
                    }
                )
        return out

    def to_pandas(self, all_kinds: bool = True):
        """A pandas DataFrame of :meth:`rows` (needs ``pandas``)."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the install
            raise ImportError("Result.to_pandas needs pandas: pip install 'vmlab[pandas]'") from e
        return _pandas_frame(pd, self.rows(all_kinds))

    def to_polars(self, all_kinds: bool = True):
        """A polars DataFrame of :meth:`rows` (needs ``polars``)."""
        try:
            import polars as pl
        except ImportError as e:  # pragma: no cover
            raise ImportError("Result.to_polars needs polars: pip install 'vmlab[polars]'") from e
        return pl.DataFrame(self.rows(all_kinds), schema=_polars_schema(pl), orient="row")

    def to_arrow(self, all_kinds: bool = True):
        """A pyarrow Table of :meth:`rows` (needs ``pyarrow``)."""
        try:
            import pyarrow as pa
        except ImportError as e:  # pragma: no cover
            raise ImportError("Result.to_arrow needs pyarrow: pip install 'vmlab[parquet]'") from e
        rows = self.rows(all_kinds)
        return pa.table({c: [r[c] for r in rows] for c in COLUMNS}, schema=_arrow_schema(pa))

    def table(self) -> str:
        """The engine's fixed-width text table (what ``vmlab run`` prints)."""
        return _engine.result_table(json.dumps(self._data))

    # -- files ------------------------------------------------------------
    def write_json(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes :meth:`to_json` to ``path``; a file that cannot be written is a ``VmlabError``."""
        write_text(path, self.to_json() + "\n", "the result as JSON")

    def to_csv(self, path: Union[str, "os.PathLike[str]", None] = None) -> Optional[str]:
        """Writes :meth:`rows` as CSV to ``path``; returns the text if no path is
        given. A file that cannot be written is a ``VmlabError`` naming it."""
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\n")
        w.writeheader()
        for r in self.rows():
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})
        if path is None:
            return buf.getvalue()
        write_text(path, buf.getvalue(), "the result as CSV")
        return None

    def to_parquet(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes :meth:`rows` as Parquet (needs ``pyarrow``); a file that cannot
        be written is a ``VmlabError`` naming it."""
        import pyarrow.parquet as pq

        table = self.to_arrow()
        writing(path, "the result as Parquet", lambda p: pq.write_table(table, p))

    # -- value semantics --------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and other._data == self._data

    __hash__ = None  # type: ignore[assignment]  # mutable-looking data: not hashable

    def __getstate__(self) -> dict:
        return self._data

    def __setstate__(self, state: dict) -> None:
        self._data = state

    def __repr__(self) -> str:
        return (
            f"Result(machine={self.machine_name!r}, trace={self.trace!r}, "
            f"references={self.references}, caches={list(self.caches)})"
        )


def results_frame(results, library: str = "pandas"):
    """Many results stacked into one table (``library``: pandas, polars or arrow)."""
    rows = [row for r in results for row in r.rows()]
    if library == "pandas":
        import pandas as pd

        return _pandas_frame(pd, rows)
    if library == "polars":
        import polars as pl

        return pl.DataFrame(rows, schema=_polars_schema(pl), orient="row")
    if library == "arrow":
        import pyarrow as pa

        return pa.table({c: [r[c] for r in rows] for c in COLUMNS}, schema=_arrow_schema(pa))
    raise ValueError(f"unknown library {library!r}: expected pandas, polars or arrow")


_STRINGS = {"machine", "trace", "cache", "indexing", "assoc", "kind"}
_NULLABLE = ("compulsory", "capacity", "conflict")


def _pandas_frame(pd, rows: list):
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df["miss_rate"] = df["miss_rate"].astype("float64")
    for c in _NULLABLE:  # None when misses are not classified: pandas' nullable integers
        df[c] = df[c].astype("Int64")
    return df


def _polars_schema(pl) -> dict:
    return {c: (pl.Utf8 if c in _STRINGS else pl.Float64 if c == "miss_rate" else pl.Int64) for c in COLUMNS}


def _arrow_schema(pa):
    return pa.schema(
        [(c, pa.string() if c in _STRINGS else pa.float64() if c == "miss_rate" else pa.int64()) for c in COLUMNS]
    )
