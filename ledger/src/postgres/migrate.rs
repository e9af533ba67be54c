//! PostgreSQL's side of the migration (`schema::migrate`): one transaction holding an
//! advisory lock, and the append-only triggers compared with what the catalog holds.

use super::{pg_error, Schema};
use crate::schema::migrate::{Contents, Migration};
use crate::schema::{protect, Dialect, POSTGRES, TREE_TABLES};
use crate::store::{digest_from, Head, Sealed};
use actionseal_core::Result;
use postgres::{Client, Transaction};

/// One trigger that keeps a table append-only: its name, its table, its `pg_trigger.tgtype`
/// (row 1, before 2, delete 8, update 16, truncate 32), the function it calls and that
/// function's body as [`POSTGRES`] writes it.
struct Guard {
    name: String,
    table: &'static str,
    bits: i32,
    function: &'static str,
    body: &'static str,
}

/// The triggers [`POSTGRES`]'s `append_only` (the events') and `tree_append_only` (the Merkle
/// log's tables') create.
fn append_only() -> Vec<Guard> {
    let body = |sql: &'static str, n: usize| sql.split("$$").nth(n).unwrap_or_default();
    let events = ("ledger_events_append_only", body(POSTGRES.append_only, 1));
    let tree = (
        "ledger_tree_append_only",
        body(POSTGRES.tree_append_only, 1),
    );
    // A checkpoint's row trigger lets its token be set once (the file's second function).
    let stamp_once = (
        "ledger_checkpoints_stamp_once",
        body(POSTGRES.tree_append_only, 3),
    );
    std::iter::once(("ledger_events", events, events))
        .chain(TREE_TABLES.map(|t| match t {
            "ledger_checkpoints" => (t, stamp_once, tree),
            _ => (t, tree, tree),
        }))
        .flat_map(|(table, row, statement)| {
            [
                (format!("{table}_no_change"), 1 | 2 | 8 | 16, row),
                (format!("{table}_no_truncate"), 2 | 32, statement),
            ]
            .map(|(name, bits, (function, body))| Guard {
                name,
                table,
                bits,
                function,
                body,
            })
        })
        .collect()
}

/// Removes what is left of the triggers before creating them again.
fn drop_append_only() -> String {
    append_only()
        .iter()
        .map(|g| format!("DROP TRIGGER IF EXISTS {} ON {};\n", g.name, g.table))
        .collect()
}

/// An arbitrary constant: the advisory lock that serialises schema creation between
/// processes opening a fresh database at once.
const MIGRATION_LOCK: i64 = 0x6163_7469_6f6e;

/// Creates, upgrades and protects the schema, and reads what every transaction needs from it.
pub(super) fn migrate(client: &mut Client, now: i64) -> Result<Schema> {
    let mut tx = client.transaction().map_err(|e| pg_error("migrate", &e))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(|e| pg_error("migrate", &e))?;
    crate::schema::migrate::migrate(Opening(tx), now)
}

/// The transaction that opens a ledger, holding the migration lock.
struct Opening<'c>(Transaction<'c>);

