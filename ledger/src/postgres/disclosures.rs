//! The disclosures and retention tables on PostgreSQL ([`DisclosureTx`]): each a statement of
//! its own, so a free attempt runs again locked (`Retry::Locks`) before it sends one.

use super::tx::PgTx;
use crate::store::{
    disclosure_from, disclosure_sql as sql, retention_from, Cols, DisclosureRow, DisclosureTx,
    RetentionRow,
};
use actionseal_core::Result;
use std::sync::LazyLock;

static INSERT: LazyLock<String> = LazyLock::new(sql::insert);
static OF_TASK: LazyLock<String> = LazyLock::new(sql::of_task);
static RETENTION: LazyLock<String> = LazyLock::new(sql::retention);
static PUT_RETENTION: LazyLock<String> = LazyLock::new(sql::put_retention);

impl DisclosureTx for PgTx<'_> {
    fn insert_disclosures(&mut self, rows: &[DisclosureRow]) -> Result<()> {
        for r in rows {
            self.exec(
                &INSERT,
                &[
                    &r.task_id,
                    &r.pointer,
                    &r.tenant,
                    &r.class,
                    &r.disclosure,
                    &r.created_at,
                    &r.shredded_at,
                ],
            )?;
        }
        Ok(())
    }

    fn replace_disclosures(&mut self, task_id: &str, rows: &[DisclosureRow]) -> Result<()> {
        self.exec(sql::OF_TASK_DELETE, &[&task_id])?;
        self.insert_disclosures(rows)
    }

    fn disclosures(&mut self, task_id: &str) -> Result<Vec<DisclosureRow>> {
        self.rows(&OF_TASK, &[&task_id])?
            .iter()
            .map(|r| disclosure_from(r))
            .collect()
    }

    fn shred(&mut self, task_id: &str, pointer: &str, now: i64) -> Result<bool> {
        Ok(self.exec(sql::SHRED, &[&task_id, &pointer, &now])? > 0)
    }

    fn held_before(
        &mut self,
        tenant: &str,
        class: &str,
        before: i64,
        limit: i64,
    ) -> Result<Vec<String>> {
        self.rows(sql::HELD_BEFORE, &[&tenant, &class, &before, &limit])?
            .iter()
            .map(|r| r.text(0))
            .collect()
    }

    fn retention(&mut self) -> Result<Vec<RetentionRow>> {
        self.rows(&RETENTION, &[])?
            .iter()
            .map(|r| retention_from(r))
            .collect()
    }

    fn put_retention(&mut self, r: &RetentionRow) -> Result<()> {
        self.exec(
            &PUT_RETENTION,
            &[
                &r.tenant,
                &r.class,
                &r.keep_ms,
                &r.at_finish,
                &r.changed_at,
                &r.changed_by,
            ],
        )
        .map(|_| ())
    }
}
