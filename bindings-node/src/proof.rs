//! Proof of who decided: service keys and signed decisions (`SigningKey`, `publicKey`,
//! `verifyEnvelope`), passkey approvals (`passkeyChallenge`, `verifyRegistration`,
//! `verifyPasskey`), either (`verifyProof`), and the two primitives under them
//! (`ed25519Verify`, `pae`), for checking against published vectors.
//!
//! Every argument is JSON data, converted as `fingerprint` converts it; byte strings are
//! unpadded base64url strings, as everywhere in the proof format. Core reads them all and
//! decides every code (`actionseal_core::proof`).

use crate::fail::Fail;
use crate::host;
use crate::instance;
use crate::js::{Handle, Js, JsResult};
use crate::run;
use crate::to_js;
use actionseal_core::proof::{self, Accept};
use actionseal_core::{sign_approval, Options, OwnedValue, SigningKey as CoreKey, Value};
use napi::bindgen_prelude::{Env, Unknown};
use napi::sys::TypedarrayType;
use napi::{JsValue, Result};
use napi_derive::napi;

/// Runs `f` on the converted values of `values`, read in one walk.
fn with<const N: usize, R>(
    js: Js,
    values: [Handle; N],
    f: impl FnOnce(&[Value<'_>; N]) -> actionseal_core::Result<R>,
) -> JsResult<R> {
    Ok(host::with_values(
        js,
        values,
        &Options::default(),
        None,
        None,
        |v, _| f(v),
    )??)
}

/// Runs a core call that returns JSON and hands back a fresh JavaScript copy of its result.
fn json<const N: usize>(
    env: &Env,
    values: [Handle; N],
    f: impl FnOnce(&[Value<'_>; N]) -> actionseal_core::Result<OwnedValue>,
) -> Result<Unknown<'static>> {
    run(env, |js| to_js::value(js, &with(js, values, f)?))
}

/// An Ed25519 private key that signs approval records; immutable, not picklable.
///
/// An Ed25519 private key that signs approval records (service-signed decisions).
///
/// `new SigningKey(key)` loads a private key: a JWK `{ kty: 'OKP', crv: 'Ed25519', d, x }`
/// (`x` must be the public key of `d`; `kid`, if present, its RFC 7638 thumbprint) or the
/// 32-byte seed as a base64url string; it throws `invalid_key` (or `invalid_base64`)
/// otherwise. `SigningKey.generate()` makes a new one from the host's CSPRNG. `keyid` and
/// `publicJwk` go into the executor's key set; `toJwk()` is the secret to store.
#[napi]
pub struct SigningKey {
    pub(crate) inner: CoreKey,
}

#[napi]
impl SigningKey {
    /// Loads a private JWK (with `d`) or a base64url seed; raises `invalid_key`.
    #[napi(constructor, ts_args_type = "key: Ed25519PrivateJwk | string")]
    pub fn new(env: Env, key: Unknown<'_>) -> Result<SigningKey> {
        run(&env, |js| {
            Ok(SigningKey {
                inner: with(js, [key.raw()], |[k]| CoreKey::from_value(k))?,
            })
        })
    }

    /// A new key whose seed comes from `os.urandom`.
    ///
    /// A new key whose 32-byte seed comes from the host's CSPRNG (`crypto.getRandomValues`,
    /// which Node backs with the OpenSSL CSPRNG of `crypto.randomBytes`); core draws no
    /// randomness itself.
    #[napi(factory)]
    pub fn generate(env: Env) -> Result<SigningKey> {
        run(&env, |js| {
            Ok(SigningKey {
                inner: CoreKey::from_seed(&seed(js)?),
            })
        })
    }

    /// The public key's RFC 7638 thumbprint.
    ///
    /// The RFC 7638 thumbprint of the public key: its keyid in a key set and in envelopes.
    #[napi(getter)]
    pub fn keyid(&self) -> String {
        self.inner.public_key().keyid().to_owned()
    }

    /// The public JWK, with `kid`, for the executor's key set.
    ///
    /// The public JWK `{ crv, kid, kty, x }`: what the executor's key set holds under
    /// `service_keys[keyid].key`. A fresh object on each access.
    #[napi(getter, ts_return_type = "Ed25519Jwk")]
    pub fn public_jwk(&self, env: Env) -> Result<Unknown<'static>> {
        run(&env, |js| {
            to_js::value(js, &self.inner.public_key().to_jwk())
        })
    }

    /// The private JWK: keep it secret.
    ///
    /// The private JWK `{ crv, d, kid, kty, x }`, which `new SigningKey` loads again: keep it
    /// secret.
    #[napi(ts_return_type = "Ed25519PrivateJwk")]
    pub fn to_jwk(&self, env: Env) -> Result<Unknown<'static>> {
        run(&env, |js| to_js::value(js, &self.inner.to_jwk()))
    }

    /// The DSSE envelope of a sealed approval record (deterministic).
    ///
    /// Signs an approval record: the DSSE envelope `{ payload, payloadType, signatures:
    /// [{ keyid, sig }] }` whose payload is the record's canonical bytes. Throws
    /// `invalid_approval` for a record that is malformed or not sealed (its `action_digest`
    /// not its frozen action's fingerprint). Ed25519 is deterministic: the same record and key
    /// give the same envelope in every runtime.
    #[napi(
        ts_args_type = "record: ApprovalRecord",
        ts_return_type = "SignedEnvelope"
    )]
    pub fn sign(&self, env: Env, record: Unknown<'_>) -> Result<Unknown<'static>> {
        json(&env, [record.raw()], |[r]| sign_approval(r, &self.inner))
    }
}

