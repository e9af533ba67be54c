//! The redaction vectors give their recorded results in Rust, every op among them, and no
//! refusal's message and no verdict holds a sensitive value.

use actionseal_conformance::redaction::{redaction_outcome, redaction_result};
use actionseal_conformance::vectors;
use serde_json::Value as Json;
use std::collections::BTreeSet;

#[test]
fn redaction_vectors() {
    let all = vectors("redaction");
    assert!(all.len() >= 20, "redaction: only {} vectors", all.len());
    let mut ops = BTreeSet::new();
    for v in &all {
        let actual = redaction_result(&v.doc).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(actual, v.doc["expect"], "redaction/{}", v.name);
        ops.insert(v.doc["op"].as_str().unwrap_or_default().to_owned());
        let secrets: Vec<&str> = v.doc["secrets"]
            .as_array()
            .expect("secrets")
            .iter()
            .filter_map(Json::as_str)
            .collect();
        let shown = match redaction_outcome(&v.doc).expect("runs") {
            Err(e) => e.to_string(),
            Ok(_) if v.doc["op"] == "check" => actual.to_string(),
            Ok(_) => continue,
        };
        for s in &secrets {
            assert!(!shown.contains(s), "redaction/{}: {s} in {shown}", v.name);
        }
    }
    let every = ["check", "commit", "reveal", "review"];
    assert_eq!(ops, every.iter().map(|s| (*s).to_owned()).collect());
}
