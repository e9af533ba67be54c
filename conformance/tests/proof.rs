//! Signed-decision and passkey vectors give their recorded results in Rust.

use actionseal_conformance::proof::proof_result;
use actionseal_conformance::vectors;

fn run(kind: &str, at_least: usize) {
    let all = vectors(kind);
    assert!(all.len() >= at_least, "{kind}: only {} vectors", all.len());
    for v in all {
        let actual = proof_result(&v.doc).unwrap_or_else(|e| panic!("{kind}/{}: {e}", v.name));
        assert_eq!(actual, v.doc["expect"], "{kind}/{}", v.name);
    }
}

#[test]
fn signed_vectors() {
    run("signed", 30);
}

#[test]
fn passkey_vectors() {
    run("passkey", 12);
}
