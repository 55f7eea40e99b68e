//! Page protections.

use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Prot {
    pub read: bool,
    pub write: bool,
    pub exec: bool,
}

impl Prot {
    pub const NONE: Prot = Prot { read: false, write: false, exec: false };
    pub const R: Prot = Prot { read: true, write: false, exec: false };
    pub const RW: Prot = Prot { read: true, write: true, exec: false };

    /// Parses `none` or a combination of `r`, `w`, `x` (each at most once).
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad =
            || format!("bad protection {s:?}: expected \"none\" or letters from \"rwx\" (e.g. \"r\", \"rw\", \"rx\")");
        if s == "none" {
            return Ok(Self::NONE);
        }
        if s.is_empty() {
            return Err(bad());
        }
        let mut p = Self::NONE;
        for c in s.chars() {
            let slot = match c {
                'r' => &mut p.read,
                'w' => &mut p.write,
                'x' => &mut p.exec,
                _ => return Err(bad()),
            };
            if *slot {
                return Err(bad());
            }
            *slot = true;
        }
        Ok(p)
    }

    pub fn without_write(self) -> Self {
        Self { write: false, ..self }
    }

    /// Whether `self` allows everything `need` asks for.
    pub fn allows(self, need: Prot) -> bool {
        (self.read || !need.read) && (self.write || !need.write) && (self.exec || !need.exec)
    }
}

impl std::fmt::Display for Prot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if *self == Self::NONE {
            return write!(f, "none");
        }
        for (on, c) in [(self.read, 'r'), (self.write, 'w'), (self.exec, 'x')] {
            if on {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parse_and_errors() {
        assert_eq!(Prot::parse("rw"), Ok(Prot::RW));
        assert_eq!(Prot::parse("none"), Ok(Prot::NONE));
        assert!(Prot::parse("rww").is_err());
        assert!(Prot::parse("q").is_err());
        assert!(Prot::parse("").is_err());
        assert_eq!(Prot::parse("xr").map(|p| p.to_string()), Ok("rx".to_string()));
    }
}
