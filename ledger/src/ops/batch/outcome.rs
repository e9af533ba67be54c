//! How a batch item's claim ends, fed to its lineage's breaker (issue 28): completions and
//! lapsed leases count as the breaker's outcomes; a trip moves every remaining unclaimed item
//! of the lineage's current batch to `awaiting_reapproval`, in the same transaction as the
//! event that tripped it, and proposes a batch over them for a reviewer.

use super::{
    event, ids_text, locked_batch, locked_items, locked_lineage, rebuild, text_digest, Server,
};
use crate::json::{canon, opt_s, s, stored};
use crate::model::Task;
use crate::ops::claim::Extra;
use crate::ops::finish;
use crate::ops::{self, LEDGER_ACTOR};
use crate::store::{increment, storage, BatchRow, Done, ItemRow, LineageRow, Lock, TaskRow, Tx};
use actionseal_core::batch::{Breaker, BreakerState, Policy, Transition, Trip};
use actionseal_core::ledger::{
    approval_id, next, remainder_id, EventKind, Observed, Op, Reported, State,
};
use actionseal_core::Reason;
use actionseal_core::{Code, Error, OwnedValue, Result};

/// The lineage's breaker as stored.
pub(crate) fn breaker(l: &LineageRow) -> Result<Breaker> {
    Breaker::from_value(&stored(&l.breaker)?)
}

/// The refusal of a batch operation on a task that is no batch's item.
fn not_an_item(task_id: &str) -> Error {
    Error::new(
        Code::BatchItem,
        format!("task {task_id:?} is no batch's item: use the task operations"),
    )
    .in_key("task_id")
}

/// An item's lineage, the lineage's current batch and the item, locked in that order.
pub(crate) fn lock_item(
    tx: &mut dyn Tx,
    task_id: &str,
) -> Result<(LineageRow, BatchRow, TaskRow, crate::store::ItemRow)> {
    tx.read_item_ahead(task_id)?;
    let item = tx.item(task_id)?.ok_or_else(|| not_an_item(task_id))?;
    let l = locked_lineage(tx, &item.lineage)?;
    // An item's operation reads its batch's head: the item lists, which grow with the batch,
    // are read only to send the rest back (send_back).
    let b = tx
        .batch_head(&l.current, Lock::Row)?
        .ok_or_else(|| storage("batch", format!("{:?} is missing", l.current)))?;
    let t = ops::locked_task(tx, task_id)?;
    Ok((l, b, t, item))
}

/// What an item's event names when it moved its lineage's breaker.
fn breaker_detail(l: &LineageRow, breaker: &str) -> Extra {
    vec![
        ("lineage", s(&l.id)),
        ("breaker_digest", text_digest(breaker)),
    ]
}

/// complete_item: [`finish::complete`] of a batch's item (the claim's fence and its
/// report), fed to its breaker.
pub(crate) fn complete(
    tx: &mut dyn Tx,
    now: i64,
    task_id: &str,
    (fence, reported): (i64, Reported),
    result: Option<&OwnedValue>,
    executor: &str,
    srv: &Server<'_>,
) -> Result<Done<Task>> {
    let (mut l, b, mut t, _) = lock_item(tx, task_id)?;
    let p = srv.policy(&b)?;
    let before = ops::snapshot(&t);
    if expire_locked(tx, now, &mut l, &b, &mut t, &p, srv)? {
        // The lease ran out first: the lapse was counted, the completion is refused.
        let ev = finish::refused_completion(&t, now, fence, reported, result, executor);
        let e = next(&before, Op::Complete { fence, reported }, now)
            .err()
            .unwrap_or_else(|| Error::new(Code::LeaseExpired, "the claim's lease ran out"));
        tx.put_lineage(&l)?;
        return ops::refuse(tx, ev, e);
    }
    let ev = finish::refused_completion(&t, now, fence, reported, result, executor);
    let mut br = breaker(&l)?;
    let transition = br.on_outcome(p.breaker.as_ref(), reported, now);
    let text = canon(&br.to_value());
    let extra = breaker_detail(&l, &text);
    let done = finish::complete_locked(tx, now, t, (fence, reported), result, ev, extra)?;
    if let Done::Ok(_) = &done {
        l.breaker = text;
        l.updated_at = now;
        let cause = Cause {
            task: Some(task_id),
            actor: executor,
        };
        transit(tx, now, (&mut l, &b), transition, cause, srv)?;
        tx.put_lineage(&l)?;
    }
    Ok(done)
}

