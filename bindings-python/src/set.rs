//! `check_set`: the permit check of a set of approvals (a quorum's members), each element
//! what `check` takes as its approval. Core decides everything: the set's shape
//! (`host::approval_set`), every member and the quorum.

use crate::context;
use crate::convert::with_values;
use crate::error::to_py;
use crate::to_py;
use actionseal_core::host::approval_set;
use actionseal_core::{check_set_with, Options};
use pyo3::prelude::*;

/// The permit check of a set of approvals (a quorum's members: each a record, a signed envelope or a passkey-approved record, as ``check`` takes one), all about ``action``: does the contract's quorum hold, with every member standing? An empty list is no approval. Only a malformed context or a set that is not a list raises; everything wrong with a member, the set or the action is a reason in the verdict, whose ``quorum`` says who counted and what is missing.
///
/// ``approvals`` is a list (at most 32) of approval records, signed envelopes or
/// passkey-approved records (plain data: an ``Approval`` object is not one), each checked as
/// ``check`` checks its approval; ``context`` is ``check``'s, with the quorum's facts
/// (``approver_roles``, ``proposer``, ``amended_by``, ``delegations_revoked``, and
/// ``approver_authorized`` and ``revoked`` as lists of facts). Returns the verdict of
/// ``check``; when the contract in force has a quorum, its ``quorum`` member is ``{"required",
/// "counted": [{"approver", "role", "decision_id", "delegate", "delegations"}], "missing",
/// "missing_roles": [{"role", "count"}]}``. Dispatch only on ``"permit"``. Raises
/// ActionsealError ``invalid_approval`` for a set that is not a list or has more than 32
/// members, ``invalid_context`` for a malformed context, and the conversion codes for a value
/// that is not JSON.
#[pyfunction]
pub(crate) fn check_set<'py>(
    approvals: &Bound<'py, PyAny>,
    action: &Bound<'py, PyAny>,
    context: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = action.py();
    let context = context::read(context)?;
    let verdict = with_values(approvals, action, &Options::default(), |set, action| {
        approval_set(set).map(|members| check_set_with(members, action, &context))
    })?
    .map_err(|e| to_py(py, &e))?;
    to_py::verdict(py, &verdict, None)
}
