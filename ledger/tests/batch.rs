//! Batches (issue 28) on both engines: a batch proposed, deselected, decided once and claimed
//! item by item or whole; the caps over a lineage; the breaker's trip, re-approval of the
//! remainder, half-open and close; the plain task operations refused on items; the audit
//! replaying all of it, and catching a batch row or lineage row changed behind its back.

mod common;

use actionseal_core::batch::Semantics;
use actionseal_core::ledger::{Observed, Reported, State};
use actionseal_core::{Code, OwnedValue};
use actionseal_ledger::{
    Batch, BatchClaimOutcome, BatchClaimRequest, ClaimOutcome, ClaimRequest, Ledger, ManualClock,
};
use common::*;

/// An approval (or rejection) of `b` as it is now, by user:bob.
fn batch_decision(b: &Batch, decision_id: &str, verdict: &str, at: i64) -> OwnedValue {
    json(&format!(
        r#"{{"approval_id": "{}", "decision_id": "{decision_id}", "batch_id": "{}",
            "batch_digest": "{}", "decision": "{verdict}", "approver": "user:bob",
            "decided_at": {at}, "expires_at": {}}}"#,
        b.approval_id,
        b.id,
        b.digest,
        at + HOUR
    ))
}

/// `actions` proposed as one batch under `contract` and approved at once by user:bob with
/// decision `decision_id`: the batch as its decision left it.
fn approved_batch(
    l: &Ledger,
    actions: &[OwnedValue],
    contract: &OwnedValue,
    semantics: Semantics,
    decision_id: &str,
) -> Batch {
    let b = l
        .propose_batch(actions, contract, semantics, "agent")
        .unwrap();
    l.decide_batch(&batch_decision(&b, decision_id, "approved", l.now()))
        .unwrap()
        .batch
}

fn claim<'v, 'a>(
    task: &'v str,
    action: &'v OwnedValue,
    facts: &'v OwnedValue,
) -> ClaimRequest<'v, 'a>
where
    'v: 'a,
{
    ClaimRequest {
        task_id: task,
        action,
        facts,
        executor: "worker",
        lease_ms: HOUR,
        budget: None,
        proof: Default::default(),
    }
}

fn items(b: &Batch) -> Vec<String> {
    b.items.iter().map(|(id, _)| id.clone()).collect()
}

fn states(l: &Ledger, ids: &[String]) -> Vec<State> {
    ids.iter().map(|id| l.task(id).unwrap().state).collect()
}

fn verified(l: &Ledger) {
    let report = l.audit_verify().unwrap();
    assert!(report.broken.is_none(), "{:?}", report.broken);
}

fn event_kinds(l: &Ledger) -> Vec<String> {
    audit_events(l)
        .iter()
        .map(|e| str_field(e, "kind").to_owned())
        .collect()
}

