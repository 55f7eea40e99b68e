//! Capturing a trace by running a program under valgrind's lackey tool.
//!
//! lackey's trace goes to valgrind's log. We point `--log-file` at a FIFO in a
//! private temporary directory and parse it as it is written, straight into a
//! `.vmt` writer: no multi-gigabyte text file ever touches the disk, and the
//! traced program keeps its own stdin/stdout/stderr and nothing else of the
//! caller's (`only_standard_streams_inherited`), and no ignored signal
//! (`no_signal_ignored`). (`--log-fd` to a pipe
//! would work too, but that one descriptor would have to survive while
//! every other above 2 is closed; the FIFO needs nothing. Either way
//! valgrind 3.19 leaves the log's first descriptor, 3, open in the traced
//! program.)
//!
//! A FIFO open blocks until both ends are opened, and valgrind may die before
//! it opens its log (a bad option, a missing program). So the read end is
//! opened on a helper thread while this one watches valgrind; if valgrind
//! exits first, we open the write end ourselves to release the helper.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::{Event, EventSource, LackeyReader, TraceError, VmtHeader, VmtOptions, VmtWriter, BLOCK};
use vmlab_addr::Asid;

/// How a capture is run.
#[derive(Clone, Debug)]
pub struct CaptureOptions {
    /// The valgrind executable (looked up on PATH unless it contains a `/`).
    pub valgrind: PathBuf,
    /// Extra valgrind options, placed after vmlab's own and before the program.
    pub valgrind_args: Vec<String>,
    /// Asid recorded for the program's references.
    pub asid: Asid,
    pub vmt: VmtOptions,
    /// Stored in the `.vmt` header's metadata, next to what capture records.
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// References between two calls of the progress callback.
    pub progress_every: u64,
    /// The directory the program starts in (default: this process's). It
    /// reaches the program as its working directory and, through the `PWD`
    /// a shell-script valgrind launcher exports, as an environment string.
    pub cwd: Option<PathBuf>,
    /// The program's whole environment, replacing this process's (`None`
    /// inherits it). valgrind adds its own variables (`LD_PRELOAD`, and
    /// Debian's launcher script `LD_LIBRARY_PATH`, `PWD`, `GLIBCXX_FORCE_NEW`).
    pub env: Option<BTreeMap<String, String>>,
    /// Files for the program's standard input, output and error (default:
    /// inherited). A terminal, a pipe and a file are buffered differently by
    /// the C library, so where they point changes the trace.
    pub stdin: Option<PathBuf>,
    pub stdout: Option<PathBuf>,
    pub stderr: Option<PathBuf>,
    /// Record system calls as markers (`--trace-syscalls=yes`).
    pub syscalls: bool,
    /// Trace every process the command starts (`--trace-children=yes`,
    /// implies `syscalls`), each in its own asid, merged where processes
    /// block (`multiproc`). The logs go to a temporary directory as text
    /// (a FIFO per process cannot be made in advance) and are merged once
    /// valgrind has exited.
    pub children: bool,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        Self {
            valgrind: PathBuf::from("valgrind"),
            valgrind_args: Vec::new(),
            asid: Asid(0),
            vmt: VmtOptions::default(),
            metadata: Default::default(),
            progress_every: 1 << 20,
            cwd: None,
            env: None,
            stdin: None,
            stdout: None,
            stderr: None,
            syscalls: false,
            children: false,
        }
    }
}

/// What a successful capture produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaptureSummary {
    pub out: PathBuf,
    pub command: Vec<String>,
    pub events: u64,
    pub bytes_written: u64,
    /// `valgrind --version` output, e.g. `valgrind-3.19.0`.
    pub valgrind_version: String,
    pub seconds: f64,
    /// With `children`: the processes and how they were merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge: Option<crate::multiproc::MergeSummary>,
}

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(
        "valgrind not found (`{}`): trace capture runs the program under valgrind's lackey tool; \
         install valgrind (e.g. `apt-get install valgrind`) or point to it",
        valgrind.display()
    )]
    ValgrindMissing { valgrind: PathBuf },
    #[error("nothing to capture: the command is empty")]
    EmptyCommand,
    /// valgrind or the program exited unsuccessfully. If tracing had started,
    /// the complete trace of the failed run is still written to `out`.
    #[error("`{command}` failed under valgrind ({status}); {detail}")]
    ProgramFailed {
        command: String,
        status: String,
        code: Option<i32>,
        events: u64,
        out: Option<PathBuf>,
        detail: String,
    },
    /// The progress callback asked to stop; valgrind was killed and the
    /// partial output removed.
    #[error("capture interrupted after {events} references: {reason}")]
    Interrupted { reason: String, events: u64 },
    /// valgrind's output did not parse as lackey (the partial output is removed).
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
}

