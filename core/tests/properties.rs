//! Property tests: canonicalization is idempotent and injective, parsing the canonical text
//! gives back the value, any spelling of a value has that value's canonical text, duplicates
//! are refused however they are spelled, numbers round-trip bit for bit and are read exactly
//! (against an exact decimal reference) however long their tokens, and every input, valid or
//! not, gets the same answer from every entry point.
//!
//! The random seed is fixed, so every run checks the same cases (set `PROPTEST_RNG_SEED` to
//! explore others); failures found are kept in `properties.proptest-regressions` and re-run
//! first.

#[path = "reference/decimal.rs"]
mod reference;

use actionseal_core::{
    canonicalize, canonicalize_json, fingerprint, fingerprint_json, parse, Code, Number, Object,
    Options, OwnedValue, Profile, Value,
};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use reference::{check_rounding, es_shortest, same_value, strict_accepts, Read};
use std::borrow::Cow;

/// `cases` cases from the fixed seed, unless `PROPTEST_RNG_SEED` names another.
fn config(cases: u32) -> ProptestConfig {
    let base = ProptestConfig::with_cases(cases);
    let rng_seed = match base.rng_seed {
        RngSeed::Random => RngSeed::Fixed(0x5EED_0000_0007),
        chosen => chosen,
    };
    ProptestConfig { rng_seed, ..base }
}

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |f| f.is_finite()),
        (-1_000_000i64..1_000_000).prop_map(|i| i as f64),
        (-1_000_000i64..1_000_000).prop_map(|i| i as f64 / 100.0),
    ]
}

fn leaf() -> impl Strategy<Value = OwnedValue> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        finite().prop_map(|f| Value::Number(Number::from_f64(f).unwrap())),
        any::<String>().prop_map(|s| Value::String(Cow::Owned(s))),
    ]
}

fn object(entries: Vec<(String, OwnedValue)>) -> OwnedValue {
    let entries = entries
        .into_iter()
        .map(|(k, v)| (Cow::Owned(k), v))
        .collect();
    Value::Object(Object::from_entries(entries).unwrap())
}

/// Values with keys of any text.
fn value() -> impl Strategy<Value = OwnedValue> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..6)
                .prop_map(|m| object(m.into_iter().collect())),
        ]
    })
}

/// Key sets that overlap, several sharing a key at the same position: objects at every depth
/// take their keys from these, so nested objects and their parents have the same keys.
const KEY_SETS: [&[&str]; 5] = [
    &["b", "a", "m"],
    &["z", "y", "b"],
    &["b", "a"],
    &["abcdefgh2", "abcdefgh1", "a"],
    &["\u{E000}", "\u{1F600}", "b"],
];

/// Values whose objects all draw their keys from [`KEY_SETS`].
fn shaped_value() -> impl Strategy<Value = OwnedValue> {
    let leaf = prop_oneof![
        Just(Value::Null),
        (-5i64..5).prop_map(|i| Value::Number(Number::from_f64(i as f64).unwrap())),
        "[a-z]{0,3}".prop_map(|s| Value::String(Cow::Owned(s))),
    ];
    leaf.prop_recursive(5, 64, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            (0..KEY_SETS.len(), prop::collection::vec(inner, 3)).prop_map(|(set, values)| {
                let entries = KEY_SETS[set]
                    .iter()
                    .zip(values)
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
                object(entries)
            }),
        ]
    })
}

/// Arrays of records: objects with one key set, each member `0` or an object with one of
/// the key sets. Spelled with one order per key set, the records' keys match the order the
/// direct path last sorted while a nested object replaces it.
fn records_value() -> impl Strategy<Value = OwnedValue> {
    let cell = prop_oneof![Just(None), (0..KEY_SETS.len()).prop_map(Some)];
    let record = prop::collection::vec(cell, 3);
    (0..KEY_SETS.len(), prop::collection::vec(record, 2..5)).prop_map(|(set, records)| {
        let zero = || Value::Number(Number::from_f64(0.0).unwrap());
        let records = records.into_iter().map(|cells| {
            let members = KEY_SETS[set].iter().zip(cells).map(|(k, cell)| {
                let v = match cell {
                    None => zero(),
                    Some(b) => object(
                        KEY_SETS[b]
                            .iter()
                            .map(|k| (k.to_string(), zero()))
                            .collect(),
                    ),
                };
                (k.to_string(), v)
            });
            object(members.collect())
        });
        Value::Array(records.collect())
    })
}

