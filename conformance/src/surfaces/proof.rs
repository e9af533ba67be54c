//! Real proof material for the shape probes of [`super`]: a fixed Ed25519 key, signed
//! envelopes, passkey assertions and a "none" registration, made with core's signing and
//! laid out as WebAuthn lays them out, so that core's verifiers accept the samples and the
//! probes learn only from the fields they change.

use actionseal_core::{
    base64url_encode, canonicalize, fingerprint, sign_approval, Digest, SigningKey,
};
use serde_json::{json, Value as Json};

/// The relying party id and its one allowed origin in every sample.
pub const RP: &str = "x";

/// The samples' key (service key and EdDSA passkey alike).
pub fn key() -> SigningKey {
    SigningKey::from_seed(&[7; 32])
}

/// The key's JWK members.
pub fn jwk_member(name: &str) -> Json {
    json!(key()
        .to_jwk()
        .as_object()
        .and_then(|o| o.get(name))
        .and_then(|v| v.as_str()))
}

/// The keyid of the samples' key.
pub fn keyid() -> String {
    key().public_key().keyid().to_owned()
}

/// The passkey credential id, base64url.
pub fn credential_id() -> String {
    base64url_encode(&[1; 16])
}

/// The samples' key as a COSE_Key `{1: 1, 3: -8, -1: 6, -2: x}`.
pub fn cose_key() -> Vec<u8> {
    let mut cose = vec![0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20];
    cose.extend_from_slice(key().public_key().as_bytes());
    cose
}

/// `{"rp_id", "origins"}` of the samples.
pub fn relying_party() -> Json {
    json!({"rp_id": RP, "origins": [RP]})
}

/// A key set trusting the samples' service key.
pub fn service_keys() -> Json {
    json!({"service_keys": {keyid(): {"key": jwk_member("x")}}})
}

/// A key set trusting the samples' passkey for `approver`.
pub fn passkeys(approver: &str) -> Json {
    json!({"passkeys": {credential_id(): {"public_key": base64url_encode(&cose_key()), "approver": approver}},
           "webauthn": relying_party()})
}

fn core(v: &Json) -> actionseal_core::OwnedValue {
    crate::decisions::core_value(&v.to_string()).expect("JSON")
}

/// The envelope of `record` (which must be sealed) signed with the samples' key.
pub fn envelope(record: &Json) -> Json {
    let signed = sign_approval(&core(record), &key()).expect("a sealed sample record");
    serde_json::from_str(&canonicalize(&signed)).expect("JSON")
}

/// An assertion of the samples' passkey approving `record` (without `passkey`), made on the
/// samples' origin with UP and UV set.
pub fn assertion(record: &Json) -> Json {
    let challenge = fingerprint(&core(record));
    let client_data = json!({
        "type": "webauthn.get",
        "challenge": base64url_encode(challenge.as_bytes()),
        "origin": RP,
    })
    .to_string();
    let data = authenticator_data(0x05);
    let mut signed = data.clone();
    signed.extend_from_slice(Digest::of(client_data.as_bytes()).as_bytes());
    let signature = key().sign(&signed);
    let member = |b: &[u8]| json!(base64url_encode(b));
    json!({
        "credential_id": credential_id(),
        "authenticator_data": member(&data),
        "client_data_json": member(client_data.as_bytes()),
        "signature": member(&signature),
    })
}

/// A registration of the samples' passkey with "none" attestation, and its challenge.
pub fn registration() -> (Json, String) {
    let challenge = base64url_encode(&[9; 32]);
    let client_data =
        json!({"type": "webauthn.create", "challenge": challenge, "origin": RP}).to_string();
    let mut data = authenticator_data(0x45);
    data.extend_from_slice(&[0; 16]); // aaguid
    data.extend_from_slice(&[0, 16]);
    data.extend_from_slice(&[1; 16]);
    data.extend_from_slice(&cose_key());
    // {"fmt": "none", "attStmt": {}, "authData": bytes}
    let mut attestation = vec![0xa3, 0x63];
    attestation.extend_from_slice(b"fmt");
    attestation.push(0x64);
    attestation.extend_from_slice(b"none");
    attestation.push(0x67);
    attestation.extend_from_slice(b"attStmt");
    attestation.extend_from_slice(&[0xa0, 0x68]);
    attestation.extend_from_slice(b"authData");
    attestation.extend_from_slice(&[0x58, data.len() as u8]);
    attestation.extend_from_slice(&data);
    let registration = json!({
        "credential_id": credential_id(),
        "attestation_object": base64url_encode(&attestation),
        "client_data_json": base64url_encode(client_data.as_bytes()),
    });
    (registration, challenge)
}

/// rpIdHash, flags and a zero signature counter.
fn authenticator_data(flags: u8) -> Vec<u8> {
    let mut data = Digest::of(RP.as_bytes()).as_bytes().to_vec();
    data.push(flags);
    data.extend_from_slice(&[0, 0, 0, 1]);
    data
}
