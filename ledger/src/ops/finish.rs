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
    let mut t = locked_task(tx, task_id)?;
    let before = snapshot(&t);
    let mut ev = event(&t, now, EventKind::CompleteRefused, executor);
    ev.fence = Some(fence);
    ev.detail = detail(vec![
        ("reported", s(reported.as_str())),
        ("result_digest", result_digest(result)),
    ]);
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
    tx.append(ev);
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
    expire_if_due(tx, &mut t, now)?;
    let before = snapshot(&t);
    let mut ev = event(&t, now, EventKind::ReconcileRefused, actor);
    ev.detail = detail(vec![
        ("observed", s(observed.as_str())),
        ("result_digest", result_digest(result)),
        ("idempotency_key", s(&t.idempotency_key)),
    ]);
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
    tx.append(ev);
    let parsed = super::Parsed {
        result: result.is_some(),
        ..Default::default()
    };
    Ok(Done::Ok(super::view_parsed(t, parsed)?))
}

/// Moves every claimed task whose lease ran out to `unknown`; returns their ids.
pub(crate) fn expire_leases(tx: &mut dyn Tx, now: i64) -> Result<Done<Vec<String>>> {
    let mut moved = Vec::new();
    for id in tx.expired_leases(now)? {
        let mut t = locked_task(tx, &id)?;
        if expire_if_due(tx, &mut t, now)? {
            moved.push(id);
        }
    }
    Ok(Done::Ok(moved))
}
