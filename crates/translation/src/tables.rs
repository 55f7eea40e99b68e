//! Which page-table organisation each scheme walks, built with its frames.

use vmlab_mmu::pagetable::{mach::Mach, mips::Ultrix, parisc, puma::Puma, x86::Radix};
use vmlab_mmu::{FramePool, PageTable, TableError};

use crate::scheme::TableKind;

/// Builds the table a scheme walks; its fixed structures (root tables,
/// hash tables) take frames from `frames` now, the rest on demand.
pub fn build_table(kind: TableKind, frames: &mut FramePool) -> Result<Box<dyn PageTable>, TableError> {
    Ok(match kind {
        TableKind::Mips => Box::new(Ultrix::new()),
        TableKind::Mach => Box::new(Mach::new(frames)?),
        TableKind::Parisc => {
            // Sized from the machine's frames, as HP-UX sizes its table.
            let params = parisc::HashedParams { phys_frames: frames.capacity(), ..Default::default() };
            Box::new(parisc::HashedInverted::new(&params, frames)?)
        }
        TableKind::X86TwoLevel => Box::new(Radix::two_level()),
        TableKind::Puma => Box::new(Puma::new()),
    })
}
