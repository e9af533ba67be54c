//! JSON numbers: the RFC 8259 grammar, correctly rounded conversion to a double, the strict
//! profile's exactness check, and ECMAScript `Number.prototype.toString` output.

use crate::canon::Sink;
use crate::error::{Code, Error, Result};
use crate::options::Profile;

/// A JSON number: a finite IEEE 754 double, the I-JSON / RFC 8785 data model.
///
/// `-0` is kept as read but compares equal to `0` and is written as `0`.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Number(f64);

/// Largest integer `n` such that every integer in `-n..=n` is a double: 2^53 - 1.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

impl Number {
    /// A number from a double; NaN and infinities are [`Code::NonFiniteNumber`].
    pub fn from_f64(f: f64) -> Result<Number> {
        if f.is_finite() {
            Ok(Number(f))
        } else {
            Err(Error::new(
                Code::NonFiniteNumber,
                format!("{f} is not a finite number"),
            ))
        }
    }

    /// A number from an integer. Under [`Profile::Strict`] an integer is accepted exactly
    /// when its decimal text would be: 2^53 + 1 (no double equals it) and 2^60 (its canonical
    /// text, `1152921504606847000`, names another number) are [`Code::InexactNumber`]; under
    /// [`Profile::Rfc8785`] it is rounded to the nearest double.
    pub fn from_i64(i: i64, profile: Profile) -> Result<Number> {
        Number::from_i128(i128::from(i), profile)
    }

    /// As [`Number::from_i64`], for 128-bit integers.
    pub fn from_i128(i: i128, profile: Profile) -> Result<Number> {
        if i.unsigned_abs() <= MAX_SAFE_INTEGER as u128 {
            // Exact: every integer of at most 53 bits is a double.
            return Ok(Number(i as f64));
        }
        // Beyond that, the same rule as the integer's text, so hosts and text agree.
        let text = i.to_string();
        from_token(&text, false, profile)
    }

    /// A number from JSON number text (RFC 8259 grammar, nothing around it), under `profile`.
    ///
    /// This is the rule [`crate::parse()`] applies to every number token; hosts use it for
    /// integers too large for 128 bits. Errors about the value carry no offset; grammar
    /// errors carry the offset in `text`.
    pub fn from_text(text: &str, profile: Profile) -> Result<Number> {
        let bytes = text.as_bytes();
        match scan(bytes, 0) {
            Ok((end, simple)) if end == bytes.len() => from_token(text, simple, profile),
            Ok((end, _)) => Err(Error::at(
                Code::SyntaxError,
                end,
                "unexpected character after number",
            )),
            Err(e) => Err(e),
        }
    }

    /// The double.
    pub fn as_f64(self) -> f64 {
        self.0
    }

    /// The value as an integer, when it is one within ±(2^53 − 1).
    pub fn as_safe_integer(self) -> Option<i64> {
        let f = self.0;
        if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 {
            Some(f as i64)
        } else {
            None
        }
    }

    /// The RFC 8785 (ECMAScript) text of this number.
    pub fn to_canonical_string(self) -> String {
        let mut out = String::with_capacity(24);
        write_number(self.0, &mut out);
        out
    }
}

/// Appends the ECMAScript `Number.prototype.toString` form of a finite double.
pub(crate) fn write_number<S: Sink>(f: f64, out: &mut S) {
    // Every integer below 2^53 is exactly representable, so its shortest round-trip digits
    // are the integer itself; this covers ids, amounts and counts without running Ryu.
    if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
        write_integer(f as i64, out);
    } else if let Some((m, k)) = short_decimal(f.abs()) {
        write_decimal(f < 0.0, m, k, out);
    } else {
        let mut buf = ryu_js::Buffer::new();
        out.put(buf.format_finite(f));
    }
}

