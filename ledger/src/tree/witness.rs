//! The ledger's side of C2SP tlog-witness (c2sp.org/tlog-witness): the `add-checkpoint`
//! request for the latest checkpoint, its consistency proof read through the stored subtrees,
//! and the cosignature lines a witness answers, verified against the witness's key before they
//! are kept (`ledger_cosignatures`). Talking to the witness is the host's (the CLI's).

use super::sql::{Arg, Sql};
use super::stored::{self, int, Stored};
use super::Checkpoint;
use actionseal_core::tlog::note::{Note, Signature, VerifierKey};
use actionseal_core::tlog::witness::Request;
use actionseal_core::{Code, Error, Result};

/// The request for the latest checkpoint, from `old` (the size the witness last cosigned, as
/// the log knows it: 0 before the first, or the size its 409 answer named).
pub(crate) fn request(sql: &mut dyn Sql, old: u64) -> Result<Request> {
    let latest = stored::latest(sql)?.ok_or_else(|| {
        Error::new(
            Code::InvalidRequest,
            "the ledger has no checkpoint to send a witness: make one first",
        )
    })?;
    let note = Note::parse(latest.note.as_bytes())?;
    Request::from_tree(&mut Stored(sql), old, note)
}

/// Verifies `lines` as `witness`'s cosignatures of the checkpoint of `size` and keeps them
/// (a second cosignature of one size by one witness keeps the first); the checkpoint with its
/// cosignatures. A line by another key, or one that does not verify, is
/// [`Code::CheckpointUntrusted`], and nothing is kept.
pub(crate) fn add(
    sql: &mut dyn Sql,
    size: u64,
    witness: &VerifierKey,
    lines: &[Signature],
) -> Result<Checkpoint> {
    let checkpoint = stored::at(sql, size)?;
    let note = Note::parse(checkpoint.note.as_bytes())?;
    for (i, line) in lines.iter().enumerate() {
        let mut cosigned = note.clone();
        cosigned.push(line.clone())?;
        let by_witness = (line.name(), line.id()) == (witness.name(), witness.id());
        let verified = cosigned
            .verify(std::slice::from_ref(witness))
            .ok()
            .and_then(|v| v.iter().find_map(|v| v.timestamp));
        let (true, Some(seconds)) = (by_witness, verified) else {
            return Err(Error::new(
                Code::CheckpointUntrusted,
                format!(
                    "the line is not a cosignature of the checkpoint of {size} leaves by the \
                     witness {witness}: check the witness's key"
                ),
            )
            .in_index(i));
        };
        let at = i64::try_from(seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
        sql.exec(
            "INSERT INTO ledger_cosignatures (size, witness, line, at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (size, witness) DO NOTHING",
            &[
                Arg::Int(int(size)?),
                Arg::Text(witness.name()),
                Arg::Text(&line.to_string()),
                Arg::Int(at),
            ],
        )?;
    }
    stored::at(sql, size)
}
