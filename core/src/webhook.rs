//! Webhook signatures as the Standard Webhooks specification 1.0 defines its symmetric scheme
//! (<https://www.standardwebhooks.com>, `spec/standard-webhooks.md`, "Signature scheme"):
//! the secret is `whsec_` and the standard base64 of 24 to 64 random bytes; the signed content
//! is `{webhook-id}.{webhook-timestamp}.{body}`; `webhook-signature` is a space-separated list
//! of `v1,` + base64(HMAC-SHA256(secret, content)) (several during a secret's rotation).
//! A verifier judges `webhook-timestamp` (seconds since the epoch) against its own clock.

use crate::base64::standard;
use crate::error::{Code, Error, Result};
use crate::json::value::{Object, OwnedValue, Value};
use sha2::{Digest, Sha256};
use std::borrow::Cow;

/// The prefix that marks a symmetric webhook secret.
const SECRET_PREFIX: &str = "whsec_";
/// The spec: "at least 24 bytes"; 64 bytes is SHA-256's block, past which HMAC hashes the key.
const SECRET_BYTES: std::ops::RangeInclusive<usize> = 24..=64;
/// The signature identifier of HMAC-SHA256 (`v1a` is the asymmetric scheme, not read here).
const VERSION: &str = "v1";
/// The headers, in the spec's (lower-case) spelling.
pub const ID_HEADER: &str = "webhook-id";
pub const TIMESTAMP_HEADER: &str = "webhook-timestamp";
pub const SIGNATURE_HEADER: &str = "webhook-signature";
/// The tolerance the spec's reference libraries use when none is given: five minutes.
pub const DEFAULT_TOLERANCE_MS: i64 = 300_000;
/// At most this many signatures in one header (rotation needs two).
const MAX_SIGNATURES: usize = 8;

/// The three headers of one delivery attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signed {
    pub id: String,
    /// Seconds since the epoch, as the header carries it.
    pub timestamp: String,
    pub signature: String,
}

impl Signed {
    /// `(name, value)` for each header, in the spec's order.
    pub fn headers(&self) -> [(&'static str, &str); 3] {
        [
            (ID_HEADER, &self.id),
            (TIMESTAMP_HEADER, &self.timestamp),
            (SIGNATURE_HEADER, &self.signature),
        ]
    }
}

/// A webhook secret's key bytes.
struct Secret(Vec<u8>);

impl Secret {
    fn parse(text: &str) -> Result<Secret> {
        let refused = |why: &str| {
            Error::new(
                Code::InvalidKey,
                format!(
                    "a webhook secret is `whsec_` and the padded base64 of 24 to 64 bytes: {why}"
                ),
            )
        };
        let b64 = text
            .strip_prefix(SECRET_PREFIX)
            .ok_or_else(|| refused("no `whsec_` prefix"))?;
        let key = standard::decode(b64).map_err(|_| refused("not padded standard base64"))?;
        if !SECRET_BYTES.contains(&key.len()) {
            return Err(refused(&format!("{} bytes", key.len())));
        }
        Ok(Secret(key))
    }

    /// The MAC of the signed content, `{id}.{timestamp}.{body}`.
    fn mac(&self, id: &str, timestamp: &str, body: &[u8]) -> [u8; 32] {
        hmac_sha256(
            &self.0,
            &[id.as_bytes(), b".", timestamp.as_bytes(), b".", body],
        )
    }
}

/// HMAC-SHA256 (RFC 2104) of the concatenated `parts`, for a key of at most one block.
fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..key.len()].copy_from_slice(key);
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let mut inner = Sha256::new().chain_update(pad(0x36));
    for part in parts {
        inner.update(part);
    }
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner.finalize())
        .finalize()
        .into()
}

/// An id is signed between full stops: one of its own would move the boundary (the spec asks
/// that ids hold none).
fn check_id(id: &str) -> Result<()> {
    if id.is_empty() || id.len() > 256 || id.contains('.') || id.chars().any(char::is_control) {
        return Err(Error::new(
            Code::InvalidRequest,
            "a webhook id is 1 to 256 characters, with no full stop and no control character",
        )
        .in_key(ID_HEADER));
    }
    Ok(())
}

/// Signs `body` as delivery `id` attempted at `at_ms` (ms since the epoch; the header carries
/// whole seconds). A retry keeps the id and signs again with its own time.
pub fn sign(secret: &str, id: &str, at_ms: i64, body: &[u8]) -> Result<Signed> {
    let secret = Secret::parse(secret)?;
    check_id(id)?;
    if at_ms < 0 {
        return Err(
            Error::new(Code::InvalidRequest, "a webhook is sent after 1970").in_key("at_ms"),
        );
    }
    let timestamp = (at_ms / 1000).to_string();
    let mac = secret.mac(id, &timestamp, body);
    Ok(Signed {
        id: id.to_owned(),
        signature: format!("{VERSION},{}", standard::encode(&mac)),
        timestamp,
    })
}

fn unverified(why: impl Into<String>) -> Error {
    Error::new(Code::WebhookUnverified, why)
}

/// The one value of header `name` (compared case-insensitively, as HTTP does).
fn header<'h>(headers: &[(&str, &'h str)], name: &str) -> Result<&'h str> {
    let mut found = headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name));
    match (found.next(), found.next()) {
        (Some((_, v)), None) => Ok(v),
        (None, _) => Err(unverified(format!("no {name} header")).in_key(name)),
        (Some(_), Some(_)) => Err(unverified(format!("{name} given twice")).in_key(name)),
    }
}

