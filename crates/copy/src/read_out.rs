//! The kernel's copy-out of `read()` injected into a real program's trace
//! (S4 beyond the paper (2), seed 004 section 5: choose the kernel buffer's
//! cache colour against the user buffer's).
//!
//! The program's own data references run on CPU 0 of a one-CPU `System`
//! of the machine preset (`OnCpu::load`/`store`, under `Mechanism::User`);
//! at each `read`/`pread64` marker that returned `n > 0` bytes into the
//! user buffer `buf`, the kernel's copy runs there, on the same caches,
//! between the references before the call and those after it: the
//! `memcpy` routine's stream from the kernel buffer to `buf`, timed by
//! [`crate::timing::execute`] as every S4 copy is (`Mechanism::CopyLoop`).
//!
//! Model, stated once:
//! * **The kernel buffer** is page-aligned kernel memory in its own space
//!   ([`KERNEL_SPACE`], space id 0 as PA-RISC's kernel) holding the file's
//!   bytes, fresh from the device: before each copy-out its lines are
//!   purged from the top data cache (`OnCpu::flush_line`, `Flush::Discard`;
//!   the purge a PA-RISC kernel does around DMA into a non-coherent cache),
//!   so the copy fetches the source from memory and finds whatever the
//!   program left in those frames. Its placement is the policy's
//!   ([`KernelBuffer`]); a policy decides the buffer's cache colour only,
//!   never how many bytes move.
//! * **The copy**: `memcpy` over the whole words (its aligned path when
//!   `buf` is word-aligned, its `vshd`/`stbys` path otherwise), the last
//!   0-3 bytes by the byte loop; reads of fewer than 8 bytes by the byte
//!   loop alone.
//! * **The program**: one process (a second address space in the trace is
//!   refused, by event); instruction fetches are skipped (x86 code has no
//!   PA-RISC meaning, and the 720/755 fetch through their own I-cache); a
//!   reference crossing a line is one request per line piece; a modify is
//!   one store (as the OS replay counts it). Its pages are mapped on first
//!   touch by the machine's page mapper.
//! * **Misses** are counted at the top data cache. Conflict misses are the
//!   cache's own classification (`classify_misses`: a miss a fully
//!   associative LRU cache of the same size would have hit), for the
//!   program's references and the copy's separately. `none` (no copy-out)
//!   is the program alone, the baseline of "misses added".

use serde::Serialize;
use vmlab_addr::{Asid, CpuId, PhysAddr, VirtAddr};
use vmlab_cache::{CacheStats, Flush, IndexFn};
use vmlab_machine::{MachineConfig, Mechanism, MissClasses, OnCpu, PageMapper, System};
use vmlab_trace::syscall::Assembler;
use vmlab_trace::{AccessKind, Event, EventSource};

use crate::routine::{self, Instr, Side};
use crate::timing::{self, Breakdown, Counts, CpuTiming, Places};

/// The kernel's space id (PA-RISC's kernel runs in space 0): the OS
/// model's, as the S4 spaces are numbered like the OS model's (users from 1).
pub const KERNEL_SPACE: Asid = vmlab_addr::layout::OS_KERNEL_SPACE;
/// The program's space id (the S4 user space).
pub const PROGRAM_SPACE: Asid = crate::experiment::USER_SPACE;
/// Where the kernel's buffers lie: far above any user address the
/// policies derive from, a multiple of every cache way of the presets.
pub const KERNEL_BASE: u64 = 0x4000_0000_0000;
/// Pages in the round-robin pool (the pool cycles through four ways of a
/// 256 KB cache of 4 KB pages).
pub const POOL_PAGES: u64 = 256;

// Linux x86-64 numbers of the calls whose copy-out is injected.
const SYS_READ: u16 = 0;
const SYS_PREAD64: u16 = 17;
const WORD: u64 = 4;

/// How the kernel places its buffer against the user buffer (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KernelBuffer {
    /// No copy-out: the program's own references only.
    None,
    /// The kernel buffer in the user buffer's cache frames: every line of
    /// the one conflicts with a line of the other.
    SameColour,
    /// Half a cache way away from the user buffer's frames: none shared
    /// for reads of up to half a way.
    AntiColour,
    /// One buffer at one place for every read, whatever the user buffer.
    Fixed,
    /// A pool of pages handed out in turn (a colour-blind page cache): the
    /// buffer's colour follows the pool, not the user buffer.
    RoundRobin,
    /// The kernel maps the buffer at the user buffer's own virtual address
    /// in its own space; only the space-id index hash (Figure 2) separates
    /// the two. Applies only where the top data cache has that hash.
    SpaceHash,
}

