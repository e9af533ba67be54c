//! Delegation vectors give their recorded results in Rust.

use actionseal_conformance::delegation::delegation_result;
use actionseal_conformance::vectors;

#[test]
fn delegation_vectors() {
    let all = vectors("delegation");
    assert!(all.len() >= 20, "delegation: only {} vectors", all.len());
    for v in all {
        let actual =
            delegation_result(&v.doc).unwrap_or_else(|e| panic!("delegation/{}: {e}", v.name));
        assert_eq!(actual, v.doc["expect"], "delegation/{}", v.name);
    }
}
