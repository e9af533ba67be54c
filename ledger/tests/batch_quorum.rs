//! A batch decided by a quorum (issue 28 with issue 25), on both engines: each member's
//! decision binds the batch digest and is a row of the batch's round, one per counting
//! identity, held by the contract's separation of duties; the batch and its items stay
//! awaiting until the decision that meets the quorum (a veto rejects them all), and each
//! item's claim checks the round's records as a set. The audit holds the round's rows to the
//! `batch_decided` events, and each item's evidence re-tallies it offline from the members'
//! decisions its own events record. A ledger that approved the batch on its first member's
//! decision (as it does without a quorum) would let `claim_item` win after one approval.

mod common;

use actionseal_core::batch::Semantics;
use actionseal_core::ledger::{Problem, State};
use actionseal_core::{canonicalize, Code, Decision, OwnedValue};
use actionseal_ledger::{
    Batch, BatchClaimOutcome, BatchClaimRequest, ClaimOutcome, ClaimRequest, Clock, DecisionDraft,
    Ledger, ManualClock,
};
use common::*;

/// The batchable refund tool whose approval is `approval` (JSON text).
fn contract(approval: &str) -> OwnedValue {
    json(&canonicalize(&batch_contract(100_000)).replace(r#""approval":"always""#, approval))
}

/// Two approvers, any rejection vetoes; the proposer may not be one of them.
fn two_of_three() -> OwnedValue {
    contract(r#""approval":{"quorum":{"approvers":2},"separation":["proposer"],"when":"always"}"#)
}

/// The executor's facts: bob, carol and dave are authorized.
fn facts_of(contract: &OwnedValue) -> OwnedValue {
    json(&format!(
        r#"{{"tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01", "contract": {},
            "approver_authorized": [{{"approver": "user:bob", "authorized": true}},
                                    {{"approver": "user:carol", "authorized": true}},
                                    {{"approver": "user:dave", "authorized": true}}],
            "subject_authorized": {{"subject": "user:alice", "authorized": true}}}}"#,
        canonicalize(contract)
    ))
}

/// Two refunds of job-1 proposed by the agent as one per-item batch under `contract`.
fn two_refunds(l: &Ledger, contract: &OwnedValue) -> Batch {
    l.propose_batch(
        &refunds(contract, "job-1", 2),
        contract,
        Semantics::PerItem,
        "agent",
    )
    .unwrap()
}

/// `approver`'s decision about `b` as it is now, made at T0 for an hour.
fn envelope(b: &Batch, decision_id: &str, approver: &str, decision: Decision) -> OwnedValue {
    envelope_at(b, (decision_id, approver, decision), T0)
}

/// [`envelope`] made at `at`.
fn envelope_at(
    b: &Batch,
    (decision_id, approver, decision): (&str, &str, Decision),
    at: i64,
) -> OwnedValue {
    b.decision(&DecisionDraft {
        decision_id,
        decision,
        approver,
        decided_at: at,
        expires_at: at + HOUR,
    })
    .unwrap()
    .envelope
    .to_value()
}

fn claim<'v>(task: &'v str, action: &'v OwnedValue, facts: &'v OwnedValue) -> ClaimRequest<'v, 'v> {
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

fn verified(l: &Ledger, what: &str) {
    let report = l.audit_verify().unwrap();
    assert!(report.broken.is_none(), "{what}: {:?}", report.broken);
}

/// Every item of `b` is in `state`.
fn items_are(l: &Ledger, b: &Batch, state: State, what: &str) {
    let b = l.batch(&b.id).unwrap();
    assert!(
        b.items.iter().all(|(_, s)| *s == state),
        "{what}: {:?}",
        b.items
    );
}

#[test]
fn a_batch_is_claimable_once_its_quorum_is_met() {
    for engine in engines() {
        let what = format!("{engine:?}");
        let db = Db::fast(engine);
        let l = db.open_at(&ManualClock::new(T0));
        let contract = two_of_three();
        let actions = refunds(&contract, "job-1", 3);
        let b = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "user:zed")
            .unwrap();
        let f = facts_of(&contract);

        // The first member's approval binds the batch, and leaves it awaiting the second.
        let first = l
            .decide_batch(&envelope(&b, "d-1", "user:bob", Decision::Approved))
            .unwrap();
        assert_eq!(first.batch.state, State::AwaitingApproval, "{what}");
        assert_eq!(first.batch.decision_id, None, "{what}");
        items_are(&l, &b, State::AwaitingApproval, &what);
        let e = l
            .claim_item(&claim(&b.items[0].0, &actions[0], &f))
            .unwrap_err();
        assert_eq!(e.code(), Code::TaskNotClaimable, "{what}");

        // One person counts once; the proposer is kept out by the separation of duties.
        let again = l
            .decide_batch(&envelope(&b, "d-2", "user:bob", Decision::Approved))
            .unwrap_err();
        assert_eq!(
            (again.code(), again.path()),
            (Code::ApproverAlreadyDecided, "/approver"),
            "{what}"
        );
        let proposer = l
            .decide_batch(&envelope(&b, "d-2", "user:zed", Decision::Approved))
            .unwrap_err();
        assert_eq!(proposer.code(), Code::ApproverNotSeparate, "{what}");
        // Deselecting now would void bob's decision of this selection.
        let amend = l
            .amend_batch(&json(&format!(
                r#"{{"batch_id": "{}", "amends": "{}", "deselect": [0], "reviewer": "user:carol",
                    "reason": "paid already"}}"#,
                b.id, b.digest
            )))
            .unwrap_err();
        assert_eq!(amend.code(), Code::AmendConflict, "{what}");

        // The second member meets the quorum: the batch and every item are approved.
        let met = l
            .decide_batch(&envelope(&b, "d-3", "user:carol", Decision::Approved))
            .unwrap();
        assert_eq!(met.batch.state, State::Approved, "{what}");
        assert_eq!(met.batch.decision_id.as_deref(), Some("d-3"), "{what}");
        items_are(&l, &b, State::Approved, &what);
        // A late third member's decision finds the round over.
        let late = l
            .decide_batch(&envelope(&b, "d-4", "user:dave", Decision::Approved))
            .unwrap_err();
        assert_eq!(late.code(), Code::TaskNotAwaitingDecision, "{what}");

        // Each item is claimed against the round's two records.
        for (i, (id, _)) in b.items.iter().enumerate() {
            match l.claim_item(&claim(id, &actions[i], &f)).unwrap() {
                ClaimOutcome::Claimed(c, _) => {
                    assert_eq!(c.approvals.len(), 2, "{what}");
                    assert!(c.item.is_some(), "{what}");
                }
                other => panic!("{what}: {other:?}"),
            }
        }
        let rows = db.texts(&format!(
            "SELECT decision_id, counted_as FROM ledger_round_decisions \
             WHERE approval_id = '{}' ORDER BY n",
            b.approval_id
        ));
        let rows: Vec<Vec<String>> = rows
            .into_iter()
            .map(|r| r.into_iter().map(Option::unwrap).collect())
            .collect();
        assert_eq!(rows, [["d-1", "user:bob"], ["d-3", "user:carol"]], "{what}");
        verified(&l, &what);
        // Each item records both members as a task does, so its evidence re-tallies the round.
        let item = &b.items[0].0;
        assert_eq!(
            kinds(&l, item),
            [
                "proposed",
                "decided",
                "claim_refused",
                "decided",
                "quorum_met",
                "claimed"
            ],
            "{what}"
        );
        evidence_holds(&db, item, &what);
    }
}

