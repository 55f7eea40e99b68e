"""The `vmlab` command, run as a user would: in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import TINY_EVENTS, TINY_EXPECTED, needs_valgrind, vmlab_command


def assert_one_line_error(proc, *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("vmlab: error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for f in fragments:
        assert f in lines[0], lines[0]


def test_run_prints_the_table(cli, tiny_preset, tiny_trace):
    p = cli("run", "--machine", tiny_preset, "--trace", tiny_trace, check=True)
    lines = p.stdout.splitlines()
    assert lines[0].startswith("machine tiny-dm")
    read = next(line for line in lines if line.split()[:2] == ["l1", "read"])
    assert read.split()[2:4] == ["6", "5"]  # accesses, misses
    assert p.stderr == ""  # no progress bar when stderr is not a terminal


def test_run_reports_its_rate_on_a_terminal(tmp_path, tiny_preset, tiny_trace):
    import pty

    main, follower = pty.openpty()
    try:
        p = subprocess.run(
            [*vmlab_command(), "run", "-m", tiny_preset, "-t", tiny_trace],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL,
            text=True, timeout=300,
        )
        os.close(follower)
        follower = -1
        err = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            err += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(main)
    assert p.returncode == 0
    assert p.stdout.splitlines()[0].startswith("machine tiny-dm")
    last = err.decode().replace("\r", "\n").strip().splitlines()[-1]
    refs = len(TINY_EVENTS)  # all of them accesses
    assert last.startswith(f"simulated {refs:,} references in "), last
    assert last.endswith(" M refs/s)"), last


def test_run_json_to_stdout_parses(cli, tiny_preset, tiny_trace):
    p = cli("run", "-m", tiny_preset, "-t", tiny_trace, "--json", "-", check=True)
    data = json.loads(p.stdout)  # only JSON on stdout
    stats = data["caches"][0]["stats"]
    assert stats["ifetch"]["misses"] == TINY_EXPECTED["ifetch"]["misses"]
    assert data["machine"]["name"] == "tiny-dm"


def test_run_writes_json_csv_and_parquet(cli, tmp_path, tiny_preset, tiny_trace):
    import pandas as pd
    import pyarrow.parquet as pq

    cli("run", "-m", tiny_preset, "-t", tiny_trace, "--json", "r.json", "--csv", "r.csv",
        "--parquet", "r.parquet", "--quiet", check=True)
    assert json.loads((tmp_path / "r.json").read_text())["events"]["ifetch"] == 3
    csv = pd.read_csv(tmp_path / "r.csv")
    assert list(csv["kind"]) == ["ifetch", "read", "write"]
    assert list(csv["misses"]) == [3, 5, 1]
    table = pq.read_table(tmp_path / "r.parquet")
    assert table.num_rows == 3
    assert table.column("misses").to_pylist() == [3, 5, 1]
    assert table.column("miss_rate").to_pylist()[0] == pytest.approx(1.0)


def test_run_with_overrides(cli, tiny_preset, tiny_trace):
    p = cli("run", "-m", tiny_preset, "-t", tiny_trace, "--set", "l1.size=1K", "--set", "l1.assoc=full",
            "--json", "-", check=True)
    data = json.loads(p.stdout)
    assert data["machine"]["l1"]["size"] == "1K"
    # big enough for every line touched: only the 6 compulsory misses remain
    assert sum(data["caches"][0]["stats"][k]["misses"] for k in ("ifetch", "read", "write")) == 6


def test_run_overrides_in_either_order(cli, tiny_preset, tiny_trace):
    # 3 ways do not divide the tiny cache's 4 lines, but with size=48 it is
    # one set of 3 lines (LRU). The tiny trace's lines, worked by hand:
    # I 100 miss; L 200 miss; I 100 hit; S 201 miss (dirty); L 201 hit;
    # M 300 read miss (evicts 200), write hit; L 200 miss (evicts 100);
    # L 501 miss (evicts dirty 201); L 502 miss (evicts dirty 300);
    # I 100 miss (evicts 200). Misses: ifetch 2, read 5, write 1; 2 write-backs.
    outputs = []
    for sets in (["l1.assoc=3", "l1.size=48"], ["l1.size=48", "l1.assoc=3"]):
        args = [a for s in sets for a in ("--set", s)]
        p = cli("run", "-m", tiny_preset, "-t", tiny_trace, *args, "--json", "-", check=True)
        outputs.append(p.stdout)
    assert outputs[0] == outputs[1]
    data = json.loads(outputs[0])
    assert (data["machine"]["l1"]["size"], data["machine"]["l1"]["assoc"]) == ("48", 3)
    stats = data["caches"][0]["stats"]
    assert [stats[k]["misses"] for k in ("ifetch", "read", "write")] == [2, 5, 1]
    assert stats["writebacks"] == 2


def test_bad_trace_names_file_and_line(cli, tiny_preset, bad_trace):
    p = cli("run", "-m", tiny_preset, "-t", bad_trace)
    assert_one_line_error(p, "bad.lackey", "line 3")


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["run", "-m", "pdp-11", "-t", "x.vmt"], ["pdp-11", "jm-base"]),
        (["run", "-m", "jm-base", "-t", "missing.vmt"], ["missing.vmt"]),
        (["run", "-m", "jm-base", "-t", "x", "--set", "l1d.sise=16K"], ["sise", "size, line, assoc"]),
        (["run", "-m", "jm-base", "-t", "x", "--set", "nonsense"], ["KEY=VALUE"]),
        (["run", "-m", "jm-base", "-t", "x", "--format", "pdf"], ["pdf"]),
        (["run", "-m", "jm-base"], ["--trace"]),
        (["bogus"], ["bogus"]),
        (["presets", "show", "pdp-11"], ["pdp-11"]),
        (["trace", "info", "missing.vmt"], ["missing.vmt"]),
        (["trace", "convert", "missing.vmt", "out.din"], ["missing.vmt"]),
        (["trace", "convert", "a.vmt", "b.vmt", "--to", "pdf"], ["pdf"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, args, fragments):
    assert_one_line_error(cli(*args), *fragments)


def test_bad_preset_file(cli, tmp_path, tiny_trace):
    (tmp_path / "broken.toml").write_text('name = "b"\n[memory]\npage_size = 3000\n[l1]\nsize = 64\nline = 16\nassoc = 1\n')
    assert_one_line_error(cli("run", "-m", "broken.toml", "-t", tiny_trace), "broken.toml")


# The malformed inputs of tests/corpus (each checked for its exact location
# and message by crates/trace/tests/corpus.rs and
# crates/machine/tests/preset_corpus.rs), run as a user would.
CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SAMPLE_TRACE = Path(__file__).resolve().parents[2] / "crates" / "trace" / "tests" / "data" / "sample.lackey"
BAD_TRACES = sorted(p for fmt in ("vmt", "lackey", "din") for p in (CORPUS / fmt).iterdir())
BAD_PRESETS = sorted((CORPUS / "preset").glob("*.toml"))


def test_the_corpus_is_there():
    # An empty parametrisation would pass silently.
    assert len(BAD_TRACES) >= 50 and len(BAD_PRESETS) >= 30, (len(BAD_TRACES), len(BAD_PRESETS))


@pytest.mark.parametrize("path", BAD_TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_bad_trace_is_one_line_and_exit_2(cli, tiny_preset, path):
    p = cli("run", "-m", tiny_preset, "-t", path, "--format", path.parent.name)
    assert_one_line_error(p, str(path))


@pytest.mark.parametrize("path", BAD_PRESETS, ids=lambda p: p.name)
def test_every_bad_preset_is_one_line_and_exit_2(cli, path):
    p = cli("run", "-m", path, "-t", SAMPLE_TRACE)
    assert_one_line_error(p, str(path))


def test_the_corpus_machine_and_trace_are_valid(cli, tiny_preset):
    # So the failures above are the corpus files' own.
    cli("run", "-m", tiny_preset, "-t", SAMPLE_TRACE, check=True)


def test_unwritable_output(cli, tiny_preset, tiny_trace):
    p = cli("run", "-m", tiny_preset, "-t", tiny_trace, "--csv", "no/such/dir/r.csv", "-q")
    assert_one_line_error(p, "no/such/dir/r.csv")


def test_presets_list_and_show(cli):
    p = cli("presets", check=True)
    names = [line.split()[0] for line in p.stdout.splitlines()]
    assert {"jm-base", "hp9000-834", "mips-r4000"} <= set(names)
    assert all(len(line.split(None, 1)) == 2 for line in p.stdout.splitlines())  # every one described
    show = cli("presets", "show", "jm-base", check=True)
    assert 'name = "jm-base"' in show.stdout and "[l1d]" in show.stdout


def test_trace_info_and_convert(cli, tmp_path, tiny_trace):
    p = cli("trace", "info", tiny_trace, check=True)
    assert "footprint" in p.stdout
    data = json.loads(cli("trace", "info", tiny_trace, "--json", check=True).stdout)
    assert data["accesses"] == 10
    p = cli("trace", "convert", tiny_trace, "t.vmt", check=True)
    assert "nothing lost" in p.stdout
    vmt_info = json.loads(cli("trace", "info", "t.vmt", "--json", check=True).stdout)
    assert vmt_info["accesses"] == 10
    assert vmt_info["encoding"] == "vmt-bb-v1 (.vmt version 2)"
    assert "encoding" not in data
    assert "vmt-bb-v1" in cli("trace", "info", "t.vmt", check=True).stdout
    p = cli("trace", "convert", "t.vmt", "t.txt", "--to", "din", check=True)
    assert json.loads(cli("trace", "info", "t.txt", "--format", "din", "--json", check=True).stdout)["accesses"] > 0


def test_help_everywhere(cli):
    for args in (["--help"], ["run", "--help"], ["trace", "--help"], ["trace", "info", "--help"],
                 ["presets", "--help"], ["report", "--help"]):
        p = cli(*args, check=True)
        assert "Usage:" in p.stdout


@needs_valgrind
def test_trace_capture_of_true(cli, tmp_path):
    p = cli("trace", "-o", "x.vmt", "--", "/bin/true", check=True)
    assert (tmp_path / "x.vmt").stat().st_size > 0
    assert "x.vmt" in p.stderr
    info = json.loads(cli("trace", "info", "x.vmt", "--json", check=True).stdout)
    assert info["accesses"] > 10_000
    assert info["by_kind"]["ifetch"] > 0 and info["by_kind"]["load"] > 0
    text = cli("trace", "info", "x.vmt", check=True).stdout
    assert "ifetch" in text
    # the group spelling and the default name work too
    cli("trace", "capture", "-q", "--", "/bin/true", check=True)
    assert (tmp_path / "true.vmt").exists()
    # and the capture runs on a machine
    run = cli("run", "-m", "jm-base", "-t", "x.vmt", "--json", "-", check=True)
    assert json.loads(run.stdout)["instructions"] == info["by_kind"]["ifetch"]


@needs_valgrind
def test_trace_capture_passes_arguments_through(cli, tmp_path):
    # `-o` after the command belongs to the command, not to vmlab
    cli("trace", "-q", "-o", "sh.vmt", "--", "sh", "-c", "echo -o hi > out.txt", check=True)
    assert (tmp_path / "out.txt").read_text() == "-o hi\n"
    assert (tmp_path / "sh.vmt").exists()


@needs_valgrind
def test_trace_capture_pinned_is_repeatable_and_info_shows_the_launch(cli, tmp_path, monkeypatch):
    """--pin-env: the caller's environment no longer reaches the program, so
    two captures from one directory are the same file; the sha256 printed is
    the file's. trace info shows what the program started with."""
    from vmlab.traces import trace_sha256

    digests = []
    for i, padding in enumerate(["", "y" * 500]):
        monkeypatch.setenv("VMLAB_TEST_PADDING", padding)
        p = cli("trace", "--pin-env", "-o", f"t{i}.vmt", "--", "/bin/true", check=True)
        digest = trace_sha256(tmp_path / f"t{i}.vmt")
        assert f"sha256 {digest}" in p.stderr
        digests.append(digest)
    assert digests[0] == digests[1]
    info = cli("trace", "info", "t0.vmt", check=True).stdout
    assert f"working directory    {tmp_path}" in info
    assert f"environment          pinned: HOME=/nonexistent LC_ALL=C LD_PRELOAD= PATH=/usr/bin:/bin PWD={tmp_path}" in info
    assert "stdin/stdout/stderr  inherited character device / inherited pipe / inherited pipe" in info
    header = json.loads(cli("trace", "info", "t0.vmt", "--json", check=True).stdout)["header"]
    assert header["command"] == ["/bin/true"]
    # Unpinned, the header says how big the inherited environment was.
    cli("trace", "-q", "-o", "u.vmt", "--", "/bin/true", check=True)
    launch = json.loads(cli("trace", "info", "u.vmt", "--json", check=True).stdout)["header"]["metadata"]["launch"]
    assert launch["environment"]["inherited"]["variables"] >= 2
    # Other formats have no header and show none.
    (tmp_path / "t.lackey").write_text("I  00400000,4\n L 7ff00000,8\n")
    text = cli("trace", "info", "t.lackey", check=True).stdout
    assert "accesses" in text and "working directory" not in text
    assert "header" not in json.loads(cli("trace", "info", "t.lackey", "--json", check=True).stdout)


