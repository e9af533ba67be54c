//! The batch vectors give their recorded results in Rust, every op among them, and each
//! breaker sequence is one chain: a step's stored state is the state the step before left.

use actionseal_conformance::batch::batch_result;
use actionseal_conformance::vectors;
use serde_json::Value as Json;
use std::collections::BTreeSet;

#[test]
fn batch_vectors() {
    let all = vectors("batch");
    assert!(all.len() >= 50, "batch: only {} vectors", all.len());
    let mut ops = BTreeSet::new();
    for v in &all {
        let actual = batch_result(&v.doc).unwrap_or_else(|e| panic!("batch/{}: {e}", v.name));
        assert_eq!(actual, v.doc["expect"], "batch/{}", v.name);
        ops.insert(v.doc["op"].as_str().unwrap_or_default().to_owned());
    }
    let every = [
        "breaker",
        "build",
        "check",
        "check_batch",
        "check_item",
        "deselect",
        "verify_item",
    ];
    assert_eq!(ops, every.iter().map(|s| (*s).to_owned()).collect());
}

#[test]
fn breaker_steps_chain() {
    for v in vectors("batch").iter().filter(|v| v.doc["op"] == "breaker") {
        let steps = v.doc["steps"].as_array().expect("steps");
        let results = v.doc["expect"].as_array().expect("results");
        // The first step starts from the vector's own state (null: a new breaker).
        let first = steps.first().and_then(|s| s["breaker"].as_str());
        let mut state: Json = first.map_or(Json::Null, |t| serde_json::from_str(t).expect("JSON"));
        for (step, result) in steps.iter().zip(results) {
            let given: Json =
                serde_json::from_str(step["breaker"].as_str().expect("text")).expect("JSON");
            assert_eq!(given, state, "batch/{}", v.name);
            if let Some(b) = result.get("breaker") {
                state = b.clone();
            }
        }
    }
}