/// reconcile_item: [`finish::reconcile`] of a batch's item. An item in doubt was counted as a
/// failure when its doubt began (an `unknown` report or a lapsed lease), so only `succeeded`
/// is fed to the breaker again (a success, which a half-open breaker counts toward closing).
/// One claimable again under an open breaker that nothing would half-open goes back to a
/// reviewer ([`awaits_no_one`]).
pub(crate) fn reconcile(
    tx: &mut dyn Tx,
    now: i64,
    task_id: &str,
    observed: Observed,
    result: Option<&OwnedValue>,
    actor: &str,
    srv: &Server<'_>,
) -> Result<Done<Task>> {
    let (mut l, b, mut t, row) = lock_item(tx, task_id)?;
    let p = srv.policy(&b)?;
    expire_locked(tx, now, &mut l, &b, &mut t, &p, srv)?;
    let ev = finish::refused_reconcile(&t, now, observed, result, actor);
    let mut br = breaker(&l)?;
    let transition = match observed {
        Observed::Succeeded => br.on_outcome(p.breaker.as_ref(), Reported::Succeeded, now),
        Observed::Failed | Observed::NotExecuted => Transition::None,
    };
    let text = canon(&br.to_value());
    let extra = match observed {
        Observed::Succeeded => breaker_detail(&l, &text),
        Observed::Failed | Observed::NotExecuted => Vec::new(),
    };
    let t = match finish::reconcile_locked(tx, now, t, observed, result, ev, extra)? {
        Done::Ok(t) => t,
        Done::Refused(e) => {
            tx.put_lineage(&l)?;
            return Ok(Done::Refused(e));
        }
    };
    l.breaker = text;
    l.updated_at = now;
    let cause = Cause {
        task: Some(task_id),
        actor,
    };
    transit(tx, now, (&mut l, &b), transition, cause, srv)?;
    let t = match t.state == State::Approved && awaits_no_one(&l, &b)? {
        // Claimable again, it would wait for an approval no one is asked for: it goes back
        // to a reviewer, over the lineage's next batch, whose approval half-opens the breaker.
        true => {
            let batch = row
                .batch
                .ok_or_else(|| storage("batch item", "approved without its batch"))?;
            let reasons = [Reason::BreakerOpen];
            send_item_back(tx, now, (&mut l, &batch), t, &reasons, actor, srv)?
        }
        false => t,
    };
    tx.put_lineage(&l)?;
    Ok(Done::Ok(finish::reconciled_view(t, result)?))
}

/// Whether lineage `l`, whose current batch was `b` when the operation began, has its
/// breaker open with no batch awaiting the decision that would half-open it: the trip found
/// no item to send back, or the reviewer rejected the batch they went back in. (A batch
/// proposed by this operation is awaiting.)
pub(crate) fn awaits_no_one(l: &LineageRow, b: &BatchRow) -> Result<bool> {
    Ok(breaker(l)?.state == BreakerState::Open
        && l.current == b.id
        && b.state != State::AwaitingApproval)
}

/// The sweeper's expiry of a batch item's lease: its lineage first. Returns whether it moved.
pub(crate) fn expire_item(
    tx: &mut dyn Tx,
    now: i64,
    srv: &Server<'_>,
    task_id: &str,
) -> Result<bool> {
    let (mut l, b, mut t, _) = lock_item(tx, task_id)?;
    let p = srv.policy(&b)?;
    let moved = expire_locked(tx, now, &mut l, &b, &mut t, &p, srv)?;
    tx.put_lineage(&l)?;
    Ok(moved)
}

/// Moves the locked item `t` to `unknown` if its lease ran out, counting the lapse as an
/// `unknown` outcome of its breaker (the caller writes the lineage). Returns whether it did.
pub(crate) fn expire_locked(
    tx: &mut dyn Tx,
    now: i64,
    l: &mut LineageRow,
    b: &BatchRow,
    t: &mut TaskRow,
    p: &Policy,
    srv: &Server<'_>,
) -> Result<bool> {
    if !ops::snapshot(t).lease_expired(now) {
        return Ok(false);
    }
    let mut br = breaker(l)?;
    let transition = br.on_outcome(p.breaker.as_ref(), Reported::Unknown, now);
    let text = canon(&br.to_value());
    ops::expire_with(tx, t, now, breaker_detail(l, &text))?;
    l.breaker = text;
    l.updated_at = now;
    let id = t.id.clone();
    let cause = Cause {
        task: Some(&id),
        actor: LEDGER_ACTOR,
    };
    transit(tx, now, (l, b), transition, cause, srv)?;
    Ok(true)
}

/// What moved a breaker: an item's outcome (`task`), or none for a claim over the rate or a
/// reviewer's decision, and who.
#[derive(Clone, Copy)]
pub(crate) struct Cause<'a> {
    pub task: Option<&'a str>,
    pub actor: &'a str,
}

