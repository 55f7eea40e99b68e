//! `.vmt`, vmlab's binary trace format: a versioned header with JSON
//! metadata, then independent zstd-compressed blocks of delta-encoded
//! records, then an end block carrying the total so truncation is caught.
//! The layout is in `format.rs` and, byte by byte, in the crate README.

pub mod blocks;
pub mod format;
pub mod packed;
mod reader;
mod writer;

pub use format::VmtHeader;
pub use packed::{FetchSkip, PackedBlock};
pub use reader::VmtReader;
pub use writer::{Encoding, VmtOptions, VmtWriter};

/// Building blocks for tests and fuzzers that need well-formed framing (valid
/// checksums) around arbitrary payloads, to reach the record decoder.
#[doc(hidden)]
pub mod testing {
    use super::format::VmtHeader;
    use crate::Event;

    /// The file header for `header`.
    pub fn file_header(header: &VmtHeader) -> Vec<u8> {
        super::writer::file_header_bytes(header, super::Encoding::Delta).unwrap_or_default()
    }

    /// The file header for `header`, declaring the basic-block encoding.
    pub fn file_header_blocks(header: &VmtHeader) -> Vec<u8> {
        super::writer::file_header_bytes(header, super::Encoding::BasicBlocks).unwrap_or_default()
    }

    /// A block with a correct checksum around any decoded payload.
    pub fn block(count: u32, raw: &[u8]) -> Vec<u8> {
        block_fields(count, raw.len() as u32, &compress(raw))
    }

    /// zstd as the writer applies it (its compressor at the default level).
    pub fn compress(raw: &[u8]) -> Vec<u8> {
        super::writer::compressor(super::VmtOptions::default().zstd_level)
            .and_then(|mut z| z.compress(raw))
            .unwrap_or_default()
    }

    /// A block with a correct checksum whatever its fields say.
    pub fn block_fields(count: u32, raw_len: u32, comp: &[u8]) -> Vec<u8> {
        let mut out = super::writer::block_header_bytes(count, raw_len, comp).to_vec();
        out.extend_from_slice(comp);
        out
    }

    /// The end block.
    pub fn end(total: u64, blocks: u64) -> Vec<u8> {
        super::writer::end_bytes(total, blocks).to_vec()
    }

    /// The encoded (uncompressed) payload of one block holding `events`.
    pub fn encode(events: &[Event]) -> Vec<u8> {
        let mut enc = super::writer::Encoder::default();
        events.iter().for_each(|e| enc.encode(e));
        let mut raw = Vec::new();
        enc.payload(&mut raw);
        raw
    }

    /// The payload of one basic-block block holding `events`, from a
    /// fresh table (as a file's first block).
    pub fn encode_blocks(events: &[Event]) -> Vec<u8> {
        let mut enc = super::blocks::BlockEncoder::default();
        events.iter().for_each(|e| enc.encode(e));
        let mut raw = Vec::new();
        enc.finish_block(&mut raw);
        raw
    }

    /// Decodes one basic-block payload, as a file's first block, the way
    /// the reader's `fill_packed` does under `skip`.
    pub fn decode_blocks(
        raw: &[u8],
        count: usize,
        skip: Option<super::FetchSkip>,
    ) -> Result<super::PackedBlock, String> {
        let mut padded = raw.to_vec();
        padded.resize(raw.len() + super::blocks::PAD, 0);
        let mut out = super::PackedBlock::new();
        out.fetch_skip = skip;
        let mut table = super::blocks::ShapeTable::default();
        super::blocks::decode(&mut table, &padded, raw.len(), count, &mut out)
            .map(|()| out)
            .map_err(|e| format!("entry {} (payload byte {}): {}", e.record, e.pos, e.msg))
    }

    /// Decodes one payload the way the reader's `fill_packed` does.
    pub fn decode_packed(raw: &[u8], count: usize) -> Result<super::PackedBlock, String> {
        let mut padded = raw.to_vec();
        padded.resize(raw.len() + super::reader::PACKED_PAD, 0);
        let mut out = super::PackedBlock::default();
        super::reader::decode_block_packed(&padded, raw.len(), count, &mut out)
            .map(|()| out)
            .map_err(|e| format!("record {} (payload byte {}): {}", e.record, e.pos, e.msg))
    }

    /// Decodes one payload the way the reader does.
    pub fn decode(raw: &[u8], count: usize) -> Result<Vec<Event>, String> {
        let mut padded = raw.to_vec();
        padded.resize(raw.len() + super::format::PAD, 0);
        let mut out = Vec::new();
        super::reader::decode_block(&padded, raw.len(), count, &mut out)
            .map(|()| out)
            .map_err(|e| format!("record {} (payload byte {}): {}", e.record, e.pos, e.msg))
    }
}
