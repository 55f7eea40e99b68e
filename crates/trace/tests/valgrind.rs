//! Real captures under valgrind. Skipped, with the reason printed, only when
//! valgrind is not on PATH.

// Tests report failure by panicking.
#![allow(clippy::panic)]

use std::process::Command;

use vmlab_addr::Asid;
use vmlab_trace::{capture, convert, open, read_all, CaptureError, CaptureOptions, Event, TraceFormat, VmtReader};

fn have_valgrind() -> bool {
    match Command::new("valgrind").arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            eprintln!("SKIPPED: valgrind is not on PATH (install valgrind to run the capture tests)");
            false
        }
    }
}

/// A scratch directory, removed when the test ends.
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("vmlab-trace-tests-").tempdir().expect("temp dir")
}

fn cmd(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// Builds `tests/data/NAME.c` into `dir`; `None` (the test skips, saying
/// so) where the host has no C compiler.
fn build_test_program(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    let src = format!("{}/tests/data/{name}.c", env!("CARGO_MANIFEST_DIR"));
    let prog = dir.join(name);
    let cc = Command::new("cc").args(["-O1", "-o"]).arg(&prog).arg(&src).status();
    if !matches!(cc, Ok(s) if s.success()) {
        eprintln!("SKIPPED: no C compiler (cc) to build {src}");
        return None;
    }
    Some(prog)
}

#[test]
fn capture_true_and_round_trip_through_every_format() {
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let out = dir.path().join("true.vmt");
    let mut calls = Vec::new();
    let opts = CaptureOptions { progress_every: 10_000, ..CaptureOptions::default() };
    let summary = capture(&cmd(&["/bin/true"]), &out, &opts, &mut |n| {
        calls.push(n);
        Ok(())
    })
    .expect("capture /bin/true");
    assert!(summary.events > 10_000, "only {} events", summary.events);
    assert!(!calls.is_empty() && calls.windows(2).all(|w| w[0] < w[1]), "progress calls {calls:?}");
    assert!(summary.valgrind_version.starts_with("valgrind-"), "{}", summary.valgrind_version);
    assert_eq!(summary.bytes_written, std::fs::metadata(&out).expect("meta").len());

    let events = read_all(&out, None).expect("read the capture");
    assert_eq!(events.len() as u64, summary.events);
    assert!(events.iter().all(|e| matches!(e, Event::Access(a) if a.asid.0 == 0 && a.size >= 1)));
    let fetches =
        events.iter().filter(|e| matches!(e, Event::Access(a) if a.kind == vmlab_trace::AccessKind::Ifetch)).count();
    assert!(fetches > events.len() / 3, "{fetches} fetches of {}", events.len());

    let file = std::fs::File::open(&out).expect("open");
    let r = VmtReader::new(file, &out).expect("header");
    assert_eq!(r.header().command, Some(cmd(&["/bin/true"])));
    assert_eq!(r.header().metadata["valgrind_version"], summary.valgrind_version.as_str());

    // vmt -> lackey text -> parse: identical.
    let text = dir.path().join("true.lackey");
    let mut src = open(&out, None).expect("open vmt");
    let s = convert(&mut *src, &text, TraceFormat::Lackey).expect("to lackey");
    assert!(s.losses.is_lossless());
    let from_text = read_all(&text, Some(TraceFormat::Lackey)).expect("parse lackey");
    assert!(from_text == events, "vmt -> lackey -> parse changed the events");

    // lackey -> vmt -> read: identical.
    let again = dir.path().join("true2.vmt");
    let mut src = open(&text, None).expect("open lackey");
    convert(&mut *src, &again, TraceFormat::Vmt).expect("to vmt");
    assert!(read_all(&again, None).expect("read vmt") == events, "lackey -> vmt -> read changed the events");
}

#[test]
fn failing_program_keeps_its_trace() {
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let out = dir.path().join("false.vmt");
    let err =
        capture(&cmd(&["/bin/false"]), &out, &CaptureOptions::default(), &mut |_| Ok(())).expect_err("false fails");
    match &err {
        CaptureError::ProgramFailed { code, events, out: kept, .. } => {
            assert_eq!(*code, Some(1));
            assert!(*events > 10_000);
            assert_eq!(kept.as_deref(), Some(out.as_path()));
        }
        other => panic!("expected ProgramFailed, got {other}"),
    }
    assert!(err.to_string().contains("`/bin/false` failed under valgrind"), "{err}");
    assert!(read_all(&out, None).expect("kept trace reads").len() > 10_000);
}

#[test]
fn missing_program_is_a_clear_failure() {
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let out = dir.path().join("missing.vmt");
    let err = capture(&cmd(&["/nonexistent/program"]), &out, &CaptureOptions::default(), &mut |_| Ok(()))
        .expect_err("no such program");
    match &err {
        CaptureError::ProgramFailed { code, events, out: kept, .. } => {
            assert_eq!(*code, Some(127));
            assert_eq!(*events, 0);
            assert!(kept.is_none());
        }
        other => panic!("expected ProgramFailed, got {other}"),
    }
    assert!(err.to_string().contains("program was not found"), "{err}");
    assert!(!out.exists());
}

#[test]
fn progress_error_kills_valgrind_and_removes_the_output() {
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let out = dir.path().join("interrupted.vmt");
    let opts = CaptureOptions { progress_every: 1, ..CaptureOptions::default() };
    let started = std::time::Instant::now();
    let err = capture(&cmd(&["/bin/sleep", "30"]), &out, &opts, &mut |_| Err("interrupted by the test".to_string()))
        .expect_err("interrupted");
    assert!(started.elapsed().as_secs() < 25, "valgrind was not killed promptly");
    match &err {
        CaptureError::Interrupted { reason, events } => {
            assert_eq!(reason, "interrupted by the test");
            assert!(*events > 0);
        }
        other => panic!("expected Interrupted, got {other}"),
    }
    assert!(!out.exists());
}

/// A capture with its environment, working directory and standard streams
/// given runs the program with exactly those, records them in the header,
/// and is the same file every time; a longer environment string is not.
#[test]
fn pinned_capture_is_repeatable_and_records_its_launch() {
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let run = dir.path().join("run");
    std::fs::create_dir(&run).expect("run dir");
    let stdin = dir.path().join("in.txt");
    std::fs::write(&stdin, "from stdin\n").expect("stdin file");
    let env = |foo: &str| -> std::collections::BTreeMap<String, String> {
        [
            ("FOO", foo),
            ("PATH", "/usr/bin:/bin"),
            // valgrind edits an LD_PRELOAD in place instead of appending one
            // after the last string, next to the random bytes of AT_RANDOM
            // (docs/workloads.md, "Determinism").
            ("LD_PRELOAD", ""),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    };
    // The same stream files every time: their names are in the header.
    let (stdout, stderr) = (dir.path().join("out.txt"), dir.path().join("err.txt"));
    let opts = |foo: &str| CaptureOptions {
        cwd: Some(run.clone()),
        env: Some(env(foo)),
        stdin: Some(stdin.clone()),
        stdout: Some(stdout.clone()),
        stderr: Some(stderr.clone()),
        ..CaptureOptions::default()
    };
    let sh = cmd(&["/bin/sh", "-c", "echo \"$FOO\"; pwd; read line; echo \"$line\"; echo oops >&2"]);
    let mut traces = Vec::new();
    for (n, foo) in ["bar", "bar", "barbarbarbar"].into_iter().enumerate() {
        let out = dir.path().join(format!("sh{n}.vmt"));
        capture(&sh, &out, &opts(foo), &mut |_| Ok(())).expect("capture sh");
        let printed = std::fs::read_to_string(&stdout).expect("stdout");
        assert_eq!(printed, format!("{foo}\n{}\nfrom stdin\n", run.display()));
        assert_eq!(std::fs::read_to_string(&stderr).expect("stderr"), "oops\n");
        traces.push(std::fs::read(&out).expect("trace bytes"));
    }
    assert!(traces[0] == traces[1], "two identical captures gave different files");
    assert!(traces[0] != traces[2], "a longer environment string must change the trace");

    let r = VmtReader::new(std::fs::File::open(dir.path().join("sh0.vmt")).expect("open"), "sh0.vmt").expect("hdr");
    let launch = &r.header().metadata["launch"];
    assert_eq!(launch["cwd"], run.display().to_string());
    assert_eq!(launch["environment"]["pinned"]["FOO"], "bar");
    assert_eq!(launch["stdin"], stdin.display().to_string());
    assert_eq!(launch["stdout"], stdout.display().to_string());
    for which in ["soft", "hard"] {
        let limit = &launch["stack_limit"][which];
        assert!(limit.is_u64() || limit == "unlimited", "{launch}");
    }
}

/// Without pinning, the header still says what the program inherited.
#[test]
fn inherited_launch_is_recorded_by_size() {
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let out = dir.path().join("true.vmt");
    capture(&cmd(&["/bin/true"]), &out, &CaptureOptions::default(), &mut |_| Ok(())).expect("capture");
    let r = VmtReader::new(std::fs::File::open(&out).expect("open"), &out).expect("header");
    let launch = &r.header().metadata["launch"];
    let inherited = &launch["environment"]["inherited"];
    let expected_vars = std::env::vars_os().count() as u64;
    assert_eq!(inherited["variables"], expected_vars, "{launch}");
    let expected_bytes: usize = std::env::vars_os().map(|(k, v)| k.len() + v.len() + 2).sum();
    assert_eq!(inherited["bytes"], expected_bytes as u64, "{launch}");
    assert_eq!(launch["cwd"], std::env::current_dir().expect("cwd").display().to_string());
    for stream in ["stdin", "stdout", "stderr"] {
        assert!(launch[stream].as_str().is_some_and(|s| s.starts_with("inherited ")), "{launch}");
    }
}

/// A one-process capture with its system calls, pinned, is the same trace
/// twice: the host pid that `set_tid_address` (and `getpid`) return is
/// replaced by the asid. On main before that, two captures of `cat` differed
/// in that one result.
#[test]
fn one_process_syscall_capture_is_repeatable() {
    use vmlab_trace::syscall::{name, Assembler};
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "one line\n").expect("input");
    let pwd = dir.path().display().to_string();
    let env = [("PATH", "/usr/bin:/bin"), ("LC_ALL", "C"), ("HOME", "/nonexistent"), ("PWD", &pwd), ("LD_PRELOAD", "")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let opts = CaptureOptions {
        syscalls: true,
        asid: vmlab_addr::Asid(5),
        cwd: Some(dir.path().to_path_buf()),
        env: Some(env),
        stdin: Some(input.clone()),
        stdout: Some(dir.path().join("out.txt")),
        ..CaptureOptions::default()
    };
    let argv = cmd(&["/bin/cat"]);
    let mut traces = Vec::new();
    for n in 0..2 {
        let out = dir.path().join(format!("cat{n}.vmt"));
        capture(&argv, &out, &opts, &mut |_| Ok(())).expect("capture cat");
        traces.push(read_all(&out, None).expect("read"));
    }
    let mut asm = Assembler::new();
    let calls: Vec<(String, i64)> = traces[0]
        .iter()
        .filter_map(|e| asm.push(e).expect("whole calls"))
        .map(|c| (name(c.number).unwrap_or("?").to_string(), c.ret))
        .collect();
    assert!(calls.contains(&("set_tid_address".to_string(), 5)), "{calls:?}");
    assert!(traces[0] == traces[1], "two pinned captures of cat differ");
}

/// A program that reads its `/proc/self/maps` sees no file named after
/// valgrind's pid, so its trace does not depend on how many digits that pid
/// has (how busy the host was, what started the capture). On main before
/// `--vgdb=no`, cat printed `/tmp/vgdb-pipe-shared-mem-vgdb-<pid>-by-...`,
/// and its `read` of the maps returned a byte more with a five-digit pid
/// than with a four-digit one.
#[test]
fn a_program_reading_its_maps_sees_nothing_of_valgrinds_pid() {
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let maps = dir.path().join("maps.txt");
    let opts = CaptureOptions { stdout: Some(maps.clone()), ..CaptureOptions::default() };
    let out = dir.path().join("cat.vmt");
    capture(&cmd(&["/bin/cat", "/proc/self/maps"]), &out, &opts, &mut |_| Ok(())).expect("capture cat");
    let seen = std::fs::read_to_string(&maps).expect("cat's output");
    // What valgrind itself maps is there (so cat did read its maps)...
    assert!(seen.contains("/bin/cat") && seen.contains("lackey-"), "{seen}");
    // ...but no name that holds valgrind's pid.
    let pid_named: Vec<&str> = seen.lines().filter(|l| l.contains("vgdb")).collect();
    assert!(pid_named.is_empty(), "the traced program sees valgrind's gdbserver file: {pid_named:?}");
}

/// A program started from a background job (SIGINT and SIGQUIT ignored,
/// as a non-interactive shell's `cmd &` leaves them) or under `nohup`
/// (SIGHUP) starts with no signal ignored, so that its run, and a program
/// such as `sort` that installs handlers only for the signals not ignored,
/// does not depend on who started the capture. On main the program printed
/// 1, 2 and 3.
#[test]
fn the_program_starts_with_no_signal_ignored() {
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let Some(prog) = build_test_program(dir.path(), "ignored") else {
        return;
    };
    // Ignored in this whole test process: harmless for the other tests,
    // which send no signal.
    #[allow(unsafe_code)]
    // SAFETY: setting a disposition to SIG_IGN installs no handler.
    unsafe {
        for signal in [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT] {
            assert_ne!(libc::signal(signal, libc::SIG_IGN), libc::SIG_ERR);
        }
    }
    // What the program inherits outside a capture: the test is of the capture.
    let outside = Command::new(&prog).output().expect("run ignored");
    assert_eq!(String::from_utf8_lossy(&outside.stdout), "1\n2\n3\n");
    let seen = dir.path().join("seen.txt");
    let opts = CaptureOptions { stdout: Some(seen.clone()), ..CaptureOptions::default() };
    let out = dir.path().join("ignored.vmt");
    capture(&cmd(&[prog.to_str().expect("utf-8 path")]), &out, &opts, &mut |_| Ok(())).expect("capture");
    let printed = std::fs::read_to_string(&seen).expect("its output");
    // valgrind keeps the last real-time signal for itself (VG_SIGVGKILL)
    // and shows it ignored to every program, whoever started it.
    let ignored: Vec<&str> = printed.lines().filter(|&s| s != "64").collect();
    assert!(ignored.is_empty(), "signals ignored in the traced program: {ignored:?}");
}

#[test]
fn missing_working_directory_is_an_error_not_a_missing_valgrind() {
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let out = dir.path().join("x.vmt");
    let opts = CaptureOptions { cwd: Some(dir.path().join("nope")), ..CaptureOptions::default() };
    let err = capture(&cmd(&["/bin/true"]), &out, &opts, &mut |_| Ok(())).expect_err("no such dir");
    assert!(err.to_string().contains("cannot run the program in") && err.to_string().contains("nope"), "{err}");
    assert!(!out.exists());
}

/// A parent and its forked child ping-pong a byte over two pipes three
/// times (tests/data/pingpong.c, built here), captured with every process
/// and its system calls: the merged trace has exactly the expected system
/// calls after the fork, in order, and hands over where each process blocks.
#[test]
fn capture_children_merges_where_processes_block() {
    pingpong_merges_where_processes_block(&[]);
}

/// The same over two FIFOs, made with `mkfifo` and opened `O_RDWR` by path
/// (lmbench's lat_fifo): the merge knows the opened descriptors as the
/// FIFOs its `mknodat` made, so their reads block as a pipe's do. On
/// today's main the FIFO reads never blocked: the parent ran its three
/// round trips alone (1 blocked call, 3 switches).
#[test]
fn capture_children_merges_where_fifo_readers_block() {
    pingpong_merges_where_processes_block(&["fifo"]);
}

fn pingpong_merges_where_processes_block(args: &[&str]) {
    use vmlab_trace::syscall::{name, Assembler};
    let dir = scratch();
    if !have_valgrind() {
        return;
    }
    let Some(prog) = build_test_program(dir.path(), "pingpong") else {
        return;
    };
    let out = dir.path().join("pingpong.vmt");
    // Pinned as `vmlab trace --pin-env` pins, because the second capture
    // below must equal the first: the inherited environment's strings sit at
    // the top of the stack, and one stack load moved between two unpinned
    // captures in CI (docs/workloads.md, "Determinism").
    // The same variables as Python's `vmlab.traces.pinned_environment`.
    let pwd = dir.path().display().to_string();
    let env = [("PATH", "/usr/bin:/bin"), ("LC_ALL", "C"), ("HOME", "/nonexistent"), ("PWD", &pwd), ("LD_PRELOAD", "")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let opts = CaptureOptions {
        children: true,
        cwd: Some(dir.path().to_path_buf()),
        env: Some(env),
        ..CaptureOptions::default()
    };
    let mut argv = vec![prog.display().to_string()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let summary = capture(&argv, &out, &opts, &mut |_| Ok(())).expect("capture");
    let merge = summary.merge.expect("a merge summary");
    assert_eq!(merge.processes.len(), 2);
    assert_eq!((merge.processes[1].asid, merge.processes[1].parent), (Asid(2), Some(Asid(1))));
    assert_eq!((merge.forced, merge.fd_mismatches), (0, 0), "{merge:?}");

    let events = read_all(&out, None).expect("read");
    assert_eq!(events.len() as u64, summary.events);
    // Every access carries the asid of the process running at that point.
    let mut running = 0;
    let mut asm = Assembler::new();
    // (asid, call) from the fork on, and the switches, in trace order.
    let mut seen: Vec<String> = Vec::new();
    let mut forked = false;
    for e in &events {
        match e {
            Event::ContextSwitch(a) => {
                running = a.0;
                if forked {
                    seen.push(format!("switch {}", a.0));
                }
            }
            Event::Access(a) => assert_eq!(a.asid.0, running),
            _ => {}
        }
        if let Some(call) = asm.push(e).expect("whole calls") {
            assert_eq!(call.asid.0, running, "{call:?}");
            let n = name(call.number).unwrap_or("?");
            if n == "getppid" && call.asid.0 == 1 {
                // The capturing process's pid would differ between runs.
                assert_eq!(call.ret, 0, "the command's getppid");
            }
            forked |= n == "clone";
            if forked && ["clone", "read", "write", "wait4", "exit_group"].contains(&n) {
                seen.push(format!("{} {n} {}", call.asid.0, call.ret));
            }
        }
    }
    // The parent (1) forks the child (2, the fork's result rewritten to
    // its asid) and writes the first byte; its read blocks (the child has
    // not answered): the child runs, reads, answers, and blocks in its
    // next read; and so on. The last time, the child exits after its
    // write, and the parent's wait4 finds it ended and does not block.
    let want = [
        "1 clone 2",
        "1 write 1",
        "switch 2",
        "2 read 1",
        "2 write 1",
        "switch 1",
        "1 read 1",
        "1 write 1",
        "switch 2",
        "2 read 1",
        "2 write 1",
        "switch 1",
        "1 read 1",
        "1 write 1",
        "switch 2",
        "2 read 1",
        "2 write 1",
        "2 exit_group 0",
        "switch 1",
        "1 read 1",
        "1 wait4 2",
        "1 exit_group 0",
    ];
    assert_eq!(seen, want);
    assert_eq!(merge.switches, 1 + 6, "the first switch to 1, then six hand-overs");
    // The parent's three reads and the child's second and third (its first
    // finds the byte already written).
    assert_eq!(merge.blocked_calls, 5, "{merge:?}");

    // A second capture is the same trace: pids are replaced by asids, and
    // the schedule depends on the logs alone.
    let second = dir.path().join("second.vmt");
    capture(&argv, &second, &opts, &mut |_| Ok(())).expect("capture again");
    assert!(read_all(&second, None).expect("read") == events, "two captures differ");

    // Through .vmt again: the same events.
    let again = dir.path().join("again.vmt");
    convert(&mut *open(&out, None).expect("open"), &again, TraceFormat::Vmt).expect("convert");
    assert_eq!(read_all(&again, None).expect("read"), events);
}

/// A shell pipeline, `echo hi | /bin/cat > out.txt`: dash forks a child that
/// echoes into the pipe and one that execs cat; it waits in wait4, which its
/// SIGCHLD handler interrupts (no result in valgrind's log: -EINTR). The
/// merge runs the shell until its first wait, then the echo child (which
/// writes and ends), then cat (which reads the 3 bytes, then end of file:
/// no writer is left), then the shell again.
#[test]
fn capture_children_of_a_shell_pipeline() {
    use vmlab_trace::syscall::{name, Assembler};
    let dir = scratch();
    if !have_valgrind() || !std::path::Path::new("/bin/sh").exists() {
        return;
    }
    let out = dir.path().join("sh.vmt");
    let opts = CaptureOptions { children: true, cwd: Some(dir.path().to_path_buf()), ..CaptureOptions::default() };
    let argv = cmd(&["/bin/sh", "-c", "echo hi | /bin/cat > out.txt"]);
    let summary = capture(&argv, &out, &opts, &mut |_| Ok(())).expect("capture");
    assert_eq!(std::fs::read_to_string(dir.path().join("out.txt")).expect("out.txt"), "hi\n");
    let merge = summary.merge.expect("merged");
    assert_eq!(merge.processes.len(), 3, "{merge:?}");
    assert_eq!(merge.processes[2].images.len(), 2, "the fork image, then cat's: {merge:?}");
    assert_eq!(merge.forced, 0, "{merge:?}");
    let mut asm = Assembler::new();
    let mut calls = Vec::new();
    for e in read_all(&out, None).expect("read") {
        if let Some(c) = asm.push(&e).expect("whole calls") {
            calls.push((c.asid.0, name(c.number).unwrap_or("?"), c.ret, c.arg(0)));
        }
    }
    let at = |want: (u32, &str)| calls.iter().position(|c| (c.0, c.1) == want).expect("the call");
    let echo_exit = at((2, "exit_group"));
    assert!(at((1, "wait4")) > echo_exit, "the shell's first wait completes after the echo child ends");
    assert!(at((3, "set_robust_list")) > echo_exit, "cat's process starts after the echo child ends");
    let cat_reads: Vec<i64> = calls.iter().filter(|c| c.0 == 3 && c.1 == "read" && c.3 == 0).map(|c| c.2).collect();
    assert_eq!(cat_reads, [3, 0]);
    assert!(at((1, "exit_group")) > at((3, "exit_group")), "the shell ends last");
}
