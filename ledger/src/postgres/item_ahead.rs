//! What an operation on one batch item reads ahead on PostgreSQL (`batches`), kept on its
//! attempt (`tx`) until the reads that ask for it, and, read freely, what its one statement
//! must find unchanged (`last`).

use crate::store::{BatchRow, ItemRow, LineageRow, TaskRow};
use actionseal_core::ledger::State;

/// The rows an operation on one item read in its first round trip (four `EXECUTE`s: lineage
/// and batch head, the item row, the task, in the order every batch operation locks them;
/// locked, after `BEGIN`, or freely), each taken by the first read that asks for that row:
/// one round trip instead of five.
#[derive(Default)]
pub(super) struct ItemAhead {
    pub(super) lineage: Option<LineageRow>,
    pub(super) head: Option<BatchRow>,
    pub(super) item: Option<ItemRow>,
    pub(super) task: Option<TaskRow>,
}

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