#[test]
fn a_per_item_batch_is_deselected_decided_once_and_claimed_item_by_item() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-1", 5);
        let b = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "agent")
            .unwrap();
        assert_eq!(b.state, State::AwaitingApproval);
        let ids = items(&b);
        assert_eq!(states(&l, &ids), vec![State::AwaitingApproval; 5]);
        // The same batch again is the same batch.
        let again = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "agent")
            .unwrap();
        assert_eq!((again.id.as_str(), again.digest), (b.id.as_str(), b.digest));

        // The reviewer deselects item 1: a new digest, the proposal kept.
        let amend = json(&format!(
            r#"{{"batch_id": "{}", "amends": "{}", "deselect": [1], "reviewer": "user:bob",
                "reason": "order-1 was refunded by phone"}}"#,
            b.id, b.digest
        ));
        let a = l.amend_batch(&amend).unwrap();
        assert_ne!(a.digest, b.digest);
        assert_eq!(a.proposed_digest, b.digest);
        assert_eq!(a.items.len(), 4);
        // A decision about the digest the reviewer no longer holds is refused.
        let stale = l.decide_batch(&batch_decision(&b, "dec-0", "approved", l.now()));
        assert_eq!(stale.unwrap_err().code(), Code::DecisionMismatch);
        let at = l.now();
        let d = l
            .decide_batch(&batch_decision(&a, "dec-1", "approved", at))
            .unwrap();
        assert_eq!(d.batch.state, State::Approved);
        let dup = l
            .decide_batch(&batch_decision(&a, "dec-1", "approved", at))
            .unwrap();
        assert!(dup.duplicate);
        assert_eq!(
            states(&l, &ids),
            vec![
                State::Approved,
                State::Rejected,
                State::Approved,
                State::Approved,
                State::Approved
            ]
        );

        // A plain claim of an item is refused; the batch's claim checks the item.
        let f = facts(&contract);
        let plain = l.claim(&claim(&ids[0], &actions[0], &f)).unwrap_err();
        assert_eq!(plain.code(), Code::BatchItem);
        // A presented action that drifted from the frozen item: refused, nothing claimed.
        let drifted = refunds(&contract, "job-1", 5)
            .into_iter()
            .map(|a| {
                let text = actionseal_core::canonicalize(&a)
                    .replace("\"amount_minor\":100", "\"amount_minor\":900");
                json(&text)
            })
            .collect::<Vec<_>>();
        let out = l.claim_item(&claim(&ids[0], &drifted[0], &f)).unwrap();
        assert_eq!(out.result(), "tool_args_drift");
        for i in [0, 2, 3, 4] {
            let ClaimOutcome::Claimed(c, _) =
                l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap()
            else {
                panic!("item {i} not claimed");
            };
            // The executor gets the item and its proof beside the batch's record.
            let item = c.item.as_ref().unwrap();
            let proof =
                actionseal_core::batch::ItemProof::from_value(field(item, "proof")).unwrap();
            let header = actionseal_core::batch::Header::from_value(field(
                c.approval.as_ref().unwrap(),
                "batch",
            ))
            .unwrap();
            actionseal_core::batch::verify_item(&header, field(item, "action"), &proof).unwrap();
            let again = l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap_err();
            assert_eq!(again.code(), Code::AlreadyClaimed);
            l.complete_item(&ids[i], c.fence, Reported::Succeeded, None, "worker")
                .unwrap();
        }
        // The deselected item was never claimable.
        let refused = l.claim_item(&claim(&ids[1], &actions[1], &f)).unwrap_err();
        assert_eq!(refused.code(), Code::TaskNotClaimable);
        let shown = l.batch(&a.id).unwrap();
        assert_eq!(
            actionseal_core::canonicalize(field(&shown.totals, "sum")),
            "400"
        );
        verified(&l);
    }
}

#[test]
fn an_all_or_nothing_batch_is_claimed_whole_or_not_at_all() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-2", 3);
        let b = approved_batch(&l, &actions, &contract, Semantics::AllOrNothing, "dec-2");
        let ids = items(&b);
        let f = facts(&contract);
        let one = l.claim_item(&claim(&ids[0], &actions[0], &f)).unwrap_err();
        assert_eq!(one.code(), Code::BatchAllOrNothing);
        let request = |actions: &'_ [OwnedValue]| -> BatchClaimOutcome {
            l.claim_batch(&BatchClaimRequest {
                batch_id: &b.id,
                actions,
                facts: &f,
                executor: "worker",
                lease_ms: HOUR,
                budget: None,
                proof: Default::default(),
            })
            .unwrap()
        };
        // One item drifted: nothing is claimed, nothing changes.
        let mut drifted = actions.clone();
        drifted[2] = refunds(&contract, "job-2", 3)[1].clone();
        assert_eq!(request(&drifted).result(), "tool_args_drift");
        assert_eq!(states(&l, &ids), vec![State::Approved; 3]);
        let BatchClaimOutcome::Claimed(claims) = request(&actions) else {
            panic!("not claimed")
        };
        assert_eq!(claims.len(), 3);
        assert_eq!(states(&l, &ids), vec![State::Claimed; 3]);
        for c in claims {
            l.complete_item(&c.task_id, c.fence, Reported::Succeeded, None, "worker")
                .unwrap();
        }
        verified(&l);

        // A batch whose decision ran out is stopped: every item rejected before dispatch.
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let actions = refunds(&contract, "job-3", 3);
        let b = approved_batch(&l, &actions, &contract, Semantics::AllOrNothing, "dec-3");
        clock.advance(2 * HOUR).unwrap();
        let out = l
            .claim_batch(&BatchClaimRequest {
                batch_id: &b.id,
                actions: &actions,
                facts: &f,
                executor: "worker",
                lease_ms: HOUR,
                budget: None,
                proof: Default::default(),
            })
            .unwrap();
        assert_eq!(out.result(), "stopped");
        assert_eq!(states(&l, &items(&b)), vec![State::RejectedPreDispatch; 3]);
        verified(&l);
    }
}

