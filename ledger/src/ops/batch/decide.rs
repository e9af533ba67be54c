//! decide a batch: one decision over the batch digest, recorded once per decision id (the
//! ledger's decision table, as for a task). Approving moves every selected item to
//! `approved`, each with the batch's record and its own inclusion proof; rejecting moves them
//! to `rejected`; either way the items the reviewer deselected end `rejected`. Approving the
//! remainder of a tripped lineage half-opens its breaker.

use super::outcome::{breaker, transit, Cause};
use super::Server;
use super::{event, ids, lock_by_approval, locked_items, rebuild, refuse, text_digest, view};
use crate::json::{canon, n, s, stored};
use crate::model::BatchDecided;
use crate::ops;
use crate::store::{Done, ItemRow, Tx};
use actionseal_core::batch::BatchDecision;
use actionseal_core::ledger::{next, BatchEnvelope, EventKind, Op, Snapshot, State};
use actionseal_core::{Code, Decision, Error, Result};

pub(crate) fn run(
    tx: &mut dyn Tx,
    now: i64,
    d: &BatchEnvelope,
    srv: &Server<'_>,
) -> Result<Done<BatchDecided>> {
    let (mut l, mut b) = lock_by_approval(tx, &d.approval_id)?;
    let envelope = canon(&d.to_value());
    let mut ev = event(
        &b,
        now,
        EventKind::BatchDecisionRefused,
        &d.approver,
        vec![
            ("approval_id", s(&d.approval_id)),
            ("decision", s(d.decision.as_str())),
            ("presented_digest", s(&d.batch_digest.to_string())),
        ],
    );
    ev.decision_id = Some(d.decision_id.clone());
    if let Some(recorded) = tx.decision(&d.decision_id)? {
        if recorded != envelope {
            let e = Error::new(
                Code::DecisionConflict,
                format!(
                    "decision {:?} was already recorded with other content",
                    d.decision_id
                ),
            )
            .in_key("decision_id");
            return refuse(tx, ev, e);
        }
        // A repeated delivery: record that it came, change nothing.
        ev.kind = EventKind::BatchDecisionDuplicate;
        tx.append(ev);
        let items = locked_items(tx, &b)?;
        return Ok(Done::Ok(BatchDecided {
            batch: view(&b, &l, &items)?,
            duplicate: true,
            signer: None,
        }));
    }
    if d.batch_id != b.id || !d.batch_digest.ct_eq(&b.digest) {
        let (key, what) = match d.batch_id == b.id {
            true => (
                "batch_digest",
                "batch document (the reviewer saw another selection)",
            ),
            false => ("batch_id", "batch"),
        };
        let e = Error::new(
            Code::DecisionMismatch,
            format!("the decision is about another {what} than the batch's"),
        )
        .in_key(key);
        return refuse(tx, ev, e);
    }
    let before = Snapshot {
        state: b.state,
        fence: 0,
        lease_until: None,
    };
    let state = match next(&before, Op::Decide(d.decision), now) {
        Ok(state) => state,
        Err(e) => return refuse(tx, ev, e.in_key("approval_id")),
    };
    // The batch began awaiting this decision at its proposal or its last deselection.
    if let Err(e) = d.check_time(b.updated_at, now) {
        return refuse(tx, ev, e);
    }
    let mut items = locked_items(tx, &b)?;
    let batch = rebuild(&b, &srv.contract(&b)?, &items)?;
    let proposed = (!b.proposed_digest.ct_eq(&b.digest)).then_some(b.proposed_digest);
    let record = BatchDecision::decide(batch.header(), &d.input(proposed))?;
    if !tx.insert_decision(&d.decision_id, &d.approval_id, &envelope, now)? {
        let e = Error::new(
            Code::DecisionConflict,
            format!("decision {:?} was already recorded", d.decision_id),
        )
        .in_key("decision_id");
        return refuse(tx, ev, e);
    }
    let record_text = canon(record.value());
    b.state = state;
    b.decision_id = Some(d.decision_id.clone());
    b.record = Some(record_text.clone());
    b.updated_at = now;
    tx.put_batch(&b)?;
    for (i, t) in items.iter_mut().enumerate() {
        let before = ops::snapshot(t);
        t.state = next(&before, Op::Decide(d.decision), now)?;
        t.approval = Some(record_text.clone());
        t.proof = None;
        t.updated_at = now;
        ops::save(tx, t, &before)?;
        if d.decision == Decision::Approved {
            let proof = batch
                .proof(i as u64)
                .ok_or_else(|| crate::store::storage("batch", "an item has no proof"))?;
            let item = tx
                .item(&t.id)?
                .ok_or_else(|| crate::store::storage("batch item", "its row is missing"))?;
            tx.put_item(&ItemRow {
                batch: Some(b.id.clone()),
                proof: Some(canon(&proof.to_value())),
                ..item
            })?;
        }
        let mut e = ops::event(t, now, EventKind::Decided, &d.approver);
        e.decision_id = Some(d.decision_id.clone());
        e.approved_digest = Some(b.digest);
        e.outcome = Some(d.decision.as_str().to_owned());
        let mut entries = vec![
            ("approval_id", crate::json::opt_s(t.approval_id.as_deref())),
            ("decision", s(d.decision.as_str())),
            ("approver", s(&d.approver)),
            ("decided_at", n(d.decided_at)),
            ("expires_at", n(d.expires_at)),
            ("batch_id", s(&b.id)),
            ("batch_approval_id", s(&b.approval_id)),
            ("batch_digest", s(&b.digest.to_string())),
        ];
        entries.extend(proposed.map(|p| ("proposed_digest", s(&p.to_string()))));
        e.detail = ops::detail(entries);
        tx.append(e);
    }
    deselected(tx, now, &b, &d.approver)?;
    let mut e = event(
        &b,
        now,
        EventKind::BatchDecided,
        &d.approver,
        vec![
            ("approval_id", s(&d.approval_id)),
            ("decision", s(d.decision.as_str())),
            ("approver", s(&d.approver)),
            ("decided_at", n(d.decided_at)),
            ("expires_at", n(d.expires_at)),
            ("record_digest", text_digest(&record_text)),
        ],
    );
    e.decision_id = Some(d.decision_id.clone());
    e.approved_digest = Some(b.digest);
    e.outcome = Some(d.decision.as_str().to_owned());
    tx.append(e);
    // A reviewer's approval of a tripped lineage's remainder half-opens its breaker.
    if d.decision == Decision::Approved && l.current == b.id {
        let mut br = breaker(&l)?;
        let transition = br.on_redecided();
        l.breaker = canon(&br.to_value());
        l.updated_at = now;
        let cause = Cause {
            task: None,
            actor: &d.approver,
        };
        transit(tx, now, (&mut l, &b), transition, cause, srv)?;
        tx.put_lineage(&l)?;
    }
    Ok(Done::Ok(BatchDecided {
        batch: view(&b, &l, &items)?,
        duplicate: false,
        signer: None,
    }))
}

