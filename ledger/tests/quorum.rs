//! Quorums in the ledger (issue 25): each member's decision is its own row of the round; the
//! task is approved once, by the decision that meets the quorum, or rejected by a veto; the
//! same approver cannot count twice, and the subject, the proposer and (when listed) the
//! amender cannot approve. Races of 2 to 8 approvers give exactly one transition. Each
//! round's evidence verifies offline, re-tallied from its records; a round row written into
//! the database makes the ledger meet a quorum that the bundle then shows was not met.

mod common;

use actionseal_core::{canonicalize, Code, OwnedValue};
use actionseal_ledger::{Decided, Ledger, Task};
use common::*;
use std::sync::{Arc, Barrier};

/// A decision about `task`'s current round by `approver` (with `extra` members, JSON text
/// starting with a comma, or empty).
fn member(t: &Task, id: &str, verdict: &str, approver: &str, at: i64, extra: &str) -> OwnedValue {
    json(&format!(
        r#"{{"approval_id": "{}", "decision_id": "{id}", "job_id": "{}", "request_id": "{}",
            "action_digest": "{}", "decision": "{verdict}", "approver": "{approver}",
            "decided_at": {at}, "expires_at": {}{extra}}}"#,
        t.approval_id.as_deref().unwrap(),
        t.job_id,
        t.request_id,
        t.action_digest,
        at + HOUR
    ))
}

fn propose(l: &Ledger, contract: &OwnedValue, job: &str) -> Task {
    let act = action(
        contract,
        r#"{"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}"#,
        job,
        "req-1",
    );
    l.propose(&act, contract, "agent").unwrap()
}

/// user:erin's amendment of `t`'s action (job-1's refund) under `contract` to 2000.
fn lowered(t: &Task, contract: &OwnedValue) -> OwnedValue {
    let amended = action(
        contract,
        r#"{"order_id": "order-17", "amount_minor": 2000, "currency": "USD"}"#,
        "job-1",
        "req-1",
    );
    json(&format!(
        r#"{{"task_id": "{}", "amends": "{}", "action": {}, "reviewer": "user:erin",
            "reason": "lower"}}"#,
        t.id,
        t.action_digest,
        canonicalize(&amended)
    ))
}

/// `approver`'s approval, `id`, of `t`'s current round, now.
fn approve(l: &Ledger, t: &Task, id: &str, approver: &str) -> Decided {
    l.decide(&member(t, id, "approved", approver, l.now(), ""))
        .unwrap()
}

fn decide(l: &Ledger, v: &OwnedValue) -> actionseal_core::Result<Decided> {
    l.decide(v)
}

fn counted(t: &Task) -> (usize, u8) {
    let q = t.quorum.as_ref().expect("the task shows its quorum");
    (q.counted.len(), q.missing)
}

fn audit_holds(l: &Ledger, what: &str) {
    let report = l.audit_verify().unwrap();
    assert!(report.broken.is_none(), "{what}: {:?}", report.broken);
}

/// The ledger's audit holds, and so does `task`'s evidence offline.
fn both_hold(db: &Db, l: &Ledger, task: &str, what: &str) {
    audit_holds(l, what);
    evidence_holds(db, task, what);
}

#[test]
fn the_task_is_approved_once_when_the_quorum_is_met() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let contract = two_of_any();
        let t = propose(&l, &contract, "job-1");
        assert_eq!(
            counted(&t),
            (0, 2),
            "{engine:?}: a proposal shows its round"
        );
        let first = approve(&l, &t, "d-1", "user:bob");
        assert_eq!(first.task.state.as_str(), "awaiting_approval", "{engine:?}");
        assert!(first.task.approval.is_none());
        assert_eq!(counted(&first.task), (1, 1), "{engine:?}: 1 of 2");
        assert_eq!(counted(&l.task(&t.id).unwrap()), (1, 1), "{engine:?}");
        // A repeated delivery stays a duplicate, and counts once.
        let again = decide(
            &l,
            &member(
                &t,
                "d-1",
                "approved",
                "user:bob",
                first.decision.decided_at,
                "",
            ),
        )
        .unwrap();
        assert!(again.duplicate, "{engine:?}");
        let second = approve(&l, &t, "d-2", "user:carol");
        assert_eq!(second.task.state.as_str(), "approved", "{engine:?}");
        assert_eq!(counted(&second.task), (2, 0), "{engine:?}");
        let v = second.task.to_value();
        assert_eq!(canonicalize(field(field(&v, "quorum"), "missing")), "0");
        // Once approved, the round is closed.
        let late = decide(&l, &member(&t, "d-3", "approved", "user:dan", l.now(), "")).unwrap_err();
        assert_eq!(late.code(), Code::TaskNotAwaitingDecision, "{engine:?}");
        assert_eq!(
            kinds(&l, &t.id),
            [
                "proposed",
                "decided",
                "decision_duplicate",
                "decided",
                "quorum_met",
                "decision_refused"
            ],
            "{engine:?}"
        );
        let rows =
            db.texts("SELECT decision_id, counted_as FROM ledger_round_decisions ORDER BY n");
        assert_eq!(rows.len(), 2, "{engine:?}: every decision recorded once");
        both_hold(&db, &l, &t.id, &format!("{engine:?}"));
    }
}

