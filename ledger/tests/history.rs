//! A task's history on both engines. Since schema version 4 a task's events are a list (each
//! event names the one before it about its task, the task's row names its last) instead of
//! entries of an index by task: the history must still be exactly the audit's events about
//! the task, in the order they were written, through refusals, duplicates and drifts (events
//! without another write of the task's row), several tasks in one operation, and an upgrade
//! from version 3 with events before and after it.

mod common;

use actionseal_core::ledger::{Observed, Reported};
use actionseal_core::{Code, Digest, OwnedValue};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, ManualClock};
use common::*;

fn claim(l: &Ledger, task: &str, presented: &OwnedValue, lease_ms: i64) -> ClaimOutcome {
    l.claim(&ClaimRequest {
        task_id: task,
        action: presented,
        facts: &facts(&refund_contract()),
        executor: "worker-1",
        lease_ms,
        budget: None,
        proof: Default::default(),
    })
    .unwrap()
}

fn fence(out: &ClaimOutcome) -> i64 {
    match out {
        ClaimOutcome::Claimed(c, _) => c.fence,
        other => panic!("not claimed: {}", other.result()),
    }
}

/// (chain, seq) of each event about `task` in the exported audit, in export order (the order
/// the events were written): what the history must be.
fn exported(l: &Ledger, task: &str) -> Vec<(i64, i64)> {
    l.audit_export()
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|e| e["task"] == task)
        .map(|e| (e["chain"].as_i64().unwrap(), e["seq"].as_i64().unwrap()))
        .collect()
}

/// (chain, seq) of each event of the task's history.
fn history(l: &Ledger, task: &str) -> Vec<(i64, i64)> {
    l.task_history(task)
        .unwrap()
        .1
        .iter()
        .map(|e| (e.chain, e.seq))
        .collect()
}

fn assert_histories(l: &Ledger, tasks: &[String], what: &str) {
    for t in tasks {
        let h = history(l, t);
        assert!(!h.is_empty(), "{what}: {t} has no history");
        assert_eq!(h, exported(l, t), "{what}: the history of {t}");
    }
    assert!(l.audit_verify().unwrap().broken.is_none(), "{what}");
}

