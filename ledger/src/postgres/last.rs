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

use super::item_gate::ItemGate;
use crate::store::{Links, Write, LINEAGE_COLUMNS, TASK_COLUMNS};
use actionseal_core::ledger::Event;
use actionseal_core::Result;
use postgres::types::ToSql;

/// What a write must have changed: one row, or (for a new task or decision) none when another
/// transaction created it first: the operation then runs again, and finds it.
pub(super) enum Expect {
    One,
    New,
}

/// One chain's queued events.
pub(super) type Chain = (i64, Vec<Event>);

/// For each event, the one before it about the same task in this statement (its index), if
/// any; the first about a task links to the task's last event as read.
fn earlier(events: &[Event]) -> Vec<Option<usize>> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            e.task.as_ref()?;
            events[..i].iter().rposition(|x| x.task == e.task)
        })
        .collect()
}

/// The last event about `task` in this statement (its index).
fn last_about(events: &[Event], task: &str) -> Option<usize> {
    events.iter().rposition(|e| e.task.as_deref() == Some(task))
}

/// What a last statement's text depends on (its writes' kinds, whether a new task was looked
/// for, how many events, which of them a task row and each event's link name): statements of
/// one shape share their text, so a session builds and prepares it once.
pub(super) fn shape(
    writes: &[Write],
    chain: Option<&Chain>,
    unseen: bool,
    gated: bool,
    item: Option<&ItemGate>,
) -> Vec<u8> {
    let events = chain.map_or(&[][..], |(_, events)| events);
    let index = |i: Option<usize>| {
        u32::try_from(i.map_or(0, |i| i + 1))
            .unwrap_or(u32::MAX)
            .to_le_bytes()
    };
    let item = item.map_or(0, |g| 1 + u8::from(writes_lineage(writes, g)));
    let mut key = vec![u8::from(gated), item];
    for w in writes {
        key.push(match w {
            Write::UpdateTask { .. } => b'u',
            Write::InsertTask(_) if unseen => b'I',
            Write::InsertTask(_) => b'i',
            Write::PutApproval(_) => b'a',
            Write::InsertDecision { .. } => b'd',
            Write::Link(_) => b'l',
            Write::PutLineage(_) => b'L',
        });
        if let Some(task) = w.task_id() {
            key.extend(index(last_about(events, task)));
        }
    }
    if chain.is_some() {
        key.push(b'e');
        key.extend(index(events.len().checked_sub(1)));
        for e in earlier(events) {
            key.extend(index(e));
        }
    }
    key
}

