//! decide a batch: one decision over the batch digest, recorded once per decision id (the
//! ledger's decision table, as for a task). Approving moves every selected item to
//! `approved`, each with the batch's record and its own inclusion proof; rejecting moves them
//! to `rejected`; either way the items the reviewer deselected end `rejected`. Approving the
//! remainder of a tripped lineage half-opens its breaker.
//!
//! A proven decision (a signed or passkey-approved batch record) is taken as a task's is
//! (`ops::decide`): verified before the transaction, the record rebuilt here and compared
//! byte for byte, the passkey's counter moved, the proof kept on the batch and in the
//! `batch_decided` event with its time-stamp. A delegation's chain must hold for every item.
//!
//! Under a quorum each member's decision binds the batch digest and is a row of the batch's
//! round (its approval id), as a task's is: a `batch_decided` event naming whom it counted as;
//! the batch and its items stay awaiting until the decision that meets the quorum (or vetoes
//! the round) decides them with its record. Each item records every member's decision as a
//! task's round does (a `decided` event naming `counted_as`, then the meeting member's
//! `quorum_met`), so that its own evidence holds the whole round. Claims check the round's
//! records as a set.

use super::outcome::{awaits_no_one, breaker, send_approved_back, transit, Cause};
use super::Server;
use super::{event, ids, lock_by_approval, locked_items, rebuild, refuse, text_digest, view};
use crate::json::{canon, n, opt_s, s, stored};
use crate::model::BatchDecided;
use crate::ops;
use crate::ops::decide::{kept_proof, proven_entries, sign_count};
use crate::ops::quorum::{check_duties, state_of};
use crate::store::{Done, ItemRow, RoundDecisionRow, TaskRow, Tx};
use actionseal_core::batch::BatchDecision;
use actionseal_core::ledger::{
    next, BatchEnvelope, Envelope, EventKind, Op, Presented, Snapshot, State,
};
use actionseal_core::{
    Code, Contract, Decision, Duty, Error, OwnedValue, QuorumState, Reason, Result, Value, Veto,
};

