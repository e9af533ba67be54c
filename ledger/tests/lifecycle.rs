//! The operations' semantics, on both engines: the seed 001 scenario, drift, duplicate
//! decisions, proposals, tools without approval, revocation, completion and reconciliation.

mod common;

use actionseal_core::ledger::{Observed, Reported, State};
use actionseal_core::{Code, OwnedValue};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, ManualClock};
use common::*;
use std::sync::Arc;

fn claim(
    l: &Ledger,
    task: &str,
    presented: &OwnedValue,
    facts: &OwnedValue,
) -> actionseal_core::Result<ClaimOutcome> {
    l.claim(&ClaimRequest {
        task_id: task,
        action: presented,
        facts,
        executor: "worker-1",
        lease_ms: 5 * MINUTE,
        budget: None,
        proof: Default::default(),
    })
}

/// Seed 001, exactly: SO-1001, CNY 199.00, duplicate payment. Approved at 10:00 for 30
/// minutes, paused, the coordinator restarts, dispatch is attempted at 15:00.
#[test]
fn seed_001_approval_expires_while_paused() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0 - 5 * MINUTE);
        let contract = seed_contract();
        let act = action(
            &contract,
            r#"{"order_id": "SO-1001", "amount_minor": 19900, "currency": "CNY", "reason": "duplicate_payment"}"#,
            "job-7f93",
            "req-b285",
        );
        let business = Business::default();
        let l = db.open_at(&clock);
        let task = l.propose(&act, &contract, "agent:refunds").unwrap();
        assert_eq!(task.state, State::AwaitingApproval);
        clock.set(T0);
        let first = decision(&task, "dec-1000", "approved", T0, 30 * MINUTE);
        l.decide(&first).unwrap();
        drop(l);

        // The coordinator restarts; at 15:00 the dispatcher resumes the same durable task.
        clock.set(T0 + 5 * HOUR);
        let l = db.open_at(&clock);
        let out = claim(&l, &task.id, &act, &facts(&contract)).unwrap();
        let ClaimOutcome::Reapproval { task: t, verdict } = &out else {
            panic!("{engine:?}: expected re-approval, got {}", out.result());
        };
        assert_eq!(t.state, State::AwaitingReapproval);
        assert_eq!(t.id, task.id, "the same task, never a new one");
        assert!(verdict.reasons.iter().any(|r| r.as_str() == "expired"));
        assert_eq!(business.dispatch_count(), 0, "dispatch_count");
        assert_eq!(business.effect_count(), 0, "business_effect_count");

        // The old approval is not reused: not by claiming again, not by replaying its decision,
        // not by a new decision under its approval id.
        let e = claim(&l, &task.id, &act, &facts(&contract)).unwrap_err();
        assert_eq!(e.code(), Code::TaskNotClaimable);
        let replay = l.decide(&first).unwrap();
        assert!(replay.duplicate);
        assert_eq!(replay.task.state, State::AwaitingReapproval);
        let mut stale = first.clone();
        if let actionseal_core::Value::Object(o) = &mut stale {
            let mut entries = o.clone().into_entries();
            for (k, v) in entries.iter_mut() {
                if k == "decision_id" {
                    *v = json("\"dec-1001\"");
                }
            }
            *o = actionseal_core::Object::from_entries(entries).unwrap();
        }
        assert_eq!(
            l.decide(&stale).unwrap_err().code(),
            Code::TaskNotAwaitingDecision
        );
        // Proposing it again gives the same task, still awaiting re-approval.
        let again = l.propose(&act, &contract, "agent:refunds").unwrap();
        assert_eq!(
            (again.id.as_str(), again.state),
            (task.id.as_str(), State::AwaitingReapproval)
        );
        assert_eq!(l.tasks(None, None).unwrap().len(), 1);

        // A person re-approves the same task at 15:05; it is dispatched once.
        clock.set(T0 + 5 * HOUR + 5 * MINUTE);
        let t = l.task(&task.id).unwrap();
        assert_ne!(t.approval_id, task.approval_id, "a new approval round");
        let second = decision(&t, "dec-2000", "approved", clock_now(&clock), 30 * MINUTE);
        assert_eq!(l.decide(&second).unwrap().task.state, State::Approved);
        let ClaimOutcome::Claimed(c, _) = claim(&l, &task.id, &act, &facts(&contract)).unwrap()
        else {
            panic!("{engine:?}: the re-approved task must be claimable");
        };
        assert_eq!(c.idempotency_key, task.idempotency_key);
        assert!(business.dispatch(&c.idempotency_key));
        let done = l
            .complete(
                &task.id,
                c.fence,
                Reported::Succeeded,
                Some(&json(r#"{"refund_id": "rf-1"}"#)),
                "worker-1",
            )
            .unwrap();
        assert_eq!(done.state, State::Succeeded);
        assert_eq!((business.dispatch_count(), business.effect_count()), (1, 1));
        assert_eq!(
            kinds(&l, &task.id),
            [
                "proposed",
                "decided",
                "sent_to_reapproval",
                "claim_refused",
                "decision_duplicate",
                "decision_refused",
                "propose_duplicate",
                "decided",
                "claimed",
                "completed"
            ]
        );
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}

fn clock_now(c: &ManualClock) -> i64 {
    use actionseal_ledger::Clock;
    c.now_ms()
}

#[test]
fn drift_is_refused_and_the_approved_action_returned() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = refund_contract();
        let act = refund("job-1", "req-1", 2500);
        let task = l.propose(&act, &contract, "agent").unwrap();
        l.decide(&decision(&task, "d1", "approved", l.now(), HOUR))
            .unwrap();
        let drifted = refund("job-1", "req-1", 2600);
        let out = claim(&l, &task.id, &drifted, &facts(&contract)).unwrap();
        let ClaimOutcome::Drift {
            task: t,
            verdict,
            approved_action,
        } = &out
        else {
            panic!("{engine:?}: {}", out.result());
        };
        assert_eq!(t.state, State::Approved);
        assert_eq!(approved_action, &act);
        assert_eq!(verdict.drift, ["/args/amount_minor"]);
        let ev = l.task_history(&task.id).unwrap().1.pop().unwrap();
        assert_eq!(ev.kind.as_str(), "tool_args_drift");
        assert_eq!(ev.drift, ["/args/amount_minor"]);
        assert_eq!(ev.approved_digest, Some(task.action_digest));
        assert_ne!(ev.action_digest, Some(task.action_digest));
        // Events hold digests and pointers, never argument values.
        let line = l.audit_export().unwrap();
        assert!(
            !line.contains(":2600,") && !line.contains(":2600}") && !line.contains("\"order-17\""),
            "{line}"
        );
        // Resuming with the approved action claims it.
        assert_eq!(
            claim(&l, &task.id, approved_action, &facts(&contract))
                .unwrap()
                .result(),
            "claimed"
        );
    }
}

