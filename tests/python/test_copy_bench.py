"""The native S4 copy benchmark (bench/copy_temps.c) compiles and runs: not
a timed test (one run a cell, a 1 MB filler), only that every routine gives
a positive tick count at each of the nine temperature pairs, and that the
host model runs beside it."""

from __future__ import annotations

import importlib.util
import platform
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("copy_temps", ROOT / "bench" / "copy_temps.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


needs_host = pytest.mark.skipif(
    platform.machine() != "x86_64" or shutil.which("cc") is None or not Path("/sys/devices/system/cpu").exists(),
    reason="the benchmark is x86-64 C (clflush, rdtsc, AVX2) and reads Linux sysfs",
)


@needs_host
def test_benchmark_measures_every_routine_at_every_pair(tmp_path):
    bench = _script()
    exe = bench.build(tmp_path)
    cells = bench.measure(exe, 1, 1 << 20)
    routines = ["byte-loop", "memcpy", "8Wld-8Wst", "simd64", "libc-memcpy"]
    assert sorted(cells) == sorted((r, p) for r in routines for p in bench.PAIRS)
    assert all(t > 0 for t in cells.values())


@needs_host
def test_host_model_fits_the_two_memcpy_cells_and_predicts_the_rest():
    bench = _script()
    # Made-up measurements: the fit must reproduce its two cells exactly.
    measured = {("memcpy", "hot-hot"): 700, ("memcpy", "clean-clean"): 4000}
    # memcpy only: each cold cell's set-up runs a filler of twice the host's
    # largest cache through the model (about half a second a cell).
    fit, model = bench.predict(measured, ["memcpy"])
    assert model[("memcpy", "hot-hot")] == pytest.approx(700)
    assert model[("memcpy", "clean-clean")] == pytest.approx(4000)
    assert sorted(model) == sorted(("memcpy", p) for p in bench.PAIRS)
    # 4 KB in 64-byte lines: a cold side misses 64 lines; hot-hot none.
    assert fit["clean_misses"] == 128
    assert model[("memcpy", "hot-clean")] < model[("memcpy", "clean-clean")]
