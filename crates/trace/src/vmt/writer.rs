//! Streaming `.vmt` writer: never seeks, holds one block in memory.

use std::io::{self, Write};

use super::blocks::{self, BlockEncoder};
use super::format::{self as f, VmtHeader};
use crate::Event;

/// The record encoding of a file's blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// `vmt-delta-v1` (container version 1): one record per event,
    /// addresses as deltas from the previous one of their stream.
    Delta,
    /// `vmt-bb-v1` (container version 2): basic blocks (`blocks.rs`); about
    /// three times cheaper to decode, and what vmlab writes.
    #[default]
    BasicBlocks,
}

impl Encoding {
    /// The header's `encoding` name and the container version.
    pub fn name_and_version(self) -> (&'static str, u16) {
        match self {
            Encoding::Delta => (f::ENCODING, f::VERSION),
            Encoding::BasicBlocks => (blocks::ENCODING, blocks::VERSION),
        }
    }
}

/// Writer tuning. The defaults are what vmlab writes; small blocks are for tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmtOptions {
    /// Events per block, 1..=[`f::MAX_BLOCK_EVENTS`].
    pub block_events: usize,
    /// zstd level, applied through [`compressor`] (at least 7-byte matches,
    /// raw literals), as decoding speed is what the engine waits on. The
    /// default, 9, finds fewer, longer matches than -1 did, and zstd's
    /// decoding time goes with the number of matches (numbers at
    /// [`compressor`] and in docs/performance.md, session 11).
    pub zstd_level: i32,
    pub encoding: Encoding,
}

impl Default for VmtOptions {
    fn default() -> Self {
        Self { block_events: f::MAX_BLOCK_EVENTS, zstd_level: 9, encoding: Encoding::default() }
    }
}

/// The one way `.vmt` blocks are compressed: zstd at `level`, tuned for
/// files that decode fast: matches of at least 7 bytes (zstd's most),
/// literals left raw rather than Huffman-coded. Each part counts (cc1,
/// decoding alone, M references a second, 3-4 run sweeps): level -1 as
/// before ~855, level 9 alone ~880, with 7-byte matches ~910, with raw
/// literals too ~975 (level 12 the same, 15 and 19 slower, ~800: their
/// optimal parsing takes many short matches). Any zstd decoder reads the
/// result, so every existing file and reader is unaffected.
pub(crate) fn compressor(level: i32) -> io::Result<zstd::bulk::Compressor<'static>> {
    use zstd::zstd_safe::{CParameter, ParamSwitch};
    let mut z = zstd::bulk::Compressor::new(level)?;
    z.set_parameter(CParameter::MinMatch(7))?;
    z.set_parameter(CParameter::LiteralCompressionMode(ParamSwitch::Disable))?;
    Ok(z)
}

/// Record encoder for one block; its prediction state restarts every block so
/// each block decodes on its own.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    pred: [u64; 2],
    asid: u32,
    tags: Vec<u8>,
    data: Vec<u8>,
    pub(crate) count: u32,
}

impl Encoder {
    pub(crate) fn reset(&mut self) {
        self.pred = [0; 2];
        self.asid = 0;
        self.tags.clear();
        self.data.clear();
        self.count = 0;
    }

