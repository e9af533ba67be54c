//! The batch tables on SQLite ([`BatchTx`]). `BEGIN IMMEDIATE` already holds the only write
//! lock, so a read locks nothing more. An operation on one item reads its four rows in one
//! statement ahead ([`crate::store::ItemAhead`]): a statement's own cost (its cached
//! look-up, binding, stepping and reset) is a measurable part of an item's claim.

use super::tx::SqliteTx;
use crate::store::{
    batch_from, batch_sql, batch_sql::Statements, columns, item_from, lineage_from, task_from,
    whole, BatchRow, BatchTx, Cols, ItemAhead, ItemRow, LineageRow, Lock, Shifted, BATCH_COLUMNS,
    ITEM_COLUMNS, LINEAGE_COLUMNS, TASK_COLUMNS,
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

/// The statement that reads an item's rows ahead ([`batch_sql::item_rows`]).
static ITEM_ROWS: LazyLock<String> = LazyLock::new(|| spelled(&batch_sql::item_rows()));

/// Where each row's columns begin in [`ITEM_ROWS`]'s row.
const HEAD_AT: usize = columns(LINEAGE_COLUMNS);
const ITEM_AT: usize = HEAD_AT + columns(BATCH_COLUMNS);
const TASK_AT: usize = ITEM_AT + columns(ITEM_COLUMNS);
const EVENT_AT: usize = TASK_AT + columns(TASK_COLUMNS);

impl BatchTx for SqliteTx<'_> {
    fn batch(&mut self, id: &str, _lock: Lock) -> Result<Option<BatchRow>> {
        let sql = &SQL.batch[0];
        self.row(sql, params![id], |r| batch_from(r))
    }

    fn batch_head(&mut self, id: &str, _lock: Lock) -> Result<Option<BatchRow>> {
        if let Some(b) = self.item_ahead.head.take_if(|b| b.id == id) {
            return Ok(Some(b));
        }
        let sql = &SQL.batch_head[0];
        self.row(sql, params![id], |r| batch_from(r))
    }

    fn batch_of_approval(&mut self, approval_id: &str, _lock: Lock) -> Result<Option<BatchRow>> {
        let sql = &SQL.batch_of_approval[0];
        self.row(sql, params![approval_id], |r| batch_from(r))
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
        if let Some(l) = self.item_ahead.lineage.take_if(|l| l.id == id) {
            return Ok(Some(l));
        }
        let sql = &SQL.lineage[0];
        self.row(sql, params![id], |r| lineage_from(r))
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
        if let Some(i) = self.item_ahead.item.take_if(|i| i.task_id == task_id) {
            return Ok(Some(i));
        }
        let sql = &SQL.item;
        self.row(sql, params![task_id], |r| item_from(r))
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

    fn read_item_ahead(&mut self, task_id: &str) -> Result<()> {
        let read = self.row(&ITEM_ROWS, params![task_id], |r| {
            Ok((
                lineage_from(r)?,
                batch_from(&Shifted(r, HEAD_AT))?,
                item_from(&Shifted(r, ITEM_AT))?,
                task_from(&Shifted(r, TASK_AT))?,
                r.int(EVENT_AT)?,
            ))
        })?;
        self.item_ahead = match read {
            Some((lineage, head, item, task, last_event)) => {
                // As a read of the task remembers it, for the next event about it to link to.
                self.links.set(&task.id, last_event);
                ItemAhead {
                    lineage: Some(lineage),
                    head: Some(head),
                    item: Some(item),
                    task: Some(task),
                }
            }
            None => ItemAhead::default(),
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::ITEM_ROWS;
    use crate::sqlite::{migrate, open::prepared_once};
    use rusqlite::{Connection, StatementStatus};

    /// rusqlite's cache clears a statement's bindings as it takes it back, and SQLite prepares
    /// again, at its next run, a statement whose plan may depend on a value bound: without
    /// the query planner stability guarantee the read-ahead of an item's rows was prepared
    /// again at every claim (2 times in 3 runs here).
    #[test]
    fn the_read_ahead_is_prepared_once_however_often_it_runs() {
        let mut c = Connection::open_in_memory().unwrap();
        prepared_once(&c).unwrap();
        migrate::migrate(&mut c, 0).unwrap();
        for task in ["task_1", "task_2", "task_3"] {
            let mut st = c.prepare_cached(&ITEM_ROWS).unwrap();
            assert!(st.query([task]).unwrap().next().unwrap().is_none());
        }
        let st = c.prepare_cached(&ITEM_ROWS).unwrap();
        assert_eq!(st.get_status(StatementStatus::RePrepare), 0);
    }
}
