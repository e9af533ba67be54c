//! Waking the ledger's waiters on SQLite (`Ledger::wait` and the change feed).
//!
//! Within a process, this ledger's writers bump a counter once their commit is made (a batch
//! of the group commit included: each member returns only after it) and wake every waiter on
//! a condition variable. Another process, or another `Ledger` on the same file, cannot reach
//! that variable: a waiter on a file also asks `PRAGMA data_version` on a connection of its
//! own, which changes whenever another connection commits (<https://sqlite.org/pragma.html#pragma_data_version>).
//!
//! A watch is taken before the state it watches is read: the counter and the version it
//! starts from are those from before the read, so a commit between the read and the wait
//! still wakes it.

use super::{sql_error, Sqlite};
use crate::sync::locked;
use actionseal_core::Result;
use rusqlite::Connection;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The first wait between two looks at `data_version`, 1 ms so that a commit by another
/// process just after the watch began is seen about as soon as SQLite's busy handler would
/// see its lock free, doubling up to [`LONGEST`], 64 ms, so that an idle waiter asks about 16
/// times a second (a cheap read of the log's index) and is at most that late.
const SHORTEST: Duration = Duration::from_millis(1);
const LONGEST: Duration = Duration::from_millis(64);

/// The commits this ledger's writers made, and the waiters to wake at each.
#[derive(Default)]
pub(super) struct Commits {
    count: Mutex<u64>,
    made: Condvar,
}

impl Commits {
    /// Called by a writer once its commit is made (or its operation failed: waking for
    /// nothing only makes a waiter read again).
    pub(super) fn made(&self) {
        *locked(&self.count) += 1;
        self.made.notify_all();
    }

    fn count(&self) -> u64 {
        *locked(&self.count)
    }

    /// Waits until a commit after the `seen`th, or `until`; whether one came.
    fn after(&self, seen: u64, until: Instant) -> bool {
        let mut count = locked(&self.count);
        while *count == seen {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            count = self
                .made
                .wait_timeout(count, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }
}

/// A waiter's watch on the ledger, begun before it reads.
pub(crate) struct Watch<'a> {
    sqlite: &'a Sqlite,
    seen: u64,
    /// A file's connection of the watch's own, and the `data_version` it last read there.
    version: Option<(Connection, i64)>,
    step: Duration,
}

fn data_version(c: &Connection) -> Result<i64> {
    c.query_row("PRAGMA data_version", [], |r| r.get(0))
        .map_err(|e| sql_error("data_version", e))
}

impl Sqlite {
    /// Begins watching for commits (to read after this, never before).
    pub(crate) fn watch(&self) -> Result<Watch<'_>> {
        let version = match self.is_file() {
            true => {
                let c = self.take_conn()?;
                match data_version(&c) {
                    Ok(v) => Some((c, v)),
                    Err(e) => {
                        self.give_conn(c);
                        return Err(e);
                    }
                }
            }
            false => None,
        };
        Ok(Watch {
            seen: self.commits.count(),
            sqlite: self,
            version,
            step: SHORTEST,
        })
    }
}

impl Watch<'_> {
    /// Returns once a commit may have changed the ledger since the watch began or last
    /// returned, or at `deadline`; either way the watch starts again from there, and the
    /// caller reads again.
    pub(crate) fn block(&mut self, deadline: Instant) -> Result<()> {
        let commits = &self.sqlite.commits;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(());
            }
            let until = match self.version {
                Some(_) => deadline.min(now + self.step),
                None => deadline,
            };
            if commits.after(self.seen, until) {
                break;
            }
            if let Some((c, seen)) = &mut self.version {
                let v = data_version(c)?;
                if v != *seen {
                    break;
                }
                self.step = (self.step * 2).min(LONGEST);
            }
        }
        // Again from here, before the caller reads.
        self.seen = commits.count();
        if let Some((c, seen)) = &mut self.version {
            *seen = data_version(c)?;
        }
        self.step = SHORTEST;
        Ok(())
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        if let Some((c, _)) = self.version.take() {
            self.sqlite.give_conn(c);
        }
    }
}
