use super::utf16_to_wtf8 as wtf8;

#[test]
fn wtf8_matches_utf8_for_well_formed_text() {
    let s = "a\u{e9}\u{20ac}\u{1F600}\u{FFFD}z";
    let units: Vec<u16> = s.encode_utf16().collect();
    assert_eq!(wtf8(&units), s.as_bytes());
}

#[test]
fn wtf8_keeps_lone_surrogates_visible() {
    assert_eq!(wtf8(&[0x61, 0xD800, 0x62]), b"a\xED\xA0\x80b");
    assert_eq!(wtf8(&[0xDC00]), b"\xED\xB0\x80");
    // A high surrogate followed by another high surrogate: both lone.
    assert_eq!(wtf8(&[0xD83D, 0xD83D]), b"\xED\xA0\xBD\xED\xA0\xBD");
    // A low before a high is not a pair.
    assert_eq!(wtf8(&[0xDE00, 0xD83D]), b"\xED\xB8\x80\xED\xA0\xBD");
}
