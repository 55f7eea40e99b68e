"""The run key: everything that made a stored result, and nothing else.

Two runs with equal keys give equal results (the engine is deterministic),
so a resumed sweep may reuse a stored row exactly when its key is equal.
Anything that can change a number is in the key:

| field | what it pins |
|---|---|
| ``kind`` | which computation and row format (e.g. ``s1.vm/1``; a study bumps the number when it stores something new) |
| ``trace_sha256`` | the trace's bytes, not its name (``digest.file_sha256``) |
| ``max_events`` | the prefix simulated (0 = the whole trace) |
| ``config`` | the engine-resolved configuration (preset plus overrides, every default filled in), as canonical JSON |
| ``engine`` | the engine's version and the SHA-256 of its compiled library, so a rebuilt engine is a new engine |

What a point is *called* (its role in a study, its workload's name) is not
in the key: two points that run the same thing share one run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import cached_property, lru_cache
from typing import Union


def canonical_json(value: Union[str, dict, list]) -> str:
    """One spelling of a JSON value: sorted keys, no spaces (a JSON string is parsed first)."""
    if isinstance(value, str):
        value = json.loads(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@lru_cache(maxsize=None)
def engine_identity() -> str:
    """``VERSION+HASH``: the engine's version and the first 16 hex digits of
    the SHA-256 of its compiled library. The version alone does not change
    between development builds; the library's bytes do whenever the code
    does (a rebuild of unchanged code may also differ; that only reruns)."""
    from vmlab import _engine
    from vmlab.runs.digest import file_sha256

    return f"{_engine.__version__}+{file_sha256(_engine.__file__)[:16]}"


@dataclass(frozen=True)
class RunKey:
    """What one engine run depends on. ``digest`` is what the store is keyed by."""

    kind: str
    trace_sha256: str
    max_events: int
    config: str
    engine: str

    @staticmethod
    def make(kind: str, trace_sha256: str, max_events: int, config: Union[str, dict]) -> "RunKey":
        """A key for this engine (``engine_identity``), with ``config`` made canonical."""
        return RunKey(kind, trace_sha256, int(max_events or 0), canonical_json(config), engine_identity())

    @cached_property
    def digest(self) -> str:
        return hashlib.sha256(canonical_json(asdict(self)).encode("utf-8")).hexdigest()

    @property
    def config_sha256(self) -> str:
        return hashlib.sha256(self.config.encode("utf-8")).hexdigest()

    def columns(self) -> dict:
        """The key as table columns: the digest and every part but the
        configuration, which is there as its hash (the rows' own columns say
        what it was)."""
        return {"run_key": self.digest, "run_kind": self.kind, "trace_sha256": self.trace_sha256,
                "max_events": self.max_events, "engine": self.engine, "config_sha256": self.config_sha256}
