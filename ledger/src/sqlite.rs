//! The embedded backend: one SQLite file (WAL, `synchronous=FULL` by default, a busy timeout,
//! `BEGIN IMMEDIATE` for every write), or a private in-memory database for tests.
//!
//! `BEGIN IMMEDIATE` takes SQLite's single write lock before the first read, so a transaction
//! that reads a task as `approved` is the only writer until it commits: two claims cannot both
//! see it unclaimed.

use crate::clock::Clock;
use crate::protect;
use crate::store::{
    amendment_from, approval_from, audit_rows_sql, budget_from, by_chain, create_all, defer,
    digest_from, history_of, history_sql, policy_from, put_sign_count_sql, round_task, seal,
    storage, task_from, upgrade, AmendmentRow, ApprovalRow, BudgetRow, Cols, Dialect, Done, Head,
    Links, PolicyRow, TaskRow, Tx, Write, AMENDMENT_COLUMNS, APPROVAL_COLUMNS, LAST_EVENT_AT,
    MAX_ATTEMPTS, POLICY_COLUMNS, SCHEMA_VERSION, TASK_COLUMNS,
};
use crate::url::Durability;
use actionseal_core::ledger::{Event, State, CHAINS};
use actionseal_core::Digest;
use actionseal_core::{Code, Error, Result};
use rusqlite::{params, Connection, ErrorCode, OpenFlags, TransactionBehavior};
use std::collections::HashMap;
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

mod group;

/// An operation's answer inside its transaction, and the chain heads it moved (for the guess
/// once it commits).
type Ran<T> = (Done<T>, Vec<(i64, Head)>);

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

/// Statements a connection keeps prepared: every statement of every operation, so that none
/// is parsed twice.
const STATEMENT_CACHE: usize = 64;

/// The page size of a new ledger file. Every commit writes each page it dirtied to the log
/// whole, and a lifecycle's four commits dirty about 29 pages of 2 KiB, or 24 of SQLite's
/// default 4 KiB: 59 KB of log instead of 98 KB, for lifecycles about 15% faster with
/// `synchronous=NORMAL` (bench/README.md). Smaller pages split task rows (about 1.2 KB) over
/// overflow pages.
const PAGE_SIZE: u32 = 2048;

/// How long a writer waits for the write lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) struct Sqlite {
    conns: Conns,
    /// The last event from before the events were linked per task (see
    /// `store::link_events`), fixed by the schema.
    cutoff: i64,
    /// The chain heads this ledger's own commits left: a guess, which moving a head checks
    /// (compare-and-set), so that a head nobody else moved since needs no read. Another
    /// process, or a transaction that did not commit, only makes the guess fail, and the head
    /// is then read.
    heads: Mutex<HashMap<i64, Head>>,
    /// With `synchronous=FULL`, the turn each write takes on this ledger's writer, and the
    /// batch of operations one commit (one fsync) will make durable (see `group`). Threads
    /// queue here for SQLite's one writer instead of in its busy handler, which sleeps 1 ms,
    /// then 2, 5, 10 ms and more, and is not woken when the lock is free: a FULL commit holds
    /// the lock about as long as that first sleep. With NORMAL a commit holds it some 50 µs,
    /// far less than a sleep, and queueing here only adds handovers between threads (four
    /// threads made 5,500-5,700 lifecycles/s each on its own, 3,800-4,000/s in batches).
    /// Other processes (and other `Ledger`s on the same file) still meet the busy handler.
    group: Option<group::Group>,
    /// Copies a file's log back into it in the background (dropped, and so stopped, with the
    /// ledger; declared after the connections so that it stops last).
    _checkpointer: Option<crate::checkpoint::Checkpointer>,
}

enum Conns {
    /// One private database: callers take turns on its only connection.
    Memory(Mutex<Connection>),
    /// A file: idle connections are kept for reuse; a new one is opened when none is idle.
    File {
        path: PathBuf,
        durability: Durability,
        vfs: Vfs,
        idle: Mutex<Vec<Connection>>,
    },
}

