"""What a user gets from ``pip install``: the wheel, built from this checkout
(``maturin build --release``; after ``make develop`` cargo has nothing to
compile, so this only packs it), installed with no extras into a fresh venv
in a temporary folder, and run from another folder.

Checked: ``vmlab --help``; ``vmlab run`` on a hand-worked lackey trace
(exact counts); ``vmlab trace info`` and ``convert``; a capture of
``/bin/true`` (with valgrind); ``vmlab reproduce s2`` without matplotlib
(tables, and a note that the figures are skipped); ``vmlab reproduce s1
--grid test`` (with valgrind and sqlite3), its trace captured into
``$VMLAB_CACHE_DIR``; the workloads' sources
shipped inside the package and a native build of one going to
``$VMLAB_CACHE_DIR``; and, after all of it, not one file written into the
installed package. Marked ``install`` (``pytest -m 'not install'`` skips
it; ``make test-install`` runs only it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TINY_EVENTS, TINY_EXPECTED, TINY_PRESET, TINY_TRACE, needs_valgrind

pytestmark = pytest.mark.install

REPO = Path(__file__).resolve().parents[2]


def _maturin() -> str:
    beside = Path(sys.executable).parent / "maturin"
    found = str(beside) if beside.exists() else shutil.which("maturin")
    if found is None:
        pytest.skip("needs maturin to build the wheel (pip install maturin; make test installs it)")
    return found


class Installed:
    """A fresh venv holding only the wheel and its required dependencies."""

    def __init__(self, root: Path):
        self.root = root
        self.venv = root / "venv"
        self.cache = root / "cache"
        self.work = root / "work"  # the folder commands run in: not the checkout
        self.work.mkdir()
        self.files_at_install: set[str] = set()

    def run(self, *args: str, check: bool = True, program: str = "vmlab") -> subprocess.CompletedProcess:
        # A clean environment: no PYTHONPATH into the checkout, no venv of ours.
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(VMLAB_CACHE_DIR=str(self.cache), COLUMNS="200")
        proc = subprocess.run([str(self.venv / "bin" / program), *args], cwd=self.work, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=600, env=env)
        if check and proc.returncode != 0:
            raise AssertionError(f"{program} {' '.join(args)} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
        return proc

    def package_dir(self) -> Path:
        out = self.run("-c", "import vmlab, os; print(os.path.dirname(vmlab.__file__))", program="python")
        return Path(out.stdout.strip())

    def package_files(self) -> set[str]:
        pkg = self.package_dir()
        return {str(p.relative_to(pkg)) for p in pkg.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    inst = Installed(tmp_path_factory.mktemp("install"))
    wheels = inst.root / "wheels"
    subprocess.run([_maturin(), "build", "--release", "--quiet", "--out", str(wheels)], cwd=REPO, check=True,
                   stdin=subprocess.DEVNULL, capture_output=True, text=True)
    (wheel,) = wheels.glob("vmlab-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(inst.venv)], check=True)
    subprocess.run([str(inst.venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                    str(wheel)], check=True, stdin=subprocess.DEVNULL)
    inst.files_at_install = inst.package_files()
    return inst


def test_installed_from_the_wheel_not_the_checkout(installed: Installed) -> None:
    pkg = installed.package_dir()
    assert pkg.is_relative_to(installed.venv), pkg
    # No extra came along: each of them is optional.
    for extra in ("matplotlib", "pandas", "polars", "pyarrow"):
        p = installed.run("-c", f"import {extra}", program="python", check=False)
        assert p.returncode == 1 and "ModuleNotFoundError" in p.stderr, extra


def test_help(installed: Installed) -> None:
    out = installed.run("--help").stdout
    for command in ("run", "trace", "reproduce", "presets", "report"):
        assert f"  {command} " in out, command
    studies = installed.run("reproduce", "--help").stdout
    assert "  s1 " in studies and "  s2 " in studies and "  s4 " in studies


def test_run_info_convert_on_a_hand_worked_trace(installed: Installed) -> None:
    (installed.work / "tiny.toml").write_text(TINY_PRESET)
    (installed.work / "tiny.lackey").write_text(TINY_TRACE)
    data = json.loads(installed.run("run", "-m", "tiny.toml", "-t", "tiny.lackey", "--json", "-").stdout)
    stats = data["caches"][0]["stats"]
    for kind, want in TINY_EXPECTED.items():
        assert {k: stats[kind][k] for k in want} == want, kind

    info = installed.run("trace", "info", "tiny.lackey", "--json").stdout
    assert json.loads(info)["accesses"] == len(TINY_EVENTS)
    installed.run("trace", "convert", "tiny.lackey", "tiny.vmt")
    again = json.loads(installed.run("run", "-m", "tiny.toml", "-t", "tiny.vmt", "--json", "-").stdout)
    assert again["caches"] == data["caches"]


def test_bad_input_is_one_line(installed: Installed) -> None:
    (installed.work / "empty.txt").write_text("")
    p = installed.run("run", "-m", "jm-base", "-t", "empty.txt", check=False)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == "vmlab: error: empty.txt: the file is empty: expected lackey references, one a line\n"


@needs_valgrind
def test_capture(installed: Installed) -> None:
    installed.run("trace", "-q", "-o", "true.vmt", "--", "/bin/true")
    info = json.loads(installed.run("trace", "info", "true.vmt", "--json").stdout)
    # The dynamic loader and libc start-up alone are tens of thousands of references.
    assert info["accesses"] > 10_000 and info["by_kind"]["ifetch"] > 0.4 * info["accesses"]


def test_reproduce_s2_without_matplotlib(installed: Installed) -> None:
    p = installed.run("reproduce", "s2", "--results", "r2", "--report", "p2")
    assert p.stdout.startswith("S2 - fitted parameters")
    verdicts = [line for line in p.stdout.splitlines() if line.lstrip().startswith(("HOLDS", "FAILS"))]
    assert len(verdicts) >= 3, p.stdout
    assert ("vmlab: note: the S2 figures skipped: matplotlib is not installed (pip install 'vmlab[report]')"
            in p.stderr.splitlines())
    results = installed.work / "r2"
    for table in ("params.csv", "comparison.csv", "findings.csv"):
        assert (results / table).stat().st_size > 0, table
    findings = (results / "findings.csv").read_text().splitlines()
    policies = (results / "policies_findings.csv").read_text().splitlines()
    assert findings[0] == policies[0] == "finding,verdict,measured,paper"
    assert len(findings) - 1 + len(policies) - 1 == len(verdicts)
    assert not list((installed.work / "p2").glob("*.png"))


@needs_valgrind
@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="the database workload needs sqlite3")
def test_reproduce_s1_captures_into_the_cache(installed: Installed) -> None:
    """Issue 18: from an installed package this looked for workloads/ beside
    site-packages and left a partial trace there."""
    p = installed.run("reproduce", "s1", "--grid", "test", "-j", "2", "--results", "r1", "--report", "p1")
    assert sum(line.lstrip().startswith(("HOLDS", "FAILS")) for line in p.stdout.splitlines()) == 5
    assert "vmlab: note: the S1 figures skipped: matplotlib is not installed" in p.stderr
    assert sorted(t.name for t in (installed.cache / "traces" / "s1").iterdir()) == [
        "database-small.vmt", "database-small.vmt.json"]  # the trace and its sidecar (sha256, versions)
    assert (installed.work / "r1" / "test" / "runs.csv").stat().st_size > 0
    assert (installed.work / "p1" / "index.html").is_file()


def test_workload_sources_ship_and_builds_go_to_the_cache(installed: Installed) -> None:
    # A C compiler is on every machine that built vmlab (zstd's C sources).
    script = (
        "from vmlab import workloads as w\n"
        "import os\n"
        "print(w.SOURCES)\n"
        "print(w.default_trace_dir())\n"
        "w.build('bigfoot')\n"
        "print(sorted(os.listdir(w.default_build_dir())))\n"
    )
    lines = installed.run("-c", script, program="python").stdout.splitlines()
    sources = Path(lines[0])
    assert sources.is_relative_to(installed.package_dir())
    for src in ("bigfoot/hashjoin.c", "sparse/sparse.c", "compiler/calc.c", "database/queries.sql"):
        assert (sources / src).is_file(), src
    assert Path(lines[1]) == installed.cache / "traces" / "s1"
    assert lines[2] == "['hashjoin']"
    assert (installed.cache / "build" / "workloads" / "hashjoin").is_file()


def test_nothing_was_written_into_the_package(installed: Installed) -> None:
    # Last in the file: every command above has run by now.
    assert installed.package_files() == installed.files_at_install