#[test]
fn the_breaker_trips_the_remainder_waits_and_a_new_decision_half_opens_it() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-4", 8);
        let b = approved_batch(&l, &actions, &contract, Semantics::PerItem, "dec-4");
        let ids = items(&b);
        let f = facts(&contract);
        let mut fences = Vec::new();
        for i in 0..4 {
            let ClaimOutcome::Claimed(c, _) =
                l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap()
            else {
                panic!("not claimed")
            };
            fences.push(c.fence);
        }
        // Plain completion of an item is refused: it would skip the breaker.
        let plain = l.complete(&ids[0], fences[0], Reported::Failed, None, "worker");
        assert_eq!(plain.unwrap_err().code(), Code::BatchItem);
        l.complete_item(&ids[0], fences[0], Reported::Failed, None, "worker")
            .unwrap();
        l.complete_item(&ids[1], fences[1], Reported::Unknown, None, "worker")
            .unwrap();
        assert_eq!(
            l.batch(&b.id)
                .unwrap()
                .breaker
                .as_object()
                .unwrap()
                .get("state")
                .unwrap()
                .as_str(),
            Some("closed")
        );
        l.complete_item(&ids[2], fences[2], Reported::Failed, None, "worker")
            .unwrap();
        // Tripped: the four unclaimed items wait for a reviewer, over a new batch.
        let tripped = l.batch(&b.id).unwrap();
        assert!(!tripped.current);
        assert_eq!(states(&l, &ids[4..]), vec![State::AwaitingReapproval; 4]);
        assert_eq!(
            event_kinds(&l)
                .iter()
                .filter(|k| *k == "breaker_tripped")
                .count(),
            1
        );
        let refused = l.claim_item(&claim(&ids[4], &actions[4], &f)).unwrap_err();
        assert_eq!(refused.code(), Code::TaskNotClaimable);
        // The claim already out completes; the lapse of another is counted, nothing re-trips.
        l.complete_item(&ids[3], fences[3], Reported::Succeeded, None, "worker")
            .unwrap();
        l.reconcile_item(&ids[1], Observed::NotExecuted, None, "ops")
            .unwrap();
        // The remainder: a batch of the same lineage over the four.
        let lineage = l.batch(&b.id).unwrap().lineage;
        let r = last_batch(&l);
        assert_eq!(
            (r.lineage.as_str(), r.items.len(), r.current),
            (lineage.as_str(), 4, true)
        );
        let r = l
            .decide_batch(&batch_decision(&r, "dec-5", "approved", l.now()))
            .unwrap()
            .batch;
        assert_eq!(
            r.breaker
                .as_object()
                .unwrap()
                .get("state")
                .unwrap()
                .as_str(),
            Some("half_open")
        );
        for i in 4..6 {
            let ClaimOutcome::Claimed(c, _) =
                l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap()
            else {
                panic!("not claimed")
            };
            l.complete_item(&ids[i], c.fence, Reported::Succeeded, None, "worker")
                .unwrap();
        }
        let closed = l.batch(&r.id).unwrap();
        assert_eq!(
            closed
                .breaker
                .as_object()
                .unwrap()
                .get("state")
                .unwrap()
                .as_str(),
            Some("closed")
        );
        let kinds = event_kinds(&l);
        for k in ["breaker_tripped", "breaker_half_opened", "breaker_closed"] {
            assert_eq!(kinds.iter().filter(|x| *x == k).count(), 1, "{k}");
        }
        verified(&l);
    }
}