#[test]
fn an_approver_counts_once_per_round() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let t = propose(&l, &two_of_any(), "job-1");
        approve(&l, &t, "d-1", "user:bob");
        let e = decide(&l, &member(&t, "d-2", "approved", "user:bob", l.now(), "")).unwrap_err();
        assert_eq!(e.code(), Code::ApproverAlreadyDecided, "{engine:?}");
        // Through a delegation the decision counts for its root: bob again.
        let link = r#"{"delegation_id": "dlg-1", "delegator": "user:bob", "delegate": "user:dave",
            "tenant": "tenant-a", "tools": ["refund_create"], "not_before": 0,
            "not_after": 9000000000000}"#;
        let extra = format!(r#", "on_behalf_of": "user:bob", "delegation": [{link}]"#);
        let e = decide(
            &l,
            &member(&t, "d-3", "approved", "user:dave", l.now(), &extra),
        )
        .unwrap_err();
        assert_eq!(e.code(), Code::ApproverAlreadyDecided, "{engine:?}");
        assert_eq!(e.path(), "/on_behalf_of", "{engine:?}");
        let task = l.task(&t.id).unwrap();
        assert_eq!(task.state.as_str(), "awaiting_approval");
        assert_eq!(counted(&task), (1, 1), "{engine:?}");
        audit_holds(&l, &format!("{engine:?}"));
    }
}

#[test]
fn the_subject_the_proposer_and_the_amender_cannot_approve() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let contract = quorum_contract(
            r#"{"when": "always", "quorum": {"approvers": 2}, "separation": ["amender"]}"#,
        );
        let t = propose(&l, &contract, "job-1");
        for (who, name) in [("user:alice", "subject"), ("agent", "proposer")] {
            let e = decide(&l, &member(&t, "d-x", "approved", who, l.now(), "")).unwrap_err();
            assert_eq!(e.code(), Code::ApproverNotSeparate, "{engine:?} {who}");
            assert!(e.message().contains(name), "{engine:?}: {e}");
        }
        // A reviewer amends the action: a new round, which the amender may not approve.
        let a = l.amend(&lowered(&t, &contract), &contract).unwrap();
        let e = decide(
            &l,
            &member(&a.task, "d-y", "approved", "user:erin", l.now(), ""),
        )
        .unwrap_err();
        assert_eq!(e.code(), Code::ApproverNotSeparate, "{engine:?}");
        assert!(e.message().contains("amended"), "{engine:?}: {e}");
        // Another reviewer amends it again, by a cent: neither may approve, the first
        // amender included (the change was hers).
        let again = action(
            &contract,
            r#"{"order_id": "order-17", "amount_minor": 1999, "currency": "USD"}"#,
            "job-1",
            "req-1",
        );
        let b = l
            .amend(
                &json(&format!(
                    r#"{{"task_id": "{}", "amends": "{}", "action": {}, "reviewer": "user:frank",
                        "reason": "a cent"}}"#,
                    t.id,
                    a.task.action_digest,
                    canonicalize(&again)
                )),
                &contract,
            )
            .unwrap();
        for (id, who) in [("d-z", "user:erin"), ("d-w", "user:frank")] {
            let e = decide(&l, &member(&b.task, id, "approved", who, l.now(), "")).unwrap_err();
            assert_eq!(e.code(), Code::ApproverNotSeparate, "{engine:?} {who}");
        }
        audit_holds(&l, &format!("{engine:?}"));
    }
}

#[test]
fn a_rejection_vetoes_unless_the_contract_says_none() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let t = propose(&l, &two_of_any(), "job-1");
        approve(&l, &t, "d-1", "user:bob");
        let vetoed = decide(
            &l,
            &member(&t, "d-2", "rejected", "user:carol", l.now(), ""),
        )
        .unwrap();
        assert_eq!(vetoed.task.state.as_str(), "rejected", "{engine:?}");
        assert_eq!(
            kinds(&l, &t.id),
            ["proposed", "decided", "decided"],
            "{engine:?}"
        );

        let contract =
            quorum_contract(r#"{"when": "always", "quorum": {"approvers": 2, "veto": "none"}}"#);
        let t = propose(&l, &contract, "job-2");
        let no = decide(&l, &member(&t, "d-3", "rejected", "user:bob", l.now(), "")).unwrap();
        assert_eq!(no.task.state.as_str(), "awaiting_approval", "{engine:?}");
        assert_eq!(
            counted(&no.task),
            (0, 2),
            "{engine:?}: a rejection does not count"
        );
        approve(&l, &t, "d-4", "user:carol");
        let yes = approve(&l, &t, "d-5", "user:dan");
        assert_eq!(yes.task.state.as_str(), "approved", "{engine:?}");
        both_hold(&db, &l, &vetoed.task.id, &format!("{engine:?}: vetoed"));
        evidence_holds(
            &db,
            &t.id,
            &format!("{engine:?}: a rejection without a veto"),
        );
    }
}

