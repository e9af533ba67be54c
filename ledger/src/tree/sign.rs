//! The checkpoint's signed note, by core's `tlog`: a C2SP tlog-checkpoint text (origin, size,
//! base64 root, a line each) in a C2SP signed note, signed with the ledger's Ed25519 key
//! (`LedgerOptions::checkpoint_signer`), whose name is the log's origin.

use actionseal_core::tlog::checkpoint::Checkpoint as Text;
use actionseal_core::tlog::merkle::Hash;
use actionseal_core::tlog::note::{Note, SignerKey, VerifierKey};
use actionseal_core::{Code, Error, Result};

/// The signed note of the checkpoint of a tree of `size` leaves with `root`.
pub(crate) fn sign(signer: &SignerKey, size: u64, root: &Hash) -> Result<String> {
    let text = Text::new(signer.name(), size, *root)?.to_string();
    Ok(Note::signed(&text, signer)?.to_string())
}

/// The signed checkpoint `note`, read strictly ([`Code::CheckpointInvalid`]) and verified: a
/// key of `verifiers` named as its origin must have signed it ([`Code::CheckpointUntrusted`]).
/// Other signatures (a witness's cosignatures) are left for their own keys to verify.
pub(crate) fn open(note: &str, verifiers: &[VerifierKey]) -> Result<(Note, Text)> {
    let note = Note::parse(note.as_bytes())?;
    let verified = note.verify(verifiers)?;
    let text = Text::parse(note.text())?;
    let by_origin = verified
        .iter()
        .any(|v| v.timestamp.is_none() && v.key.name() == text.origin());
    if !by_origin {
        return Err(Error::new(
            Code::CheckpointUntrusted,
            format!(
                "no trusted key named {:?}, the checkpoint's origin, signed it: trust the log's \
                 own verifier key",
                text.origin()
            ),
        ));
    }
    Ok((note, text))
}
