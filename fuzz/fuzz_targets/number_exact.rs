//! Number tokens against an exact decimal reference (core/tests/reference/decimal.rs, which
//! shares no code with the core's number reading): under rfc8785 a token reads as its value
//! rounded to the nearest double, ties to even, or overflows exactly when that rounding passes
//! the largest double; under strict it is accepted exactly when the double's shortest decimal
//! (ECMAScript's choice, found from Rust's own formatting) is the token's value; the canonical text denotes that same value;
//! and a token inside a document gives the same result on the direct path and the parser.
#![no_main]

use actionseal_core::fuzzing::direct_canonical;
use actionseal_core::{canonicalize_json, parse, Code, Number, Options, Profile};
use actionseal_fuzz::decimal::{check_rounding, es_shortest, same_value, strict_accepts, Read};
use actionseal_fuzz::gen;
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(token) = gen::number_token(&mut u) else {
        return;
    };
    check(&token);
    // The raw input too, when it is a number token.
    if let Ok(raw) = std::str::from_utf8(data) {
        match Number::from_text(raw, Profile::Rfc8785) {
            Ok(_) => check(raw),
            Err(e) if e.code() == Code::NumberOverflow => check(raw),
            Err(_) => {}
        }
    }
});

fn check(token: &str) {
    let rfc = Number::from_text(token, Profile::Rfc8785);
    let read = match &rfc {
        Ok(n) => Read::Double(n.as_f64()),
        Err(e) if e.code() == Code::NumberOverflow => Read::Overflow,
        Err(e) => panic!("{token:?}: a token of the grammar refused with {e}"),
    };
    if let Err(why) = check_rounding(token, read) {
        panic!("rfc8785 reads {why}");
    }
    let strict = Number::from_text(token, Profile::Strict);
    match (&rfc, &strict) {
        (Ok(n), Ok(s)) => {
            assert!(
                strict_accepts(token, n.as_f64()),
                "strict accepted {token:?}, read as {n:?}"
            );
            assert_eq!(n.as_f64().to_bits(), s.as_f64().to_bits());
        }
        (Ok(n), Err(e)) => {
            assert_eq!(e.code(), Code::InexactNumber, "{token:?}");
            assert!(
                !strict_accepts(token, n.as_f64()),
                "strict refused {token:?}, read as {n:?}"
            );
        }
        (Err(_), Err(e)) => assert_eq!(e.code(), Code::NumberOverflow),
        (Err(_), Ok(_)) => panic!("strict accepted {token:?}, which overflows"),
    }
    if let Ok(n) = &rfc {
        let canonical = n.to_canonical_string();
        let shortest = es_shortest(n.as_f64());
        assert!(
            same_value(&canonical, &shortest),
            "{token:?}: canonical {canonical} vs shortest {shortest}"
        );
        assert_eq!(canonical.starts_with('-'), n.as_f64() < 0.0);
    }
    // In a document: the direct path and the parser agree with the token's own result.
    let text = format!("[{token}]");
    for profile in Profile::ALL {
        let options = Options::with_profile(profile);
        let want =
            Number::from_text(token, profile).map(|n| format!("[{}]", n.to_canonical_string()));
        let got = canonicalize_json(text.as_bytes(), &options);
        assert_eq!(
            got.as_ref().map_err(|e| e.code()),
            want.as_ref().map_err(|e| e.code()),
            "{token:?}"
        );
        let direct =
            direct_canonical(text.as_bytes(), &options).map(|d| String::from_utf8(d).unwrap());
        assert_eq!(direct.as_ref(), want.as_ref().ok(), "{token:?}");
        assert_eq!(parse(text.as_bytes(), &options).is_ok(), want.is_ok());
    }
}
