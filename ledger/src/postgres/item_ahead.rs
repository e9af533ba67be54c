//! What an operation on one batch item reads ahead on PostgreSQL (`batches`), kept on its
//! attempt (`tx`) until the reads that ask for it.

use crate::store::{BatchRow, ItemRow, LineageRow, TaskRow};

/// The rows an operation on one item read in its first round trip (`BEGIN` and four
/// `EXECUTE`s: lineage and batch head `FOR UPDATE`, the item row, the task `FOR UPDATE`, in
/// the order every batch operation locks them), each taken by the first read that asks for
/// that row: one round trip instead of five.
#[derive(Default)]
pub(super) struct ItemAhead {
    pub(super) lineage: Option<LineageRow>,
    pub(super) head: Option<BatchRow>,
    pub(super) item: Option<ItemRow>,
    pub(super) task: Option<TaskRow>,
}
