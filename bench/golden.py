"""The digests of bench/golden.sh (read its header first).

Each output is reduced to canonical JSON (keys sorted, rows sorted, the
trace's path replaced by its file name) and digested with MD5. The canonical
text of every output is kept in target/golden/current/; --bless also copies it
to target/golden/blessed/, so a later --check on the same machine names the
files to diff, not just the digest that moved.

The traces are real programs captured with valgrind: traces/matmul.vmt (as
`make reproduce` captures it) and the S1 `database` workload's small trace.
Their own digests come first: a capture that differs from the blessed one
(another valgrind or libc) makes every other line incomparable, and the
check says so instead of blaming the simulator.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "bench" / "golden.txt"
WORK = ROOT / "target" / "golden"
MATMUL = ROOT / "traces" / "matmul.vmt"
#: The machine presets with a whole-trace result. x86-64-host is left out:
#: it is read from this host's sysfs, so its numbers differ between hosts.
PRESETS = ("jm-base", "hp9000-834", "mips-r4000")
SCHEMES = ("ultrix", "mach", "intel", "parisc", "softvm", "spur", "notlb")
POLICIES = ("none", "flush-on-unmap", "pseudo-alias", "read-only-alias", "cache-aligned", "global-shared",
            "uncached-shared")


def vmlab(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vmlab", *args], check=True, capture_output=True, text=True,
                          cwd=ROOT, **kw)


def canonical(x) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), allow_nan=True)


def ensure_traces() -> dict[str, Path]:
    if not MATMUL.exists():
        binary = ROOT / "target" / "reproduce" / "matmul"
        binary.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([os.environ.get("CC", "cc"), "-O1", "-o", str(binary), str(ROOT / "traces/src/matmul.c")],
                       check=True)
        print("golden: capturing traces/matmul.vmt (about a minute)", file=sys.stderr)
        # Pinned, as a workload capture is: the trace must not depend on who
        # captures it from where (docs/workloads.md, "Determinism").
        # The program runs as ./matmul from a folder of fixed name, so the
        # checkout's path reaches neither its arguments nor its PWD.
        run_dir = Path(tempfile.gettempdir()) / "vmlab-golden-capture"
        shutil.rmtree(run_dir, ignore_errors=True)
        run_dir.mkdir()
        shutil.copy(binary, run_dir / "matmul")
        subprocess.run([sys.executable, "-m", "vmlab", "trace", "-q", "--pin-env", "-o", str(MATMUL.resolve()),
                        "--", "./matmul"], check=True, capture_output=True, text=True, cwd=run_dir,
                       stdin=subprocess.DEVNULL)
        shutil.rmtree(run_dir, ignore_errors=True)
    from vmlab import workloads

    return {"matmul": MATMUL, "database": Path(workloads.ensure("database", "small"))}


def outputs(traces: dict[str, Path]) -> dict[str, str]:
    """Every output family's canonical text, by name."""
    from vmlab import _engine

    out: dict[str, str] = {}
    for name, p in traces.items():
        out[f"trace/{name}"] = hashlib.md5(p.read_bytes()).hexdigest()
    t = str(traces["matmul"])
    with tempfile.TemporaryDirectory() as tmp:
        for preset in PRESETS:
            j = Path(tmp) / f"{preset}.json"
            vmlab("run", "-m", preset, "-t", t, "--json", str(j), "-q")
            r = json.loads(j.read_text())
            r["trace"] = Path(r["trace"]).name
            out[f"run/{preset}"] = canonical(r)
        for s in SCHEMES:
            cfg = _engine.vm_load_config("jacob-mudge", [f"scheme={s}"])
            (r,) = _engine.vm_sweep([cfg], t, None, 1, None, None)
            r = json.loads(r)
            r["trace"] = Path(r["trace"]).name
            out[f"vm/jacob-mudge/{s}"] = canonical(r)
        for pol in POLICIES:
            out[f"os-run/hp9000-834/{pol}"] = canonical(json.loads(vmlab("os-run", "-t", t, "-p", pol, "--json").stdout))
        for space in ("dense", "sparse"):
            out[f"pagetables/{space}"] = canonical(json.loads(vmlab("pagetables", "--space", space, "--json", "-").stdout))
        out["pagetables/matmul"] = canonical(json.loads(vmlab("pagetables", "-t", t, "--json", "-").stdout))

        s1 = Path(tmp) / "s1"
        text = vmlab("reproduce", "s1", "--grid", "test", "--trace", f"database={traces['database']}",
                     "--results", str(s1), "--report", str(Path(tmp) / "s1-report"), "-j", "2").stdout
        # The rendered tables, findings and diagnoses: what S1's analysis
        # prints from the rows (the paths are this run's, not its numbers).
        out["s1/test/text"] = text.replace(str(traces["database"]), traces["database"].name).replace(tmp, "TMP")
        rows = [json.loads(line) for line in (s1 / "test" / "runs.jsonl").read_text().splitlines() if line.strip()]
        # What names the build and not the numbers: the engine's identity (a
        # hash of the library) and the run keys made from it.
        for r in rows:
            for k in ("engine", "key", "run_key"):
                r.pop(k, None)
        out["s1/test/rows"] = "\n".join(sorted(canonical(r) for r in rows))
        fp = json.loads((s1 / "test" / "footprint.json").read_text())
        out["s1/test/footprint"] = canonical(fp).replace(str(traces["database"]), traces["database"].name)

        # S3 (the hat on N CPUs of one System) and S5 (context switches on
        # the translating machine) run on the same machine model as the
        # rest, so a change there must leave their tables as they were too.
        # S5's traces.csv carries each capture's sha256: a machine whose
        # captures differ shows it there first.
        for study in ("s2", "s3", "s4", "s5"):
            d = Path(tmp) / study
            vmlab("reproduce", study, "--results", str(d), "--report", str(Path(tmp) / f"{study}-report"))
            for f in sorted(d.glob("*.csv")):
                out[f"{study}/{f.name}"] = csv_text(f)
            if study == "s2":
                out["s2/measurements"] = canonical(json.loads(_engine.os_s2_measurements("hp9000-834")))
    return out


