//! From a number token to a double, and the strict profile's exactness check.
//!
//! Both are exact for any token the size limit allows: the token's digits and exponent are
//! read as a decimal (significant digits and the position of the decimal point, in integers
//! wide enough that nothing saturates within reach), and the float parser is only ever given a
//! short normalized form of that decimal. A float parser given the raw token is not enough:
//! Rust's stops taking in exponent digits once the exponent passes 65,535, so `0.` followed by a
//! million zeros and `5e1000007` (5,000,000) would be read as 0.

use super::{write_number, Number};
use crate::error::{Code, Error, Result};
use crate::json::options::Profile;
use crate::json::sink::Sink;

#[cfg(test)]
mod tests;

/// Converts a scanned number token to a double under `profile`. Errors carry no offset.
pub(crate) fn from_token(tok: &str, simple: bool, profile: Profile) -> Result<Number> {
    convert(tok, simple, profile).map(|(n, _)| n)
}

/// [`from_token`], and the double's canonical text, for the direct path (which writes it):
/// the strict check's, when it wrote one.
pub(crate) fn from_token_canonical(
    tok: &str,
    simple: bool,
    profile: Profile,
) -> Result<(Number, NumberText)> {
    let (n, written) = convert(tok, simple, profile)?;
    let text = written.unwrap_or_else(|| {
        let mut t = NumberText::default();
        write_number(n.as_f64(), &mut t);
        t
    });
    Ok((n, text))
}

/// [`from_token`], and the canonical text the strict check wrote, if it ran.
fn convert(tok: &str, simple: bool, profile: Profile) -> Result<(Number, Option<NumberText>)> {
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
        return Ok((Number(if neg { -f } else { f }), None));
    }
    let d = Decimal::parse(tok.as_bytes());
    let f = d.nearest_double().ok_or_else(|| {
        Error::new(
            Code::NumberOverflow,
            format!("{} is too large for a double", abbreviate(tok)),
        )
    })?;
    if profile == Profile::Strict && !round_trips_by_digit_count(&d) {
        // Written on the stack: the ECMAScript form of a double is at most 25 bytes.
        let mut canon = NumberText::default();
        write_number(f, &mut canon);
        if !d.same_value(&Decimal::parse(canon.bytes())) {
            return Err(inexact(tok, f));
        }
        return Ok((Number(f), Some(canon)));
    }
    Ok((Number(f), None))
}

/// A number's canonical text, written without allocating.
#[derive(Default)]
pub(crate) struct NumberText {
    buf: [u8; 32],
    len: usize,
}