#[test]
fn an_amendment_starts_a_new_round_and_earlier_members_do_not_carry_over() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let contract = two_of_any();
        let t = propose(&l, &contract, "job-1");
        approve(&l, &t, "d-1", "user:bob");
        let a = l.amend(&lowered(&t, &contract), &contract).unwrap();
        assert_ne!(a.task.approval_id, t.approval_id, "{engine:?}: a new round");
        let now = l.task(&t.id).unwrap();
        assert_eq!(
            counted(&now),
            (0, 2),
            "{engine:?}: bob's decision stayed behind"
        );
        // The old round is closed; bob decides again, about the amended action, and counts once.
        let e = decide(
            &l,
            &member(&t, "d-2", "approved", "user:carol", l.now(), ""),
        )
        .unwrap_err();
        assert_eq!(e.code(), Code::DecisionMismatch, "{engine:?}");
        let b = approve(&l, &a.task, "d-3", "user:bob");
        assert_eq!(counted(&b.task), (1, 1), "{engine:?}");
        let c = approve(&l, &a.task, "d-4", "user:carol");
        assert_eq!(c.task.state.as_str(), "approved", "{engine:?}");
        both_hold(&db, &l, &t.id, &format!("{engine:?}: two rounds"));
    }
}

#[test]
fn a_revocation_of_the_round_before_an_amendment_does_not_revoke_the_next() {
    // Each round has its own approval id, so revoking one never revokes the next.
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let contract = two_of_any();
        let t = propose(&l, &contract, "job-1");
        l.revoke(t.approval_id.as_deref().unwrap(), "user:erin")
            .unwrap();
        let a = l.amend(&lowered(&t, &contract), &contract).unwrap();
        approve(&l, &a.task, "d-1", "user:bob");
        let c = approve(&l, &a.task, "d-2", "user:carol");
        assert_eq!(c.task.state.as_str(), "approved", "{engine:?}");
        let out = claim(&l, &c.task, &quorum_facts(&contract, "")).unwrap();
        assert_eq!(out.result(), "claimed", "{engine:?}: {:?}", out.to_value());
        audit_holds(&l, &format!("{engine:?}"));
    }
}

