//! Passkey approvals (WebAuthn), verified with no browser API.
//!
//! A passkey-approved record is an approval record plus one member:
//! `"passkey": {"credential_id", "authenticator_data", "client_data_json", "signature"}`, each
//! the base64url of what `navigator.credentials.get` returned. The challenge the page passed is
//! the 32 bytes of the decision's fingerprint: SHA-256 of the canonical record without
//! `passkey`, which still binds the action digest, approver, decision and expiry.
//!
//! Verification order: the credential must be in the server's key set; the signature over
//! `authenticatorData || SHA-256(clientDataJSON)` must verify with its registered key; only
//! then is clientDataJSON parsed (strictly): `type` is `webauthn.get`, the challenge is the
//! record's fingerprint, the origin is allowed, the ceremony is not cross-origin; then the
//! authenticator data: rpIdHash is SHA-256 of the rpId, UP and UV are set, no attested
//! credential data, and nothing after the extensions (if any). Finally the credential must
//! belong to the record's approver and be valid at the verifier's time. The signature counter
//! is returned, not checked: comparing it with the credential's last one needs storage, which
//! is the ledger's (WebAuthn Level 3, 6.1.1); a check without a ledger cannot see a cloned
//! authenticator or a replayed assertion.

use super::base64url;
use super::cbor::{self, Item};
use super::cose::CoseKey;
use super::keyset::{KeySet, Passkey, RelyingParty};
use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::fields::Fields;
use crate::Options;
use std::borrow::Cow;

/// The member of a record that holds the assertion.
pub(crate) const MEMBER: &str = "passkey";

const ASSERTION_FIELDS: [&str; 4] = [
    "credential_id",
    "authenticator_data",
    "client_data_json",
    "signature",
];

const UP: u8 = 0x01;
const UV: u8 = 0x04;
const AT: u8 = 0x40;
const ED: u8 = 0x80;

/// Whether `v` is a record carrying a passkey assertion.
pub(crate) fn looks_like_passkey(v: &Value<'_>) -> bool {
    v.as_object().is_some_and(|o| o.get(MEMBER).is_some())
}

/// The record without its assertion, and the assertion.
pub(crate) fn split<'v, 'a>(v: &'v Value<'a>) -> (Value<'a>, Option<&'v Value<'a>>) {
    let Value::Object(o) = v else {
        return (v.clone(), None);
    };
    let rest = o
        .iter()
        .filter(|(k, _)| *k != MEMBER)
        .map(|(k, v)| (Cow::Owned(k.to_owned()), v.clone()))
        .collect();
    (Value::Object(Object::from_sorted(rest)), o.get(MEMBER))
}

/// The challenge a reviewer's passkey signs for `record`: the fingerprint of the record
/// without its `passkey` member (so the same whether or not the assertion is attached yet).
pub fn passkey_challenge(record: &Value<'_>) -> Digest {
    if looks_like_passkey(record) {
        crate::fingerprint(&split(record).0)
    } else {
        crate::fingerprint(record)
    }
}

/// Verifies `assertion` (the `passkey` member) for `record` (the record without it) against
/// the key set; returns the credential that signed and the authenticator's signature counter.
/// Errors are at `/passkey/...`.
pub(crate) fn verify_assertion<'k>(
    record: &Value<'_>,
    assertion: &Value<'_>,
    keys: &'k KeySet,
) -> Result<(&'k Passkey, u32)> {
    check(record, assertion, keys).map_err(|e| e.in_key(MEMBER))
}

fn check<'k>(
    record: &Value<'_>,
    assertion: &Value<'_>,
    keys: &'k KeySet,
) -> Result<(&'k Passkey, u32)> {
    let f = Fields::new(
        assertion,
        Code::InvalidAssertion,
        "passkey assertion",
        &ASSERTION_FIELDS,
    )?;
    let bytes = |key: &str| -> Result<Vec<u8>> {
        base64url::decode(f.string(key)?).map_err(|e| e.in_key(key))
    };
    let credential_id = f.string("credential_id")?;
    base64url::decode(credential_id).map_err(|e| e.in_key("credential_id"))?;
    let auth_data = bytes("authenticator_data")?;
    let client_data = bytes("client_data_json")?;
    let signature = bytes("signature")?;

    let passkey = keys
        .passkey(credential_id)
        .map_err(|e| e.in_key("credential_id"))?;
    let rp = keys.relying_party().ok_or_else(|| {
        Error::new(
            Code::UnknownKey,
            "the key set has no WebAuthn relying party",
        )
    })?;
    let mut message = Vec::with_capacity(auth_data.len() + 32);
    message.extend_from_slice(&auth_data);
    message.extend_from_slice(Digest::of(&client_data).as_bytes());
    passkey
        .key
        .verify(&message, &signature)
        .map_err(|e| e.in_key("signature"))?;

    let challenge = crate::fingerprint(record);
    client_data_says(&client_data, "webauthn.get", challenge.as_bytes(), rp)
        .map_err(|e| e.in_key("client_data_json"))?;
    let extensions =
        authenticator_says(&auth_data, rp).map_err(|e| e.in_key("authenticator_data"))?;
    if extensions & AT != 0 {
        return Err(Error::new(
            Code::InvalidAssertion,
            "an assertion carries no attested credential data (AT is set)",
        )
        .in_key("authenticator_data"));
    }
    // The header is 37 bytes (checked above): rpIdHash, flags, then signCount big-endian.
    let sign_count =
        u32::from_be_bytes([auth_data[33], auth_data[34], auth_data[35], auth_data[36]]);
    Ok((passkey, sign_count))
}

