//! Service-signed decisions: a DSSE envelope whose payload is the exact canonical bytes of an
//! approval record.
//!
//! `{"payloadType": "application/vnd.actionseal.approval+json", "payload": "<base64url>",
//! "signatures": [{"keyid": "<thumbprint>", "sig": "<base64url>"}]}`; the Ed25519 signature is
//! over DSSE's pre-authentication encoding (PAE) of the payload type and the decoded payload.
//!
//! Verification runs in this order, and each step only on what the previous ones accepted:
//! the envelope's shape; the payload type, exactly; the key named by `keyid` in the key set the
//! executor's server supplies (the keyid is only a hint where to look, never trusted by
//! itself); the signature over the PAE of the decoded bytes; only then the strict JSON parse of
//! the payload; and the payload bytes must already be canonical, so that the bytes signed and
//! the record read have one interpretation. Exactly one signature entry is accepted: a second
//! one, even a copy, would leave open which signer the decision rests on.

use super::base64url;
use super::ed25519::SigningKey;
use super::keyset::{KeySet, ServiceKey};
use crate::error::{Code, Error, Result};
use crate::json::canon::write_value;
use crate::json::sink::Sink;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::fields::Fields;
use crate::Options;
use std::borrow::Cow;

/// The payload type of a signed approval record.
pub const PAYLOAD_TYPE: &str = "application/vnd.actionseal.approval+json";

const ENVELOPE_FIELDS: [&str; 3] = ["payloadType", "payload", "signatures"];

/// DSSE's pre-authentication encoding: `"DSSEv1" SP len(type) SP type SP len(body) SP body`,
/// lengths as ASCII decimal byte counts.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload_type.len() + payload.len() + 32);
    out.extend_from_slice(b"DSSEv1 ");
    out.extend_from_slice(payload_type.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload_type.as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload);
    out
}

/// Signs an approval record (of an action, or of a batch): the envelope whose payload is the
/// record's canonical bytes. The record must be well-formed and sealed (its `action_digest`
/// the fingerprint of its frozen action, its `batch_digest` its frozen header's), or
/// [`Code::InvalidApproval`]: a signature must never vouch for a tampered record.
pub fn sign_approval(record: &Value<'_>, key: &SigningKey) -> Result<OwnedValue> {
    super::sealed_any(record)?;
    sign_payload(PAYLOAD_TYPE, &crate::canonicalize(record), key)
}

/// The envelope of `payload` (canonical text) of type `payload_type`, signed with `key`.
pub(crate) fn sign_payload(
    payload_type: &str,
    payload: &str,
    key: &SigningKey,
) -> Result<OwnedValue> {
    let sig = key.sign(&pae(payload_type, payload.as_bytes()));
    let s = |s: String| Value::String(Cow::Owned(s));
    let entry = Object::from_entries(vec![
        ("keyid".into(), s(key.public_key().keyid().to_owned())),
        ("sig".into(), s(base64url::encode(&sig))),
    ])?;
    Ok(Value::Object(Object::from_entries(vec![
        ("payload".into(), s(base64url::encode(payload.as_bytes()))),
        ("payloadType".into(), s(payload_type.to_owned())),
        (
            "signatures".into(),
            Value::Array(vec![Value::Object(entry)]),
        ),
    ])?))
}

/// Whether `v` has the shape of an envelope rather than of a record (it names a payload type).
pub(crate) fn looks_like_envelope(v: &Value<'_>) -> bool {
    v.as_object()
        .is_some_and(|o| o.get("payloadType").is_some())
}

/// Checks the envelope up to and including the signature, decoding the payload into `payload`;
/// returns the key that signed. Nothing in the payload has been interpreted yet.
pub(crate) fn verify_signature<'k>(
    envelope: &Value<'_>,
    keys: &'k KeySet,
    payload: &mut Vec<u8>,
) -> Result<&'k ServiceKey> {
    verify_signature_of(PAYLOAD_TYPE, envelope, keys, payload)
}

/// [`verify_signature`] of an envelope whose payload type must be `expected`.
pub(crate) fn verify_signature_of<'k>(
    expected: &str,
    envelope: &Value<'_>,
    keys: &'k KeySet,
    payload: &mut Vec<u8>,
) -> Result<&'k ServiceKey> {
    let f = Fields::new(
        envelope,
        Code::InvalidEnvelope,
        "envelope",
        &ENVELOPE_FIELDS,
    )?;
    let payload_type = f.string("payloadType")?;
    let payload_text = f.string("payload")?;
    let Value::Array(signatures) = f.required("signatures")? else {
        return Err(
            Error::new(Code::InvalidEnvelope, "signatures must be an array").in_key("signatures"),
        );
    };
    if payload_type != expected {
        return Err(Error::new(
            Code::PayloadTypeMismatch,
            format!("payloadType must be {expected:?}, not {payload_type:?}"),
        )
        .in_key("payloadType"));
    }
    let [entry] = signatures.as_slice() else {
        return Err(Error::new(
            Code::InvalidEnvelope,
            format!(
                "signatures must hold exactly one entry, not {}",
                signatures.len()
            ),
        )
        .in_key("signatures"));
    };
    let at = |e: Error| e.in_key("0").in_key("signatures");
    let s =
        Fields::new(entry, Code::InvalidEnvelope, "signature", &["keyid", "sig"]).map_err(at)?;
    let keyid = s.string("keyid").map_err(at)?;
    let sig = base64url::decode(s.string("sig").map_err(at)?).map_err(|e| at(e.in_key("sig")))?;
    base64url::decode_into(payload_text, payload).map_err(|e| e.in_key("payload"))?;
    let key = keys.service_key(keyid).map_err(|e| at(e.in_key("keyid")))?;
    key.key
        .verify(&pae(expected, payload), &sig)
        .map_err(|e| at(e.in_key("sig")))?;
    Ok(key)
}

/// Parses a verified payload strictly and requires that its bytes are its canonical form.
/// Parse errors keep their codes, under `/payload`; other bytes for the same value are
/// [`Code::NonCanonicalPayload`].
pub(crate) fn read_payload(payload: &[u8]) -> Result<Value<'_>> {
    let value = crate::parse(payload, &Options::default()).map_err(|e| e.in_key("payload"))?;
    let mut same = SameBytes {
        rest: payload,
        same: true,
    };
    write_value(&value, &mut same);
    if !same.same || !same.rest.is_empty() {
        return Err(Error::new(
            Code::NonCanonicalPayload,
            "the signed payload is not in RFC 8785 canonical form",
        )
        .in_key("payload"));
    }
    Ok(value)
}

/// A sink that consumes the expected bytes as canonical text is written, so the canonical
/// comparison needs neither a copy nor a second parse.
struct SameBytes<'b> {
    rest: &'b [u8],
    same: bool,
}

impl Sink for SameBytes<'_> {
    fn put(&mut self, s: &str) {
        match self.rest.strip_prefix(s.as_bytes()) {
            Some(rest) if self.same => self.rest = rest,
            _ => self.same = false,
        }
    }

    fn put_ascii(&mut self, c: u8) {
        match self.rest.split_first() {
            Some((&b, rest)) if self.same && b == c => self.rest = rest,
            _ => self.same = false,
        }
    }
}

#[cfg(test)]
mod tests;
