//! The direct path against the parser and the value serializer, on generated, mutated and
//! hand-picked text.

use super::*;
use crate::json::options::Profile;
use crate::{canonicalize, parse, Digest};
use proptest::prelude::*;

/// The direct path accepts exactly what the parser accepts, and writes what
/// canonicalizing the parsed value writes; through the hasher, it gives the same digest.
fn agree(text: &[u8], options: &Options) -> std::result::Result<(), TestCaseError> {
    let mut direct = Vec::new();
    let accepted = canonicalize_text(text, options, &mut direct);
    let direct = String::from_utf8(direct).unwrap();
    // The same with every object sorted by member list, or every one rearranged.
    for limit in [0, usize::MAX] {
        let mut other = Vec::new();
        prop_assert_eq!(write_text(text, options, &mut other, limit), accepted);
        prop_assert_eq!(&other, direct.as_bytes());
    }
    match parse(text, options) {
        Ok(v) => {
            prop_assert!(
                accepted,
                "rejected valid input {:?}",
                String::from_utf8_lossy(text)
            );
            let want = canonicalize(&v);
            prop_assert_eq!(&direct, &want);
            let mut hasher = crate::json::digest::Hasher::new();
            prop_assert!(canonicalize_text(text, options, &mut hasher));
            prop_assert_eq!(hasher.finish(), Digest::of(want.as_bytes()));
        }
        Err(e) => {
            prop_assert!(
                !accepted,
                "accepted invalid input ({}) {:?}",
                e,
                String::from_utf8_lossy(text)
            );
            prop_assert!(direct.is_empty());
        }
    }
    Ok(())
}

fn agree_everywhere(text: &[u8]) -> std::result::Result<(), TestCaseError> {
    for profile in Profile::ALL {
        agree(text, &Options::with_profile(profile))?;
    }
    for max_depth in [0, 1, 2, 3] {
        agree(
            text,
            &Options {
                max_depth,
                ..Options::default()
            },
        )?;
    }
    agree(
        text,
        &Options {
            max_bytes: text.len().saturating_sub(1),
            ..Options::default()
        },
    )
}

// Generators of JSON text: valid nearly always, so that what is compared is output;
// rare invalid pieces (weight 1) cover rejection, and mutated() covers it more.

fn ws() -> impl Strategy<Value = String> {
    prop_oneof![
        300 => Just(String::new()),
        200 => "[ \t\n\r]{1,3}",
        // Indentation, around the eight spaces counted at once.
        50 => "\r?\n {0,20}[\t\n]?",
        1 => Just("\u{A0}".to_owned()),
        1 => Just("\u{C}".to_owned()),
    ]
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        400 => "-?(0|[1-9][0-9]{0,5})(\\.[0-9]{1,4})?",
        200 => "-?(0|[1-9][0-9]{0,22})(\\.[0-9]{1,22})?([eE][+-]?[0-9]{1,2})?",
        100 => "-?0\\.0{0,8}[1-9]{1,3}",
        4 => "-?[1-9](\\.[0-9]{1,3})?[eE][+-]?[0-9]{3}",
        1 => Just("9007199254740993".to_owned()),
        1 => Just("0.10000000000000001".to_owned()),
        1 => Just("-".to_owned()),
        1 => Just("01".to_owned()),
        1 => Just("1.".to_owned()),
        1 => Just("NaN".to_owned()),
        1 => Just("-Infinity".to_owned()),
    ]
}

fn string_body() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        300 => "[a-z ]{1,4}",
        100 => "[\u{80}-\u{7FF}\u{800}-\u{D7FF}\u{E000}-\u{FFFF}\u{10000}-\u{10FFFF}]",
        40 => Just("\u{E000}".to_owned()),
        40 => Just("\u{1F600}".to_owned()),
        100 => "\\\\[\"\\\\/bfnrt]",
        50 => "\\\\u00[0-9a-fA-F]{2}",
        50 => "\\\\u[0-9a-cA-CeEfF][0-9a-fA-F]{3}",
        30 => Just("\\ud83d\\ude00".to_owned()),
        30 => Just("\\u0061".to_owned()),
        30 => Just("\u{7F}".to_owned()),
        1 => Just("\\ud83d".to_owned()),
        1 => Just("\\ude00x".to_owned()),
        1 => Just("\\x".to_owned()),
        1 => Just("\\u12".to_owned()),
        1 => Just("\u{1}".to_owned()),
    ];
    prop::collection::vec(piece, 0..4).prop_map(|p| p.concat())
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "a", "b", "aa", "ab", "", "a\\u0000", "\\u0062", "\u{E000}", "\u{1F600}",
            "\\ud83d\\ude01", "\u{FFFF}", "abcdefghi", "abcdefghj", "abcdefgh", "k\\\"",
        ])
        .prop_map(str::to_owned),
        1 => string_body(),
    ]
}

fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        300 => prop::sample::select(vec!["true", "false", "null"]),
        1 => prop::sample::select(vec!["tru", "nul", "falsey"]),
    ]
    .prop_map(str::to_owned)
}

fn json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        3 => number(),
        3 => string_body().prop_map(|s| format!("\"{s}\"")),
        1 => literal(),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec((ws(), inner.clone(), ws()), 0..6).prop_map(|items| {
                let items: Vec<String> = items
                    .into_iter()
                    .map(|(a, v, b)| format!("{a}{v}{b}"))
                    .collect();
                format!("[{}]", items.join(","))
            }),
            (
                prop::collection::vec((ws(), key(), ws(), inner, ws()), 0..7),
                prop::bool::weighted(0.1)
            )
                .prop_map(|(members, keep_duplicates)| {
                    let mut seen = std::collections::HashSet::new();
                    let members: Vec<String> = members
                        .into_iter()
                        .filter(|(_, k, ..)| keep_duplicates || seen.insert(k.clone()))
                        .map(|(a, k, b, v, c)| format!("{a}\"{k}\"{b}:{c}{v}"))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }),
        ]
    })
}

/// How often generated text is valid, so that the tests above compare output rather
/// than only agree on rejecting.
#[test]
fn generated_text_is_mostly_valid() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = json();
    let valid = (0..1000)
        .filter(|_| {
            let text = strategy.new_tree(&mut runner).unwrap().current();
            parse(text.as_bytes(), &Options::with_profile(Profile::Rfc8785)).is_ok()
        })
        .count();
    assert!(valid > 700, "{valid} of 1000 valid");
}

/// Text with a few random byte edits.
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    (
        json(),
        prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..3),
    )
        .prop_map(|(text, edits)| {
            let mut b = text.into_bytes();
            for (at, kind, byte) in edits {
                if b.is_empty() {
                    b.push(byte);
                    continue;
                }
                let i = at.index(b.len());
                match kind {
                    0 => {
                        b.remove(i);
                    }
                    1 => b.insert(i, byte),
                    _ => b[i] = byte,
                }
            }
            b
        })
}

/// Arrays of records: the same keys in the same order, now and then a different set or
/// order, keys alike in their first eight bytes, escaped spellings and duplicates.
fn records() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "id",
        "name",
        "qty",
        "abcdefgh1",
        "abcdefgh2",
        "\\u0069d",
        "\u{E000}",
        "\u{1F600}",
    ]);
    let record = prop::collection::vec((key, 0u8..3), 1..5);
    let picks = prop::collection::vec((0usize..4, any::<bool>(), ws()), 1..10);
    (prop::collection::vec(record, 1..4), picks).prop_map(|(shapes, picks)| {
        let items: Vec<String> = picks
            .iter()
            .enumerate()
            .map(|(n, (pick, reverse, space))| {
                let mut shape = shapes[pick % shapes.len()].clone();
                if *reverse {
                    shape.reverse();
                }
                let members: Vec<String> = shape
                    .iter()
                    .map(|(k, v)| format!("{space}\"{k}\":{}", n * 3 + usize::from(*v)))
                    .collect();
                format!("{{{}}}", members.join(","))
            })
            .collect();
        format!("[{}]", items.join(","))
    })
}

