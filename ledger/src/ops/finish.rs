//! complete, reconcile and lease expiry: how a claimed task ends, and how a task in doubt is
//! sorted out without a blind retry.

use super::{detail, event, expire_if_due, locked_task, refuse, save, snapshot};
use crate::json::{canon, s};
use crate::model::Task;
use crate::store::{storage, Done, TaskRow, Tx};
use actionseal_core::ledger::{self, next, EventKind, Observed, Op, Reported, State};
use actionseal_core::{fingerprint, OwnedValue, Result, Value};

/// What happens to the claim's reservation.
enum Money {
    Commit,
    Release,
    Hold,
}

fn settle(tx: &mut dyn Tx, t: &mut TaskRow, money: Money) -> Result<()> {
    let (Some(name), true) = (t.budget.clone(), t.reserved > 0) else {
        return Ok(());
    };
    if matches!(money, Money::Hold) {
        return Ok(());
    }
    let mut b = tx.budget(&name)?.ok_or_else(|| {
        storage(
            "budget",
            format!("{name:?} vanished while it held a reservation"),
        )
    })?;
    (b.spent_minor, b.reserved_minor) = ledger::settle(
        b.spent_minor,
        b.reserved_minor,
        t.reserved,
        matches!(money, Money::Commit),
    )?;
    tx.put_budget(&b)?;
    t.reserved = 0;
    Ok(())
}

fn result_digest(result: Option<&OwnedValue>) -> OwnedValue {
    result.map_or(Value::Null, |r| s(&fingerprint(r).to_string()))
}

/// complete(task, fence, reported, result) by `executor`.
pub(crate) fn complete(
    tx: &mut dyn Tx,
    now: i64,
    task_id: &str,
    fence: i64,
    reported: Reported,
    result: Option<&OwnedValue>,
    executor: &str,
) -> Result<Done<Task>> {
    let t = locked_task(tx, task_id)?;
    let ev = refused_completion(&t, now, fence, reported, result, executor);
    if super::batch::is_item(&t)? {
        return refuse(tx, ev, super::batch::item_only("complete"));
    }
    complete_locked(tx, now, t, (fence, reported), result, ev, Vec::new())
}

/// The event of a refused completion, until it is one.
pub(crate) fn refused_completion(
    t: &TaskRow,
    now: i64,
    fence: i64,
    reported: Reported,
    result: Option<&OwnedValue>,
    executor: &str,
) -> ledger::Event {
    let mut ev = event(t, now, EventKind::CompleteRefused, executor);
    ev.fence = Some(fence);
    ev.detail = detail(vec![
        ("reported", s(reported.as_str())),
        ("result_digest", result_digest(result)),
    ]);
    ev
}

/// [`complete`] of the locked task `t` with the claim's fence and its report, `ev` its event
/// as [`refused_completion`] made it, `extra` what its `completed` event's detail adds.
pub(crate) fn complete_locked(
    tx: &mut dyn Tx,
    now: i64,
    mut t: TaskRow,
    (fence, reported): (i64, Reported),
    result: Option<&OwnedValue>,
    mut ev: ledger::Event,
    extra: super::claim::Extra,
) -> Result<Done<Task>> {
    let before = snapshot(&t);
    let state = match next(&before, Op::Complete { fence, reported }, now) {
        Ok(state) => state,
        Err(e) => {
            // A completion after the lease: the task's outcome is now in doubt.
            expire_if_due(tx, &mut t, now)?;
            ev.state = Some(t.state);
            return refuse(tx, ev, e);
        }
    };
    settle(
        tx,
        &mut t,
        match reported {
            Reported::Succeeded => Money::Commit,
            Reported::Failed => Money::Release,
            Reported::Unknown => Money::Hold,
        },
    )?;
    t.state = state;
    // The claim has ended: its lease no longer runs.
    t.lease_until = None;
    if let Some(r) = result {
        t.result = Some(canon(r));
    }
    t.updated_at = now;
    save(tx, &t, &before)?;
    ev.kind = EventKind::Completed;
    ev.state = Some(t.state);
    ev.outcome = Some(reported.as_str().to_owned());
    with_extra(&mut ev, extra);
    tx.append(ev);
    // The tenant's policy may shred the task's sensitive values as it finishes (issue 29).
    super::shred::at_finish(tx, now, &t, super::LEDGER_ACTOR)?;
    let parsed = super::Parsed {
        result: result.is_some(),
        ..Default::default()
    };
    Ok(Done::Ok(super::view_parsed(t, parsed)?))
}

