//! Every canonicalization vector gives its recorded result under both profiles, and every
//! accepted canonical text is a fixed point.

use actionseal_conformance::{canon_vectors, expected, surfaces};
use actionseal_core::{canonicalize_json, fingerprint_json, Options, Profile};

#[test]
fn vectors_match_under_both_profiles() {
    let vectors = canon_vectors();
    assert!(vectors.len() >= 100, "only {} vectors", vectors.len());
    for v in &vectors {
        let input = v.input();
        for p in Profile::ALL {
            let want = &v.doc[p.as_str()];
            assert_eq!(&expected(&input, p), want, "{} ({})", v.name, p.as_str());
            if let Some(canonical) = want.get("canonical").and_then(|c| c.as_str()) {
                let opts = Options::with_profile(p);
                let again = canonicalize_json(canonical.as_bytes(), &opts).unwrap();
                assert_eq!(
                    again, canonical,
                    "{}: canonical text is not a fixed point",
                    v.name
                );
                assert_eq!(
                    fingerprint_json(&input, &opts).unwrap().to_string(),
                    want["fingerprint"].as_str().unwrap()
                );
            }
        }
    }
}

#[test]
fn every_error_class_has_a_vector() {
    let seen: std::collections::BTreeSet<String> = canon_vectors()
        .iter()
        .filter_map(|v| {
            v.doc["strict"]
                .get("error")
                .map(|e| e.as_str().unwrap().to_owned())
        })
        .collect();
    for code in [
        "invalid_utf8",
        "syntax_error",
        "trailing_content",
        "byte_order_mark",
        "duplicate_key",
        "lone_surrogate",
        "non_finite_number",
        "number_overflow",
        "inexact_number",
        "depth_limit_exceeded",
    ] {
        assert!(seen.contains(code), "no vector for {code}");
    }
}

/// Every generated surface (codes.json, the TypeScript declarations of both JavaScript
/// packages, the Python stub's Literals) is what core generates now, and the data shapes they
/// describe are the ones core reads.
#[test]
fn generated_surfaces_match_the_core() {
    let problems = surfaces::meaning_problems();
    assert!(problems.is_empty(), "{problems:#?}");
    let files = surfaces::surfaces().unwrap_or_else(|p| panic!("{p:#?}"));
    for f in files {
        let committed = std::fs::read_to_string(&f.path).unwrap_or_default();
        assert!(
            committed == f.text,
            "{} is stale: run `cargo run -p actionseal-conformance --bin regen` and commit it",
            f.path.display()
        );
    }
}

#[test]
fn size_limit_is_enforced_and_configurable() {
    let opts = Options {
        max_bytes: 8,
        ..Options::default()
    };
    assert!(canonicalize_json(b"[1,2,3]", &opts).is_ok());
    let e = canonicalize_json(b"[1,2,3,4]", &opts).unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.offset()),
        ("size_limit_exceeded", Some(8))
    );
    let big = vec![b' '; actionseal_core::DEFAULT_MAX_BYTES + 1];
    let e = canonicalize_json(&big, &Options::default()).unwrap_err();
    assert_eq!(e.code().as_str(), "size_limit_exceeded");
}

#[test]
fn depth_limit_is_configurable() {
    let opts = Options {
        max_depth: 2,
        ..Options::default()
    };
    assert!(canonicalize_json(b"[[1]]", &opts).is_ok());
    let e = canonicalize_json(b"[[[1]]]", &opts).unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.path(), e.offset()),
        ("depth_limit_exceeded", "/0/0", Some(2))
    );
}