#[test]
fn duplicate_decisions_record_one_decision() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = Arc::new(db.open());
        let contract = refund_contract();
        let task = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let d = decision(&task, "dec-1", "approved", l.now(), HOUR);
        // Three replays in a row, then 8 concurrent deliveries.
        for i in 0..3 {
            assert_eq!(l.decide(&d).unwrap().duplicate, i > 0);
        }
        std::thread::scope(|s| {
            for _ in 0..8 {
                let (l, d) = (l.clone(), d.clone());
                s.spawn(move || assert!(l.decide(&d).unwrap().duplicate));
            }
        });
        // Concurrent first deliveries on a second task: exactly one is not a duplicate.
        let t2 = l
            .propose(&refund("job-2", "req-1", 2500), &contract, "agent")
            .unwrap();
        let d2 = decision(&t2, "dec-2", "approved", l.now(), HOUR);
        let firsts: usize = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8)
                .map(|_| {
                    let (l, d2) = (l.clone(), d2.clone());
                    s.spawn(move || usize::from(!l.decide(&d2).unwrap().duplicate))
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(firsts, 1, "{engine:?}");
        let decided = |id: &str| kinds(&l, id).iter().filter(|k| *k == "decided").count();
        assert_eq!((decided(&task.id), decided(&t2.id)), (1, 1));
        // The same id with other content is a conflict, and changes nothing.
        let other = decision(&task, "dec-1", "rejected", l.now(), HOUR);
        assert_eq!(l.decide(&other).unwrap_err().code(), Code::DecisionConflict);
        assert_eq!(l.task(&task.id).unwrap().state, State::Approved);
        // An id recorded for another task, delivered for a task that awaits its decision, is a
        // conflict too: the task still awaits one, and only the refusal is recorded (PostgreSQL
        // first tries without looking the id up, and keeps nothing of that attempt).
        let t4 = l
            .propose(&refund("job-4", "req-1", 2500), &contract, "agent")
            .unwrap();
        let e = l
            .decide(&decision(&t4, "dec-2", "approved", l.now(), HOUR))
            .unwrap_err();
        assert_eq!(e.code(), Code::DecisionConflict, "{engine:?}");
        assert_eq!(l.task(&t4.id).unwrap().state, State::AwaitingApproval);
        assert_eq!(kinds(&l, &t4.id), ["proposed", "decision_refused"]);
        // A decision about another digest is refused.
        let mut t3 = l
            .propose(&refund("job-3", "req-1", 2500), &contract, "agent")
            .unwrap();
        t3.action_digest = task.action_digest;
        let e = l
            .decide(&decision(&t3, "dec-3", "approved", l.now(), HOUR))
            .unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::DecisionMismatch, "/action_digest")
        );
        assert_eq!(l.task(&t3.id).unwrap().state, State::AwaitingApproval);
        // A task not awaiting a decision says which state it is in.
        let late = decision(
            &l.task(&task.id).unwrap(),
            "dec-9",
            "approved",
            l.now(),
            HOUR,
        );
        let e = l.decide(&late).unwrap_err();
        assert_eq!(e.code(), Code::TaskNotAwaitingDecision);
        assert!(e.message().contains("approved"), "{e}");
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}

