//! The change feed: what happened to tasks after a cursor, from the audit's events (the
//! task, the event's id and kind, the state after it and when; never an argument).
//!
//! Event ids are not commit order on PostgreSQL: each is taken from a sequence as its
//! statement runs, and a transaction can commit after another that took a higher id (see
//! `postgres/tree.rs`). A cursor that is one id ("everything up to 41") would then skip an
//! event 40 that commits after 41 was read. Within one of the audit's chains, though, ids are
//! commit order: an event takes its id under its chain head's lock, held until it commits
//! (see `postgres/last.rs`), so every reader sees each chain as a prefix. The cursor is
//! therefore the last id delivered in each chain, and a read returns, in id order, the
//! events past their own chain's position; it reads from the lowest of those positions (on
//! SQLite, whose one writer commits in id order, the same cursor is simply exact).

use crate::json::{n, obj, opt_s, s, stored};
use crate::tree::sql::{Access, Arg};
use crate::wait::deadline;
use crate::Ledger;
use actionseal_core::ledger::{Event, EventKind, State, CHAINS};
use actionseal_core::{Code, Error, OwnedValue, Result, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// How many events a read asks for at a time while it looks for `limit` changes.
const PAGE: i64 = 512;

/// One change of a task: an audit event about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The event's id (unique; not commit order across tasks).
    pub event_id: i64,
    pub task_id: String,
    pub kind: EventKind,
    /// The task's state after the event.
    pub state: Option<State>,
    /// When, by the ledger's clock (ms since the epoch).
    pub at: i64,
}

impl Change {
    /// `{"event_id", "task_id", "kind", "state", "at"}`.
    pub fn to_value(&self) -> OwnedValue {
        obj(vec![
            ("event_id", n(self.event_id)),
            ("task_id", s(&self.task_id)),
            ("kind", s(self.kind.as_str())),
            ("state", opt_s(self.state.map(State::as_str))),
            ("at", n(self.at)),
        ])
    }
}

/// Where a reader of the feed is: the last event delivered in each of the audit's chains.
/// Its text (`Display`, `FromStr`) is what a caller keeps between reads: `""`, the beginning
/// ([`ChangeCursor::default`]), or `chain:id` pairs joined by commas.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeCursor {
    /// Chains that have delivered nothing are absent.
    last: BTreeMap<i64, i64>,
}

impl ChangeCursor {
    /// The lowest id a read must look from: below every chain's next event.
    fn floor(&self) -> i64 {
        if self.last.len() < CHAINS as usize {
            return 0;
        }
        self.last.values().copied().min().unwrap_or(0)
    }
}

impl fmt::Display for ChangeCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (chain, id)) in self.last.iter().enumerate() {
            let comma = if i == 0 { "" } else { "," };
            write!(f, "{comma}{chain}:{id}")?;
        }
        Ok(())
    }
}

impl FromStr for ChangeCursor {
    type Err = Error;

    /// The text [`ChangeCursor`]'s `Display` writes; anything else is
    /// [`Code::InvalidRequest`].
    fn from_str(text: &str) -> Result<ChangeCursor> {
        let bad = || {
            Error::new(
                Code::InvalidRequest,
                format!("{text:?} is not a change cursor (`chain:id` pairs, from changes())"),
            )
        };
        let mut last = BTreeMap::new();
        for pair in text.split(',').filter(|_| !text.is_empty()) {
            let (chain, id) = pair.split_once(':').ok_or_else(bad)?;
            let number = |x: &str| {
                x.bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| x.parse::<i64>().ok())
                    .flatten()
                    .ok_or_else(bad)
            };
            let (chain, id) = (number(chain)?, number(id)?);
            if chain >= CHAINS || id == 0 || last.insert(chain, id).is_some() {
                return Err(bad());
            }
        }
        Ok(ChangeCursor { last })
    }
}

/// A read of the feed: the changes after the cursor given, and the cursor after them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changes {
    pub changes: Vec<Change>,
    /// Where the next read starts; the cursor given when nothing was read.
    pub cursor: ChangeCursor,
}

impl Changes {
    /// `{"changes": [...], "cursor"}`.
    pub fn to_value(&self) -> OwnedValue {
        obj(vec![
            (
                "changes",
                Value::Array(self.changes.iter().map(Change::to_value).collect()),
            ),
            ("cursor", s(&self.cursor.to_string())),
        ])
    }
}

impl Ledger {
    /// At most `limit` (at least 1) changes of tasks after `after`, in id order, each task's
    /// in the order they happened, none skipped or repeated however their transactions
    /// commit (see [`ChangeCursor`]); events about no task only move the cursor.
    pub fn changes(&self, after: &ChangeCursor, limit: usize) -> Result<Changes> {
        if limit == 0 {
            return Err(Error::new(
                Code::InvalidRequest,
                "a read of the change feed asks for at least one change",
            ));
        }
        self.tree(Access::Read, |sql| {
            let mut cursor = after.clone();
            let mut changes = Vec::new();
            let mut from = after.floor();
            loop {
                let rows = sql.rows(
                    "SELECT id, chain, body FROM ledger_events WHERE id > $1 ORDER BY id LIMIT $2",
                    &[Arg::Int(from), Arg::Int(PAGE)],
                )?;
                for row in &rows {
                    let [id, chain, body] = &row[..] else {
                        continue;
                    };
                    let (id, chain) = (id.int()?, chain.int()?);
                    from = id;
                    let last = cursor.last.entry(chain).or_default();
                    if id <= *last {
                        continue;
                    }
                    *last = id;
                    let event = Event::from_value(&stored(body.text()?)?)?;
                    if let Some(task_id) = event.task {
                        changes.push(Change {
                            event_id: id,
                            task_id,
                            kind: event.kind,
                            state: event.state,
                            at: event.at,
                        });
                        if changes.len() == limit {
                            return Ok(Changes { changes, cursor });
                        }
                    }
                }
                if rows.len() < PAGE as usize {
                    return Ok(Changes { changes, cursor });
                }
            }
        })
    }

    /// [`Ledger::changes`], blocking until there is at least one or `timeout` passes (then
    /// none), woken as [`Ledger::wait`] is.
    pub fn changes_wait(
        &self,
        after: &ChangeCursor,
        limit: usize,
        timeout: Duration,
    ) -> Result<Changes> {
        let deadline = deadline(timeout);
        let mut watch = self.watch(None)?;
        loop {
            let read = self.changes(after, limit)?;
            if !read.changes.is_empty() || Instant::now() >= deadline {
                return Ok(read);
            }
            watch.block(deadline)?;
        }
    }
}
