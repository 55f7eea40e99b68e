//! A CPU of a `System` as a context switch acts on it (`vmlab_mmu::Switch`,
//! where the rule lives): its private levels and its TLB.

use std::convert::Infallible;

use vmlab_cache::{CacheConfig, Flush, FlushStats};
use vmlab_mmu::{SwitchSite, Tlb};

use crate::system::OnCpu;

/// A CPU of a `System`: its private levels and its TLB. The shared levels
/// are every CPU's, so one CPU's switch leaves them alone.
impl SwitchSite for OnCpu<'_> {
    type Error = Infallible;

    fn cache_configs(&self) -> Vec<&CacheConfig> {
        self.cpu_ref().cache_configs()
    }

    fn each_tlb(&mut self, f: &mut dyn FnMut(&mut Tlb)) {
        if let Some(t) = self.cpu().tlb_mut() {
            f(t);
        }
    }

    fn flush_caches(&mut self) -> Result<FlushStats, Infallible> {
        Ok(self.flush_private(Flush::WriteBack))
    }
}
