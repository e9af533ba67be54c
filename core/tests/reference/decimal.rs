//! An exact reference for reading JSON number tokens, written apart from the core's number
//! code (shared by `core/tests/properties.rs` and the `number_exact` fuzz target).
//!
//! It does not compute a double itself. It checks a claimed result against the token's exact
//! value with big-integer arithmetic: a double is the correctly rounded value of a decimal
//! when the decimal lies between the midpoints to its neighbours (ties going to the even
//! significand); an overflow is correct when the decimal is at least the midpoint between the
//! largest double and 2^1024. The strict profile's verdict is checked against Rust's own
//! shortest round-trip formatting (`{:e}`), not the core's ECMAScript formatter.

use std::cmp::Ordering;

/// A token's exact value: `digits × 10^exp` with no leading or trailing zeros in `digits`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exact {
    Zero,
    Finite {
        neg: bool,
        digits: Vec<u8>,
        exp: i64,
    },
    /// An exponent of 10^17 or more in magnitude: unimaginably far from every double.
    Huge {
        neg: bool,
        positive: bool,
    },
}

/// Reads a token of the JSON number grammar (the caller has checked the grammar).
pub fn exact(token: &str) -> Exact {
    let (neg, rest) = match token.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, token),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, "0"),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    let Some(first) = all.iter().position(|&d| d != 0) else {
        return Exact::Zero;
    };
    let last = all.iter().rposition(|&d| d != 0).unwrap();
    let (eneg, edigits) = match exponent.as_bytes().first() {
        Some(b'-') => (true, &exponent[1..]),
        Some(b'+') => (false, &exponent[1..]),
        _ => (false, exponent),
    };
    let edigits = edigits.trim_start_matches('0');
    if edigits.len() > 17 {
        return Exact::Huge {
            neg,
            positive: !eneg,
        };
    }
    let e: i64 = if edigits.is_empty() {
        0
    } else {
        edigits.parse().unwrap()
    };
    let e = if eneg { -e } else { e };
    // The value of the last significant digit's place.
    let exp = e - frac.len() as i64 + (all.len() - 1 - last) as i64;
    Exact::Finite {
        neg,
        digits: all[first..=last].to_vec(),
        exp,
    }
}

/// What reading a token gave: a double, or an overflow.
#[derive(Clone, Copy, Debug)]
pub enum Read {
    Double(f64),
    Overflow,
}

/// Checks that `got` is the token's value rounded to the nearest double (ties to even), or
/// an overflow exactly when that rounding goes past the largest double. `Err` says why not.
pub fn check_rounding(token: &str, got: Read) -> Result<(), String> {
    let fail = |why: &str| Err(format!("{}: {why} (got {got:?})", abbreviate(token)));
    let (neg, digits, exp) = match exact(token) {
        Exact::Zero => {
            return match got {
                Read::Double(0.0) => Ok(()),
                _ => fail("zero must read as zero"),
            }
        }
        Exact::Huge { positive: true, .. } => {
            return match got {
                Read::Overflow => Ok(()),
                _ => fail("an astronomically large value must overflow"),
            }
        }
        Exact::Huge { neg, .. } => {
            return match got {
                Read::Double(f) if f == 0.0 && f.is_sign_negative() == neg => Ok(()),
                _ => fail("an astronomically small value must read as zero of its sign"),
            }
        }
        Exact::Finite { neg, digits, exp } => (neg, digits, exp),
    };
    let t = Decimal::new(&digits, exp);
    // The midpoint between the largest double and 2^1024: (2^54 - 1) × 2^970.
    let top = Dyadic::new(Big::from_u64((1 << 54) - 1), 970);
    match got {
        Read::Overflow => match t.cmp_dyadic(&top) {
            Some(Ordering::Less) => fail("overflow below the largest double's rounding boundary"),
            Some(_) => Ok(()),
            None => Ok(()),
        },
        Read::Double(f) => {
            if f.is_sign_negative() != neg {
                return fail("wrong sign");
            }
            let a = f.abs();
            if !a.is_finite() {
                return fail("not finite");
            }
            if a == 0.0 {
                // Zero is right up to half the smallest subnormal, 2^-1075 (a tie goes to 0).
                return match t.cmp_dyadic(&Dyadic::new(Big::from_u64(1), -1075)) {
                    Some(Ordering::Greater) => fail("read as zero above 2^-1075"),
                    _ => Ok(()),
                };
            }
            let x = dyadic(a);
            let (lo, hi, even) = midpoints(a, &x);
            match (t.cmp_dyadic(&lo), t.cmp_dyadic(&hi)) {
                (Some(Ordering::Less), _) => fail("below the midpoint to the next lower double"),
                (_, Some(Ordering::Greater)) => {
                    fail("above the midpoint to the next higher double")
                }
                (Some(Ordering::Equal), _) | (_, Some(Ordering::Equal)) if !even => {
                    fail("a tie rounded to an odd significand")
                }
                _ => Ok(()),
            }
        }
    }
}

