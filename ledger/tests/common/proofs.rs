//! The server's keys of the proof tests: a service signing key and a reviewer's passkey
//! (EdDSA, so a test can make WebAuthn assertions with core's signer), registered in one key
//! set, and records approved with that passkey.

use super::json;
use actionseal_core::{
    base64url_encode, canonicalize, fingerprint, Digest, KeySet, OwnedValue, SigningKey,
};

pub const RP: &str = "example.com";
pub const ORIGIN: &str = "https://example.com";

pub fn service_key() -> SigningKey {
    SigningKey::from_seed(&[1; 32])
}

/// The reviewer's passkey (EdDSA, so the test can make assertions with core's signer).
pub fn passkey() -> SigningKey {
    SigningKey::from_seed(&[2; 32])
}

pub fn credential_id() -> String {
    base64url_encode(&[5; 16])
}

/// `key` as a COSE_Key `{1: 1, 3: -8, -1: 6, -2: x}`.
pub fn cose(key: &SigningKey) -> Vec<u8> {
    let mut c = vec![0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20];
    c.extend_from_slice(key.public_key().as_bytes());
    c
}

/// The server's key set: the service key, and the passkey registered to `passkey_owner`.
pub fn keys(passkey_owner: &str) -> KeySet {
    let k = service_key();
    KeySet::from_value(&json(&format!(
        r#"{{"service_keys": {{"{}": {{"key": "{}"}}}},
            "passkeys": {{"{}": {{"public_key": "{}", "approver": "{passkey_owner}"}}}},
            "webauthn": {{"rp_id": "{RP}", "origins": ["{ORIGIN}"]}}}}"#,
        k.public_key().keyid(),
        base64url_encode(k.public_key().as_bytes()),
        credential_id(),
        base64url_encode(&cose(&passkey())),
    )))
    .unwrap()
}

/// The service key and the passkey, both retired at `until` (their windows end there).
pub fn retired_at(until: i64) -> KeySet {
    let k = service_key();
    KeySet::from_value(&json(&format!(
        r#"{{"service_keys": {{"{}": {{"key": "{}", "valid_until": {until}}}}},
            "passkeys": {{"{}": {{"public_key": "{}", "approver": "user:bob", "valid_until": {until}}}}},
            "webauthn": {{"rp_id": "{RP}", "origins": ["{ORIGIN}"]}}}}"#,
        k.public_key().keyid(),
        base64url_encode(k.public_key().as_bytes()),
        credential_id(),
        base64url_encode(&cose(&passkey())),
    )))
    .unwrap()
}

/// `record` plus `"passkey"`: an assertion of `key` over its fingerprint, on `origin`, UP+UV,
/// with signature counter 1.
pub fn passkey_approved(record: &OwnedValue, key: &SigningKey, origin: &str) -> OwnedValue {
    passkey_counted(record, key, origin, 1)
}

/// [`passkey_approved`] with the authenticator's signature counter at `count`.
pub fn passkey_counted(
    record: &OwnedValue,
    key: &SigningKey,
    origin: &str,
    count: u32,
) -> OwnedValue {
    let challenge = fingerprint(record);
    let client_data = format!(
        r#"{{"type":"webauthn.get","challenge":"{}","origin":"{origin}"}}"#,
        base64url_encode(challenge.as_bytes())
    );
    let mut data = Digest::of(RP.as_bytes()).as_bytes().to_vec();
    data.push(0x05);
    data.extend_from_slice(&count.to_be_bytes());
    let mut message = data.clone();
    message.extend_from_slice(Digest::of(client_data.as_bytes()).as_bytes());
    let assertion = format!(
        r#"{{"credential_id":"{}","authenticator_data":"{}","client_data_json":"{}","signature":"{}"}}"#,
        credential_id(),
        base64url_encode(&data),
        base64url_encode(client_data.as_bytes()),
        base64url_encode(&key.sign(&message)),
    );
    let text = canonicalize(record);
    json(&format!(
        "{},\"passkey\":{assertion}}}",
        &text[..text.len() - 1]
    ))
}
