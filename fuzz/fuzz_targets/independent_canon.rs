//! Both of actionseal's ways to the canonical form (the direct text path and parse + write)
//! against an independent canonicalizer, serde_json (with `float_roundtrip`) and
//! serde_json_canonicalizer, on generated documents without duplicate keys (serde_json keeps
//! the last of them silently, so it cannot judge those), byte edits or number tokens of more
//! than 700 digits (serde_json misrounds some; see below). Under the rfc8785 profile every
//! number is rounded as any RFC 8785 implementation rounds it, so the texts must be equal byte
//! for byte, and a text one side refuses the other must refuse too. The strict profile gives
//! the same text or refuses.
#![no_main]

use actionseal_core::fuzzing::direct_canonical;
use actionseal_core::{canonicalize, canonicalize_json, parse, Options, Profile};
use actionseal_fuzz::gen;
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(doc) = gen::document(&mut u, 6) else {
        return;
    };
    // serde_json keeps the last of duplicate keys silently, so it cannot judge those; byte
    // edits may make a duplicate the generator does not know of.
    if doc.duplicates || doc.broken {
        return;
    }
    // serde_json misrounds ties written with about 1,000 or more padding digits
    // (`9007199254740993` + 1,000 zeros + `e-1000` reads as ...994, not ...992): long tokens
    // are left to number_exact, which checks them against an exact reference.
    if longest_digit_run(&doc.text) > 700 {
        return;
    }
    let text = &doc.text;
    let rfc = Options::with_profile(Profile::Rfc8785);
    let full = parse(text, &rfc).map(|v| canonicalize(&v));
    let direct = direct_canonical(text, &rfc).map(|d| String::from_utf8(d).unwrap());
    let public = canonicalize_json(text, &rfc);
    let theirs = serde_json::from_slice::<serde_json::Value>(text)
        .map_err(|e| e.to_string())
        .map(|v| String::from_utf8(serde_json_canonicalizer::to_vec(&v).unwrap()).unwrap());
    let show = || String::from_utf8_lossy(text).into_owned();
    match (&full, &theirs) {
        (Ok(ours), Ok(theirs)) => {
            assert_eq!(
                ours,
                theirs,
                "parse + write vs serde_json_canonicalizer on {:?}",
                show()
            );
            assert_eq!(
                direct.as_ref(),
                Some(theirs),
                "direct path vs serde_json_canonicalizer on {:?}",
                show()
            );
            assert_eq!(public.as_ref(), Ok(theirs));
        }
        (Err(e), Err(_)) => {
            assert_eq!(direct, None);
            assert_eq!(public.as_ref().err(), Some(e));
        }
        (ours, theirs) => panic!(
            "actionseal says {ours:?}, serde_json says {theirs:?}, on {:?}",
            show()
        ),
    }
    // Strict: the same text, or a refusal.
    let strict = canonicalize_json(text, &Options::default());
    if let Ok(s) = &strict {
        assert_eq!(
            Ok(s),
            full.as_ref(),
            "strict and rfc8785 texts differ on {:?}",
            show()
        );
    }
});

fn longest_digit_run(text: &[u8]) -> usize {
    text.split(|b| !b.is_ascii_digit())
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}