#[test]
fn a_claim_checks_the_whole_round_under_the_executors_facts() {
    for engine in engines() {
        let what = format!("{engine:?}");
        let db = Db::fast(engine);
        let l = db.open_at(&ManualClock::new(T0));
        let contract = two_of_three();
        let actions = refunds(&contract, "job-1", 2);
        let b = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "agent")
            .unwrap();
        l.decide_batch(&envelope(&b, "d-1", "user:bob", Decision::Approved))
            .unwrap();
        l.decide_batch(&envelope(&b, "d-2", "user:carol", Decision::Approved))
            .unwrap();
        // The executor no longer holds bob authorized: one member short, nothing runs.
        let f = json(&canonicalize(&facts_of(&contract)).replace(
            r#"{"approver":"user:bob","authorized":true}"#,
            r#"{"approver":"user:bob","authorized":false}"#,
        ));
        let out = l
            .claim_item(&claim(&b.items[0].0, &actions[0], &f))
            .unwrap();
        match out {
            ClaimOutcome::Reapproval { verdict, .. } | ClaimOutcome::Rejected { verdict, .. } => {
                let reasons: Vec<&str> = verdict.reasons.iter().map(|r| r.as_str()).collect();
                assert!(reasons.contains(&"quorum_short"), "{what}: {reasons:?}");
            }
            other => panic!("{what}: {other:?}"),
        }
        verified(&l, &what);
    }
}