/// reconcile(task, observed, result) by `actor`: what the business system answered about a
/// task in doubt.
pub(crate) fn reconcile(
    tx: &mut dyn Tx,
    now: i64,
    task_id: &str,
    observed: Observed,
    result: Option<&OwnedValue>,
    actor: &str,
) -> Result<Done<Task>> {
    let mut t = locked_task(tx, task_id)?;
    if super::batch::is_item(&t)? {
        let ev = refused_reconcile(&t, now, observed, result, actor);
        return refuse(tx, ev, super::batch::item_only("reconcile"));
    }
    expire_if_due(tx, &mut t, now)?;
    let ev = refused_reconcile(&t, now, observed, result, actor);
    Ok(
        match reconcile_locked(tx, now, t, observed, result, ev, Vec::new())? {
            Done::Ok(t) => Done::Ok(reconciled_view(t, result)?),
            Done::Refused(e) => Done::Refused(e),
        },
    )
}

/// The event of a refused reconciliation, until it is one.
pub(crate) fn refused_reconcile(
    t: &TaskRow,
    now: i64,
    observed: Observed,
    result: Option<&OwnedValue>,
    actor: &str,
) -> ledger::Event {
    let mut ev = event(t, now, EventKind::ReconcileRefused, actor);
    ev.detail = detail(vec![
        ("observed", s(observed.as_str())),
        ("result_digest", result_digest(result)),
        ("idempotency_key", s(&t.idempotency_key)),
    ]);
    ev
}

/// [`reconcile`] of the locked task `t` (its lease expired first, if due), `ev` its event as
/// [`refused_reconcile`] made it. Returns the task as written.
pub(crate) fn reconcile_locked(
    tx: &mut dyn Tx,
    now: i64,
    mut t: TaskRow,
    observed: Observed,
    result: Option<&OwnedValue>,
    mut ev: ledger::Event,
    extra: super::claim::Extra,
) -> Result<Done<TaskRow>> {
    let before = snapshot(&t);
    let state = match next(&before, Op::Reconcile(observed), now) {
        Ok(state) => state,
        Err(e) => return refuse(tx, ev, e),
    };
    settle(
        tx,
        &mut t,
        match observed {
            Observed::Succeeded => Money::Commit,
            Observed::Failed | Observed::NotExecuted => Money::Release,
        },
    )?;
    t.state = state;
    if state == State::Approved {
        // Claimable again, with the same idempotency key; the next claim takes fence + 1.
        t.lease_until = None;
        t.budget = None;
    }
    if let Some(r) = result {
        t.result = Some(canon(r));
    }
    t.updated_at = now;
    save(tx, &t, &before)?;
    ev.kind = EventKind::Reconciled;
    ev.state = Some(t.state);
    ev.outcome = Some(observed.as_str().to_owned());
    with_extra(&mut ev, extra);
    tx.append(ev);
    super::shred::at_finish(tx, now, &t, super::LEDGER_ACTOR)?;
    Ok(Done::Ok(t))
}

/// The task `t` as its reconciliation with `result` left it, as returned to the caller.
pub(crate) fn reconciled_view(t: TaskRow, result: Option<&OwnedValue>) -> Result<Task> {
    let parsed = super::Parsed {
        result: result.is_some(),
        ..Default::default()
    };
    super::view_parsed(t, parsed)
}

/// Adds `extra` to an event's detail (a batch item's lineage and breaker, issue 28).
fn with_extra(ev: &mut ledger::Event, extra: super::claim::Extra) {
    if extra.is_empty() {
        return;
    }
    let mut entries = match std::mem::replace(&mut ev.detail, Value::Null) {
        Value::Object(o) => o.into_entries(),
        _ => Vec::new(),
    };
    entries.extend(extra.into_iter().map(|(k, v)| (k.into(), v)));
    ev.detail = Value::Object(actionseal_core::Object::from_entries(entries).unwrap_or_default());
}
