//! Signed-checkpoint vectors (checked independently by `conformance/tools/checkpoint-vectors.py`)
//! give their recorded results in Rust.

use actionseal_conformance::checkpoint::checkpoint_result;
use actionseal_conformance::vectors;

#[test]
fn checkpoint_vectors() {
    let all = vectors("checkpoint");
    assert!(all.len() >= 16, "only {} vectors", all.len());
    for v in all {
        let actual = checkpoint_result(&v.doc).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(actual, v.doc["expect"], "{}", v.name);
        assert_eq!(
            v.name.starts_with("n_"),
            actual.get("error").is_some(),
            "{}",
            v.name
        );
    }
}
