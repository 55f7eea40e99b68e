//! Checks the packed decoder against the event decoder on a whole real file:
//! every block's `fill_packed` words and escaped events must equal
//! `PackedBlock::pack` of the same block read with `fill`. Prints the event
//! count and an FNV-1a hash of all words (to compare two builds).
//!
//!     cargo run --release -p vmlab-trace --example packed_check -- TRACE.vmt
use vmlab_trace::{EventSource, PackedBlock, VmtReader};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: packed_check TRACE.vmt")?;
    let bytes = std::fs::read(&path)?;
    let mut events = VmtReader::new(&bytes[..], path.as_str())?;
    let mut packed = VmtReader::new(&bytes[..], path.as_str())?;
    let (mut ev, mut got, mut want) = (Vec::new(), PackedBlock::new(), PackedBlock::new());
    let (mut n, mut blocks, mut hash) = (0u64, 0u64, 0xcbf2_9ce4_8422_2325u64);
    loop {
        let more_e = events.fill(&mut ev)?;
        let more_p = packed.fill_packed(&mut got)?;
        if more_e != more_p {
            return Err(format!("block {blocks}: one decoder ended before the other").into());
        }
        if !more_e {
            break;
        }
        want.pack(&ev);
        if got.words() != want.words() || got.extra != want.extra {
            return Err(format!("block {blocks} (events from {n}): packed decoder differs").into());
        }
        for &w in got.words() {
            hash = (hash ^ w).wrapping_mul(0x100_0000_01b3);
        }
        n += got.words().len() as u64;
        blocks += 1;
    }
    println!("{path}: {n} events in {blocks} blocks, packed == pack(events), words hash {hash:016x}");
    Ok(())
}