/// Checks clientDataJSON: type, challenge, origin, and that the ceremony was not cross-origin.
fn client_data_says(text: &[u8], kind: &str, challenge: &[u8], rp: &RelyingParty) -> Result<()> {
    let bad = |m: String| Error::new(Code::InvalidAssertion, m);
    let v = crate::parse(text, &Options::default())
        .map_err(|e| bad(format!("clientDataJSON is not strict JSON: {e}")))?;
    let Value::Object(o) = &v else {
        return Err(bad("clientDataJSON is not an object".into()));
    };
    // Browsers may add members (Chromium sometimes adds one on purpose): only these are read.
    let string = |key: &str| match o.get(key) {
        Some(Value::String(s)) => Ok(s.as_ref()),
        _ => Err(bad(format!("clientDataJSON needs the string {key}"))),
    };
    let t = string("type")?;
    if t != kind {
        return Err(bad(format!("clientDataJSON type is {t:?}, not {kind:?}")));
    }
    let c = base64url::decode(string("challenge")?)
        .map_err(|e| bad(format!("clientDataJSON challenge: {}", e.message())))?;
    if c != challenge {
        return Err(Error::new(
            Code::ChallengeMismatch,
            "the signed challenge is not the fingerprint of this decision",
        ));
    }
    let origin = string("origin")?;
    if !rp.origins.iter().any(|o| o == origin) {
        return Err(Error::new(
            Code::OriginNotAllowed,
            format!("origin {origin:?} is not allowed"),
        ));
    }
    match o.get("crossOrigin") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => return Err(bad("a cross-origin ceremony is not accepted".into())),
    }
    if o.get("topOrigin").is_some() {
        return Err(bad(
            "a ceremony inside another origin's page is not accepted".into(),
        ));
    }
    Ok(())
}

/// Checks rpIdHash, UP and UV; returns the flags. The layout after the 37-byte header is
/// checked here for assertions (extensions only); registration reads attested data itself.
fn authenticator_says(data: &[u8], rp: &RelyingParty) -> Result<u8> {
    let bad = |m: &str| Error::new(Code::InvalidAssertion, m.to_owned());
    if data.len() < 37 {
        return Err(bad("authenticator data is shorter than 37 bytes"));
    }
    if data[..32] != rp.rp_id_hash {
        return Err(Error::new(
            Code::RpIdMismatch,
            "rpIdHash is not the SHA-256 of the relying party id",
        ));
    }
    let flags = data[32];
    if flags & (UP | UV) != UP | UV {
        return Err(Error::new(
            Code::UserNotVerified,
            "the authenticator did not report user presence and verification (UP and UV)",
        ));
    }
    if flags & AT == 0 {
        extensions_only(&data[37..], flags)?;
    }
    Ok(flags)
}

/// After the header of an assertion: one CBOR map of extensions when ED is set, else nothing.
fn extensions_only(rest: &[u8], flags: u8) -> Result<()> {
    let bad = |m: &str| Error::new(Code::InvalidAssertion, m.to_owned());
    match (flags & ED != 0, rest.is_empty()) {
        (false, true) => Ok(()),
        (false, false) => Err(bad("bytes follow the authenticator data")),
        (true, _) => match cbor::read_exact(rest) {
            Ok(Item::Map(_)) => Ok(()),
            _ => Err(bad("the extensions are not exactly one CBOR map")),
        },
    }
}

/// A verified passkey registration: what the server files in its key set's `passkeys`.
#[derive(Clone, Debug)]
pub struct Registration {
    credential_id: String,
    public_key: String,
    algorithm: &'static str,
}

