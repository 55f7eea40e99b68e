//! Compatibility modes: another simulator's counting rules, chosen per run
//! (`vmlab run --compat`, Python `Machine.run(..., compat=...)`), each rule
//! written in docs/reference-semantics.md, *Compatibility modes*.
//!
//! | mode | rules taken | source |
//! |---|---|---|
//! | `vmlab` (default) | vmlab's own (Dinero IV's access rules, no end-of-run copy-back) | docs/reference-semantics.md |
//! | `dinero` | at the end of a run, and at a flush marker, every dirty line is copied back down the data side, in Dinero's order | Dinero IV 7 `cmdmain.c` (after `done:`, `-flushcount`), `misc.c` (`d4copyback`) |
//! | `cachegrind` | one access and at most one miss per reference per level; a level sees only the references that missed above it, whole; no write traffic; a modify is one read | valgrind Cachegrind `cg_sim.c`, `cg_main.c` |

use serde::{Deserialize, Serialize};

/// Whose counting rules a run follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compat {
    /// vmlab's own rules.
    #[default]
    Vmlab,
    /// Dinero IV's command-line driver: its end-of-run and flush copy-back.
    Dinero,
    /// valgrind Cachegrind's `--cache-sim=yes` counting.
    Cachegrind,
}

impl Compat {
    pub const ALL: [Compat; 3] = [Compat::Vmlab, Compat::Dinero, Compat::Cachegrind];

    pub fn name(self) -> &'static str {
        match self {
            Compat::Vmlab => "vmlab",
            Compat::Dinero => "dinero",
            Compat::Cachegrind => "cachegrind",
        }
    }

    /// The mode called `name`; an unknown name is an error listing the valid ones.
    pub fn from_name(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|c| c.name() == name).ok_or_else(|| {
            let valid: Vec<&str> = Self::ALL.iter().map(|c| c.name()).collect();
            format!("unknown compatibility mode `{name}` (expected one of: {})", valid.join(", "))
        })
    }

    /// vmlab's own rules (results leave the mode out then, so they read as
    /// they always have).
    pub fn is_vmlab(&self) -> bool {
        *self == Compat::Vmlab
    }

    /// Whether the end of a run and a flush marker copy every dirty line
    /// back in Dinero's order (`Hierarchy::copy_back_all`).
    pub(crate) fn copies_back(self) -> bool {
        self == Compat::Dinero
    }

    /// Whether each reference is counted whole at each level and the level
    /// below sees only the references that missed (Cachegrind).
    pub(crate) fn counts_whole_references(self) -> bool {
        self == Compat::Cachegrind
    }
}

impl std::fmt::Display for Compat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
