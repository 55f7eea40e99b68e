//! Copy routines as data, and the generator that turns one into the
//! instruction and reference stream a CPU runs.
//!
//! A routine (`presets/copy/routines.toml`, compiled in) is a loop body of
//! PA-RISC-like instructions over two cursors, `s` (source) and `d`
//! (destination), which advance by the body's `bytes` each iteration; a
//! routine may add a remainder loop (memcpy's word loop) and an unaligned
//! path (memcpy's `vshd`/`stbys` path: seed 004 section 2.1). The stream is
//! every instruction the routine executes, in order, each memory
//! instruction with its virtual address and size; the experiment places
//! the two buffers and translates. Adding a routine is adding a table to the
//! TOML file: the generator knows mnemonics, not routines.

use serde::Deserialize;
use vmlab_addr::VirtAddr;

/// The routines shipped with vmlab, as TOML.
pub const ROUTINES_TOML: &str = include_str!("../../../presets/copy/routines.toml");
const ROUTINES_ORIGIN: &str = "presets/copy/routines.toml";

/// An instruction a copy routine uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mnemonic {
    /// Load or store one byte.
    Ldb,
    Stb,
    /// Load or store a word (4 bytes).
    Ldw,
    Stw,
    /// Floating-point double-word (8 bytes) load or store.
    Fldd,
    Fstd,
    /// Floating-point quad-word (16 bytes) store: native on the 720,
    /// emulated by a trap on the 755 and 712 (`timing::QuadStore`).
    Fstq,
    /// Store the bytes of a partial word (`,b`: from the address to the
    /// word's end; `,e`: the first bytes of the word at the address).
    Stbys,
    /// Add, compare and branch: the loop counter.
    Addib,
    /// Variable shift double: merge two words for an unaligned copy.
    Vshd,
    /// A 64-byte vector load or store (not PA-RISC: the modern loop).
    Vld64,
    Vst64,
}

/// What an instruction does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Alu,
    Load,
    Store,
}

impl Mnemonic {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "ldb" => Self::Ldb,
            "stb" => Self::Stb,
            "ldw" => Self::Ldw,
            "stw" => Self::Stw,
            "fldd" => Self::Fldd,
            "fstd" => Self::Fstd,
            "fstq" => Self::Fstq,
            "stbys" => Self::Stbys,
            "addib" => Self::Addib,
            "vshd" => Self::Vshd,
            "vld64" => Self::Vld64,
            "vst64" => Self::Vst64,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Ldb => "ldb",
            Self::Stb => "stb",
            Self::Ldw => "ldw",
            Self::Stw => "stw",
            Self::Fldd => "fldd",
            Self::Fstd => "fstd",
            Self::Fstq => "fstq",
            Self::Stbys => "stbys",
            Self::Addib => "addib",
            Self::Vshd => "vshd",
            Self::Vld64 => "vld64",
            Self::Vst64 => "vst64",
        }
    }

    pub fn class(self) -> Class {
        match self {
            Self::Ldb | Self::Ldw | Self::Fldd | Self::Vld64 => Class::Load,
            Self::Stb | Self::Stw | Self::Fstd | Self::Fstq | Self::Stbys | Self::Vst64 => Class::Store,
            Self::Addib | Self::Vshd => Class::Alu,
        }
    }

    /// Bytes moved, for the fixed-size memory instructions (`Stbys`'s size
    /// depends on the address and what is left).
    fn bytes(self) -> Option<u64> {
        match self {
            Self::Ldb | Self::Stb => Some(1),
            Self::Ldw | Self::Stw => Some(4),
            Self::Fldd | Self::Fstd => Some(8),
            Self::Fstq => Some(16),
            Self::Vld64 | Self::Vst64 => Some(64),
            Self::Stbys | Self::Addib | Self::Vshd => None,
        }
    }
}

/// Which buffer a memory instruction touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Src,
    Dst,
}

/// One op of a routine's text: a mnemonic, its completer and, for a memory
/// op, its cursor and offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Op {
    mnemonic: Mnemonic,
    hint: bool,
    /// `stbys,b` (true) or `stbys,e` (false).
    begin: bool,
    at: Option<(Side, u64)>,
}

