//! A decision's time is the signer's word; the ledger bounds it by its own: no earlier than
//! the start of the task's current round (its proposal, re-approval or last amendment), no
//! later than the ledger's clock as the decision arrives. On both engines, and across the
//! upgrade that added the round's start.

mod common;

use actionseal_core::ledger::State;
use actionseal_core::{canonicalize, Code};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, ManualClock, Task};
use common::*;

fn refused(l: &Ledger, task: &Task, id: &str, at: i64) -> Code {
    match l.decide(&decision(task, id, "approved", at, HOUR)) {
        Ok(d) => panic!("recorded a decision dated {at}: {:?}", d.decision),
        Err(e) => {
            assert_eq!(e.path(), "/decided_at");
            e.code()
        }
    }
}

fn claim(l: &Ledger, task: &Task) -> ClaimOutcome {
    l.claim(&ClaimRequest {
        task_id: &task.id,
        action: task.action.value(),
        facts: &facts(&refund_contract()),
        executor: "worker-1",
        lease_ms: HOUR,
        budget: None,
        proof: Default::default(),
    })
    .unwrap()
}

#[test]
fn a_decision_is_dated_inside_its_round() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let contract = refund_contract();
        let task = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        assert_eq!(task.round_started_at, T0);
        clock.set(T0 + MINUTE);
        // Before the task existed (the red-team's decided_at = 0), and after the ledger's now.
        for at in [0, T0 - 1, T0 + MINUTE + 1] {
            assert_eq!(
                refused(&l, &task, "dec-1", at),
                Code::DecidedOutsideRound,
                "{engine:?}: {at}"
            );
        }
        // An amendment starts the decision anew: a decision dated before it is not about the
        // amended action.
        let amendment = json(&format!(
            r#"{{"task_id": "{}", "amends": "{}", "action": {}, "reviewer": "user:carol",
                "reason": "partial refund agreed"}}"#,
            task.id,
            task.action_digest,
            canonicalize(&refund("job-1", "req-1", 2000))
        ));
        let task = l.amend(&amendment, &contract).unwrap().task;
        assert_eq!(task.round_started_at, T0 + MINUTE);
        assert_eq!(
            refused(&l, &task, "dec-1", T0 + MINUTE - 1),
            Code::DecidedOutsideRound
        );
        // Both ends are inclusive.
        let decided = l
            .decide(&decision(&task, "dec-1", "approved", T0 + MINUTE, HOUR))
            .unwrap();
        assert_eq!(decided.task.state, State::Approved);

        // A re-approval starts a new round: the old round's time does not count.
        l.revoke(task.approval_id.as_deref().unwrap(), "user:admin")
            .unwrap();
        clock.set(T0 + 2 * MINUTE);
        let ClaimOutcome::Reapproval { task, .. } = claim(&l, &decided.task) else {
            panic!("{engine:?}: a revoked approval goes back to the reviewer")
        };
        assert_eq!(task.round_started_at, T0 + 2 * MINUTE);
        assert_eq!(
            refused(&l, &task, "dec-2", T0 + MINUTE),
            Code::DecidedOutsideRound
        );
        l.decide(&decision(&task, "dec-2", "approved", T0 + 2 * MINUTE, HOUR))
            .unwrap();
        // Every refusal is audited on the task's chain.
        let refusals = kinds(&l, &task.id)
            .iter()
            .filter(|k| *k == "decision_refused")
            .count();
        assert_eq!(refusals, 5);
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}

/// A version 4 ledger (no round start, proof, policy or counters) upgrades in place: a task
/// waiting for its decision keeps the start of its round, and the policy is "optional".
#[test]
fn a_version_4_ledger_is_upgraded_in_place() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let contract = refund_contract();
        let waiting = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        clock.set(T0 + MINUTE);
        let amended = json(&format!(
            r#"{{"task_id": "{}", "amends": "{}", "action": {}, "reviewer": "user:carol",
                "reason": "partial refund agreed"}}"#,
            waiting.id,
            waiting.action_digest,
            canonicalize(&refund("job-1", "req-1", 2000))
        ));
        let waiting = l.amend(&amended, &contract).unwrap().task;
        let done = whole_lifecycle(&l, "job-2", "dec-2", "worker-1");
        let audit = l.audit_export().unwrap();
        drop(l);
        downgrade_to_v4(&db);

        clock.set(T0 + 2 * MINUTE);
        let l = db.open_at(&clock);
        assert_eq!(l.audit_export().unwrap(), audit, "{engine:?}");
        assert_eq!(
            l.policy().unwrap().proof,
            actionseal_ledger::ProofRequirement::Optional
        );
        let t = l.task(&waiting.id).unwrap();
        assert_eq!(t.round_started_at, T0 + MINUTE);
        assert!(t.proof.is_none());
        assert_eq!(l.task(&done).unwrap().state, State::Succeeded);
        assert_eq!(refused(&l, &t, "dec-1", T0), Code::DecidedOutsideRound);
        l.decide(&decision(&t, "dec-1", "approved", T0 + MINUTE, HOUR))
            .unwrap();
        assert!(matches!(claim(&l, &t), ClaimOutcome::Claimed(..)));
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}
