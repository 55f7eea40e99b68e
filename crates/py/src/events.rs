//! Events given from Python as tuples.
//!
//! * `(kind, addr, size)` or `(kind, addr, size, asid)`: a reference; `kind`
//!   is `ifetch`/`load`/`store`/`modify` or lackey's `I`/`L`/`S`/`M`;
//! * `("switch", asid)`: a context switch;
//! * `("flush",)`: write back and invalidate every cache.
//! * `("syscall", name_or_number, ret, args[, asid])`: a system-call marker
//!   (`read` or 0; `ret` is `-errno` on failure; `args` up to six
//!   integers); it becomes the marker and one event per argument.

use pyo3::prelude::*;
use pyo3::types::{PyInt, PySequence};
use vmlab_addr::{Asid, VirtAddr};
use vmlab_trace::{AccessKind, Event, Syscall};

use crate::vmlab_error;

const FORMS: &str = "expected (kind, addr, size[, asid]) with kind one of ifetch, load, store, modify \
                     (or I, L, S, M), (\"switch\", asid), (\"flush\",) or \
                     (\"syscall\", name_or_number, ret, args[, asid])";

fn kind_of(name: &str) -> Option<AccessKind> {
    Some(match name {
        "ifetch" | "I" | "i" => AccessKind::Ifetch,
        "load" | "L" | "l" => AccessKind::Load,
        "store" | "S" | "s" => AccessKind::Store,
        "modify" | "M" | "m" => AccessKind::Modify,
        _ => return None,
    })
}

fn one(item: &Bound<'_, PyAny>, out: &mut Vec<Event>) -> Result<(), String> {
    let seq = item.cast::<PySequence>().map_err(|_| format!("got {}; {FORMS}", describe(item)))?;
    let n = seq.len().map_err(|e| e.to_string())?;
    let get = |i: usize| seq.get_item(i).map_err(|e| e.to_string());
    if n == 0 {
        return Err(format!("got an empty tuple; {FORMS}"));
    }
    let head = get(0)?;
    let name: String = head.extract().map_err(|_| format!("the kind {} is not a string; {FORMS}", describe(&head)))?;
    let int = |i: usize, what: &str| unsigned(&get(i)?, what, 64);
    let small = |i: usize, what: &str| -> Result<u32, String> {
        u32::try_from(unsigned(&get(i)?, what, 32)?).map_err(|e| e.to_string())
    };
    let event = match (name.as_str(), n) {
        ("switch", 2) => Event::ContextSwitch(Asid(small(1, "asid")?)),
        ("flush", 1) => Event::FlushAll,
        ("syscall", 4 | 5) => {
            let which = get(1)?;
            let number = match which.extract::<String>() {
                Ok(s) => vmlab_trace::syscall::number(&s).ok_or_else(|| {
                    format!("unknown system call {s:?}: a name from vmlab_trace::syscall::NAMES or syscall_N")
                })?,
                Err(_) => u16::try_from(unsigned(&which, "system-call number", 16)?).map_err(|e| e.to_string())?,
            };
            let ret: i64 = get(2)?.extract().map_err(|_| "the result is not a 64-bit signed integer".to_string())?;
            let args_obj = get(3)?;
            let args =
                args_obj.cast::<PySequence>().map_err(|_| format!("args {} is not a sequence", describe(&args_obj)))?;
            let nargs = args.len().map_err(|e| e.to_string())?;
            if nargs > vmlab_trace::syscall::MAX_ARGS {
                return Err(format!("{nargs} arguments; a system call has at most {}", vmlab_trace::syscall::MAX_ARGS));
            }
            let asid = if n == 5 { small(4, "asid")? } else { 0 };
            out.push(Event::Syscall(Syscall { ret, asid: Asid(asid), number, nargs: nargs as u8 }));
            for k in 0..nargs {
                let a = args.get_item(k).map_err(|e| e.to_string())?;
                out.push(Event::SyscallArg(unsigned(&a, "argument", 64)?));
            }
            return Ok(());
        }
        (k, 3 | 4) if kind_of(k).is_some() => {
            let kind = kind_of(k).ok_or_else(|| FORMS.to_string())?;
            let addr = int(1, "address")?;
            let size = small(2, "size")?;
            if size == 0 {
                return Err("size 0: a reference touches at least one byte".into());
            }
            let asid = if n == 4 { small(3, "asid")? } else { 0 };
            Event::access(kind, VirtAddr(addr), size, Asid(asid))
        }
        _ => return Err(format!("got {}; {FORMS}", describe(item))),
    };
    out.push(event);
    Ok(())
}

/// `v` as an integer of `bits` bits (at most 64), or a message giving the range
/// and whether `v` was negative, too large or no integer at all.
fn unsigned(v: &Bound<'_, PyAny>, what: &str, bits: u32) -> Result<u64, String> {
    let range = format!("expected an integer from 0 to 2^{bits}-1");
    let fits = v.extract::<u64>().ok().filter(|&n| bits >= 64 || n >> bits == 0);
    fits.ok_or_else(|| {
        if !v.is_instance_of::<PyInt>() {
            format!("{what} {} is not an integer: {range}", describe(v))
        } else if v.lt(0).unwrap_or(false) {
            format!("{what} {} is negative: {range}", describe(v))
        } else {
            format!("{what} {} does not fit in {bits} bits: {range}", describe(v))
        }
    })
}

fn describe(v: &Bound<'_, PyAny>) -> String {
    let text = v.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// Converts an iterable of event tuples; errors name the event's index.
pub(crate) fn events_from_python(events: &Bound<'_, PyAny>) -> PyResult<Vec<Event>> {
    let mut out = Vec::new();
    for (i, item) in events.try_iter()?.enumerate() {
        let item = item?;
        one(&item, &mut out).map_err(|m| vmlab_error(format!("events[{i}]: {m}")))?;
    }
    Ok(out)
}