def csv_text(f: Path) -> str:
    """A CSV table as its header and its rows in sorted order (the order in
    which parallel runs finish is not a result)."""
    with f.open(newline="") as fh:
        rows = list(csv.reader(fh))
    return canonical(rows[:1]) + "\n" + "\n".join(sorted(canonical(r) for r in rows[1:]))


def digests(texts: dict[str, str]) -> dict[str, str]:
    return {k: (v if k.startswith("trace/") else hashlib.md5(v.encode()).hexdigest()) for k, v in texts.items()}


def read_golden() -> dict[str, str]:
    out = {}
    for line in GOLDEN.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, digest = line.split()
            out[name] = digest
    return out


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else "--print"
    if mode not in ("--print", "--check", "--bless"):
        print(f"golden: error: unknown option {mode!r}; expected --check, --bless or nothing", file=sys.stderr)
        return 2
    texts = outputs(ensure_traces())
    got = digests(texts)
    current = WORK / "current"
    shutil.rmtree(current, ignore_errors=True)
    current.mkdir(parents=True)
    for k, v in texts.items():
        (current / (k.replace("/", "__") + ".txt")).write_text(v + "\n")
    if mode == "--print":
        for k, d in got.items():
            print(f"{k} {d}")
        return 0
    if mode == "--bless":
        GOLDEN.write_text("# bench/golden.sh --bless: one digest per output (trace digests are of the file)\n"
                          + "".join(f"{k} {d}\n" for k, d in got.items()))
        shutil.rmtree(WORK / "blessed", ignore_errors=True)
        shutil.copytree(current, WORK / "blessed")
        print(f"golden: wrote {GOLDEN.relative_to(ROOT)} ({len(got)} outputs)")
        return 0
    want = read_golden()
    traces_differ = [k for k in want if k.startswith("trace/") and want[k] != got.get(k)]
    if traces_differ:
        print(f"golden: the captured traces differ from the blessed ones ({', '.join(traces_differ)}): this "
              "machine's capture is not the one blessed, so nothing else can be compared. Bless on this machine "
              "from the commit to compare against, then check.", file=sys.stderr)
        return 1
    bad = [k for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
    for k in bad:
        f = k.replace("/", "__") + ".txt"
        hint = f"  diff {WORK / 'blessed' / f} {current / f}" if (WORK / "blessed" / f).exists() else ""
        print(f"DIFFERS {k}: blessed {want.get(k)}, now {got.get(k)}{hint}")
    print(f"golden: {len(got) - len(bad)} of {len(set(want) | set(got))} outputs unchanged")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
