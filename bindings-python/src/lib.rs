//! Python bindings for actionseal, built as `actionseal._actionseal` and re-exported by the
//! `actionseal` package.
//!
//! Every rule, default and error text is core's: this crate converts Python values and text
//! to core's input, calls core, and maps the result or error back.

mod convert;
mod error;
mod profile;
mod text;

use pyo3::prelude::*;

/// RFC 8785 canonical JSON and SHA-256 fingerprints that bind approvals to exact actions.
#[pymodule]
mod _actionseal {
    use crate::profile::{ProfileArg, DEFAULT};
    use crate::text::{JsonText, Utf8Error};
    use crate::{convert, error::to_py};
    use pyo3::prelude::*;
    use pyo3::types::PyString;

    #[pymodule_export]
    use crate::error::ActionsealError;

    /// The package version.
    #[allow(non_upper_case_globals)] // a Python dunder name
    #[pymodule_export]
    const __version__: &str = env!("CARGO_PKG_VERSION");

    /// JSON text at least this long is canonicalized with the GIL released, so that other
    /// threads run meanwhile. Shorter calls keep it: they end too soon for parallel work to
    /// pay, and beside a busy thread, releasing made 293-byte calls about 15% slower (the GIL
    /// must be won back). At 4 KiB (about 9 us) the cost was lost in the noise.
    const DETACH_MIN_BYTES: usize = 4096;

    /// The RFC 8785 canonical JSON text of a Python value.
    ///
    /// ``value`` is built from dict (str keys), list, tuple, str, int, float, bool and None.
    /// Raises ActionsealError (with ``code``, ``path`` and ``offset``) for anything JSON
    /// cannot hold exactly: an unsupported type, a non-str key, a lone surrogate, NaN or
    /// infinity, an int the profile cannot keep exact, a cycle, or nesting deeper than 128.
    #[pyfunction]
    #[pyo3(signature = (value, *, profile = DEFAULT), text_signature = "(value, *, profile='strict')")]
    fn canonicalize(value: &Bound<'_, PyAny>, profile: ProfileArg) -> PyResult<String> {
        convert::canonicalize(value, &profile.options())
    }

    /// The fingerprint of a Python value: ``"sha256:"`` and the 64 lowercase hex digits of the
    /// SHA-256 of its canonical text. Accepts and rejects what ``canonicalize`` does.
    #[pyfunction]
    #[pyo3(signature = (value, *, profile = DEFAULT), text_signature = "(value, *, profile='strict')")]
    fn fingerprint(value: &Bound<'_, PyAny>, profile: ProfileArg) -> PyResult<String> {
        convert::fingerprint(value, &profile.options())
    }

    /// The RFC 8785 canonical form of JSON text given as str or UTF-8 bytes.
    ///
    /// The text is parsed strictly: duplicate keys, lone surrogates, a byte-order mark,
    /// non-finite numbers and (under the strict profile) numbers that would change value
    /// raise ActionsealError, whose ``offset`` is a byte offset into the UTF-8 text.
    #[pyfunction]
    #[pyo3(signature = (text, *, profile = DEFAULT), text_signature = "(text, *, profile='strict')")]
    fn canonicalize_json(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        profile: ProfileArg,
    ) -> PyResult<String> {
        let text = JsonText::new(text)?;
        let (bytes, options) = (text.as_bytes(), profile.options());
        let run = || actionseal_core::canonicalize_json(bytes, &options);
        let result = if bytes.len() >= DETACH_MIN_BYTES {
            py.detach(run)
        } else {
            run()
        };
        result.map_err(|e| to_py(py, &e))
    }

    /// The fingerprint (``"sha256:<hex>"``) of the canonical form of JSON text given as str
    /// or UTF-8 bytes. Accepts and rejects what ``canonicalize_json`` does.
    #[pyfunction]
    #[pyo3(signature = (text, *, profile = DEFAULT), text_signature = "(text, *, profile='strict')")]
    fn fingerprint_json(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        profile: ProfileArg,
    ) -> PyResult<String> {
        let text = JsonText::new(text)?;
        let (bytes, options) = (text.as_bytes(), profile.options());
        let run = || actionseal_core::fingerprint_json(bytes, &options).map(|d| d.to_string());
        let result = if bytes.len() >= DETACH_MIN_BYTES {
            py.detach(run)
        } else {
            run()
        };
        result.map_err(|e| to_py(py, &e))
    }

    /// Whether two fingerprints name the same digest, compared in constant time.
    ///
    /// Each must be ``"sha256:"`` followed by 64 lowercase hex digits; a malformed one is
    /// never equal to anything, itself included.
    #[pyfunction]
    fn digest_equal(a: &Bound<'_, PyString>, b: &Bound<'_, PyString>) -> PyResult<bool> {
        match (digest_text(a)?, digest_text(b)?) {
            (Some(a), Some(b)) => Ok(actionseal_core::digest_equal(a, b)),
            _ => Ok(false),
        }
    }

    /// The text of a would-be digest; `None` for a str no digest can be (a lone surrogate).
    fn digest_text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Option<&'a str>> {
        // SAFETY: `s` is a str that outlives the returned slice.
        match unsafe { crate::text::utf8(s.py(), s.as_ptr()) } {
            Ok(t) => Ok(Some(t)),
            Err(Utf8Error::LoneSurrogate) => Ok(None),
            Err(Utf8Error::Python(e)) => Err(e),
        }
    }
}
