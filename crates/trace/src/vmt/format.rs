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
/// [`MAX_BLOCK_EVENTS`] events is 20 bytes each (about 1.3 MiB).
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
    /// Record encoding of the blocks; the writer sets the one it writes
    /// (`Encoding::name_and_version`).
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
        Self {
            encoding: super::blocks::ENCODING.to_string(),
            created_by: created_by.into(),
            command: None,
            metadata: Default::default(),
        }
    }
}

impl Default for VmtHeader {
    fn default() -> Self {
        Self::new(concat!("vmlab-trace ", env!("CARGO_PKG_VERSION")))
    }
}

// ---- records ----------------------------------------------------------------
//
// A block payload holding `count` records is `tags[count] | data`: exactly
// one tag byte per record (per event), then every record's other bytes
// (descriptor, LEB128 numbers, address delta) in record order. Keeping the
// tags apart (as in Lemire's stream-vbyte) is what makes decoding fast: the
// decoder walks the tags sequentially, and its position in `data` advances by
// a length taken from the tag alone, so no record waits for the previous
// record's bytes to be loaded to know where it starts.
//
// A tag is `op << 3 | len`. `len` (3 bits) is the number of address-delta
// bytes in `data`: LEN_BYTES[len]. `op` (5 bits) names the access kind, its
// size and its prediction stream directly for the common cases, or is
// OP_ESCAPE, in which case a descriptor byte comes first in `data`.
//
// Addresses are predicted per stream: one for instruction fetches, one for
// data (loads, stores, modifies). The prediction is the
// stream's previous address plus that access's size, so straight-line code
// and sequential data cost no delta bytes at all. The delta (two's
// complement, the difference from the prediction) is stored little-endian in
// LEN_BYTES[len] bytes as `delta + LEN_BIAS[len]` (offset binary), so the
// decoder recovers `delta + size` with one masked load and one add of a
// per-tag constant, instead of a zigzag decode.

/// Delta bytes for each 3-bit length code; 7 bytes is never needed on its own
/// (code 7 means all 8).
pub const LEN_BYTES: [u8; 8] = [0, 1, 2, 3, 4, 5, 6, 8];
/// Mask selecting the delta from an 8-byte little-endian load.
pub const LEN_MASK: [u64; 8] = [0, 0xff, 0xffff, 0xff_ffff, 0xffff_ffff, 0xff_ffff_ffff, 0xffff_ffff_ffff, u64::MAX];

/// Offset added to an n-byte delta so that it is stored as an unsigned number:
/// n bytes hold deltas in `-2^(8n-1) .. 2^(8n-1)`.
pub const LEN_BIAS: [u64; 8] = [0, 1 << 7, 1 << 15, 1 << 23, 1 << 31, 1 << 39, 1 << 47, 1 << 63];

pub const STREAM_I: u8 = 0;
pub const STREAM_D: u8 = 1;

/// The op that introduces a descriptor byte.
pub const OP_ESCAPE: u8 = 31;

/// Ops 0..=30 in order: what each names directly. Instruction lengths 1-15
/// (all of x86's), the usual power-of-two data sizes.
#[rustfmt::skip]
pub const DIRECT: [(AccessKind, u32); 31] = {
    use AccessKind::{Ifetch as I, Load as L, Modify as M, Store as S};
    [
        (I, 1), (I, 2), (I, 3), (I, 4), (I, 5), (I, 6), (I, 7), (I, 8),
        (I, 9), (I, 10), (I, 11), (I, 12), (I, 13), (I, 14), (I, 15),
        (L, 1), (L, 2), (L, 4), (L, 8), (L, 16), (L, 32),
        (S, 1), (S, 2), (S, 4), (S, 8), (S, 16), (S, 32),
        (M, 1), (M, 2), (M, 4), (M, 8),
    ]
};

pub fn stream_of(kind: AccessKind) -> u8 {
    match kind {
        AccessKind::Ifetch => STREAM_I,
        _ => STREAM_D,
    }
}

// Descriptor byte, first in `data` for an ESCAPE tag.
// bit 7 clear: an access. bits 0-1 kind (AccessKind discriminant), bit 2
// reserved (0), bits 3-5 size code (0..=6: 1 << code bytes; 7: a LEB128 size
// follows), bit 6: a LEB128 asid follows (before the size): this access and
// the ones after it belong to that asid.
// bit 7 set: a marker, and the tag's len must be 0.
pub const DESC_MARKER: u8 = 0x80;
pub const DESC_ASID: u8 = 0x40;
pub const DESC_RESERVED: u8 = 0x04;
pub const DESC_SIZE_EXPLICIT: u8 = 7;
/// `ContextSwitch(asid)`, LEB128 asid follows; also sets the current asid.
pub const DESC_CONTEXT_SWITCH: u8 = 0x80;
/// `FlushAll`.
pub const DESC_FLUSH_ALL: u8 = 0x81;
/// `Syscall`: LEB128 asid, LEB128 number (at most 0xffff), one byte
/// `nargs` (0..=6), the result as 8 bytes (i64). Does not change the
/// current asid (a marker names its process; only switches move it).
pub const DESC_SYSCALL: u8 = 0x82;
/// `SyscallArg`: the argument as 8 bytes.
pub const DESC_SYSCALL_ARG: u8 = 0x83;

