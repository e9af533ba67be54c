//! Arbitrary bytes as an RFC 3161 TimeStampResp or token, verified against the fixture root
//! of core/tests/timestamp (seeded with its tokens, so mutations reach deep into CMS and
//! X.509): verification never panics, refuses only with a timestamp code, and accepts only
//! tokens about the fixture data, signed by one of the fixture TSAs.
#![no_main]

use actionseal_core::timestamp::{verify_token, TimestampTrust};
use actionseal_core::Code;
use libfuzzer_sys::fuzz_target;

const ROOT: &[u8] = include_bytes!("../../core/tests/timestamp/root.der");
const INTERMEDIATE: &[u8] = include_bytes!("../../core/tests/timestamp/intermediate.der");
const DATA: &[u8] = include_bytes!("../../core/tests/timestamp/data.txt");

fuzz_target!(|token: &[u8]| {
    let trust = TimestampTrust {
        roots: vec![ROOT.to_vec()],
        certificates: vec![INTERMEDIATE.to_vec()],
        ..TimestampTrust::default()
    };
    match verify_token(token, DATA, &trust) {
        Ok(stamp) => {
            assert_eq!(stamp.imprint, stamp.hash.digest(DATA));
            assert!(stamp.tsa_name.starts_with("CN=tsa-"), "{}", stamp.tsa_name);
        }
        Err(e) => assert!(
            matches!(
                e.code(),
                Code::TimestampInvalid | Code::TimestampUntrusted | Code::TimestampMismatch
            ),
            "{e}"
        ),
    }
});
