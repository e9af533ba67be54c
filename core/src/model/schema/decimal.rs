//! `multipleOf` decided on decimal values rather than by floating-point division.
//!
//! Every number here is a double, and the strict profile guarantees that a number's canonical
//! text (its shortest round-trip decimal form) is the value the user wrote. `multipleOf` asks
//! whether `value / divisor` is an integer for those decimal values: `19.99` is a multiple of
//! `0.01` and `0.3` of `0.1`, although floating-point division says otherwise.

use crate::json::number::Number;

/// A number as `mantissa × 10^exponent` with no trailing zeros in the mantissa.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    mantissa: u64,
    exponent: i32,
}

impl Decimal {
    /// The decimal value of the number's canonical text; the sign is dropped (it does not
    /// change divisibility).
    pub(crate) fn of(n: Number) -> Decimal {
        let text = n.to_canonical_string();
        let (mant, exp) = match text.split_once('e') {
            Some((m, e)) => (m, e.trim_start_matches('+').parse::<i32>().unwrap_or(0)),
            None => (text.as_str(), 0),
        };
        let mant = mant.trim_start_matches('-');
        let frac_len = mant.split_once('.').map_or(0, |(_, f)| f.len() as i32);
        // At most 17 significant digits (the shortest round-trip form of a double), plus
        // leading zeros that do not change the value: no overflow.
        let mut mantissa = mant.bytes().filter(u8::is_ascii_digit).fold(0u64, |v, d| {
            v.saturating_mul(10).saturating_add(u64::from(d - b'0'))
        });
        let mut exponent = exp - frac_len;
        if mantissa == 0 {
            return Decimal {
                mantissa: 0,
                exponent: 0,
            };
        }
        while mantissa % 10 == 0 {
            mantissa /= 10;
            exponent += 1;
        }
        Decimal { mantissa, exponent }
    }

    /// Whether `self` is an integer multiple of `divisor` (which must not be zero).
    pub(crate) fn is_multiple_of(self, divisor: Decimal) -> bool {
        if self.mantissa == 0 {
            return true;
        }
        if divisor.mantissa == 0 {
            return false;
        }
        let k = i64::from(self.exponent) - i64::from(divisor.exponent);
        if k >= 0 {
            // divisor.mantissa must divide self.mantissa × 10^k: after removing the common
            // factor, what is left of the divisor may only hold 2s and 5s, each at most k times.
            let g = gcd(self.mantissa, divisor.mantissa);
            let mut rest = divisor.mantissa / g;
            for p in [2u64, 5] {
                let mut count = 0;
                while rest.is_multiple_of(p) {
                    rest /= p;
                    count += 1;
                }
                if count > k {
                    return false;
                }
            }
            rest == 1
        } else {
            // divisor.mantissa × 10^-k must divide self.mantissa.
            let mut d = u128::from(divisor.mantissa);
            for _ in 0..-k {
                d *= 10;
                if d > u128::from(self.mantissa) {
                    return false;
                }
            }
            u128::from(self.mantissa) % d == 0
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests;
