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

pub(super) mod signed;

pub use signed::{message, MAX_TIMESTAMP};

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

#[cfg(test)]
mod tests;
