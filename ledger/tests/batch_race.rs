//! Batch races on both engines (issue 28): 16 executors claiming the items of one batch
//! against a sum cap lower than the batch's total (the server's policy, lowered after the
//! batch was approved) never pass the cap and claim each item at most once; failures reported at the breaker's threshold by concurrent completers, while
//! executors keep claiming, trip it exactly once, and no item is claimed after the trip
//! commits. The same cap checked naively (read the totals, check, write them back, in
//! separate statements: test code only) passes the cap: the harness can see the bug.

mod common;

use actionseal_core::batch::{Policy, Semantics};
use actionseal_core::ledger::Reported;
use actionseal_core::{Code, OwnedValue};
use actionseal_ledger::{Batch, ClaimOutcome, ClaimRequest, Ledger, LedgerOptions};
use common::*;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Barrier};

const EXECUTORS: usize = 16;
const ITEMS: usize = 40;
/// Each item refunds 100: the server's cap admits 25 of the 40 (the contract's, all of them).
const CAP: i64 = 2_500;

fn contract() -> OwnedValue {
    breaker_contract(r#", "caps": {"sum": {"pointer": "/args/amount_minor", "max": 100000}}"#)
}

/// The contract with a breaker, and `caps` (a member, or nothing).
fn breaker_contract(caps: &str) -> OwnedValue {
    json(&format!(
        r#"{{"tool": "refund_create", "version": "1", "effect": "write", "approval": "always",
            "cost_minor": 0,
            "args": {{"type": "object", "required": ["order_id", "amount_minor"],
                     "properties": {{"order_id": {{"type": "string"}},
                                    "amount_minor": {{"type": "integer", "minimum": 1}}}}}},
            "batch": {{"max_items": {ITEMS}{caps},
                      "breaker": {{"max_failures": 3, "window_ms": 600000, "close_after": 2}}}}}}"#
    ))
}

/// An approved per-item batch of `ITEMS` refunds of 100; its actions in order.
fn approved(l: &Ledger, c: &OwnedValue) -> (Batch, Vec<OwnedValue>) {
    let actions: Vec<OwnedValue> = (0..ITEMS)
        .map(|i| {
            action(
                c,
                &format!(r#"{{"order_id": "order-{i}", "amount_minor": 100}}"#),
                "bulk",
                &format!("req-{i}"),
            )
        })
        .collect();
    let b = l
        .propose_batch(&actions, c, Semantics::PerItem, "agent")
        .unwrap();
    let decision = json(&format!(
        r#"{{"approval_id": "{}", "decision_id": "dec-bulk", "batch_id": "{}",
            "batch_digest": "{}", "decision": "approved", "approver": "user:bob",
            "decided_at": {}, "expires_at": {}}}"#,
        b.approval_id,
        b.id,
        b.digest,
        l.now(),
        l.now() + 24 * HOUR
    ));
    (l.decide_batch(&decision).unwrap().batch, actions)
}

/// A handle of a server whose batch policy caps the sum at [`CAP`].
fn server(url: &str) -> Ledger {
    let policy = json(&format!(
        r#"{{"max_items": 1000, "caps": {{"sum": {{"pointer": "/args/amount_minor", "max": {CAP}}}}}}}"#
    ));
    let options = LedgerOptions {
        batch_policy: Some(Policy::from_value(&policy).unwrap()),
        ..LedgerOptions::default()
    };
    Ledger::open_with(url, options).unwrap()
}

fn claim_item(l: &Ledger, id: &str, action: &OwnedValue, f: &OwnedValue) -> Option<i64> {
    let r = l.claim_item(&ClaimRequest {
        task_id: id,
        action,
        facts: f,
        executor: "racer",
        lease_ms: HOUR,
        budget: None,
        proof: Default::default(),
    });
    match r {
        Ok(ClaimOutcome::Claimed(c, _)) => Some(c.fence),
        Err(e)
            if matches!(
                e.code(),
                Code::AlreadyClaimed
                    | Code::BatchCapExceeded
                    | Code::BreakerOpen
                    | Code::TaskNotClaimable
            ) =>
        {
            None
        }
        Ok(other) => panic!("unexpected claim result {}", other.result()),
        Err(e) => panic!("unexpected claim error {e}"),
    }
}

/// How many `claimed` events each task has, and the export's kinds in order.
fn claimed_per_task(l: &Ledger) -> std::collections::HashMap<String, usize> {
    let mut n = std::collections::HashMap::new();
    for e in audit_events(l) {
        if str_field(&e, "kind") == "claimed" {
            *n.entry(str_field(&e, "task").to_owned()).or_insert(0) += 1;
        }
    }
    n
}

