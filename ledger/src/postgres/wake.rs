//! Waking the ledger's waiters on PostgreSQL (`Ledger::wait` and the change feed): `LISTEN`
//! on the channel the events' trigger notifies at each commit (`schema/wake.postgres.sql`),
//! on a connection the watch holds.
//!
//! A notification is lost when the listening connection drops (PostgreSQL keeps none for a
//! session that is gone): the watch then listens on a new connection and returns, so that the
//! caller reads again after listening, as it does after every wake. A connection cut off under
//! its `LISTEN` is replaced the same way.

use super::{pg_error, Conn, Postgres};
use actionseal_core::Result;
use fallible_iterator::FallibleIterator;
use std::time::Instant;

/// The channel `ledger_events_wake()` notifies, with a task id as the payload.
const CHANNEL: &str = "actionseal_tasks";

/// A waiter's watch on the ledger, begun before it reads.
pub(crate) struct Watch<'a> {
    pg: &'a Postgres,
    /// Listening; `None` only between a dropped connection and the next.
    conn: Option<Conn>,
    /// The task watched (`None`: every task).
    task: Option<String>,
}

impl Postgres {
    /// Begins listening for commits about `task` (or any task), to read after this, never
    /// before: `LISTEN` takes effect when it returns, so a commit the read misses notifies.
    pub(crate) fn watch(&self, task: Option<&str>) -> Result<Watch<'_>> {
        let mut w = Watch {
            pg: self,
            conn: None,
            task: task.map(str::to_owned),
        };
        w.listen()?;
        Ok(w)
    }
}

/// How many connections a watch tries for one `LISTEN`: one cut off under it is replaced as
/// one cut off after it, and a server that cuts off every one is an error, not a loop.
const LISTEN_ATTEMPTS: u32 = 3;

impl Watch<'_> {
    fn listen(&mut self) -> Result<()> {
        let mut left = LISTEN_ATTEMPTS;
        loop {
            let mut c = self.pg.take()?;
            match c.client.batch_execute(&format!("LISTEN {CHANNEL}")) {
                Ok(()) => {
                    self.conn = Some(c);
                    return Ok(());
                }
                Err(e) if left > 1 && cut_off(&e) => {
                    left -= 1;
                    log::debug!("a ledger watch's connection failed under LISTEN: {e}");
                }
                Err(e) => return Err(pg_error("listen", &e)),
            }
        }
    }

    /// Returns once a commit about the watched task (or any, when it watches every task)
    /// was notified, or the connection dropped and was replaced, or at `deadline`; the
    /// caller reads again.
    pub(crate) fn block(&mut self, deadline: Instant) -> Result<()> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            let Some(c) = self.conn.as_mut() else {
                return self.listen();
            };
            let next = match c.client.is_closed() {
                true => Err(None),
                false => c
                    .client
                    .notifications()
                    .timeout_iter(left)
                    .next()
                    .map_err(Some),
            };
            match next {
                Ok(Some(n)) if self.task.as_deref().is_none_or(|t| t == n.payload()) => {
                    return Ok(())
                }
                Ok(Some(_)) => continue,
                Ok(None) => return Ok(()),
                Err(e) => {
                    let why = e.map_or_else(|| "closed".to_owned(), |e| e.to_string());
                    log::debug!("a ledger watch's connection failed, listening again: {why}");
                    self.conn = None;
                    return self.listen();
                }
            }
        }
    }
}

/// Whether `e` ended the connection rather than refused the statement: closed, or the
/// server's operator intervention (SQLSTATE class 57: an administrator ending the session,
/// a shutdown), which arrives as the statement's own error when it comes before its answer.
fn cut_off(e: &postgres::Error) -> bool {
    e.is_closed() || e.code().is_some_and(|c| c.code().starts_with("57"))
}

impl Drop for Watch<'_> {
    /// Stops listening, and gives the connection back without the notifications it kept.
    fn drop(&mut self) {
        if let Some(mut c) = self.conn.take() {
            if c.client.batch_execute("UNLISTEN *").is_ok() {
                let _ = c.client.notifications().iter().count();
                self.pg.give_back(c);
            }
        }
    }
}
