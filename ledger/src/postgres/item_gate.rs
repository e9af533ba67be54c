//! What an operation on one batch item read freely on PostgreSQL (`batches`, in its first
//! round trip, kept on its attempt as `crate::store::ItemAhead` until the reads that ask for
//! it) and its one statement must find unchanged (`last`).

use crate::store::{BatchRow, LineageRow};
use actionseal_core::ledger::State;

/// What a free attempt on an item read of its lineage and of the lineage's current batch,
/// and decided from: its statement locks both rows (lineage, batch, then the task, the order
/// of every batch operation) and writes only if each is still as read, so that its caps,
/// breaker and decision hold at its commit as they did when it decided.
pub(super) struct ItemGate {
    pub(super) lineage: LineageRow,
    pub(super) batch: String,
    pub(super) state: State,
    pub(super) updated_at: i64,
    pub(super) record: Option<String>,
    pub(super) proof: Option<String>,
}

impl ItemGate {
    pub(super) fn new(lineage: &LineageRow, head: &BatchRow) -> ItemGate {
        ItemGate {
            lineage: lineage.clone(),
            batch: head.id.clone(),
            state: head.state,
            updated_at: head.updated_at,
            record: head.record.clone(),
            proof: head.proof.clone(),
        }
    }
}