#[test]
fn proposals_are_identified_by_tenant_job_and_request() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = refund_contract();
        let a = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let b = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        assert_eq!(a.id, b.id);
        let e = l
            .propose(&refund("job-1", "req-1", 2600), &contract, "agent")
            .unwrap_err();
        assert_eq!(e.code(), Code::TaskConflict);
        assert_eq!(l.tasks(None, Some("tenant-a")).unwrap().len(), 1);
        assert_eq!(
            kinds(&l, &a.id),
            ["proposed", "propose_duplicate", "propose_refused"]
        );
        // Arguments the contract refuses never become a task.
        let bad = json(
            &actionseal_core::canonicalize(&refund("job-2", "req-1", 2500)).replace("2500", "-5"),
        );
        assert_eq!(
            l.propose(&bad, &contract, "agent").unwrap_err().code(),
            Code::OutOfRange
        );
        assert_eq!(l.tasks(None, None).unwrap().len(), 1);
    }
}

#[test]
fn a_tool_without_approval_is_claimable_once_budgeted_and_audited() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = lookup_contract();
        let act = action(&contract, r#"{"order_id": "SO-1"}"#, "job-1", "req-1");
        let task = l.propose(&act, &contract, "agent").unwrap();
        assert_eq!(
            (task.state, task.approval_required),
            (State::Approved, false)
        );
        l.set_budget("lookups", 1).unwrap();
        let f = facts(&contract);
        fn req<'a>(
            task: &'a str,
            presented: &'a OwnedValue,
            f: &'a OwnedValue,
        ) -> ClaimRequest<'a, 'static> {
            ClaimRequest {
                task_id: task,
                action: presented,
                facts: f,
                executor: "w",
                lease_ms: MINUTE,
                budget: Some("lookups"),
                proof: Default::default(),
            }
        }
        let other = action(&contract, r#"{"order_id": "SO-2"}"#, "job-1", "req-1");
        let out = l.claim(&req(&task.id, &other, &f)).unwrap();
        assert_eq!(out.result(), "tool_args_drift");
        let ClaimOutcome::Claimed(c, _) = l.claim(&req(&task.id, &act, &f)).unwrap() else {
            panic!("claimable at once");
        };
        assert_eq!(
            l.claim(&req(&task.id, &act, &f)).unwrap_err().code(),
            Code::AlreadyClaimed
        );
        assert_eq!(l.budget("lookups").unwrap().reserved_minor, 1);
        l.complete(&task.id, c.fence, Reported::Succeeded, None, "w")
            .unwrap();
        assert_eq!(l.budget("lookups").unwrap().spent_minor, 1);
        assert_eq!(
            kinds(&l, &task.id),
            [
                "proposed",
                "tool_args_drift",
                "claimed",
                "claim_refused",
                "completed"
            ]
        );
    }
}

