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

/// The ends of the range `zmij` writes (1e-5 and 2^53), and the powers of ten and two around
/// which a double's first digit or exponent changes: a thousand doubles either side of each.
#[test]
fn doubles_around_the_ends_of_zmij_range_written_like_ryu() {
    let mut ends = vec![1e-5, 9_007_199_254_740_992.0, 1e-6];
    ends.extend((-6..=16).map(|e| 10f64.powi(e)));
    ends.extend((-17..=53).map(|e| 2f64.powi(e)));
    for end in ends {
        for ulps in -1000i64..=1000 {
            let f = f64::from_bits((end.to_bits() as i64 + ulps) as u64);
            for f in [f, -f] {
                assert_eq!(
                    Number::from_f64(f).unwrap().to_canonical_string(),
                    ryu(f),
                    "{f:e}"
                );
            }
        }
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

    /// Every binary exponent where `zmij` writes (from 2^-17, below 1e-5, up to 2^53), with
    /// random significands: mostly 16 and 17 digits.
    #[test]
    fn doubles_zmij_writes_written_like_ryu(exp in -17i64..53, significand in any::<u64>(), neg in any::<bool>()) {
        let bits = ((exp + 1023) as u64) << 52 | (significand & ((1 << 52) - 1));
        let f = if neg { -f64::from_bits(bits) } else { f64::from_bits(bits) };
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

/// `0.d1d2...e<point>` spelled with `zeros` extra zeros: after the point (and the exponent
/// raised to match), or after the digits (and the exponent lowered to match).
fn padded(digits: &str, point: i64, zeros: usize, after_point: bool) -> String {
    let z = "0".repeat(zeros);
    if after_point {
        format!("0.{z}{digits}e{}", point + zeros as i64)
    } else {
        format!("{digits}{z}e{}", point - digits.len() as i64 - zeros as i64)
    }
}

#[test]
fn long_tokens_are_read_exactly() {
    // The trigger and its mirror: exponents past 65,536, where a float parser given
    // the raw token stops reading them.
    let trigger = format!("0.{}5e1000007", "0".repeat(1_000_000));
    let mirror = format!("1{}e-700000", "0".repeat(700_000));
    for p in Profile::ALL {
        assert_eq!(canon(&trigger, p).unwrap(), "5000000");
        assert_eq!(canon(&format!("-{trigger}"), p).unwrap(), "-5000000");
        assert_eq!(canon(&mirror, p).unwrap(), "1");
    }
    // The class: values of every magnitude, padded on either side by lengths around the
    // float parser's limits.
    for zeros in [0, 20, 400, 65_536, 655_350, 655_370, 700_000] {
        for after_point in [true, false] {
            for (digits, point, want) in [
                ("5", 7, Ok("5000000")),
                ("25", 1, Ok("2.5")),
                ("1", -6, Ok("1e-7")),
                ("1", 22, Ok("1e+21")),
                ("17976931348623157", 309, Ok("1.7976931348623157e+308")),
                ("17976931348623159", 309, Err(Code::NumberOverflow)),
                ("1", 310, Err(Code::NumberOverflow)),
                ("5", -323, Ok("5e-324")),
                ("22250738585072014", -307, Ok("2.2250738585072014e-308")),
            ] {
                let text = padded(digits, point, zeros, after_point);
                for p in Profile::ALL {
                    let got = canon(&text, p);
                    let got = got.as_deref().map_err(Error::code);
                    assert_eq!(got, want, "{digits} {point} {zeros} {after_point}");
                }
            }
            // Below half the smallest subnormal: zero, which the strict profile refuses.
            let tiny = padded("2", -323, zeros, after_point);
            assert_eq!(canon(&tiny, Profile::Rfc8785).unwrap(), "0");
            let e = canon(&tiny, Profile::Strict).unwrap_err();
            assert_eq!(e.code(), Code::InexactNumber);
        }
    }
    // Exponents with many digits, and zero with any exponent.
    let long_exp = |e: &str| format!("1e{}{e}", "0".repeat(200_000));
    assert_eq!(canon(&long_exp("5"), Profile::Strict).unwrap(), "100000");
    assert_eq!(
        canon(&long_exp("-5"), Profile::Strict).unwrap_err().code(),
        Code::SyntaxError
    );
    for p in Profile::ALL {
        assert_eq!(
            canon(&format!("1e{}", "9".repeat(100)), p)
                .unwrap_err()
                .code(),
            Code::NumberOverflow
        );
        assert_eq!(canon(&format!("0e{}", "9".repeat(100)), p).unwrap(), "0");
        assert_eq!(
            canon(&format!("-0.0e-{}", "9".repeat(100)), p).unwrap(),
            "0"
        );
    }
    assert_eq!(
        canon(&format!("1e-{}", "9".repeat(100)), Profile::Rfc8785).unwrap(),
        "0"
    );
}

#[test]
fn long_significands_round_correctly() {
    // Just above and below a midpoint between two doubles, with the deciding digit far past
    // the float parser's 768-digit window: 2^53 + 1 is the midpoint of 2^53 and 2^53 + 2.
    let mid = "9007199254740993";
    for tail_zeros in [0, 760, 790, 800, 5000] {
        let above = format!("{mid}.{}1", "0".repeat(tail_zeros));
        let exact = format!("{mid}.{}", "0".repeat(tail_zeros + 1));
        assert_eq!(canon(&above, Profile::Rfc8785).unwrap(), "9007199254740994");
        assert_eq!(canon(&exact, Profile::Rfc8785).unwrap(), "9007199254740992");
        let below = format!("9007199254740992.{}1", "9".repeat(tail_zeros + 1));
        assert_eq!(canon(&below, Profile::Rfc8785).unwrap(), "9007199254740992");
    }
    // Half the smallest subnormal, 2^-1075 = 5^1075 × 10^-1075 (751 significant digits): a
    // tie, which rounds to zero (even); anything above it, however far down, rounds up.
    let half = format!("{}e-1075", pow5(1075));
    assert_eq!(canon(&half, Profile::Rfc8785).unwrap(), "0");
    for zeros in [0, 100, 5000] {
        let above = format!("{}{}1e-{}", pow5(1075), "0".repeat(zeros), 1076 + zeros);
        assert_eq!(canon(&above, Profile::Rfc8785).unwrap(), "5e-324");
    }
}

/// The decimal digits of 5^n.
fn pow5(n: u32) -> String {
    let mut digits = vec![1u32]; // little-endian base 10
    for _ in 0..n {
        let mut carry = 0;
        for d in &mut digits {
            let x = *d * 5 + carry;
            *d = x % 10;
            carry = x / 10;
        }
        if carry > 0 {
            digits.push(carry);
        }
    }
    digits
        .iter()
        .rev()
        .map(|d| char::from(b'0' + *d as u8))
        .collect()
}
