//! The `profile` keyword argument, read into the facts core's rules take.

use crate::error::to_py;
use crate::text::{utf8, Utf8Error};
use actionseal_core::host::{self, HostType, OptionsArg, ProfileArg as Fact};
use actionseal_core::{Options, Profile};
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

    /// A `str` that core parses as a profile name; anything else is core's `invalid_option`.
    fn extract(ob: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let py = ob.py();
        let options = |fact| host::options(OptionsArg::Given(fact)).map_err(|e| to_py(py, &e));
        if !ob.is_instance_of::<PyString>() {
            let name = ob.get_type().name()?.to_string();
            return options(Fact::Other(HostType::Object(Some(&name))))
                .map(|o| ProfileArg(o.profile));
        }
        // SAFETY: `ob` is a str, borrowed for the duration of this call.
        let lossy;
        let name = match unsafe { utf8(py, ob.as_ptr()) } {
            Ok(name) => name,
            // No profile name has a surrogate; core words the error.
            Err(Utf8Error::LoneSurrogate) => {
                lossy = ob.cast::<PyString>()?.to_string_lossy().into_owned();
                &lossy
            }
            Err(Utf8Error::Python(e)) => return Err(e),
        };
        options(Fact::Name(name)).map(|o| ProfileArg(o.profile))
    }
}

/// The functions of the approval model take no profile: core refuses one (`invalid_option`),
/// since they never round a number. `profile` is the keyword's value, if one was given.
pub(crate) fn refuse(py: Python<'_>, profile: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let arg = match profile {
        None => OptionsArg::Absent,
        Some(_) => OptionsArg::Given(Fact::Absent),
    };
    host::no_options(arg).map_err(|e| to_py(py, &e))
}
