//! Waiting for a task to reach a state, woken by the commits that may have moved it instead
//! of reading it at intervals: on PostgreSQL by `LISTEN`/`NOTIFY`, on SQLite by this ledger's
//! own writers and, for other processes, `PRAGMA data_version` (see each engine's `wake`).
//!
//! Every wait watches first and reads second: a commit between the read and the wait then
//! still wakes it, where reading first would sleep through it until the timeout.

use crate::{postgres, sqlite, Backend, Ledger, Task};
use actionseal_core::ledger::State;
use actionseal_core::Result;
use std::time::{Duration, Instant};

/// How a wait ended: never an error, whichever it is.
#[derive(Clone, Debug)]
pub enum Waited {
    /// The task is in one of the states waited for (as read then).
    Reached(Task),
    /// The timeout passed first; the task as last read, in none of them.
    TimedOut(Task),
}

impl Waited {
    /// The task as read last.
    pub fn task(&self) -> &Task {
        match self {
            Waited::Reached(t) | Waited::TimedOut(t) => t,
        }
    }

    /// `{"outcome": "reached" | "timed_out", "task"}`.
    pub fn to_value(&self) -> actionseal_core::OwnedValue {
        let outcome = match self {
            Waited::Reached(_) => "reached",
            Waited::TimedOut(_) => "timed_out",
        };
        crate::json::obj(vec![
            ("outcome", crate::json::s(outcome)),
            ("task", self.task().to_value()),
        ])
    }
}

/// A watch on either engine, begun before the read it guards (one per wait: boxed, as
/// PostgreSQL's holds a whole connection).
pub(crate) enum Watch<'a> {
    Sqlite(sqlite::Watch<'a>),
    Postgres(Box<postgres::Watch<'a>>),
}

impl Watch<'_> {
    /// Returns when a commit may have changed what is watched, or at `deadline`.
    pub(crate) fn block(&mut self, deadline: Instant) -> Result<()> {
        match self {
            Watch::Sqlite(w) => w.block(deadline),
            Watch::Postgres(w) => w.block(deadline),
        }
    }
}

/// `now + timeout`, or a deadline too far to matter when that overflows.
pub(crate) fn deadline(timeout: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(timeout)
        .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600))
}

impl Ledger {
    /// Begins watching commits about `task` (or any task); read after this.
    pub(crate) fn watch(&self, task: Option<&str>) -> Result<Watch<'_>> {
        Ok(match &self.backend {
            Backend::Sqlite(s) => Watch::Sqlite(s.watch()?),
            Backend::Postgres(p) => Watch::Postgres(Box::new(p.watch(task)?)),
        })
    }

    /// Blocks until task `task_id` is in one of `states` ([`Waited::Reached`]) or `timeout`
    /// passes ([`Waited::TimedOut`]), measured on the monotonic clock, not the ledger's.
    /// Woken by commits, never by reading at a fixed interval: on PostgreSQL by `NOTIFY` from
    /// the commit itself; on SQLite by this ledger's writers at once and, for writes by other
    /// processes or other handles on the same file, by `PRAGMA data_version` read with a
    /// backoff of 1 to 64 ms. An unknown task is [`actionseal_core::Code::TaskNotFound`].
    pub fn wait(&self, task_id: &str, states: &[State], timeout: Duration) -> Result<Waited> {
        self.wait_reading(task_id, states, timeout, &mut |_| {})
    }

    /// [`Ledger::wait`], calling `after_read` with each task read before deciding on it (the
    /// tests commit there, between the read and the wait).
    pub(crate) fn wait_reading(
        &self,
        task_id: &str,
        states: &[State],
        timeout: Duration,
        after_read: &mut dyn FnMut(&Task),
    ) -> Result<Waited> {
        let deadline = deadline(timeout);
        let mut watch = self.watch(Some(task_id))?;
        loop {
            let task = self.task(task_id)?;
            after_read(&task);
            if states.contains(&task.state) {
                return Ok(Waited::Reached(task));
            }
            if Instant::now() >= deadline {
                return Ok(Waited::TimedOut(task));
            }
            watch.block(deadline)?;
        }
    }
}

#[cfg(test)]
mod tests;