    /// The block payload: `tags | data`.
    pub(crate) fn payload(&self, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&self.tags);
        out.extend_from_slice(&self.data);
    }

    fn marker(&mut self, desc: u8) {
        self.tags.push(f::OP_ESCAPE << 3);
        self.data.push(desc);
    }

    pub(crate) fn encode(&mut self, e: &Event) {
        self.count += 1;
        let a = match *e {
            Event::Access(a) => a,
            Event::ContextSwitch(asid) => {
                self.marker(f::DESC_CONTEXT_SWITCH);
                put_leb(&mut self.data, asid.0);
                self.asid = asid.0;
                return;
            }
            Event::FlushAll => {
                self.marker(f::DESC_FLUSH_ALL);
                return;
            }
            Event::Syscall(s) => {
                self.marker(f::DESC_SYSCALL);
                put_syscall(&mut self.data, &s);
                return;
            }
            Event::SyscallArg(v) => {
                self.marker(f::DESC_SYSCALL_ARG);
                self.data.extend_from_slice(&v.to_le_bytes());
                return;
            }
        };
        let addr = a.addr.0;
        let stream = usize::from(f::stream_of(a.kind));
        let delta = addr.wrapping_sub(self.pred[stream]);
        let len = f::len_code(delta);
        let new_asid = a.asid.0 != self.asid;
        match f::direct_op(a.kind, a.size) {
            Some(op) if !new_asid => self.tags.push(op << 3 | len),
            _ => {
                let size_code = match a.size {
                    s if s.is_power_of_two() && s <= 64 => s.trailing_zeros() as u8,
                    _ => f::DESC_SIZE_EXPLICIT,
                };
                let asid_bit = if new_asid { f::DESC_ASID } else { 0 };
                self.tags.push(f::OP_ESCAPE << 3 | len);
                self.data.push(a.kind as u8 | size_code << 3 | asid_bit);
                if new_asid {
                    put_leb(&mut self.data, a.asid.0);
                    self.asid = a.asid.0;
                }
                if size_code == f::DESC_SIZE_EXPLICIT {
                    put_leb(&mut self.data, a.size);
                }
            }
        }
        let nbytes = usize::from(f::LEN_BYTES[usize::from(len)]);
        self.data.extend_from_slice(&f::biased(delta, len).to_le_bytes()[..nbytes]);
        self.pred[stream] = addr.wrapping_add(u64::from(a.size));
    }
}

use blocks::put_leb;

/// A system call's head after its kind byte, the same in both encodings.
pub(crate) fn put_syscall(out: &mut Vec<u8>, s: &crate::Syscall) {
    put_leb(out, s.asid.0);
    put_leb(out, u32::from(s.number));
    out.push(s.nargs);
    out.extend_from_slice(&s.ret.to_le_bytes());
}

/// One block's records, in the file's encoding.
#[derive(Debug)]
enum Records {
    Delta(Encoder),
    BasicBlocks(Box<BlockEncoder>),
}

impl Records {
    fn new(encoding: Encoding) -> Self {
        match encoding {
            Encoding::Delta => Records::Delta(Encoder::default()),
            Encoding::BasicBlocks => Records::BasicBlocks(Box::default()),
        }
    }

    fn count(&self) -> u32 {
        match self {
            Records::Delta(e) => e.count,
            Records::BasicBlocks(e) => e.count,
        }
    }

    fn encode(&mut self, e: &Event) {
        match self {
            Records::Delta(enc) => enc.encode(e),
            Records::BasicBlocks(enc) => enc.encode(e),
        }
    }

    /// The block's payload into `out`; the block state starts afresh.
    fn finish_block(&mut self, out: &mut Vec<u8>) {
        match self {
            Records::Delta(e) => {
                e.payload(out);
                e.reset();
            }
            Records::BasicBlocks(e) => e.finish_block(out),
        }
    }
}

pub(crate) fn file_header_bytes(header: &VmtHeader, encoding: Encoding) -> io::Result<Vec<u8>> {
    let (name, version) = encoding.name_and_version();
    let mut h = header.clone();
    h.encoding = name.to_string();
    let json = serde_json::to_vec(&h).map_err(io::Error::other)?;
    if json.len() > f::MAX_JSON_LEN {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("vmt header JSON is {} bytes; at most {} are allowed", json.len(), f::MAX_JSON_LEN),
        ));
    }
    let mut out = Vec::with_capacity(f::FILE_HEADER_LEN + json.len());
    out.extend_from_slice(&f::MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&json).to_le_bytes());
    out.extend_from_slice(&json);
    Ok(out)
}