impl KernelBuffer {
    pub const ALL: [KernelBuffer; 6] = [
        KernelBuffer::None,
        KernelBuffer::SameColour,
        KernelBuffer::AntiColour,
        KernelBuffer::Fixed,
        KernelBuffer::RoundRobin,
        KernelBuffer::SpaceHash,
    ];

    pub fn name(self) -> &'static str {
        match self {
            KernelBuffer::None => "none",
            KernelBuffer::SameColour => "same-colour",
            KernelBuffer::AntiColour => "anti-colour",
            KernelBuffer::Fixed => "fixed",
            KernelBuffer::RoundRobin => "round-robin",
            KernelBuffer::SpaceHash => "space-hash",
        }
    }

    /// The policy called `name`.
    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|p| p.name()).collect();
            format!("no kernel buffer policy `{name}`; expected one of {}", names.join(", "))
        })
    }
}

/// The top data cache's geometry as the policies see it.
#[derive(Clone, Copy, Debug)]
struct Colours {
    way: u64,
    line: u64,
    page: u64,
    /// `(bits, at)` of the space-id hash, if the top data cache has it.
    hash: Option<(u32, u32)>,
}

impl Colours {
    fn of(m: &MachineConfig) -> Result<Self, String> {
        let c = m.l1d.as_ref().or(m.l1.as_ref()).ok_or_else(|| format!("{}: no top data cache", m.name))?;
        let ways = match c.assoc {
            vmlab_cache::Assoc::Ways(w) => u64::from(w.max(1)),
            vmlab_cache::Assoc::Full => 1,
        };
        let hash = (c.index == IndexFn::SpaceHash).then_some((c.space_hash_bits, c.space_hash_at));
        Ok(Self { way: c.size.0 / ways, line: c.line.0, page: m.memory.page_size.bytes(), hash })
    }

    /// The byte offset within a cache way where `va` of `space` is indexed.
    fn index(&self, space: Asid, va: u64) -> u64 {
        let hashed = match self.hash {
            Some((bits, at)) => va ^ ((u64::from(space.0) & ((1u64 << bits) - 1)) << at),
            None => va,
        };
        hashed % self.way
    }
}

/// Picks each read's kernel buffer.
#[derive(Debug)]
struct Placer {
    policy: KernelBuffer,
    colours: Colours,
    /// The round-robin pool's next page.
    next_page: u64,
}

impl Placer {
    /// The kernel buffer (space, line-aligned address) for `n` bytes read
    /// into `user`.
    fn place(&mut self, user: u64, n: u64) -> (Asid, u64) {
        let c = self.colours;
        let user_index = c.index(PROGRAM_SPACE, user);
        let user_line = user_index - user_index % c.line;
        match self.policy {
            KernelBuffer::None | KernelBuffer::Fixed => (KERNEL_SPACE, KERNEL_BASE),
            KernelBuffer::SameColour => (KERNEL_SPACE, KERNEL_BASE + user_line),
            KernelBuffer::AntiColour => (KERNEL_SPACE, KERNEL_BASE + (user_line + c.way / 2) % c.way),
            KernelBuffer::RoundRobin => {
                let at = KERNEL_BASE + (self.next_page % POOL_PAGES) * c.page;
                self.next_page += n.div_ceil(c.page);
                (KERNEL_SPACE, at)
            }
            KernelBuffer::SpaceHash => (KERNEL_SPACE, user - user % c.line),
        }
    }
}

/// The program's and the kernel's translations for a copy-out.
struct Spaces<'m> {
    mapper: &'m mut PageMapper,
    kernel: Asid,
    failed: &'m mut Option<String>,
}

impl Places for Spaces<'_> {
    fn space(&self, side: Side) -> Asid {
        match side {
            Side::Src => self.kernel,
            Side::Dst => PROGRAM_SPACE,
        }
    }

    fn translate(&mut self, space: Asid, va: VirtAddr) -> PhysAddr {
        translate(self.mapper, self.failed, space, va)
    }
}

