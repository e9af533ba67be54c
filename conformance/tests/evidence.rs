//! Evidence vectors give their recorded results in Rust: the timeline as canonical JSON, or
//! the error's code and path.

use actionseal_conformance::vectors;
use actionseal_core::evidence::verify_evidence;
use actionseal_core::{canonicalize, parse, Options, OwnedValue};
use serde_json::{json, Value as Json};

fn core(v: &Json) -> OwnedValue {
    parse(v.to_string().as_bytes(), &Options::default())
        .expect("JSON")
        .into_owned()
}

#[test]
fn evidence_vectors() {
    let all = vectors("evidence");
    assert!(all.len() >= 25, "evidence: only {} vectors", all.len());
    for v in all {
        let mut keys: Vec<&str> = v.doc.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["bundle", "description", "expected", "trust"],
            "evidence/{}",
            v.name
        );
        let actual = match verify_evidence(&core(&v.doc["bundle"]), &core(&v.doc["trust"])) {
            Ok(t) => json!({"timeline": canonicalize(&t.to_value())}),
            Err(e) => json!({"error": {"code": e.code().as_str(), "path": e.path()}}),
        };
        let expected = match &v.doc["expected"] {
            Json::Object(o) if o.contains_key("timeline") => {
                json!({"timeline": canonicalize(&core(&o["timeline"]))})
            }
            other => other.clone(),
        };
        assert_eq!(actual, expected, "evidence/{}", v.name);
        let refused = actual.pointer("/error/code").and_then(Json::as_str);
        match (v.name.split_once('_'), refused) {
            (Some(("y", _)), None) => {}
            (Some(("n", rest)), Some(code)) if rest.starts_with(code) => {}
            _ => panic!("evidence/{}: the name does not say {actual}", v.name),
        }
    }
}
