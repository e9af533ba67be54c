//! The last statement of an operation on PostgreSQL: the row writes the operation deferred,
//! its audit events sealed under their chain head's lock, and the head moved, in one round
//! trip.
//!
//! An operation reads under its task's lock and decides everything in Rust; what it writes
//! does not have to reach the server before the end, so it goes in one statement with the
//! events. The events are sealed there too: the chain head is locked by the statement itself
//! (`FOR UPDATE` in its first CTE), so it is held only for this statement and the commit, and
//! each event's text is joined around the head's `seq` and `prev` (core's
//! `Event::canonical_around`) and fingerprinted with the server's `sha256()`, byte for byte
//! what the SQLite backend seals in Rust (the tests compare the two audits).

use crate::store::{ApprovalRow, TaskRow, TASK_COLUMNS};
use actionseal_core::ledger::{Event, State};
use postgres::types::ToSql;

/// A row write deferred to the last statement.
pub(super) enum Write {
    /// Compare-and-set: applied only if the task is still in `expect` with `fence`.
    UpdateTask {
        row: TaskRow,
        expect: State,
        fence: i64,
    },
    /// A new task; not applied if the id exists (another proposal committed first).
    InsertTask(TaskRow),
    /// An approval round, created or updated.
    PutApproval(ApprovalRow),
    /// A decision; not applied if its id was recorded meanwhile (by another task's decision).
    InsertDecision {
        decision_id: String,
        approval_id: String,
        envelope: String,
        at: i64,
    },
}

impl Write {
    fn task_id(&self) -> Option<&str> {
        match self {
            Write::UpdateTask { row, .. } | Write::InsertTask(row) => Some(&row.id),
            Write::PutApproval(_) | Write::InsertDecision { .. } => None,
        }
    }
}

/// Adds `w` to the writes, folding it into an earlier write of the same row: the row is
/// written once, as it ends, under the first write's condition.
pub(super) fn defer(writes: &mut Vec<Write>, w: Write) {
    let same = writes.iter_mut().find(|x| match (&**x, &w) {
        (Write::PutApproval(a), Write::PutApproval(b)) => a.approval_id == b.approval_id,
        (x, w) => x.task_id().is_some() && x.task_id() == w.task_id(),
    });
    match (same, w) {
        (Some(Write::UpdateTask { row, .. }), Write::UpdateTask { row: new, .. })
        | (Some(Write::InsertTask(row)), Write::UpdateTask { row: new, .. }) => *row = new,
        (Some(Write::PutApproval(a)), Write::PutApproval(b)) => *a = b,
        (_, w) => writes.push(w),
    }
}

/// What a write must have changed: one row, or (for a new task or decision) none when another
/// transaction created it first: the operation then runs again, and finds it.
pub(super) enum Expect {
    One,
    New,
}

/// What a last statement's text depends on (its writes' kinds, whether a new task was looked
/// for, how many events): statements of one shape share their text, so a session builds and
/// prepares it once.
pub(super) fn shape(writes: &[Write], chain: Option<&(i64, Vec<Event>)>, unseen: bool) -> Vec<u8> {
    let mut key: Vec<u8> = writes
        .iter()
        .map(|w| match w {
            Write::UpdateTask { .. } => b'u',
            Write::InsertTask(_) if unseen => b'I',
            Write::InsertTask(_) => b'i',
            Write::PutApproval(_) => b'a',
            Write::InsertDecision { .. } => b'd',
        })
        .collect();
    if let Some((_, events)) = chain {
        key.push(b'e');
        key.extend(
            u32::try_from(events.len())
                .unwrap_or(u32::MAX)
                .to_le_bytes(),
        );
    }
    key
}

/// A statement's parameters, and its text when it was asked for.
pub(super) struct Last {
    /// Empty unless asked for (see [`statement`]).
    pub sql: String,
    pub params: Vec<Box<dyn ToSql + Sync + Send>>,
    /// One per write, in the order of the counts the statement returns.
    pub expect: Vec<Expect>,
    with_sql: bool,
}

