//! Delegation: signing a delegation document (`signDelegation`), verifying one link of a
//! chain (`verifyDelegation`) and a document's digest (`delegationDigest`), the name by which
//! revocation facts and verdicts refer to a link. Core reads every argument and decides every
//! code (`actionseal_core::proof`).

use crate::host::{self, Fail};
use crate::{error, proof as signing, to_js};
use actionseal_core::{proof, Options, SigningKey};
use wasm_bindgen::prelude::*;

/// The DSSE envelope of a delegation document signed by `key` (a `SigningKey`, or what `SigningKey` loads), deterministic.
///
/// Signs a delegation document `{ delegation_id, delegator, delegate, tenant, tools, when?,
/// not_before, not_after }`: the DSSE envelope `{ payload, payloadType:
/// 'application/vnd.actionseal.delegation+json', signatures }` whose payload is the
/// document's canonical bytes. The key set that verifies it must let the key sign for the
/// delegator. Throws for a malformed document or key (`invalid_key`).
#[wasm_bindgen(js_name = signDelegation, unchecked_return_type = "SignedDelegation")]
pub fn sign_delegation(
    #[wasm_bindgen(unchecked_param_type = "DelegationDocument")] document: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SigningKey | Ed25519PrivateJwk | string")] key: JsValue,
) -> Result<JsValue, JsValue> {
    let options = Options::default();
    let key = match signing::lent(&key)? {
        Some(k) => k,
        None => host::with_value(&key, &options, SigningKey::from_value)?
            .map_err(|e| error::to_js(&e))?,
    };
    let envelope = host::with_value(&document, &options, |d| {
        actionseal_core::sign_delegation(d, &key)
    })?
    .map_err(|e| error::to_js(&e))?;
    to_js::value(&envelope)
}

/// Verifies one link of a delegation chain (a signed envelope, a passkey-approved document or a bare document) against the key set, the key judged at `at`; raises why it does not hold.
///
/// Verifies a delegation link against the executor's key set, judging the key's window at
/// `at` (ms: the verifier's `Date.now()`), and returns `{ delegation, digest, signer }`
/// (`signer` is `null` for a bare document). Throws with why it does not hold, as
/// `verifyEnvelope` does, or the document's own error.
#[wasm_bindgen(js_name = verifyDelegation, unchecked_return_type = "VerifiedDelegation")]
pub fn verify_delegation(
    #[wasm_bindgen(unchecked_param_type = "SignedDelegation | DelegationDocument")] link: JsValue,
    #[wasm_bindgen(unchecked_param_type = "KeySet")] keys: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] at: JsValue,
) -> Result<JsValue, JsValue> {
    let values = [&link, &keys, &at];
    let verified = host::convert(&values, &Options::default(), None, |v, _| {
        proof::verify_delegation(&v[0], &v[1], &v[2]).map_err(Fail::Core)
    })??;
    to_js::value(&verified)
}

/// `"sha256:<64 hex>"` of a delegation document: the name a chain's links, revocation facts and verdicts give it.
///
/// The fingerprint of a delegation document (not of its envelope): what a verdict's
/// `quorum.counted[].delegations` lists and what the context's `delegations_revoked` facts
/// name. Throws for a malformed document.
#[wasm_bindgen(js_name = delegationDigest)]
pub fn delegation_digest(
    #[wasm_bindgen(unchecked_param_type = "DelegationDocument")] document: JsValue,
) -> Result<String, JsValue> {
    let digest = host::with_value(&document, &Options::default(), |d| {
        actionseal_core::delegation_digest(d)
    })?
    .map_err(|e| error::to_js(&e))?;
    Ok(digest.to_string())
}
