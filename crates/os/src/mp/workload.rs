//! Workloads as data (`presets/mp/workloads/*.toml`): what each process
//! does per transaction (a stretch of user work, then OS operations), the
//! size of its address space and what it shares. Every number names its
//! source in the file.

use serde::Deserialize;

/// An OS operation a process asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpKind {
    /// fork (the address space copied copy-on-write: the parent's range
    /// write-protected, the child's translations not copied), the child
    /// exiting at once; then the parent writes its pages again unless the
    /// caller is `Caller::BsdSuite`.
    Fork,
    /// vfork: the child borrows the address space, then exits.
    Vfork,
    /// exec of a program: the old image unloaded, the new text and data
    /// loaded; under `Caller::BsdSuite` a fork whose child execs the null
    /// program instead, the caller's image untouched.
    Exec,
    /// vexec, the BSD benchmark suite's `vexecs` (4.3BSD-Net/2
    /// `sys/tests/benchmarks/vexecs.c`): vfork, the child execs a null
    /// program in a new address space and exits; the parent's space is
    /// borrowed, never copied, freed or reloaded.
    Vexec,
    /// A minor fault on a shared page in memory (text or shared memory).
    MinorFault,
    /// A copy-on-write fault on a private page: copy, unload, load.
    CowFault,
    /// brk growing the heap by zero-filled pages, then shrinking it back.
    Brk,
    /// The page daemon taking a shared page's translations from every
    /// space (interface 2; the next touch is a minor fault).
    Pageout,
}

impl OpKind {
    pub const ALL: [OpKind; 8] = [
        OpKind::Fork,
        OpKind::Vfork,
        OpKind::Exec,
        OpKind::Vexec,
        OpKind::MinorFault,
        OpKind::CowFault,
        OpKind::Brk,
        OpKind::Pageout,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OpKind::Fork => "fork",
            OpKind::Vfork => "vfork",
            OpKind::Exec => "exec",
            OpKind::Vexec => "vexec",
            OpKind::MinorFault => "minor-fault",
            OpKind::CowFault => "cow-fault",
            OpKind::Brk => "brk",
            OpKind::Pageout => "pageout",
        }
    }

    /// The Figure 3 category of an operation.
    pub fn category(self) -> &'static str {
        match self {
            OpKind::Fork | OpKind::Vfork => "fork",
            OpKind::Exec | OpKind::Vexec => "exec",
            OpKind::MinorFault | OpKind::CowFault => "page fault",
            OpKind::Brk => "brk",
            OpKind::Pageout => "pageout",
        }
    }
}

/// What the program around a fork or an exec does with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Caller {
    /// A program that goes on using its pages: after a fork it writes each
    /// of them again; its exec replaces its own image with a program of
    /// `bytes` of data.
    #[default]
    Program,
    /// The loops of the BSD benchmark suite, which seed 003's Microbench
    /// "is based on" (section 5.2): 4.3BSD-Net/2
    /// `usr/src/sys/tests/benchmarks/forks.c` and `execs.c`, run by that
    /// directory's `run` as `forks 1000 <size>` and `execs 1000 <size>
    /// nulljob`. Both `sbrk(<size>)` and store into every 1 KB of it once,
    /// before the loop; in the loop the parent only forks and waits, so
    /// it never writes those pages again. In `execs` the forked child
    /// execs the null program (`nulljob.c`: `main` calls `exit(0)`); the
    /// size is the parent's, which the fork duplicates.
    BsdSuite,
}

