//! The multiprocessor's costs and kernel path lengths, from
//! `presets/mp/*.toml`: each number with its source.

use std::collections::BTreeMap;

use serde::Deserialize;

const SPARCCENTER: &str = include_str!("../../../../presets/mp/sparccenter-2000.toml");

/// A number and where it comes from.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sourced {
    pub value: f64,
    pub source: String,
}

/// Kernel code paths (instructions), by the routine they stand for.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Paths {
    pub syscall: Sourced,
    pub fault: Sourced,
    pub hat_load: Sourced,
    pub hat_unload: Sourced,
    pub hat_chprot: Sourced,
    pub mapping_step: Sourced,
    pub fork: Sourced,
    pub exec: Sourced,
    pub exit: Sourced,
    pub brk: Sourced,
    pub per_page_vm: Sourced,
}

/// Instructions run while holding each of the kernel's other locks.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KernelHolds {
    pub pidlock: Sourced,
    pub freemem: Sourced,
    pub anon: Sourced,
    #[serde(rename = "as")]
    pub as_lock: Sourced,
    pub vnode: Sourced,
    /// The dispatcher's scheduling lock while a thread is put on the
    /// dispatch queue (`setbackdq`), and while one is taken off (`disp`).
    pub disp_enqueue: Sourced,
    pub disp_dequeue: Sourced,
}

/// One multiprocessor preset.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MpParams {
    pub machine: String,
    pub source: String,
    pub clock_mhz: Sourced,
    pub max_cpus: Sourced,
    pub tlb_entries: Sourced,
    pub cpi: Sourced,
    pub l2_hit_cycles: Sourced,
    pub memory_cycles: Sourced,
    pub atomic_cycles: Sourced,
    pub xcall_send_cycles: Sourced,
    pub xcall_receive_cycles: Sourced,
    pub xcall_latency_cycles: Sourced,
    pub wakeup_cycles: Sourced,
    pub user_work_scale: Sourced,
    /// The share of physical memory the hat's pool of level-2 and level-3
    /// tables may hold (seed 003 section 6.2: "a fixed percentage of
    /// physical memory ... calculated at boot time"); beyond it the hat
    /// steals a table.
    pub table_pool_fraction: Sourced,
    pub path: Paths,
    pub lock: KernelHolds,
}

impl MpParams {
    /// A shipped preset by name, or a TOML file by path.
    pub fn load(name_or_path: &str) -> Result<Self, String> {
        let (origin, text) = match name_or_path {
            "sparccenter-2000" => ("presets/mp/sparccenter-2000.toml".to_string(), SPARCCENTER.to_string()),
            p if p.ends_with(".toml") => {
                (p.to_string(), std::fs::read_to_string(p).map_err(|e| format!("{p}: cannot read: {e}"))?)
            }
            other => {
                return Err(format!("unknown mp preset {other:?}; known: sparccenter-2000, or a path to a .toml file"))
            }
        };
        Self::parse(&origin, &text)
    }

    pub fn parse(origin: &str, text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start].lines().count().max(1));
            match line {
                Some(l) => format!("{origin}: line {l}: {}", e.message()),
                None => format!("{origin}: {}", e.message()),
            }
        })
    }

    pub fn cycle_ns(&self) -> f64 {
        1000.0 / self.clock_mhz.value
    }

    /// Every number with its source, by its key in the file.
    pub fn sources(&self) -> BTreeMap<String, (f64, String)> {
        let mut m = BTreeMap::new();
        let mut put = |k: &str, s: &Sourced| {
            m.insert(k.to_string(), (s.value, s.source.clone()));
        };
        put("clock_mhz", &self.clock_mhz);
        put("max_cpus", &self.max_cpus);
        put("tlb_entries", &self.tlb_entries);
        put("cpi", &self.cpi);
        put("l2_hit_cycles", &self.l2_hit_cycles);
        put("memory_cycles", &self.memory_cycles);
        put("atomic_cycles", &self.atomic_cycles);
        put("xcall_send_cycles", &self.xcall_send_cycles);
        put("xcall_receive_cycles", &self.xcall_receive_cycles);
        put("xcall_latency_cycles", &self.xcall_latency_cycles);
        put("wakeup_cycles", &self.wakeup_cycles);
        put("user_work_scale", &self.user_work_scale);
        put("table_pool_fraction", &self.table_pool_fraction);
        let p = &self.path;
        for (k, s) in [
            ("path.syscall", &p.syscall),
            ("path.fault", &p.fault),
            ("path.hat_load", &p.hat_load),
            ("path.hat_unload", &p.hat_unload),
            ("path.hat_chprot", &p.hat_chprot),
            ("path.mapping_step", &p.mapping_step),
            ("path.fork", &p.fork),
            ("path.exec", &p.exec),
            ("path.exit", &p.exit),
            ("path.brk", &p.brk),
            ("path.per_page_vm", &p.per_page_vm),
        ] {
            put(k, s);
        }
        let l = &self.lock;
        for (k, s) in [
            ("lock.pidlock", &l.pidlock),
            ("lock.freemem", &l.freemem),
            ("lock.anon", &l.anon),
            ("lock.as", &l.as_lock),
            ("lock.vnode", &l.vnode),
            ("lock.disp_enqueue", &l.disp_enqueue),
            ("lock.disp_dequeue", &l.disp_dequeue),
        ] {
            put(k, s);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_preset_loads_and_every_number_has_a_source() {
        let p = MpParams::load("sparccenter-2000").expect("worked by hand");
        assert_eq!(p.clock_mhz.value, 50.0);
        assert_eq!(p.tlb_entries.value, 64.0);
        assert!(p.sources().values().all(|(_, s)| !s.trim().is_empty()));
    }

    #[test]
    fn unknown_key_names_its_line() {
        let text = SPARCCENTER.replace("[cpi]", "[cpu_speed]");
        let e = MpParams::parse("x.toml", &text).expect_err("must fail");
        assert!(e.starts_with("x.toml: line "), "{e}");
        assert!(e.contains("cpu_speed"), "{e}");
    }
}
