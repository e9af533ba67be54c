//! Property tests: canonicalization is idempotent and injective, parsing the canonical text
//! gives back the value, numbers round-trip bit for bit, and no input makes the parser panic.

use actionseal_core::{
    canonicalize, canonicalize_json, parse, Number, Object, Options, OwnedValue, Profile, Value,
};
use proptest::prelude::*;
use std::borrow::Cow;

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |f| f.is_finite()),
        (-1_000_000i64..1_000_000).prop_map(|i| i as f64),
        (-1_000_000i64..1_000_000).prop_map(|i| i as f64 / 100.0),
    ]
}

fn value() -> impl Strategy<Value = OwnedValue> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        finite().prop_map(|f| Value::Number(Number::from_f64(f).unwrap())),
        any::<String>().prop_map(|s| Value::String(Cow::Owned(s))),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..6).prop_map(|m| {
                let entries = m.into_iter().map(|(k, v)| (Cow::Owned(k), v)).collect();
                Value::Object(Object::from_entries(entries).unwrap())
            }),
        ]
    })
}

/// Replaces the first leaf found with something different.
fn perturb(v: &OwnedValue) -> OwnedValue {
    match v {
        Value::Null => Value::Bool(false),
        Value::Bool(b) => Value::Bool(!b),
        Value::Number(n) => {
            let f = n.as_f64();
            let g = if f == 0.0 { 1.0 } else { -f };
            Value::Number(Number::from_f64(g).unwrap())
        }
        Value::String(s) => Value::String(Cow::Owned(format!("{s}x"))),
        Value::Array(items) if items.is_empty() => Value::Array(vec![Value::Null]),
        Value::Array(items) => {
            let mut items = items.clone();
            items[0] = perturb(&items[0]);
            Value::Array(items)
        }
        Value::Object(o) if o.is_empty() => Value::Array(vec![]),
        Value::Object(o) => {
            let mut entries = o.clone().into_entries();
            entries[0].1 = perturb(&entries[0].1);
            Value::Object(Object::from_entries(entries).unwrap())
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn canonical_text_parses_back_to_the_value_and_is_a_fixed_point(v in value()) {
        let text = canonicalize(&v);
        let opts = Options::default();
        let back = parse(text.as_bytes(), &opts).unwrap();
        prop_assert_eq!(&back, &v);
        prop_assert_eq!(canonicalize_json(text.as_bytes(), &opts).unwrap(), text);
    }

    #[test]
    fn different_values_give_different_bytes(v in value()) {
        let w = perturb(&v);
        prop_assert_ne!(&v, &w);
        prop_assert_ne!(canonicalize(&v), canonicalize(&w));
    }

    #[test]
    fn number_text_round_trips_bit_for_bit(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        prop_assume!(x.is_finite());
        let text = Number::from_f64(x).unwrap().to_canonical_string();
        let back = Number::from_text(&text, Profile::Strict).unwrap().as_f64();
        if x == 0.0 {
            prop_assert_eq!(back, 0.0);
        } else {
            prop_assert_eq!(back.to_bits(), bits);
        }
    }

    #[test]
    fn strict_accepts_exactly_the_numbers_whose_value_survives(
        int in "-?(0|[1-9][0-9]{0,24})",
        frac in proptest::option::of("[0-9]{1,25}"),
        exp in proptest::option::of(-400i32..400),
    ) {
        let mut text = int.clone();
        if let Some(f) = &frac { text.push('.'); text.push_str(f); }
        if let Some(e) = exp { text.push_str(&format!("e{e}")); }
        match Number::from_text(&text, Profile::Rfc8785) {
            Err(e) => {
                prop_assert_eq!(e.code().as_str(), "number_overflow");
                prop_assert!(Number::from_text(&text, Profile::Strict).is_err());
            }
            Ok(n) => {
                let same = decimal(&text) == decimal(&n.to_canonical_string());
                let strict = Number::from_text(&text, Profile::Strict);
                prop_assert_eq!(strict.is_ok(), same, "{} -> {}", text, n.to_canonical_string());
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        for p in Profile::ALL {
            if let Ok(c) = canonicalize_json(&bytes, &Options::with_profile(p)) {
                prop_assert_eq!(canonicalize_json(c.as_bytes(), &Options::with_profile(p)).unwrap(), c);
            }
        }
    }

    #[test]
    fn json_like_text_never_panics(text in r#"[\[\]{}",:0-9eE.+\-a-z\\ ]{0,40}"#) {
        for p in Profile::ALL {
            let _ = canonicalize_json(text.as_bytes(), &Options::with_profile(p));
        }
    }
}

/// An independent normalisation of a decimal string to (negative, significant digits,
/// exponent of the last digit), by string manipulation; zero is `None`.
fn decimal(text: &str) -> Option<(bool, String, i64)> {
    let (neg, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mant, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().unwrap()),
        None => (rest, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let all = format!("{int}{frac}");
    let trimmed = all.trim_start_matches('0');
    let sig = trimmed.trim_end_matches('0');
    if sig.is_empty() {
        return None;
    }
    let dropped = (trimmed.len() - sig.len()) as i64;
    Some((neg, sig.to_owned(), exp - frac.len() as i64 + dropped))
}