/// `n` approvers decide the same task at once; `verdict(i)` is approver i's decision.
fn race(l: &Arc<Ledger>, t: &Task, n: usize, verdict: fn(usize) -> &'static str) -> Vec<bool> {
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let (l, t, barrier) = (l.clone(), t.clone(), barrier.clone());
            std::thread::spawn(move || {
                let v = member(
                    &t,
                    &format!("{}-d{i}", t.job_id),
                    verdict(i),
                    &format!("user:a{i}"),
                    l.now(),
                    "",
                );
                barrier.wait();
                match l.decide(&v) {
                    Ok(d) => {
                        assert!(!d.duplicate);
                        true
                    }
                    Err(e) if e.code() == Code::TaskNotAwaitingDecision => false,
                    Err(e) => panic!("approver {i}: {e}"),
                }
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

/// How many of the task's events are of `kind`.
fn count(l: &Ledger, task: &str, kind: &str) -> usize {
    kinds(l, task).iter().filter(|k| *k == kind).count()
}

/// What a race left: the task, whether each decider's decision was recorded, and how many
/// `decided` and `quorum_met` events and rows of its round the task has.
struct Raced {
    task: Task,
    recorded: Vec<bool>,
    decided: usize,
    met: usize,
    rows: usize,
}

/// A task of `job` under a quorum of `approvers`, which `n` deciders race to decide
/// (`verdict(i)` is decider i's decision).
fn raced(
    db: &Db,
    l: &Arc<Ledger>,
    job: &str,
    approvers: usize,
    n: usize,
    verdict: fn(usize) -> &'static str,
) -> Raced {
    let contract = quorum_contract(&format!(
        r#"{{"when": "always", "quorum": {{"approvers": {approvers}}}}}"#
    ));
    let t = propose(l, &contract, job);
    let recorded = race(l, &t, n, verdict);
    let rows = db.texts(&format!(
        "SELECT decision_id FROM ledger_round_decisions WHERE approval_id = '{}'",
        t.approval_id.as_deref().unwrap()
    ));
    Raced {
        task: l.task(&t.id).unwrap(),
        recorded,
        decided: count(l, &t.id, "decided"),
        met: count(l, &t.id, "quorum_met"),
        rows: rows.len(),
    }
}

#[test]
fn racing_approvers_give_exactly_one_transition() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = Arc::new(db.open());
        for n in 2..=8 {
            for rep in 0..3 {
                let r = raced(&db, &l, &format!("job-{n}-{rep}"), n, n, |_| "approved");
                let what = format!("{engine:?}, {n} approvers");
                assert!(
                    r.recorded.iter().all(|r| *r),
                    "{what}: every decision recorded"
                );
                assert_eq!(r.task.state.as_str(), "approved", "{what}");
                assert_eq!(counted(&r.task), (n, 0), "{what}");
                assert_eq!(r.decided, n, "{what}");
                assert_eq!(r.met, 1, "{what}");
                assert_eq!(r.rows, n, "{what}: each decision recorded once");
            }
        }
        audit_holds(&l, &format!("{engine:?}"));
    }
}

#[test]
fn a_veto_racing_approvals_gives_exactly_one_final_state() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = Arc::new(db.open());
        for n in 3..=8 {
            // n - 1 approvals meet the quorum; approver 0 rejects.
            let verdict = |i| if i == 0 { "rejected" } else { "approved" };
            let r = raced(&db, &l, &format!("job-{n}"), n - 1, n, verdict);
            let what = format!("{engine:?}, {n} deciders");
            match r.task.state.as_str() {
                // Every approval came first: the veto came too late.
                "approved" => {
                    assert_eq!((r.met, r.recorded[0]), (1, false), "{what}");
                    assert_eq!(r.decided, n - 1, "{what}");
                }
                // The veto ended the round: approvals after it were refused.
                "rejected" => {
                    assert_eq!((r.met, r.recorded[0]), (0, true), "{what}");
                    let accepted = r.recorded.iter().filter(|r| **r).count();
                    assert_eq!(r.decided, accepted, "{what}");
                }
                other => panic!("{what}: the task ended {other}"),
            }
            assert_eq!(
                r.rows, r.decided,
                "{what}: a row for each decision recorded"
            );
        }
        audit_holds(&l, &format!("{engine:?}"));
    }
}

/// The executor's facts for `contract`: tenant-a, the policy in force, bob and carol
/// authorized (and `extra` members, JSON text starting with a comma, or empty).
fn quorum_facts(contract: &OwnedValue, extra: &str) -> OwnedValue {
    json(&format!(
        r#"{{"tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01", "contract": {},
            "approver_authorized": [{{"approver": "user:bob", "authorized": true}},
                                    {{"approver": "user:carol", "authorized": true}}],
            "subject_authorized": {{"subject": "user:alice", "authorized": true}}{extra}}}"#,
        canonicalize(contract)
    ))
}

fn claim(
    l: &Ledger,
    t: &Task,
    facts: &OwnedValue,
) -> actionseal_core::Result<actionseal_ledger::ClaimOutcome> {
    l.claim(&actionseal_ledger::ClaimRequest {
        task_id: &t.id,
        action: t.action.value(),
        facts,
        executor: "worker-1",
        lease_ms: HOUR,
        budget: None,
        proof: Default::default(),
    })
}

/// A decision's `role` member, finance.
const AS_FINANCE: &str = r#", "role": "finance""#;

/// A quorum of `approvers` needing one in finance, proposed, with bob's approval as finance
/// recorded (decision `d-1`).
fn finance_first(l: &Ledger, approvers: u8) -> (OwnedValue, Task) {
    let contract = quorum_contract(&format!(
        r#"{{"when": "always", "quorum": {{"approvers": {approvers}, "roles": [{{"role": "finance", "count": 1}}]}}}}"#
    ));
    let t = propose(l, &contract, "job-1");
    decide(
        l,
        &member(&t, "d-1", "approved", "user:bob", l.now(), AS_FINANCE),
    )
    .unwrap();
    (contract, t)
}

