//! Arbitrary bytes: the full parser and the public entry points never panic and agree. When
//! `parse` accepts, `canonicalize_json` gives the canonical text of its value, that text parses
//! back to the same value and is its own canonical form, and `fingerprint_json` is its digest;
//! when `parse` refuses, both refuse with the same code, path and offset.
#![no_main]

use actionseal_core::{canonicalize, canonicalize_json, fingerprint_json, parse, Options, Profile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for profile in Profile::ALL {
        let options = Options::with_profile(profile);
        match parse(data, &options) {
            Ok(value) => {
                let text = canonicalize(&value);
                assert_eq!(canonicalize_json(data, &options).as_deref(), Ok(&*text));
                let digest = fingerprint_json(data, &options).unwrap();
                assert_eq!(digest, actionseal_core::Digest::of(text.as_bytes()));
                let again = parse(text.as_bytes(), &options).unwrap();
                assert_eq!(again, value);
                assert_eq!(canonicalize(&again), text);
            }
            Err(e) => {
                assert_eq!(canonicalize_json(data, &options), Err(e.clone()));
                assert_eq!(fingerprint_json(data, &options), Err(e));
            }
        }
    }
});