#[test]
fn a_veto_rejects_every_item_and_an_all_or_nothing_batch_is_claimed_whole() {
    for engine in engines() {
        let what = format!("{engine:?}");
        let db = Db::fast(engine);
        let l = db.open_at(&ManualClock::new(T0));
        let contract = two_of_three();
        let f = facts_of(&contract);

        let vetoed = two_refunds(&l, &contract);
        l.decide_batch(&envelope(&vetoed, "d-1", "user:bob", Decision::Approved))
            .unwrap();
        let no = l
            .decide_batch(&envelope(&vetoed, "d-2", "user:carol", Decision::Rejected))
            .unwrap();
        assert_eq!(no.batch.state, State::Rejected, "{what}");
        items_are(&l, &vetoed, State::Rejected, &what);
        evidence_holds(&db, &vetoed.items[1].0, &what);

        let actions = refunds(&contract, "job-2", 3);
        let whole = l
            .propose_batch(&actions, &contract, Semantics::AllOrNothing, "agent")
            .unwrap();
        l.decide_batch(&envelope(&whole, "d-3", "user:dave", Decision::Approved))
            .unwrap();
        let request = BatchClaimRequest {
            batch_id: &whole.id,
            actions: &actions,
            facts: &f,
            executor: "worker",
            lease_ms: HOUR,
            budget: None,
            proof: Default::default(),
        };
        let e = l.claim_batch(&request).unwrap_err();
        assert_eq!(e.code(), Code::TaskNotClaimable, "{what}");
        l.decide_batch(&envelope(&whole, "d-4", "user:bob", Decision::Approved))
            .unwrap();
        match l.claim_batch(&request).unwrap() {
            BatchClaimOutcome::Claimed(claims) => {
                assert_eq!(claims.len(), 3, "{what}");
                assert!(claims.iter().all(|c| c.approvals.len() == 2), "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
        verified(&l, &what);
        evidence_holds(&db, &whole.items[2].0, &what);
    }
}

#[test]
fn a_remainders_round_is_tallied_apart_from_the_first_offline() {
    for engine in engines() {
        let what = format!("{engine:?}");
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let contract = two_of_three();
        let actions = refunds(&contract, "job-1", 2);
        let f = facts_of(&contract);
        let b = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "agent")
            .unwrap();
        for (id, who) in [("d-1", "user:bob"), ("d-2", "user:carol")] {
            l.decide_batch(&envelope(&b, id, who, Decision::Approved))
                .unwrap();
        }
        // The round's approvals run out: the items wait again, over a batch of their own,
        // whose round two members meet anew.
        clock.advance(2 * HOUR).unwrap();
        let item = &b.items[1].0;
        let out = l.claim_item(&claim(item, &actions[1], &f)).unwrap();
        assert_eq!(out.result(), "awaiting_reapproval", "{what}");
        let rest = last_batch(&l);
        for (id, who) in [("d-3", "user:bob"), ("d-4", "user:dave")] {
            let at = clock.now_ms();
            l.decide_batch(&envelope_at(&rest, (id, who, Decision::Approved), at))
                .unwrap();
        }
        match l.claim_item(&claim(item, &actions[1], &f)).unwrap() {
            ClaimOutcome::Claimed(..) => {}
            other => panic!("{what}: {other:?}"),
        }
        verified(&l, &what);
        evidence_holds(&db, item, &what);
    }
}

#[test]
fn a_round_row_written_into_the_database_meets_no_items_quorum_offline() {
    for engine in engines() {
        let what = format!("{engine:?}");
        let db = Db::fast(engine);
        let l = db.open_at(&ManualClock::new(T0));
        let contract = two_of_three();
        let b = two_refunds(&l, &contract);
        // Someone with the database adds a member who never decided; the next real decision
        // then meets the batch's quorum in the ledger, and each item's quorum_met counts it.
        db.sql(&format!(
            "INSERT INTO ledger_round_decisions (approval_id, n, decision_id, counted_as, role, \
             decision, record, proof, decided_at, recorded_at) VALUES ('{}', 1, 'd-forged', \
             'user:mallory', NULL, 'approved', '{{\"approver\":\"user:mallory\"}}', NULL, {T0}, \
             {T0})",
            b.approval_id
        ));
        let met = l
            .decide_batch(&envelope(&b, "d-1", "user:bob", Decision::Approved))
            .unwrap();
        assert_eq!(met.batch.state, State::Approved, "{what}");
        assert!(l.audit_verify().unwrap().broken.is_some(), "{what}");
        for (item, _) in &b.items {
            let e = evidence_of(&db, item).unwrap_err();
            assert_eq!(e.code(), Code::QuorumNotMet, "{what}: {e}");
            assert_eq!(e.path(), "/events/2/event", "{what}: quorum_met");
        }
    }
}

#[test]
fn the_audit_holds_a_batchs_round_to_its_events() {
    for engine in engines() {
        let what = format!("{engine:?}");
        let db = Db::fast(engine);
        let l = db.open_at(&ManualClock::new(T0));
        let contract = two_of_three();
        let b = two_refunds(&l, &contract);
        l.decide_batch(&envelope(&b, "d-1", "user:bob", Decision::Approved))
            .unwrap();
        verified(&l, &what);
        // Pending, each item holds the member's decision, and its evidence the round so far.
        evidence_holds(&db, &b.items[0].0, &what);
        // A member's row counted as someone else, or a row no event made: both found.
        for tamper in [
            "UPDATE ledger_round_decisions SET counted_as = 'user:carol'",
            "INSERT INTO ledger_round_decisions SELECT approval_id, 2, 'd-9', 'user:dave', role, \
             decision, record, proof, decided_at, recorded_at FROM ledger_round_decisions",
        ] {
            db.sql("CREATE TABLE kept AS SELECT * FROM ledger_round_decisions");
            db.sql(tamper);
            let broken = l.audit_verify().unwrap().broken;
            db.sql(
                "DELETE FROM ledger_round_decisions;
                 INSERT INTO ledger_round_decisions SELECT * FROM kept; DROP TABLE kept;",
            );
            let b = broken.unwrap_or_else(|| panic!("{what}: the audit missed {tamper}"));
            assert_eq!(b.problem, Problem::RowMismatch, "{what}: {tamper}");
            assert!(
                b.field.unwrap().starts_with("round_decisions/"),
                "{what}: {tamper}"
            );
        }
        verified(&l, &what);
    }
}
