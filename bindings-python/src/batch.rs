//! Batches: building one (`batch_build`), a reviewer's deselection (`batch_deselect`), an
//! item's inclusion (`batch_verify_item`), the decision over one (`batch_decide`,
//! `batch_verify_decision`), the checks of its items before dispatch (`check_item`,
//! `check_batch`) and its circuit breaker (`breaker_step`). Core reads every argument and
//! decides every code (`actionseal_core::batch::calls`, `check_item`, `check_batch`).

use crate::_actionseal::{keywords, profile_in};
use crate::contract::contract_arg;
use crate::convert::with_each;
use crate::error::to_py;
use crate::profile::refuse;
use crate::{context, to_py};
use actionseal_core::batch::{calls, check_batch_values, check_item_with};
use actionseal_core::host::approval_set;
use actionseal_core::Options;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The batch of ``actions`` under the contract, as a reviewer's page and an executor need it: the frozen header, the batch fingerprint a decision binds, each item's fingerprint, task id and inclusion proof, and the totals under the caps; ``server`` narrows the contract's batch policy.
///
/// ``contract`` is a ``Contract`` or a contract document with a ``batch`` member
/// (``batch_not_allowed`` otherwise); ``semantics`` is ``"all_or_nothing"`` or
/// ``"per_item"``; ``actions`` are action envelopes of its tool, in one tenant, with distinct
/// task identities. Returns ``{"header", "batch_digest", "items": [{"index", "task_id",
/// "action_digest", "proof"}], "totals", "caps"}``. Raises ActionsealError
/// ``batch_too_large`` past ``max_items``, ``batch_cap_exceeded`` when the whole list breaks
/// a cap (the path names the item), ``invalid_batch`` for a malformed list.
#[pyfunction]
#[pyo3(signature = (contract, semantics, actions, server = None))]
pub(crate) fn batch_build<'py>(
    contract: &Bound<'py, PyAny>,
    semantics: &Bound<'py, PyAny>,
    actions: &Bound<'py, PyAny>,
    server: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = contract.py();
    let contract = contract_arg(contract)?;
    let none = py.None().into_bound(py);
    let server = server.unwrap_or(&none);
    let built = with_each(
        [semantics, actions, server],
        &Options::default(),
        |[s, a, p]| calls::build(contract.document(), s, a, p),
    )?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &built)
}

/// The batch ``batch_build`` makes without the items at ``indices`` (a reviewer's deselection): the remainder, its new fingerprint, and ``proposed_digest``, the fingerprint of the batch as proposed.
///
/// The remainder keeps the items' order; each index must name an item, once, and at least one
/// item must remain (``invalid_batch``). The arguments are ``batch_build``'s, with
/// ``indices`` before the optional ``server``.
#[pyfunction]
#[pyo3(signature = (contract, semantics, actions, indices, server = None))]
pub(crate) fn batch_deselect<'py>(
    contract: &Bound<'py, PyAny>,
    semantics: &Bound<'py, PyAny>,
    actions: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    server: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = contract.py();
    let contract = contract_arg(contract)?;
    let none = py.None().into_bound(py);
    let server = server.unwrap_or(&none);
    let kept = with_each(
        [semantics, actions, server, indices],
        &Options::default(),
        |[s, a, p, i]| calls::deselect(contract.document(), s, a, p, i),
    )?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &kept)
}

/// Verifies that ``item`` (``{action, proof}``) is in the batch ``header`` describes: its inclusion proof leads to the header's root; raises ``not_in_batch`` otherwise.
///
/// Returns ``{"action_digest", "batch_digest", "index"}``: the item's fingerprint, the
/// batch's and the item's position. A malformed header or item is ``invalid_batch``.
#[pyfunction]
pub(crate) fn batch_verify_item<'py>(
    header: &Bound<'py, PyAny>,
    item: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = header.py();
    let verified = with_each([header, item], &Options::default(), |[h, i]| {
        calls::verify_item(h, i)
    })?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &verified)
}