/// Maps a SQLite error to a coded one.
pub(crate) fn sql_error(what: &str, e: rusqlite::Error) -> Error {
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
            log: crate::log_vfs::registered().then_some(crate::log_vfs::NAME),
            base: None,
        }
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
    c.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
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
    c.execute_batch(&format!(
        "PRAGMA synchronous={sync}; PRAGMA wal_autocheckpoint=10000;"
    ))
    .map_err(|e| sql_error("synchronous", e))?;
    Ok(c)
}

impl Sqlite {
    /// Opens (creating or migrating) the ledger file; `now` dates what opening records.
    pub(crate) fn open_file(
        path: &Path,
        durability: Durability,
        vfs: Vfs,
        now: i64,
    ) -> Result<Sqlite> {
        let mut c = open_file(path, durability, vfs)?;
        let cutoff = migrate(&mut c, now)?;
        Ok(Sqlite {
            cutoff,
            heads: Mutex::default(),
            group: (durability == Durability::Full).then(group::Group::default),
            conns: Conns::File {
                path: path.to_owned(),
                durability,
                vfs,
                idle: Mutex::new(vec![c]),
            },
            _checkpointer: Some(crate::checkpoint::Checkpointer::start(
                path.to_owned(),
                vfs.base,
            )),
        })
    }

    pub(crate) fn open_memory(now: i64) -> Result<Sqlite> {
        let mut c = Connection::open_in_memory().map_err(|e| sql_error("open", e))?;
        c.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        let cutoff = migrate(&mut c, now)?;
        Ok(Sqlite {
            cutoff,
            heads: Mutex::default(),
            group: None,
            conns: Conns::Memory(Mutex::new(c)),
            _checkpointer: None,
        })
    }

    fn with_conn<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        match &self.conns {
            Conns::Memory(m) => {
                let mut c = m.lock().unwrap_or_else(|p| p.into_inner());
                f(&mut c)
            }
            Conns::File { .. } => {
                let mut c = self.take_conn()?;
                let out = f(&mut c);
                self.give_conn(c);
                out
            }
        }
    }

    /// An idle connection to the file, or a new one (file ledgers only).
    fn take_conn(&self) -> Result<Connection> {
        let Conns::File {
            path,
            durability,
            vfs,
            idle,
        } = &self.conns
        else {
            return Err(storage("connection", "an in-memory ledger has one"));
        };
        let taken = idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        match taken {
            Some(c) => Ok(c),
            None => open_file(path, *durability, *vfs),
        }
    }

    fn give_conn(&self, c: Connection) {
        if let Conns::File { idle, .. } = &self.conns {
            idle.lock().unwrap_or_else(|p| p.into_inner()).push(c);
        }
    }

    /// Runs one operation in a write transaction (`BEGIN IMMEDIATE`), re-running it when the
    /// lock cannot be had at once beyond the busy timeout's own retries; with FULL, in the
    /// batch the next commit makes durable (see `group`).
    pub(crate) fn write<T>(
        &self,
        clock: &dyn Clock,
        mut f: impl FnMut(&mut dyn Tx, i64) -> Result<Done<T>>,
    ) -> Result<T> {
        if let Some(group) = &self.group {
            return self.write_grouped(group, |c| self.run(c, clock, &mut f));
        }
        self.with_conn(|c| {
            let mut attempt = 0;
            loop {
                attempt += 1;
                let open = match Open::begin(c, "BEGIN IMMEDIATE") {
                    Ok(open) => open,
                    Err(e) if attempt < MAX_ATTEMPTS && is_busy(&e) => continue,
                    Err(e) => return Err(sql_error("begin", e)),
                };
                let (done, moved_heads) = self.run(c, clock, &mut f)?;
                match open.commit() {
                    Ok(()) => {}
                    Err(e) if attempt < MAX_ATTEMPTS && is_busy(&e) => continue,
                    Err(e) => return Err(sql_error("commit", e)),
                }
                self.heads
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend(moved_heads);
                return match done {
                    Done::Ok(v) => Ok(v),
                    Done::Refused(e) => Err(e),
                };
            }
        })
    }

    /// Runs one operation on a connection inside a write transaction: its answer, and the
    /// chain heads it moved (for the guess once it commits).
    fn run<T>(
        &self,
        c: &Connection,
        clock: &dyn Clock,
        f: &mut impl FnMut(&mut dyn Tx, i64) -> Result<Done<T>>,
    ) -> Result<Ran<T>> {
        // Read after taking the write lock: event times follow commit order.
        let now = clock.now_ms();
        let mut stx = SqliteTx {
            tx: c,
            events: Vec::new(),
            writes: Vec::new(),
            links: Links::default(),
            cutoff: self.cutoff,
            heads: &self.heads,
            moved_heads: Vec::new(),
            read_only: false,
        };
        let done = f(&mut stx, now)?;
        stx.flush()?;
        Ok((done, stx.moved_heads))
    }

    /// Runs reads in one consistent snapshot.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        let cutoff = self.cutoff;
        self.with_conn(|c| {
            let open = Open::begin(c, "BEGIN").map_err(|e| sql_error("begin", e))?;
            let mut stx = SqliteTx {
                tx: c,
                events: Vec::new(),
                writes: Vec::new(),
                links: Links::default(),
                cutoff,
                heads: &self.heads,
                moved_heads: Vec::new(),
                read_only: true,
            };
            let out = f(&mut stx)?;
            open.commit().map_err(|e| sql_error("end read", e))?;
            Ok(out)
        })
    }
}