impl Registration {
    /// Verifies what `navigator.credentials.create` returned, given as
    /// `{"credential_id", "attestation_object", "client_data_json"}` (base64url), for the
    /// `challenge` the server issued and the relying party `{"rp_id", "origins"}`: a
    /// `webauthn.create` ceremony on an allowed origin, a "none" attestation, rpIdHash, UP and
    /// UV, and attested credential data naming the same credential with an ES256 or EdDSA COSE
    /// key. Problems are [`Code::InvalidRegistration`] (or the specific code: origin, rpId,
    /// flags, key).
    pub fn verify(
        registration: &Value<'_>,
        challenge: &[u8],
        relying_party: &Value<'_>,
    ) -> Result<Registration> {
        let set = KeySet::from_value(&Value::Object(Object::from_sorted(vec![(
            Cow::Borrowed("webauthn"),
            relying_party.clone(),
        )])))?;
        let rp = set
            .relying_party()
            .ok_or_else(|| Error::new(Code::InvalidKeySet, "no relying party"))?;
        let f = Fields::new(
            registration,
            Code::InvalidRegistration,
            "registration",
            &["credential_id", "attestation_object", "client_data_json"],
        )?;
        let bytes = |key: &str| -> Result<Vec<u8>> {
            base64url::decode(f.string(key)?).map_err(|e| e.in_key(key))
        };
        let credential_id = bytes("credential_id")?;
        let attestation = bytes("attestation_object")?;
        let client_data = bytes("client_data_json")?;
        client_data_says(&client_data, "webauthn.create", challenge, rp)
            .map_err(|e| registration_error(e).in_key("client_data_json"))?;
        let (public_key, algorithm) = attested_key(&attestation, &credential_id, rp)
            .map_err(|e| registration_error(e).in_key("attestation_object"))?;
        Ok(Registration {
            credential_id: base64url::encode(&credential_id),
            public_key: base64url::encode(public_key),
            algorithm,
        })
    }

    /// The credential id (base64url): the key of the key set's `passkeys` entry.
    pub fn credential_id(&self) -> &str {
        &self.credential_id
    }

    /// The COSE key (base64url): the entry's `public_key`.
    pub fn public_key(&self) -> &str {
        &self.public_key
    }

    /// `ES256` or `EdDSA`.
    pub fn algorithm(&self) -> &'static str {
        self.algorithm
    }

    /// `{"algorithm", "credential_id", "public_key"}`.
    pub fn to_value(&self) -> OwnedValue {
        let s = |s: &str| Value::String(Cow::Owned(s.to_owned()));
        Value::Object(Object::from_sorted(vec![
            (Cow::Borrowed("algorithm"), s(self.algorithm)),
            (Cow::Borrowed("credential_id"), s(&self.credential_id)),
            (Cow::Borrowed("public_key"), s(&self.public_key)),
        ]))
    }
}

/// An assertion-shaped complaint about a registration is a registration problem.
fn registration_error(e: Error) -> Error {
    if e.code() == Code::InvalidAssertion {
        Error::new(Code::InvalidRegistration, e.message().to_owned())
    } else {
        e
    }
}

/// The COSE key bytes and algorithm from a "none" attestation object.
fn attested_key<'a>(
    attestation: &'a [u8],
    credential_id: &[u8],
    rp: &RelyingParty,
) -> Result<(&'a [u8], &'static str)> {
    let bad = |m: &str| Error::new(Code::InvalidRegistration, m.to_owned());
    let item = cbor::read_exact(attestation).map_err(bad)?;
    let Item::Map(members) = &item else {
        return Err(bad("the attestation object is not a CBOR map"));
    };
    let mut fmt = None;
    let mut statement = None;
    let mut auth_data = None;
    for (k, v) in members {
        match (k, v) {
            (Item::Text("fmt"), Item::Text(t)) => fmt = Some(*t),
            (Item::Text("attStmt"), Item::Map(m)) => statement = Some(m.len()),
            (Item::Text("authData"), Item::Bytes(b)) => auth_data = Some(*b),
            _ => return Err(bad("unexpected member in the attestation object")),
        }
    }
    if fmt != Some("none") || statement != Some(0) {
        return Err(bad(
            "only \"none\" attestation with an empty statement is accepted",
        ));
    }
    let data = auth_data.ok_or_else(|| bad("the attestation object has no authData"))?;
    let flags = authenticator_says(data, rp)?;
    if flags & AT == 0 {
        return Err(bad(
            "a registration must carry attested credential data (AT)",
        ));
    }
    // aaguid (16) | credentialIdLength (2, big-endian) | credentialId | COSE key | extensions?
    let attested = &data[37..];
    let id_len = attested
        .get(16..18)
        .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
        .ok_or_else(|| bad("attested credential data is truncated"))?;
    let id = attested
        .get(18..18 + id_len)
        .ok_or_else(|| bad("attested credential data is truncated"))?;
    if id != credential_id {
        return Err(bad(
            "the attested credential id is not the credential id given",
        ));
    }
    let key_bytes = &attested[18 + id_len..];
    let (key, used) = cbor::read_prefix(key_bytes).map_err(bad)?;
    let cose = CoseKey::from_item(&key)?;
    extensions_only(&key_bytes[used..], flags)?;
    Ok((&key_bytes[..used], cose.algorithm()))
}
