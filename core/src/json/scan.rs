//! Finding the bytes that end a run of plain string content, eight at a time.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The first index at or after `i` whose byte is `"`, `\` or a control character (< 0x20),
/// or `b.len()` if there is none. These are the only bytes a JSON string cannot hold
/// literally, and the only ones RFC 8785 escapes.
#[inline]
pub(crate) fn find_special(b: &[u8], i: usize) -> usize {
    find::<false>(b, i)
}

/// As [`find_special`], but also stopping at any byte of 0x80 or more (the start or middle of
/// a multi-byte character), so that a caller can validate UTF-8 as it goes.
#[inline]
pub(crate) fn find_special_or_high(b: &[u8], i: usize) -> usize {
    find::<true>(b, i)
}

/// The high bit of each byte of `w` (eight bytes, little-endian) that is `"`, `\\` or a control
/// character, and with `stop_at_high` of each byte of 0x80 or more. Borrows can only set
/// spurious bits above a real match, so the lowest set bit is always a real one, and none is set
/// when there is no match.
#[inline(always)]
pub(crate) fn special_bytes(w: u64, stop_at_high: bool) -> u64 {
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let mut hits = (quote.wrapping_sub(ONES) & !quote)
        | (backslash.wrapping_sub(ONES) & !backslash)
        | (w.wrapping_sub(ONES * 0x20) & !w);
    if stop_at_high {
        // A byte with its high bit set is a match of its own.
        hits |= w;
    }
    hits & HIGHS
}

/// Eight bytes that match nothing ([`special_bytes`] of them is 0).
pub(crate) const PLAIN: u64 = ONES * b'a' as u64;

#[inline(always)]
fn find<const STOP_AT_HIGH: bool>(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes([
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
        ]);
        let hits = special_bytes(w, STOP_AT_HIGH);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    // The last bytes (fewer than eight): when the text is long enough, the eight bytes that
    // end it, without the ones already scanned.
    if i < b.len() && b.len() >= 8 {
        let start = b.len() - 8;
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[start..]);
        // Bytes before `i` are not looked at: made plain, so that they neither match nor
        // borrow into the bytes after them.
        let keep = u64::MAX << (8 * (i - start));
        let w = (u64::from_le_bytes(w) & keep) | (PLAIN & !keep);
        let hits = special_bytes(w, STOP_AT_HIGH);
        return if hits != 0 {
            start + (hits.trailing_zeros() / 8) as usize
        } else {
            b.len()
        };
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 || (STOP_AT_HIGH && c >= 0x80) {
            return i;
        }
        i += 1;
    }
    i
}

/// The end of the well-formed UTF-8 character that starts at `i` (whose first byte is 0x80 or
/// more), or `None` if the bytes there are not one: the rules of `std::str::from_utf8`,
/// which also rejects encoded surrogates (0xED 0xA0..0xBF).
#[inline]
pub(crate) fn utf8_char_end(b: &[u8], i: usize) -> Option<usize> {
    let cont = |c: u8| (0x80..=0xBF).contains(&c);
    let (c, c1) = (*b.get(i)?, *b.get(i + 1)?);
    // Tested in order of frequency: two-byte characters first.
    if (0xC2..=0xDF).contains(&c) {
        return cont(c1).then_some(i + 2);
    }
    let c2 = *b.get(i + 2)?;
    if c < 0xF0 {
        let second = match c {
            0xE0 => (0xA0..=0xBF).contains(&c1),
            0xED => (0x80..=0x9F).contains(&c1),
            0xE1..=0xEF => cont(c1),
            _ => false,
        };
        return (second && cont(c2)).then_some(i + 3);
    }
    let c3 = *b.get(i + 3)?;
    let second = match c {
        0xF0 => (0x90..=0xBF).contains(&c1),
        0xF1..=0xF3 => cont(c1),
        0xF4 => (0x80..=0x8F).contains(&c1),
        _ => false,
    };
    (second && cont(c2) && cont(c3)).then_some(i + 4)
}

#[cfg(test)]
mod tests;
