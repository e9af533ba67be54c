//! Proof of who decided: service keys and signed decisions (`SigningKey`, `public_key`,
//! `verify_envelope`), passkey approvals (`passkey_challenge`, `verify_registration`,
//! `verify_passkey`), either (`verify_proof`), and the two primitives under them
//! (`ed25519_verify`, `pae`), for checking against published vectors.
//!
//! Every argument is JSON data, converted as `fingerprint` converts it; byte strings are
//! unpadded base64url `str`s, as everywhere in the proof format. Core reads them all and
//! decides every code (`actionseal_core::proof`).

use crate::convert::{with_each, with_value};
use crate::error::to_py;
use crate::to_py;
use actionseal_core::proof::{self, Accept};
use actionseal_core::{sign_approval, Options, SigningKey};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// An Ed25519 private key that signs approval records; immutable, not picklable.
///
/// An Ed25519 private key that signs approval records (service-signed decisions).
///
/// ``SigningKey(key)`` loads a private key: a JWK ``{"kty": "OKP", "crv": "Ed25519", "d",
/// "x"}`` (``x`` must be the public key of ``d``; ``kid``, if present, its RFC 7638
/// thumbprint) or the 32-byte seed as a base64url ``str``; ActionsealError ``invalid_key``
/// (or ``invalid_base64``) otherwise. ``SigningKey.generate()`` makes a new one from
/// ``os.urandom``. ``keyid`` and ``public_jwk`` go into the executor's key set; ``to_jwk()``
/// is the secret to store. Not picklable: a private key is not copied by accident.
#[pyclass(frozen, module = "actionseal", name = "SigningKey")]
pub(crate) struct PySigningKey(pub(crate) SigningKey);

#[pymethods]
impl PySigningKey {
    #[new]
    fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
        let py = key.py();
        with_value(key, &Options::default(), SigningKey::from_value)?
            .map(PySigningKey)
            .map_err(|e| to_py(py, &e))
    }

    /// A new key whose seed comes from ``os.urandom``.
    ///
    /// A new key whose 32-byte seed comes from ``os.urandom`` (the operating system's
    /// CSPRNG); core does no I/O and draws no randomness itself.
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        let random = py.import("os")?.call_method1("urandom", (32,))?;
        let bytes = random.cast::<PyBytes>()?.as_bytes();
        let seed: [u8; 32] = bytes.try_into().map_err(|_| {
            pyo3::exceptions::PySystemError::new_err("os.urandom(32) did not give 32 bytes")
        })?;
        Ok(PySigningKey(SigningKey::from_seed(&seed)))
    }

    /// The public key's RFC 7638 thumbprint.
    ///
    /// The RFC 7638 thumbprint of the public key: its keyid in a key set and in envelopes.
    #[getter]
    fn keyid(&self) -> &str {
        self.0.public_key().keyid()
    }

    /// The public JWK, with ``kid``, for the executor's key set.
    ///
    /// The public JWK ``{"crv", "kid", "kty", "x"}``: what the executor's key set holds under
    /// ``service_keys[keyid]["key"]``. A new dict on each access.
    #[getter]
    fn public_jwk<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py::value(py, &self.0.public_key().to_jwk())
    }

    /// The private JWK: keep it secret.
    ///
    /// The private JWK ``{"crv", "d", "kid", "kty", "x"}``, which ``SigningKey`` loads again:
    /// keep it secret.
    fn to_jwk<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py::value(py, &self.0.to_jwk())
    }

    /// The DSSE envelope of a sealed approval record (deterministic).
    ///
    /// Signs an approval record: the DSSE envelope ``{"payload", "payloadType",
    /// "signatures": [{"keyid", "sig"}]}`` whose payload is the record's canonical bytes.
    /// Raises ActionsealError for a record that is malformed or not sealed (its
    /// ``action_digest`` not its frozen action's fingerprint): ``invalid_approval``.
    /// Ed25519 is deterministic: the same record and key give the same envelope everywhere.
    fn sign<'py>(&self, record: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = record.py();
        let envelope = with_value(record, &Options::default(), |r| sign_approval(r, &self.0))?
            .map_err(|e| to_py(py, &e))?;
        to_py::value(py, &envelope)
    }

    fn __repr__(&self) -> String {
        format!("SigningKey(keyid='{}')", self.0.public_key().keyid())
    }
}

