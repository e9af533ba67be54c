//! Finding the bytes that end a run of plain string content, eight at a time.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The first index at or after `i` whose byte is `"`, `\` or a control character (< 0x20),
/// or `b.len()` if there is none. These are the only bytes a JSON string cannot hold
/// literally, and the only ones RFC 8785 escapes.
#[inline]
pub(crate) fn find_special(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes([
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
        ]);
        // A byte's high bit is set in each term where the byte matches; borrows can only set
        // spurious bits above a real match, so the lowest set bit is always a real match.
        let quote = w ^ (ONES * u64::from(b'"'));
        let backslash = w ^ (ONES * u64::from(b'\\'));
        let hits = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (w.wrapping_sub(ONES * 0x20) & !w);
        let hits = hits & HIGHS;
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
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
        fn matches_on_sparse_specials(b in proptest::collection::vec(prop_oneof![8 => 0x20u8..=0xff, 1 => Just(b'"'), 1 => Just(b'\\'), 1 => 0u8..0x20], 0..64)) {
            prop_assert_eq!(find_special(&b, 0), reference(&b, 0));
        }
    }
}
