//! claim a batch's items. In the claim's one transaction, under its lineage's lock: the
//! breaker (open refuses with `breaker_open`), the item's inclusion proof, its drift against
//! its frozen action and the batch decision's validity (core's `check_item_with`), then the
//! caps against the lineage's running totals and the claim rate, then the task's own claim
//! (lease, fence, idempotency key, budget). The lineage's row is written only when the claim
//! moves its totals (under caps) or its breaker (under a claim rate): other claims of the
//! lineage need not wait for it.
//!
//! A per-item batch's items are claimed one at a time ([`item`]); an all-or-nothing batch is
//! claimed whole ([`whole`]): every remaining item's check must permit, or nothing is
//! claimed. A drift there refuses the whole claim and changes nothing (the executor presents
//! the frozen actions again); any other refusal stops the batch: every remaining item ends
//! `rejected_pre_dispatch`.

use super::outcome::{
    approved_by, breaker, expire_locked, lock_item, send_back, send_item_back, transit, Cause,
};
use super::{event, lock, locked_items, refuse, semantics, text_digest, Server};
use crate::json::{canon, obj, s, stored};
use crate::model::{BatchClaimOutcome, ClaimOutcome};
use crate::ops;
use crate::ops::claim::{conclude, refused_claim, Checked, Decider, Extra};
use crate::store::{storage, BatchRow, Done, ItemRow, LineageRow, Lock, TaskRow, Tx};
use actionseal_core::batch::{
    check_batch_with, policy_of, Breaker, BreakerState, Policy, Semantics, Totals, Transition,
};
use actionseal_core::ledger::request::Claim as ClaimRequest;
use actionseal_core::ledger::{
    claim_step, context_recorded, has_bare_link, next, reserve, ClaimStep, EventKind, Op, Recorded,
    State,
};
use actionseal_core::{
    Code, Context, Contract, Error, Outcome, OwnedValue, ProofRequirement, Result, Value,
};
use std::borrow::Cow;

/// The refusal of any claim while the lineage's breaker is open.
fn open() -> Error {
    Error::new(
        Code::BreakerOpen,
        "the batch's circuit breaker is open: a reviewer decides on the remainder first",
    )
}

/// The trusted context of an item's claim: the executor's facts, the ledger's clock, the
/// batch decision (`revoked` when its approval was revoked for the items claimed), who
/// proposed the items (`proposer`, the ledger's record, for the separation of duties) and
/// the lineage's breaker.
fn context(
    c: &ClaimRequest<'_, '_>,
    now: i64,
    (db, proposer, revoked): (&BatchRow, &str, bool),
    breaker: BreakerState,
    srv: &Server<'_>,
) -> Result<Context> {
    let recorded = Recorded {
        revoked: Some((db.approval_id.as_str(), revoked)),
        proposer: Some(proposer),
        amended_by: None,
    };
    let ctx = context_recorded(c.facts, now, &recorded, |doc| srv.contracts.load(doc))?;
    Ok(ctx.with_breaker(Some(breaker)))
}

/// The frozen action and inclusion proof of item `t` (whose item row is `row`) in the batch
/// that approved it.
fn item_of(t: &TaskRow, row: ItemRow) -> Result<(String, OwnedValue, OwnedValue)> {
    let (Some(batch), Some(proof)) = (row.batch, row.proof) else {
        return Err(storage("batch item", "approved without its batch's proof"));
    };
    // Read once: the claim hands out the frozen action and the item that holds it.
    let frozen = stored(&t.action)?.into_owned();
    let item = obj(vec![
        ("action", frozen.clone()),
        ("proof", stored(&proof)?.into_owned()),
    ]);
    Ok((batch, frozen, item))
}

/// The claimed event's detail of a batch's item: its batch and lineage, and the digests of
/// the lineage's totals and breaker as this claim leaves them.
fn claimed_detail(b: &BatchRow, l: &LineageRow) -> Extra {
    vec![
        ("batch_id", s(&b.id)),
        ("lineage", s(&l.id)),
        ("totals_digest", text_digest(&l.totals)),
        ("breaker_digest", text_digest(&l.breaker)),
    ]
}

