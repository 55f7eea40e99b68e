"""Selecting rows and matching twins: sweep points equal in everything but
one field."""

from __future__ import annotations

import math
from typing import Any, Iterable, Optional, Sequence, TypedDict


class Labels(TypedDict):
    """The columns of an S1 row that say which point it is (``run._labels``);
    the rest of the row is what the engine measured (``run._measured``) and
    the run's key (``vmlab.runs.RunKey.columns``)."""

    trace: str
    scheme: str
    l1_kb: int
    l2_kb: int
    l1_line: int
    l2_line: int
    tlb_entries: int
    retranslate_writebacks: bool
    role: str
    protect_per_million: float


#: What places a sweep row in the grid: rows equal in these (and in scheme
#: and role) are the same point.
POINT_FIELDS = ("trace", "l1_kb", "l2_kb", "l1_line", "l2_line")


def _sel(rows: Iterable[dict], **kw) -> list[dict]:
    return [r for r in rows if all(r.get(k) == v for k, v in kw.items())]


def _gmean(xs: Sequence[float]) -> float:
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def _twin(candidates: Iterable[dict], r: dict) -> Optional[dict]:
    """The first of ``candidates`` at ``r``'s point (``POINT_FIELDS``), or None."""
    return next((x for x in candidates if all(x[f] == r[f] for f in POINT_FIELDS)), None)


def _by_point(rows: Iterable[dict], vary: str) -> dict[tuple, dict]:
    """Rows keyed by their point without ``vary``, then by their value of ``vary``."""
    by: dict[tuple, dict] = {}
    for r in rows:
        by.setdefault(tuple(r[f] for f in POINT_FIELDS if f != vary), {})[r[vary]] = r
    return by


def _line_extremes(rows: Iterable[dict], vary: str) -> list[tuple[dict, dict]]:
    """(row at the least, row at the greatest ``vary``) of each point that has
    more than one value of ``vary`` (everything else held)."""
    return [(d[min(d)], d[max(d)]) for d in _by_point(rows, vary).values() if len(d) > 1]


def _ratios(rows: list[dict], scheme: str, vary: str, a: Any, b: Any, trace: Optional[str] = None) -> list[float]:
    """vmcpi(vary=a) / vmcpi(vary=b) over sweep points equal in everything else."""
    by = _by_point((r for r in _sel(rows, scheme=scheme, role="sweep") if not trace or r["trace"] == trace), vary)
    return [d[a]["vmcpi"] / d[b]["vmcpi"] for d in by.values()
            if a in d and b in d and d[b]["vmcpi"] > 0 and d[a]["vmcpi"] > 0]


def _twins(rows: list[dict], scheme: str, vary: str, a: Any, b: Any, trace: str) -> list[tuple[dict, dict]]:
    """(row at vary=a, row at vary=b) pairs of sweep points equal in everything else."""
    by = _by_point(_sel(rows, scheme=scheme, role="sweep", trace=trace), vary)
    return [(d[a], d[b]) for _, d in sorted(by.items()) if a in d and b in d]
