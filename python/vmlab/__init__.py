"""vmlab: a cache, TLB and virtual-memory simulator.

The engine is Rust (``vmlab._engine``); this package is its Python front:
machines and results as plain, picklable Python objects, tables for pandas and
polars, the ``vmlab`` command line, and HTML reports.

>>> import vmlab
>>> m = vmlab.Machine.from_preset("jm-base", l1d_size="16K")
>>> r = m.run("traces/gcc.vmt")            # doctest: +SKIP
>>> r.to_pandas()                          # doctest: +SKIP
"""

from vmlab._engine import VmlabError, __version__
from vmlab.machine import FlushCounts, LiveMachine, Machine, Progress, presets, preset_text
from vmlab.result import Result, results_frame
from vmlab.grid import Grid
# The grid sweep: ``vmlab.sweep(grid, traces)`` -> DataFrame. (The stored-run
# machinery it shares with the studies is ``vmlab.runs``.)
from vmlab.sweeps import sweep
from vmlab.traces import capture_trace, convert_trace, trace_formats, trace_info, trace_syscalls

__all__ = [
    "FlushCounts",
    "Grid",
    "LiveMachine",
    "Machine",
    "Progress",
    "Result",
    "VmlabError",
    "__version__",
    "capture_trace",
    "convert_trace",
    "preset_text",
    "presets",
    "results_frame",
    "sweep",
    "trace_formats",
    "trace_info",
    "trace_syscalls",
]
