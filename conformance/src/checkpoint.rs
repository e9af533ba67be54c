//! Results of the signed-checkpoint vectors (`vectors/checkpoint/`), computed by the Rust core.
//! Each vector names its operation in `op` (see `vectors/checkpoint/README.md`):
//!
//! - `key`: `name`, `seed_hex` → `{"signer", "verifier", "cosigner"}` (key strings);
//! - `sign`: `signer` (key string), `text` → `{"note"}`;
//! - `cosign`: `signer` (the witness's key string), `checkpoint` (text), `timestamp` →
//!   `{"line"}`;
//! - `open`: `note`, `keys` (verifier key strings) → `{"text", "verified": [{"key",
//!   "timestamp"}]}`;
//! - `checkpoint`: `text` → `{"origin", "size" (decimal text), "root_hex", "extensions"}`.
//!
//! Any operation may instead give `{"error", "path", "offset"?}`.

use crate::{decode_hex, error_with_offset};
use actionseal_core::tlog::checkpoint::Checkpoint;
use actionseal_core::tlog::cosignature::Cosigner;
use actionseal_core::tlog::note::{Note, SignerKey, VerifierKey};
use actionseal_core::Error;
use serde_json::{json, Map, Value as Json};

/// The result of the vector `doc`, or why the vector itself is malformed.
pub fn checkpoint_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let s = |key: &str| {
        doc.get(key)
            .and_then(Json::as_str)
            .ok_or_else(|| format!("{key} is not a string"))
    };
    let result = match s("op")? {
        "key" => key(s("name")?, s("seed_hex")?)?,
        "sign" => SignerKey::parse(s("signer")?)
            .and_then(|k| Note::signed(s("text").unwrap_or_default(), &k))
            .map(|n| json!({"note": n.to_string()})),
        "cosign" => {
            let time = doc
                .get("timestamp")
                .and_then(Json::as_u64)
                .ok_or("timestamp")?;
            let signer = SignerKey::parse(s("signer")?);
            let checkpoint = Checkpoint::parse(s("checkpoint")?);
            signer
                .and_then(|k| Cosigner::new(k).cosign(&checkpoint?, time))
                .map(|line| json!({"line": line.to_string()}))
        }
        "open" => {
            let keys = doc.get("keys").and_then(Json::as_array).ok_or("keys")?;
            let keys = keys
                .iter()
                .map(|k| VerifierKey::parse(k.as_str().unwrap_or_default()))
                .collect::<Result<Vec<_>, _>>();
            keys.and_then(|keys| {
                let note = Note::parse(s("note").unwrap_or_default().as_bytes())?;
                let verified = note.verify(&keys)?;
                let verified: Vec<Json> = verified
                    .iter()
                    .map(|v| json!({"key": v.key.to_string(), "timestamp": v.timestamp}))
                    .collect();
                Ok(json!({"text": note.text(), "verified": verified}))
            })
        }
        "checkpoint" => Checkpoint::parse(s("text")?).map(|c| {
            json!({
                "origin": c.origin(),
                "size": c.size().to_string(),
                "root_hex": hex(c.root()),
                "extensions": c.extensions(),
            })
        }),
        op => return Err(format!("unknown op {op}")),
    };
    Ok(result.unwrap_or_else(|e| error_with_offset(&e)))
}

fn key(name: &str, seed_hex: &str) -> Result<Result<Json, Error>, String> {
    let bytes = decode_hex(seed_hex).ok_or("seed_hex is not hex")?;
    let seed: [u8; 32] = bytes.try_into().map_err(|_| "seed_hex is 32 bytes")?;
    Ok(SignerKey::from_seed(name, &seed).map(|k| {
        json!({
            "signer": k.to_secret_string(),
            "verifier": k.verifier().to_string(),
            "cosigner": Cosigner::new(k).verifier().to_string(),
        })
    }))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
