"""Scenario files through the Python binding (must-show 1 and 5)."""

import json
import os

import pytest

from vmlab import _engine

HERE = os.path.join(os.path.dirname(__file__), "..", "scenarios")


def test_r4000_synonym_under_none_reports_stale_reads():
    out = json.loads(_engine.os_scenario(os.path.join(HERE, "good", "r4000_synonym.toml")))
    kinds = [v["kind"] for v in out["violations"]]
    assert kinds == ["stale-read", "stale-read"]
    assert out["violations"][1]["latest_by"] == [1, 0x10000]


@pytest.mark.parametrize("name,line,what", [
    ("unknown_op.toml", 8, "unknown operation"),
    ("unmapped.toml", 15, "unmapped address"),
    ("overlap.toml", 16, "overlapping map"),
    ("bad_prot.toml", 8, "bad protection"),
])
def test_bad_scenario_names_the_line(name, line, what):
    path = os.path.join(HERE, "bad", name)
    with pytest.raises(_engine.VmlabError) as e:
        _engine.os_scenario(path)
    assert f"{name}:{line}:" in str(e.value) and what in str(e.value)
