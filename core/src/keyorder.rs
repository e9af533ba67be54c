//! RFC 8785 key order: strings compared as sequences of UTF-16 code units.

use std::cmp::Ordering;

/// Compares two strings by their UTF-16 code units, as RFC 8785 section 3.2.3 sorts keys.
///
/// UTF-8 byte order equals code point order, which differs from UTF-16 order only when one
/// side is a supplementary character (encoded as surrogates 0xD800..0xDFFF) and the other is
/// in U+E000..U+FFFF. So bytes are compared directly and only the first differing byte is
/// looked at (see [`rank`]).
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let common = ab.len().min(bb.len());
    let mut i = 0;
    // Eight bytes at a time to the first difference.
    while i + 8 <= common {
        let x = word(&ab[i..i + 8]) ^ word(&bb[i..i + 8]);
        if x != 0 {
            i += (x.leading_zeros() / 8) as usize;
            return rank(ab[i]).cmp(&rank(bb[i]));
        }
        i += 8;
    }
    while i < common {
        if ab[i] != bb[i] {
            return rank(ab[i]).cmp(&rank(bb[i]));
        }
        i += 1;
    }
    ab.len().cmp(&bb.len())
}

/// Orders the first differing bytes of two UTF-8 strings as their UTF-16 code units order.
///
/// Both strings agree before this byte, so it sits at the same place in the same character
/// in both: if it is a continuation byte, both characters have the same lead byte and so the
/// same length and UTF-16 form, and byte order is code point order is UTF-16 order. If it is
/// a lead byte, only one pair is out of order: 0xEE/0xEF (U+E000..U+FFFF, one code unit of
/// at least 0xE000) against 0xF0..0xF4 (a supplementary character, whose first code unit is a
/// surrogate below 0xE000). Moving 0xEE/0xEF above 0xF4 (0xF5 and up never occur in UTF-8)
/// fixes it.
#[inline]
fn rank(b: u8) -> u8 {
    if b == 0xEE || b == 0xEF {
        b + 0x0F
    } else {
        b
    }
}

#[inline]
fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(b);
    u64::from_be_bytes(w)
}

/// A string's first eight bytes as a big-endian integer, zero-padded: compared with
/// [`cmp_prefix`], it orders most keys without touching their text.
#[inline]
pub(crate) fn prefix(s: &[u8]) -> u64 {
    match s.get(..8) {
        Some(head) => word(head),
        None => {
            let mut w = [0u8; 8];
            w[..s.len()].copy_from_slice(s);
            u64::from_be_bytes(w)
        }
    }
}

/// Compares two strings by their [`prefix`]es as [`cmp_utf16`] compares the strings;
/// `Equal` means the prefixes are equal and the strings must be compared in full (they may
/// still differ after eight bytes, or by trailing U+0000 against the end).
#[inline]
pub(crate) fn cmp_prefix(a: u64, b: u64) -> Ordering {
    let x = a ^ b;
    if x == 0 {
        return Ordering::Equal;
    }
    // The first differing byte; a string that ended earlier has a zero there, below any
    // byte that differs from zero.
    let shift = 56 - (x.leading_zeros() & !7);
    rank((a >> shift) as u8).cmp(&rank((b >> shift) as u8))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(a: &str, b: &str) -> Ordering {
        a.encode_utf16().cmp(b.encode_utf16())
    }

    #[test]
    fn supplementary_sorts_before_private_use() {
        assert_eq!(cmp_utf16("\u{1F600}", "\u{E000}"), Ordering::Less);
        assert_eq!(cmp_utf16("\u{E000}", "\u{1F600}"), Ordering::Greater);
        assert_eq!(cmp_utf16("a\u{FFFF}", "a\u{10000}"), Ordering::Greater);
        assert_eq!(cmp_utf16("\u{D7FF}", "\u{10000}"), Ordering::Less);
        assert_eq!(cmp_utf16("ab", "a"), Ordering::Greater);
        assert_eq!(cmp_utf16("", ""), Ordering::Equal);
    }

    proptest! {
        #[test]
        fn matches_utf16_order(a in "\\PC{0,6}", b in "\\PC{0,6}") {
            prop_assert_eq!(cmp_utf16(&a, &b), reference(&a, &b));
        }

        #[test]
        fn prefix_order_agrees_with_full_order(a in "[a\u{0}\u{7F}\u{80}\u{E000}\u{FFFF}\u{10000}\u{1F600}]{0,10}", b in "[a\u{0}\u{7F}\u{80}\u{E000}\u{FFFF}\u{10000}\u{1F600}]{0,10}") {
            let by_prefix = cmp_prefix(prefix(a.as_bytes()), prefix(b.as_bytes()));
            if by_prefix != Ordering::Equal {
                prop_assert_eq!(by_prefix, reference(&a, &b));
            } else {
                prop_assert_eq!(&a.as_bytes()[..a.len().min(8)], &b.as_bytes()[..b.len().min(8)]);
            }
        }

        #[test]
        fn matches_utf16_order_on_long_shared_prefix(p in "[a\u{E000}\u{1F600}]{0,12}", a in "[\u{0}-\u{10FFFF}]{0,3}", b in "[\u{0}-\u{10FFFF}]{0,3}") {
            let (a, b) = (format!("{p}{a}"), format!("{p}{b}"));
            prop_assert_eq!(cmp_utf16(&a, &b), reference(&a, &b));
        }

        #[test]
        fn matches_utf16_order_on_shared_prefix(p in "[a\u{E000}\u{1F600}]{0,3}", a in "[\u{0}-\u{10FFFF}]{0,3}", b in "[\u{0}-\u{10FFFF}]{0,3}") {
            let (a, b) = (format!("{p}{a}"), format!("{p}{b}"));
            prop_assert_eq!(cmp_utf16(&a, &b), reference(&a, &b));
        }
    }
}