/// The frame of `va`; the first failure is kept (the run returns it).
fn translate(mapper: &mut PageMapper, failed: &mut Option<String>, space: Asid, va: VirtAddr) -> PhysAddr {
    mapper.translate(space, va).unwrap_or_else(|e| {
        failed.get_or_insert_with(|| e.to_string());
        PhysAddr(0)
    })
}

/// Top-data-cache misses and conflict misses (reads and writes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Misses {
    pub references: u64,
    pub misses: u64,
    pub conflict: u64,
}

impl Misses {
    fn of(s: &CacheStats) -> Self {
        Self {
            references: s.read.accesses + s.write.accesses,
            misses: s.read.misses + s.write.misses,
            conflict: s.read.conflict + s.write.conflict,
        }
    }

    fn minus(self, o: Self) -> Self {
        Self {
            references: self.references - o.references,
            misses: self.misses - o.misses,
            conflict: self.conflict - o.conflict,
        }
    }

    fn add(&mut self, o: Self) {
        self.references += o.references;
        self.misses += o.misses;
        self.conflict += o.conflict;
    }
}

/// One program under one policy.
#[derive(Clone, Debug, Serialize)]
pub struct ReadOutcome {
    pub machine: String,
    pub policy: KernelBuffer,
    pub events: u64,
    /// `read`/`pread64` calls that returned bytes (each one copy-out), and
    /// those bytes.
    pub reads: u64,
    pub bytes_read: u64,
    /// Reads that returned nothing or failed (no copy).
    pub reads_empty: u64,
    pub ifetches_skipped: u64,
    /// The program's own references at the top data cache.
    pub program: Misses,
    /// The copy-outs' references there.
    pub copy: Misses,
    /// The copy-outs' counts and cycles, summed.
    pub copy_counts: Counts,
    pub copy_cycles: Breakdown,
}

/// The instructions the kernel runs copying `n` bytes from `kernel` to
/// `user` (module doc, "The copy").
fn copy_out(memcpy: &routine::Routine, bytes: &routine::Routine, kernel: u64, user: u64, n: u64) -> Vec<Instr> {
    let words_from_user = if user.is_multiple_of(WORD) { 0 } else { WORD - user % WORD };
    // The unaligned path needs at least its first partial word and one word.
    if n < words_from_user + 2 * WORD {
        return bytes.stream(VirtAddr(kernel), VirtAddr(user), n).unwrap_or_default();
    }
    let (whole, tail) = if user.is_multiple_of(WORD) { (n - n % WORD, n % WORD) } else { (n, 0) };
    // A word-aligned kernel buffer (line-aligned by every policy) and either
    // destination: the routine accepts both (`Routine::stream`).
    let mut out = memcpy.stream(VirtAddr(kernel), VirtAddr(user), whole).unwrap_or_default();
    if tail > 0 {
        out.extend(bytes.stream(VirtAddr(kernel + whole), VirtAddr(user + whole), tail).unwrap_or_default());
    }
    out
}

/// The top data cache's statistics of CPU 0.
fn top_data(sys: &System) -> CacheStats {
    let levels = sys.cpu(CpuId(0)).levels();
    let data = usize::from(levels.caches_in(0) == 2);
    levels.level_cache(0, data).map(|c| *c.stats()).unwrap_or_default()
}

/// One reference of the program, a request per line piece (a line never
/// crosses a page, so each piece has its own translation).
fn reference(
    cpu: &mut OnCpu<'_>,
    pages: (&mut PageMapper, &mut Option<String>),
    va: u64,
    size: u64,
    store: bool,
    line: u64,
) {
    let (mapper, failed) = pages;
    let mut at = va;
    let end = va.saturating_add(size.max(1));
    while at < end {
        let piece = (line - at % line).min(end - at);
        let p = translate(mapper, failed, PROGRAM_SPACE, VirtAddr(at));
        if store {
            cpu.store(VirtAddr(at), p, PROGRAM_SPACE, piece);
        } else {
            cpu.load(VirtAddr(at), p, PROGRAM_SPACE, piece);
        }
        at += piece;
    }
}