/// Runs a core call over converted arguments and turns its JSON result into Python values.
fn call<'py, const N: usize>(
    py: Python<'py>,
    args: [&Bound<'py, PyAny>; N],
    f: impl FnOnce(
        [&actionseal_core::Value<'_>; N],
    ) -> actionseal_core::Result<actionseal_core::OwnedValue>,
) -> PyResult<Bound<'py, PyAny>> {
    let out = with_each(args, &Options::default(), f)?.map_err(|e| to_py(py, &e))?;
    to_py::value(py, &out)
}

/// A public key (JWK or raw base64url) as its normalized JWK, ``kid`` its thumbprint.
///
/// A public key, given as a JWK or as the raw 32 bytes in base64url, as its normalized
/// public JWK ``{"crv", "kid", "kty", "x"}``; ``kid`` is the RFC 7638 thumbprint, the keyid
/// under which a key set files it. Raises ActionsealError ``invalid_key`` for anything but
/// the canonical encoding of an Ed25519 point of large order (or a JWK with ``d``: give the
/// public key only), ``invalid_base64`` for another base64 spelling.
#[pyfunction]
pub(crate) fn public_key<'py>(key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    call(key.py(), [key], |[k]| proof::public_jwk(k))
}

/// Verifies a signed envelope against the executor's key set, each key judged at ``at`` (ms: the
/// verifier's clock, or a ledger's ``verified_at``); raises why it does not hold.
///
/// Verifies a signed envelope against the executor's key set (``{"service_keys",
/// "passkeys", "webauthn"}``), judging each key's validity window at ``at`` (ms since the
/// epoch: the verifier's own clock, or a ledger's recorded ``verified_at``; never the record's
/// ``decided_at``, which its signer wrote), and returns ``{"approval": <the record>, "signer": {"kind":
/// "service", "keyid"}}``. The keyid is only a hint where to look; trust comes from the key
/// set. Raises ActionsealError with why it does not hold: ``invalid_envelope``,
/// ``payload_type_mismatch``, ``unknown_key``, ``invalid_signature``,
/// ``non_canonical_payload``, ``invalid_approval``, ``key_outside_window``,
/// ``signer_not_allowed``, ... (or the key set's own error).
#[pyfunction]
pub(crate) fn verify_envelope<'py>(
    envelope: &Bound<'py, PyAny>,
    keys: &Bound<'py, PyAny>,
    at: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    call(envelope.py(), [envelope, keys, at], |[e, k, t]| {
        proof::verify(e, k, t, Accept::Envelope)
    })
}

/// Verifies a passkey-approved record against the key set, the credential judged at ``at``; raises
/// why it does not hold.
///
/// Verifies a passkey-approved record (an approval record with ``"passkey":
/// {"credential_id", "authenticator_data", "client_data_json", "signature"}``) against the
/// key set, judging the credential's window at ``at``, and returns ``{"approval": <the record without its assertion>, "signer": {"kind":
/// "passkey", "credential_id", "algorithm"}}``. Raises ActionsealError with why it does not
/// hold: ``missing_proof``, ``unknown_key``, ``invalid_signature``, ``challenge_mismatch``,
/// ``origin_not_allowed``, ``rp_id_mismatch``, ``user_not_verified``, ``invalid_assertion``,
/// ``passkey_too_large``, ``cbor_limit_exceeded``, ``signer_not_allowed``, ``key_outside_window``,
/// ...
#[pyfunction]
pub(crate) fn verify_passkey<'py>(
    record: &Bound<'py, PyAny>,
    keys: &Bound<'py, PyAny>,
    at: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    call(record.py(), [record, keys, at], |[r, k, t]| {
        proof::verify(r, k, t, Accept::Passkey)
    })
}

