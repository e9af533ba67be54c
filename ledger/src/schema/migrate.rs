//! Opening a database as a ledger, written once for both engines: check the version, create
//! the schema in an empty database or upgrade an older one step by step, hold the append-only
//! triggers to the ones the ledger writes, and read what every transaction needs. Each engine
//! implements [`Migration`], the few things it does its own way, inside one transaction.

use super::protect;
use super::{create_all, upgrade, version_row, Dialect};
use crate::store::{Head, Sealed};
use actionseal_core::{Code, Error, Result};

/// What a database holds before the ledger opens it.
pub(crate) enum Contents {
    /// Nothing: the schema is created.
    Empty,
    /// A ledger's schema table.
    Ledger,
    /// Other tables and no ledger schema: refused.
    Other(Vec<String>),
}

/// One engine's side of the migration, inside the transaction that opens the ledger (which
/// the engine has begun, and which holds whatever lock keeps two openings apart).
pub(crate) trait Migration {
    /// What the schema fixed that every transaction needs.
    type Facts;
    /// The engine's spelling of the schema.
    const DIALECT: &'static Dialect;

    /// What the database holds.
    fn contents(&mut self) -> Result<Contents>;
    /// The one integer a query answers (`None`: NULL); `what` names it in an error.
    fn int(&mut self, sql: &str, what: &str) -> Result<Option<i64>>;
    /// Runs statements; `what` names them in an error.
    fn batch(&mut self, sql: &str, what: &str) -> Result<()>;
    /// What is wrong with the append-only triggers, one entry each ("NAME: missing"); empty
    /// when they are as [`Migration::DIALECT`] writes them.
    fn unprotected(&mut self) -> Result<Vec<String>>;
    /// Creates the append-only triggers again over what is left of them; a failure is
    /// [`protect::unprotected`] with `problems`.
    fn reprotect(&mut self, problems: &[String]) -> Result<()>;
    /// Chain 0's head, locked until the transaction ends.
    fn audit_head(&mut self) -> Result<Head>;
    /// Appends the sealed event that records the restoration to chain 0, and moves the
    /// chain's head to `moved`.
    fn record_restored(&mut self, now: i64, event: &Sealed, moved: Head) -> Result<()>;
    /// What the schema fixed, read once it is current.
    fn facts(&mut self) -> Result<Self::Facts>;
    /// Commits the transaction; `what` names it in an error.
    fn commit(self, what: &str) -> Result<()>;
}

/// Creates the schema in an empty database, checks (and upgrades) the version of an existing
/// ledger and holds its triggers, and refuses a database that holds something else. `now`
/// dates what opening records.
pub(crate) fn migrate<M: Migration>(mut m: M, now: i64) -> Result<M::Facts> {
    let what = match m.contents()? {
        Contents::Empty => {
            m.batch(&create_all(M::DIALECT), "create schema")?;
            "create schema"
        }
        Contents::Ledger => {
            let found = m.int("SELECT MAX(version) FROM ledger_schema", "schema version")?;
            let mut version = protect::version(found)?;
            loop {
                let mut last_id = || {
                    m.int(
                        "SELECT coalesce(max(id), 0) FROM ledger_events",
                        "upgrade schema",
                    )
                    .map(Option::unwrap_or_default)
                };
                let Some(sql) = upgrade(version, M::DIALECT, &mut last_id)? else {
                    break;
                };
                version += 1;
                m.batch(&(sql + &version_row(version)), "upgrade schema")?;
            }
            protect(&mut m, now)?;
            "upgrade schema"
        }
        Contents::Other(tables) => {
            return Err(Error::new(
                Code::NotALedger,
                format!(
                    "the database holds other tables ({}) and no ledger schema",
                    tables.join(", ")
                ),
            ))
        }
    };
    let facts = m.facts()?;
    m.commit(what)?;
    Ok(facts)
}

/// Holds the append-only triggers to the ones the ledger writes, and restores them, with an
/// event that records it, when they are not (see `protect`).
fn protect<M: Migration>(m: &mut M, now: i64) -> Result<()> {
    let problems = m.unprotected()?;
    if problems.is_empty() {
        return Ok(());
    }
    m.reprotect(&problems)?;
    let head = m.audit_head()?;
    let (event, moved) = protect::restored(now, &problems, head)?;
    m.record_restored(now, &event, moved)
}