fn io_err(context: impl Into<String>) -> impl FnOnce(io::Error) -> CaptureError {
    let context = context.into();
    move |source| CaptureError::Io { context, source }
}

/// Kills and reaps valgrind on every early return.
struct Running {
    child: Child,
    status: Option<ExitStatus>,
}

impl Running {
    fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(s) = self.status {
            return Ok(s);
        }
        let s = self.child.wait()?;
        self.status = Some(s);
        Ok(s)
    }
    fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if self.status.is_none() {
            self.status = self.child.try_wait()?;
        }
        Ok(self.status)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.status.is_none() {
            // Errors here mean it is already gone; nothing more can be done.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Removes the output file unless the capture got far enough to keep it.
struct Partial<'a> {
    path: &'a Path,
    keep: bool,
}

impl Drop for Partial<'_> {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(self.path);
        }
    }
}

fn shell_words(cmd: &[String]) -> String {
    cmd.iter()
        .map(|w| {
            if !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b)) {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn valgrind_version(valgrind: &Path) -> Result<String, CaptureError> {
    let out = Command::new(valgrind).arg("--version").stdin(Stdio::null()).stderr(Stdio::null()).output();
    match out {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(CaptureError::ValgrindMissing { valgrind: valgrind.to_path_buf() })
        }
        Err(e) => {
            Err(CaptureError::Io { context: format!("cannot run `{} --version`", valgrind.display()), source: e })
        }
        Ok(o) if !o.status.success() => Err(CaptureError::Io {
            context: format!("`{} --version` failed", valgrind.display()),
            source: io::Error::other(o.status.to_string()),
        }),
        Ok(o) => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
    }
}

/// What the traced program starts with besides its command line, for the
/// header's `launch` metadata. Any of it can change a trace: the
/// environment's size moves every stack address (its strings sit at the top
/// of the stack), the working directory reaches the program through `getcwd`
/// and `PWD`, the C library buffers a terminal, a pipe and a file
/// differently, and the stack limits size the stack and default thread
/// stacks. An inherited environment is recorded by size only: it may hold
/// secrets.
fn launch_metadata(opts: &CaptureOptions) -> serde_json::Value {
    let cwd = match &opts.cwd {
        Some(dir) => dir.display().to_string(),
        None => std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_else(|e| format!("unknown ({e})")),
    };
    let environment = match &opts.env {
        Some(env) => serde_json::json!({ "pinned": env }),
        None => {
            let vars: Vec<_> = std::env::vars_os().collect();
            // Each variable is `NAME=value` and a NUL on the stack.
            let bytes: usize = vars.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
            serde_json::json!({ "inherited": { "variables": vars.len(), "bytes": bytes } })
        }
    };
    let stdio = |given: &Option<PathBuf>, inherited: Result<String, io::Error>| match given {
        Some(path) => path.display().to_string(),
        None => match inherited {
            Ok(kind) => format!("inherited {kind}"),
            Err(e) => format!("inherited, unknown ({e})"),
        },
    };
    // Both limits: a program may raise its own soft limit up to the hard one
    // (cc1 raises it to 64 MB, or the hard limit if that is lower).
    let limit = rustix::process::getrlimit(rustix::process::Resource::Stack);
    let bytes = |l: Option<u64>| l.map_or_else(|| "unlimited".into(), serde_json::Value::from);
    let stack_limit = serde_json::json!({ "soft": bytes(limit.current), "hard": bytes(limit.maximum) });
    serde_json::json!({
        "cwd": cwd,
        "environment": environment,
        "stdin": stdio(&opts.stdin, stream_kind(io::stdin())),
        "stdout": stdio(&opts.stdout, stream_kind(io::stdout())),
        "stderr": stdio(&opts.stderr, stream_kind(io::stderr())),
        "stack_limit": stack_limit,
    })
}

/// `terminal`, `pipe`, `file`, ...: what a standard stream of this process is.
fn stream_kind<S: IsTerminal + std::os::fd::AsFd>(stream: S) -> io::Result<String> {
    if stream.is_terminal() {
        return Ok("terminal".into());
    }
    let st = rustix::fs::fstat(stream)?;
    use rustix::fs::FileType;
    Ok(match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => "file",
        FileType::Fifo => "pipe",
        FileType::CharacterDevice => "character device",
        FileType::Socket => "socket",
        _ => "other",
    }
    .into())
}

