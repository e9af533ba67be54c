//! What a verifier trusts, given by the verifier, never read from a bundle:
//!
//! ```json
//! {
//!   "ledger_keys": [{"key": "<name>+<id>+<base64>", "valid_from"?: ms, "valid_until"?: ms}],
//!   "witnesses"?: {"keys": ["<name>+<id>+<base64 of 0x04 || key>"], "quorum": 1},
//!   "tsa_roots"?: ["<base64 DER certificate>"],
//!   "approval_keys"?: {<a key set, as the ledger's server configures it>}
//! }
//! ```
//!
//! - `ledger_keys`: the keys that sign the ledger's checkpoints (C2SP signed-note verifier
//!   keys), each with its window; a rotated key stays listed with its `valid_until` so that
//!   bundles it signed before then keep verifying.
//! - `witnesses`: cosignature keys, and how many of them must have cosigned the checkpoint
//!   (`quorum`, at least 1 when keys are given). A witness is its key: the same key listed
//!   again under another name is refused, since what a witness signs names no witness and
//!   its one cosignature would count twice.
//! - `tsa_roots`: the RFC 3161 authorities' roots; a bundle's time-stamp token must chain to
//!   one of them.
//! - `approval_keys`: the service keys and passkeys that prove decisions, with their windows
//!   ([`crate::KeySet`]).

use crate::base64::standard as b64;
use crate::error::{Code, Error, Result};
use crate::json::value::Value;
use crate::model::fields::Fields;
use crate::model::proof::KeySet;
use crate::tlog::note::{KeyType, VerifierKey};

/// A ledger key a verifier trusts, and when.
#[derive(Clone, Debug)]
pub(crate) struct LedgerKey {
    pub(crate) key: VerifierKey,
    pub(crate) valid_from: Option<i64>,
    pub(crate) valid_until: Option<i64>,
}

impl LedgerKey {
    /// Whether the key holds at `at`: `valid_from <= at < valid_until`.
    pub(crate) fn holds_at(&self, at: i64) -> bool {
        self.valid_from.is_none_or(|f| f <= at) && self.valid_until.is_none_or(|u| at < u)
    }

    /// Whether the key has a window at all.
    pub(crate) fn has_window(&self) -> bool {
        self.valid_from.is_some() || self.valid_until.is_some()
    }
}

/// The verifier's trust (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct Trust {
    pub(crate) ledger_keys: Vec<LedgerKey>,
    pub(crate) witnesses: Vec<VerifierKey>,
    pub(crate) witness_quorum: usize,
    pub(crate) tsa_roots: Vec<Vec<u8>>,
    pub(crate) approval_keys: KeySet,
}

fn bad(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidEvidenceTrust, message)
}

fn list<'v, 'a>(v: &'v Value<'a>, what: &str) -> Result<&'v [Value<'a>]> {
    match v {
        Value::Array(items) => Ok(items),
        _ => Err(bad(format!("{what} must be a list"))),
    }
}

/// A verifier key string of `kind`: a ledger signs checkpoints with an Ed25519 note key
/// (0x01), a witness cosigns with a cosignature key (0x04).
fn key_string(v: &Value<'_>, kind: KeyType) -> Result<VerifierKey> {
    let text = v
        .as_str()
        .ok_or_else(|| bad("a key is a note verifier key string"))?;
    let key = VerifierKey::parse(text).map_err(|e| e.with_code(Code::InvalidEvidenceTrust))?;
    if key.kind() != kind {
        return Err(bad(match kind {
            KeyType::Ed25519 => "a ledger key is an Ed25519 note key (type 0x01)",
            KeyType::Cosignature => "a witness key is a cosignature key (type 0x04)",
        }));
    }
    Ok(key)
}