/// One operation of a transaction: `per_transaction` times on average (the
/// whole part always, the fraction with that probability), of `bytes`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OpMix {
    pub kind: OpKind,
    #[serde(default)]
    pub bytes: u64,
    pub per_transaction: f64,
    #[serde(default)]
    pub caller: Caller,
    #[serde(default)]
    pub source: String,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub name: String,
    pub description: String,
    pub source: String,
    /// Mean user cycles per transaction (exponentially distributed).
    pub user_cycles: f64,
    /// Processes per CPU (all on one run queue, so they migrate).
    pub processes_per_cpu: u32,
    /// Pages of private data per process.
    pub data_pages: u32,
    /// Pages of program text per program, and how many programs.
    pub text_pages: u32,
    pub programs: u32,
    /// Pages of memory shared by every process (a database's buffer cache).
    #[serde(default)]
    pub shared_pages: u32,
    /// Whether load rises with the CPUs (Microbench: a fixed number of
    /// transactions per CPU) rather than a fixed total.
    #[serde(default)]
    pub per_cpu_load: bool,
    #[serde(rename = "op")]
    pub ops: Vec<OpMix>,
}

const SHIPPED: [(&str, &str); 6] = [
    ("microbench", include_str!("../../../../presets/mp/workloads/microbench.toml")),
    ("tpcb", include_str!("../../../../presets/mp/workloads/tpcb.toml")),
    ("tpcb-pgbench", include_str!("../../../../presets/mp/workloads/tpcb-pgbench.toml")),
    ("kenbus1", include_str!("../../../../presets/mp/workloads/kenbus1.toml")),
    ("specrate", include_str!("../../../../presets/mp/workloads/specrate.toml")),
    ("lmbench-proc", include_str!("../../../../presets/mp/workloads/lmbench-proc.toml")),
];

impl Workload {
    pub fn names() -> Vec<&'static str> {
        SHIPPED.iter().map(|s| s.0).collect()
    }

    /// A shipped workload by name, or a TOML file by path.
    pub fn load(name_or_path: &str) -> Result<Self, String> {
        if let Some((n, text)) = SHIPPED.iter().find(|s| s.0 == name_or_path) {
            return Self::parse(&format!("presets/mp/workloads/{n}.toml"), text);
        }
        if name_or_path.ends_with(".toml") {
            let text =
                std::fs::read_to_string(name_or_path).map_err(|e| format!("{name_or_path}: cannot read: {e}"))?;
            return Self::parse(name_or_path, &text);
        }
        Err(format!(
            "unknown workload {name_or_path:?}; known: {}, or a path to a .toml file",
            Self::names().join(", ")
        ))
    }

    pub fn parse(origin: &str, text: &str) -> Result<Self, String> {
        let w: Workload = toml::from_str(text).map_err(|e| match e.span() {
            Some(s) => format!("{origin}: line {}: {}", text[..s.start].lines().count().max(1), e.message()),
            None => format!("{origin}: {}", e.message()),
        })?;
        w.check().map_err(|m| format!("{origin}: {m}"))?;
        Ok(w)
    }

    fn check(&self) -> Result<(), String> {
        if self.processes_per_cpu == 0 || self.programs == 0 {
            return Err("processes_per_cpu and programs must be at least 1".into());
        }
        if !self.user_cycles.is_finite() || self.user_cycles < 0.0 {
            return Err(format!("user_cycles {} is not a non-negative number", self.user_cycles));
        }
        for o in &self.ops {
            if !o.per_transaction.is_finite() || o.per_transaction < 0.0 {
                return Err(format!(
                    "op {}: per_transaction {} is not a non-negative number",
                    o.kind.name(),
                    o.per_transaction
                ));
            }
            let pages = o.bytes.div_ceil(4096);
            let room = match o.kind {
                OpKind::Fork | OpKind::Vfork | OpKind::Exec => self.data_pages,
                OpKind::Brk => 1024,
                _ => u32::MAX,
            };
            if pages > u64::from(room) {
                return Err(format!(
                    "op {}: {} bytes is more than the {room} pages it may use",
                    o.kind.name(),
                    o.bytes
                ));
            }
            if o.caller == Caller::BsdSuite && !matches!(o.kind, OpKind::Fork | OpKind::Exec) {
                return Err(format!("op {}: caller \"bsd-suite\" is for fork and exec only", o.kind.name()));
            }
            if matches!(o.kind, OpKind::Pageout) && self.shared_pages == 0 && o.per_transaction > 0.0 {
                return Err("op pageout needs shared_pages".into());
            }
        }
        Ok(())
    }
}
