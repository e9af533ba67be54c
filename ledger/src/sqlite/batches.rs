//! The batch tables on SQLite ([`BatchTx`]). `BEGIN IMMEDIATE` already holds the only write
//! lock, so a read locks nothing more.

use super::tx::SqliteTx;
use crate::store::{
    batch_from, batch_sql, batch_sql::Statements, item_from, lineage_from, whole, BatchRow,
    BatchTx, ItemRow, LineageRow, Lock,
};
use actionseal_core::Result;
use rusqlite::params;
use std::sync::LazyLock;

/// `$n` placeholders in SQLite's spelling (`?n`).
fn spelled(sql: &str) -> String {
    sql.replace('$', "?")
}

/// The statements in SQLite's spelling; a read needs no lock of its own.
static SQL: LazyLock<Statements> = LazyLock::new(|| Statements::new(spelled, ""));

impl BatchTx for SqliteTx<'_> {
    fn batch(&mut self, id: &str, _lock: Lock) -> Result<Option<BatchRow>> {
        let sql = &SQL.batch[0];
        Ok(self.rows(sql, params![id], |r| batch_from(r))?.pop())
    }

    fn batch_head(&mut self, id: &str, _lock: Lock) -> Result<Option<BatchRow>> {
        let sql = &SQL.batch_head[0];
        Ok(self.rows(sql, params![id], |r| batch_from(r))?.pop())
    }

    fn batch_of_approval(&mut self, approval_id: &str, _lock: Lock) -> Result<Option<BatchRow>> {
        let sql = &SQL.batch_of_approval[0];
        Ok(self
            .rows(sql, params![approval_id], |r| batch_from(r))?
            .pop())
    }

    fn put_batch(&mut self, b: &BatchRow) -> Result<()> {
        whole(b)?;
        let (digest, proposed) = (b.digest.to_string(), b.proposed_digest.to_string());
        self.exec(
            &SQL.put_batch,
            params![
                b.id,
                b.lineage,
                b.tenant,
                b.semantics,
                b.header,
                digest,
                proposed,
                b.items,
                b.proposed_items,
                b.amendments,
                b.state.as_str(),
                b.approval_id,
                b.decision_id,
                b.record,
                b.proof,
                b.contract,
                b.proposer,
                b.created_at,
                b.updated_at
            ],
        )
        .map(|_| ())
    }

    fn lineage(&mut self, id: &str) -> Result<Option<LineageRow>> {
        let sql = &SQL.lineage[0];
        Ok(self.rows(sql, params![id], |r| lineage_from(r))?.pop())
    }

    fn put_lineage(&mut self, l: &LineageRow) -> Result<()> {
        self.exec(
            &SQL.put_lineage,
            params![
                l.id,
                l.current,
                l.generation,
                l.totals,
                l.breaker,
                l.updated_at
            ],
        )
        .map(|_| ())
    }

    fn item(&mut self, task_id: &str) -> Result<Option<ItemRow>> {
        let sql = &SQL.item;
        Ok(self.rows(sql, params![task_id], |r| item_from(r))?.pop())
    }

    fn put_item(&mut self, i: &ItemRow) -> Result<()> {
        self.exec(
            &SQL.put_item,
            params![i.task_id, i.lineage, i.idx, i.batch, i.proof],
        )
        .map(|_| ())
    }

    fn audit_batches(&mut self) -> Result<(Vec<BatchRow>, Vec<LineageRow>)> {
        let batches = self.rows(&batch_sql::all_batches(), params![], |r| batch_from(r))?;
        let lineages = self.rows(&batch_sql::all_lineages(), params![], |r| lineage_from(r))?;
        Ok((batches, lineages))
    }
}
