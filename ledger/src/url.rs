//! Ledger URLs: `sqlite:PATH` (the embedded default), `sqlite::memory:` (tests), and
//! `postgres://...` / `postgresql://...` (many executors on many machines).
//!
//! A SQLite URL may end in `?synchronous=normal` (or `full`, the default). With `full`, every
//! committed claim survives a power failure; with `normal`, a power failure can lose the last
//! commits, so a task could be claimed, dispatched and then claimed and dispatched again.
//! It may also say `mode=create` (the options joined with `&`): create the file if there is
//! none, whatever the opener's [`IfMissing`] says.

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

/// What opening a SQLite ledger file does when there is no file at its path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IfMissing {
    /// Create the file and its schema: an embedded ledger starts on first use. The library's
    /// default.
    #[default]
    Create,
    /// Refuse with [`Code::LedgerNotFound`], naming the path: a mistyped path is an error,
    /// not a new, empty ledger (the command line's default, except for `ledger init`). A URL
    /// saying `mode=create` still creates it.
    Refuse,
}

/// Where a ledger lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A SQLite file, and what to do when it is missing if the URL says (`mode=create`;
    /// `None`: as the opener's options say).
    SqliteFile(PathBuf, Durability, Option<IfMissing>),
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
        let (mut durability, mut missing) = (None, None);
        for option in query.split('&').filter(|_| !query.is_empty()) {
            let (key, twice) = match option {
                "synchronous=full" => (
                    "synchronous",
                    durability.replace(Durability::Full).is_some(),
                ),
                "synchronous=normal" => (
                    "synchronous",
                    durability.replace(Durability::Normal).is_some(),
                ),
                "mode=create" => ("mode", missing.replace(IfMissing::Create).is_some()),
                _ => {
                    return Err(bad(
                        url,
                        "the options are synchronous=full or synchronous=normal, and \
                         mode=create",
                    ))
                }
            };
            if twice {
                return Err(bad(url, &format!("{key} is given twice")));
            }
        }
        Ok(Target::SqliteFile(
            PathBuf::from(path),
            durability.unwrap_or(Durability::Full),
            missing,
        ))
    }
}