/// One executed instruction of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instr {
    pub mnemonic: Mnemonic,
    /// A store with the block-copy cache hint (`,bc`).
    pub hint: bool,
    /// The buffer, virtual address and bytes of a memory instruction.
    pub access: Option<(Side, VirtAddr, u64)>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    routine: Vec<RoutineText>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoutineText {
    name: String,
    source: String,
    bytes: u64,
    align: u64,
    body: Vec<String>,
    #[serde(default)]
    remainder: Vec<String>,
    #[serde(default)]
    unaligned: Option<UnalignedText>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UnalignedText {
    head: Vec<String>,
    body: Vec<String>,
    remainder: Vec<String>,
    tail: Vec<String>,
}

/// The unaligned path of a routine (memcpy's vshd/stbys path).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Unaligned {
    head: Vec<Op>,
    body: Vec<Op>,
    remainder: Vec<Op>,
    tail: Vec<Op>,
}

/// A copy routine: its loop as data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Routine {
    pub name: String,
    pub source: String,
    /// Bytes one iteration of the body copies.
    pub bytes: u64,
    /// Alignment of source, destination and length the main loop needs.
    pub align: u64,
    body: Vec<Op>,
    remainder: Vec<Op>,
    unaligned: Option<Unaligned>,
}

/// Bytes of the word the remainder loops and the unaligned path work in.
const WORD: u64 = 4;

fn parse_op(origin: &str, text: &str) -> Result<Op, String> {
    let bad = |why: &str| format!("{origin}: op `{text}`: {why}");
    let mut parts = text.split_whitespace();
    let head = parts.next().ok_or_else(|| bad("empty"))?;
    let (mn, completer) = match head.split_once(',') {
        Some((m, c)) => (m, Some(c)),
        None => (head, None),
    };
    let mnemonic = Mnemonic::parse(mn).ok_or_else(|| {
        bad("unknown mnemonic; expected one of ldb, stb, ldw, stw, fldd, fstd, fstq, stbys, addib, vshd, vld64, vst64")
    })?;
    let (hint, begin) = match (mnemonic, completer) {
        (_, None) if mnemonic != Mnemonic::Stbys => (false, false),
        (Mnemonic::Stbys, Some("b")) => (false, true),
        (Mnemonic::Stbys, Some("e")) => (false, false),
        (Mnemonic::Stbys, _) => return Err(bad("stbys needs ,b or ,e")),
        (m, Some("bc")) if m.class() == Class::Store => (true, false),
        _ => return Err(bad("unknown completer; stores take ,bc (the cache hint), stbys ,b or ,e")),
    };
    let at = match parts.next() {
        None => None,
        Some(a) => {
            let (side, off) = a.split_once('+').ok_or_else(|| bad("operand must be s+OFFSET or d+OFFSET"))?;
            let side = match side {
                "s" => Side::Src,
                "d" => Side::Dst,
                _ => return Err(bad("operand must be s+OFFSET or d+OFFSET")),
            };
            Some((side, off.parse::<u64>().map_err(|_| bad("offset is not a number"))?))
        }
    };
    if parts.next().is_some() {
        return Err(bad("more than one operand"));
    }
    match (mnemonic.class(), at) {
        (Class::Alu, Some(_)) => Err(bad("an ALU instruction takes no memory operand")),
        (Class::Load | Class::Store, None) => Err(bad("a memory instruction needs s+OFFSET or d+OFFSET")),
        (Class::Load, Some((Side::Dst, _))) => Err(bad("this model's routines load only from the source")),
        (Class::Store, Some((Side::Src, _))) => Err(bad("this model's routines store only to the destination")),
        _ => Ok(Op { mnemonic, hint, begin, at }),
    }
}

fn parse_ops(origin: &str, ops: &[String]) -> Result<Vec<Op>, String> {
    ops.iter().map(|o| parse_op(origin, o)).collect()
}

/// Parses routines from TOML text (`origin` names it in errors).
pub fn parse(origin: &str, text: &str) -> Result<Vec<Routine>, String> {
    let file: File = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        match line {
            Some(l) => format!("{origin}: line {l}: {}", e.message().trim()),
            None => format!("{origin}: {}", e.message().trim()),
        }
    })?;
    let mut out: Vec<Routine> = Vec::new();
    for r in file.routine {
        let here = format!("{origin}: routine {}", r.name);
        if out.iter().any(|o| o.name == r.name) {
            return Err(format!("{here}: defined twice"));
        }
        if r.bytes == 0 || !r.align.is_power_of_two() {
            return Err(format!("{here}: bytes must be > 0 and align a power of two"));
        }
        let unaligned = match r.unaligned {
            None => None,
            Some(u) => Some(Unaligned {
                head: parse_ops(&here, &u.head)?,
                body: parse_ops(&here, &u.body)?,
                remainder: parse_ops(&here, &u.remainder)?,
                tail: parse_ops(&here, &u.tail)?,
            }),
        };
        let remainder = parse_ops(&here, &r.remainder)?;
        if (unaligned.is_some() || !remainder.is_empty()) && (r.bytes % WORD != 0 || r.align != WORD) {
            return Err(format!("{here}: a remainder loop or unaligned path works in words: align must be {WORD}"));
        }
        out.push(Routine {
            name: r.name,
            source: r.source,
            bytes: r.bytes,
            align: r.align,
            body: parse_ops(&here, &r.body)?,
            remainder,
            unaligned,
        });
    }
    Ok(out)
}

