//! The direct text path against the full parser, on generated documents (objects that share
//! keys and key orders across depths, duplicates after escaping, long and exotic numbers,
//! every escape, byte edits) and on the raw input: under both profiles and at the nesting
//! limit, with objects ordered in place, by member list, and the default mix, the direct path
//! writes exactly the canonical text of the parsed value, or gives up exactly where the parser
//! refuses; then the public entry points give that text and digest, or the parser's error
//! (code, path and offset).
#![no_main]

use actionseal_core::fuzzing::{direct_canonical_with, DEFAULT_REARRANGE_MAX};
use actionseal_core::{
    canonicalize, canonicalize_json, fingerprint_json, parse, Digest, Options, Profile,
};
use actionseal_fuzz::gen;
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(doc) = gen::document(&mut u, 8) else {
        return;
    };
    for profile in Profile::ALL {
        let options = Options::with_profile(profile);
        agree(&doc.text, &options);
        agree(data, &options);
    }
    // At the nesting limit, and one below it.
    for max_depth in [doc.depth, doc.depth.saturating_sub(1)] {
        let options = Options {
            max_depth,
            ..Options::default()
        };
        agree(&doc.text, &options);
    }
    let options = Options {
        max_bytes: doc.text.len().saturating_sub(1),
        ..Options::default()
    };
    agree(&doc.text, &options);
});

fn agree(text: &[u8], options: &Options) {
    let parsed = parse(text, options);
    let want = parsed.as_ref().ok().map(canonicalize);
    for limit in [0, DEFAULT_REARRANGE_MAX, usize::MAX] {
        let direct = direct_canonical_with(text, options, limit);
        let direct = direct.map(|d| String::from_utf8(d).expect("direct path wrote UTF-8"));
        assert_eq!(
            direct,
            want,
            "direct path (rearrange limit {limit}) and parser disagree on {:?} under {options:?}: parser says {:?}",
            String::from_utf8_lossy(text),
            parsed.as_ref().err()
        );
    }
    match parsed {
        Ok(_) => {
            let want = want.unwrap();
            assert_eq!(
                canonicalize_json(text, options).as_deref(),
                Ok(want.as_str())
            );
            assert_eq!(
                fingerprint_json(text, options),
                Ok(Digest::of(want.as_bytes()))
            );
        }
        Err(e) => {
            assert_eq!(canonicalize_json(text, options), Err(e.clone()));
            assert_eq!(fingerprint_json(text, options), Err(e));
        }
    }
}