pub(crate) fn run(
    tx: &mut dyn Tx,
    now: i64,
    p: &Presented<BatchEnvelope>,
    token: Option<&[u8]>,
    srv: &Server<'_>,
) -> Result<Done<BatchDecided>> {
    let d = p.envelope();
    // Who signed, for every event about a proven delivery (names only, never key material).
    let signer = p.proven().map(|v| v.signer().to_value());
    let (mut l, mut b) = lock_by_approval(tx, &d.approval_id)?;
    let envelope = canon(&d.to_value());
    let mut refused = vec![
        ("approval_id", s(&d.approval_id)),
        ("decision", s(d.decision.as_str())),
        ("presented_digest", s(&d.batch_digest.to_string())),
    ];
    refused.extend(signer.clone().map(|v| ("signer", v)));
    let mut ev = event(
        &b,
        now,
        EventKind::BatchDecisionRefused,
        &d.approver,
        refused,
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
            signer,
        }));
    }
    // A proven decision names no batch id: its approval id found the batch.
    let same_batch = d.batch_id.as_ref().is_none_or(|id| *id == b.id);
    if !same_batch || !d.batch_digest.ct_eq(&b.digest) {
        let (key, what) = match same_batch {
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
    let actions = items
        .iter()
        .map(|t| stored(&t.action).map(Value::into_owned))
        .collect::<Result<Vec<_>>>()?;
    // One decision covers every item: a chain it was made through must cover each.
    let delegates = match d.check_chain(&actions, now) {
        Ok(delegates) => delegates,
        Err(e) => return refuse(tx, ev, e),
    };
    let contract = srv.contract(&b)?;
    if let Err(e) = check_separate(&items, &actions, d, &delegates, &contract) {
        return refuse(tx, ev, e);
    }
    let batch = rebuild(&b, &contract, &items)?;
    let proposed = (!b.proposed_digest.ct_eq(&b.digest)).then_some(b.proposed_digest);
    let record = BatchDecision::decide(batch.header(), &d.input(proposed))?;
    if let Some(proven) = p.proven() {
        if let Err(e) = proven.check_built(&record) {
            return refuse(tx, ev, e);
        }
        if let Err(e) = sign_count(tx, now, proven) {
            return refuse(tx, ev, e);
        }
    }
    // Under a quorum, the round's members so far: each counting identity counts once.
    let members = match contract.quorum() {
        None => None,
        Some(_) => match round_members(tx, d) {
            Ok(rows) => Some(rows),
            Err(e) => return refuse(tx, ev, e),
        },
    };
    if !tx.insert_decision(&d.decision_id, &d.approval_id, &envelope, now)? {
        let e = Error::new(
            Code::DecisionConflict,
            format!("decision {:?} was already recorded", d.decision_id),
        )
        .in_key("decision_id");
        return refuse(tx, ev, e);
    }
    let record_text = canon(record.value());
    let proof = p.proven().map(kept_proof);
    let round = match members {
        None => None,
        Some(rows) => Some(count(tx, now, d, rows, (&record_text, &proof), &contract)?),
    };
    let proven = proven_entries(p, token);
    if let Some(Round::Pending) = round {
        // The round goes on: the batch and its items await the rest of it. Each item records
        // the member's decision too, so that its own evidence holds the whole round.
        for t in &items {
            let e = item_decided(t, now, (d, &b), proposed, &proven, &round);
            tx.append(e);
        }
        let mut entries = decided_entries(d, &record_text, &round);
        entries.extend(proven.iter().cloned());
        let mut e = event(&b, now, EventKind::BatchDecided, &d.approver, entries);
        e.decision_id = Some(d.decision_id.clone());
        e.approved_digest = Some(b.digest);
        e.outcome = Some(d.decision.as_str().to_owned());
        tx.append(e);
        let items = locked_items(tx, &b)?;
        return Ok(Done::Ok(BatchDecided {
            batch: view(&b, &l, &items)?,
            duplicate: false,
            signer,
        }));
    }
    b.state = state;
    b.decision_id = Some(d.decision_id.clone());
    b.record = Some(record_text.clone());
    b.proof = proof;
    b.updated_at = now;
    tx.put_batch(&b)?;
    // Each item's decided event says who proved the decision, as a task's does, so that the
    // item's own evidence verifies the signer without the batch's events.
    for (i, t) in items.iter_mut().enumerate() {
        let before = ops::snapshot(t);
        t.state = next(&before, Op::Decide(d.decision), now)?;
        t.approval = Some(record_text.clone());
        t.proof = b.proof.clone();
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
        let mut e = item_decided(t, now, (d, &b), proposed, &proven, &round);
        match &round {
            // The member that meets the quorum leaves the item as it found it: its
            // quorum_met event, next, approves it, as a task's does.
            Some(Round::Met(q)) => {
                e.state = Some(before.state);
                let met = ops::decide::quorum_met(&e, t, q);
                tx.append(e);
                tx.append(met);
            }
            _ => tx.append(e),
        }
    }
    deselected(tx, now, &b, &d.approver)?;
    let mut entries = decided_entries(d, &record_text, &round);
    entries.extend(proven);
    let mut e = event(&b, now, EventKind::BatchDecided, &d.approver, entries);
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
    // Rejected, the remainder leaves its lineage's breaker open with nothing to half-open it:
    // items claimable again meanwhile (reconciled not executed) go back to a reviewer.
    if d.decision == Decision::Rejected && awaits_no_one(&l, &b)? {
        let reasons = [Reason::BreakerOpen];
        send_approved_back(tx, now, &mut l, &reasons, &d.approver, srv)?;
        tx.put_lineage(&l)?;
    }
    Ok(Done::Ok(BatchDecided {
        batch: view(&b, &l, &items)?,
        duplicate: false,
        signer,
    }))
}

/// What a member's decision did to its batch's round under a quorum.
enum Round {
    /// The quorum is not met yet: the batch awaits the rest of the round.
    Pending,
    /// This approval met the quorum, as counted: the batch is approved by it.
    Met(QuorumState),
    /// This rejection vetoed the round: the batch is rejected by it.
    Vetoed,
}

/// The members of `d`'s round so far, or the refusal of an approver who already decided in it.
fn round_members(tx: &mut dyn Tx, d: &BatchEnvelope) -> Result<Vec<RoundDecisionRow>> {
    let rows = tx.round_decisions(&d.approval_id)?;
    if rows.iter().any(|r| r.counted_as == d.counting_identity()) {
        let key = match d.on_behalf_of {
            Some(_) => "on_behalf_of",
            None => "approver",
        };
        return Err(Error::new(
            Code::ApproverAlreadyDecided,
            format!(
                "{:?} already decided in round {:?}: each approver counts once",
                d.counting_identity(),
                d.approval_id
            ),
        )
        .in_key(key));
    }
    Ok(rows)
}

/// Records `d` (its record and kept proof) as the next member of its batch's round, and what
/// that did: the quorum met by an approval, the round vetoed by a rejection (as the contract
/// says), or neither.
fn count(
    tx: &mut dyn Tx,
    now: i64,
    d: &BatchEnvelope,
    mut rows: Vec<RoundDecisionRow>,
    (record, proof): (&str, &Option<String>),
    contract: &Contract,
) -> Result<Round> {
    let row = RoundDecisionRow {
        approval_id: d.approval_id.clone(),
        n: i64::try_from(rows.len())
            .unwrap_or(i64::MAX)
            .saturating_add(1),
        decision_id: d.decision_id.clone(),
        counted_as: d.counting_identity().to_owned(),
        role: d.role.clone(),
        decision: d.decision.as_str().to_owned(),
        record: record.to_owned(),
        proof: proof.clone(),
        decided_at: d.decided_at,
        recorded_at: now,
    };
    tx.insert_round_decision(&row)?;
    rows.push(row);
    let q = state_of(contract, &rows)?
        .ok_or_else(|| crate::store::storage("quorum", "the contract lost its quorum"))?;
    let veto = contract.quorum().map(|q| q.veto);
    Ok(match d.decision {
        Decision::Rejected if veto == Some(Veto::AnyRejection) => Round::Vetoed,
        Decision::Approved if q.missing == 0 => Round::Met(q),
        _ => Round::Pending,
    })
}

/// The `batch_decided` event's detail for `d` (its record `record`): under a quorum, the
/// identity it counted as and its role, which hold the round's row to it.
fn decided_entries(
    d: &BatchEnvelope,
    record: &str,
    round: &Option<Round>,
) -> Vec<(&'static str, OwnedValue)> {
    let mut entries = vec![
        ("approval_id", s(&d.approval_id)),
        ("decision", s(d.decision.as_str())),
        ("approver", s(&d.approver)),
        ("decided_at", n(d.decided_at)),
        ("expires_at", n(d.expires_at)),
        ("record_digest", text_digest(record)),
    ];
    if round.is_some() {
        entries.push(("counted_as", s(d.counting_identity())));
        entries.push(("role", opt_s(d.role.as_deref())));
    }
    entries
}

/// Item `t`'s `decided` event for the batch decision `d` about `b` (the model's proposal
/// `proposed`, proven by `proven`): the item's own approval id beside the batch's, and
/// under a quorum whom the decision counted as, as a task's member event names it. Its
/// state is the item's as it is now.
fn item_decided(
    t: &TaskRow,
    now: i64,
    (d, b): (&BatchEnvelope, &crate::store::BatchRow),
    proposed: Option<actionseal_core::Digest>,
    proven: &[(&'static str, OwnedValue)],
    round: &Option<Round>,
) -> actionseal_core::ledger::Event {
    let mut e = ops::event(t, now, EventKind::Decided, &d.approver);
    e.decision_id = Some(d.decision_id.clone());
    e.approved_digest = Some(b.digest);
    e.outcome = Some(d.decision.as_str().to_owned());
    let mut entries = vec![
        ("approval_id", opt_s(t.approval_id.as_deref())),
        ("decision", s(d.decision.as_str())),
        ("approver", s(&d.approver)),
        ("decided_at", n(d.decided_at)),
        ("expires_at", n(d.expires_at)),
        ("batch_id", s(&b.id)),
        ("batch_approval_id", s(&b.approval_id)),
        ("batch_digest", s(&b.digest.to_string())),
    ];
    entries.extend(proposed.map(|p| ("proposed_digest", s(&p.to_string()))));
    if round.is_some() {
        entries.push(("counted_as", s(d.counting_identity())));
        entries.push(("role", opt_s(d.role.as_deref())));
    }
    entries.extend(proven.iter().cloned());
    e.detail = ops::detail(entries);
    e
}

/// The contract's separation of duties over a batch: its decider (and every delegate along
/// the chain) is none of its items' subjects, and not whoever proposed its items (the
/// ledger's record; a remainder's items keep their first proposer). Who deselected items is
/// not recorded apart from the audit, so a contract that lists `amender` is refused batches
/// when they are proposed.
fn check_separate(
    items: &[TaskRow],
    actions: &[OwnedValue],
    d: &BatchEnvelope,
    delegates: &[String],
    contract: &Contract,
) -> Result<()> {
    check_duties(d, delegates, contract, |duty| match duty {
        Duty::Subject => Ok((
            "an item's subject",
            actions
                .iter()
                .filter_map(|a| a.as_object()?.get("subject")?.as_str().map(str::to_owned))
                .collect(),
        )),
        Duty::Proposer => Ok((
            "the items' proposer",
            items.iter().map(|t| t.proposer.clone()).collect(),
        )),
        Duty::Amender => Err(crate::ops::batch::amender_not_allowed()),
    })
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
