//! From a number token to a double, and the strict profile's exactness check.

use super::{write_number, Number};
use crate::error::{Code, Error, Result};
use crate::json::options::Profile;

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
