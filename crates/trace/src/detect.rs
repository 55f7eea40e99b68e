//! Opening a trace file and telling its format.
//!
//! The sniffed prefix is chained back in front of the file instead of
//! re-opening it, so detection also works on a named pipe.

use std::fs::File;
use std::io::{Cursor, Read};
use std::path::Path;

use vmlab_addr::Asid;

use crate::vmt::format::MAGIC;
use crate::{din, lackey, text, DinReader, EventSource, LackeyReader, Location, TraceError, TraceFormat, VmtReader};

/// How much of the file is looked at to find a first record line.
const SNIFF: usize = 64 * 1024;

type Input = std::io::Chain<Cursor<Vec<u8>>, File>;

pub(crate) fn open(path: &Path, format: Option<TraceFormat>) -> Result<Box<dyn EventSource>, TraceError> {
    let mut file = File::open(path).map_err(|e| TraceError::new(path, Location::File, format!("cannot open: {e}")))?;
    let total = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    let mut prefix = Vec::new();
    let format = match format {
        Some(f) => f,
        None => {
            (&mut file)
                .take(SNIFF as u64)
                .read_to_end(&mut prefix)
                .map_err(|e| TraceError::new(path, Location::File, format!("read error: {e}")))?;
            detect(path, &prefix)?
        }
    };
    let input: Input = Cursor::new(prefix).chain(file);
    Ok(match format {
        TraceFormat::Lackey => {
            let r = LackeyReader::new(input, path).refusing_empty();
            Box::new(match total {
                Some(t) => r.with_total_len(t),
                None => r,
            })
        }
        TraceFormat::Din => {
            let r = DinReader::new(input, path).refusing_empty();
            Box::new(match total {
                Some(t) => r.with_total_len(t),
                None => r,
            })
        }
        TraceFormat::Vmt => {
            let r = VmtReader::new(input, path)?;
            Box::new(match total {
                Some(t) => r.with_total_len(t),
                None => r,
            })
        }
    })
}

/// Magic first, then the extension, then the first line that carries a record.
pub(crate) fn detect(path: &Path, prefix: &[u8]) -> Result<TraceFormat, TraceError> {
    if prefix.starts_with(&MAGIC) {
        return Ok(TraceFormat::Vmt);
    }
    let ext = path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("vmt") => return Ok(TraceFormat::Vmt),
        Some("din") => return Ok(TraceFormat::Din),
        Some("lackey" | "txt") => return Ok(TraceFormat::Lackey),
        _ => {}
    }
    for (i, line) in prefix.split(|&b| b == b'\n').enumerate() {
        if text::trim_start(line).is_empty() || lackey::is_valgrind_message(line) {
            continue;
        }
        if lackey::parse_line(line, Asid(0)).is_ok() {
            return Ok(TraceFormat::Lackey);
        }
        if din::parse_line(line, Asid(0)).is_ok() {
            return Ok(TraceFormat::Din);
        }
        return Err(TraceError::new(
            path,
            Location::Line(i as u64 + 1),
            format!(
                "cannot tell the trace format: `{}` is neither a lackey nor a din record and the file has no \
                 .vmt magic; name the format (lackey, din or vmt)",
                text::show(line)
            ),
        ));
    }
    Err(TraceError::new(
        path,
        Location::File,
        "cannot tell the trace format: no record in the first 64 KiB; name the format (lackey, din or vmt)",
    ))
}
