//! Internals the fuzz targets compare with the public API (feature `fuzzing`, not a public API).

use crate::json::canon::canonicalize_text;
use crate::Options;

/// The direct text path alone: the canonical bytes of `input`, or `None` where it gives up
/// (and [`crate::canonicalize_json`] falls back to the full parser).
pub fn direct_canonical(input: &[u8], options: &Options) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    canonicalize_text(input, options, &mut out).then_some(out)
}
