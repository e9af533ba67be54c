//! A connection to a ledger file: its pragmas, the VFSs it goes through, and what SQLite's
//! errors mean to a caller.

use crate::store::storage;
use crate::url::{Durability, IfMissing};
use actionseal_core::{Code, Error, Result};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags};
use std::ffi::CStr;
use std::path::Path;
use std::time::Duration;

/// Statements a connection keeps prepared: every statement of every operation, so that none
/// is parsed twice.
const STATEMENT_CACHE: usize = 64;

/// The page size of a new ledger file: every commit writes each page it dirtied to the log
/// whole, and half of SQLite's default page is the smallest that still holds a task row
/// without overflow pages (bench/README.md has what it saves).
const PAGE_SIZE: u32 = 2048;

/// How long a writer waits for the write lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Maps a SQLite error to a coded one.
pub(super) fn sql_error(what: &str, e: rusqlite::Error) -> Error {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => Error::new(
            Code::NotALedger,
            format!("{what}: the file is not a SQLite database"),
        ),
        Some(ErrorCode::CannotOpen) => Error::new(Code::LedgerUnavailable, format!("{what}: {e}")),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => Error::new(
            Code::LedgerUnavailable,
            format!("{what}: the database stayed locked for {BUSY_TIMEOUT:?}"),
        ),
        _ => storage(what, e),
    }
}

/// The VFSs a file ledger opens its connections with (`None`: SQLite's default): its own
/// connections the log VFS (see `log_vfs`), the checkpointer the VFS below it. The tests put
/// a simulated disk below (`log_vfs/power_loss.rs`).
#[derive(Clone, Copy)]
pub(crate) struct Vfs {
    /// The ledger's own connections'.
    pub(crate) log: Option<&'static CStr>,
    /// The checkpointer's.
    pub(crate) base: Option<&'static CStr>,
}

impl Vfs {
    /// The log VFS over the default one, or the default alone where SQLite refused it.
    pub(crate) fn shipped() -> Vfs {
        Vfs {
            log: super::log_vfs::registered().then_some(super::log_vfs::NAME),
            base: None,
        }
    }
}

/// Refuses a ledger file that does not exist when `if_missing` says so
/// ([`Code::LedgerNotFound`], naming the path). Checked before SQLite opens it, which would
/// create it; a path that cannot be checked is left to SQLite's own error.
pub(crate) fn refuse_missing(path: &Path, if_missing: IfMissing) -> Result<()> {
    match (if_missing, path.try_exists()) {
        (IfMissing::Refuse, Ok(false)) => Err(Error::new(
            Code::LedgerNotFound,
            format!(
                "there is no ledger file at {:?}; one is created only when asked \
                 (sqlite:PATH?mode=create)",
                path.display().to_string()
            ),
        )),
        _ => Ok(()),
    }
}

/// A connection to `path` through `vfs`.
pub(crate) fn connect(path: &Path, vfs: Option<&CStr>) -> rusqlite::Result<Connection> {
    match vfs {
        Some(name) => Connection::open_with_flags_and_vfs(path, OpenFlags::default(), name),
        None => Connection::open(path),
    }
}

pub(crate) fn open_file(path: &Path, durability: Durability, vfs: Vfs) -> Result<Connection> {
    let c = connect(path, vfs.log).map_err(|e| sql_error("open", e))?;
    let sync = match durability {
        Durability::Full => "FULL",
        Durability::Normal => "NORMAL",
    };
    // Before anything is written: the log VFS relies on every log frame being part of a
    // commit, which a page cache spilling in the middle of a transaction would break (see
    // `log_vfs`). A ledger's transactions are small; its cache holds them.
    c.execute_batch("PRAGMA cache_spill=OFF")
        .map_err(|e| sql_error("cache spill", e))?;
    c.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| sql_error("busy timeout", e))?;
    prepared_once(&c)?;
    // A new file only (the size of an existing one is fixed), and before WAL, which fixes it.
    c.execute_batch(&format!("PRAGMA page_size={PAGE_SIZE}"))
        .map_err(|e| sql_error("page size", e))?;
    // journal_mode answers with a row; reading it is also the first real read of the file, so
    // a file that is not SQLite fails here.
    let mode: String = c
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .map_err(|e| sql_error("journal mode", e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::new(
            Code::LedgerUnavailable,
            format!("the ledger file cannot use WAL (journal mode {mode})"),
        ));
    }
    // secure_delete: a shredded value's bytes are zeroed where they were, not left in the
    // page's free space (issue 29; see `sensitive`).
    c.execute_batch(&format!(
        "PRAGMA synchronous={sync}; PRAGMA wal_autocheckpoint=10000; PRAGMA secure_delete=ON;"
    ))
    .map_err(|e| sql_error("synchronous", e))?;
    Ok(c)
}

/// Keeps each statement as first prepared, `STATEMENT_CACHE` of them, with SQLite's query
/// planner stability guarantee: otherwise SQLite may make a plan depend on a value bound and
/// prepare the statement again whenever another is bound, as if the schema had changed (the
/// join that reads an item's rows ahead was, at every claim). The ledger's partial indexes
/// have literal conditions, which their queries imply without the values.
pub(super) fn prepared_once(c: &Connection) -> Result<()> {
    c.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    c.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .map(|_| ())
        .map_err(|e| sql_error("query planner", e))
}

pub(super) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked)
    )
}
