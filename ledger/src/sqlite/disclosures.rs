//! The disclosures and retention tables on SQLite ([`DisclosureTx`]).

use super::tx::SqliteTx;
use crate::store::{
    disclosure_from, disclosure_sql as sql, retention_from, DisclosureRow, DisclosureTx,
    RetentionRow,
};
use actionseal_core::Result;
use rusqlite::params;
use std::sync::LazyLock;

/// `$n` placeholders in SQLite's spelling (`?n`).
fn spelled(sql: &str) -> String {
    sql.replace('$', "?")
}

static INSERT: LazyLock<String> = LazyLock::new(|| spelled(&sql::insert()));
static OF_TASK: LazyLock<String> = LazyLock::new(|| spelled(&sql::of_task()));
static OF_TASK_DELETE: LazyLock<String> = LazyLock::new(|| spelled(sql::OF_TASK_DELETE));
static SHRED: LazyLock<String> = LazyLock::new(|| spelled(sql::SHRED));
static HELD_BEFORE: LazyLock<String> = LazyLock::new(|| spelled(sql::HELD_BEFORE));
static RETENTION: LazyLock<String> = LazyLock::new(sql::retention);
static PUT_RETENTION: LazyLock<String> = LazyLock::new(|| spelled(&sql::put_retention()));

impl DisclosureTx for SqliteTx<'_> {
    fn insert_disclosures(&mut self, rows: &[DisclosureRow]) -> Result<()> {
        for r in rows {
            self.exec(
                &INSERT,
                params![
                    r.task_id,
                    r.pointer,
                    r.tenant,
                    r.class,
                    r.disclosure,
                    r.created_at,
                    r.shredded_at
                ],
            )?;
        }
        Ok(())
    }

    fn replace_disclosures(&mut self, task_id: &str, rows: &[DisclosureRow]) -> Result<()> {
        self.exec(&OF_TASK_DELETE, params![task_id])?;
        self.insert_disclosures(rows)
    }

    fn disclosures(&mut self, task_id: &str) -> Result<Vec<DisclosureRow>> {
        self.rows(&OF_TASK, params![task_id], |r| disclosure_from(r))
    }

    fn shred(&mut self, task_id: &str, pointer: &str, now: i64) -> Result<bool> {
        Ok(self.exec(&SHRED, params![task_id, pointer, now])? > 0)
    }

    fn held_before(
        &mut self,
        tenant: &str,
        class: &str,
        before: i64,
        limit: i64,
    ) -> Result<Vec<String>> {
        self.rows(&HELD_BEFORE, params![tenant, class, before, limit], |r| {
            r.get(0)
                .map_err(|e| crate::store::storage("disclosures", e))
        })
    }

    fn retention(&mut self) -> Result<Vec<RetentionRow>> {
        self.rows(&RETENTION, params![], |r| retention_from(r))
    }

    fn put_retention(&mut self, r: &RetentionRow) -> Result<()> {
        self.exec(
            &PUT_RETENTION,
            params![
                r.tenant,
                r.class,
                r.keep_ms,
                r.at_finish,
                r.changed_at,
                r.changed_by
            ],
        )
        .map(|_| ())
    }
}