/// What counting a claim on a lineage's breaker did.
enum Counted {
    /// Nothing: without a claim rate the breaker, and the lineage's row, stay as read.
    Unchanged,
    /// The claim counts toward the rate: the lineage's row is to be written.
    Moved,
    /// The breaker refused the claim: the refusal, and the items its trip moved (none when
    /// it was open already). The lineage's row is to be written.
    Refused(Error, Vec<String>),
}

/// Counts a claim on the lineage's breaker under policy `p` (the batch's), tripping it when
/// the rate is exceeded; the caller writes the lineage.
fn count_claim(
    tx: &mut dyn Tx,
    now: i64,
    (l, b, p): (&mut LineageRow, &BatchRow, &Policy),
    actor: &str,
    srv: &Server<'_>,
) -> Result<Counted> {
    // Without a claim rate a claim moves nothing: both callers refused an open breaker
    // already, so the breaker is neither read again nor written.
    if Breaker::claim_rate(p.breaker.as_ref()).is_none() {
        return Ok(Counted::Unchanged);
    }
    let mut br = breaker(l)?;
    let transition = match br.on_claim(p.breaker.as_ref(), now) {
        Ok(t) => t,
        Err(e) => return Ok(Counted::Refused(e, Vec::new())),
    };
    let text = canon(&br.to_value());
    let moved = text != l.breaker;
    if moved {
        l.breaker = text;
        l.updated_at = now;
    }
    if let Transition::Tripped(_) = transition {
        let cause = Cause { task: None, actor };
        let items = transit(tx, now, (l, b), transition, cause, srv)?;
        let e = Error::new(
            Code::BreakerOpen,
            "the claim went over the batch's claim rate: its breaker opened, and the remaining \
             items wait for a reviewer",
        );
        return Ok(Counted::Refused(e, items));
    }
    Ok(if moved {
        Counted::Moved
    } else {
        Counted::Unchanged
    })
}

/// The records the items of batch `db` (under `contract`) are checked against: its decision,
/// and under a quorum every member's of its round (the set checked; empty otherwise); and
/// whether any was recorded without proof or made through a bare delegation link.
fn decisions(
    tx: &mut dyn Tx,
    db: &BatchRow,
    contract: &Contract,
) -> Result<(OwnedValue, Vec<OwnedValue>, bool)> {
    let record = super::decide::record(db)?
        .ok_or_else(|| storage("batch", "an approved item's batch has no decision"))?;
    if contract.quorum().is_none() {
        let unproven = db.proof.is_none() || has_bare_link(&record);
        return Ok((record, Vec::new(), unproven));
    }
    let rows = tx.round_decisions(&db.approval_id)?;
    let set = rows
        .iter()
        .map(|r| stored(&r.record).map(Value::into_owned))
        .collect::<Result<Vec<_>>>()?;
    let unproven = rows
        .iter()
        .zip(&set)
        .any(|(r, v)| r.proof.is_none() || has_bare_link(v));
    Ok((record, set, unproven))
}