impl Migration for Opening<'_> {
    type Facts = Schema;
    const DIALECT: &'static Dialect = &POSTGRES;

    fn contents(&mut self) -> Result<Contents> {
        let exists: bool = self
            .0
            .query_one("SELECT to_regclass('ledger_schema') IS NOT NULL", &[])
            .and_then(|r| r.try_get(0))
            .map_err(|e| pg_error("migrate", &e))?;
        Ok(if exists {
            Contents::Ledger
        } else {
            Contents::Empty
        })
    }

    fn int(&mut self, sql: &str, what: &str) -> Result<Option<i64>> {
        self.0
            .query_one(sql, &[])
            .and_then(|r| r.try_get(0))
            .map_err(|e| pg_error(what, &e))
    }

    fn batch(&mut self, sql: &str, what: &str) -> Result<()> {
        self.0.batch_execute(sql).map_err(|e| pg_error(what, &e))
    }

    /// Holds the triggers as the catalog holds them to the ones the ledger writes: there,
    /// enabled, firing on what they should with no condition, calling the function as
    /// written.
    fn unprotected(&mut self) -> Result<Vec<String>> {
        let tables: Vec<&str> = std::iter::once("ledger_events")
            .chain(TREE_TABLES)
            .collect();
        let rows = self
            .0
            .query(
                "SELECT t.tgname::text, t.tgenabled::text, t.tgtype::int, \
                 t.tgqual IS NULL AND t.tgattr::text = '', p.proname::text, p.prosrc, \
                 l.lanname::text, c.relname::text FROM pg_trigger t \
                 JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_language l ON l.oid = p.prolang \
                 JOIN pg_class c ON c.oid = t.tgrelid \
                 WHERE c.oid = ANY(CAST($1::text[] AS regclass[])) AND NOT t.tgisinternal",
                &[&tables],
            )
            .map_err(|e| pg_error("triggers", &e))?;
        let mut problems = Vec::new();
        for g in append_only() {
            let Some(r) = rows
                .iter()
                .find(|r| r.get::<_, &str>(0) == g.name && r.get::<_, &str>(7) == g.table)
            else {
                problems.push(format!("{}: missing", g.name));
                continue;
            };
            if !matches!(r.get::<_, &str>(1), "O" | "A") {
                problems.push(format!("{}: disabled", g.name));
            } else if r.get::<_, i32>(2) != g.bits
                || !r.get::<_, bool>(3)
                || r.get::<_, &str>(4) != g.function
                || r.get::<_, &str>(5) != g.body
                || r.get::<_, &str>(6) != "plpgsql"
            {
                problems.push(format!("{}: altered", g.name));
            }
        }
        Ok(problems)
    }

    fn reprotect(&mut self, problems: &[String]) -> Result<()> {
        self.0
            .batch_execute(&format!(
                "{}{}{}",
                drop_append_only(),
                POSTGRES.append_only,
                POSTGRES.tree_append_only
            ))
            .map_err(|e| protect::unprotected(problems, pg_error("restore", &e)))
    }

    fn audit_head(&mut self) -> Result<Head> {
        let row = self
            .0
            .query_one(
                "SELECT seq, digest FROM ledger_head WHERE chain = 0 FOR UPDATE",
                &[],
            )
            .map_err(|e| pg_error("audit head", &e))?;
        let digest: Option<String> = row.get(1);
        Ok((row.get(0), digest.as_deref().map(digest_from).transpose()?))
    }

    fn record_restored(&mut self, now: i64, event: &Sealed, moved: Head) -> Result<()> {
        let (seq, text, digest) = event;
        let kind = actionseal_core::ledger::EventKind::AppendOnlyRestored.as_str();
        self.0
            .execute(
                "INSERT INTO ledger_events (chain, seq, at, tenant, task, kind, body, digest, \
                 task_prev) VALUES (0, $1, $2, $3, NULL, $4, $5, $6, 0)",
                &[
                    seq,
                    &now,
                    &crate::ops::LEDGER_ACTOR,
                    &kind,
                    text,
                    &digest.to_string(),
                ],
            )
            .and_then(|_| {
                self.0.execute(
                    "UPDATE ledger_head SET seq = $1, digest = $2 WHERE chain = 0",
                    &[&moved.0, &moved.1.map(|d| d.to_string())],
                )
            })
            .map_err(|e| pg_error("audit", &e))?;
        Ok(())
    }

    fn facts(&mut self) -> Result<Schema> {
        let row = self
            .0
            .query_one(
                "SELECT (SELECT cutoff FROM ledger_links), \
                 pg_get_serial_sequence('ledger_events', 'id')::regclass::oid",
                &[],
            )
            .map_err(|e| pg_error("schema", &e))?;
        let cutoff: i64 = row.try_get(0).map_err(|e| pg_error("schema", &e))?;
        let sequence: u32 = row.try_get(1).map_err(|e| pg_error("schema", &e))?;
        Ok(Schema { cutoff, sequence })
    }

    fn commit(self, what: &str) -> Result<()> {
        self.0.commit().map_err(|e| pg_error(what, &e))
    }
}
