use super::*;

/// A small xorshift generator: the tests are the same on every run.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// Both ways of reading a token (as it is, and through its normalized form) give the same
/// double, on tokens near the doubles' rounding boundaries: the shortest form of a double,
/// the same with digits appended (a midpoint and its neighbours), and with the point and
/// exponent moved.
#[test]
fn a_short_token_reads_as_its_normalized_form() {
    let mut seed = 0x9E37_79B9_7F4A_7C15;
    let mut checked = 0;
    for _ in 0..40_000 {
        let bits = next(&mut seed);
        let f = f64::from_bits(bits >> 1);
        if !f.is_finite() {
            continue;
        }
        let shortest = format!("{f:e}");
        let (mantissa, exp) = shortest.split_once('e').unwrap();
        let exp: i32 = exp.parse().unwrap();
        let tail = ["", "5", "49999999", "50000001", "0000000000000000000001"]
            [(next(&mut seed) % 5) as usize];
        let digits = if mantissa.contains('.') {
            format!("{mantissa}{tail}")
        } else if tail.is_empty() {
            mantissa.to_owned()
        } else {
            format!("{mantissa}.{tail}")
        };
        for token in [
            format!("{digits}e{exp}"),
            format!("-{digits}E{exp:+}"),
            format!(
                "{}0e{}",
                digits.replace('.', ""),
                exp - (digits.len() as i32 - 1)
            ),
        ] {
            if token.len() > SHORT_TOKEN {
                continue;
            }
            // Only tokens of the JSON grammar reach these functions.
            let scanned = crate::json::number::scan(token.as_bytes(), 0).map(|(end, _)| end);
            assert_eq!(scanned.ok(), Some(token.len()), "{token}");
            let d = Decimal::parse(token.as_bytes());
            let Some((first, end, point)) = d.significant() else {
                continue;
            };
            if !(-330..=310).contains(&point) {
                continue;
            }
            let fast = d.short_token_double().expect("a short token");
            let slow = d.normalized_double(first, end, point);
            assert_eq!(
                fast.is_finite().then_some(fast).map(f64::to_bits),
                slow.map(f64::to_bits),
                "{token}"
            );
            checked += 1;
        }
    }
    assert!(checked > 90_000, "{checked}");
}

/// The ECMAScript form of a double is at most 25 bytes, so the stack buffer the exactness
/// check writes into never cuts one.
#[test]
fn a_double_never_fills_the_stack_buffer() {
    let mut seed = 7;
    let extremes = [
        f64::MIN,
        f64::MIN_POSITIVE,
        -5e-324,
        -1.2345678901234567e-7,
        -0.0000012345678901234567,
        -123456789012345680000.0,
        -1.2345678901234567e21,
    ];
    let random = (0..100_000).map(|_| f64::from_bits(next(&mut seed)));
    for f in extremes.into_iter().chain(random).filter(|f| f.is_finite()) {
        let mut short = NumberText::default();
        write_number(f, &mut short);
        let mut text = String::new();
        write_number(f, &mut text);
        assert!(short.len < short.buf.len(), "{text}");
        assert_eq!(short.bytes(), text.as_bytes());
    }
}