/// An open transaction, begun and ended with prepared statements (rusqlite's own
/// transactions parse BEGIN and COMMIT anew every time); rolled back unless committed.
struct Open<'c> {
    conn: &'c Connection,
    done: bool,
}

impl<'c> Open<'c> {
    fn begin(conn: &'c Connection, sql: &str) -> rusqlite::Result<Open<'c>> {
        run_cached(conn, sql)?;
        Ok(Open { conn, done: false })
    }

    fn commit(mut self) -> rusqlite::Result<()> {
        run_cached(self.conn, "COMMIT")?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        if !self.done {
            // Nothing of the operation is kept; a failure here leaves SQLite's own
            // automatic rollback to finish the job.
            let _ = run_cached(self.conn, "ROLLBACK");
        }
    }
}

/// Runs a statement without parameters or rows, prepared once per connection (BEGIN, COMMIT,
/// savepoints: parsing them anew every time is a measurable part of a short transaction).
fn run_cached(c: &Connection, sql: &str) -> rusqlite::Result<()> {
    c.prepare_cached(sql)?.execute([]).map(|_| ())
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked)
    )
}

/// Creates the schema in an empty database, checks (and upgrades) the version of an existing
/// one, and refuses a database that holds something else. Returns the schema's cutoff (see
/// `store::link_events`).
fn migrate(c: &mut Connection, now: i64) -> Result<i64> {
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

struct SqliteTx<'c> {
    /// The connection, inside an open transaction.
    tx: &'c Connection,
    events: Vec<Event>,
    /// The task rows to write after the events (see [`SqliteTx::flush`]).
    writes: Vec<Write>,
    /// The last event of each task read or created, for the next event about it to link to.
    links: Links,
    cutoff: i64,
    /// The heads the ledger's last commits left (see [`Sqlite::heads`]).
    heads: &'c Mutex<HashMap<i64, Head>>,
    /// The heads this transaction moved, for the guess once it commits.
    moved_heads: Vec<(i64, Head)>,
    read_only: bool,
}

impl Cols for rusqlite::Row<'_> {
    fn text(&self, i: usize) -> Result<String> {
        self.get(i).map_err(|e| sql_error("read", e))
    }
    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        self.get(i).map_err(|e| sql_error("read", e))
    }
    fn stored_int(&self, i: usize) -> Result<Option<i64>> {
        self.get(i).map_err(|e| sql_error("read", e))
    }
}

