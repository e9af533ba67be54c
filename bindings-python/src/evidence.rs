//! Evidence bundles (`verify_evidence`): core reads the bundle and the trust, checks every
//! proof and decides every code (`actionseal_core::evidence`).

use crate::convert::with_each;
use crate::error::to_py;
use crate::to_py;
use actionseal_core::{evidence, Options};
use pyo3::prelude::*;

/// Verifies an evidence bundle without any database: the verified timeline, or raises the first failure with its code and the JSON Pointer of the member that broke.
///
/// ``bundle`` is what ``Ledger.evidence`` (or ``actionseal ledger evidence export``) wrote;
/// ``trust`` is the verifier's own: ``{"ledger_keys": [{"key", "valid_from"?,
/// "valid_until"?}], "witnesses"?: {"keys", "quorum"}, "tsa_roots"?: [base64 DER],
/// "approval_keys"?: <key set>}``. Returns ``{"task", "tenant", "tool", "subject",
/// "contract", "state", "steps": [...], "log": {"origin", "size", "root", "time",
/// "time_source", "witnesses"}, "exported_at", "exported_by"}``. Raises ActionsealError
/// (``invalid_evidence``, ``inclusion_proof_invalid``, ``checkpoint_untrusted``,
/// ``evidence_incomplete``, ``evidence_mismatch``, ``evidence_other_task``, a timestamp's or a
/// proof's own code, ...).
#[pyfunction]
pub(crate) fn verify_evidence<'py>(
    bundle: &Bound<'py, PyAny>,
    trust: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = bundle.py();
    let timeline = with_each([bundle, trust], &Options::default(), |[b, t]| {
        evidence::verify_evidence(b, t).map(|t| t.to_value())
    })?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &timeline)
}
