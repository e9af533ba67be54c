//! Contract, action, approval, budget and permit vectors give their recorded results in Rust.

use actionseal_conformance::decisions::{
    action_result, amend_result, approval_result, budget_result, contract_result, permit_result,
};
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
fn budget_vectors() {
    run("budget", budget_result, 10);
}

#[test]
fn permit_vectors() {
    run("permit", permit_result, 40);
}