impl SqliteTx<'_> {
    /// Rows of a query, each mapped by `f`.
    fn rows<T>(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
        f: impl Fn(&rusqlite::Row<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut st = self
            .tx
            .prepare_cached(sql)
            .map_err(|e| sql_error("prepare", e))?;
        let mut rows = st.query(params).map_err(|e| sql_error("query", e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| sql_error("query", e))? {
            out.push(f(r)?);
        }
        Ok(out)
    }

    fn exec(&self, sql: &str, params: &[&dyn rusqlite::ToSql]) -> Result<usize> {
        self.tx
            .prepare_cached(sql)
            .and_then(|mut st| st.execute(params))
            .map_err(|e| sql_error("write", e))
    }

    /// Writes the queued events, each linked to the one before it about its task, then the
    /// task rows, each naming its last event (a task with events and no other write gets
    /// just that).
    fn flush(&mut self) -> Result<()> {
        let mut moved: Vec<String> = Vec::new();
        for (chain, mut events) in by_chain(std::mem::take(&mut self.events)) {
            let guess = self
                .heads
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(&chain)
                .copied();
            let head = match guess {
                Some(head) => head,
                None => self.head(chain)?,
            };
            let (mut sealed, mut moved_to) = seal(&mut events, head)?;
            if !self.move_head(chain, head, moved_to)? {
                // Another connection moved it since: read it, and seal again after it.
                let head = self.head(chain)?;
                (sealed, moved_to) = seal(&mut events, head)?;
                if guess.is_none() || !self.move_head(chain, head, moved_to)? {
                    return Err(storage(
                        "audit head",
                        format!("chain {chain} moved while locked"),
                    ));
                }
            }
            self.moved_heads.push((chain, moved_to));
            for (e, (seq, text, digest)) in events.iter().zip(&sealed) {
                let prev = match &e.task {
                    Some(task) => self.links.last(task)?,
                    None => 0,
                };
                self.exec(
                    "INSERT INTO ledger_events (chain, seq, at, tenant, task, kind, body, digest, \
                     task_prev) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        chain,
                        seq,
                        e.at,
                        e.tenant,
                        e.task,
                        e.kind.as_str(),
                        text,
                        digest.text().as_str(),
                        prev
                    ],
                )?;
                if let Some(task) = &e.task {
                    self.links.set(task, self.tx.last_insert_rowid());
                    if !moved.contains(task) {
                        moved.push(task.clone());
                    }
                }
            }
        }
        for w in std::mem::take(&mut self.writes) {
            let (n, id) = match w {
                Write::UpdateTask { row, expect, fence } => {
                    (self.update(&row, expect, fence)?, row.id)
                }
                Write::InsertTask(row) => (self.insert(&row)?, row.id),
                _ => return Err(storage("write", "only task rows are deferred")),
            };
            if n != 1 {
                return Err(storage("task write", format!("{id} changed while locked")));
            }
            moved.retain(|t| *t != id);
        }
        for task in moved {
            let n = self.exec(
                "UPDATE ledger_tasks SET last_event = ?1 WHERE id = ?2",
                params![self.links.last(&task)?, task],
            )?;
            if n != 1 {
                return Err(storage(
                    "task write",
                    format!("{task} vanished while locked"),
                ));
            }
        }
        Ok(())
    }

    /// The task a query of its columns and its last event finds (by `key`); its last event is
    /// remembered, for the next event about it to link to.
    fn linked_task(&mut self, sql: &str, key: &str) -> Result<Option<TaskRow>> {
        let mut st = self
            .tx
            .prepare_cached(sql)
            .map_err(|e| sql_error("prepare", e))?;
        let mut rows = st.query(params![key]).map_err(|e| sql_error("query", e))?;
        match rows.next().map_err(|e| sql_error("query", e))? {
            Some(r) => {
                let t = task_from(r)?;
                self.links.set(&t.id, r.int(LAST_EVENT_AT)?);
                Ok(Some(t))
            }
            None => Ok(None),
        }
    }

    /// A chain's head as stored.
    fn head(&self, chain: i64) -> Result<Head> {
        let (seq, digest) = self
            .rows(
                "SELECT seq, digest FROM ledger_head WHERE chain = ?1",
                params![chain],
                |r| Ok((r.int(0)?, r.opt_text(1)?)),
            )?
            .pop()
            .ok_or_else(|| storage("audit head", format!("chain {chain} has none")))?;
        Ok((seq, digest.as_deref().map(digest_from).transpose()?))
    }

    /// Moves a chain's head from `from` to `to`; false (nothing written) if it is no longer
    /// at `from`.
    fn move_head(&self, chain: i64, from: Head, to: Head) -> Result<bool> {
        let (to_digest, from_digest) = (to.1.map(|d| d.text()), from.1.map(|d| d.text()));
        let n = self.exec(
            "UPDATE ledger_head SET seq = ?1, digest = ?2 WHERE chain = ?3 AND seq = ?4 \
             AND digest IS ?5",
            params![
                to.0,
                to_digest.as_ref().map(|d| d.as_str()),
                chain,
                from.0,
                from_digest.as_ref().map(|d| d.as_str())
            ],
        )?;
        Ok(n == 1)
    }

    fn insert(&self, t: &TaskRow) -> Result<usize> {
        let sql = format!(
            "INSERT INTO ledger_tasks ({TASK_COLUMNS}, last_event) VALUES (?1, ?2, ?3, ?4, ?5, \
             ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, \
             ?23, ?24, ?25, ?26, ?27, ?28, ?29) ON CONFLICT DO NOTHING"
        );
        self.exec(
            &sql,
            params![
                t.id,
                t.tenant,
                t.job_id,
                t.request_id,
                t.state.as_str(),
                t.action,
                t.action_digest.to_string(),
                i64::from(t.approval_required),
                t.cost_minor,
                t.idempotency_key,
                t.proposer,
                t.fence,
                t.round,
                t.approval_id,
                t.executor,
                t.lease_until,
                t.budget,
                t.reserved,
                t.result,
                t.created_at,
                t.updated_at,
                t.proposed_action,
                t.proposed_digest.map(|d| d.to_string()),
                t.amendments,
                t.approval,
                t.revoked_at,
                t.round_started_at,
                t.proof,
                self.links.last(&t.id)?
            ],
        )
    }

    fn update(&self, t: &TaskRow, expect: State, expect_fence: i64) -> Result<usize> {
        self.exec(
            "UPDATE ledger_tasks SET state = ?1, fence = ?2, round = ?3, approval_id = ?4, \
             executor = ?5, lease_until = ?6, budget = ?7, reserved = ?8, result = ?9, \
             updated_at = ?10, approval = ?11, revoked_at = ?12, last_event = ?13, \
             round_started_at = ?14, proof = ?15 WHERE id = ?16 AND state = ?17 AND fence = ?18",
            params![
                t.state.as_str(),
                t.fence,
                t.round,
                t.approval_id,
                t.executor,
                t.lease_until,
                t.budget,
                t.reserved,
                t.result,
                t.updated_at,
                t.approval,
                t.revoked_at,
                self.links.last(&t.id)?,
                t.round_started_at,
                t.proof,
                t.id,
                expect.as_str(),
                expect_fence
            ],
        )
    }
}