/// Whether `writes` write the gated item's lineage (then its gate locks the row for update,
/// else shared: claims without caps or a claim rate do not wait for each other).
fn writes_lineage(writes: &[Write], g: &ItemGate) -> bool {
    writes
        .iter()
        .any(|w| matches!(w, Write::PutLineage(l) if l.id == g.lineage.id))
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
/// returns one row, with the number of rows each write changed (and, with events, the id of
/// the last), when the chain's head exists.
/// Its text is built only `with_sql` (a statement of the same [`shape`] has the same text and
/// the same parameters in the same order).
///
/// Each event takes its id from the events' identity sequence (`sequence`, its oid) in the
/// statement itself, so that it can link to the event before it about its task (the task's
/// last event as read, from `links`, or an earlier event of the statement), and the task's
/// row, written in the same statement, can name its last event.
///
/// With `unseen`, a new task is inserted without `ON CONFLICT`: the proposal did not look for
/// it, and an existing one must fail the whole statement (which may be its own transaction).
///
/// With a `gate` (a task and its last event as read without a lock), the statement writes
/// only if the task is still as read: it locks the task's row first (`t`), the new rows
/// (a decision) go in only then, the chain's head is locked and the events made only if those
/// went in, and every other write only if the events were made. So it writes all or nothing,
/// and when it writes nothing it returns no row (it is then its own transaction, which
/// commits nothing; the operation runs again, under locks).
///
/// With an `item` gate as well (an operation on a batch's item read freely), the task's row
/// is locked only after its lineage and that lineage's current batch, each locked and found
/// as read (the order every batch operation locks them in; PostgreSQL reads a row it waited
/// for again, as committed): the caps' totals, the breaker and the decision the operation
/// decided from are the ones in force when it commits.
#[allow(clippy::too_many_arguments)]
pub(super) fn statement(
    writes: Vec<Write>,
    chain: Option<Chain>,
    unseen: bool,
    gate: Option<(&str, i64)>,
    item: Option<&ItemGate>,
    with_sql: bool,
    links: &Links,
    sequence: u32,
) -> Result<Last> {
    let mut last = Last {
        sql: String::new(),
        params: Vec::new(),
        expect: Vec::new(),
        with_sql,
    };
    // The gate, the new rows it lets in, the events, then the other writes (see above).
    let mut gate_sql: Vec<String> = Vec::new();
    let mut new_rows: Vec<String> = Vec::new();
    let mut ctes: Vec<String> = Vec::new();
    let mut writes_sql: Vec<String> = Vec::new();
    if let Some((task, version)) = gate {
        let after_batch = match item {
            Some(g) => {
                item_gate(&mut last, g, writes_lineage(&writes, g), &mut gate_sql);
                " AND EXISTS (SELECT 1 FROM b)"
            }
            None => "",
        };
        let (task, version) = (last.param(task.to_owned()), last.param(version));
        if with_sql {
            gate_sql.push(format!(
                "t AS (SELECT 1 FROM ledger_tasks WHERE id = {task} AND last_event = {version}\
                 {after_batch} FOR UPDATE)"
            ));
        }
    }
    // The events first: the writes name them.
    let (chain, events) = match chain {
        Some((c, events)) => (Some(c), events),
        None => (None, Vec::new()),
    };
    // The event (its CTE's name) that each task's row names as its last.
    let last_event = |task: &str| last_about(&events, task).map(|i| format!("s{}", i + 1));
    let mut end = None;
    let mut insert = None;
    // Under a gate, the last event the other writes wait for (text only: most calls reuse a
    // prepared statement and build none).
    let after_events = match (gate, events.len()) {
        (Some(_), n) if with_sql && n > 0 => format!(" AND EXISTS (SELECT 1 FROM s{n})"),
        _ => String::new(),
    };
    if let Some(chain) = chain {
        let c = last.param(chain);
        if with_sql {
            // Under a gate, the head waits for the task's lock and for the new rows.
            let gated: String = match gate {
                Some(_) => std::iter::once("t".to_owned())
                    .chain(
                        writes
                            .iter()
                            .enumerate()
                            .filter(|(_, w)| matches!(w, Write::InsertDecision { .. }))
                            .map(|(k, _)| format!("w{k}")),
                    )
                    .map(|n| format!(" AND EXISTS (SELECT 1 FROM {n})"))
                    .collect(),
                None => String::new(),
            };
            ctes.push(format!(
                "h AS (SELECT seq, digest FROM ledger_head WHERE chain = {c}{gated} \
                 FOR UPDATE OF ledger_head)"
            ));
        }
        let mut inserts = Vec::new();
        for (i, (e, earlier)) in events.iter().zip(earlier(&events)).enumerate() {
            let n = i + 1;
            let task_prev = match (earlier, &e.task) {
                (Some(k), _) => format!("(SELECT id FROM s{})", k + 1),
                (None, Some(task)) => format!("{}::bigint", last.param(links.last(task)?)),
                (None, None) => format!("{}::bigint", last.param(0_i64)),
            };
            let [a, b, rest] = e.canonical_around();
            let (a, b, rest) = (last.param(a), last.param(b), last.param(rest));
            let (at, tenant) = (last.param(e.at), last.param(e.tenant.clone()));
            let (task, kind) = (
                last.param(e.task.clone()),
                last.param(e.kind.as_str().to_owned()),
            );
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
            // The id is taken here, under the head's lock (ids follow each chain's order),
            // in the CTE that is computed once anyway.
            ctes.push(format!(
                "s{n} AS (SELECT nextval({sequence}::oid::regclass) AS id, seq, body, 'sha256:' || \
                 encode(sha256(convert_to(body, 'UTF8')), 'hex') AS digest FROM e{n})"
            ));
            inserts.push(format!(
                "SELECT id, {c}::bigint, seq, {at}::bigint, {tenant}::text, {task}::text, \
                 {kind}::text, body, digest, {task_prev} FROM s{n}"
            ));
        }
        if with_sql {
            insert = Some(format!(
                "i AS (INSERT INTO ledger_events (id, chain, seq, at, tenant, task, kind, body, \
                 digest, task_prev) {})",
                inserts.join(" UNION ALL ")
            ));
        }
        end = Some((c, events.len()));
    }
    for (k, w) in writes.into_iter().enumerate() {
        match w {
            Write::UpdateTask { row, expect, fence } => {
                last.expect.push(Expect::One);
                let moved = last_event(&row.id);
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
                    ("round_started_at", last.param(row.round_started_at)),
                    ("proof", last.param(row.proof)),
                ];
                let id = last.param(row.id);
                let state = last.param(expect.as_str().to_owned());
                let fence = last.param(fence);
                if with_sql {
                    let mut set: Vec<String> = set.map(|(col, p)| format!("{col} = {p}")).into();
                    set.extend(moved.map(|s| format!("last_event = (SELECT id FROM {s})")));
                    writes_sql.push(format!(
                        "w{k} AS (UPDATE ledger_tasks SET {} WHERE id = {id} AND state = {state} \
                         AND fence = {fence}{after_events} RETURNING 1)",
                        set.join(", ")
                    ));
                }
            }
            Write::InsertTask(t) => {
                last.expect.push(Expect::New);
                let moved = last_event(&t.id);
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
                    last.param(t.round_started_at),
                    last.param(t.proof),
                    last.param(t.contract),
                ];
                if with_sql {
                    let last_event =
                        moved.map_or("0".to_owned(), |s| format!("(SELECT id FROM {s})"));
                    writes_sql.push(format!(
                        "w{k} AS (INSERT INTO ledger_tasks ({TASK_COLUMNS}, last_event) \
                         VALUES ({}, {last_event}){} RETURNING 1)",
                        values.join(", "),
                        if unseen {
                            ""
                        } else {
                            " ON CONFLICT DO NOTHING"
                        }
                    ));
                }
            }
            Write::Link(task) => {
                last.expect.push(Expect::One);
                let moved = last_event(&task);
                let id = last.param(task);
                if with_sql {
                    // A link is made only for a task with events in this statement.
                    let moved =
                        moved.map_or("last_event".to_owned(), |s| format!("(SELECT id FROM {s})"));
                    writes_sql.push(format!(
                        "w{k} AS (UPDATE ledger_tasks SET last_event = {moved} WHERE id = {id}\
                         {after_events} RETURNING 1)"
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
                if with_sql && gate.is_some() {
                    // Only into a task still as read (`WHERE true`: `ON` would otherwise
                    // read as a join's).
                    let [d, a, e, at] = values;
                    new_rows.push(format!(
                        "w{k} AS (INSERT INTO ledger_decisions (decision_id, approval_id, \
                         envelope, recorded_at) SELECT {d}::text, {a}::text, {e}::text, \
                         {at}::bigint FROM t WHERE true ON CONFLICT DO NOTHING RETURNING 1)"
                    ));
                } else if with_sql {
                    writes_sql.push(format!(
                        "w{k} AS (INSERT INTO ledger_decisions (decision_id, approval_id, \
                         envelope, recorded_at) VALUES ({}) ON CONFLICT DO NOTHING RETURNING 1)",
                        values.join(", ")
                    ));
                }
            }
            Write::PutLineage(l) => {
                last.expect.push(Expect::One);
                let values = [
                    last.param(l.id),
                    last.param(l.current),
                    last.param(l.generation),
                    last.param(l.totals),
                    last.param(l.breaker),
                    last.param(l.updated_at),
                ];
                if with_sql {
                    let [id, current, generation, totals, breaker, at] = values;
                    writes_sql.push(format!(
                        "w{k} AS (INSERT INTO ledger_batch_lineages ({LINEAGE_COLUMNS}) \
                         SELECT {id}::text, {current}::text, {generation}::bigint, \
                         {totals}::text, {breaker}::text, {at}::bigint WHERE true{after_events} \
                         ON CONFLICT (id) DO UPDATE SET current = excluded.current, \
                         generation = excluded.generation, totals = excluded.totals, \
                         breaker = excluded.breaker, updated_at = excluded.updated_at RETURNING 1)"
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
                    let rows = if gate.is_some() {
                        let [id, task, round, decision, revoked] = values;
                        format!(
                            "SELECT {id}::text, {task}::text, {round}::bigint, \
                             {decision}::text, {revoked}::bigint WHERE true{after_events}"
                        )
                    } else {
                        format!("VALUES ({})", values.join(", "))
                    };
                    writes_sql.push(format!(
                        "w{k} AS (INSERT INTO ledger_approvals (approval_id, task_id, round, \
                         decision_id, revoked_at) {rows} ON CONFLICT (approval_id) DO \
                         UPDATE SET decision_id = excluded.decision_id, \
                         revoked_at = excluded.revoked_at RETURNING 1)"
                    ));
                }
            }
        }
    }
    if !with_sql {
        return Ok(last);
    }
    let ctes: Vec<String> = gate_sql
        .into_iter()
        .chain(new_rows)
        .chain(ctes)
        .chain(writes_sql)
        .chain(insert)
        .collect();
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
             WHERE ledger_head.chain = {c} RETURNING {counts}, s{n}.id"
        ),
    };
    last.sql = if ctes.is_empty() {
        tail
    } else {
        format!("WITH {} {tail}", ctes.join(", "))
    };
    Ok(last)
}

/// The item gate's lineage (`l`) and batch (`b`), each locked and as read; `b` waits for `l`.
fn item_gate(last: &mut Last, g: &ItemGate, update: bool, sql: &mut Vec<String>) {
    let l = &g.lineage;
    let [id, current, generation, totals, breaker] = [
        last.param(l.id.clone()),
        last.param(l.current.clone()),
        last.param(l.generation),
        last.param(l.totals.clone()),
        last.param(l.breaker.clone()),
    ];
    let [batch, state, at, record, proof] = [
        last.param(g.batch.clone()),
        last.param(g.state.as_str().to_owned()),
        last.param(g.updated_at),
        last.param(g.record.clone()),
        last.param(g.proof.clone()),
    ];
    if !last.with_sql {
        return;
    }
    let lock = if update { "UPDATE" } else { "SHARE" };
    sql.push(format!(
        "l AS (SELECT 1 FROM ledger_batch_lineages WHERE id = {id} AND current = {current} \
         AND generation = {generation} AND totals = {totals} AND breaker = {breaker} \
         FOR {lock})"
    ));
    sql.push(format!(
        "b AS (SELECT 1 FROM ledger_batches WHERE id = {batch} AND state = {state} \
         AND updated_at = {at} AND record IS NOT DISTINCT FROM {record}::text \
         AND proof IS NOT DISTINCT FROM {proof}::text AND EXISTS (SELECT 1 FROM l) FOR SHARE)"
    ));
}