#[test]
fn revocation_sends_the_task_back_for_approval() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = refund_contract();
        let act = refund("job-1", "req-1", 2500);
        let task = l.propose(&act, &contract, "agent").unwrap();
        l.decide(&decision(&task, "d1", "approved", l.now(), HOUR))
            .unwrap();
        let apr = task.approval_id.clone().unwrap();
        assert!(!l.revoke(&apr, "admin").unwrap().duplicate);
        assert!(l.revoke(&apr, "admin").unwrap().duplicate);
        let out = claim(&l, &task.id, &act, &facts(&contract)).unwrap();
        assert_eq!(out.result(), "awaiting_reapproval");
        let t = l.task(&task.id).unwrap();
        l.decide(&decision(&t, "d2", "approved", l.now(), HOUR))
            .unwrap();
        assert_eq!(
            claim(&l, &task.id, &act, &facts(&contract))
                .unwrap()
                .result(),
            "claimed"
        );
        assert_eq!(
            l.revoke("apr_nope", "admin").unwrap_err().code(),
            Code::ApprovalNotFound
        );
    }
}

#[test]
fn rejections_and_unauthorised_subjects_end_the_task() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = refund_contract();
        let a = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        assert_eq!(
            l.decide(&decision(&a, "d1", "rejected", l.now(), HOUR))
                .unwrap()
                .task
                .state,
            State::Rejected
        );
        let b = l
            .propose(&refund("job-2", "req-1", 2500), &contract, "agent")
            .unwrap();
        l.decide(&decision(&b, "d2", "approved", l.now(), HOUR))
            .unwrap();
        let mut f = facts(&contract);
        let text = actionseal_core::canonicalize(&f).replace(
            "\"subject_authorized\":{\"authorized\":true",
            "\"subject_authorized\":{\"authorized\":false",
        );
        f = json(&text);
        let out = claim(&l, &b.id, &refund("job-2", "req-1", 2500), &f).unwrap();
        assert_eq!(out.result(), "rejected_pre_dispatch");
        assert_eq!(out.task().state, State::RejectedPreDispatch);
        // The caller cannot supply the ledger's own facts.
        let c = l
            .propose(&refund("job-3", "req-1", 2500), &contract, "agent")
            .unwrap();
        l.decide(&decision(&c, "d3", "approved", l.now(), HOUR))
            .unwrap();
        let sneaky =
            json(&actionseal_core::canonicalize(&facts(&contract)).replace("{", "{\"now\":0,"));
        let e = claim(&l, &c.id, &refund("job-3", "req-1", 2500), &sneaky).unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::InvalidContext, "/now"));
    }
}

#[test]
fn completion_needs_the_current_fence_and_unknown_is_reconciled() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let contract = refund_contract();
        let act = refund("job-1", "req-1", 2500);
        let task = l.propose(&act, &contract, "agent").unwrap();
        l.decide(&decision(&task, "d1", "approved", T0, HOUR))
            .unwrap();
        l.set_budget("refunds", 100).unwrap();
        let req = ClaimRequest {
            task_id: &task.id,
            action: &act,
            facts: &facts(&contract),
            executor: "w1",
            lease_ms: MINUTE,
            budget: Some("refunds"),
            proof: Default::default(),
        };
        let ClaimOutcome::Claimed(c1, _) = l.claim(&req).unwrap() else {
            panic!()
        };
        // A timeout: the executor does not know. The reservation is held.
        let t = l
            .complete(&task.id, c1.fence, Reported::Unknown, None, "w1")
            .unwrap();
        assert_eq!(t.state, State::Unknown);
        assert_eq!(l.budget("refunds").unwrap().reserved_minor, 25);
        assert_eq!(l.claim(&req).unwrap_err().code(), Code::AlreadyClaimed);
        // The business system says it never ran: claimable again, same key, higher fence.
        l.reconcile(&task.id, Observed::NotExecuted, None, "reconciler")
            .unwrap();
        assert_eq!(l.budget("refunds").unwrap().reserved_minor, 0);
        let ClaimOutcome::Claimed(c2, _) = l.claim(&req).unwrap() else {
            panic!()
        };
        assert!(c2.fence > c1.fence);
        assert_eq!(c2.idempotency_key, c1.idempotency_key);
        let e = l
            .complete(&task.id, c1.fence, Reported::Succeeded, None, "w1")
            .unwrap_err();
        assert_eq!(e.code(), Code::StaleFence);
        // The lease runs out: unknown, and a late completion is refused.
        clock.advance(2 * MINUTE).unwrap();
        let e = l
            .complete(&task.id, c2.fence, Reported::Succeeded, None, "w1")
            .unwrap_err();
        assert_eq!(e.code(), Code::LeaseExpired);
        assert_eq!(l.task(&task.id).unwrap().state, State::Unknown);
        assert_eq!(
            l.reconcile(&task.id, Observed::Succeeded, None, "reconciler")
                .unwrap()
                .state,
            State::Succeeded
        );
        assert_eq!(
            l.budget("refunds").unwrap(),
            actionseal_ledger::Budget {
                name: "refunds".into(),
                limit_minor: 100,
                spent_minor: 25,
                reserved_minor: 0
            }
        );
        let e = l
            .reconcile(&task.id, Observed::Failed, None, "reconciler")
            .unwrap_err();
        assert_eq!(e.code(), Code::TaskNotInDoubt);
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}