impl Tx for SqliteTx<'_> {
    fn task(&mut self, id: &str) -> Result<Option<TaskRow>> {
        let sql = format!("SELECT {TASK_COLUMNS}, last_event FROM ledger_tasks WHERE id = ?1");
        self.linked_task(&sql, id)
    }

    fn task_of_approval(&mut self, approval_id: &str) -> Result<Option<TaskRow>> {
        let sql = format!(
            "SELECT {TASK_COLUMNS}, last_event FROM ledger_tasks \
             WHERE id = (SELECT task_id FROM ledger_approvals WHERE approval_id = ?1)"
        );
        match self.linked_task(&sql, approval_id)? {
            Some(t) => Ok(Some(t)),
            // No such round, or a round whose task is missing: say which.
            None => round_task(self, approval_id),
        }
    }

    fn approval_and_decision(
        &mut self,
        approval_id: &str,
        decision_id: &str,
    ) -> Result<(Option<ApprovalRow>, Option<String>)> {
        // Without the round there is nothing to decide, whatever the decision id holds: the
        // envelope is read only with it. (A query that joins both to a row of its own is
        // prepared again by SQLite each time it is run.)
        let sql = format!(
            "SELECT {APPROVAL_COLUMNS}, (SELECT envelope FROM ledger_decisions \
             WHERE decision_id = ?2) FROM ledger_approvals WHERE approval_id = ?1"
        );
        let mut rows = self.rows(&sql, params![approval_id, decision_id], |r| {
            Ok((Some(approval_from(r)?), r.opt_text(5)?))
        })?;
        Ok(rows.pop().unwrap_or((None, None)))
    }

    fn insert_task(&mut self, t: &TaskRow) -> Result<bool> {
        // Deferred until the events are written (see `flush`): under the write lock the
        // proposal has just looked for the task, so the insert cannot find it there.
        self.links.set(&t.id, 0);
        defer(&mut self.writes, Write::InsertTask(t.clone()));
        Ok(true)
    }

    fn amend_task(&mut self, t: &TaskRow, expect: &Digest) -> Result<bool> {
        let n = self.exec(
            "UPDATE ledger_tasks SET action = ?1, action_digest = ?2, proposed_action = ?3, \
             proposed_digest = ?4, amendments = ?5, updated_at = ?6, round_started_at = ?7 \
             WHERE id = ?8 AND state = ?9 AND action_digest = ?10",
            params![
                t.action,
                t.action_digest.to_string(),
                t.proposed_action,
                t.proposed_digest.map(|d| d.to_string()),
                t.amendments,
                t.updated_at,
                t.round_started_at,
                t.id,
                t.state.as_str(),
                expect.to_string()
            ],
        )?;
        Ok(n == 1)
    }

    fn insert_amendment(&mut self, a: &AmendmentRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO ledger_amendments ({AMENDMENT_COLUMNS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
        );
        self.exec(
            &sql,
            params![
                a.task_id,
                a.n,
                a.amends.to_string(),
                a.action,
                a.action_digest.to_string(),
                a.reviewer,
                a.reason,
                a.at
            ],
        )
        .map(|_| ())
    }

    fn amendments(&mut self, task_id: &str) -> Result<Vec<AmendmentRow>> {
        let sql = format!(
            "SELECT {AMENDMENT_COLUMNS} FROM ledger_amendments WHERE task_id = ?1 ORDER BY n"
        );
        self.rows(&sql, params![task_id], |r| amendment_from(r))
    }

    fn update_task(&mut self, t: &TaskRow, expect: State, expect_fence: i64) -> Result<bool> {
        // Deferred until the events are written, still conditional (see `flush`): the task
        // is locked, so the condition cannot fail unless something wrote it without the lock.
        defer(
            &mut self.writes,
            Write::UpdateTask {
                row: t.clone(),
                expect,
                fence: expect_fence,
            },
        );
        Ok(true)
    }

    fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRow>> {
        let sql = format!("SELECT {APPROVAL_COLUMNS} FROM ledger_approvals WHERE approval_id = ?1");
        Ok(self
            .rows(&sql, params![approval_id], |r| approval_from(r))?
            .pop())
    }

    fn put_approval(&mut self, a: &ApprovalRow) -> Result<()> {
        self.exec(
            "INSERT INTO ledger_approvals (approval_id, task_id, round, decision_id, revoked_at) \
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (approval_id) DO UPDATE \
             SET decision_id = excluded.decision_id, revoked_at = excluded.revoked_at",
            params![
                a.approval_id,
                a.task_id,
                a.round,
                a.decision_id,
                a.revoked_at
            ],
        )
        .map(|_| ())
    }

    fn decision(&mut self, decision_id: &str) -> Result<Option<String>> {
        Ok(self
            .rows(
                "SELECT envelope FROM ledger_decisions WHERE decision_id = ?1",
                params![decision_id],
                |r| r.text(0),
            )?
            .pop())
    }

    fn insert_decision(
        &mut self,
        decision_id: &str,
        approval_id: &str,
        envelope: &str,
        at: i64,
    ) -> Result<bool> {
        let n = self.exec(
            "INSERT INTO ledger_decisions (decision_id, approval_id, envelope, recorded_at) \
             VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
            params![decision_id, approval_id, envelope, at],
        )?;
        Ok(n == 1)
    }

    fn budget(&mut self, name: &str) -> Result<Option<BudgetRow>> {
        Ok(self
            .rows(
                "SELECT name, limit_minor, spent_minor, reserved_minor FROM ledger_budgets \
                 WHERE name = ?1",
                params![name],
                |r| budget_from(r),
            )?
            .pop())
    }

    fn put_budget(&mut self, b: &BudgetRow) -> Result<()> {
        self.exec(
            "INSERT INTO ledger_budgets (name, limit_minor, spent_minor, reserved_minor) \
             VALUES (?1, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET \
             limit_minor = excluded.limit_minor, spent_minor = excluded.spent_minor, \
             reserved_minor = excluded.reserved_minor",
            params![b.name, b.limit, b.spent, b.reserved],
        )
        .map(|_| ())
    }

    fn expired_leases(&mut self, now: i64) -> Result<Vec<String>> {
        self.rows(
            "SELECT id FROM ledger_tasks WHERE lease_until IS NOT NULL AND lease_until <= ?1 \
             AND state = 'claimed' ORDER BY lease_until",
            params![now],
            |r| r.text(0),
        )
    }

    fn policy(&mut self) -> Result<PolicyRow> {
        let sql = format!("SELECT {POLICY_COLUMNS} FROM ledger_policy WHERE id = 1");
        self.rows(&sql, params![], |r| policy_from(r))?
            .pop()
            .ok_or_else(|| storage("policy", "the ledger has no policy row"))
    }

    fn put_policy(&mut self, p: &PolicyRow) -> Result<()> {
        self.exec(
            "UPDATE ledger_policy SET proof = ?1, changed_at = ?2, changed_by = ?3 WHERE id = 1",
            params![p.proof.as_str(), p.changed_at, p.changed_by],
        )
        .map(|_| ())
    }

    fn sign_count(&mut self, credential_id: &str) -> Result<Option<i64>> {
        Ok(self
            .rows(
                "SELECT sign_count FROM ledger_passkeys WHERE credential_id = ?1",
                params![credential_id],
                |r| r.int(0),
            )?
            .pop())
    }

    fn put_sign_count(&mut self, credential_id: &str, count: i64, at: i64) -> Result<bool> {
        let n = self.exec(&put_sign_count_sql('?'), params![credential_id, count, at])?;
        Ok(n == 1)
    }

    fn list_tasks(&mut self, state: Option<State>, tenant: Option<&str>) -> Result<Vec<TaskRow>> {
        let sql = format!(
            "SELECT {TASK_COLUMNS} FROM ledger_tasks WHERE (?1 IS NULL OR state = ?1) \
             AND (?2 IS NULL OR tenant = ?2) ORDER BY created_at, id"
        );
        self.rows(&sql, params![state.map(State::as_str), tenant], |r| {
            task_from(r)
        })
    }

    fn events(&mut self, task: Option<&str>) -> Result<Vec<(String, String)>> {
        let Some(id) = task else {
            return self.rows(
                "SELECT body, digest FROM ledger_events ORDER BY id",
                params![],
                |r| Ok((r.text(0)?, r.text(1)?)),
            );
        };
        let rows = self.rows(&history_sql(self.cutoff, "?1"), params![id], |r| {
            Ok((r.opt_text(1)?, r.text(2)?, r.text(3)?))
        })?;
        history_of(id, rows)
    }

    fn heads(&mut self) -> Result<Vec<(i64, i64, Option<String>)>> {
        self.rows(
            "SELECT chain, seq, digest FROM ledger_head ORDER BY chain",
            params![],
            |r| Ok((r.int(0)?, r.int(1)?, r.opt_text(2)?)),
        )
    }

    fn audit_rows(&mut self) -> Result<Vec<(TaskRow, Option<String>)>> {
        self.rows(&audit_rows_sql(self.cutoff), params![], |r| {
            Ok((task_from(r)?, r.opt_text(LAST_EVENT_AT)?))
        })
    }

    fn append(&mut self, e: Event) {
        debug_assert!(!self.read_only, "events are appended by writes only");
        self.events.push(e);
    }
}