/// Ends every item the reviewer deselected from `b` (listed as proposed, no longer
/// selected, still awaiting) `rejected`, each with a `deselected` event.
fn deselected(tx: &mut dyn Tx, now: i64, b: &crate::store::BatchRow, reviewer: &str) -> Result<()> {
    let selected = ids(&b.items)?;
    for id in ids(&b.proposed_items)? {
        if selected.contains(&id) {
            continue;
        }
        let mut t = ops::locked_task(tx, &id)?;
        let before = ops::snapshot(&t);
        if !matches!(t.state, State::AwaitingApproval | State::AwaitingReapproval) {
            continue;
        }
        t.state = next(&before, Op::Decide(Decision::Rejected), now)?;
        t.updated_at = now;
        ops::save(tx, &t, &before)?;
        let mut e = ops::event(&t, now, EventKind::Deselected, reviewer);
        e.outcome = Some(Decision::Rejected.as_str().to_owned());
        e.detail = ops::detail(vec![("batch_id", s(&b.id))]);
        tx.append(e);
    }
    Ok(())
}

/// The stored decision record of `b`, read.
pub(crate) fn record(b: &crate::store::BatchRow) -> Result<Option<actionseal_core::OwnedValue>> {
    b.record
        .as_deref()
        .map(|r| stored(r).map(actionseal_core::Value::into_owned))
        .transpose()
}