/// Eight little-endian bytes at `p`, if they lie before `end`.
pub fn le_u64(b: &[u8], end: usize, p: usize) -> Option<u64> {
    let bytes = b.get(p..p.checked_add(8)?).filter(|_| p + 8 <= end)?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

/// The rest of a system-call head after its asid and number: `nargs` (1
/// byte) and the result (8). Both encodings share it; `end` bounds `b`.
pub fn syscall_tail(
    b: &[u8],
    end: usize,
    p: usize,
    asid: vmlab_addr::Asid,
    number: u32,
) -> Result<(crate::Syscall, usize), String> {
    let number = u16::try_from(number).map_err(|_| format!("number {number} is past 65535"))?;
    let nargs = *b.get(p).filter(|_| p < end).ok_or("its argument count runs past the payload")?;
    if usize::from(nargs) > crate::syscall::MAX_ARGS {
        return Err(format!("{nargs} arguments; at most {}", crate::syscall::MAX_ARGS));
    }
    let ret = le_u64(b, end, p + 1).ok_or("its result runs past the payload")? as i64;
    Ok((crate::Syscall { ret, asid, number, nargs }, p + 9))
}

/// What the decoder needs to know about a tag byte, for all 256 of them. The
/// stream is given as two all-ones/all-zeros masks so the decoder updates its
/// predictions with plain arithmetic, without a branch or a select.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct TagInfo {
    pub mask_i: u64,
    pub mask_d: u64,
    /// Selects the stored delta from an 8-byte load.
    pub len_mask: u64,
    /// `size - LEN_BIAS[len]`: added to the stored delta it gives the step
    /// from this access's prediction to the next one (`delta + size`).
    pub step_bias: u64,
    pub size: u32,
    pub kind: AccessKind,
    /// Delta bytes.
    pub len: u8,
    pub escape: bool,
}

const fn tag_info(tag: u8) -> TagInfo {
    let op = tag >> 3;
    let len = (tag & 7) as usize;
    let (kind, size, escape) = if op < OP_ESCAPE {
        let (k, s) = DIRECT[op as usize];
        (k, s, false)
    } else {
        (AccessKind::Ifetch, 0, true)
    };
    let is_i = matches!(kind, AccessKind::Ifetch);
    TagInfo {
        mask_i: if is_i { u64::MAX } else { 0 },
        mask_d: if is_i { 0 } else { u64::MAX },
        len_mask: LEN_MASK[len],
        step_bias: (size as u64).wrapping_sub(LEN_BIAS[len]),
        size,
        kind,
        len: LEN_BYTES[len],
        escape,
    }
}

/// Indexed by the tag byte itself: no bounds check, one cache line per tag.
pub static TAGS: [TagInfo; 256] = {
    let mut t = [tag_info(0); 256];
    let mut tag = 0;
    while tag < 256 {
        t[tag] = tag_info(tag as u8);
        tag += 1;
    }
    t
};

/// The direct op for an access, if its kind and size have one.
pub fn direct_op(kind: AccessKind, size: u32) -> Option<u8> {
    DIRECT.iter().position(|&(k, s)| k == kind && s == size).map(|op| op as u8)
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

/// The length code for a delta: the fewest bytes that hold it as a signed
/// number (7 is rounded up to 8).
pub fn len_code(delta: u64) -> u8 {
    if delta == 0 {
        return 0;
    }
    let d = delta as i64;
    let redundant = if d < 0 { (!d).leading_zeros() } else { d.leading_zeros() };
    let bytes = (65 - redundant).div_ceil(8) as u8;
    bytes.min(7)
}

/// The stored form of `delta` under length code `len`.
pub fn biased(delta: u64, len: u8) -> u64 {
    delta.wrapping_add(LEN_BIAS[usize::from(len & 7)]) & LEN_MASK[usize::from(len & 7)]
}

/// `delta` back from its stored form.
pub fn unbiased(stored: u64, len: u8) -> u64 {
    stored.wrapping_sub(LEN_BIAS[usize::from(len & 7)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_round_trip() {
        for op in 0..OP_ESCAPE {
            for len in 0..8u8 {
                let info = TAGS[usize::from(op << 3 | len)];
                assert!(!info.escape);
                assert_eq!(info.len, LEN_BYTES[usize::from(len)]);
                assert_eq!(info.mask_i, !info.mask_d);
                assert_eq!(info.mask_i == u64::MAX, info.kind == AccessKind::Ifetch);
                assert_eq!(direct_op(info.kind, info.size), Some(op), "op {op}");
            }
        }
        assert!(TAGS[usize::from(OP_ESCAPE << 3)].escape);
        assert_eq!(direct_op(AccessKind::Modify, 16), None);
        assert_eq!(direct_op(AccessKind::Ifetch, 16), None);
        assert_eq!(direct_op(AccessKind::Store, 64), None);
    }

    #[test]
    fn lengths_and_bias() {
        for d in [0i64, 1, -1, 127, -128, 128, -129, 32767, -32768, 1 << 40, -(1 << 47), i64::MAX, i64::MIN] {
            let delta = d as u64;
            let len = len_code(delta);
            let stored = biased(delta, len);
            assert_eq!(stored & LEN_MASK[usize::from(len)], stored, "{d}");
            assert_eq!(unbiased(stored, len), delta, "{d}");
        }
        assert_eq!(len_code(0), 0);
        assert_eq!(len_code(127), 1);
        assert_eq!(len_code((-128i64) as u64), 1);
        assert_eq!(len_code(128), 2);
        assert_eq!(len_code((-129i64) as u64), 2);
        assert_eq!(len_code(1 << 47), 7);
        assert_eq!(len_code((-(1i64 << 47)) as u64), 6);
        assert_eq!(len_code(u64::MAX), 1);
        assert_eq!(len_code(1 << 63), 7);
        assert_eq!(std::mem::size_of::<TagInfo>(), 64);
    }
}