/// Writes `v` as JSON text in one of its many spellings, choices drawn from `r`: members in
/// any order, characters escaped or not, numbers with moved points, padding zeros and
/// exponents, whitespace anywhere it may go. `dup`, if set, repeats one object's key (the
/// `dup`th object written, counting from 1), spelled differently where it can be.
struct Speller<'r> {
    r: &'r [u8],
    at: usize,
    dup: usize,
    objects: usize,
    out: String,
    /// Whether objects with the same keys are written in the same order.
    sticky: bool,
    /// The order (rotation, reversal) objects with these keys were written in.
    orders: Vec<(Vec<String>, (usize, bool))>,
}

impl<'r> Speller<'r> {
    fn new(choices: &'r [u8], dup: usize) -> Speller<'r> {
        let mut s = Speller {
            r: choices,
            at: 0,
            dup,
            objects: 0,
            out: String::new(),
            sticky: false,
            orders: Vec::new(),
        };
        s.sticky = s.pick(4) != 0;
        s
    }

    fn pick(&mut self, n: usize) -> usize {
        let b = self
            .r
            .get(self.at % self.r.len().max(1))
            .copied()
            .unwrap_or(0);
        self.at += 1;
        usize::from(b) % n
    }

    fn ws(&mut self) {
        let w = [" ", "", "", "", "\n  ", "\t", "\r\n", ""][self.pick(8)];
        self.out.push_str(w);
    }

    fn value(&mut self, v: &OwnedValue) {
        match v {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => self.number(*n),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.ws();
                    self.value(item);
                    self.ws();
                }
                self.out.push(']');
            }
            Value::Object(o) => {
                self.objects += 1;
                let mut members: Vec<(&str, &OwnedValue)> = o.iter().collect();
                // A rotation, maybe reversed; in a sticky document, the same one for every
                // object with the same keys, as arrays of records have.
                let keys: Vec<String> = members.iter().map(|(k, _)| k.to_string()).collect();
                let known = self.orders.iter().find(|(ks, _)| *ks == keys).map(|o| o.1);
                let (k, reverse) = match known {
                    Some(order) if self.sticky => order,
                    _ => {
                        let n = keys.len().max(1);
                        let order = (self.pick(n), self.pick(2) == 1);
                        self.orders.push((keys, order));
                        order
                    }
                };
                if !members.is_empty() {
                    let n = members.len();
                    members.rotate_left(k % n);
                }
                if reverse {
                    members.reverse();
                }
                if self.objects == self.dup && !members.is_empty() {
                    let again = members[self.pick(members.len())];
                    let at = self.pick(members.len() + 1);
                    members.insert(at, again);
                }
                self.out.push('{');
                for (i, (k, v)) in members.into_iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.ws();
                    self.string(k);
                    self.ws();
                    self.out.push(':');
                    self.ws();
                    self.value(v);
                }
                self.ws();
                self.out.push('}');
            }
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            let must = c < ' ' || c == '"' || c == '\\';
            if !must && self.pick(6) != 0 {
                self.out.push(c);
                continue;
            }
            match (c, self.pick(3)) {
                ('"', _) => self.out.push_str("\\\""),
                ('\\', _) => self.out.push_str("\\\\"),
                ('/', 0) => self.out.push_str("\\/"),
                ('\n', 0) => self.out.push_str("\\n"),
                ('\t', 0) => self.out.push_str("\\t"),
                (_, upper) => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        if upper == 1 {
                            self.out.push_str(&format!("\\u{u:04X}"));
                        } else {
                            self.out.push_str(&format!("\\u{u:04x}"));
                        }
                    }
                }
            }
        }
        self.out.push('"');
    }

    /// The number's shortest digits, written with the decimal point anywhere, zeros added on
    /// either side, and the exponent to match.
    fn number(&mut self, n: Number) {
        let f = n.as_f64();
        if f == 0.0 {
            let z = ["0", "-0", "0.000", "0e7", "-0.0E-400"][self.pick(5)];
            self.out.push_str(z);
            return;
        }
        let shortest = es_shortest(f);
        let (digits, exp) = shortest.split_once('e').unwrap();
        let exp: i64 = exp.parse().unwrap();
        if f < 0.0 {
            self.out.push('-');
        }
        let lead = [0, 0, 1, 3, 70][self.pick(5)];
        let trail = [0, 0, 2, 60][self.pick(4)];
        // value = 0.[lead zeros]digits[trail zeros] × 10^e
        let e = exp + digits.len() as i64 + lead as i64;
        match self.pick(3) {
            0 if lead == 0 && (0..=digits.len() as i64).contains(&(exp + digits.len() as i64)) => {
                // Plain: the point inside or at the end of the digits.
                let point = (exp + digits.len() as i64) as usize;
                let (int, frac) = digits.split_at(point);
                self.out.push_str(if int.is_empty() { "0" } else { int });
                if !frac.is_empty() || trail > 0 {
                    self.out.push('.');
                    self.out.push_str(frac);
                    self.out.push_str(&"0".repeat(trail));
                }
            }
            1 => {
                self.out.push_str(&digits[..1]);
                self.out.push('.');
                self.out
                    .push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
                self.out.push_str(&"0".repeat(trail));
                self.out.push_str(&format!("e{}", e - lead as i64 - 1));
            }
            _ => {
                self.out.push_str("0.");
                self.out.push_str(&"0".repeat(lead));
                self.out.push_str(digits);
                self.out.push_str(&"0".repeat(trail));
                self.out.push_str(&format!("E+{e}").replace("+-", "-"));
            }
        }
    }
}