/// The same operations at the same times give byte-identical audits on both engines.
#[test]
fn both_engines_write_the_same_audit() {
    let exports: Vec<String> = engines()
        .into_iter()
        .map(|engine| {
            let db = Db::fresh(engine);
            let clock = ManualClock::new(T0);
            let l = db.open_at(&clock);
            let contract = refund_contract();
            let act = refund("job-1", "req-1", 2500);
            let task = l.propose(&act, &contract, "agent").unwrap();
            clock.advance(1000).unwrap();
            l.decide(&decision(&task, "d1", "approved", T0, HOUR))
                .unwrap();
            clock.advance(1000).unwrap();
            let _ = claim(
                &l,
                &task.id,
                &refund("job-1", "req-1", 9),
                &facts(&contract),
            );
            let ClaimOutcome::Claimed(c, _) = claim(&l, &task.id, &act, &facts(&contract)).unwrap()
            else {
                panic!()
            };
            clock.advance(1000).unwrap();
            l.complete(
                &task.id,
                c.fence,
                Reported::Succeeded,
                Some(&json("{\"ok\":true}")),
                "worker-1",
            )
            .unwrap();
            l.audit_export().unwrap()
        })
        .collect();
    assert!(exports.windows(2).all(|w| w[0] == w[1]), "{exports:#?}");
    let report = actionseal_core::ledger::verify_audit(exports[0].as_bytes(), &[]);
    assert_eq!((report.events, report.broken), (5, None));
}