/// claim_item: one item of a per-item batch.
pub(crate) fn item(
    tx: &mut dyn Tx,
    now: i64,
    c: &ClaimRequest<'_, '_>,
    srv: &Server<'_>,
) -> Result<Done<ClaimOutcome>> {
    let (mut l, b, mut t, row) = lock_item(tx, c.task_id)?;
    let contract = srv.contract(&b)?;
    let p = policy_of(&contract, srv.policy)?;
    let expired = expire_locked(tx, now, &mut l, &b, &mut t, &p, srv)?;
    if expired {
        tx.put_lineage(&l)?;
    }
    let mut ev = refused_claim(&t, now, c);
    if semantics(&b)? != Semantics::PerItem {
        let e = Error::new(
            Code::BatchAllOrNothing,
            "the task is an item of an all-or-nothing batch: claim the whole batch",
        );
        return ops::refuse(tx, ev, e);
    }
    let before = ops::snapshot(&t);
    if let Err(e) = next(&before, Op::ClaimPermit, now) {
        return ops::refuse(tx, ev, e);
    }
    let state = breaker(&l)?.state;
    if state == BreakerState::Open {
        return ops::refuse(tx, ev, open());
    }
    let (batch_id, frozen, item) = item_of(&t, row)?;
    // The batch whose decision approved the item: the lineage's current one, or (an item
    // reconciled as not executed since) an earlier one of the lineage.
    let (db, contract) = match batch_id == b.id {
        true => (Cow::Borrowed(&b), contract),
        false => {
            let db = super::locked_batch(tx, &batch_id)?;
            let contract = srv.contract(&db)?;
            (Cow::Owned(db), contract)
        }
    };
    let (record, set, unproven) = decisions(tx, &db, &contract)?;
    let ctx = context(
        c,
        now,
        (&db, &t.proposer, t.revoked_at.is_some()),
        state,
        srv,
    )?;
    let verdict = actionseal_core::batch::check_item_with(
        match set.is_empty() {
            true => std::slice::from_ref(&record),
            false => &set,
        },
        &item,
        c.action,
        &ctx,
    );
    let step = claim_step(&verdict);
    if step == ClaimStep::Reapprove {
        let reasons = &verdict.reasons;
        let task = match db.id == b.id {
            // The batch's decision no longer holds (expired, revoked, a policy or contract
            // changed): not for this item alone, so every remaining item goes back, over a
            // new batch.
            true => {
                let (moved, _) = send_back(tx, now, (&mut l, &b), reasons, c.executor, srv)?;
                moved
                    .into_iter()
                    .find(|m| m.id == t.id)
                    .ok_or_else(|| storage("batch claim", "the item was not sent back"))?
            }
            // An earlier batch's: its other items went back already, this one goes back
            // alone, over the lineage's next batch, which a reviewer can decide.
            false => send_item_back(tx, now, (&mut l, &db.id), t, reasons, c.executor, srv)?,
        };
        tx.put_lineage(&l)?;
        return Ok(Done::Ok(ClaimOutcome::Reapproval {
            task: ops::view(task)?,
            verdict,
        }));
    }
    let checked = Checked {
        step,
        verdict,
        frozen,
        record: Some(record),
        set,
        unproven,
        proof: db.proof.clone(),
        item: Some(item),
        decider: Decider::Batch,
        revealed: None,
    };
    ev.detail = ops::detail(vec![("executor", s(c.executor)), ("batch_id", s(&db.id))]);
    conclude(tx, now, c, (t, before), ev, checked, |tx, t, ev| {
        // Totals are kept for caps (a sum only under a sum cap): without any cap they, and
        // the lineage's row, stay as read.
        let totals = match p.caps.is_empty() {
            true => None,
            false => {
                let totals = Totals::from_value(&stored(&l.totals)?)?;
                match p.caps.admit(&totals, &stored(&t.action)?) {
                    Ok(t) => Some(t),
                    Err(e) => return Ok(Err(e)),
                }
            }
        };
        let counted = count_claim(tx, now, (&mut l, &b, &p), c.executor, srv)?;
        if let Counted::Refused(e, moved) = counted {
            if moved.contains(&t.id) {
                ev.state = Some(State::AwaitingReapproval);
            }
            tx.put_lineage(&l)?;
            return Ok(Err(e));
        }
        if let Some(totals) = &totals {
            l.totals = canon(&totals.to_value());
            l.updated_at = now;
        }
        if totals.is_some() || matches!(counted, Counted::Moved) {
            tx.put_lineage(&l)?;
        }
        Ok(Ok(claimed_detail(&db, &l)))
    })
}

/// A claim of a whole all-or-nothing batch: its `actions`, presented in the batch's order.
pub(crate) struct Whole<'v, 'a> {
    pub batch_id: &'v str,
    pub actions: &'v [Value<'a>],
    pub facts: &'v Value<'a>,
    pub executor: &'v str,
    pub lease_ms: i64,
    pub budget: Option<&'v str>,
    pub proof: ProofRequirement,
}