impl Trust {
    /// Reads the trust; anything malformed is [`Code::InvalidEvidenceTrust`] at the member
    /// (a key set keeps its own codes).
    pub fn from_value(v: &Value<'_>) -> Result<Trust> {
        let f = Fields::new(
            v,
            Code::InvalidEvidenceTrust,
            "the trust",
            &["ledger_keys", "witnesses", "tsa_roots", "approval_keys"],
        )?;
        let mut trust = Trust::default();
        for (i, k) in list(f.required("ledger_keys")?, "ledger_keys")
            .map_err(|e| e.in_key("ledger_keys"))?
            .iter()
            .enumerate()
        {
            let key = ledger_key(k).map_err(|e| e.in_index(i).in_key("ledger_keys"))?;
            trust.ledger_keys.push(key);
        }
        if trust.ledger_keys.is_empty() {
            return Err(bad("trust at least one ledger key").in_key("ledger_keys"));
        }
        if let Some(w) = f.get("witnesses") {
            let (keys, quorum) = witnesses(w).map_err(|e| e.in_key("witnesses"))?;
            trust.witnesses = keys;
            trust.witness_quorum = quorum;
        }
        if let Some(roots) = f.get("tsa_roots") {
            for (i, r) in list(roots, "tsa_roots")
                .map_err(|e| e.in_key("tsa_roots"))?
                .iter()
                .enumerate()
            {
                let at = |e: Error| e.in_index(i).in_key("tsa_roots");
                let text = r.as_str().ok_or_else(|| at(bad("a root is base64 DER")))?;
                let der =
                    b64::decode(text).map_err(|e| at(e.with_code(Code::InvalidEvidenceTrust)))?;
                // Read now, so that a root that is not a certificate is the trust's fault.
                let one = crate::timestamp::TimestampTrust {
                    roots: vec![der],
                    ..crate::timestamp::TimestampTrust::default()
                };
                one.check().map_err(|_| {
                    at(bad("a root is a DER X.509 certificate, in standard base64"))
                })?;
                trust.tsa_roots.extend(one.roots);
            }
        }
        if let Some(keys) = f.get("approval_keys") {
            trust.approval_keys =
                KeySet::from_value(keys).map_err(|e| e.in_key("approval_keys"))?;
        }
        Ok(trust)
    }
}

fn ledger_key(v: &Value<'_>) -> Result<LedgerKey> {
    let f = Fields::new(
        v,
        Code::InvalidEvidenceTrust,
        "a ledger key",
        &["key", "valid_from", "valid_until"],
    )?;
    let key = key_string(f.required("key")?, KeyType::Ed25519).map_err(|e| e.in_key("key"))?;
    let bound = |k: &str| -> Result<Option<i64>> { f.get(k).map(|_| f.integer(k, 0)).transpose() };
    let (valid_from, valid_until) = (bound("valid_from")?, bound("valid_until")?);
    if let (Some(from), Some(until)) = (valid_from, valid_until) {
        if until <= from {
            return Err(bad("valid_until must be after valid_from").in_key("valid_until"));
        }
    }
    Ok(LedgerKey {
        key,
        valid_from,
        valid_until,
    })
}

fn witnesses(v: &Value<'_>) -> Result<(Vec<VerifierKey>, usize)> {
    let f = Fields::new(
        v,
        Code::InvalidEvidenceTrust,
        "the witnesses",
        &["keys", "quorum"],
    )?;
    let keys = list(f.required("keys")?, "keys")
        .map_err(|e| e.in_key("keys"))?
        .iter()
        .enumerate()
        .map(|(i, k)| key_string(k, KeyType::Cosignature).map_err(|e| e.in_index(i).in_key("keys")))
        .collect::<Result<Vec<_>>>()?;
    // A witness is its key: one listed again under another name would have its one
    // cosignature counted twice (what it signs names no witness).
    for (i, k) in keys.iter().enumerate() {
        let key = k.public_key().as_bytes();
        if keys[..i].iter().any(|o| o.public_key().as_bytes() == key) {
            return Err(bad(
                "a witness key listed again, under another name: each witness counts once",
            )
            .in_index(i)
            .in_key("keys"));
        }
    }
    let quorum = f.integer("quorum", 1)?;
    // Compared before any narrowing: wasm's usize is 32 bits, and a wrapped quorum is smaller.
    match usize::try_from(quorum) {
        Ok(q) if q <= keys.len() => Ok((keys, q)),
        _ => Err(bad(format!(
            "a quorum of {quorum} needs at least {quorum} witness keys"
        ))
        .in_key("quorum")),
    }
}
