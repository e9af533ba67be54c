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
        ("9bffffffffffffffff", "longer"),
    ] {
        let e = read_exact(&hex(text)).unwrap_err();
        assert!(e.contains(why), "{text}: {e}");
    }
    let deep = "81".repeat(MAX_DEPTH + 1) + "00";
    assert!(read_exact(&hex(&deep)).unwrap_err().contains("deeply"));
    assert!(read_exact(&hex(&("81".repeat(MAX_DEPTH) + "00"))).is_ok());
}