#[test]
fn a_claim_checks_the_whole_round_again() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let (contract, t) = finance_first(&l, 2);
        let t = approve(&l, &t, "d-2", "user:carol").task;
        assert_eq!(t.state.as_str(), "approved", "{engine:?}");
        // The caller may not say who proposed or amended the task: the ledger knows.
        for key in ["proposer", "amended_by"] {
            let facts = quorum_facts(&contract, &format!(r#", "{key}": "user:zed""#));
            let e = claim(&l, &t, &facts).unwrap_err();
            assert_eq!(e.code(), Code::InvalidContext, "{engine:?} {key}");
            assert_eq!(e.path(), format!("/{key}"), "{engine:?}");
        }
        // The executor's facts say bob does not hold finance: the round no longer holds.
        let not_held = quorum_facts(
            &contract,
            r#", "approver_roles": [{"approver": "user:bob", "role": "finance", "holds": false}]"#,
        );
        let held = quorum_facts(
            &contract,
            r#", "approver_roles": [{"approver": "user:bob", "role": "finance", "holds": true}]"#,
        );
        // (Checked on a copy of the round: a reapproval would change the task.)
        let out = claim(&l, &t, &held).unwrap();
        let actionseal_ledger::ClaimOutcome::Claimed(c, task) = out else {
            panic!("{engine:?}: {}", out.result());
        };
        assert_eq!(
            c.approvals.len(),
            2,
            "{engine:?}: the claim carries the set"
        );
        assert_eq!(task.state.as_str(), "claimed");
        let v = actionseal_ledger::ClaimOutcome::Claimed(c, task).to_value();
        let approvals = field(field(&v, "claim"), "approvals");
        assert!(
            matches!(approvals, actionseal_core::Value::Array(a) if a.len() == 2),
            "{engine:?}"
        );

        let t2 = propose(&l, &contract, "job-2");
        decide(
            &l,
            &member(&t2, "d-3", "approved", "user:bob", l.now(), AS_FINANCE),
        )
        .unwrap();
        let t2 = approve(&l, &t2, "d-4", "user:carol").task;
        let out = claim(&l, &t2, &not_held).unwrap();
        assert_eq!(out.result(), "awaiting_reapproval", "{engine:?}");
        let actionseal_ledger::ClaimOutcome::Reapproval { verdict, task } = out else {
            unreachable!()
        };
        let reasons: Vec<_> = verdict.reasons.iter().map(|r| r.as_str()).collect();
        assert!(
            reasons.contains(&"role_not_held"),
            "{engine:?}: {reasons:?}"
        );
        assert_eq!(
            counted(&l.task(&task.id).unwrap()),
            (0, 2),
            "{engine:?}: a new round"
        );
        both_hold(
            &db,
            &l,
            &t.id,
            &format!("{engine:?}: a role's member, claimed"),
        );
        evidence_holds(
            &db,
            &t2.id,
            &format!("{engine:?}: sent back for a new round"),
        );
        // The new round: one member pending, then the one that meets it.
        let pending = decide(
            &l,
            &member(&task, "d-5", "approved", "user:bob", l.now(), AS_FINANCE),
        )
        .unwrap();
        assert_eq!(
            pending.task.state.as_str(),
            "awaiting_reapproval",
            "{engine:?}"
        );
        both_hold(
            &db,
            &l,
            &t2.id,
            &format!("{engine:?}: a member of the new round"),
        );
        let met = approve(&l, &task, "d-6", "user:carol");
        assert_eq!(met.task.state.as_str(), "approved", "{engine:?}");
        both_hold(&db, &l, &t2.id, &format!("{engine:?}: the new round met"));
    }
}

#[test]
fn a_round_met_out_of_the_listed_order_is_recorded_and_its_claim_refused() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let contract = quorum_contract(
            r#"{"when": "always", "quorum": {"approvers": 2, "order": "as_listed",
                "roles": [{"role": "finance", "count": 1}, {"role": "risk", "count": 1}]}}"#,
        );
        let t = propose(&l, &contract, "job-1");
        decide(
            &l,
            &member(
                &t,
                "d-1",
                "approved",
                "user:carol",
                l.now(),
                r#", "role": "risk""#,
            ),
        )
        .unwrap();
        // Finance decides strictly after risk.
        std::thread::sleep(std::time::Duration::from_millis(2));
        let t = decide(
            &l,
            &member(&t, "d-2", "approved", "user:bob", l.now(), AS_FINANCE),
        )
        .unwrap()
        .task;
        assert_eq!(
            t.state.as_str(),
            "approved",
            "{engine:?}: the ledger counts"
        );
        evidence_holds(&db, &t.id, &format!("{engine:?}: met out of order"));
        let roles = r#", "approver_roles": [{"approver": "user:bob", "role": "finance", "holds": true},
            {"approver": "user:carol", "role": "risk", "holds": true}]"#;
        let out = claim(&l, &t, &quorum_facts(&contract, roles)).unwrap();
        assert_eq!(
            out.result(),
            "awaiting_reapproval",
            "{engine:?}: the claim orders"
        );
        both_hold(&db, &l, &t.id, &format!("{engine:?}: sent back"));
    }
}

