//! The batch tables on PostgreSQL ([`BatchTx`]): each a statement of its own (but a lineage's
//! write, which goes with the last statement), so a free attempt runs again locked
//! (`Retry::Locks`) before it sends one, and a locked read takes the row `FOR UPDATE`. An
//! operation on one item reads its rows ahead in one round trip, freely in a free attempt,
//! whose one statement then holds them to what it read (`item_gate::ItemGate`).

use super::attempt::{Attempt, Retry};
use super::item_gate::ItemGate;
use super::tx::{derived, PgTx};
use crate::store::{
    batch_from, batch_sql, batch_sql::Statements, defer, item_from, lineage_from, storage, whole,
    BatchRow, BatchTx, ItemAhead, ItemRow, LineageRow, Lock, Write,
};
use actionseal_core::Result;
use std::sync::LazyLock;

/// The statements in PostgreSQL's spelling, a locked read `FOR UPDATE`.
static SQL: LazyLock<Statements> = LazyLock::new(|| Statements::new(str::to_owned, " FOR UPDATE"));

impl PgTx<'_> {
    /// Which form of a read of a batch's row (unlocked, locked) this attempt sends: only a
    /// write's reads lock (as [`PgTx::lock`]).
    fn locked(&self, lock: Lock) -> usize {
        match lock {
            Lock::Row => usize::from(!self.lock().is_empty()),
            Lock::None => 0,
        }
    }
}

impl BatchTx for PgTx<'_> {
    fn batch(&mut self, id: &str, lock: Lock) -> Result<Option<BatchRow>> {
        let sql = &SQL.batch[self.locked(lock)];
        self.rows(sql, &[&id])?
            .pop()
            .map(|r| batch_from(&r))
            .transpose()
    }

    fn batch_head(&mut self, id: &str, lock: Lock) -> Result<Option<BatchRow>> {
        if lock == Lock::Row {
            if let Some(b) = self.item_ahead.head.take_if(|b| b.id == id) {
                return Ok(Some(b));
            }
        }
        let sql = &SQL.batch_head[self.locked(lock)];
        self.rows(sql, &[&id])?
            .pop()
            .map(|r| batch_from(&r))
            .transpose()
    }

    fn batch_of_approval(&mut self, approval_id: &str, lock: Lock) -> Result<Option<BatchRow>> {
        let sql = &SQL.batch_of_approval[self.locked(lock)];
        self.rows(sql, &[&approval_id])?
            .pop()
            .map(|r| batch_from(&r))
            .transpose()
    }

    fn put_batch(&mut self, b: &BatchRow) -> Result<()> {
        whole(b)?;
        let (digest, proposed) = (b.digest.to_string(), b.proposed_digest.to_string());
        self.exec(
            &SQL.put_batch,
            &[
                &b.id,
                &b.lineage,
                &b.tenant,
                &b.semantics,
                &b.header,
                &digest,
                &proposed,
                &b.items,
                &b.proposed_items,
                &b.amendments,
                &b.state.as_str(),
                &b.approval_id,
                &b.decision_id,
                &b.record,
                &b.proof,
                &b.contract,
                &b.proposer,
                &b.created_at,
                &b.updated_at,
            ],
        )
        .map(|_| ())
    }

    fn lineage(&mut self, id: &str) -> Result<Option<LineageRow>> {
        if let Some(l) = self.item_ahead.lineage.take_if(|l| l.id == id) {
            return Ok(Some(l));
        }
        let sql = &SQL.lineage[self.locked(Lock::Row)];
        self.rows(sql, &[&id])?
            .pop()
            .map(|r| lineage_from(&r))
            .transpose()
    }

    fn put_lineage(&mut self, l: &LineageRow) -> Result<()> {
        // Deferred to the last statement. A free attempt writes only the lineage its statement
        // gates on (an item's, `ItemGate`); any other runs again under locks first.
        if self.item_gate.as_ref().is_none_or(|g| g.lineage.id != l.id) {
            self.begin()?;
        }
        defer(&mut self.writes, Write::PutLineage(l.clone()));
        Ok(())
    }

    fn item(&mut self, task_id: &str) -> Result<Option<ItemRow>> {
        if let Some(i) = self.item_ahead.item.take_if(|i| i.task_id == task_id) {
            return Ok(Some(i));
        }
        self.rows(&SQL.item, &[&task_id])?
            .pop()
            .map(|r| item_from(&r))
            .transpose()
    }

    fn put_item(&mut self, i: &ItemRow) -> Result<()> {
        self.exec(
            &SQL.put_item,
            &[&i.task_id, &i.lineage, &i.idx, &i.batch, &i.proof],
        )
        .map(|_| ())
    }

    fn audit_batches(&mut self) -> Result<(Vec<BatchRow>, Vec<LineageRow>)> {
        let batches = self
            .rows(&batch_sql::all_batches(), &[])?
            .iter()
            .map(|r| batch_from(r))
            .collect::<Result<_>>()?;
        let lineages = self
            .rows(&batch_sql::all_lineages(), &[])?
            .iter()
            .map(|r| lineage_from(r))
            .collect::<Result<_>>()?;
        Ok((batches, lineages))
    }

    fn read_item_ahead(&mut self, task_id: &str) -> Result<()> {
        if !self.first_read() || !derived(task_id, "task_") {
            return match self.attempt {
                // Only the first read of a free attempt can be gated: run again, locked.
                Attempt::Free(_) => {
                    self.again = Some(Retry::Locks);
                    Err(storage("read", "this operation reads under locks"))
                }
                Attempt::Snapshot | Attempt::Locked => Ok(()),
            };
        }
        let id = task_id;
        let mut groups = self.begin_with_all(&[
            ("ledger_item_lineage", id),
            ("ledger_item_head", id),
            ("ledger_item", id),
            ("ledger_task", id),
        ])?;
        let mut last = || groups.pop().unwrap_or_default().into_iter().next();
        let task = last().map(|r| self.linked(&r)).transpose()?;
        let item = last().map(|r| item_from(&r)).transpose()?;
        let head = last().map(|r| batch_from(&r)).transpose()?;
        let lineage = last().map(|r| lineage_from(&r)).transpose()?;
        if let (Attempt::Free(_), Some(l), Some(b)) = (&self.attempt, &lineage, &head) {
            self.item_gate = Some(ItemGate::new(l, b));
        }
        self.item_ahead = ItemAhead {
            lineage,
            head,
            item,
            task,
        };
        Ok(())
    }
}