/// claim_batch: every remaining item of an all-or-nothing batch, or none. Of an earlier batch
/// of the lineage, what remains is the items it approved last that are claimable again.
pub(crate) fn whole(
    tx: &mut dyn Tx,
    now: i64,
    w: &Whole<'_, '_>,
    srv: &Server<'_>,
) -> Result<Done<BatchClaimOutcome>> {
    let (mut l, b) = lock(tx, w.batch_id)?;
    let contract = srv.contract(&b)?;
    let p = policy_of(&contract, srv.policy)?;
    let ev = event(
        &b,
        now,
        EventKind::BatchClaimRefused,
        w.executor,
        vec![("executor", s(w.executor))],
    );
    let refusal = if semantics(&b)? != Semantics::AllOrNothing {
        Some(Error::new(
            Code::InvalidRequest,
            "a per-item batch is claimed item by item (claim_item)",
        ))
    } else if b.state != State::Approved {
        Some(Error::new(
            Code::TaskNotClaimable,
            format!(
                "the batch is {}{}: it has no approval to claim",
                b.state.as_str(),
                if l.current != b.id {
                    ", and no longer its lineage's current batch"
                } else {
                    ""
                }
            ),
        ))
    } else if breaker(&l)?.state == BreakerState::Open {
        Some(open())
    } else {
        None
    };
    if let Some(e) = refusal {
        return refuse(tx, ev, e);
    }
    let mut items = locked_items(tx, &b)?;
    if w.actions.len() != items.len() {
        let e = Error::new(
            Code::InvalidRequest,
            format!(
                "present every item's action, in the batch's order: {} items, {} actions",
                items.len(),
                w.actions.len()
            ),
        )
        .in_key("actions");
        return refuse(tx, ev, e);
    }
    // An earlier batch of the lineage is claimed for what remains of it (items claimable
    // again after it stopped being current); a trip sends back the current batch's items.
    let head;
    let current = match l.current == b.id {
        true => &b,
        false => {
            head = tx
                .batch_head(&l.current, Lock::Row)?
                .ok_or_else(|| storage("batch", format!("{:?} is missing", l.current)))?;
            &head
        }
    };
    for t in items.iter_mut() {
        expire_locked(tx, now, &mut l, current, t, &p, srv)?;
    }
    // A lapse counted just now tripped the breaker: its trip sent the remaining items back,
    // which the rows read above do not show, and the claim is refused as an open breaker's.
    if breaker(&l)?.state == BreakerState::Open {
        tx.put_lineage(&l)?;
        return refuse(tx, ev, open());
    }
    // An earlier batch's item that went back is a later batch's to claim once approved.
    let mut remaining = Vec::new();
    let mut found = Vec::new();
    for (i, row) in approved_by(tx, &b.id, &items)? {
        let (_, frozen, item) = item_of(&items[i], row)?;
        remaining.push(i);
        found.push((frozen, item));
    }
    if remaining.is_empty() {
        tx.put_lineage(&l)?;
        let e = match l.current == b.id {
            true => Error::new(Code::AlreadyClaimed, "every item of the batch was claimed"),
            false => Error::new(
                Code::TaskNotClaimable,
                "no item of the batch remains to claim, and it is no longer its lineage's \
                 current batch",
            ),
        };
        return refuse(tx, ev, e);
    }
    let (record, set, unproven) = decisions(tx, &b, &contract)?;
    let requests: Vec<ClaimRequest<'_, '_>> = remaining
        .iter()
        .map(|&i| ClaimRequest {
            task_id: &items[i].id,
            action: &w.actions[i],
            facts: w.facts,
            executor: w.executor,
            lease_ms: w.lease_ms,
            budget: w.budget,
            proof: w.proof,
        })
        .collect();
    // Every item of a batch was proposed by one proposer; a revocation marks every item.
    let revoked = remaining.iter().any(|&i| items[i].revoked_at.is_some());
    let who = (&b, items[remaining[0]].proposer.as_str(), revoked);
    let ctx = context(&requests[0], now, who, breaker(&l)?.state, srv)?;
    let pairs: Vec<(&Value<'_>, &Value<'_>)> = found
        .iter()
        .zip(&remaining)
        .map(|((_, item), &i)| (item, &w.actions[i]))
        .collect();
    let approvals = match set.is_empty() {
        true => std::slice::from_ref(&record),
        false => &set,
    };
    let verdicts = check_batch_with(approvals, &pairs, &ctx).verdicts;
    let steps: Vec<ClaimStep> = verdicts.iter().map(claim_step).collect();
    let checked =
        |k: usize, step: ClaimStep, verdict: actionseal_core::Verdict| -> Result<Checked> {
            Ok(Checked {
                step,
                verdict,
                frozen: found[k].0.clone(),
                record: Some(record.clone()),
                set: set.clone(),
                unproven,
                proof: b.proof.clone(),
                item: Some(found[k].1.clone()),
                decider: Decider::Batch,
                revealed: None,
            })
        };
    let item_event = |k: usize| {
        let mut e = refused_claim(&items[remaining[k]], now, &requests[k]);
        e.detail = ops::detail(vec![("executor", s(w.executor)), ("batch_id", s(&b.id))]);
        e
    };
    let stop = steps
        .iter()
        .any(|s| matches!(s, ClaimStep::Reject | ClaimStep::Reapprove));
    if stop || steps.contains(&ClaimStep::Drift) {
        // A drift refuses the whole claim; any other refusal stops the batch.
        let mut outcomes = Vec::new();
        for (k, (mut verdict, step)) in verdicts.into_iter().zip(steps).enumerate() {
            let step = match (stop, step) {
                (false, ClaimStep::Drift) => ClaimStep::Drift,
                (false, _) => continue,
                (true, ClaimStep::Reject | ClaimStep::Reapprove) => ClaimStep::Reject,
                (true, _) => {
                    // Stopped by another item: rejected with the others.
                    verdict.outcome = Outcome::Reject;
                    ClaimStep::Reject
                }
            };
            let t = items[remaining[k]].clone();
            let before = ops::snapshot(&t);
            let c = checked(k, step, verdict)?;
            if let Done::Ok(o) = conclude(
                tx,
                now,
                &requests[k],
                (t, before),
                item_event(k),
                c,
                |_, _, _| Ok(Ok(Vec::new())),
            )? {
                outcomes.push(o);
            }
        }
        tx.put_lineage(&l)?;
        return Ok(Done::Ok(match stop {
            true => BatchClaimOutcome::Stopped(outcomes),
            false => BatchClaimOutcome::Drift(outcomes),
        }));
    }
    if w.proof == ProofRequirement::Required && unproven {
        let e = Error::new(
            Code::MissingProof,
            "the batch's decision was recorded without proof, and this claim requires proof",
        );
        return refuse(tx, ev, e);
    }
    // The caps (totals kept only under one) and the budget over every remaining item before
    // any is claimed.
    let mut totals = Totals::from_value(&stored(&l.totals)?)?;
    let mut cost = 0i64;
    for &i in &remaining {
        if !p.caps.is_empty() {
            totals = match p.caps.admit(&totals, &stored(&items[i].action)?) {
                Ok(t) => t,
                Err(e) => return refuse(tx, ev, e.in_index(i)),
            };
        }
        cost = cost.saturating_add(items[i].cost_minor);
    }
    if let Some(name) = w.budget {
        let budget = tx.budget(name)?.ok_or_else(|| {
            Error::new(Code::BudgetNotFound, format!("no budget {name:?}")).in_key("budget")
        })?;
        if let Err(e) = reserve(
            budget.limit_minor,
            budget.spent_minor,
            budget.reserved_minor,
            cost,
        ) {
            return refuse(tx, ev, e);
        }
    }
    // The whole batch is one dispatch decision: one claim on the breaker's rate.
    if let Counted::Refused(e, _) = count_claim(tx, now, (&mut l, current, &p), w.executor, srv)? {
        tx.put_lineage(&l)?;
        return refuse(tx, ev, e);
    }
    l.totals = canon(&totals.to_value());
    tx.put_lineage(&l)?;
    let extra = claimed_detail(&b, &l);
    let mut claims = Vec::with_capacity(remaining.len());
    for (k, verdict) in verdicts.into_iter().enumerate() {
        let t = items[remaining[k]].clone();
        let before = ops::snapshot(&t);
        let c = checked(k, ClaimStep::Permit, verdict)?;
        let extra = extra.clone();
        match conclude(
            tx,
            now,
            &requests[k],
            (t, before),
            item_event(k),
            c,
            |_, _, _| Ok(Ok(extra)),
        )? {
            Done::Ok(ClaimOutcome::Claimed(claim, _)) => claims.push(claim),
            // Checked above: an item refused now would leave the others claimed.
            _ => {
                return Err(storage(
                    "batch claim",
                    "an item's claim was refused after its checks",
                ))
            }
        }
    }
    Ok(Done::Ok(BatchClaimOutcome::Claimed(claims)))
}