/// 32 bytes from the walker's `seed` (the host's CSPRNG).
fn seed(js: Js) -> JsResult<[u8; 32]> {
    let host = instance::get(js, |i| i.host)?;
    let bytes = js.call(js.named(host, c"seed")?, &[])?;
    let info = js
        .typed_array(bytes)?
        .filter(|t| t.kind == TypedarrayType::uint8_array && t.len == 32 && !t.data.is_null())
        .ok_or(Fail::Internal("the host's seed is not 32 bytes"))?;
    let mut seed = [0u8; 32];
    // SAFETY: a live Uint8Array of 32 elements; no JavaScript runs while it is copied.
    seed.copy_from_slice(unsafe { std::slice::from_raw_parts(info.data.cast::<u8>(), 32) });
    Ok(seed)
}

/// A public key (JWK or raw base64url) as its normalized JWK, `kid` its thumbprint.
///
/// A public key, given as a JWK or as the raw 32 bytes in base64url, as its normalized
/// public JWK `{ crv, kid, kty, x }`; `kid` is the RFC 7638 thumbprint, the keyid under which
/// a key set files it. Throws `invalid_key` for anything but the canonical encoding of an
/// Ed25519 point of large order (or a JWK with `d`: give the public key only),
/// `invalid_base64` for another base64 spelling.
#[napi(
    ts_args_type = "key: Ed25519Jwk | string",
    ts_return_type = "Ed25519Jwk"
)]
pub fn public_key(env: Env, key: Unknown<'_>) -> Result<Unknown<'static>> {
    json(&env, [key.raw()], |[k]| proof::public_jwk(k))
}

/// Verifies a signed envelope against the executor's key set, each key judged at `at` (ms: the
/// verifier's clock, or a ledger's `verified_at`); raises why it does not hold.
///
/// Verifies a signed envelope against the executor's key set, judging each key's validity
/// window at `at` (ms since the epoch: the verifier's clock, `Date.now()`, or a ledger's
/// recorded `verified_at`; never the record's `decided_at`, which its signer wrote), and
/// returns `{ approval, signer: { kind: 'service', keyid } }`. The keyid is only a hint where to look; trust comes from
/// the key set. Throws with why it does not hold: `invalid_envelope`,
/// `payload_type_mismatch`, `unknown_key`, `invalid_signature`, `non_canonical_payload`,
/// `invalid_approval`, `key_outside_window`, `signer_not_allowed`, ... (or the key set's own
/// error).
#[napi(
    ts_args_type = "envelope: SignedEnvelope, keys: KeySet, at: number",
    ts_return_type = "VerifiedProof"
)]
pub fn verify_envelope(
    env: Env,
    envelope: Unknown<'_>,
    keys: Unknown<'_>,
    at: Unknown<'_>,
) -> Result<Unknown<'static>> {
    json(&env, [envelope.raw(), keys.raw(), at.raw()], |[e, k, t]| {
        proof::verify(e, k, t, Accept::Envelope)
    })
}

/// Verifies a passkey-approved record against the key set, the credential judged at `at`; raises
/// why it does not hold.
///
/// Verifies a passkey-approved record (an approval record with `passkey: { credential_id,
/// authenticator_data, client_data_json, signature }`) against the key set, judging the
/// credential's window at `at`, and returns `{
/// approval: <the record without its assertion>, signer: { kind: 'passkey', credential_id,
/// algorithm } }`. Throws with why it does not hold: `missing_proof`, `unknown_key`,
/// `invalid_signature`, `challenge_mismatch`, `origin_not_allowed`, `rp_id_mismatch`,
/// `user_not_verified`, `invalid_assertion`, `passkey_too_large`, `cbor_limit_exceeded`,
/// `signer_not_allowed`, `key_outside_window`, ...
#[napi(
    ts_args_type = "record: PasskeyApprovedRecord, keys: KeySet, at: number",
    ts_return_type = "VerifiedProof"
)]
pub fn verify_passkey(
    env: Env,
    record: Unknown<'_>,
    keys: Unknown<'_>,
    at: Unknown<'_>,
) -> Result<Unknown<'static>> {
    json(&env, [record.raw(), keys.raw(), at.raw()], |[r, k, t]| {
        proof::verify(r, k, t, Accept::Passkey)
    })
}

