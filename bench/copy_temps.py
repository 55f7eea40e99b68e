"""Study S4 on this machine: the native copy benchmark (bench/copy_temps.c)
beside the `x86-64-host` preset's prediction (crates/copy, the CPU facts of
presets/cpu/x86-64-host.toml), fitted as seed 004's machines are: hit and
miss cycles solved from the measured memcpy hot-hot and clean-clean cells
only, every other cell predicted. Cells are compared as ratios to the
routine's own hot-hot cell (the absolute ticks of an out-of-order CPU are
not what a two-parameter model claims).

    python bench/copy_temps.py [--runs N] [--csv OUT]

prints a Markdown table (docs/performance.md holds one). `--runs 1
--filler 1M --no-model` is the compile-and-run check of `make test`
(tests/python/test_copy_bench.py).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "bench" / "copy_temps.c"
TIMING = ROOT / "presets" / "cpu" / "x86-64-host.toml"
CFLAGS = ["-O2", "-fno-tree-vectorize", "-fno-tree-loop-distribute-patterns", "-Wall", "-Wextra", "-Werror"]
TEMPS = ["hot", "clean", "dirty"]
PAIRS = [f"{s}-{d}" for s in TEMPS for d in TEMPS]
#: Routines of presets/copy/routines.toml the benchmark runs (libc memcpy
#: has no model: its code is glibc's choice for this CPU).
MODELLED = ["byte-loop", "memcpy", "8Wld-8Wst", "simd64"]


def largest_cache(root: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> int:
    """Bytes of this machine's largest cache (sysfs), as the model's
    `x86-64-host` preset reads it."""
    sizes = []
    for d in sorted(root.glob("index*")):
        text = (d / "size").read_text().strip()
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1], 1)
        sizes.append(int(text.rstrip("KMG")) * mult)
    if not sizes:
        raise SystemExit(f"vmlab: error: {root} lists no caches (this benchmark needs Linux sysfs)")
    return max(sizes)


def build(out_dir: Path) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SystemExit("vmlab: error: no C compiler (cc or gcc) on PATH")
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / "copy_temps"
    subprocess.run([cc, *CFLAGS, "-o", str(exe), str(SOURCE)], check=True)
    return exe


def measure(exe: Path, runs: int, filler: int) -> dict[tuple[str, str], int]:
    out = subprocess.run([str(exe), str(runs), str(filler)], check=True, capture_output=True, text=True).stdout
    cells = {}
    for row in csv.DictReader(io.StringIO(out)):
        cells[(row["routine"], f"{row['src']}-{row['dst']}")] = int(row["ticks"])
    return cells


def predict(measured: dict[tuple[str, str], int], routines: list[str] | None = None) -> tuple[dict, dict]:
    from vmlab import _engine

    cpu = str(TIMING)
    fit = json.loads(_engine.copy_fit(cpu, measured[("memcpy", "hot-hot")], measured[("memcpy", "clean-clean")]))
    cases = [
        dict(routine=r, src=p.split("-")[0], dst=p.split("-")[1], bytes=4096, dst_offset=0, placement="apart",
             repeat=1)
        for r in (routines or MODELLED) for p in PAIRS
    ]
    out = json.loads(_engine.copy_run(cpu, fit["hit_cycles"], fit["miss_cycles"], json.dumps(cases)))
    return fit, {(o["case"]["routine"], f"{o['case']['src']}-{o['case']['dst']}"): o["cycles"]["total"] for o in out}


def table(measured: dict, model: dict | None) -> str:
    lines = ["| routine | src-dst | host ticks | host / hot-hot | model ticks | model / hot-hot | model / host ratio |",
             "|---|---|---:|---:|---:|---:|---:|"]
    routines = list(dict.fromkeys(r for r, _ in measured))
    for r in routines:
        hh = measured[(r, "hot-hot")]
        for p in PAIRS:
            m = measured[(r, p)]
            cells = [r, p, str(m), f"{m / hh:.2f}"]
            if model is not None and (r, p) in model:
                pred, phh = model[(r, p)], model[(r, "hot-hot")]
                mark = " (fitted)" if r == "memcpy" and p in ("hot-hot", "clean-clean") else ""
                cells += [f"{pred:.0f}{mark}", f"{pred / phh:.2f}", f"{(pred / phh) / (m / hh):.2f}"]
            else:
                cells += ["", "", ""]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20, help="runs a cell; the minimum is kept (default 20)")
    ap.add_argument("--filler", type=str, default=None,
                    help="bytes of the filler (default twice the largest cache; suffix K or M)")
    ap.add_argument("--no-model", action="store_true", help="measure only (no vmlab engine needed)")
    ap.add_argument("--csv", type=Path, help="also write the measured cells here")
    ap.add_argument("--build-dir", type=Path, default=ROOT / "target" / "copy_temps")
    a = ap.parse_args(argv)
    if a.filler is None:
        filler = 2 * largest_cache()
    else:
        mult = {"K": 1 << 10, "M": 1 << 20}.get(a.filler[-1:], 1)
        filler = int(a.filler.rstrip("KM")) * mult
    exe = build(a.build_dir)
    measured = measure(exe, a.runs, filler)
    model = None
    if not a.no_model:
        fit, model = predict(measured)
        print(f"fit on host memcpy hot-hot {fit['hot_hot']:.0f} and clean-clean {fit['clean_clean']:.0f} ticks: "
              f"hit {fit['hit_cycles']:.3f}, miss {fit['miss_cycles']:.3f} ticks a line\n")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["routine", "pair", "ticks"])
            for (r, p), t in measured.items():
                w.writerow([r, p, t])
    print(table(measured, model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
