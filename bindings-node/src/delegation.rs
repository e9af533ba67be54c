//! Delegation: signing a delegation document (`signDelegation`), verifying one link of a
//! chain (`verifyDelegation`) and a document's digest (`delegationDigest`), the name by which
//! revocation facts and verdicts refer to a link. Core reads every argument and decides every
//! code (`actionseal_core::proof`).

use crate::host;
use crate::proof::SigningKey;
use crate::run;
use crate::to_js;
use actionseal_core::{proof, Options, SigningKey as CoreKey};
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

/// The DSSE envelope of a delegation document signed by `key` (a `SigningKey`, or what `SigningKey` loads), deterministic.
///
/// Signs a delegation document `{ delegation_id, delegator, delegate, tenant, tools, when?,
/// not_before, not_after }`: the DSSE envelope `{ payload, payloadType:
/// 'application/vnd.actionseal.delegation+json', signatures }` whose payload is the
/// document's canonical bytes. The key set that verifies it must let the key sign for the
/// delegator. Throws for a malformed document or key (`invalid_key`).
#[napi(
    ts_args_type = "document: DelegationDocument, key: SigningKey | Ed25519PrivateJwk | string",
    ts_return_type = "SignedDelegation"
)]
pub fn sign_delegation(
    env: Env,
    document: Unknown<'_>,
    key: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let options = Options::default();
        let key = match crate::js::unwrapped(js, key.raw(), |k: &SigningKey| k.inner.clone())? {
            Some(k) => k,
            None => host::with_value(js, key.raw(), &options, |k, _| CoreKey::from_value(k))??,
        };
        let envelope = host::with_value(js, document.raw(), &options, |d, _| {
            actionseal_core::sign_delegation(d, &key)
        })??;
        to_js::value(js, &envelope)
    })
}

/// Verifies one link of a delegation chain (a signed envelope, a passkey-approved document or a bare document) against the key set, the key judged at `at`; raises why it does not hold.
///
/// Verifies a delegation link against the executor's key set, judging the key's window at
/// `at` (ms: the verifier's `Date.now()`), and returns `{ delegation, digest, signer }`
/// (`signer` is `null` for a bare document, which only a context that does not require proof
/// accepts). Throws with why it does not hold, as `verifyEnvelope` does
/// (`invalid_signature`, `unknown_key`, `signer_not_allowed`, `key_outside_window`, ...), or
/// the document's own error.
#[napi(
    ts_args_type = "link: SignedDelegation | DelegationDocument, keys: KeySet, at: number",
    ts_return_type = "VerifiedDelegation"
)]
pub fn verify_delegation(
    env: Env,
    link: Unknown<'_>,
    keys: Unknown<'_>,
    at: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let values = [link.raw(), keys.raw(), at.raw()];
        let verified = host::with_values(js, values, &Options::default(), None, None, |v, _| {
            let [l, k, t] = v;
            proof::verify_delegation(l, k, t)
        })??;
        to_js::value(js, &verified)
    })
}

/// `"sha256:<64 hex>"` of a delegation document: the name a chain's links, revocation facts and verdicts give it.
///
/// The fingerprint of a delegation document (not of its envelope): what a verdict's
/// `quorum.counted[].delegations` lists and what the context's `delegations_revoked` facts
/// name. Throws for a malformed document.
#[napi(ts_args_type = "document: DelegationDocument")]
pub fn delegation_digest(env: Env, document: Unknown<'_>) -> Result<String> {
    run(&env, |js| {
        let digest = host::with_value(js, document.raw(), &Options::default(), |d, _| {
            actionseal_core::delegation_digest(d)
        })??;
        Ok(digest.to_string())
    })
}