/// Records a breaker transition of lineage `l` (its breaker already written into `l`), whose
/// current batch is `b`. Returns the items a trip moved.
pub(crate) fn transit(
    tx: &mut dyn Tx,
    now: i64,
    (l, b): (&mut LineageRow, &BatchRow),
    transition: Transition,
    cause: Cause<'_>,
    srv: &Server<'_>,
) -> Result<Vec<String>> {
    let (kind, outcome) = match transition {
        Transition::None => return Ok(Vec::new()),
        Transition::Tripped(why) => return trip(tx, now, (l, b), why, cause, srv),
        Transition::HalfOpened => (EventKind::BreakerHalfOpened, "half_open"),
        Transition::Closed => (EventKind::BreakerClosed, "closed"),
    };
    let mut ev = event(
        b,
        now,
        kind,
        cause.actor,
        transition_detail(l, cause.task, None),
    );
    ev.outcome = Some(outcome.to_owned());
    tx.append(ev);
    Ok(Vec::new())
}

fn transition_detail(l: &LineageRow, cause: Option<&str>, remainder: Option<&str>) -> Extra {
    vec![
        ("lineage", s(&l.id)),
        ("breaker_digest", text_digest(&l.breaker)),
        ("task", opt_s(cause)),
        ("remainder", opt_s(remainder)),
    ]
}

/// The breaker of `l` opened: every remaining unclaimed item of its current batch `b` goes
/// back to a reviewer, over a new batch (see [`send_back`]). Returns the items it moved.
fn trip(
    tx: &mut dyn Tx,
    now: i64,
    (l, b): (&mut LineageRow, &BatchRow),
    why: Trip,
    cause: Cause<'_>,
    srv: &Server<'_>,
) -> Result<Vec<String>> {
    let reasons = [Reason::BreakerOpen];
    let (moved, remainder) = send_back(tx, now, (l, b), &reasons, cause.actor, srv)?;
    let remainder_id = remainder.as_ref().map(|r| r.id.as_str());
    let mut detail = transition_detail(l, cause.task, remainder_id);
    detail.push(("why", s(why.as_str())));
    let mut ev = event(b, now, EventKind::BreakerTripped, cause.actor, detail);
    ev.outcome = Some("open".to_owned());
    tx.append(ev);
    Ok(moved.into_iter().map(|t| t.id).collect())
}

/// Sends every remaining unclaimed item of `b`, the current batch of lineage `l`, back to a
/// reviewer for `reasons` (see [`resend`]). Returns the items it moved, as written, and the
/// batch over them (none when no item remained).
pub(crate) fn send_back(
    tx: &mut dyn Tx,
    now: i64,
    (l, b): (&mut LineageRow, &BatchRow),
    reasons: &[Reason],
    actor: &str,
    srv: &Server<'_>,
) -> Result<(Vec<TaskRow>, Option<BatchRow>)> {
    // Its head may be all the caller read (an item's operation): the lists, now.
    let b = &locked_batch(tx, &b.id)?;
    let items = locked_items(tx, b)?;
    let kept: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].state == State::Approved)
        .collect();
    if kept.is_empty() {
        return Ok((Vec::new(), None));
    }
    let (moved, r) = resend(tx, now, (l, b), (&items, &kept), (reasons, actor), srv)?;
    Ok((moved, Some(r)))
}

/// Sends the approved item `t` (locked, as the caller left it) of `batch`, the batch of
/// lineage `l` that approved it, back to a reviewer alone for `reasons`, over the lineage's
/// next batch (see [`resend`]): the way back of an item claimable again when no batch would
/// take it back (its batch's other items went back already, or the breaker stays open).
/// Returns the item as written.
pub(crate) fn send_item_back(
    tx: &mut dyn Tx,
    now: i64,
    (l, batch): (&mut LineageRow, &str),
    t: TaskRow,
    reasons: &[Reason],
    actor: &str,
    srv: &Server<'_>,
) -> Result<TaskRow> {
    let db = &locked_batch(tx, batch)?;
    let mut items = locked_items(tx, db)?;
    let k = items
        .iter()
        .position(|i| i.id == t.id)
        .ok_or_else(|| storage("batch item", "not in the batch that approved it"))?;
    // The rows read now are as the transaction began: the caller's is as it left it.
    items[k] = t;
    let (mut moved, _) = resend(tx, now, (l, db), (&items, &[k]), (reasons, actor), srv)?;
    moved
        .pop()
        .ok_or_else(|| storage("batch item", "the item was not sent back"))
}

