"""Study S1: VM overhead without TLBs (Jacob & Mudge 2001, seed 002).

Sweeps cache sizes and line sizes for every translation scheme on real
traces (``vmlab.workloads``), then prints Table 1, Table 4 and Table 5 style
tables beside the paper's, draws Figures 13-15 style panels, and computes a
HOLDS / FAILS verdict for each "must hold" finding of experiments.md S1.

One module per concern: ``grid`` (what a sweep covers), ``paper`` (the
paper's numbers), ``run`` (batches, the engine call, rows), ``rows``
(selecting rows and matching twins), ``findings``, ``diagnose`` (why a
finding fails, footprints), ``render`` (tables, figures, files) and
``command`` (``vmlab reproduce s1``).

Runs are grouped in batches; each batch decodes its trace once and feeds
every configuration in it (``_engine.vm_sweep``). A batch keeps together the
points that differ only in their L2 (size, line), which the engine runs as
one pass over the L1s and TLBs feeding every L2 (``VmSim::fanout``; not for
SOFTVM, SPUR or protection changes, whose L1 traffic depends on the L2);
for the TLB schemes and NOTLB it also keeps together the L1 sizes, which
share one pass over the TLBs, tables and handlers (``OnePass``: each L1
size replays what reached the smallest's caches).
The sweep itself (run keys, the ``runs.jsonl`` store, resume, workers,
Ctrl-C) is ``vmlab.runs``'s: a stored run is reused only when its trace's
bytes, event limit, resolved configuration and engine are the same.
"""

from __future__ import annotations

# What ``from vmlab.studies import s1`` gave before the split (tests, bench/golden.py, ``vmlab reproduce``).
from .command import command
from .diagnose import COMPONENTS, FOOTPRINT_LINES, FOOTPRINT_VERSION, CostModel, diagnose, footprint, footprints
from .diagnose import user_l2_misses
from .findings import PAPER_BOUND, PAPER_SAYS, SPARSE_TRACES, TraceFinding, findings, per_trace, verdicts
from .grid import ALL_SCHEMES, GRIDS, K, PRESET, PROTECTION_RATES, SWEPT_SCHEMES, TABLE4_LINES, TLB_SCHEMES, Grid, Point
from .grid import points
from .paper import FINDING1_MIN_L2_KB, PAPER_PROTECTION_CPI, PAPER_TABLE1, PAPER_TABLE4, PAPER_TABLE4_TOTAL
from .paper import PAPER_TABLE5
from .render import TITLE, PaperTable, figures, paper_tables, render, write_outputs
from .rows import Labels
from .run import RUN_KIND, SIDE_FIELDS, _above_l2, _batches, _one_pass, sweep

__all__ = [
    "command", "COMPONENTS", "FOOTPRINT_LINES", "FOOTPRINT_VERSION", "CostModel", "diagnose", "footprint",
    "footprints", "user_l2_misses", "PAPER_SAYS", "PAPER_BOUND", "SPARSE_TRACES", "TraceFinding", "findings",
    "per_trace", "verdicts", "ALL_SCHEMES", "GRIDS", "K", "PRESET",
    "PROTECTION_RATES", "SWEPT_SCHEMES", "TABLE4_LINES", "TLB_SCHEMES", "Grid", "Point", "points", "FINDING1_MIN_L2_KB",
    "PAPER_PROTECTION_CPI", "PAPER_TABLE1", "PAPER_TABLE4", "PAPER_TABLE4_TOTAL", "PAPER_TABLE5", "TITLE",
    "PaperTable", "Labels", "figures", "paper_tables", "render", "write_outputs", "RUN_KIND", "SIDE_FIELDS", "_above_l2",
    "_batches", "_one_pass", "sweep",
]
