//! Typed addresses and sizes (see README.md).
//!
//! Every address that crosses a crate boundary is one of these newtypes, so a
//! virtual address can never be used where a physical one is expected.

pub mod layout;
mod numbers;

pub use numbers::NumberSet;
use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! newtype_u64 {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        #[repr(transparent)]
        pub struct $name(pub u64);

        impl fmt::LowerHex for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::LowerHex::fmt(&self.0, f)
            }
        }
    };
}

newtype_u64!(
    /// A virtual (effective) byte address as issued by a program.
    VirtAddr
);
newtype_u64!(
    /// A physical byte address.
    PhysAddr
);
newtype_u64!(
    /// A virtual page number (virtual address >> page shift).
    Vpn
);
newtype_u64!(
    /// A physical frame number (physical address >> page shift).
    Pfn
);
newtype_u64!(
    /// A cache line number: a byte address shifted right by a level's line
    /// shift. Virtual or physical as the level indexes and tags it; a level
    /// tagged by line number uses it as its tag key.
    LineNo
);
newtype_u64!(
    /// A count of processor cycles. Integer, never floating point.
    Cycles
);

/// An address-space identifier: the trace's pid, a MIPS ASID, a PA-RISC space id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Asid(pub u32);

/// Prints the number, as error messages and reports name a space.
impl fmt::Display for Asid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// One CPU of a multiprocessor: its index in the system's list of CPUs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CpuId(pub u32);

impl CpuId {
    /// The position of this CPU in a list of CPUs.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A protection domain: a TLB entry's tag that an access must hold a key
/// for (ARM domains, PA-RISC protection ids, PowerPC segment keys),
/// independent of the address space the entry belongs to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Domain(pub u32);

/// A page size in bytes; always a power of two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ByteSize", into = "ByteSize")]
pub struct PageSize {
    shift: u32,
}

impl PageSize {
    /// Builds a page size from a byte count that must be a power of two >= 256.
    pub fn new(bytes: u64) -> Result<Self, SizeError> {
        if bytes < 256 || !bytes.is_power_of_two() {
            return Err(SizeError::NotPowerOfTwo { what: "page size", bytes });
        }
        Ok(Self { shift: bytes.trailing_zeros() })
    }
    pub fn bytes(self) -> u64 {
        1 << self.shift
    }
    pub fn shift(self) -> u32 {
        self.shift
    }
    pub fn vpn(self, va: VirtAddr) -> Vpn {
        Vpn(va.0 >> self.shift)
    }
    /// The first byte of the page holding `va`.
    pub fn page_start(self, va: VirtAddr) -> VirtAddr {
        VirtAddr(va.0 & !(self.bytes() - 1))
    }
    pub fn offset(self, addr: u64) -> u64 {
        addr & (self.bytes() - 1)
    }
    pub fn frame_base(self, pfn: Pfn) -> PhysAddr {
        PhysAddr(pfn.0 << self.shift)
    }
    /// The first byte of virtual page `vpn`.
    pub fn page_base(self, vpn: Vpn) -> VirtAddr {
        VirtAddr(vpn.0 << self.shift)
    }
    /// The physical address that `va` reaches when its page is in frame `pfn`.
    pub fn translate(self, va: VirtAddr, pfn: Pfn) -> PhysAddr {
        PhysAddr((pfn.0 << self.shift) | self.offset(va.0))
    }
}

impl TryFrom<ByteSize> for PageSize {
    type Error = SizeError;
    fn try_from(b: ByteSize) -> Result<Self, SizeError> {
        PageSize::new(b.0)
    }
}
impl From<PageSize> for ByteSize {
    fn from(p: PageSize) -> ByteSize {
        ByteSize(p.bytes())
    }
}

/// A size in bytes that reads and writes as `16K`, `2M`, `1G` or a plain integer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteSize(pub u64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("`{text}` is not a size: expected an integer with an optional K, M or G suffix (powers of 1024), e.g. 512, 16K, 2M")]
    Unparsable { text: String },
    #[error("{what} must be a power of two (>= 256 bytes), got {bytes}")]
    NotPowerOfTwo { what: &'static str, bytes: u64 },
}

impl std::str::FromStr for ByteSize {
    type Err = SizeError;
    fn from_str(s: &str) -> Result<Self, SizeError> {
        let t = s.trim();
        let bad = || SizeError::Unparsable { text: s.to_string() };
        let (digits, mult) = match t.char_indices().last() {
            Some((i, c)) if c.is_ascii_alphabetic() => {
                let m: u64 = match c.to_ascii_uppercase() {
                    'K' => 1 << 10,
                    'M' => 1 << 20,
                    'G' => 1 << 30,
                    _ => return Err(bad()),
                };
                (&t[..i], m)
            }
            _ => (t, 1),
        };
        let n: u64 = digits.trim().parse().map_err(|_| bad())?;
        n.checked_mul(mult).map(ByteSize).ok_or_else(bad)
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (suffix, shift) in [("G", 30), ("M", 20), ("K", 10)] {
            if b >= (1 << shift) && b.is_multiple_of(1 << shift) {
                return write!(f, "{}{}", b >> shift, suffix);
            }
        }
        write!(f, "{b}")
    }
}

impl Serialize for ByteSize {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ByteSize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size such as 512, \"16K\" or \"2M\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ByteSize, E> {
                Ok(ByteSize(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ByteSize, E> {
                u64::try_from(v).map(ByteSize).map_err(|_| E::custom(format!("size must not be negative, got {v}")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ByteSize, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!("16K".parse::<ByteSize>(), Ok(ByteSize(16384)));
        assert_eq!("2m".parse::<ByteSize>(), Ok(ByteSize(2 << 20)));
        assert_eq!("48".parse::<ByteSize>(), Ok(ByteSize(48)));
        assert!("16Q".parse::<ByteSize>().is_err());
        assert!("".parse::<ByteSize>().is_err());
        assert_eq!(ByteSize(512 << 10).to_string(), "512K");
        assert_eq!(ByteSize(48).to_string(), "48");
    }

    #[test]
    fn page_translation_keeps_offset() {
        let p = PageSize::new(4096).expect("4K is a page size");
        assert_eq!(p.vpn(VirtAddr(0x12345)), Vpn(0x12));
        assert_eq!(p.page_start(VirtAddr(0x12345)), VirtAddr(0x12000));
        assert_eq!(p.page_base(Vpn(0x12)), VirtAddr(0x12000));
        assert_eq!(p.translate(VirtAddr(0x12345), Pfn(7)), PhysAddr(0x7345));
        assert!(PageSize::new(3000).is_err());
    }
}
