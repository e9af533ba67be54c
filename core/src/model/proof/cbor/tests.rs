use super::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn reads_the_items_webauthn_uses() {
    // {1: 2, 3: -7, -1: 1, "fmt": "none", "b": h'0102', "a": [true, null]}
    let bytes = hex("a60102032620016366 6d74646e6f6e656162420102616182f5f6"
        .replace(' ', "")
        .as_str());
    let item = read_exact(&bytes).unwrap();
    let Item::Map(m) = item else { panic!() };
    assert_eq!(m[0], (Item::Uint(1), Item::Uint(2)));
    assert_eq!(m[1].1.as_int(), Some(-7));
    assert_eq!(m[3], (Item::Text("fmt"), Item::Text("none")));
    assert_eq!(m[4].1, Item::Bytes(&[1, 2]));
    assert_eq!(m[5].1, Item::Array(vec![Item::Bool(true), Item::Null]));
}

#[test]
fn refuses_what_canonical_cbor_does_not_allow() {
    for (text, why) in [
        ("1817", "shortest"),       // 23 in two bytes
        ("190017", "shortest"),     // 23 in three bytes
        ("5f4101ff", "indefinite"), // indefinite byte string
        ("a201020103", "twice"),    // duplicate key
        ("c11a514b67b0", "tags"),   // a tag
        ("f93c00", "floats"),       // half float 1.0
        ("62c328", "UTF-8"),        // invalid UTF-8
        ("43010203ff", "follow"),   // trailing byte
        ("5a00010000", "longer"),   // length beyond input
    ] {
        let Refused::Malformed(e) = read_exact(&hex(text)).unwrap_err() else {
            panic!("{text}: not malformed")
        };
        assert!(e.contains(why), "{text}: {e}");
    }
}

fn over_limit(bytes: &[u8]) -> bool {
    matches!(read_exact(bytes), Err(Refused::OverLimit(_)))
}

/// A map of `n` distinct unsigned keys 0.. to 0, in canonical order.
fn map_of(n: usize) -> Vec<u8> {
    let mut out = match n {
        0..=23 => vec![0xA0 + n as u8],
        24..=255 => vec![0xB8, n as u8],
        _ => vec![0xB9, (n >> 8) as u8, n as u8],
    };
    for k in 0..n {
        match k {
            0..=23 => out.push(k as u8),
            24..=255 => out.extend([0x18, k as u8]),
            _ => out.extend([0x19, (k >> 8) as u8, k as u8]),
        }
        out.push(0);
    }
    out
}

#[test]
fn refuses_more_than_webauthn_needs() {
    assert!(read_exact(&map_of(MAX_MEMBERS)).is_ok());
    assert!(over_limit(&map_of(MAX_MEMBERS + 1)));
    let array = |n: usize| [vec![0x98, n as u8], vec![0; n]].concat();
    assert!(read_exact(&array(MAX_MEMBERS)).is_ok());
    assert!(over_limit(&array(MAX_MEMBERS + 1)));
    // A count far beyond the input is a limit, refused at the head.
    assert!(over_limit(&hex("9bffffffffffffffff")));
    assert!(over_limit(&hex("ba00010000")));
    let deep = |n: usize| hex(&("81".repeat(n) + "00"));
    assert!(read_exact(&deep(MAX_DEPTH)).is_ok());
    assert!(over_limit(&deep(MAX_DEPTH + 1)));
    // The whole text: a byte string that fills the bound, and one byte more.
    let bytes = |n: usize| [vec![0x59, (n >> 8) as u8, n as u8], vec![0; n]].concat();
    assert!(read_exact(&bytes(MAX_BYTES - 3)).is_ok());
    assert!(over_limit(&bytes(MAX_BYTES - 2)));
}

#[test]
fn finds_a_repeated_key_wherever_it_is() {
    // {1: 0, "a": 0, h'01': 0, [1]: 0, -1: 0, <repeated key>: 0}
    let members = ["01", "6161", "4101", "8101", "20"];
    for (i, repeated) in members.iter().enumerate() {
        let text = format!(
            "a6{}{repeated}00",
            members.map(|k| format!("{k}00")).concat()
        );
        let e = read_exact(&hex(&text)).unwrap_err();
        assert_eq!(
            e,
            Refused::Malformed("a CBOR map has the same key twice"),
            "{i}"
        );
    }
    // Equal items are equal bytes: 1 and -1, "a" and h'61' are different keys.
    assert!(read_exact(&hex("a401002000616100416100")).is_ok());
}
