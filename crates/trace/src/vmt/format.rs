//! The `.vmt` layout: constants, the JSON header, and the record tag table
//! shared by the encoder and the decoder. README.md has the same layout as a
//! byte-by-byte table; keep the two in step.

use serde::{Deserialize, Serialize};

use crate::AccessKind;

/// File magic. PNG-style: the high byte catches 7-bit transfers, `\r\n` and
/// `\n` catch newline translation, `\x1a` stops `type` on DOS.
pub const MAGIC: [u8; 8] = *b"\x89VMT\r\n\x1a\n";
/// The one container version this build reads and writes.
pub const VERSION: u16 = 1;
/// Name of the record encoding, stored in the JSON header.
pub const ENCODING: &str = "vmt-delta-v1";

/// magic(8) version(2) flags(2) json_len(4) json_crc(4).
pub const FILE_HEADER_LEN: usize = 20;
/// A JSON header larger than this is corruption, not metadata.
pub const MAX_JSON_LEN: usize = 1 << 20;

pub const BLOCK_MAGIC: [u8; 4] = *b"VMTB";
pub const END_MAGIC: [u8; 4] = *b"VMTE";
/// magic(4) count(4) raw_len(4) comp_len(4) crc(4).
pub const BLOCK_HEADER_LEN: usize = 20;
/// magic(4) total_events(8) blocks(8) crc(4).
pub const END_LEN: usize = 24;

/// Events per block at most: one block decodes straight into one
/// [`crate::BLOCK`]-sized fill, so the reader never splits a block.
pub const MAX_BLOCK_EVENTS: usize = crate::BLOCK;
/// Largest decoded payload accepted; the worst case a writer can produce for
/// [`MAX_BLOCK_EVENTS`] events is 22 bytes each (about 1.4 MiB).
pub const MAX_RAW_LEN: usize = 4 << 20;
/// Zero bytes kept after a decoded payload so the decoder can always load 8
/// delta bytes at once without a bounds branch per length.
pub const PAD: usize = 8;

/// Largest compressed payload accepted.
pub fn max_comp_len() -> usize {
    zstd::zstd_safe::compress_bound(MAX_RAW_LEN)
}

/// The JSON header: self-description and free-form provenance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VmtHeader {
    /// Record encoding of the blocks; the writer always sets [`ENCODING`].
    pub encoding: String,
    /// Tool and version that wrote the file.
    pub created_by: String,
    /// The traced program's command line, when the trace was captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Anything else worth keeping with the trace (source file, tool versions…).
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

impl VmtHeader {
    pub fn new(created_by: impl Into<String>) -> Self {
        Self { encoding: ENCODING.to_string(), created_by: created_by.into(), command: None, metadata: Default::default() }
    }
}

impl Default for VmtHeader {
    fn default() -> Self {
        Self::new(concat!("vmlab-trace ", env!("CARGO_PKG_VERSION")))
    }
}

// ---- records ---------------------------------------------------------------
//
// A record starts with a tag byte: `op << 3 | len`. `len` (3 bits) is the
// number of address-delta bytes that follow: LEN_BYTES[len]. `op` (5 bits)
// names the access kind, its size and its prediction stream directly for the
// common cases, or is ESCAPE, in which case a descriptor byte follows the tag.
//
// Addresses are predicted per stream: stream 0 for instruction fetches,
// streams 1 and 2 for data (the encoder picks whichever predicts closer, which
// in practice separates the stack from the heap). The prediction is the
// stream's previous address plus that access's size, so straight-line code
// and sequential data cost no delta bytes at all. The delta is zigzag encoded
// and stored little-endian in LEN_BYTES[len] bytes.

/// Delta bytes for each 3-bit length code; 7 bytes is never needed on its own
/// (code 7 means all 8).
pub const LEN_BYTES: [u8; 8] = [0, 1, 2, 3, 4, 5, 6, 8];
/// Mask selecting the delta from an 8-byte little-endian load.
pub const LEN_MASK: [u64; 8] = [
    0,
    0xff,
    0xffff,
    0xff_ffff,
    0xffff_ffff,
    0xff_ffff_ffff,
    0xffff_ffff_ffff,
    u64::MAX,
];

pub const STREAM_I: u8 = 0;
pub const STREAM_D0: u8 = 1;
pub const STREAM_D1: u8 = 2;

/// The op that introduces a descriptor byte.
pub const OP_ESCAPE: u8 = 31;

/// Ops 0..=10: instruction fetch of 1..=11 bytes.
const I_OPS: u8 = 11;
/// Ops 11..=22: load of LOAD_SIZES[k] bytes, stream D0 + (op - 11) % 2.
const LOAD_OP0: u8 = 11;
const LOAD_SIZES: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Ops 23..=30: store of STORE_SIZES[k] bytes, stream D0 + (op - 23) % 2.
const STORE_OP0: u8 = 23;
const STORE_SIZES: [u32; 4] = [1, 2, 4, 8];