/// Objects nested in objects, all drawing their keys from a few small key sets in varying
/// orders, so that an object often has the keys of one nested inside it or beside it (the
/// remembered [`Shape`] is replaced while an outer object still reads its keys); now and then
/// a key repeats, as itself or spelled with an escape.
fn nested_shapes() -> impl Strategy<Value = String> {
    const SETS: [&[&str]; 4] = [
        &["b", "a", "m"],
        &["z", "y", "b"],
        &["a", "b"],
        &["abcdefgh2", "abcdefgh1", "a"],
    ];
    let object = (0..SETS.len(), any::<prop::sample::Index>(), 0u8..12);
    let leaf = prop_oneof![
        Just("0".to_owned()),
        Just("1".to_owned()),
        Just("[]".to_owned())
    ];
    leaf.prop_recursive(4, 40, 3, move |inner| {
        (object.clone(), prop::collection::vec(inner, 3)).prop_map(|((set, rot, twist), values)| {
            let keys = SETS[set];
            let r = rot.index(keys.len());
            let mut order: Vec<String> = keys[r..]
                .iter()
                .chain(&keys[..r])
                .map(|k| k.to_string())
                .collect();
            if twist % 2 == 1 {
                order.reverse();
            }
            match twist {
                // A duplicate: the first key again, as written or with its first letter escaped.
                10 => order.push(order[0].clone()),
                11 => order.push(format!(
                    "\\u{:04x}{}",
                    u32::from(order[0].as_bytes()[0]),
                    &order[0][1..]
                )),
                _ => {}
            }
            let members: Vec<String> = order
                .iter()
                .enumerate()
                .map(|(i, k)| format!("\"{k}\":{}", values[i % values.len()]))
                .collect();
            format!("{{{}}}", members.join(","))
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn direct_path_agrees_with_parser_on_nested_shapes(text in nested_shapes()) {
        agree_everywhere(text.as_bytes())?;
    }

    #[test]
    fn direct_path_agrees_with_parser_on_records(text in records()) {
        agree_everywhere(text.as_bytes())?;
    }

    #[test]
    fn direct_path_agrees_with_parser(text in (ws(), json(), ws()).prop_map(|(a, j, b)| format!("{a}{j}{b}"))) {
        agree_everywhere(text.as_bytes())?;
    }

    #[test]
    fn direct_path_agrees_with_parser_on_mutated_text(text in mutated()) {
        agree_everywhere(&text)?;
    }

    #[test]
    fn direct_path_agrees_with_parser_on_bytes(text in prop::collection::vec(prop_oneof![
        4 => prop::sample::select(b"{}[]\",:0123456789-.eE tfnrulase\\u".to_vec()),
        1 => any::<u8>(),
    ], 0..48)) {
        agree_everywhere(&text)?;
    }
}

#[test]
fn known_cases() {
    for text in [
        "{\"b\":1,\"a\":[1.50,-0,\"x\\u0041\"],\"\u{E000}\":2,\"\u{1F600}\":3}",
        "  [ ]  ",
        "{}",
        "\"\\ud83d\\ude00\"",
        "{\"a\":1,\"\\u0061\":2}",
        "{\"a\\u0000\":1,\"a\":2}",
        "[1e21,1e-7,0.000001,123456789012345678,5e-324,1.7976931348623157e308]",
        "\u{FEFF}{}",
        "[1,]",
        "{\"a\":1,}",
        "[1 2]",
        "[\n        1,\n                \t 2,\n                 \u{C}3]",
        "{\n    \"b\": [\n        1,\n        2\n    ],\n    \"a\": 0.50\n}\n        ",
        r#"{"a":{"b":1,"a":2}}"#,
        r#"[{"b":1,"a":2},{"b":3,"a":4},{"b":5,"a":6,"c":7},{"a":1,"b":2},{"b":1,"a":2}]"#,
        r#"[{"b":1,"a":2},{"b":1,"b":2}]"#,
        r#"[{"b":1,"a":2},{"b":1,"\u0061":2},{"b":1,"\u0062":2}]"#,
        r#"[{"abcdefgh2":1,"abcdefgh1":2},{"abcdefgh2":1,"abcdefgh1":2}]"#,
        r#"[{"abcdefgh2":1,"abcdefgh1":2},{"abcdefgh1":1,"abcdefgh2":2}]"#,
        r#"[{"abcdefgh2":1,"abcdefgh1":2},{"abcdefgh1":1,"abcdefgh1":2}]"#,
        r#"[{"abcdefgh2":1,"a":2},{"abcdefgh1":1,"a":2},{"abcdefgh2":1,"a":2}]"#,
        // A nested object replaced the remembered shape while its parent, whose keys had
        // matched the old one, was still open (issue 7, item 2): a duplicate, and a misorder.
        r#"{"p":{"b":0,"a":0,"m":0},"q":{"b":0,"a":{"z":0,"y":0,"b":0},"b":1}}"#,
        r#"{"p":{"b":0,"a":0,"m":0},"q":{"b":0,"a":{"z":0,"y":0,"m":0},"m":1}}"#,
    ] {
        agree_everywhere(text.as_bytes()).unwrap();
    }
}
