//! COSE keys (RFC 9052/9053) of passkey credentials: ES256 on P-256 and EdDSA on Ed25519.
//!
//! Exactly the parameters WebAuthn credentials carry are accepted: `kty` (1), `alg` (3), `crv`
//! (-1), `x` (-2) and, for EC2, `y` (-3). An EC2 key must be `{1: 2, 3: -7, -1: 1}` with 32-byte
//! coordinates of a point on P-256; an OKP key `{1: 1, 3: -8, -1: 6}` with a strict Ed25519
//! public key.
//!
//! ES256 signatures are ASN.1 DER `SEQUENCE { r INTEGER, s INTEGER }` as WebAuthn specifies,
//! with no byte after the sequence. High-S signatures (`s > n/2`) are accepted: real
//! authenticators emit them about half of the time and WebAuthn does not forbid them, and the
//! malleability they allow gives nothing here, since a passkey approval is identified by its
//! record and challenge, never by its signature bytes.

use super::cbor::{self, Item};
use super::ed25519::PublicKey;
use crate::error::{Code, Error, Result};
use p256::ecdsa::signature::Verifier as _;
use std::fmt;

/// A passkey's public key.
#[derive(Clone)]
pub(crate) enum CoseKey {
    Es256(p256::ecdsa::VerifyingKey),
    EdDsa(PublicKey),
}

impl fmt::Debug for CoseKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.algorithm())
    }
}

impl CoseKey {
    /// Reads a COSE_Key; anything else is [`Code::InvalidKey`].
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<CoseKey> {
        let item = cbor::read_exact(bytes).map_err(|r| r.error(Code::InvalidKey))?;
        CoseKey::from_item(&item)
    }

    /// Reads a COSE_Key already decoded from CBOR.
    pub(crate) fn from_item(item: &Item<'_>) -> Result<CoseKey> {
        let Item::Map(members) = item else {
            return Err(invalid("a COSE key is a CBOR map".into()));
        };
        let mut params: [Option<&Item<'_>>; 5] = [None; 5];
        for (label, value) in members {
            let slot = match label.as_int() {
                Some(1) => 0,
                Some(3) => 1,
                Some(-1) => 2,
                Some(-2) => 3,
                Some(-3) => 4,
                _ => return Err(invalid(format!("unsupported COSE key parameter {label:?}"))),
            };
            params[slot] = Some(value);
        }
        let int = |i: usize| params[i].and_then(Item::as_int);
        let coordinate = |i: usize, name: &str| match params[i] {
            Some(Item::Bytes(b)) if b.len() == 32 => Ok(*b),
            _ => Err(invalid(format!("{name} must be a 32-byte string"))),
        };
        match (int(0), int(1), int(2)) {
            (Some(2), Some(-7), Some(1)) => {
                let mut sec1 = [0u8; 65];
                sec1[0] = 4;
                sec1[1..33].copy_from_slice(coordinate(3, "x")?);
                sec1[33..].copy_from_slice(coordinate(4, "y")?);
                p256::ecdsa::VerifyingKey::from_sec1_bytes(&sec1)
                    .map(CoseKey::Es256)
                    .map_err(|_| invalid("(x, y) is not a point on P-256".into()))
            }
            (Some(1), Some(-8), Some(6)) if params[4].is_none() => {
                PublicKey::from_bytes(coordinate(3, "x")?).map(CoseKey::EdDsa)
            }
            _ => Err(invalid(
                "only ES256 keys (kty 2, alg -7, crv 1) and EdDSA keys (kty 1, alg -8, crv 6) \
                 are supported"
                    .into(),
            )),
        }
    }

    /// `ES256` or `EdDSA`.
    pub(crate) fn algorithm(&self) -> &'static str {
        match self {
            CoseKey::Es256(_) => "ES256",
            CoseKey::EdDsa(_) => "EdDSA",
        }
    }

    /// Verifies a WebAuthn signature over `message`: DER ECDSA with SHA-256, or Ed25519.
    pub(crate) fn verify(&self, message: &[u8], signature: &[u8]) -> Result<()> {
        match self {
            CoseKey::EdDsa(key) => key.verify(message, signature),
            CoseKey::Es256(key) => {
                let sig = p256::ecdsa::Signature::from_der(signature).map_err(|_| {
                    Error::new(
                        Code::InvalidSignature,
                        "not a DER-encoded ECDSA signature (or bytes follow it)",
                    )
                })?;
                key.verify(message, &sig).map_err(|_| {
                    Error::new(
                        Code::InvalidSignature,
                        "the ES256 signature does not verify with this key",
                    )
                })
            }
        }
    }
}

fn invalid(message: String) -> Error {
    Error::new(Code::InvalidKey, message)
}
