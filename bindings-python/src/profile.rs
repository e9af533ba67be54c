//! The `profile` keyword argument.

use crate::error::to_py;
use crate::text::{utf8, Utf8Error};
use actionseal_core::{Options, Profile};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// A `profile=` argument: a profile name that core recognises.
#[derive(Clone, Copy)]
pub(crate) struct ProfileArg(pub(crate) Profile);

/// The default `profile=`: core's default profile.
pub(crate) const DEFAULT: ProfileArg = ProfileArg(Profile::Strict);

impl ProfileArg {
    /// Core's options with this profile and the default limits.
    pub(crate) fn options(self) -> Options {
        Options::with_profile(self.0)
    }
}

impl FromPyObject<'_, '_> for ProfileArg {
    type Error = PyErr;

    /// A `str` that core parses as a profile name; an unknown name is `invalid_option`.
    fn extract(ob: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let py = ob.py();
        if !ob.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(format!(
                "profile must be a str, not {}",
                ob.get_type().name()?
            )));
        }
        // SAFETY: `ob` is a str, borrowed for the duration of this call.
        let parsed = match unsafe { utf8(py, ob.as_ptr()) } {
            Ok(name) => name.parse::<Profile>(),
            // No profile name has a surrogate; core words the error.
            Err(Utf8Error::LoneSurrogate) => ob.cast::<PyString>()?.to_string_lossy().parse(),
            Err(Utf8Error::Python(e)) => return Err(e),
        };
        parsed.map(ProfileArg).map_err(|e| to_py(py, &e))
    }
}