/// The decision record of a reviewer's decision about the whole batch ``header`` describes: ``batch`` (the frozen header) and ``batch_digest`` in place of an approval's ``action`` and ``action_digest``.
///
/// The keywords are ``approve``'s (``proposed_digest``: the batch as proposed, when the
/// reviewer deselected items). The record is signed with ``SigningKey.sign``, approved with
/// a passkey and counted in a quorum as an approval record is. Raises ActionsealError for a
/// malformed header (``invalid_batch``) or decision (``invalid_approval`` at the keyword).
#[pyfunction]
#[pyo3(
    signature = (header, **decision),
    text_signature = "(header, *, approval_id, decision_id, decision, approver, decided_at, expires_at, proposed_digest=..., role=..., on_behalf_of=..., delegation=...)"
)]
pub(crate) fn batch_decide<'py>(
    header: &Bound<'py, PyAny>,
    decision: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = header.py();
    refuse(py, profile_in(decision)?.as_ref())?;
    let decision = keywords(py, decision)?;
    let record = with_each([header], &Options::default(), |[h]| {
        calls::decide(h, &decision)
    })?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &record)
}

/// Verifies the proof a batch decision carries (a signed envelope or a passkey-approved record) against the key set, the key judged at ``at``; raises why it does not hold.
///
/// Returns ``{"approval", "signer"}`` as ``verify_proof`` does, ``approval`` the batch
/// decision record. A bare record is ``missing_proof``; an approval of one action is
/// ``invalid_approval``.
#[pyfunction]
pub(crate) fn batch_verify_decision<'py>(
    decision: &Bound<'py, PyAny>,
    keys: &Bound<'py, PyAny>,
    at: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = decision.py();
    let verified = with_each([decision, keys, at], &Options::default(), |[d, k, a]| {
        calls::verify_decision(d, k, a)
    })?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &verified)
}

/// The permit check of one item of a batch before dispatch: the batch decision(s) checked as ``check_set`` checks approvals of one action, but against the item (``{action, proof}``: its inclusion first, ``not_in_batch``) and its frozen action (drift). Only a malformed context raises.
///
/// ``approvals`` is a list of batch decision records (bare, signed or passkey-approved;
/// several for a quorum); ``action`` is the action presented for dispatch; ``context`` is
/// ``check``'s, with the batch's ``breaker`` state when it has one (``"open"`` is
/// ``breaker_open``). Dispatch only on ``"permit"``.
#[pyfunction]
pub(crate) fn check_item<'py>(
    approvals: &Bound<'py, PyAny>,
    item: &Bound<'py, PyAny>,
    action: &Bound<'py, PyAny>,
    context: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = action.py();
    let context = context::read(context)?;
    let verdict = with_each(
        [approvals, item, action],
        &Options::default(),
        |[s, i, a]| approval_set(s).map(|members| check_item_with(members, i, a, &context)),
    )?
    .map_err(|e| to_py(py, &e))?;
    to_py::verdict(py, &verdict, None)
}

/// The permit check of several items of one batch (``items[i]`` presented as ``actions[i]``), each as ``check_item`` checks it, and which of them may be claimed now: under ``all_or_nothing`` every item or none, under ``per_item`` each permitted one.
///
/// Returns ``{"semantics", "claimable", "verdicts"}``. ``items`` and ``actions`` are lists
/// of one length (``invalid_request`` otherwise); a malformed context raises.
#[pyfunction]
pub(crate) fn check_batch<'py>(
    approvals: &Bound<'py, PyAny>,
    items: &Bound<'py, PyAny>,
    actions: &Bound<'py, PyAny>,
    context: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = actions.py();
    let context = context::read(context)?;
    let checked = with_each(
        [approvals, items, actions],
        &Options::default(),
        |[s, i, a]| check_batch_values(approval_set(s)?, i, a, &context).map(|v| v.to_value()),
    )?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &checked)
}

/// One event of a batch's circuit breaker: ``policy`` its thresholds and ``breaker`` its stored state (null or None: no thresholds, a new closed breaker), ``event`` ``{kind: claim | outcome | redecided, outcome?, at}``. Returns the new state and the transition; a claim while open raises ``breaker_open``.
///
/// Returns ``{"breaker", "transition": "none" | "tripped" | "half_opened" | "closed",
/// "trip": "failures" | "claim_rate" | None}``. A claim over the per-minute rate trips it and
/// is refused (``breaker_open``).
#[pyfunction]
pub(crate) fn breaker_step<'py>(
    policy: &Bound<'py, PyAny>,
    breaker: &Bound<'py, PyAny>,
    event: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = event.py();
    let stepped = with_each([policy, breaker, event], &Options::default(), |[p, b, e]| {
        calls::breaker_step(p, b, e)
    })?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &stepped)
}
