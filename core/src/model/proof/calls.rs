//! The proof functions as the bindings call them: every argument a JSON value (byte strings
//! as unpadded base64url, as everywhere in the proof format), every result a JSON value or
//! text. A binding converts its host values, calls one of these and converts the result back,
//! so every runtime reads its arguments with the same rules and fails with the same codes.

use super::base64url;
use super::ed25519::PublicKey;
use super::webauthn::{passkey_challenge, Registration};
use super::{verify_envelope, verify_passkey, verify_proof, KeySet};
use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};

/// Which proof a verification accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accept {
    /// A signed envelope only ([`verify_envelope`]).
    Envelope,
    /// A passkey-approved record only ([`verify_passkey`]).
    Passkey,
    /// Whichever the approval carries ([`verify_proof`]).
    Either,
}

/// A public key (a JWK or the raw 32 bytes in base64url) as its normalized public JWK
/// `{"crv", "kid", "kty", "x"}`, whose `kid` is the RFC 7638 thumbprint: the keyid under which
/// a key set files it.
pub fn public_jwk(key: &Value<'_>) -> Result<OwnedValue> {
    Ok(PublicKey::from_value(key)?.to_jwk())
}

/// Verifies the proof `approval` carries against the key set `keys`, judging the key's window
/// at `at` (ms since the epoch, the verifier's time), and returns `{"approval", "signer"}`
/// ([`super::Verified::to_value`]). The key set's problems are reported first, at their place
/// in it; an `at` that is not a non-negative integer is [`Code::InvalidRequest`].
pub fn verify(
    approval: &Value<'_>,
    keys: &Value<'_>,
    at: &Value<'_>,
    accept: Accept,
) -> Result<OwnedValue> {
    let keys = KeySet::from_value(keys)?;
    let at = judged_at(at)?;
    let verified = match accept {
        Accept::Envelope => verify_envelope(approval, &keys, at),
        Accept::Passkey => verify_passkey(approval, &keys, at),
        Accept::Either => verify_proof(approval, &keys, at),
    }?;
    Ok(verified.to_value())
}

/// Verifies one link of a delegation chain (a signed envelope, a passkey-approved document
/// or a bare document) against the key set `keys`, judging the key's window at `at`, as
/// [`verify`] judges an approval's, and returns `{"delegation", "digest", "signer"}`
/// ([`crate::VerifiedDelegation::to_value`]).
pub fn verify_delegation(link: &Value<'_>, keys: &Value<'_>, at: &Value<'_>) -> Result<OwnedValue> {
    let keys = KeySet::from_value(keys)?;
    let at = judged_at(at)?;
    Ok(crate::verify_delegation(link, &keys, at)?.to_value())
}

/// The time a key is judged at: a non-negative integer of ms since the epoch, else
/// [`Code::InvalidRequest`].
fn judged_at(at: &Value<'_>) -> Result<i64> {
    at.non_negative_ms("the time a key is judged at")
}

/// The challenge a reviewer's passkey signs for `record`, in base64url: the record's
/// fingerprint without its `passkey` member ([`passkey_challenge`]).
pub fn challenge(record: &Value<'_>) -> String {
    base64url::encode(passkey_challenge(record).as_bytes())
}

/// Verifies a passkey registration for the base64url `challenge` the server issued and the
/// relying party `{"rp_id", "origins"}` ([`Registration::verify`]), and returns what the
/// server files in its key set: `{"algorithm", "credential_id", "public_key"}`.
pub fn verify_registration(
    registration: &Value<'_>,
    challenge: &Value<'_>,
    relying_party: &Value<'_>,
) -> Result<OwnedValue> {
    let challenge = bytes(challenge, "the challenge")?;
    Ok(Registration::verify(registration, &challenge, relying_party)?.to_value())
}

/// Verifies a plain Ed25519 signature (base64url) of a message (base64url) strictly, with a
/// key given as a JWK or raw base64url: for checking the primitive against published vectors
/// and other libraries. [`Code::InvalidSignature`] when it does not hold.
pub fn verify_ed25519(key: &Value<'_>, message: &Value<'_>, signature: &Value<'_>) -> Result<()> {
    let key = PublicKey::from_value(key)?;
    key.verify(
        &bytes(message, "the message")?,
        &bytes(signature, "the signature")?,
    )
}

/// DSSE's pre-authentication encoding of a payload type (a string) and a payload (base64url),
/// in base64url ([`super::pae`]): the bytes a signed envelope's signature covers.
pub fn pae(payload_type: &Value<'_>, payload: &Value<'_>) -> Result<String> {
    let Value::String(payload_type) = payload_type else {
        return Err(Error::new(
            Code::InvalidEnvelope,
            format!(
                "the payload type must be a string, not {}",
                payload_type.type_name()
            ),
        ));
    };
    let payload = bytes(payload, "the payload")?;
    Ok(base64url::encode(&super::pae(payload_type, &payload)))
}

/// The bytes of a base64url string argument; anything else is [`Code::InvalidBase64`].
fn bytes(v: &Value<'_>, what: &str) -> Result<Vec<u8>> {
    match v {
        Value::String(text) => base64url::decode(text),
        other => Err(Error::new(
            Code::InvalidBase64,
            format!(
                "{what} must be a base64url string, not {}",
                other.type_name()
            ),
        )),
    }
}

#[cfg(test)]
mod tests;