/// The 20-byte block header for a compressed payload. The CRC covers the
/// three length fields as well as the payload, so a damaged count or length
/// is caught before it is believed.
pub(crate) fn block_header_bytes(count: u32, raw_len: u32, comp: &[u8]) -> [u8; f::BLOCK_HEADER_LEN] {
    let mut h = [0u8; f::BLOCK_HEADER_LEN];
    h[0..4].copy_from_slice(&f::BLOCK_MAGIC);
    h[4..8].copy_from_slice(&count.to_le_bytes());
    h[8..12].copy_from_slice(&raw_len.to_le_bytes());
    h[12..16].copy_from_slice(&(comp.len() as u32).to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&h[4..16]);
    crc.update(comp);
    h[16..20].copy_from_slice(&crc.finalize().to_le_bytes());
    h
}

pub(crate) fn end_bytes(total: u64, blocks: u64) -> [u8; f::END_LEN] {
    let mut e = [0u8; f::END_LEN];
    e[0..4].copy_from_slice(&f::END_MAGIC);
    e[4..12].copy_from_slice(&total.to_le_bytes());
    e[12..20].copy_from_slice(&blocks.to_le_bytes());
    let crc = crc32fast::hash(&e[4..20]);
    e[20..24].copy_from_slice(&crc.to_le_bytes());
    e
}

/// Writes a `.vmt` stream: the header at once, then a block every
/// `block_events` events, then the end block on [`VmtWriter::finish`]. A
/// writer dropped without `finish` leaves a file that readers reject as
/// truncated, which is the point.
pub struct VmtWriter<W: Write> {
    w: W,
    opts: VmtOptions,
    enc: Records,
    raw: Vec<u8>,
    comp: Vec<u8>,
    zstd: zstd::bulk::Compressor<'static>,
    total: u64,
    blocks: u64,
    bytes: u64,
    /// Arguments the last system call announced and not yet written.
    args_due: u8,
}

impl<W: Write> std::fmt::Debug for VmtWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VmtWriter")
            .field("opts", &self.opts)
            .field("events", &self.total)
            .field("blocks", &self.blocks)
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

impl<W: Write> VmtWriter<W> {
    /// Writes the file header to `w` straight away.
    pub fn new(w: W, header: VmtHeader) -> io::Result<Self> {
        Self::with_options(w, header, VmtOptions::default())
    }

