//! Expected results of the signed-decision and passkey vectors (`vectors/signed/`,
//! `vectors/passkey/`), computed by the Rust core. Each vector names its operation in `op`:
//!
//! - `ed25519`: `public_key_hex`, `message_hex`, `signature_hex` (and `seed_hex`, whose
//!   signature of the message must be `signature_hex`) → `{"valid": true}`;
//! - `pae`: `payload_type`, `payload_hex` → `{"pae_hex"}`;
//! - `key`: `key` (JSON text: JWK or raw base64url) → `{"keyid", "jwk"}`;
//! - `sign`: `key` (private JWK text), `approval` (record text) → `{"envelope"}` (canonical text);
//! - `verify`: `keys` (key set text), `approval` (envelope or passkey-approved record text),
//!   `at` (the verifier's time in ms, at which the key's window is judged) →
//!   `{"approval": <canonical record>, "signer"}`;
//! - `register`: `registration` (JSON text), `challenge` (base64url), `webauthn` (JSON text) →
//!   `{"algorithm", "credential_id", "public_key"}`;
//! - `challenge`: `approval` (record text) → `{"challenge"}` (base64url of the fingerprint);
//! - `check`: `approval`, `action`, `context` (JSON texts) → the verdict.
//!
//! Any operation may instead give `{"error", "path"}`.

use crate::decisions::{core_value, permit_result};
use actionseal_core::{
    base64url_decode, base64url_encode, canonicalize, ed25519_verify, pae, passkey_challenge,
    sign_approval, verify_proof, Error, KeySet, PublicKey, Registration, SigningKey,
};
use serde_json::{json, Map, Value as Json};

fn error_json(e: &Error) -> Json {
    json!({"error": e.code().as_str(), "path": e.path()})
}

fn string<'d>(doc: &'d Map<String, Json>, key: &str) -> Result<&'d str, String> {
    doc.get(key)
        .and_then(Json::as_str)
        .ok_or_else(|| format!("{key} must be a string"))
}

fn hex(doc: &Map<String, Json>, key: &str) -> Result<Vec<u8>, String> {
    crate::decode_hex(string(doc, key)?).ok_or_else(|| format!("{key} is not hex"))
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The result of one signed or passkey vector.
pub fn proof_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let text = |key: &str| string(doc, key);
    let out = match text("op")? {
        "ed25519" => ed25519(doc)?,
        "pae" => Ok(json!({
            "pae_hex": to_hex(&pae(text("payload_type")?, &hex(doc, "payload_hex")?))
        })),
        "key" => core_value(text("key")?)
            .and_then(|k| PublicKey::from_value(&k))
            .map(|k| json!({"keyid": k.keyid(), "jwk": canonicalize(&k.to_jwk())})),
        "sign" => {
            let approval = text("approval")?;
            core_value(text("key")?)
                .and_then(|k| SigningKey::from_value(&k))
                .and_then(|k| sign_approval(&core_value(approval)?, &k))
                .map(|e| json!({"envelope": canonicalize(&e)}))
        }
        "verify" => {
            let approval = text("approval")?;
            let at = doc
                .get("at")
                .and_then(Json::as_i64)
                .ok_or("at must be an integer")?;
            core_value(text("keys")?)
                .and_then(|k| KeySet::from_value(&k))
                .and_then(|keys| verify_proof(&core_value(approval)?, &keys, at))
                .map(|v| {
                    let full: Json =
                        serde_json::from_str(&canonicalize(&v.to_value())).expect("JSON");
                    json!({"approval": canonicalize(v.approval().value()), "signer": full["signer"]})
                })
        }
        "register" => {
            let challenge =
                base64url_decode(text("challenge")?).map_err(|e| format!("challenge: {e}"))?;
            let registration = text("registration")?;
            core_value(text("webauthn")?)
                .and_then(|rp| Registration::verify(&core_value(registration)?, &challenge, &rp))
                .map(|r| serde_json::from_str(&canonicalize(&r.to_value())).expect("JSON"))
        }
        "challenge" => core_value(text("approval")?)
            .map(|a| json!({"challenge": base64url_encode(passkey_challenge(&a).as_bytes())})),
        "check" => return permit_result(doc),
        other => return Err(format!("unknown op {other:?}")),
    };
    Ok(out.unwrap_or_else(|e| error_json(&e)))
}

fn ed25519(doc: &Map<String, Json>) -> Result<Result<Json, Error>, String> {
    let message = hex(doc, "message_hex")?;
    let signature = hex(doc, "signature_hex")?;
    if doc.contains_key("seed_hex") {
        let seed: [u8; 32] = hex(doc, "seed_hex")?
            .try_into()
            .map_err(|_| "seed_hex is not 32 bytes")?;
        if SigningKey::from_seed(&seed).sign(&message).as_slice() != signature {
            return Err("the seed's signature of the message is not signature_hex".into());
        }
    }
    let key = Json::String(base64url_encode(&hex(doc, "public_key_hex")?));
    let key = core_value(&key.to_string()).map_err(|e| e.to_string())?;
    Ok(ed25519_verify(&key, &message, &signature).map(|()| json!({"valid": true})))
}