#[test]
fn a_changed_batch_or_lineage_row_breaks_the_audit() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-6", 3);
        let b = approved_batch(&l, &actions, &contract, Semantics::PerItem, "dec-6");
        let ids = items(&b);
        let f = facts(&contract);
        let ClaimOutcome::Claimed(..) = l.claim_item(&claim(&ids[0], &actions[0], &f)).unwrap()
        else {
            panic!("not claimed")
        };
        verified(&l);
        let broken = |sql: &str, field: &str| {
            db.sql(sql);
            let report = l.audit_verify().unwrap();
            let got = report.broken.as_ref().and_then(|b| b.field);
            assert_eq!(got, Some(field), "{sql}: {:?}", report.broken);
        };
        // The totals rewound (the cap would admit more), then restored.
        let totals = db.texts("SELECT totals FROM ledger_batch_lineages")[0][0]
            .clone()
            .unwrap();
        broken(
            "UPDATE ledger_batch_lineages SET totals = '{\"count\":0,\"sum\":0,\"targets\":[]}'",
            "lineages/totals",
        );
        db.sql(&format!(
            "UPDATE ledger_batch_lineages SET totals = '{totals}'"
        ));
        verified(&l);
        // A batch moved back to awaiting its decision.
        broken(
            "UPDATE ledger_batches SET state = 'awaiting_approval'",
            "batches/state",
        );
        db.sql("UPDATE ledger_batches SET state = 'approved'");
        verified(&l);
        // An item's claim rolled back on its row is the task's own mismatch.
        db.sql(&format!(
            "UPDATE ledger_tasks SET state = 'approved' WHERE id = '{}'",
            ids[0]
        ));
        assert!(l.audit_verify().unwrap().broken.is_some());
    }
}

#[test]
fn a_bare_batch_decision_is_refused_where_proof_is_required() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        // A ledger that requires proof takes no bare batch decision.
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-8", 2);
        let b = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "agent")
            .unwrap();
        let options = actionseal_ledger::LedgerOptions {
            proof: Some(actionseal_core::ProofPolicy::new(
                true,
                actionseal_core::KeySet::default(),
            )),
            ..Default::default()
        };
        let strict = Ledger::open_with(&db.url, options).unwrap();
        let e = strict
            .decide_batch(&batch_decision(&b, "dec-8", "approved", strict.now()))
            .unwrap_err();
        assert_eq!(e.code(), Code::MissingProof);
        assert_eq!(strict.batch(&b.id).unwrap().state, State::AwaitingApproval);
        verified(&strict);
    }
}

#[test]
fn an_expired_batch_decision_sends_every_remaining_item_back_over_a_new_batch() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-9", 3);
        let b = approved_batch(&l, &actions, &contract, Semantics::PerItem, "dec-9");
        let ids = items(&b);
        let f = facts(&contract);
        let ClaimOutcome::Claimed(..) = l.claim_item(&claim(&ids[0], &actions[0], &f)).unwrap()
        else {
            panic!("not claimed")
        };
        clock.advance(2 * HOUR).unwrap();
        let out = l.claim_item(&claim(&ids[1], &actions[1], &f)).unwrap();
        assert_eq!(out.result(), "awaiting_reapproval");
        // Not the one item alone: both unclaimed items wait, over a batch of their own.
        assert_eq!(
            states(&l, &ids),
            vec![
                State::Claimed,
                State::AwaitingReapproval,
                State::AwaitingReapproval
            ]
        );
        let r = last_batch(&l);
        assert_eq!((r.items.len(), r.current), (2, true));
        let r = l
            .decide_batch(&batch_decision(&r, "dec-10", "approved", l.now()))
            .unwrap()
            .batch;
        assert_eq!(
            r.breaker
                .as_object()
                .unwrap()
                .get("state")
                .unwrap()
                .as_str(),
            Some("closed")
        );
        let ClaimOutcome::Claimed(..) = l.claim_item(&claim(&ids[1], &actions[1], &f)).unwrap()
        else {
            panic!("not claimed after the new decision")
        };
        verified(&l);
    }
}

#[test]
fn a_claim_over_the_rate_trips_the_breaker_and_is_refused() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let text = actionseal_core::canonicalize(&batch_contract(100_000)).replace(
            r#""close_after":2"#,
            r#""close_after":2,"max_claims_per_minute":2"#,
        );
        let contract = json(&text);
        let actions = refunds(&contract, "job-11", 4);
        let b = approved_batch(&l, &actions, &contract, Semantics::PerItem, "dec-11");
        let ids = items(&b);
        let f = facts(&contract);
        for i in 0..2 {
            let ClaimOutcome::Claimed(..) = l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap()
            else {
                panic!("not claimed")
            };
        }
        // The third claim within the minute: refused, and the breaker opens on it.
        let e = l.claim_item(&claim(&ids[2], &actions[2], &f)).unwrap_err();
        assert_eq!(e.code(), Code::BreakerOpen);
        assert_eq!(states(&l, &ids[2..]), vec![State::AwaitingReapproval; 2]);
        assert_eq!(
            event_kinds(&l)
                .iter()
                .filter(|k| *k == "breaker_tripped")
                .count(),
            1
        );
        verified(&l);
    }
}

