use super::*;
use crate::error::Code;

fn json(text: &str) -> OwnedValue {
    crate::parse(text.as_bytes(), &Options::default())
        .expect("JSON")
        .into_owned()
}

// A registration recorded from Chromium's virtual authenticator
// (conformance/vectors/passkey/y_register_es256.json).
const CREDENTIAL_ID: &str = "bj48wkoxFDbBOJaJ2RhYe_3FbBhZrftAxGH6u-xdy8E";
const ATTESTATION: &str = "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikSZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2NFAAAAAQECAwQFBgcIAQIDBAUGBwgAIG4-PMJKMRQ2wTiWidkYWHv9xWwYWa37QMRh-rvsXcvBpQECAyYgASFYIABIsRXjaTygM7j6xzUDBVcIsTBbFiLHs8GE8Kb0hSL6Ilgg5E3hly6-Q-xIn5sL3tw2W2p9OSMittpukyhtiADXbew";
const CLIENT_DATA: &str = "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiSExLQkhxOXFkeW5JRkxubTlvT1dYZWhVNFlhbVN2SVpxcG5rcDJhQTdOcyIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6NDU0MDUiLCJjcm9zc09yaWdpbiI6ZmFsc2V9";
const CHALLENGE: &str = "HLKBHq9qdynIFLnm9oOWXehU4YamSvIZqpnkp2aA7Ns";
const RP: &str = r#"{"rp_id": "localhost", "origins": ["http://localhost:45405"]}"#;

fn register(attestation: &str) -> Result<Registration> {
    let registration = json(&format!(
        r#"{{"credential_id": "{CREDENTIAL_ID}", "attestation_object": "{attestation}",
            "client_data_json": "{CLIENT_DATA}"}}"#
    ));
    let challenge = base64url::decode(CHALLENGE).expect("base64url");
    Registration::verify(&registration, &challenge, &json(RP))
}

/// The red team's attestation object: one CBOR map of distinct keys (0, 1, 2, ...) filling
/// `size` bytes, which the reader used to compare each with every earlier one.
fn many_keys(size: usize) -> String {
    // The shortest head of major type `major` with argument `n`.
    fn head(major: u8, n: u32, out: &mut Vec<u8>) {
        match n {
            0..=23 => out.push(major << 5 | n as u8),
            24..=255 => out.extend([major << 5 | 24, n as u8]),
            256..=65_535 => out.extend([major << 5 | 25, (n >> 8) as u8, n as u8]),
            _ => {
                out.push(major << 5 | 26);
                out.extend(n.to_be_bytes());
            }
        }
    }
    let mut members = Vec::new();
    let mut n = 0;
    while members.len() + 10 < size {
        head(0, n, &mut members);
        members.push(0);
        n += 1;
    }
    let mut out = Vec::new();
    head(5, n, &mut out);
    out.extend(members);
    base64url::encode(&out)
}

fn code<T>(r: Result<T>) -> (Code, String) {
    let e = r.err().expect("an error");
    (e.code(), e.path().to_owned())
}

#[test]
fn a_recorded_registration_verifies() {
    let r = register(ATTESTATION).expect("verifies");
    assert_eq!(r.credential_id(), CREDENTIAL_ID);
}

#[test]
fn a_256_kib_attestation_object_is_refused_before_it_is_parsed() {
    // Issue 23: this took 24 s to come back as invalid_registration.
    assert_eq!(
        code(register(&many_keys(256 * 1024))),
        (Code::PasskeyTooLarge, "/attestation_object".into())
    );
}

#[test]
fn an_attestation_object_of_many_keys_is_refused_at_its_head() {
    // Within the size bound, the map's count is over the member bound.
    assert_eq!(
        code(register(&many_keys(4 * 1024))),
        (Code::CborLimitExceeded, "/attestation_object".into())
    );
}

#[test]
fn every_field_is_sized_before_any_is_decoded() {
    let long = |n: usize| "A".repeat((4 * n).div_ceil(3) + 1);
    for (key, max) in [
        ("credential_id", MAX_CREDENTIAL_ID),
        ("attestation_object", MAX_ATTESTATION_OBJECT),
        ("client_data_json", MAX_CLIENT_DATA),
    ] {
        let mut fields = [CREDENTIAL_ID, ATTESTATION, CLIENT_DATA].map(str::to_owned);
        let i = ["credential_id", "attestation_object", "client_data_json"]
            .iter()
            .position(|k| *k == key)
            .expect("field");
        // Too long, and not base64url either: the size is what is reported.
        fields[i] = format!("{}=", long(max));
        let registration = json(&format!(
            r#"{{"credential_id": "{}", "attestation_object": "{}", "client_data_json": "{}"}}"#,
            fields[0], fields[1], fields[2]
        ));
        let got = Registration::verify(&registration, &[0; 32], &json(RP));
        assert_eq!(code(got), (Code::PasskeyTooLarge, format!("/{key}")));
    }
    let keys = KeySet::from_value(&json("{}")).expect("an empty key set");
    for (key, max) in [
        ("credential_id", MAX_CREDENTIAL_ID),
        ("authenticator_data", MAX_AUTHENTICATOR_DATA),
        ("client_data_json", MAX_CLIENT_DATA),
        ("signature", MAX_SIGNATURE),
    ] {
        let mut fields = ASSERTION_FIELDS.map(|k| format!(r#""{k}": "AA""#));
        let i = ASSERTION_FIELDS
            .iter()
            .position(|k| *k == key)
            .expect("field");
        fields[i] = format!(r#""{key}": "{}""#, long(max));
        let assertion = json(&format!("{{{}}}", fields.join(",")));
        let got = verify_assertion(&json("{}"), &assertion, &keys);
        assert_eq!(
            code(got),
            (Code::PasskeyTooLarge, format!("/passkey/{key}"))
        );
    }
}