/// Whether the strict profile must accept the token, given the double it rounds to: the
/// double's ECMAScript text ([`es_shortest`]) is the token's own value.
pub fn strict_accepts(token: &str, f: f64) -> bool {
    match exact(token) {
        Exact::Zero => true,
        Exact::Huge { .. } => false,
        Exact::Finite { .. } => same_value(token, &es_shortest(f)),
    }
}

/// Whether two decimal texts (JSON number grammar, signs ignored) denote the same value.
pub fn same_value(a: &str, b: &str) -> bool {
    let strip = |s: &str| exact(s.trim_start_matches('-'));
    strip(a) == strip(b)
}

/// The digits ECMAScript's `Number.prototype.toString` chooses for `|f|`, as `<digits>e<exp>`:
/// the fewest significant digits that read back as `f`, and of those the decimal closest to
/// `f`, the even one on a tie. Rust's shortest formatting (`{:e}`) gives the digit count and
/// a candidate; it may settle a tie the other way, so its neighbours are candidates too.
pub fn es_shortest(f: f64) -> String {
    let a = f.abs();
    if a == 0.0 {
        return "0e0".to_owned();
    }
    let rust = format!("{a:e}");
    let (mantissa, e) = rust.split_once('e').unwrap();
    let e: i64 = e.parse().unwrap();
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let d: u64 = format!("{int}{frac}").parse().unwrap();
    let exp = e - frac.len() as i64;
    let x = dyadic(a);
    let reads_back = |c: u64| {
        let digits = digits_of(c);
        let t = Decimal::new(&digits, exp);
        c > 0 && rounds_to(&t, a, &x)
    };
    let mut best = d;
    for c in [d - 1, d + 1] {
        if !reads_back(c) {
            continue;
        }
        // The one closer to `a`: compare `a` with the midpoint (best + c) / 2.
        let (lo, hi) = (best.min(c), best.max(c));
        let mid = digits_of((lo + hi) * 5);
        best = match Decimal::new(&mid, exp - 1).cmp_dyadic(&x) {
            Some(Ordering::Less) => hi,
            Some(Ordering::Greater) => lo,
            _ if lo % 2 == 0 => lo,
            _ => hi,
        };
    }
    format!("{best}e{exp}")
}

fn digits_of(v: u64) -> Vec<u8> {
    v.to_string().bytes().map(|b| b - b'0').collect()
}

/// `a` (positive, finite) as `m × 2^k`.
fn dyadic(a: f64) -> Dyadic {
    let bits = a.to_bits();
    let biased = (bits >> 52) as i64;
    let frac = bits & ((1 << 52) - 1);
    if biased == 0 {
        Dyadic::new(Big::from_u64(frac), -1074)
    } else {
        Dyadic::new(Big::from_u64(frac | (1 << 52)), biased - 1075)
    }
}

/// Whether the positive decimal `t` rounds to the positive double `a` (= `x`), ties to even.
fn rounds_to(t: &Decimal<'_>, a: f64, x: &Dyadic) -> bool {
    let (lo, hi, even) = midpoints(a, x);
    match (t.cmp_dyadic(&lo), t.cmp_dyadic(&hi)) {
        (Some(Ordering::Less), _) | (_, Some(Ordering::Greater)) => false,
        (Some(Ordering::Equal), _) | (_, Some(Ordering::Equal)) => even,
        _ => true,
    }
}

/// The midpoints between `a` (= `x`, positive) and its neighbours, and whether its
/// significand is even (which decides a tie).
fn midpoints(a: f64, x: &Dyadic) -> (Dyadic, Dyadic, bool) {
    let biased = (a.to_bits() >> 52) as i64;
    let m = x.m.to_u64();
    let k = x.k;
    let lo = if m == 1 << 52 && biased > 1 {
        Dyadic::new(Big::from_u64(4 * m - 1), k - 2)
    } else {
        Dyadic::new(Big::from_u64(2 * m - 1), k - 1)
    };
    let hi = Dyadic::new(Big::from_u64(2 * m + 1), k - 1);
    (lo, hi, m.is_multiple_of(2))
}

fn abbreviate(token: &str) -> String {
    if token.len() <= 60 {
        token.to_owned()
    } else {
        format!("{}...({} characters)", &token[..40], token.len())
    }
}

