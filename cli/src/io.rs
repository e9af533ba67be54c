//! Reading input files (or stdin) within the size limit, and writing output.

use crate::Failure;
use actionseal_core::{canonicalize, parse, Options, OwnedValue};
use std::io::{self, Read, Write};
use std::path::Path;

/// Reads the file or stdin (`None` or `-`), stopping one byte past the size limit so that an
/// endless stream is refused by the core's size check rather than read to the end.
pub(crate) fn read_input(file: Option<&Path>, options: &Options) -> Result<Vec<u8>, Failure> {
    let limit = options.max_bytes.saturating_add(1) as u64;
    let mut buf = Vec::new();
    let result = match file.filter(|p| *p != Path::new("-")) {
        Some(path) => std::fs::File::open(path)
            .and_then(|f| f.take(limit).read_to_end(&mut buf))
            .map_err(|e| Failure::Io(format!("cannot read {}: {e}", path.display()))),
        None => io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut buf)
            .map_err(|e| Failure::Io(format!("cannot read stdin: {e}"))),
    };
    result.map(|_| buf)
}

pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Io(format!("cannot write output: {e}")))
}

/// The JSON value in the file or stdin (`None` or `-`), read strictly; bad input names the
/// file.
pub(crate) fn read_json(path: Option<&Path>, options: &Options) -> Result<OwnedValue, Failure> {
    let bytes = read_input(path, options)?;
    let name = path.map_or("stdin".into(), |p| p.display().to_string());
    parse(&bytes, options)
        .map(|v| v.into_owned())
        .map_err(|e| Failure::InputIn(name, e))
}

/// Writes a value's canonical JSON and a newline.
pub(crate) fn line(value: &OwnedValue) -> Result<(), Failure> {
    write_stdout(format!("{}\n", canonicalize(value)).as_bytes())
}
