//! Scenario files: OS operations interleaved with user accesses, in TOML.
//!
//! ```toml
//! machine = "mips-r4000"        # a machine preset name or .toml path
//! policy = "pseudo-alias"       # see policy.rs
//! oracle = true                 # default true in scenarios
//!
//! [[object]]
//! name = "shm"
//! kind = "anonymous"            # or "file"
//! pages = 1
//!
//! [[op]]
//! op = "map"                    # map | unmap | protect | fork | read | write
//! space = 1
//! object = "shm"
//! addr = 0x10000
//! len = 0x1000                  # default: one page
//! offset = 0                    # default 0
//! prot = "rw"
//! private = false               # default false
//! ```
//!
//! `unmap {space, addr, len}`, `protect {space, addr, len, prot}`,
//! `fork {space, child}`, `read`/`write {space, addr, size = 4}`.
//! Every error names the file and the line of the offending entry.

use serde::{Deserialize, Serialize};
use vmlab_addr::{Asid, VirtAddr};

use crate::cost::{CostModel, Counters};
use crate::cpu::DataRef;
use crate::oracle::{Consistency, Violation};
use crate::policy::Policy;
use crate::prot::Prot;
use crate::vm::{FaultCounts, ObjectKind, Os, Region};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    machine: String,
    #[serde(default = "default_policy")]
    policy: String,
    #[serde(default = "default_true")]
    oracle: bool,
    #[serde(default)]
    cost: Option<String>,
    #[serde(default)]
    object: Vec<toml::Spanned<toml::Table>>,
    #[serde(default)]
    op: Vec<toml::Spanned<toml::Table>>,
}

fn default_policy() -> String {
    "pseudo-alias".into()
}
fn default_true() -> bool {
    true
}

/// What a scenario run produced.
#[derive(Debug, Serialize)]
pub struct Outcome {
    pub machine: String,
    pub policy: String,
    pub ops: usize,
    pub counters: Counters,
    pub faults: FaultCounts,
    pub violations: Vec<Violation>,
    pub oracle_checks: u64,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

struct Entry<'a> {
    origin: &'a str,
    line: usize,
    t: &'a toml::Table,
}

impl Entry<'_> {
    fn err(&self, msg: impl std::fmt::Display) -> String {
        format!("{}:{}: {msg}", self.origin, self.line)
    }
    fn int(&self, key: &str) -> Result<u64, String> {
        match self.t.get(key) {
            Some(toml::Value::Integer(i)) if *i >= 0 => Ok(*i as u64),
            Some(v) => Err(self.err(format!("{key} must be a non-negative integer, got {v}"))),
            None => Err(self.err(format!("missing {key}"))),
        }
    }
    fn int_or(&self, key: &str, d: u64) -> Result<u64, String> {
        if self.t.contains_key(key) {
            self.int(key)
        } else {
            Ok(d)
        }
    }
    fn str(&self, key: &str) -> Result<&str, String> {
        match self.t.get(key) {
            Some(toml::Value::String(s)) => Ok(s),
            Some(v) => Err(self.err(format!("{key} must be a string, got {v}"))),
            None => Err(self.err(format!("missing {key}"))),
        }
    }
    fn space(&self, key: &str) -> Result<Asid, String> {
        let v = self.int(key)?;
        u32::try_from(v).map(Asid).map_err(|_| self.err(format!("{key} {v} does not fit 32 bits")))
    }
    fn allow(&self, keys: &[&str]) -> Result<(), String> {
        for k in self.t.keys() {
            if !keys.contains(&k.as_str()) {
                return Err(self.err(format!("unknown key {k:?}; expected one of: {}", keys.join(", "))));
            }
        }
        Ok(())
    }
}

