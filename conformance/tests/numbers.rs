//! Doubles format exactly as ECMAScript's `String(x)` (texts recorded from Node) and the texts
//! parse back to the same double.

use actionseal_conformance::dir;
use actionseal_core::{canonicalize_json, Number, Options, Profile};
use serde_json::Value as Json;

#[test]
fn es6_number_texts() {
    let text = std::fs::read_to_string(dir().join("vectors/numbers/es6_random.jsonl")).unwrap();
    let mut n = 0;
    for line in text.lines() {
        let v: Json = serde_json::from_str(line).unwrap();
        let bits = u64::from_str_radix(v["bits"].as_str().unwrap(), 16).unwrap();
        let want = v["text"].as_str().unwrap();
        let x = f64::from_bits(bits);
        assert_eq!(
            Number::from_f64(x).unwrap().to_canonical_string(),
            want,
            "bits {bits:016x}"
        );
        // The shortest text reads back as the same double, and strict accepts it as exact.
        let back = Number::from_text(want, Profile::Strict).unwrap().as_f64();
        if x == 0.0 {
            assert_eq!(back, 0.0);
        } else {
            assert_eq!(back.to_bits(), bits, "{want}");
        }
        assert_eq!(
            canonicalize_json(format!("[{want}]").as_bytes(), &Options::default()).unwrap(),
            format!("[{want}]")
        );
        n += 1;
    }
    assert!(n >= 10_000);
}
