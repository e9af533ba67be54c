//! Arbitrary bytes as a presented approval, a key set, a COSE key and base64url: proof
//! verification never panics, refuses with a code, and never accepts what was not signed.
//! The key set trusts one service key, whose secret is fixed here; when arbitrary input
//! verifies, its record must be one that key signed (re-signing it gives the same envelope).
#![no_main]

use actionseal_core::{
    base64url_decode, base64url_encode, canonicalize, check, parse, proof, sign_approval,
    verify_proof, KeySet, Options, SigningKey,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = Options::default();
    let key = SigningKey::from_seed(&[9; 32]);
    let keys_text = format!(
        r#"{{"service_keys":{{"{}":{{"key":"{}"}}}}}}"#,
        key.public_key().keyid(),
        base64url_encode(key.public_key().as_bytes())
    );
    let keys = KeySet::from_value(&parse(keys_text.as_bytes(), &options).unwrap()).unwrap();

    if let Ok(value) = parse(data, &options) {
        // As a presented approval.
        if let Ok(verified) = verify_proof(&value, &keys, 0) {
            let again = sign_approval(verified.approval().value(), &key).unwrap();
            assert_eq!(canonicalize(&again), canonicalize(&value));
        }
        // As every argument of the functions the bindings call (actionseal_core::proof).
        let _ = proof::verify(&value, &value, &value, proof::Accept::Either);
        let _ = proof::verify_registration(&value, &value, &value);
        let _ = proof::verify_ed25519(&value, &value, &value);
        let _ = proof::pae(&value, &value);
        let _ = proof::public_jwk(&value);
        let _ = proof::challenge(&value);
        // As a key set, and as an approval in a check whose context requires proof.
        let _ = KeySet::from_value(&value);
        let context = format!(
            r#"{{"now":1,"tenant":"t","policy_version":"p","contract":null,
                "approver_authorized":{{"approver":"b","authorized":true}},
                "subject_authorized":{{"subject":"s","authorized":true}},
                "revoked":{{"approval_id":"a","revoked":false}},
                "proof":{{"required":true,"keys":{keys_text}}}}}"#
        );
        let context = parse(context.as_bytes(), &options).unwrap();
        let verdict = check(Some(&value), &value, &context).unwrap();
        assert_ne!(verdict.outcome.as_str(), "permit");
    }
    // As base64url text: what decodes encodes back to the same text.
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(bytes) = base64url_decode(text) {
            assert_eq!(base64url_encode(&bytes), text);
        }
    }
    // As the bytes of a passkey's COSE key.
    let set = format!(
        r#"{{"passkeys":{{"AA":{{"public_key":"{}","approver":"b"}}}},"webauthn":{{"rp_id":"localhost","origins":["http://localhost"]}}}}"#,
        base64url_encode(data)
    );
    let _ = KeySet::from_value(&parse(set.as_bytes(), &options).unwrap());
});