/// Which batch `b`'s remaining items went back in, from the audit: its trip's `remainder`.
fn remainder_in_audit(l: &Ledger, b: &str) -> Option<String> {
    audit_events(l)
        .iter()
        .filter(|e| str_field(e, "kind") == "batch_proposed")
        .find(|e| {
            field(field(e, "detail"), "remainder_of")
                .as_str()
                .is_some_and(|r| r == b)
        })
        .map(|e| str_field(field(e, "detail"), "batch_id").to_owned())
}

#[test]
fn a_tripped_batch_names_the_batch_its_remainder_went_to_not_the_lineages_last() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-12", 6);
        let first = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "agent")
            .unwrap();
        assert_eq!(first.successor, None);
        let first = l
            .decide_batch(&batch_decision(&first, "dec-12", "approved", l.now()))
            .unwrap()
            .batch;
        assert_eq!(first.successor, None);
        let ids = items(&first);
        let f = facts(&contract);
        let fail = |i: usize| {
            let ClaimOutcome::Claimed(c, _) =
                l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap()
            else {
                panic!("not claimed")
            };
            l.complete_item(&ids[i], c.fence, Reported::Failed, None, "worker")
                .unwrap();
        };
        // Three failures trip it: the other three items go back, over a second batch.
        (0..3).for_each(fail);
        let second = l.batch(&first.id).unwrap().successor.expect("a successor");
        assert_eq!(Some(&second), remainder_in_audit(&l, &first.id).as_ref());
        let second = l.batch(&second).unwrap();
        assert_eq!((second.items.len(), second.successor.as_ref()), (3, None));
        // Re-approved, half-open; one more failure trips it again: a third batch, of two.
        l.decide_batch(&batch_decision(&second, "dec-13", "approved", l.now()))
            .unwrap();
        fail(3);
        let third = l.batch(&second.id).unwrap().successor.expect("a successor");
        assert_eq!(Some(&third), remainder_in_audit(&l, &second.id).as_ref());
        assert_eq!(l.batch(&third).unwrap().items.len(), 2);
        // Each batch names its own next one: the first still names the second, though the
        // lineage's current batch is now the third.
        assert_eq!(
            l.batch(&first.id).unwrap().successor,
            Some(second.id.clone())
        );
        assert!(l.batch(&third).unwrap().current);
        assert_eq!(l.batch(&third).unwrap().successor, None);
        verified(&l);
    }
}

/// Caps keep totals, and only they do: without a cap (or a claim rate) an item's claim
/// leaves its lineage's row as it was. On PostgreSQL either claim is one free attempt (its
/// statement holds the lineage and batch to what it read), so nothing runs again.
#[test]
fn totals_are_kept_under_caps_alone_and_a_claim_runs_once() {
    let capped = batch_contract(100_000);
    let text = actionseal_core::canonicalize(&capped);
    let caps = r#","caps":{"sum":{"max":100000,"pointer":"/args/amount_minor"}}"#;
    assert!(text.contains(caps), "{text}");
    let uncapped = json(&text.replace(caps, ""));
    for engine in engines() {
        for (c, kept) in [(&capped, true), (&uncapped, false)] {
            let db = Db::fresh(engine);
            let l = db.open();
            let actions = refunds(c, "bulk", 3);
            let b = l
                .propose_batch(&actions, c, Semantics::PerItem, "agent")
                .unwrap();
            let b = l
                .decide_batch(&batch_decision(&b, "dec-1", "approved", l.now()))
                .unwrap()
                .batch;
            let before = db.texts(
                "SELECT totals, breaker, CAST(updated_at AS TEXT) FROM ledger_batch_lineages",
            );
            let f = facts(c);
            let retries = l.retries();
            for (id, a) in items(&b).iter().zip(&actions) {
                let out = l.claim_item(&claim(id, a, &f)).unwrap();
                assert!(matches!(out, ClaimOutcome::Claimed(..)), "{engine:?}");
            }
            let totals = l.batch(&b.id).unwrap().totals;
            let (count, sum) = if kept { ("3", "300") } else { ("0", "0") };
            assert_eq!(
                actionseal_core::canonicalize(field(&totals, "count")),
                count
            );
            assert_eq!(actionseal_core::canonicalize(field(&totals, "sum")), sum);
            let after = db.texts(
                "SELECT totals, breaker, CAST(updated_at AS TEXT) FROM ledger_batch_lineages",
            );
            assert_eq!(before == after, !kept, "{engine:?}: the lineage's row");
            assert_eq!(l.retries(), retries, "{engine:?}: a claim ran again");
            verified(&l);
        }
    }
}