/// Opens the FIFO's read end while watching valgrind. If valgrind exits
/// without ever opening its log, the result reads as an empty file.
fn open_fifo(fifo: &Path, vg: &mut Running) -> Result<File, CaptureError> {
    let (tx, rx) = mpsc::channel();
    let path = fifo.to_path_buf();
    let opener = std::thread::spawn(move || {
        // The receiver only goes away once we have an answer; ignore.
        let _ = tx.send(File::open(&path));
    });
    let tick = Duration::from_millis(20);
    let mut valgrind_gone = false;
    let got = loop {
        match rx.recv_timeout(tick) {
            Ok(r) => break r,
            Err(mpsc::RecvTimeoutError::Disconnected) => break Err(io::Error::other("the FIFO opener thread died")),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        valgrind_gone = valgrind_gone || vg.try_wait().map_err(io_err("waiting for valgrind"))?.is_some();
        if valgrind_gone {
            // Release the helper blocked in open(): a writer appearing
            // completes its open, and closing at once leaves it at EOF.
            // ENXIO means no reader is waiting yet; the next tick retries.
            let _ = rustix::fs::open(
                fifo,
                rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            );
        }
    };
    let _ = opener.join();
    got.map_err(io_err(format!("cannot open the FIFO {}", fifo.display())))
}

/// The revision of how a capture starts the program: valgrind's options
/// and what the program inherits (descriptors, signals). Raised with every
/// change here that can change a trace of an unchanged program, so that a
/// stored trace keyed by it (python/vmlab/workloads.py, `capture_key`) is
/// captured again rather than reused. 1: `--vgdb=no`, only the standard
/// streams inherited; 2: no signal ignored.
pub const CAPTURE_REVISION: u32 = 2;

/// valgrind options that hide valgrind's own doings from the program, so
/// that its run does not depend on who started the capture. `--vgdb=no`:
/// otherwise valgrind maps its gdbserver file
/// `/tmp/vgdb-pipe-shared-mem-vgdb-<pid>-by-<user>-on-<host>` into every
/// traced process, and a program that reads its `/proc/self/maps` (grep
/// through the C library, S2's `workers`) reads a byte more when valgrind's
/// pid has a digit more: a `read` of another length, and another trace.
/// Not in the header's `tool`, like `--log-file`: they change no trace of a
/// program that does not look at valgrind, so S1's reference hashes stand
/// (docs/workloads.md, "Determinism").
const UNSEEN_ARGS: [&str; 1] = ["--vgdb=no"];

/// Makes valgrind, and so the program, start with the standard streams only.
/// A descriptor above 2 that the caller left open without close-on-exec (a
/// make jobserver's pipe, a shell's redirection, a test runner's log) would
/// reach the program and take the numbers its own opens get otherwise: its
/// system-call markers, and the merge's model of which descriptor is a
/// pipe, would depend on who started the capture.
///
/// The forked child marks every descriptor above 2 close-on-exec just
/// before it execs valgrind. Close-on-exec rather than closed: std's own
/// pipe that reports a failed exec back (already close-on-exec) must stay
/// open until the exec.
#[allow(unsafe_code)]
fn only_standard_streams_inherited(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // Read here, not in the child: the fallback's bound, for kernels
    // without close_range's CLOSE_RANGE_CLOEXEC (Linux < 5.11).
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .map_or(1 << 20, |n| n.min(1 << 20)) as libc::c_int;
    // SAFETY: the closure runs in the forked child between fork and exec.
    // It allocates nothing, takes no lock and makes only async-signal-safe
    // system calls (close_range, fcntl) on descriptor numbers; it touches no
    // Rust object that owns a descriptor.
    unsafe {
        command.pre_exec(move || {
            #[cfg(target_os = "linux")]
            {
                let first: libc::c_uint = 3;
                if libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC) == 0 {
                    return Ok(());
                }
            }
            for fd in 3..limit {
                // EBADF for a number that is not open: nothing to do.
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
            Ok(())
        });
    }
}

/// Makes valgrind, and so the program, start with no signal ignored. An
/// ignored signal is the one disposition that survives `exec`, and who
/// started the capture decides it: a non-interactive shell's `cmd &` ignores
/// SIGINT and SIGQUIT, `nohup` SIGHUP. Programs look: `sort` installs its
/// cleanup handler only for the signals not ignored, so S2's `pipeline`
/// captured from a background job was another file (2,178,432 references
/// against 2,178,668: four `rt_sigaction` calls fewer).
///
/// std's `Command` already empties the signal mask and resets SIGPIPE in the
/// child; this resets every other ignored signal, just before the exec.
#[allow(unsafe_code)]
fn no_signal_ignored(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // Read here, not in the child (it is the C library's getter, not a system call).
    let last = libc::SIGRTMAX();
    // SAFETY: the closure runs in the forked child between fork and exec.
    // It allocates nothing, takes no lock and calls only sigaction, which is
    // async-signal-safe, on a zeroed `sigaction` of its own stack.
    unsafe {
        command.pre_exec(move || {
            for signal in 1..=last {
                let mut current: libc::sigaction = std::mem::zeroed();
                // EINVAL for the numbers the C library keeps for itself: nothing to do.
                if libc::sigaction(signal, std::ptr::null(), &mut current) == 0 && current.sa_sigaction == libc::SIG_IGN
                {
                    let mut default: libc::sigaction = std::mem::zeroed();
                    default.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(signal, &default, std::ptr::null_mut());
                }
            }
            Ok(())
        });
    }
}

/// Runs `cmd` under `valgrind --tool=lackey --trace-mem=yes` and writes its
/// references to the `.vmt` file `out`, recording the command line in the
/// header. `progress` is called with the references captured so far about
/// every `opts.progress_every` references; returning `Err` kills valgrind and
/// ends the capture with [`CaptureError::Interrupted`].
pub fn capture(
    cmd: &[String],
    out: &Path,
    opts: &CaptureOptions,
    progress: &mut dyn FnMut(u64) -> Result<(), String>,
) -> Result<CaptureSummary, CaptureError> {
    if cmd.is_empty() {
        return Err(CaptureError::EmptyCommand);
    }
    let started = Instant::now();
    let version = valgrind_version(&opts.valgrind)?;
    if let Some(dir) = opts.cwd.as_deref().filter(|d| !d.is_dir()) {
        return Err(CaptureError::Io {
            context: format!("cannot run the program in {}", dir.display()),
            source: io::Error::new(io::ErrorKind::NotFound, "no such directory"),
        });
    }
    let dir = tempfile::Builder::new()
        .prefix("vmlab-capture-")
        .tempdir()
        .map_err(io_err("cannot create a temporary directory"))?;
    let fifo = dir.path().join("lackey.fifo");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR).map_err(|e| {
        CaptureError::Io { context: format!("cannot create the FIFO {}", fifo.display()), source: e.into() }
    })?;

    let tool_args: Vec<String> = ["--tool=lackey", "--trace-mem=yes"]
        .into_iter()
        .chain(opts.syscalls.then_some("--trace-syscalls=yes"))
        .chain(opts.children.then_some("--trace-syscalls=yes"))
        .chain(opts.children.then_some("--trace-children=yes"))
        .map(String::from)
        .collect::<Vec<_>>();
    let mut tool_args = tool_args;
    tool_args.dedup();
    let mut header = VmtHeader::new(concat!("vmlab-trace ", env!("CARGO_PKG_VERSION"), " capture"));
    header.command = Some(cmd.to_vec());
    header.metadata = opts.metadata.clone();
    header.metadata.insert("tool".into(), format!("valgrind {}", tool_args.join(" ")).into());
    header.metadata.insert("valgrind_version".into(), version.clone().into());
    if !opts.valgrind_args.is_empty() {
        header.metadata.insert("valgrind_args".into(), opts.valgrind_args.clone().into());
    }
    header.metadata.insert("launch".into(), launch_metadata(opts));
    let file = File::create(out).map_err(io_err(format!("cannot create {}", out.display())))?;
    let mut partial = Partial { path: out, keep: false };
    let mut writer = VmtWriter::with_options(BufWriter::with_capacity(1 << 20, file), header, opts.vmt)
        .map_err(io_err(format!("cannot write {}", out.display())))?;

    let logs = dir.path().join("logs");
    let log_file = if opts.children {
        std::fs::create_dir(&logs).map_err(io_err(format!("cannot create {}", logs.display())))?;
        // One log per process image (multiproc.rs).
        logs.join("log.%p.%n")
    } else {
        fifo.clone()
    };
    let mut command = Command::new(&opts.valgrind);
    command
        .args(&tool_args)
        .args(UNSEEN_ARGS)
        .arg(format!("--log-file={}", log_file.display()))
        .args(&opts.valgrind_args)
        .args(cmd);
    if let Some(dir) = &opts.cwd {
        command.current_dir(dir);
    }
    if let Some(env) = &opts.env {
        command.env_clear().envs(env);
    }
    if let Some(path) = &opts.stdin {
        command.stdin(
            File::open(path).map_err(io_err(format!("cannot open {} for the program's stdin", path.display())))?,
        );
    }
    for (path, stream) in [(&opts.stdout, "stdout"), (&opts.stderr, "stderr")] {
        if let Some(path) = path {
            let file = File::create(path)
                .map_err(io_err(format!("cannot create {} for the program's {stream}", path.display())))?;
            if stream == "stdout" {
                command.stdout(file);
            } else {
                command.stderr(file);
            }
        }
    }
    only_standard_streams_inherited(&mut command);
    no_signal_ignored(&mut command);
    let child = command.spawn().map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => CaptureError::ValgrindMissing { valgrind: opts.valgrind.clone() },
        _ => CaptureError::Io { context: format!("cannot start {}", opts.valgrind.display()), source: e },
    })?;
    let mut vg = Running { child, status: None };
    let command = shell_words(cmd);
    let failed = |status: ExitStatus, events: u64, out: Option<PathBuf>, detail: String| CaptureError::ProgramFailed {
        command: command.clone(),
        status: status.to_string(),
        code: status.code(),
        events,
        out,
        detail,
    };

    let (status, events, merge) = if opts.children {
        let root = vg.child.id();
        let status = vg.wait().map_err(io_err("waiting for valgrind"))?;
        let mut events = 0u64;
        let mut next = opts.progress_every.max(1);
        let every = next;
        let mut stopped = None;
        let merged = crate::multiproc::merge_logs(&logs, root, &cmd[0], &mut |block| {
            writer
                .write_all(block)
                .map_err(|e| TraceError::new(out, crate::Location::File, format!("cannot write: {e}")))?;
            events += block.len() as u64;
            if events >= next {
                next = events + every;
                if let Err(reason) = progress(events) {
                    stopped = Some(reason.clone());
                    return Err(TraceError::new(out, crate::Location::File, reason));
                }
            }
            Ok(())
        });
        if let Some(reason) = stopped {
            return Err(CaptureError::Interrupted { reason, events });
        }
        let summary = match merged {
            Ok(s) => s,
            Err(e) if !status.success() && events == 0 => {
                return Err(failed(status, 0, None, format!("valgrind stopped before tracing started ({e})")));
            }
            Err(e) => return Err(CaptureError::Trace(e)),
        };
        (status, summary.events, Some(summary))
    } else {
        let (status, events) = capture_one(&fifo, &mut vg, opts, &mut writer, out, progress, &failed)?;
        (status, events, None)
    };
    if !status.success() && events == 0 {
        let hint = if status.code() == Some(127) { " (status 127: the program was not found)" } else { "" };
        return Err(failed(
            status,
            0,
            None,
            format!("valgrind stopped before tracing started{hint}; its message is on stderr; no trace was written"),
        ));
    }

    let bytes_written = writer.bytes_written();
    let file = writer
        .finish()
        .and_then(|b| b.into_inner().map_err(|e| e.into_error()))
        .map_err(io_err(format!("cannot write {}", out.display())))?;
    let bytes_written = file.metadata().map(|m| m.len()).unwrap_or(bytes_written);
    drop(file);
    partial.keep = true;
    if !status.success() {
        return Err(failed(
            status,
            events,
            Some(out.to_path_buf()),
            format!("the trace of the failed run ({events} references) was kept in {}", out.display()),
        ));
    }
    Ok(CaptureSummary {
        out: out.to_path_buf(),
        command: cmd.to_vec(),
        events,
        bytes_written,
        valgrind_version: version,
        seconds: started.elapsed().as_secs_f64(),
        merge,
    })
}