/// `verify_envelope` or `verify_passkey`, whichever proof the approval carries.
///
/// `verifyEnvelope` or `verifyPasskey`, whichever proof `approval` carries; a bare record
/// throws `missing_proof`.
#[napi(
    ts_args_type = "approval: SignedEnvelope | PasskeyApprovedRecord, keys: KeySet, at: number",
    ts_return_type = "VerifiedProof"
)]
pub fn verify_proof(
    env: Env,
    approval: Unknown<'_>,
    keys: Unknown<'_>,
    at: Unknown<'_>,
) -> Result<Unknown<'static>> {
    json(&env, [approval.raw(), keys.raw(), at.raw()], |[a, k, t]| {
        proof::verify(a, k, t, Accept::Either)
    })
}

/// The base64url challenge a passkey signs to approve `record`: its fingerprint.
///
/// The challenge a reviewer's passkey signs to approve `record`, in base64url: the 32 bytes
/// of the fingerprint of the record without its `passkey` member (which still binds the
/// action digest, approver, decision and expiry). Its bytes are the `challenge` of
/// `navigator.credentials.get`.
#[napi(ts_args_type = "record: ApprovalRecord | PasskeyApprovedRecord")]
pub fn passkey_challenge(env: Env, record: Unknown<'_>) -> Result<String> {
    run(&env, |js| {
        host::with_value(js, record.raw(), &Options::default(), |r, _| {
            proof::challenge(r)
        })
    })
}

/// Verifies a passkey registration ("none" attestation) for the challenge issued.
///
/// Verifies what `navigator.credentials.create` returned, given as `{ credential_id,
/// attestation_object, client_data_json }` (base64url), for the `challenge` the server issued
/// (base64url) and the relying party `{ rp_id, origins }`; returns `{ algorithm, credential_id,
/// public_key }`, what the key set files under `passkeys[credential_id]` with the reviewer's
/// `approver`. Throws `invalid_registration` (or `challenge_mismatch`, `origin_not_allowed`,
/// `rp_id_mismatch`, `user_not_verified`, `invalid_key`, `passkey_too_large`,
/// `cbor_limit_exceeded`).
#[napi(
    ts_args_type = "registration: PasskeyRegistration, challenge: string, webauthn: RelyingParty",
    ts_return_type = "PasskeyCredential"
)]
pub fn verify_registration(
    env: Env,
    registration: Unknown<'_>,
    challenge: Unknown<'_>,
    webauthn: Unknown<'_>,
) -> Result<Unknown<'static>> {
    json(
        &env,
        [registration.raw(), challenge.raw(), webauthn.raw()],
        |[r, c, w]| proof::verify_registration(r, c, w),
    )
}

/// Verifies a plain Ed25519 signature (base64url) strictly; raises `invalid_signature`.
///
/// Verifies a plain Ed25519 `signature` of `message` (both base64url) with `key` (a JWK or
/// raw base64url) strictly: small-order keys and non-canonical signatures are refused. Throws
/// `invalid_signature` when it does not hold. For checking the primitive against published
/// vectors and other libraries.
#[napi(ts_args_type = "key: Ed25519Jwk | string, message: string, signature: string")]
pub fn ed25519_verify(
    env: Env,
    key: Unknown<'_>,
    message: Unknown<'_>,
    signature: Unknown<'_>,
) -> Result<()> {
    run(&env, |js| {
        with(
            js,
            [key.raw(), message.raw(), signature.raw()],
            |[k, m, s]| proof::verify_ed25519(k, m, s),
        )
    })
}

/// DSSE's pre-authentication encoding of a payload (base64url in and out).
///
/// DSSE's pre-authentication encoding of `payloadType` and `payload` (base64url), in
/// base64url: `"DSSEv1" SP len(type) SP type SP len(body) SP body`, the bytes an envelope's
/// signature covers.
#[napi(ts_args_type = "payloadType: string, payload: string")]
pub fn pae(env: Env, payload_type: Unknown<'_>, payload: Unknown<'_>) -> Result<String> {
    run(&env, |js| {
        with(js, [payload_type.raw(), payload.raw()], |[t, p]| {
            proof::pae(t, p)
        })
    })
}