// Descriptor byte after an ESCAPE tag.
// bit 7 clear: an access. bits 0-1 kind (AccessKind discriminant), bit 2 data
// stream (0: D0, 1: D1; must be 0 for ifetch), bits 3-5 size code (0..=6:
// 1 << code bytes; 7: a LEB128 size follows), bit 6 reserved (0).
// bit 7 set: a marker, and the tag's len must be 0.
pub const DESC_MARKER: u8 = 0x80;
pub const DESC_RESERVED: u8 = 0x40;
pub const DESC_SIZE_EXPLICIT: u8 = 7;
/// `ContextSwitch(asid)`, LEB128 asid follows; also sets the current asid.
pub const DESC_CONTEXT_SWITCH: u8 = 0x80;
/// `FlushAll`.
pub const DESC_FLUSH_ALL: u8 = 0x81;
/// Not an event: the following accesses belong to this asid (LEB128 follows).
pub const DESC_SET_ASID: u8 = 0x82;

/// What the decoder needs to know about a tag's op.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    pub kind: AccessKind,
    pub size: u32,
    pub stream: u8,
    pub escape: bool,
}

const fn op_info(op: u8) -> OpInfo {
    if op < I_OPS {
        OpInfo { kind: AccessKind::Ifetch, size: op as u32 + 1, stream: STREAM_I, escape: false }
    } else if op < STORE_OP0 {
        let k = op - LOAD_OP0;
        OpInfo { kind: AccessKind::Load, size: LOAD_SIZES[(k / 2) as usize], stream: STREAM_D0 + k % 2, escape: false }
    } else if op < OP_ESCAPE {
        let k = op - STORE_OP0;
        OpInfo { kind: AccessKind::Store, size: STORE_SIZES[(k / 2) as usize], stream: STREAM_D0 + k % 2, escape: false }
    } else {
        OpInfo { kind: AccessKind::Ifetch, size: 0, stream: STREAM_I, escape: true }
    }
}

/// Indexed by `tag >> 3`, which is always < 32, so no bounds check survives.
pub static OPS: [OpInfo; 32] = {
    let mut t = [op_info(0); 32];
    let mut op = 0;
    while op < 32 {
        t[op as usize] = op_info(op);
        op += 1;
    }
    t
};

/// The direct op for an access, if its kind/size/stream has one.
pub fn direct_op(kind: AccessKind, size: u32, stream: u8) -> Option<u8> {
    let pos = |sizes: &[u32]| sizes.iter().position(|&s| s == size).map(|i| i as u8);
    match kind {
        AccessKind::Ifetch if (1..=u32::from(I_OPS)).contains(&size) => Some(size as u8 - 1),
        AccessKind::Load => pos(&LOAD_SIZES).map(|i| LOAD_OP0 + 2 * i + (stream - STREAM_D0)),
        AccessKind::Store => pos(&STORE_SIZES).map(|i| STORE_OP0 + 2 * i + (stream - STREAM_D0)),
        _ => None,
    }
}

/// `AccessKind` from its 2-bit discriminant.
pub fn kind_from_bits(bits: u8) -> AccessKind {
    match bits & 3 {
        0 => AccessKind::Ifetch,
        1 => AccessKind::Load,
        2 => AccessKind::Store,
        _ => AccessKind::Modify,
    }
}

pub fn zigzag(delta: u64) -> u64 {
    (delta << 1) ^ ((delta as i64 >> 63) as u64)
}

pub fn unzigzag(z: u64) -> u64 {
    (z >> 1) ^ (z & 1).wrapping_neg()
}

/// The length code for a zigzagged delta.
pub fn len_code(z: u64) -> u8 {
    let bytes = (64 - z.leading_zeros()).div_ceil(8) as u8;
    bytes.min(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_round_trip() {
        for op in 0..OP_ESCAPE {
            let info = OPS[op as usize];
            assert!(!info.escape);
            assert_eq!(direct_op(info.kind, info.size, info.stream), Some(op), "op {op}");
        }
        assert!(OPS[31].escape);
        assert_eq!(direct_op(AccessKind::Modify, 4, STREAM_D0), None);
        assert_eq!(direct_op(AccessKind::Ifetch, 12, STREAM_I), None);
        assert_eq!(direct_op(AccessKind::Store, 16, STREAM_D1), None);
    }

    #[test]
    fn zigzag_and_lengths() {
        for d in [0u64, 1, u64::MAX, 63, (-64i64) as u64, 1 << 40, u64::MAX / 2, 1 << 63] {
            assert_eq!(unzigzag(zigzag(d)), d);
            let z = zigzag(d);
            assert_eq!(z & LEN_MASK[len_code(z) as usize], z);
        }
        assert_eq!(len_code(0), 0);
        assert_eq!(len_code(255), 1);
        assert_eq!(len_code(256), 2);
        assert_eq!(len_code(1 << 55), 7);
        assert_eq!(len_code(u64::MAX), 7);
    }
}