#[test]
fn the_audit_catches_a_task_approved_before_its_quorum() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let t = propose(&l, &two_of_any(), "job-1");
        approve(&l, &t, "d-1", "user:bob");
        audit_holds(&l, &format!("{engine:?}"));
        // Someone with the database approves the task on one member's record.
        db.sql(&format!(
            "UPDATE ledger_tasks SET state = 'approved', approval = \
             (SELECT record FROM ledger_round_decisions WHERE decision_id = 'd-1') \
             WHERE id = '{}'",
            t.id
        ));
        let broken = l.audit_verify().unwrap().broken;
        let b = broken.unwrap_or_else(|| panic!("{engine:?}: the audit missed it"));
        assert_eq!(b.task.as_deref(), Some(t.id.as_str()), "{engine:?}");
    }
}

#[test]
fn a_round_row_written_into_the_database_meets_no_quorum_offline() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let t = propose(&l, &two_of_any(), "job-1");
        // Someone with the database adds a member who never decided; the next real decision
        // then meets the quorum in the ledger, and quorum_met counts the row.
        db.sql(&format!(
            "INSERT INTO ledger_round_decisions (approval_id, n, decision_id, counted_as, role, \
             decision, record, proof, decided_at, recorded_at) VALUES ('{}', 1, 'd-forged', \
             'user:mallory', NULL, 'approved', '{{\"approver\":\"user:mallory\"}}', NULL, {}, {})",
            t.approval_id.as_deref().unwrap(),
            l.now(),
            l.now()
        ));
        let met = approve(&l, &t, "d-1", "user:bob");
        assert_eq!(met.task.state.as_str(), "approved", "{engine:?}");
        assert!(l.audit_verify().unwrap().broken.is_some(), "{engine:?}");
        let e = evidence_of(&db, &t.id).unwrap_err();
        assert_eq!(e.code(), Code::QuorumNotMet, "{engine:?}: {e}");
        assert_eq!(e.path(), "/events/2/event", "{engine:?}: quorum_met");
    }
}

#[test]
fn the_audit_names_each_delegation_used_by_digest() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let t = propose(&l, &two_of_any(), "job-1");
        let link = r#"{"delegation_id": "dlg-1", "delegator": "user:carol", "delegate": "user:dave",
            "tenant": "tenant-a", "tools": ["refund_create"], "not_before": 0,
            "not_after": 9000000000000}"#;
        let extra = format!(r#", "on_behalf_of": "user:carol", "delegation": [{link}]"#);
        decide(
            &l,
            &member(&t, "d-1", "approved", "user:dave", l.now(), &extra),
        )
        .unwrap();
        approve(&l, &t, "d-2", "user:bob");
        let digest = actionseal_core::fingerprint(&json(link)).to_string();
        let (task, events) = l.task_history(&t.id).unwrap();
        assert_eq!(task.state.as_str(), "approved", "{engine:?}");
        let decided = &events[1];
        assert_eq!(decided.kind.as_str(), "decided");
        let d = &decided.detail;
        assert_eq!(str_field(d, "counted_as"), "user:carol", "{engine:?}");
        assert_eq!(str_field(d, "approver"), "user:dave", "{engine:?}");
        assert_eq!(
            canonicalize(field(d, "delegations")),
            format!(r#"["{digest}"]"#),
            "{engine:?}"
        );
        let met = events.last().unwrap();
        assert_eq!(met.kind.as_str(), "quorum_met");
        let counted = canonicalize(field(field(&met.detail, "quorum"), "counted"));
        assert!(counted.contains(&digest), "{engine:?}: {counted}");
        assert!(
            !counted.contains("order-17"),
            "no argument value in the audit"
        );
        both_hold(&db, &l, &t.id, &format!("{engine:?}: a delegated member"));
    }
}

/// Runs `sql` (an edit of the rounds' decisions) against a copy of them, returns the audit's
/// first break as (problem, task, field, seq), and puts the rows back as they were.
fn tampered(
    db: &Db,
    l: &Ledger,
    sql: &str,
) -> Option<(
    actionseal_core::ledger::Problem,
    String,
    &'static str,
    Option<i64>,
)> {
    db.sql("CREATE TABLE kept AS SELECT * FROM ledger_round_decisions");
    db.sql(sql);
    let b = l.audit_verify().unwrap().broken;
    db.sql(
        "DELETE FROM ledger_round_decisions;
         INSERT INTO ledger_round_decisions SELECT * FROM kept; DROP TABLE kept;",
    );
    b.map(|b| {
        (
            b.problem,
            b.task.unwrap_or_default(),
            b.field.unwrap(),
            b.seq,
        )
    })
}

