//! The kernel's inner loops, run instruction by instruction on the
//! simulated CPU: the `pdcache`-style flush/purge loop, the copy loop and
//! the zero loop. Their costs come from the cache states they meet.

use crate::cost::{CostModel, Routine};
use crate::cpu::{Cpu, DataRef, Flush, Place, Span};
use vmlab_cache::LineState;
use vmlab_machine::Mechanism;

/// How many lines of each state a flush loop met.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlushFound {
    pub empty: u64,
    pub clean: u64,
    pub dirty: u64,
}

/// Flushes or purges (`how`) `bytes` from `at` the way HP-UX `pdcache()`
/// does: a call, then `flush_lines_per_iteration` line flushes per loop
/// iteration (seed 000 footnote 2).
pub fn flush_range(cpu: &mut Cpu, cost: &CostModel, at: Place, bytes: u64, how: Flush, origin: &str) -> FlushFound {
    let outer = cpu.enter(Mechanism::FlushLoop);
    let line = cpu.line_bytes();
    let lines = bytes.div_ceil(line);
    let per = cost.path_of(Routine::FlushLinesPerIteration).max(1);
    cpu.count(|c| c.flush_calls += 1);
    cpu.instructions(lines.div_ceil(per) * cost.path_of(Routine::FlushLoopIteration));
    let mut found = FlushFound::default();
    for i in 0..lines {
        match cpu.flush_line(at.plus(i * line), how, origin) {
            LineState::Empty => found.empty += 1,
            LineState::Clean => found.clean += 1,
            LineState::Dirty(_) => found.dirty += 1,
        }
    }
    cpu.leave(outer);
    found
}

/// Copies `bytes` (whole words) from `src` to `dst` with a word loop:
/// per line, one load and one store per word and `copy_per_line`
/// instructions.
pub fn copy(cpu: &mut Cpu, cost: &CostModel, src: Span, dst: Span, bytes: u64, origin: &str) {
    let outer = cpu.enter(Mechanism::CopyLoop);
    let line = cpu.line_bytes();
    cpu.count(|c| c.copy_calls += 1);
    cpu.instructions(bytes.div_ceil(line) * cost.path_of(Routine::CopyPerLine));
    let w = crate::oracle::WORD;
    let mut off = 0;
    while off < bytes {
        cpu.reference(DataRef::Load, src.plus(off), w, origin);
        cpu.reference(DataRef::Store, dst.plus(off), w, origin);
        off += w;
    }
    cpu.leave(outer);
}

/// Writes zeros over `bytes` at `dst`, one store per word.
pub fn zero(cpu: &mut Cpu, cost: &CostModel, dst: Span, bytes: u64, origin: &str) {
    let outer = cpu.enter(Mechanism::ZeroLoop);
    let line = cpu.line_bytes();
    cpu.instructions(bytes.div_ceil(line) * cost.path_of(Routine::ZeroPerLine));
    let w = crate::oracle::WORD;
    let mut off = 0;
    while off < bytes {
        cpu.reference(DataRef::Store, dst.plus(off), w, origin);
        off += w;
    }
    cpu.leave(outer);
}