/// The lineage's batch after `b`, which holds the items sent back from it.
fn successor(l: &Ledger, b: &str) -> Batch {
    l.batch(&l.batch(b).unwrap().successor.expect("a successor"))
        .unwrap()
}

fn breaker_state(b: &Batch) -> String {
    let state = b.breaker.as_object().unwrap().get("state").unwrap();
    state.as_str().unwrap().to_owned()
}

/// A whole claim whose lease expiries trip the breaker is refused as any claim of an open
/// breaker is: the item its trip sent back waits in the remainder for a reviewer, and is
/// not rejected before dispatch by that same claim.
#[test]
fn a_whole_claim_that_trips_the_breaker_leaves_what_it_sent_back_to_a_reviewer() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-21", 3);
        let f = facts(&contract);
        let b = approved_batch(&l, &actions, &contract, Semantics::AllOrNothing, "dec-21");
        let ids = items(&b);
        let whole = |batch_id: &str, actions: &[OwnedValue]| {
            l.claim_batch(&BatchClaimRequest {
                batch_id,
                actions,
                facts: &f,
                executor: "worker",
                lease_ms: 5 * MINUTE,
                budget: None,
                proof: Default::default(),
            })
        };
        let BatchClaimOutcome::Claimed(cs) = whole(&b.id, &actions).unwrap() else {
            panic!("not claimed")
        };
        l.complete_item(&ids[0], cs[0].fence, Reported::Unknown, None, "worker")
            .unwrap();
        l.complete_item(&ids[1], cs[1].fence, Reported::Failed, None, "worker")
            .unwrap();
        l.reconcile_item(&ids[0], Observed::NotExecuted, None, "ops")
            .unwrap();
        // Item 2's lease runs out: the claim counts the lapse, the third failure.
        clock.advance(6 * MINUTE).unwrap();
        let refused = whole(&b.id, &actions).unwrap_err();
        assert_eq!(refused.code(), Code::BreakerOpen);
        assert_eq!(
            states(&l, &ids),
            vec![State::AwaitingReapproval, State::Failed, State::Unknown]
        );
        let r = successor(&l, &b.id);
        assert_eq!((items(&r), r.current), (vec![ids[0].clone()], true));
        verified(&l);
        let r = l
            .decide_batch(&batch_decision(&r, "dec-22", "approved", l.now()))
            .unwrap()
            .batch;
        assert_eq!(breaker_state(&r), "half_open");
        let BatchClaimOutcome::Claimed(cs) = whole(&r.id, &actions[..1]).unwrap() else {
            panic!("the remainder not claimed")
        };
        assert_eq!(cs.len(), 1);
        verified(&l);
    }
}

/// An item of an earlier batch of its lineage, claimable again (reconciled as not executed)
/// after that batch's decision ran out, goes back to a reviewer over a new batch of the
/// lineage, as the items sent back before it did: not left awaiting re-approval with no
/// batch to decide it.
#[test]
fn an_earlier_batchs_item_whose_decision_ran_out_goes_back_over_a_new_batch() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-23", 3);
        let f = facts(&contract);
        let b = approved_batch(&l, &actions, &contract, Semantics::PerItem, "dec-23");
        let ids = items(&b);
        let ClaimOutcome::Claimed(c, _) = l.claim_item(&claim(&ids[0], &actions[0], &f)).unwrap()
        else {
            panic!("not claimed")
        };
        l.complete_item(&ids[0], c.fence, Reported::Unknown, None, "worker")
            .unwrap();
        clock.advance(2 * HOUR).unwrap();
        let out = l.claim_item(&claim(&ids[1], &actions[1], &f)).unwrap();
        assert_eq!(out.result(), "awaiting_reapproval");
        let second = successor(&l, &b.id);
        l.reconcile_item(&ids[0], Observed::NotExecuted, None, "ops")
            .unwrap();
        let out = l.claim_item(&claim(&ids[0], &actions[0], &f)).unwrap();
        assert_eq!(out.result(), "awaiting_reapproval");
        let third = successor(&l, &second.id);
        assert_eq!((items(&third), third.current), (vec![ids[0].clone()], true));
        verified(&l);
        // Each batch decided, each item is claimed under its own batch's decision.
        for (r, id) in [(&second, "dec-24"), (&third, "dec-25")] {
            l.decide_batch(&batch_decision(r, id, "approved", l.now()))
                .unwrap();
        }
        for i in 0..2 {
            let out = l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap();
            assert_eq!(out.result(), "claimed", "item {i}");
        }
        verified(&l);
    }
}

