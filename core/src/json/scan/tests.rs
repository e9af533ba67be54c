use super::*;
use proptest::prelude::*;

fn reference(b: &[u8], i: usize) -> usize {
    (i..b.len())
        .find(|&j| b[j] == b'"' || b[j] == b'\\' || b[j] < 0x20)
        .unwrap_or(b.len())
}

proptest! {
    #[test]
    fn matches_bytewise_scan(b in proptest::collection::vec(any::<u8>(), 0..40), start in 0usize..40) {
        let start = start.min(b.len());
        prop_assert_eq!(find_special(&b, start), reference(&b, start));
    }

    #[test]
    fn or_high_matches_bytewise_scan(b in proptest::collection::vec(any::<u8>(), 0..40), start in 0usize..40) {
        let start = start.min(b.len());
        let want = (start..b.len())
            .find(|&j| b[j] == b'"' || b[j] == b'\\' || b[j] < 0x20 || b[j] >= 0x80)
            .unwrap_or(b.len());
        prop_assert_eq!(find_special_or_high(&b, start), want);
    }

    #[test]
    fn utf8_char_end_agrees_with_std(b in proptest::collection::vec(any::<u8>(), 1..6)) {
        prop_assume!(b[0] >= 0x80);
        // std's verdict on the first character: valid iff the prefix up to the first
        // error covers at least one whole character.
        let want = match std::str::from_utf8(&b) {
            Ok(s) => Some(s.chars().next().unwrap().len_utf8()),
            Err(e) if e.valid_up_to() > 0 => Some(std::str::from_utf8(&b[..e.valid_up_to()]).unwrap().chars().next().unwrap().len_utf8()),
            Err(_) => None,
        };
        prop_assert_eq!(utf8_char_end(&b, 0), want);
    }

    #[test]
    fn utf8_char_end_accepts_every_char(c in any::<char>()) {
        let mut buf = [0u8; 4];
        let s = c.encode_utf8(&mut buf);
        if !c.is_ascii() {
            prop_assert_eq!(utf8_char_end(s.as_bytes(), 0), Some(s.len()));
        }
    }

    #[test]
    fn matches_on_sparse_specials(b in proptest::collection::vec(prop_oneof![8 => 0x20u8..=0xff, 1 => Just(b'"'), 1 => Just(b'\\'), 1 => 0u8..0x20], 0..64)) {
        prop_assert_eq!(find_special(&b, 0), reference(&b, 0));
    }
}

/// The last bytes are scanned as one word that can overlap bytes before the start: those must
/// not match, nor borrow into the bytes after them (`"` then `#`, which is `"` + 1).
#[test]
fn the_last_word_ignores_bytes_before_the_start() {
    for text in [
        &b"abcdefg\"#abc"[..],
        b"\"#",
        b"abcdefgh\\]",
        b"abcdefgh\x00!xyz",
    ] {
        for start in 0..=text.len() {
            assert_eq!(
                find_special(text, start),
                reference(text, start),
                "{text:?} {start}"
            );
            let high = (start..text.len())
                .find(|&j| text[j] < 0x20 || text[j] >= 0x80 || b"\"\\".contains(&text[j]))
                .unwrap_or(text.len());
            assert_eq!(find_special_or_high(text, start), high, "{text:?} {start}");
        }
    }
}
