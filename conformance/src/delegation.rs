//! Expected results of the delegation vectors (`vectors/delegation/`), computed by the Rust
//! core. Each vector names its operation in `op`; inputs that are JSON are raw texts:
//!
//! - `verify_delegation`: `link` (envelope, passkey-approved or bare document), `keys` (key
//!   set), `at` (the verifier's time in ms, at which the key's window is judged) →
//!   `{"delegation", "digest", "signer"}`;
//! - `delegation_digest`: `document` → `{"digest"}`;
//! - `check_set`: `approvals` (JSON texts), `action`, `context` → the verdict, as for
//!   `vectors/quorum/` ([`crate::quorum::check_set_result`]).
//!
//! Any of them may instead give `{"error", "path"}`.

use crate::decisions::core_value;
use actionseal_core::{
    canonicalize, delegation_digest, verify_delegation, Error, KeySet, OwnedValue,
};
use serde_json::{json, Map, Value as Json};

fn text<'d>(doc: &'d Map<String, Json>, key: &str) -> Result<&'d str, String> {
    doc.get(key)
        .and_then(Json::as_str)
        .ok_or_else(|| format!("{key} must be a string"))
}

fn value(doc: &Map<String, Json>, key: &str) -> Result<Result<OwnedValue, Error>, String> {
    text(doc, key).map(core_value)
}

fn to_json(v: &OwnedValue) -> Json {
    serde_json::from_str(&canonicalize(v)).expect("canonical text is JSON")
}

/// The result of one delegation vector.
pub fn delegation_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let out = match text(doc, "op")? {
        "verify_delegation" => {
            let at = doc
                .get("at")
                .and_then(Json::as_i64)
                .ok_or("at must be an integer")?;
            let link = value(doc, "link")?;
            value(doc, "keys")?
                .and_then(|k| KeySet::from_value(&k))
                .and_then(|keys| verify_delegation(&link?, &keys, at))
                .map(|v| to_json(&v.to_value()))
        }
        "delegation_digest" => value(doc, "document")?
            .and_then(|d| delegation_digest(&d))
            .map(|d| json!({"digest": d.to_string()})),
        "check_set" => return crate::quorum::check_set_result(doc),
        other => return Err(format!("unknown op {other:?}")),
    };
    Ok(out.unwrap_or_else(|e| json!({"error": e.code().as_str(), "path": e.path()})))
}
