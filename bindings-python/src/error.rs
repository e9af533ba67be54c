//! `ActionsealError`: the one exception every function raises, carrying core's code and location.

use actionseal_core::Error;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;

create_exception!(
    actionseal,
    ActionsealError,
    PyValueError,
    "Raised when input is refused, a value of the wrong type included; ``code`` says why.\n\n\
     Raised when input is refused: JSON that cannot be canonicalized exactly, or a\n\
     contract, action, approval, context or budget that is malformed or does not hold.\n\n\
     Attributes:\n\
     \x20   code: stable snake_case error code (see conformance/codes.json).\n\
     \x20   path: JSON Pointer to the value concerned, \"\" for the root.\n\
     \x20   offset: byte offset in the UTF-8 input text, or None."
);

/// The Python exception for a core error: message is core's `Display` text, and `code`,
/// `path` and `offset` are set as attributes (kept by pickling, which copies `__dict__`).
pub(crate) fn to_py(py: Python<'_>, err: &Error) -> PyErr {
    let exc = ActionsealError::new_err(err.to_string());
    let value = exc.value(py);
    let set = || -> PyResult<()> {
        value.setattr(intern!(py, "code"), err.code().as_str())?;
        value.setattr(intern!(py, "path"), err.path())?;
        value.setattr(intern!(py, "offset"), err.offset())?;
        Ok(())
    };
    match set() {
        Ok(()) => exc,
        Err(e) => e,
    }
}
