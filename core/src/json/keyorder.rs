//! RFC 8785 key order: strings compared as sequences of UTF-16 code units.

use std::cmp::Ordering;

/// Compares two strings by their UTF-16 code units, as RFC 8785 section 3.2.3 sorts keys.
///
/// UTF-8 byte order equals code point order, which differs from UTF-16 order only when one
/// side is a supplementary character (encoded as surrogates 0xD800..0xDFFF) and the other is
/// in U+E000..U+FFFF. So bytes are compared directly, and the first differing byte decides,
/// with the lead bytes 0xEE and 0xEF ranked above 0xF0..0xF4.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    cmp_utf16_bytes(a.as_bytes(), b.as_bytes())
}

/// [`cmp_utf16`] on the UTF-8 bytes of two strings.
#[inline]
pub(crate) fn cmp_utf16_bytes(ab: &[u8], bb: &[u8]) -> Ordering {
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

/// A string's first eight bytes as a big-endian integer, zero-padded: through [`sort_key`],
/// it orders most keys without touching their text.
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

/// The [`prefix`] of `b[start..start + len]`, reading eight bytes at once when `b` has them.
#[inline]
pub(crate) fn prefix_at(b: &[u8], start: usize, len: usize) -> u64 {
    match b.get(start..start + 8) {
        Some(head) if len >= 8 => word(head),
        // Keep the first `len` bytes (len < 8, so the shift is at most 64 - 8).
        Some(head) => word(head) & !(u64::MAX >> (len * 8)),
        None => prefix(&b[start..start + len]),
    }
}

/// A [`prefix`] remapped so that comparing two as integers orders the strings as
/// [`cmp_utf16`] does, except that equal results must be settled by comparing the strings in
/// full (they may differ after eight bytes, or by trailing U+0000 against the end).
///
/// Each byte is replaced by its [`rank`]; a string that ends within the eight bytes has
/// zeros there, below any byte that differs from zero.
#[inline]
pub(crate) fn sort_key(prefix: u64) -> u64 {
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    if prefix & HIGHS == 0 {
        // ASCII: every byte is its own rank.
        return prefix;
    }
    u64::from_be_bytes(prefix.to_be_bytes().map(rank))
}

#[cfg(test)]
mod tests;
