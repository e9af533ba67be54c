//! Ledger URLs: `sqlite:PATH` (the embedded default), `sqlite::memory:` (tests), and
//! `postgres://...` / `postgresql://...` (many executors on many machines).
//!
//! A SQLite URL may end in `?synchronous=normal` (or `full`, the default). With `full`, every
//! committed claim survives a power failure; with `normal`, a power failure can lose the last
//! commits, so a task could be claimed, dispatched and then claimed and dispatched again.

use actionseal_core::{Code, Error, Result};
use std::path::PathBuf;

/// SQLite's `synchronous` setting for a ledger file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// `synchronous=FULL`: every commit is on disk before it returns. The default.
    Full,
    /// `synchronous=NORMAL`: commits survive a crash of the process, not of the machine.
    Normal,
}

/// Where a ledger lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A SQLite file.
    SqliteFile(PathBuf, Durability),
    /// A private in-memory SQLite database (tests; gone when the ledger is dropped).
    SqliteMemory,
    /// A PostgreSQL connection string.
    Postgres(String),
}

fn bad(url: &str, why: &str) -> Error {
    Error::new(
        Code::InvalidLedgerUrl,
        format!(
            "{url:?} is not a ledger URL: {why} (sqlite:PATH, sqlite::memory: or postgres://...)"
        ),
    )
}

impl Target {
    /// Parses a ledger URL; anything else is [`Code::InvalidLedgerUrl`].
    pub fn parse(url: &str) -> Result<Target> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            // The driver parses the rest; here only what it would silently accept is refused.
            if url.chars().any(char::is_whitespace) {
                return Err(bad(url, "it contains whitespace"));
            }
            return Ok(Target::Postgres(url.to_owned()));
        }
        let Some(rest) = url.strip_prefix("sqlite:") else {
            return Err(bad(url, "unknown scheme"));
        };
        if rest == ":memory:" {
            return Ok(Target::SqliteMemory);
        }
        let rest = rest.strip_prefix("//").unwrap_or(rest);
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        if path.is_empty() {
            return Err(bad(url, "the path is empty"));
        }
        let durability = match query {
            "" | "synchronous=full" => Durability::Full,
            "synchronous=normal" => Durability::Normal,
            _ => {
                return Err(bad(
                    url,
                    "the only option is synchronous=full or synchronous=normal",
                ))
            }
        };
        Ok(Target::SqliteFile(PathBuf::from(path), durability))
    }
}