/// For a non-integral `a` from 1e-6 to 1e15, the decimal `m / 10^k` with at most 15
/// significant digits and `k <= 8` that rounds to `a`, if there is one.
///
/// Such a decimal is the shortest round-trip form of `a`, which Ryu would find: decimals of
/// at most 15 significant digits round to different doubles (15 = DBL_DIG), so it is the only
/// one of so few digits, and the shortest form has no more digits than it. The test is exact:
/// `m` (below 2^53) and `10^k` are doubles, so `m / 10^k` is the double nearest to the
/// decimal. The candidate `m` is `a * 10^k` rounded, which is right whenever a decimal with
/// `k` places exists: `a` and the product are each within a relative 2^-53 of exact, so the
/// product is within 0.23 of `m` (below 10^15).
#[inline]
fn short_decimal(a: f64) -> Option<(u64, u32)> {
    if !(1e-6..1e15).contains(&a) {
        return None;
    }
    let mut p = 1.0;
    for k in 1..=8 {
        p *= 10.0;
        let m = (a * p).round();
        if m >= 1e15 {
            return None;
        }
        if m / p == a {
            return Some((m as u64, k));
        }
    }
    None
}

/// Appends `m / 10^k` (`m > 0`, `k >= 1`) in ECMAScript's plain notation, negated if `neg`.
fn write_decimal<S: Sink>(neg: bool, mut m: u64, mut k: u32, out: &mut S) {
    while m % 10 == 0 && k > 0 {
        m /= 10;
        k -= 1;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    while m > 0 {
        at -= 1;
        digits[at] = b'0' + (m % 10) as u8;
        m /= 10;
    }
    let digits = &digits[at..];
    let k = k as usize;
    let mut buf = [0u8; 48];
    let mut len = 0;
    let mut push = |bytes: &[u8]| {
        buf[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
    };
    if neg {
        push(b"-");
    }
    if digits.len() > k {
        let (int, frac) = digits.split_at(digits.len() - k);
        push(int);
        if !frac.is_empty() {
            push(b".");
            push(frac);
        }
    } else {
        push(b"0.");
        for _ in digits.len()..k {
            push(b"0");
        }
        push(digits);
    }
    // Only ASCII digits, '-' and '.' were written.
    out.put(std::str::from_utf8(&buf[..len]).unwrap_or_default());
}

fn write_integer<S: Sink>(i: i64, out: &mut S) {
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    let mut n = i.unsigned_abs();
    loop {
        pos -= 1;
        buf[pos] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if i < 0 {
        pos -= 1;
        buf[pos] = b'-';
    }
    // Only ASCII digits and '-' were written.
    out.put(std::str::from_utf8(&buf[pos..]).unwrap_or_default());
}

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

/// Converts a scanned number token to a double under `profile`. Errors carry no offset.
pub(crate) fn from_token(tok: &str, simple: bool, profile: Profile) -> Result<Number> {
    if simple {
        let (neg, digits) = match tok.as_bytes() {
            [b'-', rest @ ..] => (true, rest),
            all => (false, all),
        };
        let n = digits
            .iter()
            .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
        // Exact: at most 15 digits.
        let f = n as f64;
        return Ok(Number(if neg { -f } else { f }));
    }
    let f: f64 = tok
        .parse()
        .map_err(|_| Error::new(Code::SyntaxError, "malformed number"))?;
    if !f.is_finite() {
        return Err(Error::new(
            Code::NumberOverflow,
            format!("{} is too large for a double", abbreviate(tok)),
        ));
    }
    if profile == Profile::Strict && !round_trips_by_digit_count(tok.as_bytes()) {
        let mut canon = String::with_capacity(24);
        write_number(f, &mut canon);
        if !Decimal::parse(tok.as_bytes()).same_value(&Decimal::parse(canon.as_bytes())) {
            return Err(inexact(tok, f));
        }
    }
    Ok(Number(f))
}

/// Whether the token has at most 15 significant digits and a magnitude in the normal range
/// (1e-307 to 1e308). Such a decimal is the only one of so few digits that rounds to its
/// double (decimals of 15 digits are spaced more than 4 ulps apart), so the shortest form of
/// the double is this decimal again and the strict check can be skipped.
fn round_trips_by_digit_count(tok: &[u8]) -> bool {
    let d = Decimal::parse(tok);
    match d.significant() {
        None => true,
        Some((first, end, point)) => end - first <= 15 && (-306..=308).contains(&point),
    }
}

fn inexact(text: &str, f: f64) -> Error {
    Error::new(
        Code::InexactNumber,
        format!(
            "{} would be canonicalized as {}, a different number (the strict profile keeps values exact)",
            abbreviate(text),
            Number(f).to_canonical_string()
        ),
    )
}

fn abbreviate(text: &str) -> String {
    if text.len() <= 40 {
        text.to_owned()
    } else {
        format!("{}...({} characters)", &text[..24], text.len())
    }
}

/// The decimal value of a number token, without allocating: the digits of the integer and
/// fraction parts read as one sequence, and the exponent.
struct Decimal<'a> {
    neg: bool,
    int: &'a [u8],
    frac: &'a [u8],
    exp: i64,
}

impl<'a> Decimal<'a> {
    /// Splits a token already known to match the JSON number grammar.
    fn parse(t: &'a [u8]) -> Decimal<'a> {
        let (neg, t) = match t {
            [b'-', rest @ ..] => (true, rest),
            _ => (false, t),
        };
        let mant_end = t.iter().position(|&c| c == b'e' || c == b'E');
        let (mant, exp) = match mant_end {
            Some(e) => (&t[..e], parse_exponent(&t[e + 1..])),
            None => (t, 0),
        };
        let (int, frac) = match mant.iter().position(|&c| c == b'.') {
            Some(p) => (&mant[..p], &mant[p + 1..]),
            None => (mant, &mant[mant.len()..]),
        };
        Decimal {
            neg,
            int,
            frac,
            exp,
        }
    }

    fn digit(&self, i: usize) -> u8 {
        if i < self.int.len() {
            self.int[i]
        } else {
            self.frac[i - self.int.len()]
        }
    }

    /// The significant digits as an index range into the digit sequence and the position of
    /// the decimal point relative to the first of them; `None` for zero.
    fn significant(&self) -> Option<(usize, usize, i64)> {
        let n = self.int.len() + self.frac.len();
        let first = (0..n).find(|&i| self.digit(i) != b'0')?;
        let last = (0..n).rev().find(|&i| self.digit(i) != b'0')?;
        let point = (self.int.len() as i64 - first as i64).saturating_add(self.exp);
        Some((first, last + 1, point))
    }

    fn same_value(&self, other: &Decimal<'_>) -> bool {
        match (self.significant(), other.significant()) {
            (None, None) => true,
            (Some((a0, a1, ap)), Some((b0, b1, bp))) => {
                self.neg == other.neg
                    && ap == bp
                    && a1 - a0 == b1 - b0
                    && (0..a1 - a0).all(|k| self.digit(a0 + k) == other.digit(b0 + k))
            }
            _ => false,
        }
    }
}

/// Parses an exponent like `+21`, `-7` or `400`, saturating far beyond any double's range.
fn parse_exponent(t: &[u8]) -> i64 {
    let (neg, digits) = match t {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, t),
    };
    let magnitude = digits.iter().fold(0i64, |n, &d| {
        n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    // Clamp so that adding a digit count can never overflow.
    let magnitude = magnitude.min(i64::MAX / 4);
    if neg {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    fn canon(text: &str, profile: Profile) -> Result<String> {
        Number::from_text(text, profile).map(Number::to_canonical_string)
    }

    #[test]
    fn strict_keeps_values_exact() {
        for (text, want) in [
            ("25.00", "25"),
            ("1E30", "1e+30"),
            ("100000000000000000000", "100000000000000000000"),
            ("-0", "0"),
            ("-0.0e5", "0"),
            ("1e21", "1e+21"),
            ("1e-7", "1e-7"),
            ("0.1", "0.1"),
            ("9007199254740992", "9007199254740992"),
            ("9007199254740994", "9007199254740994"),
            ("123456789012345678901234567890e-10", "12345678901234567000"),
        ] {
            let strict = canon(text, Profile::Strict);
            if text.starts_with("1234") {
                assert_eq!(strict.unwrap_err().code(), Code::InexactNumber);
            } else {
                assert_eq!(strict.unwrap(), want, "{text}");
            }
            assert_eq!(canon(text, Profile::Rfc8785).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn strict_rejects_changed_values() {
        for (text, rounded) in [
            ("9007199254740993", "9007199254740992"),
            ("0.10000000000000001", "0.1"),
            ("1e-400", "0"),
            ("-1e-400", "0"),
            ("1.00000000000000000000000000001", "1"),
        ] {
            let err = canon(text, Profile::Strict).unwrap_err();
            assert_eq!(err.code(), Code::InexactNumber, "{text}");
            assert_eq!(canon(text, Profile::Rfc8785).unwrap(), rounded, "{text}");
        }
    }

    #[test]
    fn overflow_is_an_error_in_both_profiles() {
        for p in Profile::ALL {
            assert_eq!(canon("1e400", p).unwrap_err().code(), Code::NumberOverflow);
            assert_eq!(
                canon("-1.8e308", p).unwrap_err().code(),
                Code::NumberOverflow
            );
            assert_eq!(
                canon("1e99999999999999999999999", p).unwrap_err().code(),
                Code::NumberOverflow
            );
        }
        // Rounds down to the largest double rather than overflowing.
        assert_eq!(
            canon("1.7976931348623158e308", Profile::Rfc8785).unwrap(),
            "1.7976931348623157e+308"
        );
    }

    #[test]
    fn grammar() {
        for bad in [
            "01", "1.", ".1", "+1", "1e", "1e+", "-", "", "1 ", "0x1", "1.e1",
        ] {
            assert_eq!(
                Number::from_text(bad, Profile::Strict).unwrap_err().code(),
                Code::SyntaxError,
                "{bad:?}"
            );
        }
        assert_eq!(
            Number::from_text("-Infinity", Profile::Strict)
                .unwrap_err()
                .code(),
            Code::NonFiniteNumber
        );
    }

    /// The short path's text, checked against the general one (a float parser and Ryu).
    fn check_short(tok: &str) -> std::result::Result<bool, TestCaseError> {
        let b = tok.as_bytes();
        let Some((end, cs, ce)) = scan_short(b, 0) else {
            return Ok(false);
        };
        let (scan_end, simple) = scan(b, 0).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(end, scan_end, "{}", tok);
        for p in Profile::ALL {
            let n = from_token(&tok[..end], simple, p)
                .map_err(|e| TestCaseError::fail(format!("{tok}: {e}")))?;
            prop_assert_eq!(&tok[cs..ce], n.to_canonical_string(), "{} {:?}", tok, p);
        }
        Ok(true)
    }

    #[test]
    fn short_tokens_match_ryu() {
        for (tok, short) in [
            ("0", true),
            ("-0", true),
            ("-0.000", true),
            ("1.50", true),
            ("100.0", true),
            ("145.17", true),
            ("0.000001", true),
            ("0.0000001", false),
            ("123456789012345", true),
            ("1234567890123456", false),
            ("12345678.12345670", true),
            ("12345678.123456789", false),
            ("0.123456789012345", true),
            ("0.1234567890123456", false),
            ("1e5", false),
            ("01", false),
            ("1.", false),
            ("-", false),
            ("1.5,", true),
        ] {
            assert_eq!(check_short(tok).unwrap(), short, "{tok}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn short_path_equals_ryu_path(
            tok in "-?(0|[1-9][0-9]{0,16})(\\.[0-9]{1,18})?([eE][+-]?[0-9]{1,3})?[,\\]}x]?",
        ) {
            check_short(&tok)?;
        }

        #[test]
        fn short_path_equals_ryu_path_on_dense_digits(
            int in "-?(0|[1-9][0-9]{0,15})",
            zeros in 0usize..8,
            frac in "[0-9]{0,16}",
        ) {
            let tok = if frac.is_empty() { int } else { format!("{int}.{}{frac}", "0".repeat(zeros)) };
            check_short(&tok)?;
        }

        #[test]
        fn short_path_equals_ryu_path_on_random_doubles(x in any::<f64>(), digits in 1usize..17) {
            // Decimals of a given length near random doubles: the cases where 15 digits is
            // the boundary of exactness.
            prop_assume!(x.is_finite());
            let tok = format!("{:.*}", digits, x.abs() % 1e6);
            check_short(&tok)?;
        }
    }

    fn ryu(f: f64) -> String {
        ryu_js::Buffer::new().format_finite(f).to_owned()
    }

    #[test]
    fn written_like_ryu() {
        for f in [
            0.1,
            -0.1,
            145.17,
            0.000001,
            0.0000012,
            1e-7,
            123456789.12345678,
            0.3,
            2.5e-5,
            1e15 + 0.5,
            999999999999999.9,
            0.30000000000000004,
            5e-324,
            1.7976931348623157e308,
            -0.0,
            1e21,
            1e20,
            12.000001,
            1.0000000000000002,
            4.35,
            0.045,
            100.25,
        ] {
            assert_eq!(
                Number::from_f64(f).unwrap().to_canonical_string(),
                ryu(f),
                "{f:e}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn short_decimals_written_like_ryu(int in 0u64..10_000_000, frac in 0u64..100_000_000, places in 1usize..10, neg in any::<bool>()) {
            let text = format!("{}{int}.{:0places$}", if neg { "-" } else { "" }, frac % 10u64.pow(places as u32));
            let f: f64 = text.parse().unwrap();
            prop_assert_eq!(Number::from_f64(f).unwrap().to_canonical_string(), ryu(f), "{}", text);
        }

        #[test]
        fn any_double_written_like_ryu(bits in any::<u64>()) {
            let f = f64::from_bits(bits);
            prop_assume!(f.is_finite());
            prop_assert_eq!(Number::from_f64(f).unwrap().to_canonical_string(), ryu(f));
        }

        #[test]
        fn doubles_near_short_decimals_written_like_ryu(m in 1u64..1_000_000_000_000_000, k in 1i32..12, ulps in -2i64..=2) {
            let f = m as f64 / 10f64.powi(k);
            let f = f64::from_bits((f.to_bits() as i64 + ulps) as u64);
            prop_assert_eq!(Number::from_f64(f).unwrap().to_canonical_string(), ryu(f));
        }
    }

    #[test]
    fn integers() {
        let s = Profile::Strict;
        assert_eq!(
            Number::from_i64(1 << 53, s).unwrap().as_f64(),
            2f64.powi(53)
        );
        assert_eq!(
            Number::from_i64((1 << 53) + 1, s).unwrap_err().code(),
            Code::InexactNumber
        );
        assert_eq!(
            Number::from_i64((1 << 53) + 1, Profile::Rfc8785)
                .unwrap()
                .as_f64(),
            2f64.powi(53)
        );
        // i64::MIN is a double, but its canonical text -9223372036854776000 is another number.
        assert_eq!(
            Number::from_i64(i64::MIN, s).unwrap_err().code(),
            Code::InexactNumber
        );
        assert_eq!(
            Number::from_i64(1 << 60, s).unwrap_err().code(),
            Code::InexactNumber
        );
        assert_eq!(
            Number::from_i128(100_000_000_000_000_000_000, s)
                .unwrap()
                .to_canonical_string(),
            "100000000000000000000"
        );
        assert_eq!(
            Number::from_i128(-(1 << 53) - 2, s).unwrap().as_f64(),
            -(2f64.powi(53) + 2.0)
        );
        assert!(Number::from_i64(i64::MIN, Profile::Rfc8785).is_ok());
        assert_eq!(
            Number::from_i64(i64::MAX, s).unwrap_err().code(),
            Code::InexactNumber
        );
        assert_eq!(
            Number::from_f64(f64::NAN).unwrap_err().code(),
            Code::NonFiniteNumber
        );
        assert_eq!(Number::from_i64(-7, s).unwrap().as_safe_integer(), Some(-7));
        assert_eq!(Number::from_f64(0.5).unwrap().as_safe_integer(), None);
    }
}
