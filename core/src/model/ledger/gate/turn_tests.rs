use super::super::{gate_step, Gate, Unit};
use crate::json::value::{OwnedValue, Value};
use crate::model::batch::{Batch, Semantics};
use crate::model::contract::Contract;
use crate::model::ledger::ids::batch_id;
use crate::{canonicalize, parse, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .expect("JSON")
        .into_owned()
}

/// Refunds over 1000 need a person; batches of at most `max` under a sum cap of 100000.
fn refund(max: u64) -> OwnedValue {
    json(&format!(
        r#"{{"tool":"refund","version":"1","effect":"write","cost_minor":0,
        "approval":{{"when":[{{"pointer":"/amount_minor","op":"gt","value":1000}}]}},
        "args":{{"type":"object","properties":{{"order_id":{{"type":"string"}},
            "amount_minor":{{"type":"integer"}}}},"required":["order_id","amount_minor"]}},
        "batch":{{"max_items":{max},"caps":{{"sum":{{"pointer":"/args/amount_minor","max":100000}}}}}}}}"#
    ))
}

/// The same tool's contract without a batch member.
fn refund_alone() -> OwnedValue {
    json(
        r#"{"tool":"refund","version":"2","effect":"write","cost_minor":0,"approval":"always",
        "args":{"type":"object","properties":{"order_id":{"type":"string"},
            "amount_minor":{"type":"integer"}},"required":["order_id","amount_minor"]}}"#,
    )
}

fn call(contract: &OwnedValue, n: usize, amount: i64) -> OwnedValue {
    let c = Contract::from_value(contract).expect("contract");
    let action = json(&format!(
        r#"{{"tenant":"a","subject":"s","tool":"refund","contract":"{}","job_id":"thread-1",
            "request_id":"call-{n}","policy_version":"p",
            "args":{{"order_id":"o{n}","amount_minor":{amount}}}}}"#,
        c.digest()
    ));
    json(&format!(
        r#"{{"action":{},"contract":{}}}"#,
        canonicalize(&action),
        canonicalize(contract)
    ))
}

fn turn(calls: &[OwnedValue]) -> Gate {
    let calls: Vec<String> = calls.iter().map(|c| canonicalize(c)).collect();
    gate_step(&json(&format!(
        r#"{{"step":"turn","calls":[{}]}}"#,
        calls.join(",")
    )))
    .expect("a turn")
}

fn batches(g: &Gate) -> Vec<Vec<usize>> {
    let Gate::Turn(b) = g else { panic!("{g:?}") };
    b.iter().map(|b| b.calls.clone()).collect()
}

#[test]
fn parallel_calls_that_need_a_person_are_one_batch_and_the_rest_stay_single() {
    let (r, alone) = (refund(50), refund_alone());
    // 0, 1, 4 need a person under the batch contract; 2 runs without one; 3 has no batch member.
    let calls = [
        call(&r, 0, 2500),
        call(&r, 1, 4000),
        call(&r, 2, 300),
        call(&alone, 3, 9000),
        call(&r, 4, 7000),
    ];
    let g = turn(&calls);
    assert_eq!(batches(&g), vec![vec![0, 1, 4]]);
    // The fingerprint is core's batch over exactly those actions, in the turn's order, and
    // the id the ledger gives it.
    let Gate::Turn(b) = &g else { unreachable!() };
    let c = Contract::from_value(&r).unwrap();
    let actions: Vec<OwnedValue> = [0, 1, 4]
        .iter()
        .map(|&i| calls[i].pointer("/action").unwrap().clone())
        .collect();
    let built = Batch::build(&c, Semantics::PerItem, &actions, None).unwrap();
    assert_eq!(b[0].batch_digest, built.digest());
    assert_eq!(b[0].batch_id, batch_id("a", &built.digest()));
    assert_eq!(
        g.to_value().pointer("/batches/0/semantics"),
        Some(&Value::String("per_item".into()))
    );
}

#[test]
fn a_turn_over_max_items_is_cut_in_order_and_a_cut_of_one_stays_single() {
    let r = refund(2);
    let calls: Vec<_> = (0..5).map(|i| call(&r, i, 2000)).collect();
    assert_eq!(batches(&turn(&calls)), vec![vec![0, 1], vec![2, 3]]);
    // One call alone is no batch.
    assert_eq!(batches(&turn(&calls[..1])), Vec::<Vec<usize>>::new());
}

#[test]
fn a_group_over_the_contracts_caps_is_reviewed_call_by_call() {
    let r = refund(50);
    let calls = [call(&r, 0, 60000), call(&r, 1, 60000)];
    assert_eq!(batches(&turn(&calls)), Vec::<Vec<usize>>::new());
}

#[test]
fn calls_under_a_contract_that_marks_values_sensitive_are_reviewed_call_by_call() {
    // A batch would freeze the order ids in the clear: no batch is planned (and one proposed
    // anyway is `batch_not_allowed`, which leaves its calls alone).
    let mut text = canonicalize(&refund(50));
    text.insert_str(
        text.len() - 1,
        r#","sensitive":{"/args/order_id":"order_ref"}"#,
    );
    let marked = json(&text);
    let calls = [call(&marked, 0, 2500), call(&marked, 1, 4000)];
    assert_eq!(batches(&turn(&calls)), Vec::<Vec<usize>>::new());
    let actions: Vec<OwnedValue> = calls
        .iter()
        .map(|c| c.pointer("/action").unwrap().clone())
        .collect();
    let c = Contract::from_value(&marked).unwrap();
    let e = Batch::build(&c, Semantics::PerItem, &actions, None).unwrap_err();
    assert_eq!(e.code().as_str(), "batch_not_allowed");
}

