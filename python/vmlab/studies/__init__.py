"""The studies of ``../shared/design/experiments.md``, one module each.

Each module ``sN`` (``sN.py``, or a package ``sN/`` with one module per
concern for a large study) defines a click command named ``command``;
``vmlab reproduce sN`` runs it. A study prints the paper's figures beside vmlab's and
the distance between them, writes its tables under ``results/sN/`` and its
page and ``verdicts.json`` under ``report/sN/`` (``vmlab.report.write_study``).
A study that is not built yet has no module here.
"""

from __future__ import annotations

import importlib
from typing import Dict

import click

STUDY_IDS = ("s1", "s2", "s3", "s4", "s5")


def available() -> Dict[str, click.Command]:
    """The study commands that exist, by id."""
    found: Dict[str, click.Command] = {}
    for sid in STUDY_IDS:
        try:
            module = importlib.import_module(f"vmlab.studies.{sid}")
        except ModuleNotFoundError as e:
            if e.name != f"vmlab.studies.{sid}":
                raise
            continue
        found[sid] = module.command
    return found
