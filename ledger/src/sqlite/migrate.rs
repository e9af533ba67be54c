//! SQLite's side of the migration (`schema::migrate`): one `BEGIN IMMEDIATE` transaction, the
//! tables found in `sqlite_master`, and the append-only triggers compared with the statements
//! that made them.

use super::open::sql_error;
use crate::schema::migrate::{Contents, Migration};
use crate::schema::{protect, Dialect, SQLITE, TREE_TABLES};
use crate::store::{digest_from, Head, Sealed};
use actionseal_core::Result;
use rusqlite::{params, Connection, Transaction, TransactionBehavior};

/// The triggers [`SQLITE`]'s `append_only` and `tree_append_only` create, one pair per
/// table, and the script that removes what is left of them before creating them again.
fn append_only() -> Vec<String> {
    std::iter::once("ledger_events")
        .chain(TREE_TABLES)
        .flat_map(|t| [format!("{t}_no_update"), format!("{t}_no_delete")])
        .collect()
}

fn drop_append_only() -> String {
    append_only()
        .iter()
        .map(|name| format!("DROP TRIGGER IF EXISTS {name};\n"))
        .collect()
}

/// Creates, upgrades and protects the schema; returns its cutoff (see `link_events.sql`).
pub(super) fn migrate(c: &mut Connection, now: i64) -> Result<i64> {
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| sql_error("migrate", e))?;
    crate::schema::migrate::migrate(Opening(tx), now)
}

/// The transaction that opens a ledger.
struct Opening<'c>(Transaction<'c>);

impl Migration for Opening<'_> {
    /// The cutoff.
    type Facts = i64;
    const DIALECT: &'static Dialect = &SQLITE;

    fn contents(&mut self) -> Result<Contents> {
        let mut st = self
            .0
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .map_err(|e| sql_error("migrate", e))?;
        let tables: Vec<String> = st
            .query_map([], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| sql_error("migrate", e))?;
        Ok(if tables.iter().any(|t| t == "ledger_schema") {
            Contents::Ledger
        } else if tables.is_empty() {
            Contents::Empty
        } else {
            Contents::Other(tables)
        })
    }

    fn int(&mut self, sql: &str, what: &str) -> Result<Option<i64>> {
        self.0
            .query_row(sql, [], |r| r.get(0))
            .map_err(|e| sql_error(what, e))
    }

    fn batch(&mut self, sql: &str, what: &str) -> Result<()> {
        self.0.execute_batch(sql).map_err(|e| sql_error(what, e))
    }

    fn unprotected(&mut self) -> Result<Vec<String>> {
        let mut st = self
            .0
            .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
            .map_err(|e| sql_error("triggers", e))?;
        let stored = st
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| sql_error("triggers", e))?;
        let mut problems = Vec::new();
        for name in append_only() {
            // SQLite keeps each trigger's statement as written, without its semicolon.
            match stored.iter().find(|(n, _)| *n == name) {
                None => problems.push(format!("{name}: missing")),
                Some((_, sql)) => {
                    let written = sql.as_deref().map(|s| format!("{s};\n"));
                    if !written.is_some_and(|w| {
                        SQLITE.append_only.contains(&w) || SQLITE.tree_append_only.contains(&w)
                    }) {
                        problems.push(format!("{name}: altered"));
                    }
                }
            }
        }
        Ok(problems)
    }

    fn reprotect(&mut self, problems: &[String]) -> Result<()> {
        self.0
            .execute_batch(&format!(
                "{}{}{}",
                drop_append_only(),
                SQLITE.append_only,
                SQLITE.tree_append_only
            ))
            .map_err(|e| protect::unprotected(problems, e))
    }

    fn audit_head(&mut self) -> Result<Head> {
        // The transaction holds SQLite's only write lock already.
        let (seq, digest): (i64, Option<String>) = self
            .0
            .query_row(
                "SELECT seq, digest FROM ledger_head WHERE chain = 0",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| sql_error("audit head", e))?;
        Ok((seq, digest.as_deref().map(digest_from).transpose()?))
    }

    fn record_restored(&mut self, now: i64, event: &Sealed, moved: Head) -> Result<()> {
        let (seq, text, digest) = event;
        let kind = actionseal_core::ledger::EventKind::AppendOnlyRestored.as_str();
        self.0
            .execute(
                "INSERT INTO ledger_events (chain, seq, at, tenant, task, kind, body, digest, \
                 task_prev) VALUES (0, ?1, ?2, ?3, NULL, ?4, ?5, ?6, 0)",
                params![
                    seq,
                    now,
                    crate::ops::LEDGER_ACTOR,
                    kind,
                    text,
                    digest.text().as_str()
                ],
            )
            .and_then(|_| {
                self.0.execute(
                    "UPDATE ledger_head SET seq = ?1, digest = ?2 WHERE chain = 0",
                    params![moved.0, moved.1.map(|d| d.to_string())],
                )
            })
            .map_err(|e| sql_error("audit", e))?;
        Ok(())
    }

    fn facts(&mut self) -> Result<i64> {
        self.0
            .query_row("SELECT cutoff FROM ledger_links", [], |r| r.get(0))
            .map_err(|e| sql_error("schema", e))
    }

    fn commit(self, what: &str) -> Result<()> {
        self.0.commit().map_err(|e| sql_error(what, e))
    }
}
