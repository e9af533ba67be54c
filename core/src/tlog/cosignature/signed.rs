//! The cosignature's signed message and its verification, below the note: a note verifies a
//! type-0x04 signature with these, and the cosigner (above the note) signs with them.

use crate::error::{Code, Error, Result};
use crate::model::proof::PublicKey;

/// The largest timestamp: the specification's 2^63 − 1.
pub const MAX_TIMESTAMP: u64 = i64::MAX as u64;

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
