//! The transparency log's primitives: what makes the audit's history checkable by someone who
//! does not trust the database that holds it (issue 26).
//!
//! - [`merkle`]: RFC 9162 §2.1 Merkle tree hashes, inclusion and consistency proofs, and the
//!   perfect subtrees a store keeps so that every proof costs a logarithmic number of reads.
//! - [`note`]: C2SP signed notes (text plus Ed25519 signature lines) and their key strings.
//! - [`checkpoint`]: the C2SP tlog-checkpoint text a log signs: origin, size, root hash.
//! - [`cosignature`]: C2SP tlog-cosignature v1, a witness's timestamped signature line.
//! - [`witness`]: the C2SP tlog-witness `add-checkpoint` rule and request format.
//!
//! Why C2SP signed notes rather than a DSSE envelope (which actionseal uses for approvals): a
//! checkpoint has to be cosigned by witnesses, and the witnesses that exist (the C2SP witness
//! network, sigsum's, Go's checksum database's) speak exactly this format. A checkpoint is plain
//! text that each cosignature extends by one line, so a log, its witnesses and an offline
//! verifier all read the same bytes; DSSE would need a witness protocol of our own.

pub mod checkpoint;
pub mod cosignature;
pub(crate) mod hashes;
pub mod merkle;
pub mod note;
pub mod witness;

use crate::error::Error;

/// `error` from a part of a text that starts at byte `start` of the whole: its offset, made
/// relative to the whole (the part's start when it had none).
fn shifted(error: Error, start: usize) -> Error {
    let offset = error.offset().unwrap_or(0);
    error.with_offset(start + offset)
}