#[test]
fn a_batch_the_ledger_refuses_leaves_its_calls_alone_and_other_errors_are_raised() {
    for (code, expect) in [
        ("batch_not_allowed", Gate::Alone),
        ("batch_too_large", Gate::Alone),
        ("batch_cap_exceeded", Gate::Alone),
        ("invalid_batch", Gate::Alone),
        ("ledger_unavailable", Gate::Raise),
        ("no_such_code", Gate::Raise),
    ] {
        let g = gate_step(&json(&format!(
            r#"{{"step":"turn","error":{{"code":"{code}","path":"","message":"m"}}}}"#
        )))
        .unwrap();
        assert_eq!(g, expect, "{code}");
    }
}

#[test]
fn a_call_that_breaks_its_contract_is_an_invalid_request() {
    let r = refund(50);
    let mut bad = call(&r, 0, 2000);
    let text = canonicalize(&bad).replace("\"amount_minor\":2000", "\"amount_minor\":\"2000\"");
    bad = json(&text);
    let e = gate_step(&json(&format!(
        r#"{{"step":"turn","calls":[{}]}}"#,
        canonicalize(&bad)
    )))
    .unwrap_err();
    assert_eq!(e.code().as_str(), "type_mismatch");
}

const DIGEST: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";

fn item_task(state: &str, approval: &str) -> String {
    format!(
        r#"{{"id":"t1","state":"{state}","action":{{"tool":"refund","args":{{"amount_minor":2500}}}},
            "action_digest":"{DIGEST}","proposed_digest":"{DIGEST}","approval_id":"a1",
            "approval":{approval},"result":null}}"#
    )
}

#[test]
fn an_item_of_a_decided_batch_is_claimed_and_completed_as_an_item() {
    let presented = r#"{"tool":"refund","args":{"amount_minor":2500}}"#;
    let record = format!(r#"{{"batch_digest":"{DIGEST}","approver":"bob"}}"#);
    let g = gate_step(&json(&format!(
        r#"{{"step":"propose","task":{},"presented":{presented}}}"#,
        item_task("approved", &record)
    )))
    .unwrap();
    assert!(
        matches!(
            g,
            Gate::Claim {
                unit: Unit::Item,
                ..
            }
        ),
        "{g:?}"
    );
    // A task's own record (action_digest) is claimed as a task, as before.
    let record = format!(r#"{{"action_digest":"{DIGEST}","approver":"bob"}}"#);
    let g = gate_step(&json(&format!(
        r#"{{"step":"propose","task":{},"presented":{presented}}}"#,
        item_task("approved", &record)
    )))
    .unwrap();
    assert!(
        matches!(
            g,
            Gate::Claim {
                unit: Unit::Task,
                ..
            }
        ),
        "{g:?}"
    );
    for (item, unit) in [(r#"{"action":{},"proof":{}}"#, "item"), ("null", "task")] {
        let g = gate_step(&json(&format!(
            r#"{{"step":"claim","outcome":{{"result":"claimed","task":{},
                "claim":{{"task_id":"t1","fence":1,"action":{{"args":{{}}}},"item":{item}}}}}}}"#,
            item_task("claimed", "null")
        )))
        .unwrap();
        assert_eq!(
            g.to_value().pointer("/unit"),
            Some(&Value::String(unit.into()))
        );
    }
}

#[test]
fn an_items_pause_names_its_batch_for_one_review() {
    let batch = format!(
        r#"{{"id":"batch_1","approval_id":"apr_b","digest":"{DIGEST}","state":"awaiting_approval",
            "items":[{{"task_id":"t1"}},{{"task_id":"t2"}},{{"task_id":"t3"}}],"header":{{}}}}"#
    );
    let g = gate_step(&json(&format!(
        r#"{{"step":"propose","task":{},"presented":{{}},"batch":{batch}}}"#,
        item_task("awaiting_approval", "null")
    )))
    .unwrap();
    let Gate::Pause { request, .. } = g else {
        panic!("{g:?}")
    };
    assert_eq!(
        canonicalize(request.pointer("/batch").unwrap()),
        format!(
            r#"{{"approval_id":"apr_b","digest":"{DIGEST}","id":"batch_1","short_fingerprint":"{}","size":3,"state":"awaiting_approval"}}"#,
            crate::short_fingerprint(DIGEST).unwrap()
        )
    );
    // Without a batch the request is as before.
    let g = gate_step(&json(&format!(
        r#"{{"step":"propose","task":{},"presented":{{}}}}"#,
        item_task("awaiting_approval", "null")
    )))
    .unwrap();
    let Gate::Pause { request, .. } = g else {
        panic!("{g:?}")
    };
    assert!(request.pointer("/batch").is_none());
}

#[test]
fn an_open_breaker_or_a_batch_cap_is_told_to_the_model() {
    for (code, state) in [
        ("breaker_open", "approved"),
        ("batch_cap_exceeded", "approved"),
    ] {
        let g = gate_step(&json(&format!(
            r#"{{"step":"claim","task":{},"error":{{"code":"{code}","path":"","message":"m"}}}}"#,
            item_task(state, "null")
        )))
        .unwrap();
        let Gate::Refuse(r) = g else {
            panic!("{code}: {g:?}")
        };
        assert_eq!(r.code(), code);
    }
    let g = gate_step(&json(&format!(
        r#"{{"step":"claim","task":{},"error":{{"code":"breaker_open","path":"","message":"m"}}}}"#,
        item_task("awaiting_reapproval", "null")
    )))
    .unwrap();
    assert!(matches!(g, Gate::Pause { .. }), "{g:?}");
}