/// A per-item batch of `n` refunds (job `job`, decision `decision`) whose first three items
/// were claimed and completed in doubt, which trips its breaker (three failures): the batch,
/// its items' ids, their actions and the executor's facts.
fn tripped_in_doubt(
    l: &Ledger,
    job: &str,
    decision: &str,
    n: usize,
) -> (Batch, Vec<String>, Vec<OwnedValue>, OwnedValue) {
    let contract = batch_contract(100_000);
    let actions = refunds(&contract, job, n);
    let f = facts(&contract);
    let b = approved_batch(l, &actions, &contract, Semantics::PerItem, decision);
    let ids = items(&b);
    let mut fences = Vec::new();
    for i in 0..3 {
        let ClaimOutcome::Claimed(c, _) = l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap()
        else {
            panic!("not claimed")
        };
        fences.push(c.fence);
    }
    for (id, fence) in ids.iter().zip(fences) {
        l.complete_item(id, fence, Reported::Unknown, None, "worker")
            .unwrap();
    }
    (b, ids, actions, f)
}

/// A trip that leaves no unclaimed item proposes no remainder: an item reconciled as not
/// executed while the breaker is open, with no decision awaited that could half-open it,
/// goes back over a batch of its own, whose approval half-opens the breaker.
#[test]
fn an_item_reconciled_not_executed_under_an_open_breaker_goes_back_to_a_reviewer() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let (b, ids, actions, f) = tripped_in_doubt(&l, "job-26", "dec-26", 3);
        let tripped = l.batch(&b.id).unwrap();
        assert_eq!(
            (breaker_state(&tripped), tripped.successor),
            ("open".into(), None)
        );
        let t = l
            .reconcile_item(&ids[0], Observed::NotExecuted, None, "ops")
            .unwrap();
        assert_eq!(t.state, State::AwaitingReapproval);
        let r = successor(&l, &b.id);
        assert_eq!((items(&r), r.current), (vec![ids[0].clone()], true));
        verified(&l);
        let r = l
            .decide_batch(&batch_decision(&r, "dec-27", "approved", l.now()))
            .unwrap()
            .batch;
        assert_eq!(breaker_state(&r), "half_open");
        let out = l.claim_item(&claim(&ids[0], &actions[0], &f)).unwrap();
        assert_eq!(out.result(), "claimed");
        verified(&l);
    }
}

/// The same when the trip's remainder was rejected: nothing can half-open the breaker, so an
/// item reconciled as not executed afterwards goes back over a batch of its own.
#[test]
fn an_item_reconciled_not_executed_after_the_remainder_was_rejected_goes_back() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let (b, ids, _, _) = tripped_in_doubt(&l, "job-28", "dec-28", 4);
        let second = successor(&l, &b.id);
        l.decide_batch(&batch_decision(&second, "dec-29", "rejected", l.now()))
            .unwrap();
        let t = l
            .reconcile_item(&ids[0], Observed::NotExecuted, None, "ops")
            .unwrap();
        assert_eq!(t.state, State::AwaitingReapproval);
        let third = successor(&l, &second.id);
        assert_eq!((items(&third), third.current), (vec![ids[0].clone()], true));
        verified(&l);
    }
}