/// Drives tasks `{prefix}-*` through every operation, including those that append an event
/// about a task without another write of its row, and one that moves several tasks at once.
/// Returns the task ids.
fn busy(l: &Ledger, clock: &ManualClock, prefix: &str) -> Vec<String> {
    let contract = refund_contract();
    let mut ids = Vec::new();

    // Duplicates, conflicts, a drift and refused claims and completions, around a lifecycle.
    let act = refund(&format!("{prefix}-a"), "req-1", 2500);
    let t = l.propose(&act, &contract, "agent").unwrap();
    ids.push(t.id.clone());
    l.propose(&act, &contract, "agent").unwrap();
    let other = refund(&format!("{prefix}-a"), "req-1", 2400);
    let e = l.propose(&other, &contract, "agent").unwrap_err();
    assert_eq!(e.code(), Code::TaskConflict);
    let d = decision(&t, &format!("{prefix}-d1"), "approved", l.now(), HOUR);
    l.decide(&d).unwrap();
    assert!(l.decide(&d).unwrap().duplicate);
    let mut t_other = t.clone();
    t_other.action_digest = Digest::of(b"another action");
    let conflict = decision(&t_other, &format!("{prefix}-d1"), "approved", l.now(), HOUR);
    assert_eq!(
        l.decide(&conflict).unwrap_err().code(),
        Code::DecisionConflict
    );
    assert_eq!(claim(l, &t.id, &other, HOUR).result(), "tool_args_drift");
    let f = fence(&claim(l, &t.id, &act, HOUR));
    assert_eq!(
        l.claim(&ClaimRequest {
            task_id: &t.id,
            action: &act,
            facts: &facts(&contract),
            executor: "worker-2",
            lease_ms: HOUR,
            budget: None,
            proof: Default::default(),
        })
        .unwrap_err()
        .code(),
        Code::AlreadyClaimed
    );
    let stale = l.complete(&t.id, f - 1, Reported::Succeeded, None, "worker-1");
    assert_eq!(stale.unwrap_err().code(), Code::StaleFence);
    l.complete(&t.id, f, Reported::Succeeded, None, "worker-1")
        .unwrap();
    assert_eq!(
        kinds(l, &t.id),
        [
            "proposed",
            "propose_duplicate",
            "propose_refused",
            "decided",
            "decision_duplicate",
            "decision_refused",
            "tool_args_drift",
            "claimed",
            "claim_refused",
            "complete_refused",
            "completed"
        ]
    );

    // An amendment; a completion after the lease (the lease's expiry and the refusal, two
    // events of one operation); a reconciliation and a second claim.
    let act = refund(&format!("{prefix}-b"), "req-1", 2500);
    let t = l.propose(&act, &contract, "agent").unwrap();
    ids.push(t.id.clone());
    let amended = refund(&format!("{prefix}-b"), "req-1", 2000);
    let t = l.amend(&amendment(&t, &amended), &contract).unwrap().task;
    let d = decision(&t, &format!("{prefix}-d2"), "approved", l.now(), HOUR);
    l.decide(&d).unwrap();
    let f = fence(&claim(l, &t.id, &amended, MINUTE));
    clock.advance(2 * MINUTE).unwrap();
    let late = l.complete(&t.id, f, Reported::Succeeded, None, "worker-1");
    assert_eq!(late.unwrap_err().code(), Code::LeaseExpired);
    l.reconcile(&t.id, Observed::NotExecuted, None, "ops")
        .unwrap();
    let f = fence(&claim(l, &t.id, &amended, HOUR));
    l.complete(&t.id, f, Reported::Failed, None, "worker-1")
        .unwrap();
    assert_eq!(
        kinds(l, &t.id),
        [
            "proposed",
            "amended",
            "decided",
            "claimed",
            "lease_expired",
            "complete_refused",
            "reconciled",
            "claimed",
            "completed"
        ]
    );

    // Several tasks (in several chains) whose leases run out together: one operation.
    let mut leased = Vec::new();
    for i in 0..8 {
        let act = refund(&format!("{prefix}-c{i}"), "req-1", 2500);
        let t = l.propose(&act, &contract, "agent").unwrap();
        let d = decision(&t, &format!("{prefix}-d3-{i}"), "approved", l.now(), HOUR);
        l.decide(&d).unwrap();
        claim(l, &t.id, &act, MINUTE);
        leased.push(t.id.clone());
    }
    clock.advance(2 * MINUTE).unwrap();
    let mut expired = l.expire_leases().unwrap();
    expired.sort();
    let mut expected = leased.clone();
    expected.sort();
    assert_eq!(expired, expected);
    for id in &leased {
        assert_eq!(
            kinds(l, id),
            ["proposed", "decided", "claimed", "lease_expired"]
        );
    }
    ids.extend(leased);

    // A revocation, and the claim that sends the task back for approval.
    let act = refund(&format!("{prefix}-d"), "req-1", 2500);
    let t = l.propose(&act, &contract, "agent").unwrap();
    ids.push(t.id.clone());
    let d = decision(&t, &format!("{prefix}-d4"), "approved", l.now(), HOUR);
    l.decide(&d).unwrap();
    l.revoke(t.approval_id.as_deref().unwrap(), "ops").unwrap();
    assert_eq!(claim(l, &t.id, &act, HOUR).result(), "awaiting_reapproval");
    assert_eq!(
        kinds(l, &t.id),
        ["proposed", "decided", "revoked", "sent_to_reapproval"]
    );
    ids
}

#[test]
fn a_history_is_the_audit_of_its_task() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let ids = busy(&l, &clock, "job");
        assert_histories(&l, &ids, &format!("{engine:?}"));
        // Another process (a new ledger on the same database) reads the same.
        drop(l);
        let l = db.open_at(&clock);
        assert_histories(&l, &ids, &format!("{engine:?}, reopened"));
    }
}

