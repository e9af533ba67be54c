//! Internals the fuzz targets compare with the public API (feature `fuzzing`, not a public API).

use crate::json::canon::{canonicalize_text, write_text, REARRANGE_MAX};
use crate::Options;

/// The direct text path alone: the canonical bytes of `input`, or `None` where it gives up
/// (and [`crate::canonicalize_json`] falls back to the full parser).
pub fn direct_canonical(input: &[u8], options: &Options) -> Option<Vec<u8>> {
    options.check().ok()?;
    let mut out = Vec::new();
    canonicalize_text(input, options, &mut out).then_some(out)
}

/// [`direct_canonical`], rewriting objects whose members need sorting in place only up to
/// `rearrange_max` bytes and giving larger ones a sorted member list: 0 and `usize::MAX`
/// exercise one way of ordering members each.
pub fn direct_canonical_with(
    input: &[u8],
    options: &Options,
    rearrange_max: usize,
) -> Option<Vec<u8>> {
    options.check().ok()?;
    let mut out = Vec::new();
    write_text(input, options, &mut out, rearrange_max).then_some(out)
}

/// The limit [`direct_canonical`] uses for rewriting objects in place.
pub const DEFAULT_REARRANGE_MAX: usize = REARRANGE_MAX;
