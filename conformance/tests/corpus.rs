//! The generated corpus is current, and its lossless cases give the same fingerprint whether
//! the text or the parsed value is fingerprinted.

use actionseal_conformance::{corpus, dir, expected};
use actionseal_core::{fingerprint, parse, Options, Profile};
use serde_json::Value as Json;

#[test]
fn corpus_is_current_and_consistent() {
    let text = std::fs::read_to_string(dir().join("generated/corpus.jsonl")).unwrap();
    let lines: Vec<Json> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines,
        corpus::generate(),
        "corpus is stale: run the regenerator"
    );
    assert_eq!(lines.len(), corpus::CASES);
    let mut hosts = 0;
    for case in &lines {
        let t = case["text"].as_str().unwrap().as_bytes();
        for p in Profile::ALL {
            assert_eq!(expected(t, p), case[p.as_str()], "case {}", case["id"]);
        }
        if case["host"] == Json::Bool(true) {
            hosts += 1;
            let v = parse(t, &Options::default()).unwrap().into_owned();
            assert_eq!(
                fingerprint(&v).to_string(),
                case["strict"]["fingerprint"].as_str().unwrap()
            );
        }
    }
    assert!(hosts > 1000);
}
