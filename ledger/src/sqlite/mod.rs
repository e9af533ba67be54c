//! The embedded backend: one SQLite file (WAL, `synchronous=FULL` by default, a busy timeout,
//! `BEGIN IMMEDIATE` for every write), or a private in-memory database for tests.
//!
//! `BEGIN IMMEDIATE` takes SQLite's single write lock before the first read, so a transaction
//! that reads a task as `approved` is the only writer until it commits: two claims cannot both
//! see it unclaimed.
//!
//! - `open`: a connection to a file, its pragmas and VFSs, and what SQLite's errors mean;
//! - `migrate`: the schema in SQLite's spelling, created, upgraded and protected;
//! - `tx`: one transaction, the [`Tx`] the operations run on;
//! - `flush`: what a write transaction sends at its end (events, chain heads, task rows);
//! - `group`: the batches one commit makes durable with `synchronous=FULL`;
//! - `log_vfs`: the VFS that writes a commit's log frames at once;
//! - `checkpoint`: the thread that copies the log back into the file;
//! - `tree`: the Merkle log's statements and transactions (see `crate::tree`);
//! - `wake`: what wakes a waiter when a commit may have changed the ledger.

mod batches;
mod checkpoint;
mod disclosures;
mod flush;
mod group;
mod log_vfs;
mod migrate;
mod open;
mod scrub;
mod tree;
mod tx;
mod wake;

use crate::sync::locked;
use open::{connect, open_file};
pub(crate) use open::{refuse_missing, Vfs};
pub(crate) use wake::Watch;

use crate::clock::Clock;
use crate::store::{storage, Done, Head, Tx, MAX_ATTEMPTS};
use crate::url::Durability;
use actionseal_core::Result;
use open::{is_busy, prepared_once, sql_error};
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tx::{run_cached, Mode, Open, SqliteTx};

/// An operation's answer inside its transaction, and the chain heads it moved (for the guess
/// once it commits).
type Ran<T> = (Done<T>, Vec<(i64, Head)>);

pub(crate) struct Sqlite {
    conns: Conns,
    /// The last event from before the events were linked per task (see
    /// `schema/link_events.sql`), fixed by the schema.
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
    /// the lock about as long as that first sleep. With NORMAL a commit holds it far less
    /// than a sleep, and queueing here only adds handovers between threads (slower, see
    /// bench/README.md).
    /// Other processes (and other `Ledger`s on the same file) still meet the busy handler.
    group: Option<group::Group>,
    /// The commits this ledger's writers made, for its waiters (see `wake`).
    commits: wake::Commits,
    /// Copies a file's log back into it in the background (dropped, and so stopped, with the
    /// ledger; declared after the connections so that it stops last).
    _checkpointer: Option<checkpoint::Checkpointer>,
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

impl Sqlite {
    /// Opens (creating or migrating) the ledger file; `now` dates what opening records.
    pub(crate) fn open_file(
        path: &Path,
        durability: Durability,
        vfs: Vfs,
        now: i64,
    ) -> Result<Sqlite> {
        let mut c = open_file(path, durability, vfs)?;
        let cutoff = migrate::migrate(&mut c, now)?;
        Ok(Sqlite {
            cutoff,
            heads: Mutex::default(),
            group: (durability == Durability::Full).then(group::Group::default),
            commits: wake::Commits::default(),
            conns: Conns::File {
                path: path.to_owned(),
                durability,
                vfs,
                idle: Mutex::new(vec![c]),
            },
            _checkpointer: Some(checkpoint::Checkpointer::start(path.to_owned(), vfs.base)),
        })
    }

    pub(crate) fn open_memory(now: i64) -> Result<Sqlite> {
        let mut c = Connection::open_in_memory().map_err(|e| sql_error("open", e))?;
        prepared_once(&c)?;
        let cutoff = migrate::migrate(&mut c, now)?;
        Ok(Sqlite {
            cutoff,
            heads: Mutex::default(),
            group: None,
            commits: wake::Commits::default(),
            conns: Conns::Memory(Mutex::new(c)),
            _checkpointer: None,
        })
    }

    fn with_conn<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        match &self.conns {
            Conns::Memory(m) => {
                let mut c = locked(m);
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

    fn is_file(&self) -> bool {
        matches!(self.conns, Conns::File { .. })
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
        let taken = locked(idle).pop();
        match taken {
            Some(c) => Ok(c),
            None => open_file(path, *durability, *vfs),
        }
    }

    fn give_conn(&self, c: Connection) {
        if let Conns::File { idle, .. } = &self.conns {
            locked(idle).push(c);
        }
    }

    /// Runs one operation in a write transaction (`BEGIN IMMEDIATE`), re-running it when the
    /// lock cannot be had at once beyond the busy timeout's own retries; with FULL, in the
    /// batch the next commit makes durable (see `group`). Wakes this ledger's waiters once it
    /// returns, after its commit.
    pub(crate) fn write<T>(
        &self,
        clock: &dyn Clock,
        f: impl FnMut(&mut dyn Tx, i64) -> Result<Done<T>>,
    ) -> Result<T> {
        let out = self.write_once(clock, f);
        self.commits.made();
        out
    }

    fn write_once<T>(
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
                locked(&self.heads).extend(moved_heads);
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
        let mut stx = SqliteTx::new(c, self.cutoff, &self.heads, Mode::Write);
        let done = f(&mut stx, now)?;
        stx.flush()?;
        Ok((done, stx.moved_heads))
    }

    /// Runs reads in one consistent snapshot.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        let cutoff = self.cutoff;
        self.with_conn(|c| {
            let open = Open::begin(c, "BEGIN").map_err(|e| sql_error("begin", e))?;
            let mut stx = SqliteTx::new(c, cutoff, &self.heads, Mode::Read);
            let out = f(&mut stx)?;
            open.commit().map_err(|e| sql_error("end read", e))?;
            Ok(out)
        })
    }
}
