//! Decoding a trace on a second thread, a few blocks ahead of whoever
//! simulates it. Every whole-trace run (the replayer, the one-pass sweeps)
//! shares this one loop, so an interrupt, a decode error and the bound on
//! memory (four blocks in flight) behave the same everywhere.

use std::sync::mpsc::sync_channel;

use vmlab_trace::{EventSource, FetchSkip, PackedBlock, TraceError};

use crate::machine::{Progress, RunError};

/// Blocks that circulate between the decoder and the simulator.
const IN_FLIGHT: usize = 4;

/// Decodes `src` into blocks, whose source may drop the fetches
/// `fetch_skip` allows (what the consumer only counts), and hands each to
/// `feed` with the number of events before it; `progress` is called after every
/// block, and an `Err` from it stops the run (how an interrupt reaches the
/// engine). Returns the number of events fed.
pub fn decode_ahead(
    src: &mut dyn EventSource,
    fetch_skip: Option<FetchSkip>,
    progress: &mut dyn FnMut(Progress) -> Result<(), String>,
    mut feed: impl FnMut(&PackedBlock, u64) -> Result<(), RunError>,
) -> Result<u64, RunError> {
    type Block = (PackedBlock, u64, Option<u64>);
    let (full_tx, full_rx) = sync_channel::<Result<Block, TraceError>>(IN_FLIGHT - 1);
    let (empty_tx, empty_rx) = sync_channel::<PackedBlock>(IN_FLIGHT);
    for _ in 0..IN_FLIGHT {
        let _ = empty_tx.send(PackedBlock::with_fetch_skip(fetch_skip));
    }
    std::thread::scope(|s| {
        // Owned by the scope's closure, so an early return drops them and
        // the decoder thread, blocked on one of them, ends before the join.
        let (full_rx, empty_tx) = (full_rx, empty_tx);
        s.spawn(move || {
            while let Ok(mut buf) = empty_rx.recv() {
                match src.fill_packed(&mut buf) {
                    Ok(true) => {
                        let (read, total) = src.progress();
                        if full_tx.send(Ok((buf, read, total))).is_err() {
                            return;
                        }
                    }
                    Ok(false) => return,
                    Err(e) => {
                        let _ = full_tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        let mut n = 0u64;
        // Dropping `full_rx` (by returning) stops the decoder at its next send.
        for block in full_rx.iter() {
            let (buf, bytes_read, bytes_total) = block?;
            feed(&buf, n)?;
            // Events, not words: dropped fetches count.
            n += buf.events();
            progress(Progress { events: n, bytes_read, bytes_total })
                .map_err(|reason| RunError::Interrupted { events: n, reason })?;
            let _ = empty_tx.send(buf);
        }
        Ok(n)
    })
}
