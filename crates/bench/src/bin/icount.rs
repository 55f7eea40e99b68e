//! A fixed amount of work on the first N events of a trace, for counting
//! instructions with callgrind (deterministic on a shared, noisy machine).
//! Only the function `measured_region` is meant to be counted:
//!
//!     valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_region*' \
//!         icount MODE TRACE.vmt N [MACHINE]
//!
//! MODE is `decode` (the `.vmt` reader alone, packed blocks as the engine
//! reads them; with MACHINE, dropping the fetches that machine allows), `decode-events` (the reader producing `Event`s), `sim` (the machine fed events
//! already in memory) or `run` (reader and machine on this one thread, block
//! by block: all the work of a run on one core). Both machine modes let the
//! source drop the instruction fetches the machine allows
//! (`Machine::fetch_skip`): `run` sets the leave on its buffer and the
//! reader drops what it will; `sim` packs its blocks beforehand with
//! `PackedBlock::pack`, which drops every fetch the leave allows (with
//! `ICOUNT_SIM_READER` set, the reader fills them under the leave instead,
//! dropping what it will). With `ICOUNT_NO_SKIP` set neither drops anything. Event counts include the
//! dropped fetches. The file is read into memory
//! first so no disk read is counted. Instructions per reference = callgrind's
//! total / N. Without valgrind it prints the wall-clock rate too. With
//! `ICOUNT_RESULT` set it also prints every counter of the machine's result
//! (to diff two builds on a real trace).
use std::hint::black_box;
use std::time::Instant;
use vmlab_machine::Machine;
use vmlab_trace::{EventSource, PackedBlock, VmtReader};

fn usage() -> ! {
    eprintln!("usage: icount decode|decode-events|sim|run TRACE.vmt N [MACHINE]");
    std::process::exit(2)
}

#[inline(never)]
fn measured_region(mode: &str, bytes: &[u8], n: usize, blocks: &[PackedBlock], machine: Option<&mut Machine>) -> u64 {
    if mode == "sim" {
        let m = machine.expect("sim needs a machine");
        let mut done = 0;
        for b in blocks {
            m.feed_packed(b, "trace", done).expect("runs");
            done += b.events();
        }
        return done;
    }
    let mut r = VmtReader::new(bytes, "trace").expect("vmt");
    if mode == "decode" {
        // Under MACHINE's leave, if one is named: the words that machine reads.
        let mut buf = PackedBlock::with_fetch_skip(machine.and_then(|m| skip(m)));
        let mut done = 0usize;
        while done < n && r.fill_packed(&mut buf).expect("decodes") {
            black_box(buf.words());
            done += buf.events() as usize;
        }
        return done as u64;
    }
    let mut done = 0usize;
    if let Some(m) = machine {
        // As Machine::run does, without its decoder thread.
        let mut buf = PackedBlock::new();
        buf.fetch_skip = skip(m);
        while done < n && r.fill_packed(&mut buf).expect("decodes") {
            m.feed_packed(&buf, "trace", done as u64).expect("runs");
            done += buf.events() as usize;
        }
        return done as u64;
    }
    let mut buf = Vec::with_capacity(vmlab_trace::BLOCK);
    while done < n && r.fill(&mut buf).expect("decodes") {
        black_box(&buf);
        done += buf.len();
    }
    done as u64
}

/// The fetches a source may drop for `m`: what it allows, unless
/// `ICOUNT_NO_SKIP` is set (to compare with feeding every fetch).
fn skip(m: &Machine) -> Option<vmlab_trace::FetchSkip> {
    if std::env::var_os("ICOUNT_NO_SKIP").is_some() {
        None
    } else {
        m.fetch_skip()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(trace), Some(n)) =
        (args.get(1), args.get(2), args.get(3).and_then(|s| s.parse::<usize>().ok()))
    else {
        usage()
    };
    let bytes = std::fs::read(trace).unwrap_or_else(|e| {
        eprintln!("{trace}: {e}");
        std::process::exit(2)
    });
    let mut machine = match (mode.as_str(), args.get(4)) {
        ("decode-events", _) | ("decode", None) => None,
        ("decode" | "sim" | "run", Some(p)) => Some(Machine::from_preset(p, &[]).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        })),
        _ => usage(),
    };
    // `sim` feeds whole blocks decoded and packed beforehand (memory: at
    // most 8 bytes an event), with every fetch the machine allows dropped.
    let mut blocks = Vec::new();
    if let (Some(m), "sim") = (machine.as_ref(), mode.as_str()) {
        let mut r = VmtReader::new(&bytes[..], trace.as_str()).expect("vmt");
        let mut got = 0;
        let mut events = Vec::with_capacity(vmlab_trace::BLOCK);
        let mut buf = PackedBlock::new();
        buf.fetch_skip = skip(m);
        let reader = std::env::var_os("ICOUNT_SIM_READER").is_some();
        while got < n {
            if reader {
                if !r.fill_packed(&mut buf).expect("decodes") {
                    break;
                }
                got += buf.events() as usize;
            } else {
                if !r.fill(&mut events).expect("decodes") {
                    break;
                }
                buf.pack(&events);
                got += events.len();
            }
            blocks.push(buf.clone());
        }
        let dropped: u64 = blocks.iter().map(|b| b.skipped).sum();
        eprintln!("sim: {got} events packed into {} words ({dropped} fetches dropped)", got as u64 - dropped);
    }
    let t = Instant::now();
    let done = measured_region(mode, &bytes, n, &blocks, machine.as_mut());
    let dt = t.elapsed().as_secs_f64();
    let misses =
        machine.as_mut().map(|m| m.result("trace").caches.iter().map(|c| c.stats.misses()).collect::<Vec<_>>());
    let inner = machine.as_ref().map_or("-", Machine::inner_loop);
    println!("{mode}: {done} events, {:.1} M refs/s, loop {inner}, misses {misses:?}", done as f64 / dt / 1e6);
    if let Some(m) = machine.as_ref().filter(|m| m.writes_through_in_loop() > 0) {
        // Which path the write-through loop's writes took (stderr: not part of the result).
        eprintln!(
            "{mode}: {} writes through in the loop, {} found below by a search of the set",
            m.writes_through_in_loop(),
            m.writes_below_searched()
        );
    }
    // Every counter, for diffing two builds' results on a real trace.
    if std::env::var_os("ICOUNT_RESULT").is_some() {
        if let Some(m) = machine.as_mut() {
            let r = m.result("trace");
            println!(
                "{:#?}\n{:#?}\n{:#?}",
                r.events,
                r.memory,
                r.caches.iter().map(|c| (&c.name, c.stats)).collect::<Vec<_>>()
            );
        }
    }
}
