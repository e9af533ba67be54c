//! The RFC 8259 number grammar: scanning a token, and the short tokens that are their own
//! canonical text.

use crate::error::{Code, Error, Result};

/// Scans one RFC 8259 number starting at `start`.
///
/// Returns the end offset and whether the token is a plain integer of at most 15 digits
/// (exactly representable, so it needs neither a float parser nor an exactness check).
pub(crate) fn scan(b: &[u8], start: usize) -> Result<(usize, bool)> {
    let mut i = start;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    let int_start = i;
    match b.get(i) {
        Some(b'0') => {
            i += 1;
            if matches!(b.get(i), Some(b'0'..=b'9')) {
                return Err(Error::at(
                    Code::SyntaxError,
                    i,
                    "leading zeros are not allowed",
                ));
            }
        }
        Some(b'1'..=b'9') => {
            while matches!(b.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        Some(b'I') if b[i..].starts_with(b"Infinity") => {
            return Err(Error::at(
                Code::NonFiniteNumber,
                start,
                "Infinity is not a JSON number",
            ));
        }
        _ => return Err(Error::at(Code::SyntaxError, i, "expected a digit")),
    }
    let int_digits = i - int_start;
    let mut simple = true;
    if b.get(i) == Some(&b'.') {
        simple = false;
        i += 1;
        let frac_start = i;
        while matches!(b.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
        if i == frac_start {
            return Err(Error::at(
                Code::SyntaxError,
                i,
                "expected a digit after the decimal point",
            ));
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        simple = false;
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_start = i;
        while matches!(b.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
        if i == exp_start {
            return Err(Error::at(
                Code::SyntaxError,
                i,
                "expected a digit in the exponent",
            ));
        }
    }
    Ok((i, simple && int_digits <= 15))
}

/// Scans a number token whose canonical text is a piece of the token itself, so that neither a
/// float parser nor Ryu is needed: no exponent, at most 15 integer digits, at most 15
/// significant digits, and if the integer part is `0`, at most 5 zeros after the point.
///
/// Returns `(end, canon_start, canon_end)`: the token is `b[start..end]` and its RFC 8785 text
/// is `b[canon_start..canon_end]`. `None` for any other token, well-formed or not; [`scan`] and
/// [`from_token`] handle those.
///
/// Why the token's digits are the answer: a decimal of at most 15 significant digits is the
/// only such decimal that rounds to its double (15 = DBL_DIG), so the shortest round-trip
/// digits of that double, which ECMAScript prints, are the token's digits without trailing
/// zeros; the value is at least 1e-6 and below 1e21, where ECMAScript uses plain notation;
/// and the strict profile's check passes for the same reason (see
/// `round_trips_by_digit_count`). What is cut: trailing zeros of the fraction, the point if
/// nothing is left after it, and for zero (`-0.00`) everything but one `0`.
#[inline(always)]
pub(crate) fn scan_short(b: &[u8], start: usize) -> Option<(usize, usize, usize)> {
    let mut i = start;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    let int_start = i;
    let int_zero = match b.get(i) {
        Some(b'0') => true,
        Some(b'1'..=b'9') => false,
        _ => return None,
    };
    i += 1;
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    let int_end = i;
    let int_digits = int_end - int_start;
    if (int_zero && int_digits > 1) || int_digits > 15 {
        return None;
    }
    let mut canon_end = int_end;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let frac_start = i;
        while let Some(b'0'..=b'9') = b.get(i) {
            i += 1;
        }
        if i == frac_start {
            return None;
        }
        // One past the last non-zero fraction digit (frac_start if there is none).
        let mut last = i;
        while last > frac_start && b[last - 1] == b'0' {
            last -= 1;
        }
        if last > frac_start {
            let significant = if int_zero {
                let zeros = b[frac_start..last]
                    .iter()
                    .take_while(|&&d| d == b'0')
                    .count();
                if zeros > 5 {
                    return None;
                }
                last - frac_start - zeros
            } else {
                int_digits + (last - frac_start)
            };
            if significant > 15 {
                return None;
            }
            canon_end = last;
        }
    }
    if let Some(b'e' | b'E') = b.get(i) {
        return None;
    }
    if int_zero && canon_end == int_end {
        // Zero, whatever its sign and fraction: "0".
        return Some((i, int_start, int_start + 1));
    }
    Some((i, start, canon_end))
}