/// The shipped routines.
pub fn routines() -> Result<Vec<Routine>, String> {
    parse(ROUTINES_ORIGIN, ROUTINES_TOML)
}

/// A shipped routine by name; an unknown name lists the valid ones.
pub fn routine(name: &str) -> Result<Routine, String> {
    let all = routines()?;
    let names: Vec<String> = all.iter().map(|r| r.name.clone()).collect();
    all.into_iter()
        .find(|r| r.name == name)
        .ok_or_else(|| format!("no copy routine `{name}`; expected one of {}", names.join(", ")))
}

/// Appends `ops` once with the cursors at `s`, `d`; `left` is what the
/// copy has not stored yet (the size of a `stbys,e`).
fn emit(out: &mut Vec<Instr>, ops: &[Op], s: u64, d: u64, left: u64) {
    for op in ops {
        let access = op.at.map(|(side, off)| {
            let addr = match side {
                Side::Src => s + off,
                Side::Dst => d + off,
            };
            let size = match op.mnemonic.bytes() {
                Some(b) => b,
                None if op.begin => WORD - addr % WORD,
                None => left,
            };
            (side, VirtAddr(addr), size)
        });
        out.push(Instr { mnemonic: op.mnemonic, hint: op.hint, access });
    }
}

impl Routine {
    /// Whether this routine copies from `src` to `dst` whose low two bits
    /// differ (memcpy's vshd/stbys path).
    pub fn handles_unaligned(&self) -> bool {
        self.unaligned.is_some()
    }

    /// Every instruction this routine executes copying `bytes` bytes from
    /// `src` to `dst`, in order. Refused: an alignment or length the
    /// routine does not handle (the seed's assembly routines need 32-byte
    /// alignment and multiples of 32 bytes; memcpy's unaligned path is
    /// modelled for a word-aligned source, as section 3.1 moves only the
    /// destination).
    pub fn stream(&self, src: VirtAddr, dst: VirtAddr, bytes: u64) -> Result<Vec<Instr>, String> {
        let (s, d) = (src.0, dst.0);
        let mut out = Vec::new();
        let refuse = |why: String| Err(format!("routine {}: {why}", self.name));
        if s % self.align == 0 && d % self.align == 0 {
            let step = if self.remainder.is_empty() { self.bytes } else { WORD };
            if !bytes.is_multiple_of(step) {
                return refuse(format!("copies multiples of {step} bytes, not {bytes}"));
            }
            let whole = bytes / self.bytes;
            for i in 0..whole {
                emit(&mut out, &self.body, s + i * self.bytes, d + i * self.bytes, 0);
            }
            let done = whole * self.bytes;
            for w in 0..(bytes - done) / WORD {
                emit(&mut out, &self.remainder, s + done + w * WORD, d + done + w * WORD, 0);
            }
            return Ok(out);
        }
        let Some(u) = &self.unaligned else {
            return refuse(format!("needs source and destination aligned to {} bytes", self.align));
        };
        if s % WORD != 0 || d % WORD == 0 {
            return refuse(
                "the unaligned path is modelled for a word-aligned source and a destination that is not".into(),
            );
        }
        let first = WORD - d % WORD;
        if bytes < first + WORD {
            return refuse(format!("copies at least {} bytes from this destination", first + WORD));
        }
        emit(&mut out, &u.head, s, d, bytes);
        let d0 = d + first;
        let words = (bytes - first) / WORD;
        let per = self.bytes / WORD;
        for i in 0..words / per {
            emit(&mut out, &u.body, s + i * self.bytes, d0 + i * self.bytes, 0);
        }
        let done = words / per * self.bytes;
        for w in 0..words % per {
            emit(&mut out, &u.remainder, s + done + w * WORD, d0 + done + w * WORD, 0);
        }
        let tail = (bytes - first) % WORD;
        if tail > 0 {
            emit(&mut out, &u.tail, s + words * WORD, d0 + words * WORD, tail);
        }
        Ok(out)
    }
}
