//! A checkpoint's RFC 3161 token, over the checkpoint's text: the signed note's text without
//! its signature lines (C2SP signed-note), which is what the log's key and every witness's
//! cosignature sign as well, so one token dates the checkpoint whoever signed it.
//!
//! The token is asked after the sequencing transaction commits (holding the events' lock
//! across a round trip to the TSA would stall every writer), then set in the checkpoint's
//! row in a second, short transaction: `timestamp` goes from NULL to a verified token once,
//! and the append-only triggers allow that one change and nothing else
//! (`append_only_tree.*.sql`).

use super::sql::{Arg, Sql};
use super::stored::{self, int};
use super::Checkpoint;
use crate::tsa::Tsa;
use actionseal_core::tlog::note::Note;
use actionseal_core::{Error, Result};

/// A verified token from `tsa` over `checkpoint`'s text; the TSA's error otherwise, saying
/// that the checkpoint is kept without one.
pub(crate) fn token(tsa: &Tsa, checkpoint: &Checkpoint) -> Result<Vec<u8>> {
    let note = Note::parse(checkpoint.note.as_bytes())?;
    tsa.stamp(note.text().as_bytes()).map_err(|e| {
        Error::new(
            e.code(),
            format!(
                "{} (the checkpoint of {} leaves is stored and signed, without a \
                     time-stamp: make a checkpoint again once the TSA answers, which stamps it)",
                e.message(),
                checkpoint.size
            ),
        )
    })
}

/// Sets `token` in the row of the checkpoint of `size` unless one is there already (a
/// concurrent call stamped it first); the checkpoint as stored.
pub(crate) fn keep(sql: &mut dyn Sql, size: u64, token: &[u8]) -> Result<Checkpoint> {
    sql.exec(
        "UPDATE ledger_checkpoints SET timestamp = $1 WHERE size = $2 AND timestamp IS NULL",
        &[Arg::Bytes(token), Arg::Int(int(size)?)],
    )?;
    stored::at(sql, size)
}
