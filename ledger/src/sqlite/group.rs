//! Group commit for a file ledger with `synchronous=FULL`, whose every commit is an fsync.
//!
//! The threads sharing one ledger take turns on SQLite's one writer. A thread whose operation
//! is done and that sees another thread waiting for its turn leaves the transaction open and
//! hands it on, instead of committing; the last of a run commits for all of them, so that one
//! fsync makes several operations durable. Each operation runs in a savepoint of the shared
//! transaction, so one that fails undoes only its own writes. Every member of a batch returns
//! only once the commit that holds its writes (and every write it read) succeeded; when that
//! commit fails, or SQLite rolls the transaction back, every member returns its error and
//! nothing of the batch is kept.
//!
//! A thread alone (a sequential caller) commits its own operation at once, as before: a batch
//! forms only when operations overlap, and it never waits for one that has not arrived.

use super::{is_busy, run_cached, sql_error, Ran, Sqlite};
use crate::store::MAX_ATTEMPTS;
use crate::store::{storage, Done};
use crate::sync::locked;
use actionseal_core::Result;
use parking_lot::Mutex;
use rusqlite::Connection;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::Thread;

/// The most operations one commit holds, so that a steady stream of writers still commits.
const MAX_BATCH: usize = 64;

/// The turn on this ledger's writer, and the batch it may hold open.
#[derive(Default)]
pub(super) struct Group {
    /// Taken by each write for its whole operation. parking_lot's lock hands itself to a
    /// waiter that has waited long, so threads take turns instead of one taking it again.
    turn: Mutex<Option<Batch>>,
    /// Threads waiting for the turn: a batch is handed on only to one of them.
    waiting: AtomicUsize,
    /// Commits made, for the tests.
    #[cfg(test)]
    commits: AtomicUsize,
}

/// An open write transaction, and what its members wait for.
struct Batch {
    /// Inside `BEGIN IMMEDIATE`; `None` once the batch ended.
    conn: Option<Connection>,
    ops: usize,
    /// Why the batch cannot commit, once it cannot.
    broken: Option<actionseal_core::Error>,
    outcome: Arc<Outcome>,
}

/// How a batch ended, for the members waiting on it. Each member parks its own thread and is
/// woken by its own `unpark`, so that the members of a batch wake at once instead of one after
/// another on a lock.
#[derive(Default)]
struct Outcome {
    result: OnceLock<Result<()>>,
    members: Mutex<Vec<Thread>>,
}

impl Outcome {
    /// Counts the calling thread among the members to wake.
    fn join(&self) {
        self.members.lock().push(std::thread::current());
    }

    fn publish(&self, r: Result<()>) {
        let _ = self.result.set(r);
        for t in self.members.lock().drain(..) {
            t.unpark();
        }
    }

    fn wait(&self) -> Result<()> {
        loop {
            if let Some(r) = self.result.get() {
                return r.clone();
            }
            // Returns at once if `publish` unparked this thread already.
            std::thread::park();
        }
    }
}

impl Batch {
    /// Runs one operation in a savepoint: kept if it succeeds, undone if it fails.
    fn run<T>(&mut self, op: impl FnOnce(&Connection) -> Result<Ran<T>>) -> Result<Ran<T>> {
        let Some(c) = self.conn.as_ref() else {
            return Err(storage("group commit", "the batch has ended"));
        };
        run_cached(c, "SAVEPOINT op").map_err(|e| sql_error("savepoint", e))?;
        let out = op(c);
        let end = match &out {
            Ok(_) => run_cached(c, "RELEASE op"),
            Err(_) => run_cached(c, "ROLLBACK TO op").and_then(|()| run_cached(c, "RELEASE op")),
        };
        // Some errors (a full disk, an I/O error) make SQLite roll the whole transaction
        // back; a statement run after that would begin another, and the members before
        // would be told their writes were kept.
        let lost = c.is_autocommit();
        if let Err(e) = end {
            self.broken.get_or_insert(sql_error("savepoint", e));
        }
        if lost {
            self.broken.get_or_insert(storage(
                "group commit",
                "SQLite rolled the batch's transaction back",
            ));
        }
        out
    }

    /// Commits (or, when broken, rolls back) and tells every member; returns the connection.
    fn end(&mut self) -> (Result<()>, Option<Connection>) {
        let Some(c) = self.conn.take() else {
            return (Ok(()), None);
        };
        let r = match self.broken.take() {
            Some(e) => Err(e),
            None => until_not_busy(&c, "COMMIT", "commit"),
        };
        if r.is_err() && !c.is_autocommit() {
            let _ = run_cached(&c, "ROLLBACK");
        }
        self.outcome.publish(r.clone());
        (r, Some(c))
    }
}

/// `BEGIN IMMEDIATE` or `COMMIT`, again while SQLite reports the database busy beyond its
/// busy timeout (a transaction stays as it was then).
fn until_not_busy(c: &Connection, sql: &str, what: &str) -> Result<()> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match run_cached(c, sql) {
            Ok(()) => return Ok(()),
            Err(e) if attempt < MAX_ATTEMPTS && is_busy(&e) => continue,
            Err(e) => return Err(sql_error(what, e)),
        }
    }
}

impl Drop for Batch {
    /// A batch dropped before it ended (its thread unwound): nothing of it is kept, and its
    /// members are told so instead of waiting for ever.
    fn drop(&mut self) {
        if self.conn.is_some() {
            self.broken.get_or_insert(storage(
                "group commit",
                "the batch was abandoned before it committed",
            ));
            let _ = self.end();
        }
    }
}

impl Sqlite {
    /// Runs one write operation in the current batch, or in a new one.
    pub(super) fn write_grouped<T>(
        &self,
        group: &Group,
        run: impl FnOnce(&Connection) -> Result<Ran<T>>,
    ) -> Result<T> {
        group.waiting.fetch_add(1, Ordering::SeqCst);
        let mut turn = group.turn.lock();
        group.waiting.fetch_sub(1, Ordering::SeqCst);
        let mut batch = match turn.take() {
            Some(b) => b,
            None => self.begin_batch()?,
        };
        let out = batch.run(run);
        batch.ops += 1;
        if let Ok((_, moved)) = &out {
            // The next member guesses its chain heads from these (see `Sqlite::heads`); if the
            // batch does not commit, the guess only fails.
            locked(&self.heads).extend(moved.iter().cloned());
        }
        let outcome = batch.outcome.clone();
        if batch.broken.is_none()
            && batch.ops < MAX_BATCH
            && group.waiting.load(Ordering::SeqCst) > 0
        {
            outcome.join();
            *turn = Some(batch);
            drop(turn);
            outcome.wait()?;
        } else {
            let (r, conn) = batch.end();
            #[cfg(test)]
            if r.is_ok() {
                group.commits.fetch_add(1, Ordering::SeqCst);
            }
            drop(turn);
            if let Some(c) = conn {
                self.give_conn(c);
            }
            r?;
        }
        match out?.0 {
            Done::Ok(v) => Ok(v),
            Done::Refused(e) => Err(e),
        }
    }

    /// Takes a connection and begins a write transaction on it.
    fn begin_batch(&self) -> Result<Batch> {
        let c = self.take_conn()?;
        if let Err(e) = until_not_busy(&c, "BEGIN IMMEDIATE", "begin") {
            self.give_conn(c);
            return Err(e);
        }
        Ok(Batch {
            conn: Some(c),
            ops: 0,
            broken: None,
            outcome: Arc::default(),
        })
    }
}

#[cfg(test)]
mod tests;
