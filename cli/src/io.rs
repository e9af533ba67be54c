//! Reading input files (or stdin) within the size limit, and writing output.

use crate::Failure;
use actionseal_core::{canonicalize, parse, Options, OwnedValue};
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::OnceLock;

mod pretty;

/// How JSON results are printed, chosen once per run from the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Style {
    /// One line of canonical JSON (RFC 8785) and a newline: what scripts read. The default.
    #[default]
    Line,
    /// The same canonical JSON indented two spaces a level (`--pretty`), for people: only
    /// whitespace outside strings differs, so any JSON reader gets the same value.
    Pretty,
}

static STYLE: OnceLock<Style> = OnceLock::new();

/// Sets the run's style (once, from the command line; later calls change nothing).
pub(crate) fn set_style(style: Style) {
    let _ = STYLE.set(style);
}

/// The run's style.
pub(crate) fn style() -> Style {
    STYLE.get().copied().unwrap_or_default()
}

/// Refuses `--pretty` for a command whose output is not one JSON value (canonical bytes, a
/// digest, JSON Lines, a signed note, a story): indenting it would change what it is.
pub(crate) fn not_pretty(what: &str) -> Result<(), Failure> {
    match style() {
        Style::Line => Ok(()),
        Style::Pretty => Err(Failure::Usage(format!(
            "--pretty indents JSON results; {what} is not one"
        ))),
    }
}

/// A value as the run prints it: its canonical JSON in the run's style, and a newline.
pub(crate) fn json_text(value: &OwnedValue) -> String {
    let canonical = canonicalize(value);
    match style() {
        Style::Line => format!("{canonical}\n"),
        Style::Pretty => format!("{}\n", pretty::indent(&canonical)),
    }
}

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

/// Writes a value's canonical JSON in the run's style, and a newline.
pub(crate) fn line(value: &OwnedValue) -> Result<(), Failure> {
    write_stdout(json_text(value).as_bytes())
}
