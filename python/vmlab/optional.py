"""The optional packages, imported where they are used.

``pip install vmlab`` brings only what every command needs (docs/dependencies.md);
tables in pandas/polars/Arrow, figures and Dask clusters are extras. A
command that cannot do its job without one stops with a :class:`VmlabError`
that names the extra to install; one that only loses a side product (the
figures of a study whose tables are the result) says so in one line on
stderr and goes on.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Optional

from vmlab._engine import VmlabError

#: The extra (``pip install 'vmlab[EXTRA]'``) that brings each optional package.
EXTRAS = {"pandas": "pandas", "polars": "polars", "pyarrow": "parquet", "matplotlib": "report", "dask": "cluster"}


def need(module: str, purpose: str) -> ModuleType:
    """Imports ``module`` (e.g. ``pyarrow.parquet``), or raises :class:`VmlabError`
    saying that ``purpose`` needs it and which extra brings it."""
    package = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if e.name is not None and e.name.split(".")[0] != package:
            raise  # the package is there but broken: not a missing extra
        raise VmlabError(f"{purpose} needs {package}, which is not installed: "
                         f"pip install 'vmlab[{EXTRAS[package]}]'") from None


def figure_class(figures: str) -> Optional[type]:
    """matplotlib's ``Figure`` (the object API: no pyplot state, no display),
    or ``None`` after one line on stderr saying that ``figures`` are skipped
    and how to get them."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        if e.name is not None and e.name.split(".")[0] != "matplotlib":
            raise  # matplotlib is there but broken: not a missing extra
        print(f"vmlab: note: {figures} skipped: matplotlib is not installed "
              f"(pip install 'vmlab[{EXTRAS['matplotlib']}]')", file=sys.stderr)
        return None
    return Figure
