//! Prints every S2 measurement with the preset's costs (for a quick look).
fn main() -> Result<(), String> {
    let cost = vmlab_os::CostModel::load("hp9000-834")?;
    for m in vmlab_os::experiments::all(&cost)? {
        println!(
            "{:12} {:15} {:?} {:6} {:9.1} us  {:?}",
            m.group,
            m.variant,
            m.cache,
            m.bytes,
            cost.micros(&m.counters),
            m.warm_lines
        );
    }
    Ok(())
}
