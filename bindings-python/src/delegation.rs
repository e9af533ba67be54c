//! Delegation: signing a delegation document (`sign_delegation`), verifying one link of a
//! chain (`verify_delegation`) and a document's digest (`delegation_digest`), the name by
//! which revocation facts and verdicts refer to a link. Core reads every argument and decides
//! every code (`actionseal_core::proof`).

use crate::convert::{with_each, with_value};
use crate::error::to_py;
use crate::proof::PySigningKey;
use crate::to_py;
use actionseal_core::{proof, Options, SigningKey};
use pyo3::prelude::*;

/// The DSSE envelope of a delegation document signed by ``key`` (a ``SigningKey``, or what ``SigningKey`` loads), deterministic.
///
/// Signs a delegation document ``{"delegation_id", "delegator", "delegate", "tenant",
/// "tools", "when"?, "not_before", "not_after"}``: the DSSE envelope ``{"payload",
/// "payloadType": "application/vnd.actionseal.delegation+json", "signatures"}`` whose
/// payload is the document's canonical bytes. The key set that verifies it must let the key
/// sign for the delegator. Raises ActionsealError for a malformed document (``invalid_delegation``
/// or the code core gives) or key (``invalid_key``).
#[pyfunction]
pub(crate) fn sign_delegation<'py>(
    document: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = document.py();
    let loaded;
    let key: &SigningKey = match key.cast::<PySigningKey>() {
        Ok(k) => &k.get().0,
        Err(_) => {
            loaded = with_value(key, &Options::default(), SigningKey::from_value)?
                .map_err(|e| to_py(py, &e))?;
            &loaded
        }
    };
    let envelope = with_value(document, &Options::default(), |d| {
        actionseal_core::sign_delegation(d, key)
    })?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &envelope)
}

/// Verifies one link of a delegation chain (a signed envelope, a passkey-approved document or a bare document) against the key set, the key judged at ``at``; raises why it does not hold.
///
/// Verifies a delegation link against the executor's key set (``{"service_keys",
/// "passkeys", "webauthn"}``), judging the key's window at ``at`` (ms since the epoch: the
/// verifier's clock), and returns ``{"delegation": <the document>, "digest": "sha256:...",
/// "signer": {...} | None}`` (``None`` for a bare document, which only a context that does not
/// require proof accepts). Raises ActionsealError with why it does not hold, as
/// ``verify_envelope`` does (``invalid_signature``, ``unknown_key``, ``signer_not_allowed``,
/// ``key_outside_window``, ...), or the document's own error.
#[pyfunction]
pub(crate) fn verify_delegation<'py>(
    link: &Bound<'py, PyAny>,
    keys: &Bound<'py, PyAny>,
    at: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = link.py();
    let out = with_each([link, keys, at], &Options::default(), |[l, k, t]| {
        proof::verify_delegation(l, k, t)
    })?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &out)
}

/// ``"sha256:<64 hex>"`` of a delegation document: the name a chain's links, revocation facts and verdicts give it.
///
/// The fingerprint of a delegation document (not of its envelope): what a record's chain
/// lists in a verdict's ``quorum.counted[].delegations`` and what the context's
/// ``delegations_revoked`` facts name. Raises ActionsealError for a malformed document.
#[pyfunction]
pub(crate) fn delegation_digest(document: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = document.py();
    with_value(document, &Options::default(), |d| {
        actionseal_core::delegation_digest(d).map(|digest| digest.to_string())
    })?
    .map_err(|e| to_py(py, &e))
}