/// Runs scenario text; `origin` names it in errors.
pub fn run_text(origin: &str, text: &str) -> Result<Outcome, String> {
    let f: File = toml::from_str(text).map_err(|e| match e.span() {
        Some(s) => format!("{origin}:{}: {}", line_of(text, s.start), e.message()),
        None => format!("{origin}: {}", e.message()),
    })?;
    let policy = Policy::parse(&f.policy).map_err(|e| format!("{origin}: {e}"))?;
    let machine = vmlab_machine::preset::load(&f.machine, &[]).map_err(|e| format!("{origin}: machine: {e}"))?;
    let cost =
        CostModel::load(f.cost.as_deref().unwrap_or("hp9000-834")).map_err(|e| format!("{origin}: cost: {e}"))?;
    let mut os = Os::new(&machine, cost, policy, Consistency::when(f.oracle)).map_err(|e| format!("{origin}: {e}"))?;
    let page = os.page_bytes();
    for o in &f.object {
        let e = Entry { origin, line: line_of(text, o.span().start), t: o.get_ref() };
        e.allow(&["name", "kind", "pages"])?;
        let kind = match e.str("kind")? {
            "anonymous" => ObjectKind::Anonymous,
            "file" => ObjectKind::File,
            k => return Err(e.err(format!("unknown object kind {k:?}; expected \"anonymous\" or \"file\""))),
        };
        os.object(e.str("name")?, kind, e.int("pages")?).map_err(|x| e.err(x))?;
    }
    for op in &f.op {
        let e = Entry { origin, line: line_of(text, op.span().start), t: op.get_ref() };
        let name = e.str("op")?;
        let here = format!("{origin}:{}", e.line);
        let r = match name {
            "map" => {
                e.allow(&["op", "space", "object", "addr", "len", "offset", "prot", "private"])?;
                let obj = e.str("object")?;
                let id = os.object_id(obj).ok_or_else(|| e.err(format!("unknown object {obj:?}")))?;
                let prot = Prot::parse(e.str("prot")?).map_err(|x| e.err(x))?;
                let private = match e.t.get("private") {
                    None => false,
                    Some(toml::Value::Boolean(b)) => *b,
                    Some(v) => return Err(e.err(format!("private must be true or false, got {v}"))),
                };
                let region = Region {
                    start: VirtAddr(e.int("addr")?),
                    len: e.int_or("len", page)?,
                    object: id,
                    offset: e.int_or("offset", 0)?,
                    prot,
                    private,
                };
                os.map(e.space("space")?, region)
            }
            "unmap" => {
                e.allow(&["op", "space", "addr", "len"])?;
                os.unmap(e.space("space")?, VirtAddr(e.int("addr")?), e.int_or("len", page)?)
            }
            "protect" => {
                e.allow(&["op", "space", "addr", "len", "prot"])?;
                let prot = Prot::parse(e.str("prot")?).map_err(|x| e.err(x))?;
                os.protect(e.space("space")?, VirtAddr(e.int("addr")?), e.int_or("len", page)?, prot)
            }
            "fork" => {
                e.allow(&["op", "space", "child"])?;
                os.fork(e.space("space")?, e.space("child")?)
            }
            "read" | "write" => {
                e.allow(&["op", "space", "addr", "size"])?;
                let op = if name == "write" { DataRef::Store } else { DataRef::Load };
                os.access(e.space("space")?, VirtAddr(e.int("addr")?), op, e.int_or("size", 4)?, &here)
            }
            other => {
                return Err(e.err(format!(
                    "unknown operation {other:?}; expected one of: map, unmap, protect, fork, read, write"
                )))
            }
        };
        r.map_err(|x| e.err(format!("{name}: {x}")))?;
    }
    Ok(Outcome {
        machine: machine.name.clone(),
        policy: policy.name().into(),
        ops: f.op.len(),
        counters: os.counters(),
        faults: os.faults(),
        violations: os.violations().to_vec(),
        oracle_checks: os.cpu().oracle_checks(),
    })
}

/// Runs a scenario file.
pub fn run_file(path: &str) -> Result<Outcome, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    run_text(path, &text)
}
