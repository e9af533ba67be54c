//! Ed25519 keys: raw 32-byte base64url or JWK OKP/Ed25519 (RFC 8037), their RFC 7638
//! thumbprints (the keyid), strict verification and signing.
//!
//! Strict means: a public key must be the canonical encoding of a point that is not of small
//! order (checked once, when the key is read), and a signature must have a canonical `S`
//! (`S < L`), an `R` that is canonical and not of small order, and satisfy the cofactorless
//! equation `[S]B = R + [k]A` (ed25519-dalek's `verify_strict`). Signatures are deterministic
//! (RFC 8032), so signing the same bytes with the same key gives the same signature everywhere.

use super::base64url;
use crate::error::{Code, Error, Result};
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::fields::Fields;
use ed25519_dalek::Signer as _;
use std::borrow::Cow;
use std::fmt;

/// An Ed25519 public key that passed the strict checks, with its keyid.
#[derive(Clone)]
pub struct PublicKey {
    key: ed25519_dalek::VerifyingKey,
    x: String,
    keyid: String,
}

/// The JWK members a public key may carry.
const PUBLIC_MEMBERS: [&str; 6] = ["kty", "crv", "x", "kid", "alg", "use"];
/// ... and a private one.
const PRIVATE_MEMBERS: [&str; 7] = ["kty", "crv", "x", "d", "kid", "alg", "use"];

impl PublicKey {
    /// A key from its 32 bytes: refused ([`Code::InvalidKey`]) unless they are the canonical
    /// encoding of a curve point of large order.
    pub fn from_bytes(bytes: &[u8]) -> Result<PublicKey> {
        let raw: &[u8; 32] = bytes.try_into().map_err(|_| {
            invalid(format!(
                "an Ed25519 public key is 32 bytes, not {}",
                bytes.len()
            ))
        })?;
        let key = ed25519_dalek::VerifyingKey::from_bytes(raw)
            .map_err(|_| invalid("not the encoding of a point on Ed25519"))?;
        // ZIP-215 decoding also takes y >= p; one point, one encoding.
        if key.to_edwards().compress().as_bytes() != raw {
            return Err(invalid("not the canonical encoding of its point"));
        }
        if key.is_weak() {
            return Err(invalid("a point of small order verifies forged signatures"));
        }
        let x = base64url::encode(raw);
        Ok(PublicKey {
            keyid: thumbprint(&x),
            key,
            x,
        })
    }

    /// A key given as JSON: a string (the raw 32 bytes in base64url) or a JWK
    /// `{"kty": "OKP", "crv": "Ed25519", "x"}` with optional `kid` (which must then be the
    /// thumbprint), `alg` (`"EdDSA"` or `"Ed25519"`) and `use` (`"sig"`). A JWK with the private
    /// member `d` is refused: private keys do not belong where public keys are read.
    pub fn from_value(v: &Value<'_>) -> Result<PublicKey> {
        match v {
            Value::String(s) => PublicKey::from_bytes(&base64url::decode(s)?),
            Value::Object(o) if o.get("d").is_some() => Err(invalid(
                "this JWK holds a private key (d): give the public key only",
            )
            .in_key("d")),
            _ => {
                let f = Fields::new(v, Code::InvalidKey, "key", &PUBLIC_MEMBERS)?;
                let key = read_jwk(&f)?;
                check_kid(&f, &key)?;
                Ok(key)
            }
        }
    }

    /// The RFC 7638 thumbprint of the key's JWK: base64url of the SHA-256 of
    /// `{"crv":"Ed25519","kty":"OKP","x":"..."}`.
    pub fn keyid(&self) -> &str {
        &self.keyid
    }

    /// The 32 key bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        self.key.as_bytes()
    }

    /// `{"crv": "Ed25519", "kid", "kty": "OKP", "x"}`.
    pub fn to_jwk(&self) -> OwnedValue {
        jwk(&[
            ("crv", "Ed25519"),
            ("kid", &self.keyid),
            ("kty", "OKP"),
            ("x", &self.x),
        ])
    }

    /// Verifies `signature` over `message` strictly; [`Code::InvalidSignature`] otherwise.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> Result<()> {
        let bytes: &[u8; 64] = signature.try_into().map_err(|_| {
            Error::new(
                Code::InvalidSignature,
                format!("an Ed25519 signature is 64 bytes, not {}", signature.len()),
            )
        })?;
        self.key
            .verify_strict(message, &ed25519_dalek::Signature::from_bytes(bytes))
            .map_err(|_| {
                Error::new(
                    Code::InvalidSignature,
                    "the Ed25519 signature does not verify with this key",
                )
            })
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.keyid)
    }
}

