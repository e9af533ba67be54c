//! ECMAScript `Number.prototype.toString` output for finite doubles.

use crate::json::number::MAX_SAFE_INTEGER;
use crate::json::sink::Sink;

/// Appends the ECMAScript `Number.prototype.toString` form of a finite double.
pub(crate) fn write_number<S: Sink>(f: f64, out: &mut S) {
    // Every integer below 2^53 is exactly representable, so its shortest round-trip digits
    // are the integer itself; this covers ids, amounts and counts without running Ryu.
    // `as` truncates toward zero (one instruction, where `fract` calls the C library), so
    // the round trip holds exactly for integers.
    let i = f as i64;
    if i as f64 == f && f.abs() <= SAFE {
        write_integer(i, out);
    } else if let Some((m, k)) = short_decimal(f.abs()) {
        write_decimal(f < 0.0, m, k, out);
    } else if (PLAIN_FROM..=SAFE).contains(&f.abs()) {
        out.put(zmij::Buffer::new().format_finite(f));
    } else {
        let mut buf = ryu_js::Buffer::new();
        out.put(buf.format_finite(f));
    }
}

/// From here up to [`SAFE`], a double that is not an integer is written by `zmij` (Schubfach,
/// faster than Ryu on long doubles: bench/README.md), whose text there is ECMAScript's: both
/// find the shortest digits that round to the double and, of those, the closest, and both
/// write them in plain notation (`zmij` for a first digit from 10^-5 to 10^15, ECMAScript from
/// 10^-6 to 10^20), without an exponent and, for a value that is not an integer, without a
/// trailing `.0`. Outside, where the two write exponents differently,
/// `ryu_js` writes ECMAScript's form. `tests.rs` compares this path with `ryu_js` on random
/// doubles of the range and on the doubles around its ends.
const PLAIN_FROM: f64 = 1e-5;
/// 2^53 - 1: every integer up to it is a double, and every double beyond it is an integer
/// (which `zmij` would write with `.0`).
const SAFE: f64 = MAX_SAFE_INTEGER as f64;

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
    // Below 1e7, a decimal with `k <= 8` places is also one with 8 places (and, below 1e15
    // scaled, at most 15 digits): one test at `k = 8` decides, and `write_decimal` drops the
    // trailing zeros. A 17-digit double (`1 / 7`) is refused after one product, not eight.
    if a < 1e7 {
        return decimal_with_places(a, 1e8, 8);
    }
    let mut p = 1.0;
    for k in 1..=7 {
        p *= 10.0;
        if let Some(found) = decimal_with_places(a, p, k) {
            return Some(found);
        }
    }
    None
}

/// The decimal `m / p` (`p = 10^k`, `m` below 1e15) that rounds to `a`, if there is one.
#[inline(always)]
fn decimal_with_places(a: f64, p: f64, k: u32) -> Option<(u64, u32)> {
    // Rounded by adding a half and truncating (no C library call): only a candidate, which
    // the exact test below accepts or not; when a decimal with `k` places exists, the product
    // is within 0.23 of it, far from where the two ways of rounding differ.
    let x = a * p;
    let m = (x + 0.5) as u64 as f64;
    // A decimal with `k` places puts the product within 0.23 of `m`; a product farther off
    // has none, and skips the division.
    (m < 1e15 && (x - m).abs() <= 0.25 && m / p == a).then_some((m as u64, k))
}

/// Appends `m / 10^k` (`m > 0`, `k >= 1`) in ECMAScript's plain notation, negated if `neg`.
fn write_decimal<S: Sink>(neg: bool, mut m: u64, mut k: u32, out: &mut S) {
    while m.is_multiple_of(10) && k > 0 {
        m /= 10;
        k -= 1;
    }
    if neg {
        out.put_ascii(b'-');
    }
    let p = 10u64.pow(k);
    let mut digits = itoa::Buffer::new();
    out.put(digits.format(m / p));
    if k > 0 {
        out.put_ascii(b'.');
        let frac = digits.format(m % p);
        // The places before the fraction's first significant digit.
        for _ in frac.len()..k as usize {
            out.put_ascii(b'0');
        }
        out.put(frac);
    }
}

/// Appends an integer in decimal.
#[inline]
fn write_integer<S: Sink>(i: i64, out: &mut S) {
    out.put(itoa::Buffer::new().format(i));
}
