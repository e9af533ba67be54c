//! The schema in SQLite's spelling: created in an empty database, upgraded in an older one,
//! and its append-only triggers held to the ones the ledger writes.

use super::open::sql_error;
use crate::protect;
use crate::store::{create_all, digest_from, upgrade, Dialect, SCHEMA_VERSION};
use actionseal_core::ledger::CHAINS;
use actionseal_core::{Code, Error, Result};
use rusqlite::{params, Connection, TransactionBehavior};

/// SQLite's spelling of the schema.
const DIALECT: Dialect = Dialect {
    int: "INTEGER",
    lean: " WITHOUT ROWID",
    serial: "INTEGER PRIMARY KEY",
    append_only: "
CREATE TRIGGER ledger_events_no_update BEFORE UPDATE ON ledger_events
BEGIN SELECT RAISE(ABORT, 'ledger_events is append-only'); END;
CREATE TRIGGER ledger_events_no_delete BEFORE DELETE ON ledger_events
BEGIN SELECT RAISE(ABORT, 'ledger_events is append-only'); END;
",
    task_storage: "",
};

/// The triggers [`DIALECT`]'s `append_only` creates, and how to remove what is left of them
/// before creating them again.
const APPEND_ONLY: [&str; 2] = ["ledger_events_no_update", "ledger_events_no_delete"];
const DROP_APPEND_ONLY: &str = "
DROP TRIGGER IF EXISTS ledger_events_no_update;
DROP TRIGGER IF EXISTS ledger_events_no_delete;
";

/// Creates the schema in an empty database, checks (and upgrades) the version of an existing
/// one, and refuses a database that holds something else. Returns the schema's cutoff (see
/// `store::link_events`).
pub(super) fn migrate(c: &mut Connection, now: i64) -> Result<i64> {
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| sql_error("migrate", e))?;
    let tables: Vec<String> = {
        let mut st = tx
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .map_err(|e| sql_error("migrate", e))?;
        let rows = st
            .query_map([], |r| r.get(0))
            .map_err(|e| sql_error("migrate", e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| sql_error("migrate", e))?
    };
    if tables.iter().any(|t| t == "ledger_schema") {
        let found: Option<i64> = tx
            .query_row("SELECT MAX(version) FROM ledger_schema", [], |r| r.get(0))
            .map_err(|e| sql_error("schema version", e))?;
        let mut version = protect::version(found)?;
        loop {
            let mut last_id = || {
                tx.query_row("SELECT coalesce(max(id), 0) FROM ledger_events", [], |r| {
                    r.get(0)
                })
                .map_err(|e| sql_error("upgrade schema", e))
            };
            let Some(sql) = upgrade(version, &DIALECT, &mut last_id)? else {
                break;
            };
            version += 1;
            tx.execute_batch(&sql)
                .and_then(|()| {
                    tx.execute("INSERT INTO ledger_schema (version) VALUES (?1)", [version])
                        .map(|_| ())
                })
                .map_err(|e| sql_error("upgrade schema", e))?;
        }
        protect(&tx, now)?;
        let cutoff = cutoff(&tx)?;
        tx.commit().map_err(|e| sql_error("upgrade schema", e))?;
        return Ok(cutoff);
    }
    if !tables.is_empty() {
        return Err(Error::new(
            Code::NotALedger,
            format!(
                "the database holds other tables ({}) and no ledger schema",
                tables.join(", ")
            ),
        ));
    }
    tx.execute_batch(&create_all(&DIALECT))
        .and_then(|()| tx.execute_batch("CREATE TABLE ledger_schema (version INTEGER NOT NULL);"))
        .and_then(|()| {
            tx.execute(
                "INSERT INTO ledger_schema (version) VALUES (?1)",
                [SCHEMA_VERSION],
            )
            .map(|_| ())
        })
        .and_then(|()| {
            (0..CHAINS).try_for_each(|c| {
                tx.execute("INSERT INTO ledger_head VALUES (?1, 0, NULL)", [c])
                    .map(|_| ())
            })
        })
        .map_err(|e| sql_error("create schema", e))?;
    let cutoff = cutoff(&tx)?;
    tx.commit().map_err(|e| sql_error("create schema", e))?;
    Ok(cutoff)
}

/// Holds the append-only triggers as stored to the ones the ledger writes, and restores them,
/// with an event that records it, when one is missing or altered (see `protect`).
fn protect(c: &Connection, now: i64) -> Result<()> {
    let mut st = c
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'ledger_events'")
        .map_err(|e| sql_error("triggers", e))?;
    let stored = st
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(|e| sql_error("triggers", e))?;
    let mut problems = Vec::new();
    for name in APPEND_ONLY {
        // SQLite keeps each trigger's statement as written, without its semicolon.
        match stored.iter().find(|(n, _)| n == name) {
            None => problems.push(format!("{name}: missing")),
            Some((_, sql)) => {
                let written = sql.as_deref().map(|s| format!("{s};\n"));
                if !written.is_some_and(|w| DIALECT.append_only.contains(&w)) {
                    problems.push(format!("{name}: altered"));
                }
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    c.execute_batch(&format!("{DROP_APPEND_ONLY}{}", DIALECT.append_only))
        .map_err(|e| protect::unprotected(&problems, e))?;
    let (seq, digest): (i64, Option<String>) = c
        .query_row(
            "SELECT seq, digest FROM ledger_head WHERE chain = 0",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| sql_error("audit head", e))?;
    let head = (seq, digest.as_deref().map(digest_from).transpose()?);
    let ((seq, text, digest), (_, to)) = protect::restored(now, &problems, head)?;
    let kind = actionseal_core::ledger::EventKind::AppendOnlyRestored.as_str();
    c.execute(
        "INSERT INTO ledger_events (chain, seq, at, tenant, task, kind, body, digest, task_prev) \
         VALUES (0, ?1, ?2, ?3, NULL, ?4, ?5, ?6, 0)",
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
        c.execute(
            "UPDATE ledger_head SET seq = ?1, digest = ?2 WHERE chain = 0",
            params![seq, to.map(|d| d.to_string())],
        )
    })
    .map_err(|e| sql_error("audit", e))?;
    Ok(())
}

fn cutoff(c: &Connection) -> Result<i64> {
    c.query_row("SELECT cutoff FROM ledger_links", [], |r| r.get(0))
        .map_err(|e| sql_error("schema", e))
}