/// ``verify_envelope`` or ``verify_passkey``, whichever proof the approval carries.
///
/// ``verify_envelope`` or ``verify_passkey``, whichever proof ``approval`` carries; a bare
/// record raises ActionsealError ``missing_proof``.
#[pyfunction]
pub(crate) fn verify_proof<'py>(
    approval: &Bound<'py, PyAny>,
    keys: &Bound<'py, PyAny>,
    at: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    call(approval.py(), [approval, keys, at], |[a, k, t]| {
        proof::verify(a, k, t, Accept::Either)
    })
}

/// The base64url challenge a passkey signs to approve ``record``: its fingerprint.
///
/// The challenge a reviewer's passkey signs to approve ``record``, in base64url: the 32
/// bytes of the fingerprint of the record without its ``passkey`` member (which still binds
/// the action digest, approver, decision and expiry). Pass its bytes as the ``challenge`` of
/// ``navigator.credentials.get``.
#[pyfunction]
pub(crate) fn passkey_challenge(record: &Bound<'_, PyAny>) -> PyResult<String> {
    with_value(record, &Options::default(), proof::challenge)
}

/// Verifies a passkey registration ("none" attestation) for the challenge issued.
///
/// Verifies what ``navigator.credentials.create`` returned, given as ``{"credential_id",
/// "attestation_object", "client_data_json"}`` (base64url), for the ``challenge`` the server
/// issued (base64url) and the relying party ``{"rp_id", "origins"}``; returns
/// ``{"algorithm": "ES256" | "EdDSA", "credential_id", "public_key"}``, what the key set
/// files under ``passkeys[credential_id]`` with the reviewer's ``approver``. Raises
/// ActionsealError ``invalid_registration`` (or ``challenge_mismatch``,
/// ``origin_not_allowed``, ``rp_id_mismatch``, ``user_not_verified``, ``invalid_key``,
/// ``passkey_too_large``, ``cbor_limit_exceeded``).
#[pyfunction]
pub(crate) fn verify_registration<'py>(
    registration: &Bound<'py, PyAny>,
    challenge: &Bound<'py, PyAny>,
    webauthn: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    call(
        registration.py(),
        [registration, challenge, webauthn],
        |[r, c, w]| proof::verify_registration(r, c, w),
    )
}

/// Verifies a plain Ed25519 signature (base64url) strictly; raises ``invalid_signature``.
///
/// Verifies a plain Ed25519 ``signature`` of ``message`` (both base64url) with ``key`` (a
/// JWK or raw base64url) strictly: small-order keys and non-canonical signatures are
/// refused. Returns None; raises ActionsealError ``invalid_signature`` when it does not hold.
/// For checking the primitive against published vectors and other libraries.
#[pyfunction]
pub(crate) fn ed25519_verify(
    key: &Bound<'_, PyAny>,
    message: &Bound<'_, PyAny>,
    signature: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let py = key.py();
    with_each(
        [key, message, signature],
        &Options::default(),
        |[k, m, s]| proof::verify_ed25519(k, m, s),
    )?
    .map_err(|e| to_py(py, &e))
}

/// DSSE's pre-authentication encoding of a payload (base64url in and out).
///
/// DSSE's pre-authentication encoding of ``payload_type`` (a str) and ``payload``
/// (base64url), in base64url: ``"DSSEv1" SP len(type) SP type SP len(body) SP body``, the
/// bytes an envelope's signature covers.
#[pyfunction]
pub(crate) fn pae(payload_type: &Bound<'_, PyAny>, payload: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = payload.py();
    with_each([payload_type, payload], &Options::default(), |[t, p]| {
        proof::pae(t, p)
    })?
    .map_err(|e| to_py(py, &e))
}