impl NumberText {
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl Sink for NumberText {
    fn put(&mut self, s: &str) {
        // Never longer than the buffer (see `tests.rs`); cut, it would fail the comparison.
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
    }

    fn put_ascii(&mut self, c: u8) {
        self.put(char::from(c).encode_utf8(&mut [0; 4]));
    }
}

/// Whether the decimal has at most 15 significant digits and a magnitude in the normal range
/// (1e-307 to 1e308). Such a decimal is the only one of so few digits that rounds to its
/// double (decimals of 15 digits are spaced more than 4 ulps apart), so the shortest form of
/// the double is this decimal again and the strict check can be skipped.
fn round_trips_by_digit_count(d: &Decimal<'_>) -> bool {
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

/// Exponents are read exactly up to this magnitude and clamped beyond it. A token's digit
/// count is below 2^64 (it is in memory), so a clamped exponent still puts the decimal point
/// more than 10^29 places away: overflow or zero, as the exact exponent would.
const EXPONENT_CLAMP: i128 = 10i128.pow(30);

/// Significant digits handed to the float parser; a longer decimal is cut to this many and a
/// `1` appended (see [`Decimal::nearest_double`]).
const KEPT_DIGITS: usize = 800;

/// Tokens up to this length are given to the float parser as they are.
const SHORT_TOKEN: usize = 64;

/// The decimal value of a number token, without allocating: the digits of the integer and
/// fraction parts read as one sequence, and the exponent.
struct Decimal<'a> {
    /// The whole token.
    token: &'a [u8],
    neg: bool,
    int: &'a [u8],
    frac: &'a [u8],
    exp: i128,
}

impl<'a> Decimal<'a> {
    /// Splits a token already known to match the JSON number grammar.
    fn parse(token: &'a [u8]) -> Decimal<'a> {
        let (neg, t) = match token {
            [b'-', rest @ ..] => (true, rest),
            _ => (false, token),
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
            token,
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

    /// The significant digits as an index range into the digit sequence, and the position of
    /// the decimal point relative to the first of them (the value is `0.d1d2... × 10^point`);
    /// `None` for zero.
    fn significant(&self) -> Option<(usize, usize, i128)> {
        let n = self.int.len() + self.frac.len();
        let first = (0..n).find(|&i| self.digit(i) != b'0')?;
        let last = (0..n).rev().find(|&i| self.digit(i) != b'0')?;
        // Exact: both counts are below 2^64 and the exponent is clamped at 10^30.
        let point = self.int.len() as i128 - first as i128 + self.exp;
        Some((first, last + 1, point))
    }

    /// The double nearest to the decimal (ties to even), or `None` if it rounds beyond the
    /// largest double.
    ///
    /// The float parser is given `0.<digits>e<point>` with `point` within ±330, so its own
    /// limits on exponents never apply. Beyond that range the answer is known: from 10^310 up
    /// it overflows, and below 10^-330 it is under half the smallest subnormal (4.9e-324), so
    /// it rounds to zero. A decimal with more than [`KEPT_DIGITS`] significant digits is
    /// cut to that many and a `1` appended: every double, and every midpoint between two
    /// adjacent doubles (where rounding changes direction), has at most 767 significant
    /// digits, so it lies on the same side of each of them as the full decimal, which is
    /// strictly between its truncation and the next 800-digit decimal.
    fn nearest_double(&self) -> Option<f64> {
        let signed = |f: f64| if self.neg { -f } else { f };
        let Some((first, end, point)) = self.significant() else {
            return Some(signed(0.0));
        };
        if point > 310 {
            return None;
        }
        if point < -330 {
            return Some(signed(0.0));
        }
        match self.short_token_double() {
            Some(f) => f.is_finite().then_some(f),
            None => self.normalized_double(first, end, point),
        }
    }

    /// The double nearest to the decimal `0.<digits first..end>e<point>`, through that
    /// normalized text (`point` within ±330).
    fn normalized_double(&self, first: usize, end: usize, point: i128) -> Option<f64> {
        let signed = |f: f64| if self.neg { -f } else { f };
        let kept = (end - first).min(KEPT_DIGITS);
        let mut text = String::with_capacity(kept + 12);
        text.push_str("0.");
        text.extend((first..first + kept).map(|i| char::from(self.digit(i))));
        if kept < end - first {
            // The dropped digits end with a non-zero one (`end` is past the last of them).
            text.push('1');
        }
        text.push('e');
        text.push_str(&point.to_string());
        let f: f64 = text.parse().ok()?;
        f.is_finite().then(|| signed(f))
    }

    /// The double nearest to a token of at most [`SHORT_TOKEN`] bytes with an exponent within
    /// ±400, read as it is: the float parser rounds any such token exactly, its exponent being
    /// far below where that parser stops reading exponent digits. Most numbers are such
    /// tokens: this skips writing out the normalized form.
    fn short_token_double(&self) -> Option<f64> {
        if self.token.len() > SHORT_TOKEN || !(-400..=400).contains(&self.exp) {
            return None;
        }
        std::str::from_utf8(self.token).ok()?.parse().ok()
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

/// Parses an exponent like `+21`, `-7` or `400`, of any length: exact up to
/// [`EXPONENT_CLAMP`] in magnitude, clamped beyond.
fn parse_exponent(t: &[u8]) -> i128 {
    let (neg, digits) = match t {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, t),
    };
    let magnitude = digits.iter().fold(0i128, |n, &d| {
        (n * 10 + i128::from(d - b'0')).min(EXPONENT_CLAMP)
    });
    if neg {
        -magnitude
    } else {
        magnitude
    }
}