#[test]
fn the_audit_holds_each_round_decision_to_its_event() {
    use actionseal_core::ledger::Problem::RowMismatch;
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let (_, t) = finance_first(&l, 3);
        let link = r#"{"delegation_id": "dlg-1", "delegator": "user:carol", "delegate": "user:dave",
            "tenant": "tenant-a", "tools": ["refund_create"], "not_before": 0,
            "not_after": 9000000000000}"#;
        let extra = format!(r#", "on_behalf_of": "user:carol", "delegation": [{link}]"#);
        decide(
            &l,
            &member(&t, "d-2", "approved", "user:dave", l.now(), &extra),
        )
        .unwrap();
        audit_holds(&l, &format!("{engine:?}"));
        let (_, events) = l.task_history(&t.id).unwrap();
        let seq = |decision: &str| {
            let e = events.iter().find(|e| {
                e.kind.as_str() == "decided" && e.decision_id.as_deref() == Some(decision)
            });
            Some(e.unwrap().seq)
        };
        let last = Some(events.last().unwrap().seq);
        let id = t.id.as_str();
        let at = |d: &str| format!("WHERE decision_id = '{d}'");
        let cases = [
            // A member's row deleted: found at its decided event.
            (format!("DELETE FROM ledger_round_decisions {}", at("d-2")), "n", seq("d-2")),
            // A row inserted where no event is: found at the task's last event.
            (
                format!(
                    "INSERT INTO ledger_round_decisions SELECT approval_id, 3, 'd-9', 'user:zed', \
                     role, decision, record, proof, decided_at, recorded_at \
                     FROM ledger_round_decisions {}",
                    at("d-1")
                ),
                "n",
                last,
            ),
            (
                format!("UPDATE ledger_round_decisions SET decision = 'rejected' {}", at("d-1")),
                "decision",
                seq("d-1"),
            ),
            (
                format!("UPDATE ledger_round_decisions SET counted_as = 'user:zed' {}", at("d-2")),
                "counted_as",
                seq("d-2"),
            ),
            (
                format!("UPDATE ledger_round_decisions SET role = 'risk' {}", at("d-2")),
                "role",
                seq("d-2"),
            ),
            (
                format!("UPDATE ledger_round_decisions SET role = NULL {}", at("d-1")),
                "role",
                seq("d-1"),
            ),
            (
                format!(
                    "UPDATE ledger_round_decisions SET decided_at = decided_at - 1 {}",
                    at("d-1")
                ),
                "decided_at",
                seq("d-1"),
            ),
            (
                format!(
                    "UPDATE ledger_round_decisions SET recorded_at = recorded_at + 1 {}",
                    at("d-1")
                ),
                "recorded_at",
                seq("d-1"),
            ),
            (
                format!("UPDATE ledger_round_decisions SET proof = '{{}}' {}", at("d-1")),
                "proof",
                seq("d-1"),
            ),
            // The record's approver, its frozen action's arguments, its delegation link.
            (
                format!(
                    "UPDATE ledger_round_decisions SET record = \
                     replace(record, 'user:bob', 'user:eve') {}",
                    at("d-1")
                ),
                "record",
                seq("d-1"),
            ),
            (
                format!(
                    "UPDATE ledger_round_decisions SET record = replace(record, '2500', '25000') {}",
                    at("d-1")
                ),
                "record",
                seq("d-1"),
            ),
            (
                format!(
                    "UPDATE ledger_round_decisions SET record = \
                     replace(record, '9000000000000', '9900000000000') {}",
                    at("d-2")
                ),
                "record",
                seq("d-2"),
            ),
            // Two members' rows swapped: found at the first.
            (
                "UPDATE ledger_round_decisions SET n = n + 10;
                 UPDATE ledger_round_decisions SET n = 13 - n;"
                    .to_owned(),
                "decision_id",
                seq("d-1"),
            ),
        ];
        for (sql, field, seq) in cases {
            let field = format!("round_decisions/{field}");
            assert_eq!(
                tampered(&db, &l, &sql),
                Some((RowMismatch, id.to_owned(), field.as_str(), seq)),
                "{engine:?}: {sql}"
            );
            audit_holds(&l, &format!("{engine:?}: restored after {sql}"));
        }
        // A row of a round that no event opened names no task.
        let sql = "INSERT INTO ledger_round_decisions SELECT 'apr_x', n, 'd-8', counted_as, role, \
                   decision, record, proof, decided_at, recorded_at FROM ledger_round_decisions \
                   WHERE decision_id = 'd-1'";
        let b = tampered(&db, &l, sql);
        assert_eq!(
            b,
            Some((
                RowMismatch,
                String::new(),
                "round_decisions/approval_id",
                None
            )),
            "{engine:?}"
        );
    }
}

/// A two-of-any task of `job`, approved by bob and carol.
fn approved(l: &Ledger, job: &str) -> Task {
    let t = propose(l, &two_of_any(), job);
    for (id, who) in [("1", "user:bob"), ("2", "user:carol")] {
        approve(l, &t, &format!("{job}-d{id}"), who);
    }
    l.task(&t.id).unwrap()
}

