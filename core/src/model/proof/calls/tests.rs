use super::*;
use crate::json::parse::parse;
use crate::Options;

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .expect("JSON")
        .into_owned()
}

fn code<T: std::fmt::Debug>(r: Result<T>) -> (Code, String) {
    let e = r.expect_err("an error");
    (e.code(), e.path().to_owned())
}

// RFC 8032 section 7.1, TEST 1.
const KEY: &str = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
const SIG: &str =
    "5VZDAMNgrHKQhuLMgG6CioSHfx645dl02HPgZSJJAVVfuIIVkKM7rMYeOXAc-bRr0lv18FlbviRlUUFDjnoQCw";

#[test]
fn byte_string_arguments_are_base64url_strings() {
    let key = json(&format!("{KEY:?}"));
    verify_ed25519(&key, &json(r#""""#), &json(&format!("{SIG:?}"))).expect("TEST 1 verifies");
    assert_eq!(
        code(verify_ed25519(
            &key,
            &json(r#""AA""#),
            &json(&format!("{SIG:?}"))
        )),
        (Code::InvalidSignature, String::new())
    );
    for not_bytes in ["7", "null", "[]", r#""AA==""#] {
        assert_eq!(
            code(verify_ed25519(
                &key,
                &json(not_bytes),
                &json(&format!("{SIG:?}"))
            ))
            .0,
            Code::InvalidBase64,
            "{not_bytes}"
        );
        assert_eq!(
            code(pae(&json(r#""t""#), &json(not_bytes))).0,
            Code::InvalidBase64
        );
        assert_eq!(
            code(verify_registration(
                &json("{}"),
                &json(not_bytes),
                &json("{}")
            ))
            .0,
            Code::InvalidBase64
        );
    }
}

#[test]
fn pae_of_the_dsse_example() {
    let payload = json(&format!("{:?}", base64url::encode(b"hello world")));
    let out = pae(&json(r#""http://example.com/HelloWorld""#), &payload).expect("pae");
    assert_eq!(
        base64url::decode(&out).expect("base64url"),
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    );
    assert_eq!(
        code(pae(&json("1"), &payload)),
        (Code::InvalidEnvelope, String::new())
    );
}

#[test]
fn public_jwk_is_normalized_with_its_thumbprint() {
    let jwk = public_jwk(&json(&format!("{KEY:?}"))).expect("key");
    let o = jwk.as_object().expect("object");
    let keys: Vec<&str> = o.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["crv", "kid", "kty", "x"]);
    assert_eq!(o.get("x").and_then(Value::as_str), Some(KEY));
    let again = public_jwk(&jwk).expect("the JWK loads back");
    assert_eq!(crate::canonicalize(&again), crate::canonicalize(&jwk));
}

#[test]
fn a_key_set_is_read_before_the_approval() {
    let (c, path) = code(verify(
        &json("{}"),
        &json(r#"{"service_keys": 1}"#),
        &json("0"),
        Accept::Either,
    ));
    assert_eq!((c, path.as_str()), (Code::InvalidKeySet, "/service_keys"));
    assert_eq!(
        code(verify(&json("{}"), &json("{}"), &json("0"), Accept::Either)).0,
        Code::MissingProof
    );
    assert_eq!(
        code(verify(
            &json("{}"),
            &json("{}"),
            &json("0"),
            Accept::Envelope
        ))
        .0,
        Code::InvalidEnvelope
    );
    assert_eq!(
        code(verify(
            &json("{}"),
            &json("{}"),
            &json("0"),
            Accept::Passkey
        ))
        .0,
        Code::MissingProof
    );
}

#[test]
fn the_challenge_is_the_fingerprint_in_base64url() {
    let record = json(r#"{"a": 1}"#);
    assert_eq!(
        base64url::decode(&challenge(&record)).expect("base64url"),
        crate::fingerprint(&record).as_bytes()
    );
}

#[test]
fn a_delegation_link_is_read_as_an_approval_is() {
    let document = json(
        r#"{"delegation_id": "d", "delegator": "a", "delegate": "b", "tenant": "t",
            "tools": ["x"], "not_before": 0, "not_after": 10}"#,
    );
    // The key set first, then the time a key is judged at, then the link.
    assert_eq!(
        code(verify_delegation(
            &json("{}"),
            &json(r#"{"service_keys": 1}"#),
            &json("-1")
        )),
        (Code::InvalidKeySet, "/service_keys".to_owned())
    );
    for at in ["-1", "1.5", r#""0""#, "null"] {
        assert_eq!(
            code(verify_delegation(&document, &json("{}"), &json(at))).0,
            Code::InvalidRequest,
            "{at}"
        );
    }
    // A bare document: no signer.
    let verified = verify_delegation(&document, &json("{}"), &json("0")).expect("bare");
    let Value::Object(o) = &verified else {
        panic!("an object")
    };
    assert_eq!(o.get("signer"), Some(&Value::Null));
    assert_eq!(
        o.get("digest"),
        Some(&Value::String(
            crate::fingerprint(&document).to_string().into()
        ))
    );
}
