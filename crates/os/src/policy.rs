//! Consistency policies for virtually indexed caches.
//!
//! Each policy says which live translations of one frame may coexist and
//! what the hat does when a new one would break the rule. All the correct
//! ones share the rule of seed 000 section 3: unloading the last
//! translation of a frame in a given cache *colour class* flushes its lines
//! (purges them when the frame is being destroyed). They differ in how
//! simultaneous aliases are handled:
//!
//! | policy | simultaneous aliases in different classes |
//! |---|---|
//! | `flush-on-unmap` | allowed, the page becomes uncached while they coexist (SunOS 3.2 on the Sun-3, [Cheng 87] in seed 000 section 5) |
//! | `pseudo-alias` | one class live at a time; the others are unloaded and take a pseudo page fault (seed 000 section 3) |
//! | `read-only-alias` | allowed while every one is read-only; a write unloads the others (the Tut project, seed 000 section 5) |
//! | `cache-aligned` | `map` refuses a user alias in another class (seed 001: R4x00 VA12 = PA12); kernel temporary mappings fall back to pseudo-aliasing |
//! | `global-shared` | a shared object lives at one global (space, address) in every address space, so user aliases do not arise (HP-UX, PowerPC/SASOS); so does a file's read-only private text (HP-UX's shared text, seed 000 section 5) where it sits at the address its first such mapping fixed, until a page is copied on write, in a text segment with a space id of its own unless it sits at the shared segment's address (one space id, one base: no homonyms, seed 000 section 2); fork, kernel mappings and text elsewhere fall back to pseudo-aliasing |
//! | `uncached-shared` | a frame with more than one live translation is uncached |
//! | `none` | nothing at all: wrong on purpose, to show stale reads and cache bombs |
//!
//! A *class* is the list of cache copies a page's lines land in (set, tag,
//! ASID tag), computed from the cache configuration: two translations are in
//! one class exactly when the cache cannot tell them apart. On a PIPT cache
//! there is one class per frame and no policy does anything.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    FlushOnUnmap,
    PseudoAlias,
    ReadOnlyAlias,
    CacheAligned,
    GlobalShared,
    UncachedShared,
    None,
}

impl Policy {
    pub const ALL: [Policy; 7] = [
        Policy::FlushOnUnmap,
        Policy::PseudoAlias,
        Policy::ReadOnlyAlias,
        Policy::CacheAligned,
        Policy::GlobalShared,
        Policy::UncachedShared,
        Policy::None,
    ];

    pub const CORRECT: [Policy; 6] = [
        Policy::FlushOnUnmap,
        Policy::PseudoAlias,
        Policy::ReadOnlyAlias,
        Policy::CacheAligned,
        Policy::GlobalShared,
        Policy::UncachedShared,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Policy::FlushOnUnmap => "flush-on-unmap",
            Policy::PseudoAlias => "pseudo-alias",
            Policy::ReadOnlyAlias => "read-only-alias",
            Policy::CacheAligned => "cache-aligned",
            Policy::GlobalShared => "global-shared",
            Policy::UncachedShared => "uncached-shared",
            Policy::None => "none",
        }
    }

    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| {
            format!(
                "unknown consistency policy {s:?}; valid: {}",
                Self::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
            )
        })
    }

    /// How a load resolves a conflict with live translations in other classes.
    pub fn on_conflict(self) -> Conflict {
        match self {
            Policy::None => Conflict::Ignore,
            Policy::FlushOnUnmap => Conflict::UncacheIfClassesDiffer,
            Policy::UncachedShared => Conflict::UncacheIfShared,
            Policy::ReadOnlyAlias => Conflict::ReadersOrOneWriter,
            Policy::PseudoAlias | Policy::CacheAligned | Policy::GlobalShared => Conflict::OneClass,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    Ignore,
    OneClass,
    ReadersOrOneWriter,
    UncacheIfClassesDiffer,
    UncacheIfShared,
}