/// The executor's facts for a two-of-any task.
fn two_of_any_facts() -> OwnedValue {
    quorum_facts(&two_of_any(), "")
}

#[test]
fn a_proposal_shows_its_round() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let t = propose(&l, &two_of_any(), "job-1");
        assert_eq!(counted(&t), (0, 2), "{engine:?}: a new task");
        approve(&l, &t, "d-1", "user:bob");
        let again = propose(&l, &two_of_any(), "job-1");
        assert_eq!(
            counted(&again),
            (1, 1),
            "{engine:?}: the same task proposed again"
        );
        // A task without a quorum shows none.
        let plain = l
            .propose(&refund("job-2", "req-1", 2500), &refund_contract(), "agent")
            .unwrap();
        assert!(plain.quorum.is_none(), "{engine:?}");
    }
}

#[test]
fn an_amendment_shows_its_new_round() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let contract = two_of_any();
        let t = propose(&l, &contract, "job-1");
        approve(&l, &t, "d-1", "user:bob");
        let request = lowered(&t, &contract);
        let a = l.amend(&request, &contract).unwrap();
        assert_eq!(counted(&a.task), (0, 2), "{engine:?}: a new round");
        approve(&l, &a.task, "d-2", "user:bob");
        let again = l.amend(&request, &contract).unwrap();
        assert!(again.duplicate, "{engine:?}");
        assert_eq!(
            counted(&again.task),
            (1, 1),
            "{engine:?}: a repeated amendment"
        );
    }
}

#[test]
fn a_repeated_decision_shows_the_round() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let t = propose(&l, &two_of_any(), "job-1");
        let v = member(&t, "d-1", "approved", "user:bob", l.now(), "");
        decide(&l, &v).unwrap();
        let again = decide(&l, &v).unwrap();
        assert!(again.duplicate, "{engine:?}");
        assert_eq!(counted(&again.task), (1, 1), "{engine:?}");
    }
}

#[test]
fn every_claim_outcome_shows_the_round() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let facts = two_of_any_facts();
        // Another action presented: drift, the task stays approved.
        let t = approved(&l, "job-1");
        let other = action(
            &two_of_any(),
            r#"{"order_id": "order-17", "amount_minor": 9900, "currency": "USD"}"#,
            "job-1",
            "req-1",
        );
        let out = l
            .claim(&actionseal_ledger::ClaimRequest {
                task_id: &t.id,
                action: &other,
                facts: &facts,
                executor: "worker-1",
                lease_ms: HOUR,
                budget: None,
                proof: Default::default(),
            })
            .unwrap();
        assert_eq!(out.result(), "tool_args_drift", "{engine:?}");
        assert_eq!(counted(out.task()), (2, 0), "{engine:?}: drift");
        // Revoked: back for approval, in a new round.
        l.revoke(t.approval_id.as_deref().unwrap(), "user:erin")
            .unwrap();
        let out = claim(&l, &t, &facts).unwrap();
        assert_eq!(out.result(), "awaiting_reapproval", "{engine:?}");
        assert_eq!(counted(out.task()), (0, 2), "{engine:?}: reapproval");
        // The subject may no longer act: rejected before dispatch.
        let t = approved(&l, "job-2");
        let facts_no = json(&canonicalize(&facts).replace(
            r#""subject_authorized":{"authorized":true"#,
            r#""subject_authorized":{"authorized":false"#,
        ));
        let out = claim(&l, &t, &facts_no).unwrap();
        assert_eq!(out.result(), "rejected_pre_dispatch", "{engine:?}");
        assert_eq!(counted(out.task()), (2, 0), "{engine:?}: rejected");
        // Claimed.
        let t = approved(&l, "job-3");
        let out = claim(&l, &t, &facts).unwrap();
        assert_eq!(out.result(), "claimed", "{engine:?}");
        assert_eq!(counted(out.task()), (2, 0), "{engine:?}: claimed");
    }
}

#[test]
fn a_completion_and_a_reconciliation_show_the_round() {
    use actionseal_core::ledger::{Observed, Reported};
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let facts = two_of_any_facts();
        let t = approved(&l, "job-1");
        let out = claim(&l, &t, &facts).unwrap();
        let actionseal_ledger::ClaimOutcome::Claimed(c, _) = out else {
            panic!("{engine:?}: {}", out.result());
        };
        let done = l
            .complete(&t.id, c.fence, Reported::Unknown, None, "worker-1")
            .unwrap();
        assert_eq!(done.state.as_str(), "unknown", "{engine:?}");
        assert_eq!(counted(&done), (2, 0), "{engine:?}: completed");
        let r = l
            .reconcile(&t.id, Observed::Succeeded, None, "user:ops")
            .unwrap();
        assert_eq!(counted(&r), (2, 0), "{engine:?}: reconciled");
    }
}
