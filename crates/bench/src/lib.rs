//! Benchmark support: a synthetic trace with program-like locality (for
//! criterion runs that need no capture) and the machine set-ups the
//! performance targets name.

use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::{AccessKind, Event};

/// A loop-heavy program shape: instruction fetches walk basic blocks of a
/// 16 KB text segment with 4-byte instructions and frequent back-branches;
/// about one load per three instructions (stack, a streamed array, a hashed
/// table) and one store per seven. Deterministic in `seed`.
pub fn synthetic(n: usize, seed: u64) -> Vec<Event> {
    let mut x = seed | 1;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = Vec::with_capacity(n);
    let text = 0x40_0000u64;
    let mut pc = text;
    let mut stream = 0x1000_0000u64;
    let mut i = 0u64;
    while out.len() < n {
        out.push(Event::access(AccessKind::Ifetch, VirtAddr(pc), 4, Asid(0)));
        i += 1;
        pc += 4;
        let r = rnd();
        if r % 23 == 0 {
            // Branch back into a loop body, or call somewhere in the text.
            pc = if r % 3 == 0 { (text + rnd() % 16384) & !3 } else { pc.saturating_sub(64 + (r >> 8) % 256) & !3 };
        }
        if i.is_multiple_of(3) {
            let a = match rnd() % 4 {
                0 => 0x7fff_0000 + (rnd() % 256) * 8,
                1 => {
                    stream += 8;
                    stream
                }
                2 => 0x2000_0000 + (rnd() % (1 << 20)) * 8,
                _ => 0x7fff_0000 + (rnd() % 64) * 8,
            };
            out.push(Event::access(AccessKind::Load, VirtAddr(a), 8, Asid(0)));
        }
        if i.is_multiple_of(7) {
            out.push(Event::access(AccessKind::Store, VirtAddr(0x7fff_0000 + (rnd() % 128) * 8), 8, Asid(0)));
        }
    }
    out.truncate(n);
    out
}

/// The `--set` overrides for the second target machine of the performance
/// goals: 32 KB 8-way LRU L1s over a 1 MB 16-way L2, 64-byte lines, PIPT.
pub const BIG_L1_L2: [&str; 0] = [];

pub mod golden;