/// Runs `src` on `timing`'s machine (with `overrides`) with the kernel's
/// copy-out of every read placed by `policy`. Errors name the event.
pub fn run_trace(
    timing: &CpuTiming,
    overrides: &[String],
    src: &mut dyn EventSource,
    policy: KernelBuffer,
) -> Result<ReadOutcome, String> {
    let mut m = crate::experiment::machine(timing, overrides)?;
    m.stats.classify_misses = true;
    let colours = Colours::of(&m)?;
    if policy == KernelBuffer::SpaceHash && colours.hash.is_none() {
        return Err(format!("{}: policy space-hash needs a top data cache with the space-id index hash", m.name));
    }
    let levels = m.levels()?;
    let mut sys = System::new(1, &levels, &[], MissClasses::ThreeC).map_err(|e| e.to_string())?;
    let page = m.memory.page_size;
    let mut mapper =
        PageMapper::new(page, m.memory.size.0 / page.bytes(), m.memory.allocation, m.colours(), m.memory.seed);
    let memcpy = routine::routine("memcpy")?;
    let bytes = routine::routine("byte-loop")?;
    let mut placer = Placer { policy, colours, next_page: 0 };
    let mut out = ReadOutcome {
        machine: m.name.clone(),
        policy,
        events: 0,
        reads: 0,
        bytes_read: 0,
        reads_empty: 0,
        ifetches_skipped: 0,
        program: Misses::default(),
        copy: Misses::default(),
        copy_counts: Counts::default(),
        copy_cycles: Breakdown::default(),
    };
    let mut failed = None;
    let mut process = None;
    let mut calls = Assembler::new();
    let mut buf = Vec::new();
    let line = colours.line;
    while src.fill(&mut buf).map_err(|e| format!("trace: {e}"))? {
        for ev in &buf {
            let at = out.events;
            out.events += 1;
            let call = calls.push(ev).map_err(|e| format!("trace {e}"))?;
            let asid = match ev {
                Event::Access(a) => Some(a.asid),
                Event::Syscall(h) => Some(h.asid),
                Event::ContextSwitch(a) => Some(*a),
                _ => None,
            };
            if let Some(a) = asid {
                if *process.get_or_insert(a) != a {
                    return Err(format!(
                        "trace event {at}: a second process (asid {}); the read injection replays one process",
                        a.0
                    ));
                }
            }
            match ev {
                Event::Access(a) if a.kind == AccessKind::Ifetch => out.ifetches_skipped += 1,
                Event::Access(a) => {
                    let store = matches!(a.kind, AccessKind::Store | AccessKind::Modify);
                    let mut cpu = sys.on(CpuId(0));
                    let prev = cpu.ledger().enter(Mechanism::User);
                    reference(&mut cpu, (&mut mapper, &mut failed), a.addr.0, u64::from(a.size), store, line);
                    cpu.ledger().leave(prev);
                }
                _ => {}
            }
            let Some(call) = call else { continue };
            if call.number != SYS_READ && call.number != SYS_PREAD64 {
                continue;
            }
            if call.args.len() < 3 {
                return Err(format!(
                    "trace event {at}: {} with {} arguments; expected fd, buffer and count",
                    call.name(),
                    call.args.len()
                ));
            }
            if call.ret <= 0 {
                out.reads_empty += 1;
                continue;
            }
            let n = call.ret as u64;
            if n > call.arg(2) {
                return Err(format!(
                    "trace event {at}: {} returned {n} bytes, more than the {} asked for",
                    call.name(),
                    call.arg(2)
                ));
            }
            out.reads += 1;
            out.bytes_read += n;
            if policy == KernelBuffer::None {
                continue;
            }
            let user = call.arg(1);
            let (kernel, kva) = placer.place(user, n);
            let before = top_data(&sys);
            let mut cpu = sys.on(CpuId(0));
            // The device wrote the file's bytes to memory: no cache holds them.
            let mut l = kva;
            while l < kva + n {
                let pa = translate(&mut mapper, &mut failed, kernel, VirtAddr(l));
                cpu.flush_line(VirtAddr(l), pa, kernel, Flush::Discard);
                l += line;
            }
            let stream = copy_out(&memcpy, &bytes, kva, user, n);
            let mut places = Spaces { mapper: &mut mapper, kernel, failed: &mut failed };
            let (c, b) = timing::execute(&mut cpu, timing, &stream, &mut places);
            out.copy_counts += c;
            out.copy_cycles += b;
            out.copy.add(Misses::of(&top_data(&sys)).minus(Misses::of(&before)));
        }
    }
    calls.finish().map_err(|e| format!("trace {e}"))?;
    if let Some(e) = failed {
        return Err(format!("{}: the program's or the kernel's pages cannot be mapped: {e}", m.name));
    }
    let total = Misses::of(&top_data(&sys));
    out.program = total.minus(out.copy);
    Ok(out)
}
