//! JSON numbers: the RFC 8259 grammar, correctly rounded conversion to a double, the strict
//! profile's exactness check, and ECMAScript `Number.prototype.toString` output.

mod exact;
mod format;
mod grammar;

pub(crate) use exact::{from_token, from_token_canonical};
pub(crate) use format::write_number;
pub(crate) use grammar::{scan, scan_short};

use crate::error::{Code, Error, Result};
use crate::json::options::Profile;

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
        if i.unsigned_abs() <= MAX_SAFE_INTEGER as u64 {
            // Exact, as in `from_i128`, without its 128-bit conversion.
            return Ok(Number(i as f64));
        }
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

#[cfg(test)]
mod tests;