/// How many objects [`spell`] writes for `v`.
fn spell_count(v: &OwnedValue, choices: &[u8]) -> usize {
    let mut s = Speller::new(choices, 0);
    s.value(v);
    s.objects
}

fn spell(v: &OwnedValue, choices: &[u8], dup: usize) -> String {
    let mut s = Speller::new(choices, dup);
    s.ws();
    s.value(v);
    s.ws();
    s.out
}

/// Every entry point gives the same answer for `text` under `options`: `parse`'s value's
/// canonical text and digest, or `parse`'s error (code, path, offset). Returns the answer;
/// a disagreement fails the test case.
fn one_answer(
    text: &[u8],
    options: &Options,
) -> Result<Result<String, actionseal_core::Error>, TestCaseError> {
    let parsed = parse(text, options);
    let canonical = canonicalize_json(text, options);
    let digest = fingerprint_json(text, options);
    match parsed {
        Ok(v) => {
            let want = canonicalize(&v);
            prop_assert_eq!(canonical.as_deref(), Ok(want.as_str()));
            prop_assert_eq!(digest, Ok(fingerprint(&v)));
            Ok(Ok(want))
        }
        Err(e) => {
            prop_assert_eq!(canonical, Err(e.clone()));
            prop_assert_eq!(digest, Err(e.clone()));
            Ok(Err(e))
        }
    }
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

/// Number tokens of every length the grammar allows, up to thousands of digits: a
/// significand placed at a chosen magnitude (near the ends of the double range, or
/// anywhere), padded with zeros on either side of the point, its exponent compensating and
/// written with leading zeros; and long runs of significant digits.
fn number_token() -> impl Strategy<Value = String> {
    let significand = prop_oneof![
        "[1-9][0-9]{0,20}",
        "[1-9][0-9]{40,400}",
        prop::sample::select(vec![
            "17976931348623157",
            "17976931348623158",
            "17976931348623159",
            "22250738585072014",
            "24703282292062327",
            "24703282292062328",
            "49406564584124654",
            "9007199254740993",
            "5",
        ])
        .prop_map(str::to_owned),
    ];
    let point = prop_oneof![
        -340i64..-300,
        300i64..312,
        -30i64..30,
        -100_000i64..100_000,
        -400i64..400,
    ];
    let zeros = prop_oneof![0usize..4, 0usize..200, 0usize..3_000];
    (any::<bool>(), significand, point, zeros, 0u8..3, 0usize..3).prop_map(
        |(neg, digits, point, zeros, form, exp_zeros)| {
            let sign = if neg { "-" } else { "" };
            let z = "0".repeat(zeros);
            let ez = "0".repeat(exp_zeros * 40);
            let exp = |e: i64| {
                let (s, m) = if e < 0 { ("-", -e) } else { ("+", e) };
                format!("e{s}{ez}{m}")
            };
            // value = 0.digits × 10^point
            match form {
                0 => format!("{sign}0.{z}{digits}{}", exp(point + zeros as i64)),
                1 => format!(
                    "{sign}{digits}{z}{}",
                    exp(point - digits.len() as i64 - zeros as i64)
                ),
                _ => format!(
                    "{sign}{}.{}{z}{}",
                    &digits[..1],
                    if digits.len() > 1 { &digits[1..] } else { "0" },
                    exp(point - 1)
                ),
            }
        },
    )
}

/// Checks one token against the exact reference, under both profiles and inside a document.
fn check_token(token: &str) -> Result<(), TestCaseError> {
    let rfc = Number::from_text(token, Profile::Rfc8785);
    let read = match &rfc {
        Ok(n) => Read::Double(n.as_f64()),
        Err(e) if e.code() == Code::NumberOverflow => Read::Overflow,
        Err(e) => return Err(TestCaseError::fail(format!("{token}: refused with {e}"))),
    };
    check_rounding(token, read).map_err(TestCaseError::fail)?;
    let strict = Number::from_text(token, Profile::Strict);
    match (&rfc, &strict) {
        (Ok(n), Ok(s)) => {
            prop_assert!(
                strict_accepts(token, n.as_f64()),
                "strict accepted {}",
                token
            );
            prop_assert_eq!(n.as_f64().to_bits(), s.as_f64().to_bits());
        }
        (Ok(n), Err(e)) => {
            prop_assert_eq!(e.code(), Code::InexactNumber);
            prop_assert!(
                !strict_accepts(token, n.as_f64()),
                "strict refused {}",
                token
            );
        }
        (Err(_), Err(e)) => prop_assert_eq!(e.code(), Code::NumberOverflow),
        (Err(_), Ok(_)) => prop_assert!(false, "strict accepted {}, which overflows", token),
    }
    if let Ok(n) = &rfc {
        let canonical = n.to_canonical_string();
        prop_assert!(
            same_value(&canonical, &es_shortest(n.as_f64())),
            "{}",
            canonical
        );
    }
    let text = format!("[{token}]");
    for p in Profile::ALL {
        let want = Number::from_text(token, p).map(|n| format!("[{}]", n.to_canonical_string()));
        let got = canonicalize_json(text.as_bytes(), &Options::with_profile(p));
        prop_assert_eq!(
            got.map_err(|e| e.code()),
            want.map_err(|e| e.code()),
            "{}",
            token
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(4))]

    /// Tokens of 655 KB and more, padded past where a float parser given the raw token stops
    /// reading exponents (issue 7: `0.` + a million zeros + `5e1000007` was read as 0).
    #[test]
    fn huge_padded_tokens_are_read_exactly(
        digits in "[1-9][0-9]{0,17}",
        point in -330i64..312,
        zeros in 655_000usize..700_000,
        after_point in any::<bool>(),
    ) {
        let z = "0".repeat(zeros);
        let token = if after_point {
            format!("0.{z}{digits}e{}", point + zeros as i64)
        } else {
            format!("{digits}{z}e{}", point - digits.len() as i64 - zeros as i64)
        };
        check_token(&token)?;
    }
}

proptest! {
    #![proptest_config(config(2000))]

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
    fn every_spelling_of_a_value_has_its_canonical_text(
        v in prop_oneof![shaped_value(), records_value(), value()],
        choices in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        let text = spell(&v, &choices, 0);
        let want = canonicalize(&v);
        for p in Profile::ALL {
            let opts = Options::with_profile(p);
            let got = one_answer(text.as_bytes(), &opts)?;
            prop_assert_eq!(got.as_deref().ok(), Some(want.as_str()), "{}", text);
            prop_assert_eq!(&parse(text.as_bytes(), &opts).unwrap(), &v);
        }
    }

    #[test]
    fn a_repeated_key_is_refused_however_it_is_spelled(
        inner in prop_oneof![shaped_value(), records_value()],
        choices in prop::collection::vec(any::<u8>(), 1..64),
        which in any::<prop::sample::Index>(),
    ) {
        // At least one object with members: the inner value under the first key set's keys.
        let v = object(vec![("b".into(), inner), ("a".into(), Value::Null)]);
        let objects = spell_count(&v, &choices);
        let text = spell(&v, &choices, which.index(objects) + 1);
        for p in Profile::ALL {
            let e = parse(text.as_bytes(), &Options::with_profile(p)).unwrap_err();
            prop_assert_eq!(e.code(), Code::DuplicateKey, "{}", text);
            let answer = one_answer(text.as_bytes(), &Options::with_profile(p))?;
            prop_assert_eq!(answer.map_err(|e| e.code()), Err(Code::DuplicateKey));
        }
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
    fn number_tokens_are_read_exactly(token in number_token()) {
        check_token(&token)?;
    }

    #[test]
    fn short_number_tokens_are_read_exactly(
        int in "-?(0|[1-9][0-9]{0,24})",
        frac in proptest::option::of("[0-9]{1,25}"),
        exp in proptest::option::of(-400i32..400),
    ) {
        let mut token = int.clone();
        if let Some(f) = &frac { token.push('.'); token.push_str(f); }
        if let Some(e) = exp { token.push_str(&format!("e{e}")); }
        check_token(&token)?;
    }

    #[test]
    fn any_bytes_get_one_answer(bytes in prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(b"{}[]\",:0123456789-.eE tfnrulase\\u".to_vec()),
            1 => any::<u8>(),
        ],
        0..64,
    )) {
        for p in Profile::ALL {
            let opts = Options::with_profile(p);
            if let Ok(c) = one_answer(&bytes, &opts)? {
                prop_assert_eq!(canonicalize_json(c.as_bytes(), &opts).unwrap(), c);
            }
        }
    }

    #[test]
    fn json_like_text_gets_one_answer(text in r#"[\[\]{}",:0-9eE.+\-a-z\\ ]{0,40}"#) {
        for p in Profile::ALL {
            // Valid or not, the same answer from every entry point.
            let _ = one_answer(text.as_bytes(), &Options::with_profile(p))?;
        }
    }
}

