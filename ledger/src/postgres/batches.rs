//! The batch tables on PostgreSQL ([`BatchTx`]): each a statement of its own, so a free
//! attempt runs again locked (`Retry::Locks`) before it sends one, and a locked read takes
//! the row `FOR UPDATE`.

use super::tx::PgTx;
use crate::store::{
    batch_from, batch_sql, batch_sql::Statements, item_from, lineage_from, whole, BatchRow,
    BatchTx, ItemRow, LineageRow, Lock,
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
        let sql = &SQL.lineage[self.locked(Lock::Row)];
        self.rows(sql, &[&id])?
            .pop()
            .map(|r| lineage_from(&r))
            .transpose()
    }

    fn put_lineage(&mut self, l: &LineageRow) -> Result<()> {
        self.exec(
            &SQL.put_lineage,
            &[
                &l.id,
                &l.current,
                &l.generation,
                &l.totals,
                &l.breaker,
                &l.updated_at,
            ],
        )
        .map(|_| ())
    }

    fn item(&mut self, task_id: &str) -> Result<Option<ItemRow>> {
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
}