/// Seed 003's audit list, answered from the events of one task alone: who proposed, for whom,
/// which task and request, which tool and contract, which digest was approved, by whom, when,
/// under which decision, which executor claimed it and when, whether the dispatched action
/// matched, what the business answered, and the duplicates on the way.
#[test]
fn the_audit_answers_seed_003() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let contract = refund_contract();
        let act = refund("job-7f93", "req-b285", 2500);
        let task = l.propose(&act, &contract, "agent:refunds").unwrap();
        clock.advance(MINUTE).unwrap();
        let d = decision(&task, "dec-42", "approved", T0 + MINUTE, HOUR);
        l.decide(&d).unwrap();
        l.decide(&d).unwrap();
        clock.advance(MINUTE).unwrap();
        let ClaimOutcome::Claimed(c, _) = claim(&l, &task.id, &act, &facts(&contract)).unwrap()
        else {
            panic!()
        };
        l.complete(
            &task.id,
            c.fence,
            Reported::Succeeded,
            Some(&json(r#"{"refund_id": "rf-9"}"#)),
            "worker-1",
        )
        .unwrap();
        let events = audit_events(&l);
        let of = |kind: &str| {
            events
                .iter()
                .find(|e| str_field(e, "kind") == kind)
                .unwrap()
                .clone()
        };
        let detail = |e: &OwnedValue, k: &str| str_field(field(e, "detail"), k).to_owned();
        let digest = task.action_digest.to_string();

        let p = of("proposed");
        assert_eq!(str_field(&p, "actor"), "agent:refunds");
        assert_eq!(detail(&p, "subject"), "user:alice");
        assert_eq!(
            (
                str_field(&p, "task"),
                detail(&p, "job_id").as_str(),
                detail(&p, "request_id").as_str()
            ),
            (task.id.as_str(), "job-7f93", "req-b285")
        );
        assert_eq!(detail(&p, "tool"), "refund_create");
        assert_eq!(
            detail(&p, "contract"),
            actionseal_core::fingerprint(&contract).to_string()
        );
        let dec = of("decided");
        assert_eq!(str_field(&dec, "approved_digest"), digest);
        assert_eq!(
            (str_field(&dec, "actor"), detail(&dec, "approver").as_str()),
            ("user:bob", "user:bob")
        );
        assert_eq!(str_field(&dec, "decision_id"), "dec-42");
        assert_eq!(field(&dec, "at"), &json(&(T0 + MINUTE).to_string()));
        assert_eq!(
            str_field(&of("decision_duplicate"), "decision_id"),
            "dec-42"
        );
        let cl = of("claimed");
        assert_eq!(str_field(&cl, "actor"), "worker-1");
        assert_eq!(field(&cl, "at"), &json(&(T0 + 2 * MINUTE).to_string()));
        assert_eq!(
            str_field(&cl, "action_digest"),
            str_field(&cl, "approved_digest")
        );
        assert_eq!(detail(&cl, "idempotency_key"), task.idempotency_key);
        let done = of("completed");
        assert_eq!(str_field(&done, "outcome"), "succeeded");
        assert_eq!(
            detail(&done, "result_digest"),
            actionseal_core::fingerprint(&json(r#"{"refund_id": "rf-9"}"#)).to_string()
        );
        // No argument values, no business payload.
        let text = l.audit_export().unwrap();
        assert!(!text.contains("\"order-17\"") && !text.contains("\"rf-9\""));
    }
}

/// Two ledgers on one database (two executors' processes): what one of them last wrote about a
/// task is no longer true once the other moved it, and every answer is the database's. A
/// ledger that decided a task, and so remembers it approved, is refused a claim another ledger
/// won; the winner's completion holds; the loser's late completion is refused on its fence.
#[test]
fn a_second_ledger_on_the_database_is_never_answered_from_the_first_ones_past() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (a, b) = (db.open(), db.open());
        let contract = refund_contract();
        let f = facts(&contract);
        let act = refund("job-1", "req-1", 2500);
        let task = a.propose(&act, &contract, "agent").unwrap();
        a.decide(&decision(&task, "d1", "approved", a.now(), HOUR))
            .unwrap();
        let ClaimOutcome::Claimed(won, _) = claim(&b, &task.id, &act, &f).unwrap() else {
            panic!("the first claim wins")
        };
        let e = claim(&a, &task.id, &act, &f).unwrap_err();
        assert_eq!(e.code(), Code::AlreadyClaimed, "{engine:?}");
        // The loser saw it claimed; now the winner completes, and the loser, which last saw
        // it claimed, cannot complete it on a fence it never held.
        b.complete(&task.id, won.fence, Reported::Succeeded, None, "w2")
            .unwrap();
        let e = a
            .complete(&task.id, won.fence + 1, Reported::Failed, None, "w1")
            .unwrap_err();
        assert!(
            matches!(e.code(), Code::StaleFence | Code::TaskNotClaimed),
            "{engine:?}: {e}"
        );
        assert_eq!(a.task(&task.id).unwrap().state, State::Succeeded);
        // A decision replayed to the first ledger after the second revoked the approval is
        // answered from the database too.
        let t2 = a
            .propose(&refund("job-2", "req-1", 2500), &contract, "agent")
            .unwrap();
        a.decide(&decision(&t2, "d2", "approved", a.now(), HOUR))
            .unwrap();
        b.revoke(t2.approval_id.as_deref().unwrap(), "admin")
            .unwrap();
        let out = claim(&a, &t2.id, &refund("job-2", "req-1", 2500), &f);
        assert!(
            !matches!(out, Ok(ClaimOutcome::Claimed(..))),
            "{engine:?}: a revoked approval was claimed"
        );
        let state = b.task(&t2.id).unwrap().state;
        assert_ne!(state, State::Claimed, "{engine:?}");
        assert_eq!(a.task(&t2.id).unwrap().state, state);
        assert!(a.audit_verify().unwrap().broken.is_none());
    }
}