/// Turns a current ledger into version 3's layout, in place: no links, every event indexed
/// by task.
fn downgrade_to_v3(db: &Db) {
    downgrade_to_v4(db);
    db.sql(
        "ALTER TABLE ledger_tasks DROP COLUMN last_event;
         ALTER TABLE ledger_events DROP COLUMN task_prev;
         DROP TABLE ledger_links;
         CREATE INDEX ledger_events_task ON ledger_events (task, id);
         UPDATE ledger_schema SET version = 3;",
    );
}

#[test]
fn a_version_3_ledger_links_its_new_events_to_its_old_ones() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let before = busy(&l, &clock, "old");
        // A task half-way through, to carry on after the upgrade.
        let contract = refund_contract();
        let act = refund("carry-on", "req-1", 2500);
        let t = l.propose(&act, &contract, "agent").unwrap();
        l.decide(&decision(&t, "carry-on-d", "approved", l.now(), HOUR))
            .unwrap();
        let audit = l.audit_export().unwrap();
        drop(l);
        downgrade_to_v3(&db);

        let l = db.open_at(&clock);
        assert_eq!(
            l.audit_export().unwrap(),
            audit,
            "{engine:?}: the audit as it was"
        );
        let mut all = before.clone();
        all.push(t.id.clone());
        assert_histories(&l, &all, &format!("{engine:?}, upgraded"));

        // Events after the upgrade, about old tasks and new ones.
        let f = fence(&claim(&l, &t.id, &act, HOUR));
        l.complete(&t.id, f, Reported::Succeeded, None, "worker-1")
            .unwrap();
        let refused = l.complete(&t.id, f, Reported::Succeeded, None, "worker-1");
        assert_eq!(refused.unwrap_err().code(), Code::TaskNotClaimed);
        assert_eq!(
            kinds(&l, &t.id),
            [
                "proposed",
                "decided",
                "claimed",
                "completed",
                "complete_refused"
            ]
        );
        l.propose(&refund("old-a", "req-1", 2500), &contract, "agent")
            .unwrap();
        all.extend(busy(&l, &clock, "new"));
        assert_histories(&l, &all, &format!("{engine:?}, after the upgrade"));

        // A build of version 3 still writing to the upgraded ledger (an event without a link)
        // is refused rather than left out of its task's history.
        assert!(db.sql_fails(&format!(
            "INSERT INTO ledger_events (chain, seq, at, tenant, task, kind, body, digest) \
             VALUES (0, 999999, 0, 'tenant-a', '{}', 'proposed', '{{}}', 'x')",
            t.id
        )));
        // Opening it again finds it current.
        drop(l);
        let l = db.open_at(&clock);
        assert_histories(&l, &all, &format!("{engine:?}, reopened"));
    }
}

#[test]
fn two_ledgers_on_one_database_take_turns_on_one_chain() {
    // Each ledger keeps the chain heads its own commits left (SQLite); when the other one
    // moved a head since, that guess fails and the head is read: no seq is taken twice.
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let (a, b) = (db.open_at(&clock), db.open_at(&clock));
        let contract = refund_contract();
        let act = refund("turns", "req-1", 2500);
        let t = a.propose(&act, &contract, "agent").unwrap();
        for l in [&b, &a, &b, &a] {
            l.propose(&act, &contract, "agent").unwrap();
            let refused = l.claim(&ClaimRequest {
                task_id: &t.id,
                action: &act,
                facts: &facts(&contract),
                executor: "worker-1",
                lease_ms: HOUR,
                budget: None,
                proof: Default::default(),
            });
            assert_eq!(refused.unwrap_err().code(), Code::TaskNotClaimable);
        }
        let ids = vec![t.id.clone()];
        assert_histories(&a, &ids, &format!("{engine:?}, first ledger"));
        assert_histories(&b, &ids, &format!("{engine:?}, second ledger"));
        assert_eq!(history(&a, &t.id).len(), 9);
    }
}