#[test]
fn sixteen_executors_never_pass_the_sum_cap_and_claim_each_item_once() {
    for engine in engines() {
        let db = Db::fast(engine);
        let c = contract();
        let (b, actions) = approved(&db.open(), &c);
        let ids: Vec<String> = b.items.iter().map(|(id, _)| id.clone()).collect();
        let (ids, actions) = (Arc::new(ids), Arc::new(actions));
        let won = Arc::new(AtomicI64::new(0));
        let barrier = Arc::new(Barrier::new(EXECUTORS));
        let threads: Vec<_> = (0..EXECUTORS)
            .map(|k| {
                let (ids, actions, won, barrier) =
                    (ids.clone(), actions.clone(), won.clone(), barrier.clone());
                let (url, c) = (db.url.clone(), c.clone());
                std::thread::spawn(move || {
                    let l = server(&url);
                    let f = facts(&c);
                    barrier.wait();
                    // Each executor walks the items from its own place.
                    for j in 0..ITEMS {
                        let i = (j + k * 5) % ITEMS;
                        if claim_item(&l, &ids[i], &actions[i], &f).is_some() {
                            won.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let l = db.open();
        let won = won.load(Ordering::SeqCst);
        assert_eq!(
            won * 100,
            CAP,
            "{engine:?}: the cap admits exactly 25 claims"
        );
        let per_task = claimed_per_task(&l);
        assert_eq!(per_task.len() as i64, won);
        assert!(per_task.values().all(|n| *n == 1), "{per_task:?}");
        let totals = l.batch(&b.id).unwrap().totals;
        assert_eq!(actionseal_core::canonicalize(field(&totals, "sum")), "2500");
        let report = l.audit_verify().unwrap();
        assert!(report.broken.is_none(), "{:?}", report.broken);
    }
}

#[test]
fn failures_at_the_threshold_trip_once_and_nothing_is_claimed_after() {
    trip_race(contract());
}

/// Without caps a claim writes nothing of the lineage (on PostgreSQL its statement only
/// shares the lineage's lock): the trip still stops every claim after it.
#[test]
fn without_caps_failures_trip_once_and_nothing_is_claimed_after() {
    trip_race(breaker_contract(""));
}

/// Eight claimed items fail at once beside eight claimers of the rest, under contract `c`.
fn trip_race(c: OwnedValue) {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let (b, actions) = approved(&l, &c);
        let ids: Vec<String> = b.items.iter().map(|(id, _)| id.clone()).collect();
        let f = facts(&c);
        // Eight items claimed first; their completers fail at once, beside claimers.
        let fences: Vec<i64> = (0..8)
            .map(|i| claim_item(&l, &ids[i], &actions[i], &f).unwrap())
            .collect();
        let (ids, actions) = (Arc::new(ids), Arc::new(actions));
        let barrier = Arc::new(Barrier::new(EXECUTORS));
        let threads: Vec<_> = (0..EXECUTORS)
            .map(|k| {
                let (ids, actions, barrier, fences) = (
                    ids.clone(),
                    actions.clone(),
                    barrier.clone(),
                    fences.clone(),
                );
                let (url, c) = (db.url.clone(), c.clone());
                std::thread::spawn(move || {
                    let l = Ledger::open(&url).unwrap();
                    let f = facts(&c);
                    barrier.wait();
                    if k < 8 {
                        l.complete_item(&ids[k], fences[k], Reported::Failed, None, "racer")
                            .unwrap();
                    } else {
                        for i in 8..ITEMS {
                            claim_item(&l, &ids[i], &actions[i], &f);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let events = audit_events(&l);
        let kinds: Vec<&str> = events.iter().map(|e| str_field(e, "kind")).collect();
        let trips: Vec<usize> = (0..kinds.len())
            .filter(|&i| kinds[i] == "breaker_tripped")
            .collect();
        assert_eq!(trips.len(), 1, "{engine:?}: one trip");
        // The export is in the order events were written: a claim after the trip would
        // have waited for the lineage's lock, so it would come after.
        let last_claim = (0..kinds.len()).filter(|&i| kinds[i] == "claimed").max();
        assert!(
            last_claim.is_none_or(|c| c < trips[0]),
            "{engine:?}: a claim after the trip"
        );
        let claimed = claimed_per_task(&l);
        assert!(claimed.values().all(|n| *n == 1));
        // Everything not claimed before the trip waits for a reviewer.
        for id in ids.iter() {
            let s = l.task(id).unwrap().state.as_str();
            assert!(
                claimed.contains_key(id.as_str()) || s == "awaiting_reapproval",
                "{id} is {s}"
            );
        }
        let report = l.audit_verify().unwrap();
        assert!(report.broken.is_none(), "{:?}", report.broken);
    }
}

/// The cap as a hurried implementation checks it: read the lineage's totals, check, write
/// them back, in separate statements (the check in between, as real code would run it).
fn naive_admit(db: &Db, lineage: &str) -> bool {
    let read = format!("SELECT totals FROM ledger_batch_lineages WHERE id = '{lineage}'");
    let totals = db.texts(&read)[0][0].clone().unwrap();
    let sum: i64 = {
        let v = json(&totals);
        actionseal_core::canonicalize(field(&v, "sum"))
            .parse()
            .unwrap()
    };
    if sum + 100 > CAP {
        return false;
    }
    std::thread::sleep(std::time::Duration::from_millis(2));
    let written = totals.replacen(
        &format!("\"sum\":{sum}"),
        &format!("\"sum\":{}", sum + 100),
        1,
    );
    db.sql(&format!(
        "UPDATE ledger_batch_lineages SET totals = '{written}' WHERE id = '{lineage}'"
    ));
    true
}

#[test]
fn a_naive_read_then_write_cap_check_passes_the_cap() {
    for engine in engines() {
        let db = Arc::new(Db::fast(engine));
        let (b, _) = approved(&db.open(), &contract());
        let admitted = Arc::new(AtomicI64::new(0));
        let barrier = Arc::new(Barrier::new(EXECUTORS));
        let threads: Vec<_> = (0..EXECUTORS)
            .map(|_| {
                let (db, admitted, barrier, lineage) = (
                    db.clone(),
                    admitted.clone(),
                    barrier.clone(),
                    b.lineage.clone(),
                );
                std::thread::spawn(move || {
                    barrier.wait();
                    for _ in 0..ITEMS / EXECUTORS + 1 {
                        if naive_admit(&db, &lineage) {
                            admitted.fetch_add(100, Ordering::SeqCst);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let admitted = admitted.load(Ordering::SeqCst);
        assert!(
            admitted > CAP,
            "{engine:?}: the naive check admitted {admitted}, within the cap"
        );
    }
}