impl Last {
    /// Adds a parameter; its placeholder (`$n`) when the text is being built.
    fn param(&mut self, v: impl ToSql + Sync + Send + 'static) -> String {
        self.params.push(Box::new(v));
        if self.with_sql {
            format!("${}", self.params.len())
        } else {
            String::new()
        }
    }
}

/// The statement for `writes` and the events of `chain` (either may be empty, not both). It
/// returns one row, with the number of rows each write changed, when the chain's head exists.
/// Its text is built only `with_sql` (a statement of the same [`shape`] has the same text and
/// the same parameters in the same order).
///
/// With `unseen`, a new task is inserted without `ON CONFLICT`: the proposal did not look for
/// it, and an existing one must fail the whole statement (which may be its own transaction).
pub(super) fn statement(
    writes: Vec<Write>,
    chain: Option<(i64, Vec<Event>)>,
    unseen: bool,
    with_sql: bool,
) -> Last {
    let mut last = Last {
        sql: String::new(),
        params: Vec::new(),
        expect: Vec::new(),
        with_sql,
    };
    let mut ctes: Vec<String> = Vec::new();
    for (k, w) in writes.into_iter().enumerate() {
        match w {
            Write::UpdateTask { row, expect, fence } => {
                last.expect.push(Expect::One);
                let set = [
                    ("state", last.param(row.state.as_str().to_owned())),
                    ("fence", last.param(row.fence)),
                    ("round", last.param(row.round)),
                    ("approval_id", last.param(row.approval_id)),
                    ("executor", last.param(row.executor)),
                    ("lease_until", last.param(row.lease_until)),
                    ("budget", last.param(row.budget)),
                    ("reserved", last.param(row.reserved)),
                    ("result", last.param(row.result)),
                    ("updated_at", last.param(row.updated_at)),
                    ("approval", last.param(row.approval)),
                    ("revoked_at", last.param(row.revoked_at)),
                ];
                let id = last.param(row.id);
                let state = last.param(expect.as_str().to_owned());
                let fence = last.param(fence);
                if with_sql {
                    let set = set.map(|(col, p)| format!("{col} = {p}"));
                    ctes.push(format!(
                        "w{k} AS (UPDATE ledger_tasks SET {} WHERE id = {id} AND state = {state} \
                         AND fence = {fence} RETURNING 1)",
                        set.join(", ")
                    ));
                }
            }
            Write::InsertTask(t) => {
                last.expect.push(Expect::New);
                let values = [
                    last.param(t.id),
                    last.param(t.tenant),
                    last.param(t.job_id),
                    last.param(t.request_id),
                    last.param(t.state.as_str().to_owned()),
                    last.param(t.action),
                    last.param(t.action_digest.to_string()),
                    last.param(i64::from(t.approval_required)),
                    last.param(t.cost_minor),
                    last.param(t.idempotency_key),
                    last.param(t.proposer),
                    last.param(t.fence),
                    last.param(t.round),
                    last.param(t.approval_id),
                    last.param(t.executor),
                    last.param(t.lease_until),
                    last.param(t.budget),
                    last.param(t.reserved),
                    last.param(t.result),
                    last.param(t.created_at),
                    last.param(t.updated_at),
                    last.param(t.proposed_action),
                    last.param(t.proposed_digest.map(|d| d.to_string())),
                    last.param(t.amendments),
                    last.param(t.approval),
                    last.param(t.revoked_at),
                ];
                if with_sql {
                    ctes.push(format!(
                        "w{k} AS (INSERT INTO ledger_tasks ({TASK_COLUMNS}) VALUES ({}){} \
                         RETURNING 1)",
                        values.join(", "),
                        if unseen {
                            ""
                        } else {
                            " ON CONFLICT DO NOTHING"
                        }
                    ));
                }
            }
            Write::InsertDecision {
                decision_id,
                approval_id,
                envelope,
                at,
            } => {
                last.expect.push(Expect::New);
                let values = [
                    last.param(decision_id),
                    last.param(approval_id),
                    last.param(envelope),
                    last.param(at),
                ];
                if with_sql {
                    ctes.push(format!(
                        "w{k} AS (INSERT INTO ledger_decisions (decision_id, approval_id, \
                         envelope, recorded_at) VALUES ({}) ON CONFLICT DO NOTHING RETURNING 1)",
                        values.join(", ")
                    ));
                }
            }
            Write::PutApproval(a) => {
                last.expect.push(Expect::One);
                let values = [
                    last.param(a.approval_id),
                    last.param(a.task_id),
                    last.param(a.round),
                    last.param(a.decision_id),
                    last.param(a.revoked_at),
                ];
                if with_sql {
                    ctes.push(format!(
                        "w{k} AS (INSERT INTO ledger_approvals (approval_id, task_id, round, \
                         decision_id, revoked_at) VALUES ({}) ON CONFLICT (approval_id) DO \
                         UPDATE SET decision_id = excluded.decision_id, \
                         revoked_at = excluded.revoked_at RETURNING 1)",
                        values.join(", ")
                    ));
                }
            }
        }
    }
    let mut end = None;
    if let Some((chain, events)) = chain {
        let c = last.param(chain);
        if with_sql {
            ctes.push(format!(
                "h AS (SELECT seq, digest FROM ledger_head WHERE chain = {c} FOR UPDATE)"
            ));
        }
        let mut inserts = Vec::new();
        for (i, e) in events.into_iter().enumerate() {
            let n = i + 1;
            let [a, b, rest] = e.canonical_around();
            let (a, b, rest) = (last.param(a), last.param(b), last.param(rest));
            let (at, tenant) = (last.param(e.at), last.param(e.tenant));
            let (task, kind) = (last.param(e.task), last.param(e.kind.as_str().to_owned()));
            if !with_sql {
                continue;
            }
            // The first event follows the head; each next one, the event before it.
            let (from, prev) = if n == 1 {
                (
                    "h".to_owned(),
                    "coalesce('\"' || h.digest || '\"', 'null')".to_owned(),
                )
            } else {
                (
                    format!("s{}", n - 1),
                    format!("'\"' || s{}.digest || '\"'", n - 1),
                )
            };
            ctes.push(format!(
                "e{n} AS (SELECT {from}.seq + 1 AS seq, {a}::text || {prev} || {b}::text || \
                 ({from}.seq + 1)::text || {rest}::text AS body FROM {from})"
            ));
            ctes.push(format!(
                "s{n} AS (SELECT seq, body, 'sha256:' || \
                 encode(sha256(convert_to(body, 'UTF8')), 'hex') AS digest FROM e{n})"
            ));
            inserts.push(format!(
                "SELECT {c}::bigint, seq, {at}::bigint, {tenant}::text, {task}::text, \
                 {kind}::text, body, digest FROM s{n}"
            ));
        }
        if with_sql {
            ctes.push(format!(
                "i AS (INSERT INTO ledger_events (chain, seq, at, tenant, task, kind, body, \
                 digest) {})",
                inserts.join(" UNION ALL ")
            ));
        }
        end = Some((c, inserts.len()));
    }
    if !with_sql {
        return last;
    }
    let counts: Vec<String> = (0..last.expect.len())
        .map(|k| format!("(SELECT count(*) FROM w{k})"))
        .collect();
    let counts = if counts.is_empty() {
        "1".to_owned()
    } else {
        counts.join(", ")
    };
    let tail = match end {
        None => format!("SELECT {counts}"),
        Some((c, n)) => format!(
            "UPDATE ledger_head SET seq = s{n}.seq, digest = s{n}.digest FROM s{n} \
             WHERE ledger_head.chain = {c} RETURNING {counts}"
        ),
    };
    last.sql = if ctes.is_empty() {
        tail
    } else {
        format!("WITH {} {tail}", ctes.join(", "))
    };
    last
}
