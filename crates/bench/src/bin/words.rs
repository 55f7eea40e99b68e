//! Writes a trace's events as raw little-endian `u64` words (the packed form:
//! op in the top byte, address in the low 56 bits), every fetch kept, for the
//! plain C baseline loops in `bench/baseline/` to read without a decoder.
//!
//! usage: words TRACE OUT.u64

use std::io::{BufWriter, Write};
use vmlab_trace::PackedBlock;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [trace, out] = args.as_slice() else {
        eprintln!("usage: words TRACE OUT.u64");
        std::process::exit(2);
    };
    if let Err(e) = dump(trace, out) {
        eprintln!("words: error: {e}");
        std::process::exit(2);
    }
}

fn dump(trace: &str, out: &str) -> Result<(), String> {
    let mut src = vmlab_trace::open(std::path::Path::new(trace), None).map_err(|e| e.to_string())?;
    let file = std::fs::File::create(out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut buf = PackedBlock::new();
    while src.fill_packed(&mut buf).map_err(|e| e.to_string())? {
        for word in buf.words() {
            w.write_all(&word.to_le_bytes()).map_err(|e| format!("{out}: {e}"))?;
        }
    }
    w.flush().map_err(|e| format!("{out}: {e}"))
}
