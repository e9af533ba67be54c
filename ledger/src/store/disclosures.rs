//! What keeping sensitive values apart needs from a backend (issue 29), inside the same
//! transaction as the task they belong to: every operation that reads or shreds a task's
//! disclosures has locked its task first, so a claim and a shredding never interleave.

use super::{DisclosureRow, RetentionRow};
use actionseal_core::Result;

pub(crate) trait DisclosureTx {
    /// Stores a new task's disclosures.
    fn insert_disclosures(&mut self, rows: &[DisclosureRow]) -> Result<()>;
    /// Replaces a task's disclosures (its action was amended).
    fn replace_disclosures(&mut self, task_id: &str, rows: &[DisclosureRow]) -> Result<()>;
    /// A task's sensitive places, shredded or not, by pointer.
    fn disclosures(&mut self, task_id: &str) -> Result<Vec<DisclosureRow>>;
    /// Shreds the disclosure at `pointer` of `task_id` (NULL, dated `now`); whether it held one.
    fn shred(&mut self, task_id: &str, pointer: &str, now: i64) -> Result<bool>;
    /// Up to `limit` tasks of `tenant` still holding a disclosure of `class` made before
    /// `before`, by id.
    fn held_before(
        &mut self,
        tenant: &str,
        class: &str,
        before: i64,
        limit: i64,
    ) -> Result<Vec<String>>;
    /// Every retention policy, by tenant and class.
    fn retention(&mut self) -> Result<Vec<RetentionRow>>;
    /// Creates or replaces a tenant's policy for a class.
    fn put_retention(&mut self, r: &RetentionRow) -> Result<()>;
}

/// The statements of [`DisclosureTx`], `$1`.. placeholders (SQLite's spelling replaces `$`).
pub(crate) mod disclosure_sql {
    use super::super::rows::{DISCLOSURE_COLUMNS, RETENTION_COLUMNS};

    pub(crate) fn insert() -> String {
        format!(
            "INSERT INTO ledger_disclosures ({DISCLOSURE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, \
             $6, $7)"
        )
    }

    pub(crate) const OF_TASK_DELETE: &str = "DELETE FROM ledger_disclosures WHERE task_id = $1";

    pub(crate) fn of_task() -> String {
        format!("SELECT {DISCLOSURE_COLUMNS} FROM ledger_disclosures WHERE task_id = $1 ORDER BY pointer")
    }

    pub(crate) const SHRED: &str = "UPDATE ledger_disclosures SET disclosure = NULL, \
         shredded_at = $3 WHERE task_id = $1 AND pointer = $2 AND disclosure IS NOT NULL";

    pub(crate) const HELD_BEFORE: &str = "SELECT DISTINCT task_id FROM ledger_disclosures \
         WHERE tenant = $1 AND class = $2 AND created_at < $3 AND disclosure IS NOT NULL \
         ORDER BY task_id LIMIT $4";

    pub(crate) fn retention() -> String {
        format!("SELECT {RETENTION_COLUMNS} FROM ledger_retention ORDER BY tenant, class")
    }

    pub(crate) fn put_retention() -> String {
        format!(
            "INSERT INTO ledger_retention ({RETENTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (tenant, class) DO UPDATE SET keep_ms = excluded.keep_ms, \
             at_finish = excluded.at_finish, changed_at = excluded.changed_at, \
             changed_by = excluded.changed_by"
        )
    }
}