/// An item reconciled as not executed while the trip's remainder awaits stays approved, for
/// that remainder's approval to half-open the breaker. When the reviewer rejects it instead,
/// nothing would: the item goes back to a reviewer over the lineage's next batch.
#[test]
fn rejecting_the_remainder_sends_back_an_item_reconciled_not_executed() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let (b, ids, actions, f) = tripped_in_doubt(&l, "job-30", "dec-30", 4);
        let second = successor(&l, &b.id);
        assert_eq!(items(&second), vec![ids[3].clone()]);
        let t = l
            .reconcile_item(&ids[0], Observed::NotExecuted, None, "ops")
            .unwrap();
        assert_eq!(t.state, State::Approved);
        l.decide_batch(&batch_decision(&second, "dec-31", "rejected", l.now()))
            .unwrap();
        assert_eq!(
            states(&l, &ids),
            vec![
                State::AwaitingReapproval,
                State::Unknown,
                State::Unknown,
                State::Rejected
            ]
        );
        let third = successor(&l, &second.id);
        assert_eq!((items(&third), third.current), (vec![ids[0].clone()], true));
        verified(&l);
        let third = l
            .decide_batch(&batch_decision(&third, "dec-32", "approved", l.now()))
            .unwrap()
            .batch;
        assert_eq!(breaker_state(&third), "half_open");
        let out = l.claim_item(&claim(&ids[0], &actions[0], &f)).unwrap();
        assert_eq!(out.result(), "claimed");
        let again = l.claim_item(&claim(&ids[0], &actions[0], &f)).unwrap_err();
        assert_eq!(again.code(), Code::AlreadyClaimed);
        verified(&l);
    }
}

/// An all-or-nothing batch is claimed whole, and only through claim_batch: an item of an
/// earlier batch of the lineage claimable again (reconciled as not executed after the batch
/// it was claimed with stopped being current) is claimed by claiming that batch again, which
/// claims what remains of it, once.
#[test]
fn an_earlier_all_or_nothing_batch_claims_what_remains_of_it() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = batch_contract(100_000);
        let actions = refunds(&contract, "job-33", 3);
        let f = facts(&contract);
        let b = approved_batch(&l, &actions, &contract, Semantics::AllOrNothing, "dec-33");
        let ids = items(&b);
        let whole = |batch_id: &str, actions: &[OwnedValue]| {
            l.claim_batch(&BatchClaimRequest {
                batch_id,
                actions,
                facts: &f,
                executor: "worker",
                lease_ms: HOUR,
                budget: None,
                proof: Default::default(),
            })
        };
        let BatchClaimOutcome::Claimed(cs) = whole(&b.id, &actions).unwrap() else {
            panic!("not claimed")
        };
        l.complete_item(&ids[0], cs[0].fence, Reported::Unknown, None, "worker")
            .unwrap();
        l.complete_item(&ids[1], cs[1].fence, Reported::Unknown, None, "worker")
            .unwrap();
        l.complete_item(&ids[2], cs[2].fence, Reported::Failed, None, "worker")
            .unwrap();
        // Tripped with nothing to send back: item 0 goes back alone, the lineage's next batch.
        l.reconcile_item(&ids[0], Observed::NotExecuted, None, "ops")
            .unwrap();
        let second = successor(&l, &b.id);
        assert_eq!(items(&second), vec![ids[0].clone()]);
        // Item 1 waits for that batch's approval, approved by the first batch still.
        let t = l
            .reconcile_item(&ids[1], Observed::NotExecuted, None, "ops")
            .unwrap();
        assert_eq!(t.state, State::Approved);
        let second = l
            .decide_batch(&batch_decision(&second, "dec-34", "approved", l.now()))
            .unwrap()
            .batch;
        assert_eq!(breaker_state(&second), "half_open");
        let BatchClaimOutcome::Claimed(cs) = whole(&second.id, &actions[..1]).unwrap() else {
            panic!("the second batch not claimed")
        };
        assert_eq!(cs.len(), 1);
        let refused = l.claim_item(&claim(&ids[1], &actions[1], &f)).unwrap_err();
        assert_eq!(refused.code(), Code::BatchAllOrNothing);
        let BatchClaimOutcome::Claimed(cs) = whole(&b.id, &actions).unwrap() else {
            panic!("what remains of the first batch not claimed")
        };
        assert_eq!(cs.len(), 1);
        assert_eq!(l.task(&ids[1]).unwrap().state, State::Claimed);
        let again = whole(&b.id, &actions).unwrap_err();
        assert_eq!(again.code(), Code::TaskNotClaimable);
        verified(&l);
    }
}
