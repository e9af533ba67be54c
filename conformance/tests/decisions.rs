//! Contract, action, approval, budget, permit and quorum vectors give their recorded results
//! in Rust.

use actionseal_conformance::decisions::{
    action_result, amend_result, approval_result, budget_result, contract_result, gate_result,
    notice_result, permit_result,
};
use actionseal_conformance::quorum::check_set_result;
use actionseal_conformance::vectors;
use serde_json::{Map, Value as Json};

type Compute = fn(&Map<String, Json>) -> Result<Json, String>;

fn run(kind: &str, compute: Compute, at_least: usize) {
    let all = vectors(kind);
    assert!(all.len() >= at_least, "{kind}: only {} vectors", all.len());
    for v in all {
        let actual = compute(&v.doc).unwrap_or_else(|e| panic!("{kind}/{}: {e}", v.name));
        assert_eq!(actual, v.doc["expect"], "{kind}/{}", v.name);
    }
}

#[test]
fn contract_vectors() {
    run("contract", contract_result, 25);
}

#[test]
fn action_vectors() {
    run("action", action_result, 5);
}

#[test]
fn approval_vectors() {
    run("approval", approval_result, 5);
}

#[test]
fn amend_vectors() {
    run("amend", amend_result, 12);
}

#[test]
fn notice_vectors() {
    run("notice", notice_result, 12);
}

#[test]
fn gate_vectors() {
    run("gate", gate_result, 30);
}

#[test]
fn budget_vectors() {
    run("budget", budget_result, 10);
}

#[test]
fn permit_vectors() {
    run("permit", permit_result, 40);
}

#[test]
fn quorum_vectors() {
    run("quorum", check_set_result, 25);
}

/// `check` of one approval (or none) is `check_set` of a set of one (or none), in every permit
/// vector.
#[test]
fn permit_vectors_as_sets() {
    for v in vectors("permit") {
        let mut doc = v.doc.clone();
        let approvals = match doc.remove("approval") {
            Some(Json::Null) => vec![],
            Some(text) => vec![text],
            None => panic!("permit/{}: no approval", v.name),
        };
        doc.insert("op".into(), "check_set".into());
        doc.insert("approvals".into(), Json::Array(approvals));
        let got = check_set_result(&doc).unwrap_or_else(|e| panic!("permit/{}: {e}", v.name));
        assert_eq!(got, v.doc["expect"], "permit/{}", v.name);
    }
}

/// An approval loaded once (`Approval::from_value`, then `check_approval`) gives the verdict
/// that checking its record gives, in every permit vector whose approval can be loaded.
#[test]
fn permit_vectors_with_a_loaded_approval() {
    use actionseal_conformance::decisions::core_value;
    use actionseal_core::{check_approval, check_with, Approval, Context};
    let mut loaded = 0;
    for v in vectors("permit") {
        let Some(Json::String(text)) = v.doc.get("approval") else {
            continue;
        };
        let record = core_value(text).unwrap();
        let Ok(approval) = Approval::from_value(&record) else {
            continue;
        };
        let text = |key: &str| v.doc[key].as_str().unwrap().to_owned();
        let action = core_value(&text("action")).unwrap();
        let Ok(context) = Context::from_value(&core_value(&text("context")).unwrap()) else {
            continue;
        };
        let want = check_with(Some(&record), &action, &context).to_value();
        // Twice: the second check reuses what the first kept.
        for _ in 0..2 {
            let got = check_approval(Some(&approval), &action, &context).to_value();
            assert_eq!(got, want, "permit/{}", v.name);
        }
        loaded += 1;
    }
    assert!(
        loaded >= 25,
        "only {loaded} permit vectors have an approval that loads"
    );
}
