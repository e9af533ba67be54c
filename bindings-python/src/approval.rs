//! `actionseal.Approval`: an approval record loaded once, for an executor that checks it
//! repeatedly.

use crate::convert::with_value;
use crate::error::to_py;
use crate::profile::refuse;
use crate::to_py;
use actionseal_core::{Approval, Options};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

/// An approval record loaded once, for repeated checks; immutable, thread-safe, picklable.
///
/// ``Approval(record)`` reads a record made by ``approve`` (kept in the executor's storage)
/// and raises ActionsealError ``invalid_approval`` (or the frozen action's own error under
/// ``/action``) when it is not one: a record that cannot be loaded is invalid, and the call it
/// was for is rejected. Pass the object to ``check`` in place of the record: it is not read
/// again, and its frozen action not fingerprinted again, on each check. ``sealed`` says
/// whether its ``action_digest`` is its frozen action's fingerprint; ``check`` rejects one
/// that is not (``invalid_approval``). Immutable; safe to share between threads; picklable.
#[pyclass(frozen, module = "actionseal", name = "Approval")]
pub(crate) struct PyApproval {
    pub(crate) approval: Approval,
    /// `action_digest` as a Python string, made once: checks of this approval return it.
    pub(crate) digest: Py<PyString>,
}

#[pymethods]
impl PyApproval {
    #[new]
    #[pyo3(signature = (record, *, profile = None), text_signature = "(record)")]
    fn new(record: &Bound<'_, PyAny>, profile: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let py = record.py();
        refuse(py, profile)?;
        let approval = with_value(record, &Options::default(), Approval::from_value)?
            .map_err(|e| to_py(py, &e))?;
        let digest = PyString::new(py, approval.action_digest().text().as_str()).unbind();
        Ok(PyApproval { approval, digest })
    }

    /// The record as loaded (a new dict on each access).
    #[getter]
    fn record<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py::value(py, self.approval.value())
    }

    /// The frozen action (a new dict on each access).
    #[getter]
    fn action<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py::value(py, self.approval.action().value())
    }

    /// The fingerprint the record claims for its frozen action.
    ///
    /// The fingerprint the record claims for its frozen action (``"sha256:<64 hex>"``).
    #[getter]
    fn action_digest(&self) -> String {
        self.approval.action_digest().to_string()
    }

    /// Whether ``action_digest`` is the frozen action's fingerprint.
    ///
    /// Whether ``action_digest`` is the frozen action's fingerprint (a record whose action was
    /// edited after the decision is not sealed).
    #[getter]
    fn sealed(&self) -> bool {
        self.approval.is_sealed()
    }

    /// Pickles as the record, which is loaded again on unpickling.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let record = to_py::value(py, slf.get().approval.value())?;
        Ok((slf.get_type().into_any(), PyTuple::new(py, [record])?))
    }
}
