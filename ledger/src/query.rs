//! Filtered, paged reads: which tasks ([`crate::Ledger::tasks_where`]) or audit events
//! ([`crate::Ledger::audit_export_where`]) to return, and a cursor to go on from. Keyset
//! paging (the last row's sort key, never an offset): rows written between two pages
//! neither repeat nor shift a later page.

use actionseal_core::ledger::State;
use actionseal_core::{base64url_decode, base64url_encode, Code, Error, Result};

/// Which tasks or events a read returns, and how many.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// Only those of this tenant.
    pub tenant: Option<String>,
    /// Only tasks in this state; for the audit, the events of the tasks now in this state.
    pub state: Option<State>,
    /// Only those at or after this time (ms since the epoch): a task's proposal
    /// (`created_at`), an event's `at`.
    pub since: Option<i64>,
    /// Only those before this time (ms, exclusive).
    pub until: Option<i64>,
    /// At most this many (from 1; `None`: all that follow).
    pub limit: Option<u32>,
    /// Only those after this cursor: the [`Page::next`] of an earlier page of the same read.
    pub after: Option<String>,
}

/// One page of a read: its rows in order, and the cursor of the next page when there may be
/// one (a page cut at its limit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    /// The rows.
    pub items: Vec<T>,
    /// Pass it as [`Query::after`] for the rows that follow; `None` when none did.
    pub next: Option<String>,
}

/// The read a cursor belongs to, named in it so that one read's cursor is refused by another.
const TASKS: &str = "tasks";
const EVENTS: &str = "events";

/// A query as the store runs it: checked, its cursor decoded.
pub(crate) struct Bounds<'q> {
    pub(crate) tenant: Option<&'q str>,
    pub(crate) state: Option<State>,
    pub(crate) since: Option<i64>,
    pub(crate) until: Option<i64>,
    /// One more than the limit: a page knows there is more when it gets it.
    pub(crate) fetch: Option<i64>,
    /// Tasks after (created_at, id).
    pub(crate) after_task: Option<(i64, String)>,
    /// Events after this row id.
    pub(crate) after_event: Option<i64>,
}

fn bad(member: &'static str, why: String) -> Error {
    Error::new(Code::InvalidRequest, why).in_key(member)
}

impl Query {
    /// Checks the query for a read of `what` and decodes its cursor.
    fn bounds(&self, what: &'static str) -> Result<Bounds<'_>> {
        if self.limit == Some(0) {
            return Err(bad("limit", "a page holds at least one row".into()));
        }
        if let (Some(s), Some(u)) = (self.since, self.until) {
            if u <= s {
                return Err(bad(
                    "until",
                    format!("until ({u}) must be after since ({s})"),
                ));
            }
        }
        let mut b = Bounds {
            tenant: self.tenant.as_deref(),
            state: self.state,
            since: self.since,
            until: self.until,
            fetch: self.limit.map(|n| i64::from(n) + 1),
            after_task: None,
            after_event: None,
        };
        if let Some(cursor) = &self.after {
            let refused = || {
                bad(
                    "after",
                    format!("not a cursor of this ledger's {what}: pass a page's `next` as it is"),
                )
            };
            let text = base64url_decode(cursor)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(refused)?;
            let mut parts = text.splitn(3, ':');
            let (kind, at) = (parts.next(), parts.next().and_then(|n| n.parse().ok()));
            match (kind, at, parts.next()) {
                (Some(TASKS), Some(at), Some(id)) if what == TASKS => {
                    b.after_task = Some((at, id.to_owned()))
                }
                (Some(EVENTS), Some(id), None) if what == EVENTS => b.after_event = Some(id),
                _ => return Err(refused()),
            }
        }
        Ok(b)
    }

    pub(crate) fn tasks(&self) -> Result<Bounds<'_>> {
        self.bounds(TASKS)
    }

    pub(crate) fn events(&self) -> Result<Bounds<'_>> {
        self.bounds(EVENTS)
    }
}

/// The page of `rows` (fetched with [`Bounds::fetch`]), its cursor made by `key` from the
/// last row kept.
pub(crate) fn page<T>(mut rows: Vec<T>, q: &Query, key: impl Fn(&T) -> String) -> Page<T> {
    let limit = q.limit.map_or(usize::MAX, |n| n as usize);
    let next = (rows.len() > limit).then(|| {
        rows.truncate(limit);
        rows.last().map(|r| base64url_encode(key(r).as_bytes()))
    });
    Page {
        items: rows,
        next: next.flatten(),
    }
}

/// The cursor key of a task: after (created_at, id).
pub(crate) fn task_key(created_at: i64, id: &str) -> String {
    format!("{TASKS}:{created_at}:{id}")
}

/// The cursor key of an event: after its row id.
pub(crate) fn event_key(id: i64) -> String {
    format!("{EVENTS}:{id}")
}
