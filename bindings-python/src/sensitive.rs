//! Sensitive values (issue 29): committing an action's sensitive values (`commit_action`), the
//! salts drawn from the OS CSPRNG, and revealing them again (`reveal_action`). Core reads every
//! argument and decides every code (`actionseal_core::sensitive::calls`).

use crate::_actionseal::{keywords, profile_in};
use crate::contract::contract_arg;
use crate::convert::{with_each, with_value, with_value_at};
use crate::error::to_py;
use crate::profile::refuse;
use crate::salts;
use crate::to_py;
use actionseal_core::sensitive::{calls, SALT_BYTES};
use actionseal_core::{Options, Value};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Fills `slots` from the operating system's CSPRNG, the source of ``os.urandom``
/// (getrandom(2), through the block of `salts`): read here, since no Python code may run
/// while the arguments are borrowed.
fn draw(slots: &mut [[u8; SALT_BYTES]]) -> PyResult<()> {
    salts::draw(slots.as_flattened_mut())
        .map_err(|e| PyOSError::new_err(format!("no random salt: {e}")))
}

/// The action envelope for a call of ``contract``'s tool with each value the contract marks sensitive committed: ``{action, action_digest, disclosures}``, each disclosure salted from the host's CSPRNG (``salts``, one base64url 16-byte salt per value, only for reproducible tests).
///
/// The arguments are validated in the clear (their own codes, under ``/args``), the identities
/// as ``action`` checks them; then each sensitive value is replaced by ``{"_sd":
/// "sha256:<hex>"}``. Store the disclosures apart from the action: they are the values. Under a
/// contract without sensitive pointers this is ``action``'s envelope and no disclosure.
/// ``salts`` given must be one per sensitive value (``invalid_request`` under ``/salts``);
/// never reuse one.
#[pyfunction]
#[pyo3(
    signature = (contract, args, *, salts = None, **ids),
    text_signature = "(contract, args, *, tenant, subject, job_id, request_id, policy_version, salts=None)"
)]
pub(crate) fn commit_action<'py>(
    contract: &Bound<'py, PyAny>,
    args: &Bound<'py, PyAny>,
    salts: Option<&Bound<'py, PyAny>>,
    ids: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = args.py();
    refuse(py, profile_in(ids)?.as_ref())?;
    let contract = contract_arg(contract)?;
    // Core reads the keywords and salts as data, so that it decides what each may be.
    let ids = keywords(py, ids)?;
    let salts = match salts {
        Some(s) => with_value(s, &Options::default(), |v| v.clone().into_owned())?,
        None => Value::Null,
    };
    let committed = with_value_at(args, "args", &Options::default(), |a| {
        calls::commit(&contract, a, &ids, &salts, draw)
    })??
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &committed)
}

/// The committed ``action`` with its sensitive values back from ``disclosures``, each checked against the commitment at its place: ``every`` needs them all (to run the call), ``given`` leaves the rest committed (to show a reviewer); raises the disclosure_* codes.
///
/// ``disclosure_extra``, ``disclosure_mismatch``, ``invalid_disclosure`` and
/// ``disclosure_not_canonical`` are at the disclosure's index in the list;
/// ``disclosure_missing`` and ``not_committed`` at the place in the action. An action of
/// another contract is ``invalid_action`` at ``/contract``.
#[pyfunction]
pub(crate) fn reveal_action<'py>(
    contract: &Bound<'py, PyAny>,
    action: &Bound<'py, PyAny>,
    disclosures: &Bound<'py, PyAny>,
    coverage: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = contract.py();
    let contract = contract_arg(contract)?;
    let revealed = with_each(
        [action, disclosures, coverage],
        &Options::default(),
        |[a, d, c]| calls::reveal(&contract, a, d, c),
    )?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &revealed)
}