/// Verifies a delivery: `headers` as received (any case), `body` the exact bytes, `now_ms`
/// the verifier's clock, `tolerance_ms` how far the attempt's time may be from it either way.
/// A missing or malformed header, a time outside the tolerance, or no `v1` signature that
/// matches is [`Code::WebhookUnverified`]; a malformed secret is [`Code::InvalidKey`]. Returns
/// the delivery's id (the receiver's idempotency key).
pub fn verify<'h>(
    secret: &str,
    headers: &[(&str, &'h str)],
    body: &[u8],
    now_ms: i64,
    tolerance_ms: i64,
) -> Result<&'h str> {
    let secret = Secret::parse(secret)?;
    if tolerance_ms < 0 {
        return Err(
            Error::new(Code::InvalidRequest, "a tolerance is not negative").in_key("tolerance_ms"),
        );
    }
    let id = header(headers, ID_HEADER)?;
    check_id(id).map_err(|_| unverified("a malformed webhook-id").in_key(ID_HEADER))?;
    let timestamp = header(headers, TIMESTAMP_HEADER)?;
    let seconds: i64 = (!timestamp.is_empty()
        && timestamp.len() <= 15
        && timestamp.bytes().all(|b| b.is_ascii_digit()))
    .then(|| timestamp.parse().ok())
    .flatten()
    .ok_or_else(|| {
        unverified("webhook-timestamp is not whole seconds since the epoch")
            .in_key(TIMESTAMP_HEADER)
    })?;
    let skew = seconds * 1000 - now_ms;
    if skew.abs() > tolerance_ms {
        let how = if skew < 0 { "old" } else { "far in the future" };
        return Err(unverified(format!(
            "the attempt is {} s {how} by this verifier's clock (tolerance {} s)",
            skew.abs() / 1000,
            tolerance_ms / 1000
        ))
        .in_key(TIMESTAMP_HEADER));
    }
    let want = secret.mac(id, timestamp, body);
    let given = header(headers, SIGNATURE_HEADER)?;
    let mut matched = false;
    for (n, entry) in given.split(' ').filter(|e| !e.is_empty()).enumerate() {
        if n == MAX_SIGNATURES {
            return Err(unverified(format!("more than {MAX_SIGNATURES} signatures"))
                .in_key(SIGNATURE_HEADER));
        }
        let Some((VERSION, b64)) = entry.split_once(',') else {
            continue;
        };
        if let Ok(mac) = standard::decode(b64) {
            // Constant time: a comparison that stops early would tell a forger how much matched.
            let diff = mac
                .iter()
                .zip(want)
                .fold(u8::from(mac.len() != 32), |acc, (a, b)| acc | (a ^ b));
            matched |= std::hint::black_box(diff) == 0;
        }
    }
    if !matched {
        return Err(
            unverified("no v1 signature matches this body with this secret")
                .in_key(SIGNATURE_HEADER),
        );
    }
    Ok(id)
}

/// What the bindings call: [`sign`] with host values; the three headers as an object.
pub fn sign_value(
    secret: &Value<'_>,
    id: &Value<'_>,
    at_ms: &Value<'_>,
    body: &[u8],
) -> Result<OwnedValue> {
    let signed = sign(
        text(secret, "secret")?,
        text(id, "id")?,
        ms(at_ms, "at_ms")?,
        body,
    )?;
    let entries = signed
        .headers()
        .map(|(n, v)| (Cow::Borrowed(n), Value::String(Cow::Owned(v.to_owned()))));
    Ok(Value::Object(Object::from_entries(entries.into())?))
}

/// What the bindings call: [`verify`] with host values (`headers` an object of strings) and
/// the tolerance read by [`tolerance_value`]; the delivery's id.
pub fn verify_value(
    secret: &Value<'_>,
    headers: &Value<'_>,
    body: &[u8],
    now_ms: &Value<'_>,
    tolerance_ms: i64,
) -> Result<String> {
    let object = headers.as_object().ok_or_else(|| {
        Error::new(
            Code::InvalidRequest,
            format!(
                "headers are an object of strings, not {}",
                headers.type_name()
            ),
        )
        .in_key("headers")
    })?;
    let pairs = object
        .iter()
        .map(|(n, v)| {
            let value = v.as_str().ok_or_else(|| {
                Error::new(Code::InvalidRequest, "a header's value is a string").in_key(n)
            })?;
            Ok((n, value))
        })
        .collect::<Result<Vec<_>>>()?;
    verify(
        text(secret, "secret")?,
        &pairs,
        body,
        ms(now_ms, "now_ms")?,
        tolerance_ms,
    )
    .map(str::to_owned)
}

/// A verifier's tolerance as a binding was given it: absent or `null`, [`DEFAULT_TOLERANCE_MS`].
pub fn tolerance_value(tolerance_ms: Option<&Value<'_>>) -> Result<i64> {
    match tolerance_ms {
        None | Some(Value::Null) => Ok(DEFAULT_TOLERANCE_MS),
        Some(t) => ms(t, "tolerance_ms"),
    }
}

fn text<'v>(v: &'v Value<'_>, name: &'static str) -> Result<&'v str> {
    v.as_str().ok_or_else(|| {
        Error::new(
            Code::InvalidRequest,
            format!("{name} is a string, not {}", v.type_name()),
        )
        .in_key(name)
    })
}

/// A non-negative integer of ms, its error at the argument's name.
fn ms(v: &Value<'_>, name: &'static str) -> Result<i64> {
    v.non_negative_ms(name).map_err(|e| e.in_key(name))
}

#[cfg(test)]
mod tests;
