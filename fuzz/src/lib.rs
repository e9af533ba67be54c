//! What the fuzz targets share: structure-aware generators of JSON text and number tokens
//! (driven by libFuzzer's bytes through `arbitrary`), of sets of approvals with delegation
//! chains and their contexts, and the exact decimal reference.

pub mod gen;
pub mod sets;

/// The exact decimal reference, kept with the core's property tests that also use it.
#[path = "../../core/tests/reference/decimal.rs"]
pub mod decimal;