/// An Ed25519 private key (the 32-byte seed of RFC 8032) and its public key.
#[derive(Clone)]
pub struct SigningKey {
    key: ed25519_dalek::SigningKey,
    public: PublicKey,
}

impl SigningKey {
    /// The key with this seed. Core does no I/O: a new key's 32 bytes come from the host's
    /// secure random source.
    pub fn from_seed(seed: &[u8; 32]) -> SigningKey {
        let key = ed25519_dalek::SigningKey::from_bytes(seed);
        // A key derived by RFC 8032 is a multiple of the base point by a clamped scalar: never
        // of small order, always canonical.
        let public = PublicKey::from_bytes(key.verifying_key().as_bytes())
            .unwrap_or_else(|_| unreachable!("derived Ed25519 keys are of large order"));
        SigningKey { key, public }
    }

    /// A private key given as JSON: a string (the 32-byte seed in base64url) or a JWK with `d`
    /// (and `x`, which must be the public key of `d`). Problems are [`Code::InvalidKey`].
    pub fn from_value(v: &Value<'_>) -> Result<SigningKey> {
        let seed_of = |text: &str| -> Result<SigningKey> {
            let bytes = base64url::decode(text)?;
            let seed: &[u8; 32] = bytes.as_slice().try_into().map_err(|_| {
                invalid(format!(
                    "an Ed25519 private key is 32 bytes, not {}",
                    bytes.len()
                ))
            })?;
            Ok(SigningKey::from_seed(seed))
        };
        match v {
            Value::String(s) => seed_of(s),
            _ => {
                let f = Fields::new(v, Code::InvalidKey, "private key", &PRIVATE_MEMBERS)?;
                let public = read_jwk(&f)?;
                let key = seed_of(f.string("d")?).map_err(|e| e.in_key("d"))?;
                if key.public.as_bytes() != public.as_bytes() {
                    return Err(invalid("x is not the public key of d").in_key("x"));
                }
                check_kid(&f, &public)?;
                Ok(key)
            }
        }
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The 32-byte seed, for key formats that carry it (a signed-note signer key string).
    pub(crate) fn seed(&self) -> &[u8; 32] {
        self.key.as_bytes()
    }

    /// `{"crv": "Ed25519", "d", "kid", "kty": "OKP", "x"}`: keep it secret.
    pub fn to_jwk(&self) -> OwnedValue {
        let d = base64url::encode(self.key.as_bytes());
        jwk(&[
            ("crv", "Ed25519"),
            ("d", &d),
            ("kid", &self.public.keyid),
            ("kty", "OKP"),
            ("x", &self.public.x),
        ])
    }

    /// The RFC 8032 signature of `message`.
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.key.sign(message).to_bytes()
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SigningKey({})", self.public.keyid)
    }
}

/// Reads `kty`, `crv`, `x`, `alg` and `use` of an OKP/Ed25519 JWK.
fn read_jwk(f: &Fields<'_, '_>) -> Result<PublicKey> {
    f.one_of("kty", &["OKP"])?;
    f.one_of("crv", &["Ed25519"])?;
    if f.get("alg").is_some() {
        f.one_of("alg", &["EdDSA", "Ed25519"])?;
    }
    if f.get("use").is_some() {
        f.one_of("use", &["sig"])?;
    }
    let x = base64url::decode(f.string("x")?).map_err(|e| e.in_key("x"))?;
    PublicKey::from_bytes(&x).map_err(|e| e.in_key("x"))
}

/// A `kid`, when present, must be the thumbprint: a label that could name another key is a
/// second, unchecked identity.
fn check_kid(f: &Fields<'_, '_>, key: &PublicKey) -> Result<()> {
    if f.get("kid").is_some() && f.string("kid")? != key.keyid {
        return Err(invalid(format!(
            "kid is not the key's RFC 7638 thumbprint {}",
            key.keyid
        ))
        .in_key("kid"));
    }
    Ok(())
}

/// The RFC 7638 thumbprint of the OKP/Ed25519 JWK whose `x` is `x`.
fn thumbprint(x: &str) -> String {
    // The required members in lexicographic order, no whitespace: RFC 8785 of this JWK.
    let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#);
    base64url::encode(crate::Digest::of(canonical.as_bytes()).as_bytes())
}

fn jwk(members: &[(&'static str, &str)]) -> OwnedValue {
    let entries = members
        .iter()
        .map(|(k, v)| {
            (
                Cow::Borrowed(*k),
                Value::String(Cow::Owned((*v).to_owned())),
            )
        })
        .collect();
    // Distinct literal keys.
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidKey, message)
}

#[cfg(test)]
mod tests;
