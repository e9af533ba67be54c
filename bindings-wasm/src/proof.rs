//! Proof of who decided: service keys and signed decisions (`SigningKey`, `publicKey`,
//! `verifyEnvelope`), passkey approvals (`passkeyChallenge`, `verifyRegistration`,
//! `verifyPasskey`), either (`verifyProof`), and the two primitives under them
//! (`ed25519Verify`, `pae`), for checking against published vectors.
//!
//! Every argument is JSON data, converted as `fingerprint` converts it; byte strings are
//! unpadded base64url strings, as everywhere in the proof format. Core reads them all and
//! decides every code (`actionseal_core::proof`).

use crate::host::{self, Fail};
use crate::to_js;
use actionseal_core::proof::{self, Accept};
use actionseal_core::{sign_approval, Options, OwnedValue, SigningKey, Value};
use actionseal_js::wasm::HOST;
use std::cell::Cell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The key the last `__actionsealLend` call handed over, until [`lent`] takes it.
    static LENT: Cell<Option<SigningKey>> = const { Cell::new(None) };
    /// `SigningKey.prototype` (see [`make_prototype`]).
    static PROTOTYPE: JsValue = make_prototype();
}

/// Converts the values of one call in one walk and hands them to `f`.
fn with<const N: usize, R>(
    values: [&JsValue; N],
    f: impl FnOnce(&[Value<'_>; N]) -> actionseal_core::Result<R>,
) -> Result<R, Fail> {
    host::convert(&values, &Options::default(), None, |v, _| {
        match v.try_into() {
            Ok(v) => f(v).map_err(Fail::Core),
            Err(_) => Err(Fail::Js(host::internal("value count"))),
        }
    })?
}

/// Runs a core call that returns JSON and hands back a fresh JavaScript copy of its result.
fn json<const N: usize>(
    values: [&JsValue; N],
    f: impl FnOnce(&[Value<'_>; N]) -> actionseal_core::Result<OwnedValue>,
) -> Result<JsValue, JsValue> {
    to_js::value(&with(values, f)?)
}

/// An Ed25519 private key that signs approval records; immutable, not picklable.
///
/// An Ed25519 private key that signs approval records (service-signed decisions).
///
/// `new SigningKey(key)` loads a private key: a JWK `{ kty: 'OKP', crv: 'Ed25519', d, x }`
/// (`x` must be the public key of `d`; `kid`, if present, its RFC 7638 thumbprint) or the
/// 32-byte seed as a base64url string; it throws `invalid_key` (or `invalid_base64`)
/// otherwise. `SigningKey.generate()` makes a new one from `crypto.getRandomValues`. `keyid`
/// and `publicJwk` go into the executor's key set; `toJwk()` is the secret to store.
///
/// It lives in WebAssembly memory: `free()` (or `using`) releases it at once, garbage
/// collection otherwise.
#[wasm_bindgen(js_name = SigningKey)]
pub struct JsSigningKey {
    inner: SigningKey,
}

#[wasm_bindgen(js_class = SigningKey)]
impl JsSigningKey {
    /// Loads a private JWK (with `d`) or a base64url seed; raises `invalid_key`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Ed25519PrivateJwk | string")] key: JsValue,
    ) -> Result<JsSigningKey, JsValue> {
        Ok(JsSigningKey {
            inner: with([&key], |[k]| SigningKey::from_value(k))?,
        })
    }

    /// A new key whose seed comes from `os.urandom`.
    ///
    /// A new key whose 32-byte seed comes from the host's CSPRNG (`crypto.getRandomValues`);
    /// core draws no randomness itself.
    pub fn generate() -> Result<JsSigningKey, JsValue> {
        let bytes = HOST.with(|h| h.seed())?;
        let mut seed = [0u8; 32];
        if bytes.length() != 32 {
            return Err(host::internal("the host's seed is not 32 bytes"));
        }
        bytes.copy_to(&mut seed);
        Ok(JsSigningKey {
            inner: SigningKey::from_seed(&seed),
        })
    }

    /// The public key's RFC 7638 thumbprint.
    ///
    /// The RFC 7638 thumbprint of the public key: its keyid in a key set and in envelopes.
    #[wasm_bindgen(getter)]
    pub fn keyid(&self) -> String {
        self.inner.public_key().keyid().to_owned()
    }

    /// The public JWK, with `kid`, for the executor's key set.
    ///
    /// The public JWK `{ crv, kid, kty, x }`: what the executor's key set holds under
    /// `service_keys[keyid].key`. A fresh object on each access.
    #[wasm_bindgen(getter, js_name = publicJwk, unchecked_return_type = "Ed25519Jwk")]
    pub fn public_jwk(&self) -> Result<JsValue, JsValue> {
        to_js::value(&self.inner.public_key().to_jwk())
    }

    /// The private JWK: keep it secret.
    ///
    /// The private JWK `{ crv, d, kid, kty, x }`, which `new SigningKey` loads again: keep it
    /// secret.
    #[wasm_bindgen(js_name = toJwk, unchecked_return_type = "Ed25519PrivateJwk")]
    pub fn to_jwk(&self) -> Result<JsValue, JsValue> {
        to_js::value(&self.inner.to_jwk())
    }

    /// The DSSE envelope of a sealed approval record (deterministic).
    ///
    /// Signs an approval record: the DSSE envelope `{ payload, payloadType, signatures:
    /// [{ keyid, sig }] }` whose payload is the record's canonical bytes. Throws
    /// `invalid_approval` for a record that is malformed or not sealed. Ed25519 is
    /// deterministic: the same record and key give the same envelope in every runtime.
    #[wasm_bindgen(unchecked_return_type = "SignedEnvelope")]
    pub fn sign(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ApprovalRecord")] record: JsValue,
    ) -> Result<JsValue, JsValue> {
        json([&record], |[r]| sign_approval(r, &self.inner))
    }

    /// Not part of the API: hands this key to Rust code that was given the instance as a
    /// plain value (`signDelegation`'s key).
    #[wasm_bindgen(js_name = __actionsealLend, skip_typescript)]
    pub fn lend_self(&self) {
        LENT.set(Some(self.inner.clone()));
    }
}

/// The key of a `SigningKey` instance; `None` for anything else (plain data is not asked). An
/// exception from a getter or Proxy trap, or from a freed instance, is passed on.
pub(crate) fn lent(value: &JsValue) -> Result<Option<SigningKey>, JsValue> {
    LENT.set(None);
    let proto = PROTOTYPE.with(Clone::clone);
    match HOST.with(|h| h.lend(value, &proto))? {
        true => Ok(LENT.take()),
        false => Ok(None),
    }
}

/// `SigningKey.prototype`: Rust cannot name the class the generated glue defines, so it makes
/// one instance once (of a fixed seed, never used to sign) and takes its prototype; the
/// garbage collector frees the instance.
fn make_prototype() -> JsValue {
    let key = JsSigningKey {
        inner: SigningKey::from_seed(&[0; 32]),
    };
    js_sys::Object::get_prototype_of(&key.into()).into()
}

/// A public key (JWK or raw base64url) as its normalized JWK, `kid` its thumbprint.
///
/// A public key, given as a JWK or as the raw 32 bytes in base64url, as its normalized public
/// JWK `{ crv, kid, kty, x }`; `kid` is the RFC 7638 thumbprint, the keyid under which a key
/// set files it. Throws `invalid_key` or `invalid_base64`.
#[wasm_bindgen(js_name = publicKey, unchecked_return_type = "Ed25519Jwk")]
pub fn public_key(
    #[wasm_bindgen(unchecked_param_type = "Ed25519Jwk | string")] key: JsValue,
) -> Result<JsValue, JsValue> {
    json([&key], |[k]| proof::public_jwk(k))
}

/// Verifies a signed envelope against the executor's key set, each key judged at `at` (ms: the
/// verifier's clock, or a ledger's `verified_at`); raises why it does not hold.
///
/// Verifies a signed envelope against the executor's key set, judging each key's validity
/// window at `at` (ms: the verifier's `Date.now()`, or a ledger's recorded `verified_at`;
/// never the record's `decided_at`, which its signer wrote), and returns `{ approval, signer:
/// { kind: 'service', keyid } }`. The keyid is only a hint; trust comes from the key set.
#[wasm_bindgen(js_name = verifyEnvelope, unchecked_return_type = "VerifiedProof")]
pub fn verify_envelope(
    #[wasm_bindgen(unchecked_param_type = "SignedEnvelope")] envelope: JsValue,
    #[wasm_bindgen(unchecked_param_type = "KeySet")] keys: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] at: JsValue,
) -> Result<JsValue, JsValue> {
    json([&envelope, &keys, &at], |[e, k, t]| {
        proof::verify(e, k, t, Accept::Envelope)
    })
}

/// Verifies a passkey-approved record against the key set, the credential judged at `at`; raises
/// why it does not hold.
///
/// Verifies a passkey-approved record against the key set, judging the credential at `at`,
/// and returns `{ approval: <the
/// record without its assertion>, signer: { kind: 'passkey', credential_id, algorithm } }`.
#[wasm_bindgen(js_name = verifyPasskey, unchecked_return_type = "VerifiedProof")]
pub fn verify_passkey(
    #[wasm_bindgen(unchecked_param_type = "PasskeyApprovedRecord")] record: JsValue,
    #[wasm_bindgen(unchecked_param_type = "KeySet")] keys: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] at: JsValue,
) -> Result<JsValue, JsValue> {
    json([&record, &keys, &at], |[r, k, t]| {
        proof::verify(r, k, t, Accept::Passkey)
    })
}

/// `verify_envelope` or `verify_passkey`, whichever proof the approval carries.
///
/// `verifyEnvelope` or `verifyPasskey`, whichever proof `approval` carries; a bare record
/// throws `missing_proof`.
#[wasm_bindgen(js_name = verifyProof, unchecked_return_type = "VerifiedProof")]
pub fn verify_proof(
    #[wasm_bindgen(unchecked_param_type = "SignedEnvelope | PasskeyApprovedRecord")]
    approval: JsValue,
    #[wasm_bindgen(unchecked_param_type = "KeySet")] keys: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] at: JsValue,
) -> Result<JsValue, JsValue> {
    json([&approval, &keys, &at], |[a, k, t]| {
        proof::verify(a, k, t, Accept::Either)
    })
}

/// The base64url challenge a passkey signs to approve `record`: its fingerprint.
///
/// The challenge a reviewer's passkey signs to approve `record`, in base64url: the 32 bytes of
/// the fingerprint of the record without its `passkey` member. Its bytes are the `challenge`
/// of `navigator.credentials.get`.
#[wasm_bindgen(js_name = passkeyChallenge)]
pub fn passkey_challenge(
    #[wasm_bindgen(unchecked_param_type = "ApprovalRecord | PasskeyApprovedRecord")]
    record: JsValue,
) -> Result<String, JsValue> {
    Ok(host::with_value(
        &record,
        &Options::default(),
        proof::challenge,
    )?)
}

/// Verifies a passkey registration ("none" attestation) for the challenge issued.
///
/// Verifies what `navigator.credentials.create` returned (`{ credential_id,
/// attestation_object, client_data_json }`, base64url) for the `challenge` the server issued
/// (base64url) and the relying party `{ rp_id, origins }`; returns `{ algorithm,
/// credential_id, public_key }` for the key set's `passkeys`.
#[wasm_bindgen(js_name = verifyRegistration, unchecked_return_type = "PasskeyCredential")]
pub fn verify_registration(
    #[wasm_bindgen(unchecked_param_type = "PasskeyRegistration")] registration: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] challenge: JsValue,
    #[wasm_bindgen(unchecked_param_type = "RelyingParty")] webauthn: JsValue,
) -> Result<JsValue, JsValue> {
    json([&registration, &challenge, &webauthn], |[r, c, w]| {
        proof::verify_registration(r, c, w)
    })
}

/// Verifies a plain Ed25519 signature (base64url) strictly; raises `invalid_signature`.
///
/// Verifies a plain Ed25519 `signature` of `message` (both base64url) with `key` strictly.
/// Throws `invalid_signature` when it does not hold. For checking the primitive against
/// published vectors and other libraries.
#[wasm_bindgen(js_name = ed25519Verify)]
pub fn ed25519_verify(
    #[wasm_bindgen(unchecked_param_type = "Ed25519Jwk | string")] key: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] message: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] signature: JsValue,
) -> Result<(), JsValue> {
    Ok(with([&key, &message, &signature], |[k, m, s]| {
        proof::verify_ed25519(k, m, s)
    })?)
}

/// DSSE's pre-authentication encoding of a payload (base64url in and out).
///
/// DSSE's pre-authentication encoding of `payloadType` and `payload` (base64url), in
/// base64url: the bytes an envelope's signature covers.
#[wasm_bindgen(js_name = pae)]
pub fn pae(
    #[wasm_bindgen(js_name = payloadType, unchecked_param_type = "string")] payload_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] payload: JsValue,
) -> Result<String, JsValue> {
    Ok(with([&payload_type, &payload], |[t, p]| proof::pae(t, p))?)
}