    pub fn with_options(mut w: W, header: VmtHeader, opts: VmtOptions) -> io::Result<Self> {
        if !(1..=f::MAX_BLOCK_EVENTS).contains(&opts.block_events) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("block_events must be 1..={}, got {}", f::MAX_BLOCK_EVENTS, opts.block_events),
            ));
        }
        let head = file_header_bytes(&header, opts.encoding)?;
        w.write_all(&head)?;
        Ok(Self {
            w,
            opts,
            enc: Records::new(opts.encoding),
            raw: Vec::new(),
            comp: Vec::new(),
            zstd: compressor(opts.zstd_level)?,
            total: 0,
            blocks: 0,
            bytes: head.len() as u64,
            args_due: 0,
        })
    }

    /// Queues one event; a full block is compressed and written. An access of
    /// size 0 is refused: no reader could give it back. So is a system-call
    /// marker not followed by exactly its arguments (`crate::syscall`).
    pub fn write(&mut self, e: &Event) -> io::Result<()> {
        let invalid = |m: String| Err(io::Error::new(io::ErrorKind::InvalidInput, m));
        let at = self.events_written();
        match *e {
            Event::SyscallArg(_) if self.args_due == 0 => {
                return invalid(format!("event {at}: a system-call argument without its system call before it"));
            }
            Event::SyscallArg(_) => self.args_due -= 1,
            _ if self.args_due != 0 => return invalid(self.short_call(at)),
            Event::Access(a) if a.size == 0 => return invalid(format!("access of size 0 cannot be written: {a:?}")),
            Event::Syscall(s) if usize::from(s.nargs) > crate::syscall::MAX_ARGS => {
                return invalid(format!(
                    "event {at}: system call {} with {} arguments; at most {}",
                    crate::syscall::display_name(s.number),
                    s.nargs,
                    crate::syscall::MAX_ARGS
                ));
            }
            Event::Syscall(s) => self.args_due = s.nargs,
            _ => {}
        }
        self.enc.encode(e);
        if self.enc.count() as usize >= self.opts.block_events {
            self.flush_block()?;
        }
        Ok(())
    }

    pub fn write_all(&mut self, events: &[Event]) -> io::Result<()> {
        events.iter().try_for_each(|e| self.write(e))
    }

    /// Events accepted so far.
    pub fn events_written(&self) -> u64 {
        self.total + u64::from(self.enc.count())
    }

    /// Bytes handed to the underlying writer so far.
    pub fn bytes_written(&self) -> u64 {
        self.bytes
    }

    fn short_call(&self, at: u64) -> String {
        format!("event {at}: a system call's arguments were cut short ({} more were due)", self.args_due)
    }

    fn flush_block(&mut self) -> io::Result<()> {
        let count = self.enc.count();
        if count == 0 {
            return Ok(());
        }
        self.enc.finish_block(&mut self.raw);
        self.comp.clear();
        self.comp.reserve(zstd::zstd_safe::compress_bound(self.raw.len()));
        self.zstd.compress_to_buffer(&self.raw[..], &mut self.comp)?;
        let head = block_header_bytes(count, self.raw.len() as u32, &self.comp);
        self.w.write_all(&head)?;
        self.w.write_all(&self.comp)?;
        self.bytes += (head.len() + self.comp.len()) as u64;
        self.total += u64::from(count);
        self.blocks += 1;
        Ok(())
    }

    /// Writes the last block and the end block, flushes, and returns the
    /// underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        if self.args_due != 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, self.short_call(self.events_written())));
        }
        self.flush_block()?;
        let end = end_bytes(self.total, self.blocks);
        self.w.write_all(&end)?;
        self.bytes += end.len() as u64;
        self.w.flush()?;
        Ok(self.w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literals section type of the first block of one zstd frame
    /// (RFC 8878: 0 raw, 1 RLE, 2 Huffman-coded, 3 Huffman with the last
    /// table), or `None` if that block is not a compressed one.
    fn first_literals_type(frame: &[u8]) -> Option<u8> {
        assert_eq!(frame[..4], [0x28, 0xb5, 0x2f, 0xfd], "zstd magic");
        let fhd = frame[4];
        let single = (fhd >> 5) & 1 == 1;
        let dict = [0, 1, 2, 4][usize::from(fhd & 3)];
        let fcs = [usize::from(single), 2, 4, 8][usize::from(fhd >> 6)];
        let block = 5 + usize::from(!single) + dict + fcs;
        let kind = (frame[block] >> 1) & 3;
        (kind == 2).then(|| frame[block + 3] & 3)
    }

    #[test]
    fn compressor_leaves_literals_raw() -> io::Result<()> {
        // 64-byte pieces of 16 byte values in a random order, each followed
        // by a copy of itself: matches for zstd to take (so that the block
        // is a compressed one) and literals that Huffman would code in about
        // half their bytes.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut data = Vec::new();
        for _ in 0..512 {
            let piece: Vec<u8> = (0..64)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    b'a' + (x >> 60) as u8
                })
                .collect();
            data.extend_from_slice(&piece);
            data.extend_from_slice(&piece);
        }
        let level = VmtOptions::default().zstd_level;
        let plain = zstd::bulk::Compressor::new(level)?.compress(&data)?;
        let fast = compressor(level)?.compress(&data)?;
        assert_eq!(first_literals_type(&plain), Some(2), "plain level {level} codes these literals");
        assert_eq!(first_literals_type(&fast), Some(0), "compressor leaves them raw");
        assert_eq!(zstd::bulk::decompress(&fast, data.len())?, data);
        Ok(())
    }
}