/// Unsigned big integer, little-endian 32-bit limbs, no trailing zero limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    fn to_u64(&self) -> u64 {
        self.0
            .iter()
            .rev()
            .fold(0u64, |v, &l| (v << 32) | u64::from(l))
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let x = u64::from(*limb) * u64::from(m) + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    fn add_small(&mut self, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            if carry == 0 {
                break;
            }
            let x = u64::from(*limb) + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(Vec::new());
        for &d in digits {
            b.mul_small(10);
            b.add_small(u32::from(d));
        }
        b
    }

    fn mul_pow5(&mut self, mut n: u64) {
        while n >= 13 {
            self.mul_small(1_220_703_125); // 5^13
            n -= 13;
        }
        self.mul_small(5u32.pow(n as u32));
    }

    fn shl(&mut self, bits: u64) {
        let (limbs, rest) = ((bits / 32) as usize, (bits % 32) as u32);
        if rest > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let x = (u64::from(*limb) << rest) | u64::from(carry);
                *limb = x as u32;
                carry = (x >> 32) as u32;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        if !self.0.is_empty() {
            self.0.splice(0..0, std::iter::repeat_n(0, limbs));
        }
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

/// `m × 2^k`.
struct Dyadic {
    m: Big,
    k: i64,
}

impl Dyadic {
    fn new(m: Big, k: i64) -> Dyadic {
        Dyadic { m, k }
    }
}

/// Significant digits at most this many are compared exactly; beyond, the value is bracketed
/// between its truncation and the next decimal of that length.
const EXACT_DIGITS: usize = 1100;

/// A positive decimal `digits × 10^exp`.
struct Decimal<'d> {
    digits: &'d [u8],
    exp: i64,
}

impl<'d> Decimal<'d> {
    fn new(digits: &'d [u8], exp: i64) -> Decimal<'d> {
        Decimal { digits, exp }
    }

    /// Compares with `x`; `None` when the truncated bracket does not decide (never expected:
    /// no double or midpoint has anywhere near 1,100 significant digits).
    fn cmp_dyadic(&self, x: &Dyadic) -> Option<Ordering> {
        // Far apart in magnitude: decided without big numbers. The decimal is in
        // [10^(e+n-1), 10^(e+n)); x is in [2^(k+bits-1), 2^(k+bits)).
        let n = self.digits.len() as i64;
        let bits =
            (x.m.0.len() as i64) * 32 - i64::from(x.m.0.last().map_or(32, |l| l.leading_zeros()));
        // log2(10) is between 3.32 and 3.33.
        let dec_lo = (self.exp + n - 1) as f64 * std::f64::consts::LOG2_10;
        let dec_hi = (self.exp + n) as f64 * std::f64::consts::LOG2_10;
        let x_lo = (x.k + bits - 1) as f64;
        let x_hi = (x.k + bits) as f64;
        if dec_lo > x_hi + 1.0 {
            return Some(Ordering::Greater);
        }
        if dec_hi + 1.0 < x_lo {
            return Some(Ordering::Less);
        }
        if self.digits.len() <= EXACT_DIGITS {
            return Some(cmp_exact(self.digits, self.exp, x));
        }
        let kept = &self.digits[..EXACT_DIGITS];
        let exp = self.exp + (self.digits.len() - EXACT_DIGITS) as i64;
        // The decimal is strictly between kept × 10^exp and (kept + 1) × 10^exp: its last digit,
        // among those cut, is not zero.
        let below = cmp_exact(kept, exp, x);
        if below != Ordering::Less {
            return Some(Ordering::Greater);
        }
        let mut up = kept.to_vec();
        let mut i = up.len();
        loop {
            i -= 1;
            if up[i] == 9 {
                up[i] = 0;
                if i == 0 {
                    up.insert(0, 1);
                    break;
                }
            } else {
                up[i] += 1;
                break;
            }
        }
        match cmp_exact(&up, exp, x) {
            Ordering::Greater => None,
            _ => Some(Ordering::Less),
        }
    }
}

/// `digits × 10^exp` against `x.m × 2^x.k`, exactly.
fn cmp_exact(digits: &[u8], exp: i64, x: &Dyadic) -> Ordering {
    // digits × 5^exp × 2^exp against m × 2^k.
    let mut left = Big::from_digits(digits);
    let mut right = x.m.clone();
    if exp >= 0 {
        left.mul_pow5(exp as u64);
    } else {
        right.mul_pow5(exp.unsigned_abs());
    }
    let shift = exp - x.k;
    if shift >= 0 {
        left.shl(shift as u64);
    } else {
        right.shl(shift.unsigned_abs());
    }
    left.cmp(&right)
}
