use super::*;
use crate::{canonicalize, parse, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

/// `(pointer, within, count, [(at, code point, kind)])` of every notice of a JSON text.
type Seen = (String, &'static str, usize, Vec<(usize, u32, &'static str)>);

fn seen(text: &str) -> Vec<Seen> {
    notices(&json(text))
        .into_iter()
        .map(|n| {
            let marks = n
                .marks
                .iter()
                .map(|m| (m.at, u32::from(m.character), m.kind.as_str()))
                .collect();
            (n.pointer, n.within.as_str(), n.count, marks)
        })
        .collect()
}

fn value(pointer: &str, marks: &[(usize, u32, &'static str)]) -> Seen {
    (pointer.to_owned(), "value", marks.len(), marks.to_vec())
}

fn string_of(cps: &[u32]) -> String {
    let s: String = cps.iter().map(|&c| char::from_u32(c).unwrap()).collect();
    canonicalize(&Value::String(s.into()))
}

#[test]
fn plain_ascii_and_inner_spaces_are_not_noticed() {
    assert!(seen(
        r#"{"order_id": "order-17", "note": "a b  c", "n": 2500, "ok": true, "x": null, "e": ""}"#
    )
    .is_empty());
}

#[test]
fn a_zero_width_space_and_a_cyrillic_o_are_noticed_where_they_are() {
    assert_eq!(
        seen(r#"{"order_id": "order-17\u200b"}"#),
        [value("/order_id", &[(8, 0x200B, "invisible")])]
    );
    assert_eq!(
        seen(r#"{"order_id": "\u043erder-17"}"#),
        [value("/order_id", &[(0, 0x043E, "non_ascii")])]
    );
}

#[test]
fn spaces_at_either_end_are_noticed_one_by_one() {
    assert_eq!(
        seen(r#"["  a ", "   "]"#),
        [
            value(
                "/0",
                &[
                    (0, 0x20, "leading_space"),
                    (1, 0x20, "leading_space"),
                    (3, 0x20, "trailing_space")
                ]
            ),
            value(
                "/1",
                &[
                    (0, 0x20, "leading_space"),
                    (1, 0x20, "leading_space"),
                    (2, 0x20, "leading_space")
                ]
            ),
        ]
    );
}

#[test]
fn every_class_of_invisible_character() {
    // Control, line separator, no-break space, ideographic space, variation selector,
    // private use, unassigned, noncharacter, BOM, right-to-left override, tag character,
    // Hangul filler.
    for cp in [
        0x0A, 0x7F, 0x2028, 0x2029, 0xA0, 0x3000, 0xFE0F, 0xE000, 0x0378, 0xFFFF, 0xFEFF, 0x202E,
        0xE0041, 0x3164,
    ] {
        let text = string_of(&[u32::from('a'), cp, u32::from('b')]);
        assert_eq!(
            seen(&text),
            [value("", &[(1, cp, "invisible")])],
            "U+{cp:04X}"
        );
    }
}

#[test]
fn visible_characters_outside_ascii_are_non_ascii() {
    for cp in [0xE9, 0x0430, 0xFF11, 0x1F601, 0x4E2D] {
        assert_eq!(
            seen(&string_of(&[cp])),
            [value("", &[(0, cp, "non_ascii")])],
            "U+{cp:04X}"
        );
    }
}

#[test]
fn positions_count_code_points_and_keys_are_noticed_too() {
    assert_eq!(
        seen(r#"{"a/b~": {"k\u00e9y": ["\ud83d\ude01x\u200b"]}}"#),
        [
            (
                "/a~1b~0/k\u{e9}y".to_owned(),
                "key",
                1,
                vec![(1, 0xE9, "non_ascii")]
            ),
            value(
                "/a~1b~0/k\u{e9}y/0",
                &[(0, 0x1F601, "non_ascii"), (2, 0x200B, "invisible")]
            ),
        ]
    );
}

#[test]
fn a_long_string_is_one_notice_that_counts_every_character_and_lists_the_first_marks() {
    let long = string_of(&vec![0x4E2D; 100_000]);
    let found = notices(&json(&long));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].count, 100_000);
    assert_eq!(found[0].marks.len(), MAX_MARKS);
    assert_eq!(found[0].marks[MAX_MARKS - 1].at, MAX_MARKS - 1);
}

#[test]
fn the_json_form() {
    let v = notices_value(&json(r#"{"order_id": "order-17\u200b"}"#));
    assert_eq!(
        canonicalize(&v),
        r#"[{"count":1,"marks":[{"at":8,"code_point":"U+200B","kind":"invisible"}],"pointer":"/order_id","within":"value"}]"#
    );
}