@needs_valgrind
def test_trace_capture_of_missing_program(cli):
    p = cli("trace", "-o", "n.vmt", "--", "/no/such/program")
    assert p.returncode == 2
    assert "vmlab: error:" in p.stderr and "Traceback" not in p.stderr


def test_capture_options_are_checked_before_valgrind_runs(tmp_path):
    from vmlab import _engine

    out = tmp_path / "x.vmt"
    with pytest.raises(_engine.VmlabError, match="capture options: unknown field `cwdd`"):
        _engine.trace_capture(["true"], str(out), None, json.dumps({"cwdd": "/"}))
    with pytest.raises(_engine.VmlabError, match="capture options: invalid type"):
        _engine.trace_capture(["true"], str(out), None, json.dumps({"metadata": [1]}))
    assert not out.exists()


def test_interrupt_stops_a_run_promptly(tmp_path):
    from conftest import write_random_trace

    trace = write_random_trace(tmp_path / "long.lackey", 400_000)
    # Enough work for several seconds: the same trace, many levels of classification.
    code = (
        "import sys, time, vmlab\n"
        "m = vmlab.Machine.from_preset('jm-base', stats_classify_misses=True)\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    while True:\n"
        f"        m.run({str(trace)!r})\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(3)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    finally:
        p.kill()
    assert p.returncode == 3, err
    assert "interrupted" in out
    assert time.monotonic() - t < 5


def test_cli_interrupt_exit_130(tmp_path):
    # An endless trace through a FIFO: the run is surely going when the signal comes.
    import threading

    fifo = tmp_path / "endless.lackey"
    os.mkfifo(fifo)
    chunk = "".join("I  %08x,4\n L %08x,8\n" % (0x400000 + 4 * i, 0x10000000 + 64 * i) for i in range(50_000))
    stop = threading.Event()

    def feed():
        try:
            with open(fifo, "w") as f:
                while not stop.is_set():
                    f.write(chunk)
        except (BrokenPipeError, OSError):
            pass

    p = subprocess.Popen([*vmlab_command(), "run", "-m", "jm-base", "-t", str(fifo), "--format", "lackey"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        time.sleep(1.5)
        assert p.poll() is None, p.communicate()
        t = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        assert time.monotonic() - t < 5
    finally:
        stop.set()
        p.kill()
    assert p.returncode == 130, err
    assert "vmlab: interrupted" in err and "Traceback" not in err
    assert out == ""


@needs_valgrind
def test_trace_capture_children_and_syscalls(cli, tmp_path):
    """--children: a shell pipeline, every process in its own address space,
    merged where they block; trace info counts the system calls by name and
    vmlab.trace_syscalls lists them, pids replaced by asids."""
    import vmlab

    p = cli("trace", "--children", "--pin-env", "-o", "sh.vmt", "--",
            "/bin/sh", "-c", "echo hi | /bin/cat > out.txt", check=True)
    assert (tmp_path / "out.txt").read_text() == "hi\n"
    # sh, the subshell that echoes, the one that execs cat
    assert "3 processes merged" in p.stderr, p.stderr
    assert "0 forced (fallback)" in p.stderr, p.stderr
    info = json.loads(cli("trace", "info", "sh.vmt", "--json", check=True).stdout)
    assert info["syscalls"] == sum(info["syscalls_by_name"].values()) > 0
    assert info["syscalls_by_name"]["execve"] == 1
    assert set(info["by_asid"]) == {"1", "2", "3"}
    assert "system calls" in cli("trace", "info", "sh.vmt", check=True).stdout
    calls = vmlab.trace_syscalls(tmp_path / "sh.vmt")
    forks = [c for c in calls if c["name"] == "clone" and c["asid"] == 1]
    assert [c["ret"] for c in forks] == [2, 3]
    # cat reads "hi\n" from the pipe, then end of file
    cat_reads = [c["ret"] for c in calls if c["asid"] == 3 and c["name"] == "read" and c["args"][0] == 0]
    assert cat_reads == [3, 0]
    assert [c["event"] for c in calls] == sorted(c["event"] for c in calls)


@needs_valgrind
def test_trace_capture_syscalls_of_one_process(cli, tmp_path):
    (tmp_path / "in.txt").write_text("abc\n")
    cli("trace", "-q", "--syscalls", "-o", "cat.vmt", "--", "/bin/cat", "in.txt", check=True)
    info = json.loads(cli("trace", "info", "cat.vmt", "--json", check=True).stdout)
    assert info["syscalls_by_name"]["read"] >= 2  # the file's 4 bytes, then end of file
    import vmlab
    calls = vmlab.trace_syscalls(tmp_path / "cat.vmt")
    # in.txt is cat's last open; its 4 bytes are then read (or copied, by
    # copy_file_range with a recent coreutils) from that descriptor.
    opened = max(i for i, c in enumerate(calls) if c["name"] == "openat" and c["ret"] >= 0)
    fd = calls[opened]["ret"]
    assert any(c["ret"] == 4 and c["args"][0] == fd for c in calls[opened + 1:])
    assert calls[-1]["name"] == "exit_group" and calls[-1]["ret"] == 0
