//! Borrowing the UTF-8 text of Python `str` and `bytes` objects without copying.

use actionseal_core::host::HostType;
use pyo3::exceptions::PyUnicodeEncodeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// Why a `str` has no UTF-8 text.
pub(crate) enum Utf8Error {
    /// It holds an unpaired surrogate (`"\ud800"`).
    LoneSurrogate,
    /// Anything else (out of memory); passed on as is.
    Python(PyErr),
}

/// The UTF-8 text of a `str` (or subclass) object, borrowed from the object.
///
/// # Safety
/// `obj` must point to a live `str` object that outlives `'a`. CPython keeps the UTF-8 form
/// in the object until it is freed, and strings are immutable.
pub(crate) unsafe fn utf8<'a>(
    py: Python<'_>,
    obj: *mut ffi::PyObject,
) -> Result<&'a str, Utf8Error> {
    let mut size: ffi::Py_ssize_t = 0;
    // Borrows the UTF-8 form CPython caches in the object: the only way to read a str
    // without copying it under the limited API (from 3.10).
    let data = ffi::PyUnicode_AsUTF8AndSize(obj, &mut size);
    if data.is_null() {
        let err = PyErr::fetch(py);
        return Err(if err.is_instance_of::<PyUnicodeEncodeError>(py) {
            Utf8Error::LoneSurrogate
        } else {
            Utf8Error::Python(err)
        });
    }
    // CPython produced this as well-formed UTF-8 (surrogates were refused above).
    let bytes = std::slice::from_raw_parts(data.cast::<u8>(), size as usize);
    Ok(std::str::from_utf8_unchecked(bytes))
}

/// The bytes of JSON text given as `str` or `bytes`, borrowed from the object that holds them.
///
/// A `str` is read as its UTF-8 form. One holding an unpaired surrogate is encoded with
/// `surrogatepass`, so that core finds the surrogate and reports it with its byte offset,
/// exactly as it does for the same bytes passed directly.
pub(crate) struct JsonText<'py> {
    /// The `str` or `bytes` object that owns the bytes; immutable, so they never change.
    _owner: Bound<'py, PyAny>,
    data: *const u8,
    len: usize,
}

impl<'py> JsonText<'py> {
    /// Accepts `str` or `bytes` (and their subclasses); anything else is core's
    /// `unsupported_type`.
    pub(crate) fn new(text: &Bound<'py, PyAny>) -> PyResult<JsonText<'py>> {
        let py = text.py();
        if text.is_instance_of::<PyString>() {
            // SAFETY: `text` is a str, kept alive by `_owner` as long as the slice is used.
            match unsafe { utf8(py, text.as_ptr()) } {
                Ok(s) => return Ok(JsonText::borrow(text.clone(), s.as_bytes())),
                Err(Utf8Error::LoneSurrogate) => {
                    // SAFETY: a str and two C strings; a new reference or NULL with an error set.
                    let encoded = unsafe {
                        Bound::from_owned_ptr_or_err(
                            py,
                            ffi::PyUnicode_AsEncodedString(
                                text.as_ptr(),
                                c"utf-8".as_ptr(),
                                c"surrogatepass".as_ptr(),
                            ),
                        )?
                    };
                    let bytes = encoded.cast_into::<PyBytes>()?;
                    return Ok(JsonText::from_bytes(bytes));
                }
                Err(Utf8Error::Python(e)) => return Err(e),
            }
        }
        match text.cast::<PyBytes>() {
            Ok(b) => Ok(JsonText::from_bytes(b.clone())),
            Err(_) => {
                let name = text.get_type().name()?.to_string();
                let e = actionseal_core::host::json_text(HostType::Object(Some(&name)));
                Err(crate::error::to_py(py, &e))
            }
        }
    }

    fn from_bytes(b: Bound<'py, PyBytes>) -> JsonText<'py> {
        let (data, len) = (b.as_bytes().as_ptr(), b.as_bytes().len());
        JsonText {
            _owner: b.into_any(),
            data,
            len,
        }
    }

    fn borrow(owner: Bound<'py, PyAny>, bytes: &[u8]) -> JsonText<'py> {
        JsonText {
            _owner: owner,
            data: bytes.as_ptr(),
            len: bytes.len(),
        }
    }

    /// The UTF-8 bytes. They stay valid and unchanged while `self` lives, with or without
    /// the GIL held.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        // SAFETY: the owner keeps the buffer alive and never changes it.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }
}