/// Parses lackey's output from the FIFO into `writer` as valgrind runs.
fn capture_one<W: std::io::Write>(
    fifo: &Path,
    vg: &mut Running,
    opts: &CaptureOptions,
    writer: &mut VmtWriter<W>,
    out: &Path,
    progress: &mut dyn FnMut(u64) -> Result<(), String>,
    failed: &dyn Fn(ExitStatus, u64, Option<PathBuf>, String) -> CaptureError,
) -> Result<(ExitStatus, u64), CaptureError> {
    let log = open_fifo(fifo, vg)?;
    let mut reader = LackeyReader::new(log, "valgrind lackey output").with_asid(opts.asid);
    // valgrind runs the program in its own process (it execs its tool).
    let mut host_ids = crate::multiproc::HostIds::new(vg.child.id(), opts.asid);
    let mut buf: Vec<Event> = Vec::with_capacity(BLOCK);
    let mut events = 0u64;
    let every = opts.progress_every.max(1);
    let mut next = every;
    loop {
        match reader.fill(&mut buf) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                // A line cut short because valgrind died is valgrind's failure,
                // not a format error.
                if let Ok(Some(status)) = vg.try_wait() {
                    if !status.success() {
                        return Err(failed(status, events, None, format!("its output ended mid-record ({e})")));
                    }
                }
                return Err(CaptureError::Trace(e));
            }
        }
        if opts.syscalls {
            host_ids.rewrite(&mut buf);
        }
        writer.write_all(&buf).map_err(io_err(format!("cannot write {}", out.display())))?;
        events += buf.len() as u64;
        if events >= next {
            next = events + every;
            if let Err(reason) = progress(events) {
                return Err(CaptureError::Interrupted { reason, events });
            }
        }
    }
    let rest = host_ids.finish();
    writer.write_all(&rest).map_err(io_err(format!("cannot write {}", out.display())))?;
    events += rest.len() as u64;
    let status = vg.wait().map_err(io_err("waiting for valgrind"))?;
    Ok((status, events))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        let cmd: Vec<String> = ["ls", "-l", "a b", "it's"].iter().map(|s| s.to_string()).collect();
        assert_eq!(shell_words(&cmd), r"ls -l 'a b' 'it'\''s'");
    }

    #[test]
    fn missing_valgrind_is_reported_as_such() {
        let opts = CaptureOptions { valgrind: "/nonexistent/valgrind".into(), ..Default::default() };
        let out = std::env::temp_dir().join(format!("vmlab-missing-vg-{}.vmt", std::process::id()));
        let err = capture(&["true".to_string()], &out, &opts, &mut |_| Ok(())).expect_err("no valgrind");
        assert!(matches!(err, CaptureError::ValgrindMissing { .. }), "{err}");
        assert!(err.to_string().contains("install valgrind"));
        assert!(!out.exists());
    }

    #[test]
    fn empty_command() {
        let err = capture(&[], Path::new("x.vmt"), &CaptureOptions::default(), &mut |_| Ok(())).expect_err("empty");
        assert!(matches!(err, CaptureError::EmptyCommand));
    }
}