/// The generators reach what they are for: most spellings are valid, nested objects share
/// keys with their parents, duplicates are made, and number tokens run past 50 digits.
#[test]
fn generators_reach_their_classes() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let shaped = shaped_value();
    let mut nested_reuse = 0;
    for _ in 0..500 {
        let v = shaped.new_tree(&mut runner).unwrap().current();
        if reuses_keys_inside(&v) {
            nested_reuse += 1;
        }
    }
    assert!(
        nested_reuse > 50,
        "{nested_reuse} of 500 reuse keys when nested"
    );
    let tokens = number_token();
    let long = (0..500)
        .filter(|_| tokens.new_tree(&mut runner).unwrap().current().len() > 50)
        .count();
    assert!(long > 150, "{long} of 500 tokens longer than 50 characters");
}

/// Whether an object holds (at any depth) an object with one of its own keys.
fn reuses_keys_inside(v: &OwnedValue) -> bool {
    fn keys_below(v: &OwnedValue, out: &mut Vec<String>) {
        match v {
            Value::Array(items) => items.iter().for_each(|i| keys_below(i, out)),
            Value::Object(o) => {
                for (k, child) in o.iter() {
                    out.push(k.to_owned());
                    keys_below(child, out);
                }
            }
            _ => {}
        }
    }
    match v {
        Value::Array(items) => items.iter().any(reuses_keys_inside),
        Value::Object(o) => {
            let mut below = Vec::new();
            o.iter()
                .for_each(|(_, child)| keys_below(child, &mut below));
            o.iter().any(|(k, _)| below.iter().any(|b| b == k))
                || o.iter().any(|(_, child)| reuses_keys_inside(child))
        }
        _ => false,
    }
}