/// Sends every approved item of lineage `l` back to a reviewer for `reasons`: those one
/// batch approved last go back together, over the lineage's next batch (see [`resend`]), one
/// such batch for each batch that approved some. The way back of items claimable again under
/// an open breaker once nothing awaits the decision that would half-open it.
pub(crate) fn send_approved_back(
    tx: &mut dyn Tx,
    now: i64,
    l: &mut LineageRow,
    reasons: &[Reason],
    actor: &str,
    srv: &Server<'_>,
) -> Result<()> {
    // A lineage's batches are its generations: the first is named as the lineage, the rest
    // derived. Listed before any is proposed here.
    let batches: Vec<String> = std::iter::once(l.id.clone())
        .chain((2..=l.generation).map(|g| remainder_id(&l.id, g)))
        .collect();
    for id in batches {
        let db = locked_batch(tx, &id)?;
        let items = locked_items(tx, &db)?;
        let kept: Vec<usize> = approved_by(tx, &id, &items)?
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        if !kept.is_empty() {
            resend(tx, now, (l, &db), (&items, &kept), (reasons, actor), srv)?;
        }
    }
    Ok(())
}

/// The items of batch `batch` (its `items`, locked, in its order) that are approved and that
/// it approved last, by index, with their item rows: an item lists in every batch it went back
/// in, and is the last approver's.
pub(crate) fn approved_by(
    tx: &mut dyn Tx,
    batch: &str,
    items: &[TaskRow],
) -> Result<Vec<(usize, ItemRow)>> {
    let mut out = Vec::new();
    for (i, t) in items.iter().enumerate() {
        if t.state != State::Approved {
            continue;
        }
        let row = tx
            .item(&t.id)?
            .ok_or_else(|| storage("batch item", "its row is missing"))?;
        if row.batch.as_deref() == Some(batch) {
            out.push((i, row));
        }
    }
    Ok(out)
}

/// Moves the items at `kept` of `b`'s items (`items`, locked, in its order) back to a
/// reviewer for `reasons` (`awaiting_reapproval`, a new round each, with no approval row of
/// its own), and proposes a batch over them, the lineage's next, whose decision covers them
/// again. Returns the items it moved, as written, and that batch.
fn resend(
    tx: &mut dyn Tx,
    now: i64,
    (l, b): (&mut LineageRow, &BatchRow),
    (items, kept): (&[TaskRow], &[usize]),
    (reasons, actor): (&[Reason], &str),
    srv: &Server<'_>,
) -> Result<(Vec<TaskRow>, BatchRow)> {
    let mut moved = Vec::with_capacity(kept.len());
    for &i in kept {
        let mut t = items[i].clone();
        let before = ops::snapshot(&t);
        t.state = next(&before, Op::ClaimReapprove, now)?;
        t.round = increment(t.round, "approval round")?;
        let apr = approval_id(&t.id, t.round);
        t.approval_id = Some(apr.clone());
        t.approval = None;
        t.proof = None;
        t.revoked_at = None;
        t.round_started_at = now;
        t.updated_at = now;
        ops::save(tx, &t, &before)?;
        let mut ev = ops::event(&t, now, EventKind::SentToReapproval, actor);
        ev.reasons = reasons.iter().map(|r| r.as_str().to_owned()).collect();
        ev.outcome = Some("reapprove".to_owned());
        ev.detail = ops::detail(vec![
            ("approval_id", s(&apr)),
            ("batch_id", s(&b.id)),
            ("lineage", s(&l.id)),
        ]);
        tx.append(ev);
        moved.push(t);
    }
    let ids: Vec<String> = moved.iter().map(|t| t.id.clone()).collect();
    let contract = srv.contract(b)?;
    let dropped: Vec<u64> = (0..items.len())
        .filter(|i| !kept.contains(i))
        .map(|i| i as u64)
        .collect();
    let r = match dropped.is_empty() {
        // Every item remains: the same items, in a batch of their own to decide again.
        true => rebuild(b, &contract, items)?,
        false => rebuild(b, &contract, items)?.deselect(&dropped)?,
    };
    l.generation = increment(l.generation, "batch generation")?;
    let id = remainder_id(&l.id, l.generation);
    let row = BatchRow {
        id: id.clone(),
        lineage: l.id.clone(),
        tenant: b.tenant.clone(),
        semantics: b.semantics.clone(),
        header: canon(r.header_value()),
        digest: r.digest(),
        proposed_digest: r.digest(),
        items: ids_text(&ids),
        proposed_items: ids_text(&ids),
        amendments: 0,
        state: State::AwaitingApproval,
        approval_id: approval_id(&id, 1),
        decision_id: None,
        record: None,
        proof: None,
        contract: b.contract.clone(),
        proposer: LEDGER_ACTOR.to_owned(),
        created_at: now,
        updated_at: now,
    };
    tx.put_batch(&row)?;
    l.current = id;
    l.updated_at = now;
    let proposed = super::propose::proposed_event(&row, l, now, &ids, Some(&b.id));
    tx.append(proposed);
    Ok((moved, row))
}
