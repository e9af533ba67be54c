//! The cost of checking one item of a batch at dispatch (issue 28), in interleaved rounds of
//! this thread's CPU time, as `benches/quorum.rs` measures a quorum: one item of a 1,000-item
//! batch (`check_item_with`: the batch decision read, the item's ten-hash inclusion proof, then
//! the check of its frozen action) against one single-approval check (`check_with` of a
//! record of the same action), with the same context. Goal: at most 2x.
//!
//!   cargo bench -p actionseal-bench --bench batch
//!
//! The row is the median and range over rounds of the per-round ratio, with both sides' µs.
//! Not a test: nothing here asserts a time (`-- --test` only checks that both inputs permit).

use actionseal_bench::{json, median, range, window};
use actionseal_core::batch::{check_item_with, Batch, BatchDecision, Semantics};
use actionseal_core::{
    canonicalize, check_with, Action, ActionIds, Approval, Context, Contract, Decision,
    DecisionInput, Object, Outcome, OwnedValue, Value,
};
use std::borrow::Cow;
use std::hint::black_box;

const ROUNDS: usize = 20;
const NOW: i64 = 1_764_500_600_000;
const ITEMS: usize = 1000;
/// The item checked: one deep in the tree, with a full-length path.
const ITEM: usize = 617;

fn object(entries: Vec<(&str, OwnedValue)>) -> OwnedValue {
    let entries = entries
        .into_iter()
        .map(|(k, v)| (Cow::Owned(k.to_owned()), v))
        .collect();
    Value::Object(Object::from_entries(entries).expect("distinct keys"))
}

fn main() {
    let quick = std::env::args().any(|a| a == "--test");

    // The refund contract with a batch member that allows 1,000 items.
    let Value::Object(refund) = json(include_str!("../../examples/refund/contract.json")) else {
        panic!("the refund contract is an object")
    };
    let mut entries: Vec<(Cow<'static, str>, OwnedValue)> = refund
        .iter()
        .map(|(k, v)| (Cow::Owned(k.to_owned()), v.clone()))
        .collect();
    entries.push((Cow::Borrowed("batch"), json(r#"{"max_items": 1000}"#)));
    let document = Value::Object(Object::from_entries(entries).expect("distinct keys"));
    let contract = Contract::from_value(&document).expect("contract");

    let actions: Vec<OwnedValue> = (0..ITEMS)
        .map(|i| {
            let request = format!("req-{i}");
            let ids = ActionIds {
                tenant: "tenant-a",
                subject: "user:alice",
                job_id: "job-outage-7",
                request_id: &request,
                policy_version: "refund-policy-2026-08-01",
            };
            let args = json(&format!(
                r#"{{"order_id": "order-{i}", "amount_minor": {}, "currency": "USD"}}"#,
                1000 + i
            ));
            Action::build(&contract, &args, &ids)
                .expect("action")
                .value()
                .clone()
        })
        .collect();
    let batch = Batch::build(&contract, Semantics::PerItem, &actions, None).expect("batch");
    let input = DecisionInput {
        approval_id: "apr-1",
        decision_id: "dec-1",
        decision: Decision::Approved,
        approver: "user:bob",
        decided_at: NOW - 600_000,
        expires_at: NOW + 1_200_000,
        proposed_digest: None,
        role: None,
        on_behalf_of: None,
        delegation: None,
    };
    let decision = BatchDecision::decide(batch.header(), &input)
        .expect("decide")
        .value()
        .clone();
    let item = object(vec![
        ("action", actions[ITEM].clone()),
        (
            "proof",
            batch.proof(ITEM as u64).expect("in the batch").to_value(),
        ),
    ]);
    let action = Action::from_value(&actions[ITEM]).expect("action");
    let record = Approval::decide(&action, &input)
        .expect("approve")
        .value()
        .clone();
    // One context for both: the contract preloaded, as an executor holds it.
    let context = Context::with_contract(
        &json(
            r#"{"now": 1764500600000, "tenant": "tenant-a",
                "policy_version": "refund-policy-2026-08-01",
                "approver_authorized": {"approver": "user:bob", "authorized": true},
                "subject_authorized": {"subject": "user:alice", "authorized": true},
                "revoked": {"approval_id": "apr-1", "revoked": false}}"#,
        ),
        Some(contract.clone()),
    )
    .expect("context");
    let presented = actions[ITEM].clone();

    let single = check_with(Some(&record), &presented, &context);
    let of_batch = check_item_with(std::slice::from_ref(&decision), &item, &presented, &context);
    assert_eq!(single.outcome, Outcome::Permit, "{:?}", single.reasons);
    assert_eq!(of_batch.outcome, Outcome::Permit, "{:?}", of_batch.reasons);
    if quick {
        println!(
            "batch bench: inputs check out ({} items, proof of {} hashes, header {} bytes)",
            ITEMS,
            batch.proof(ITEM as u64).map_or(0, |p| p.path.len()),
            canonicalize(batch.header_value()).len()
        );
        return;
    }

    let (mut ratios, mut ours, mut reference) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        // Interleaved, and the order alternates, so that drift in the machine's speed falls
        // on both sides.
        let mut item_check = || {
            black_box(check_item_with(
                std::slice::from_ref(black_box(&decision)),
                black_box(&item),
                black_box(&presented),
                &context,
            ));
        };
        let mut single_check = || {
            black_box(check_with(
                Some(black_box(&record)),
                black_box(&presented),
                &context,
            ));
        };
        let (a, b) = if round % 2 == 0 {
            let a = window(&mut item_check);
            (a, window(&mut single_check))
        } else {
            let b = window(&mut single_check);
            (window(&mut item_check), b)
        };
        ratios.push(a / b);
        ours.push(a);
        reference.push(b);
    }
    println!(
        "one item of a {ITEMS}-item batch / one single-approval check (goal: at most 2x)\n  \
         ratio {:.2} ({})  item {:.2} µs ({})  single {:.2} µs ({})",
        median(&mut ratios.clone()),
        range(&ratios),
        median(&mut ours.clone()),
        range(&ours),
        median(&mut reference.clone()),
        range(&reference),
    );
}
