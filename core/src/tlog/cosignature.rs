//! C2SP tlog-cosignature v1 for Ed25519 (c2sp.org/tlog-cosignature, "Ed25519 signed
//! message"): a witness's statement that, at a time, the checkpoint is the largest consistent
//! tree it has seen for the log.
//!
//! A cosignature is a note signature line of key type 0x04: the key ID is the first four bytes
//! of `SHA-256(name || "\n" || 0x04 || public key)`, and the bytes after the key ID are a
//! `timestamped_signature`: the 8-byte big-endian POSIX seconds, then the Ed25519 signature over
//!
//! ```text
//! cosignature/v1
//! time <seconds>
//! <the checkpoint text, final newline included>
//! ```
//!
//! A witness's key is an Ed25519 signer key string (type 0x01, as Go's and the witness
//! network's tools store it); [`Cosigner`] derives the type-0x04 key ID from it, and
//! [`Cosigner::verifier`] gives the verifier key string (type 0x04) that clients configure.
//! Verifying is [`super::note::Note::verify`] with such keys.

use super::checkpoint::Checkpoint;
use super::note::{KeyType, Signature, SignerKey, VerifierKey};
use crate::error::{Code, Error, Result};
use crate::model::proof::PublicKey;

/// The largest timestamp: the specification's 2^63 − 1.
pub const MAX_TIMESTAMP: u64 = i64::MAX as u64;

/// A witness's key for cosigning checkpoints.
#[derive(Clone, Debug)]
pub struct Cosigner {
    key: SignerKey,
    id: u32,
}

impl Cosigner {
    /// The cosigner with `key`'s name and Ed25519 key, under the type-0x04 key ID.
    pub fn new(key: SignerKey) -> Cosigner {
        Cosigner {
            id: key.verifier_as(KeyType::Cosignature).id(),
            key,
        }
    }

    /// The cosigner's name.
    pub fn name(&self) -> &str {
        self.key.name()
    }

    /// The type-0x04 key ID.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The verifier key (type 0x04) that checks this cosigner's cosignatures.
    pub fn verifier(&self) -> VerifierKey {
        self.key.verifier_as(KeyType::Cosignature)
    }

    /// The cosignature of `checkpoint` at `timestamp` (POSIX seconds, from 1 to
    /// [`MAX_TIMESTAMP`]: a witness's cosignature never omits its time); another time is
    /// [`Code::CheckpointInvalid`].
    pub fn cosign(&self, checkpoint: &Checkpoint, timestamp: u64) -> Result<Signature> {
        if timestamp == 0 || timestamp > MAX_TIMESTAMP {
            return Err(Error::new(
                Code::CheckpointInvalid,
                "a cosignature's timestamp is POSIX seconds from 1 to 2^63 - 1",
            ));
        }
        let signature = self
            .key
            .signing_key()
            .sign(&message(&checkpoint.to_string(), timestamp));
        let mut bytes = timestamp.to_be_bytes().to_vec();
        bytes.extend_from_slice(&signature);
        Ok(Signature::new(self.key.name(), self.id, bytes))
    }
}

/// The signed message: the header line, the time line and the checkpoint text.
pub fn message(text: &str, timestamp: u64) -> Vec<u8> {
    format!("cosignature/v1\ntime {timestamp}\n{text}").into_bytes()
}

/// Verifies a cosignature's bytes (after the key ID) over the note text; gives its timestamp.
pub(crate) fn verify(key: &PublicKey, text: &str, bytes: &[u8]) -> Result<u64> {
    let (time, signature) = bytes.split_at_checked(8).ok_or_else(|| {
        Error::new(
            Code::InvalidSignature,
            "a cosignature is an 8-byte timestamp and a 64-byte signature",
        )
    })?;
    let mut be = [0u8; 8];
    be.copy_from_slice(time);
    let timestamp = u64::from_be_bytes(be);
    if timestamp > MAX_TIMESTAMP {
        return Err(Error::new(
            Code::InvalidSignature,
            "a cosignature's timestamp is above 2^63 - 1",
        ));
    }
    key.verify(&message(text, timestamp), signature)?;
    Ok(timestamp)
}

#[cfg(test)]
mod tests;
