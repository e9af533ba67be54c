//! RFC 3161 verification against tokens made by `openssl ts` (testing/tsa/, which also
//! regenerates them): every case of timestamp/verdicts.json, which testing/tsa/crosscheck.sh
//! checks with openssl and Python as well, so the three implementations agree.

use actionseal_core::timestamp::{
    request, token_of, verify_token, HashAlgorithm, Request, TimestampTrust,
};
use actionseal_core::{parse, Code, Options, Value};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/timestamp/");

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

fn text<'a>(case: &'a Value, key: &str) -> Option<&'a str> {
    case.pointer(&format!("/{key}")).and_then(Value::as_str)
}

fn files(case: &Value, key: &str) -> Vec<Vec<u8>> {
    match case.pointer(&format!("/{key}")) {
        Some(Value::Array(names)) => names.iter().map(|n| read(n.as_str().unwrap())).collect(),
        _ => Vec::new(),
    }
}

fn verdicts() -> Value<'static> {
    let json = read("verdicts.json");
    parse(&json, &Options::default()).unwrap().into_owned()
}

fn list<'a>(doc: &'a Value<'static>, key: &str) -> &'a [Value<'static>] {
    match doc.pointer(key) {
        Some(Value::Array(items)) => items,
        _ => panic!("verdicts.json has no {key}"),
    }
}

#[test]
fn every_fixture_gets_its_verdict() {
    let doc = verdicts();
    let cases = list(&doc, "/cases");
    assert!(cases.len() >= 15);
    for case in cases {
        let name = text(case, "name").unwrap();
        let trust = TimestampTrust {
            roots: files(case, "roots"),
            certificates: files(case, "extra"),
            policy: text(case, "policy").map(str::to_owned),
            nonce: text(case, "nonce").map(unhex),
        };
        let token = read(text(case, "token").unwrap());
        let data = read(text(case, "data").unwrap());
        let got = verify_token(&token, &data, &trust);
        match (text(case, "expect").unwrap(), &got) {
            ("ok", Ok(stamp)) => {
                let Some(want) = case.pointer("/result") else {
                    continue;
                };
                let field = |key: &str| text(want, key).unwrap();
                let ms = want.pointer("/gen_time_ms").unwrap();
                let Value::Number(ms) = ms else {
                    panic!("{name}: gen_time_ms")
                };
                assert_eq!(Some(stamp.gen_time_ms), ms.as_safe_integer(), "{name}");
                assert_eq!(stamp.serial, field("serial"), "{name}");
                assert_eq!(stamp.policy, field("policy"), "{name}");
                assert_eq!(stamp.tsa_name, field("tsa_name"), "{name}");
                assert_eq!(stamp.hash.name(), field("imprint_algorithm"), "{name}");
                assert_eq!(stamp.imprint, unhex(field("imprint")), "{name}");
            }
            ("ok", Err(e)) => panic!("{name}: expected ok, got {e}"),
            (code, Ok(_)) => panic!("{name}: expected {code}, got ok"),
            (code, Err(e)) => assert_eq!(e.code().as_str(), code, "{name}: {e}"),
        }
    }
}

#[test]
fn requests_match_python_asn1crypto() {
    let doc = verdicts();
    let data = read("data.txt");
    for item in list(&doc, "/requests") {
        let file = text(item, "file").unwrap();
        let nonce = text(item, "nonce").map(unhex);
        let hash = match text(item, "algorithm").unwrap() {
            "sha256" => HashAlgorithm::Sha256,
            "sha384" => HashAlgorithm::Sha384,
            _ => HashAlgorithm::Sha512,
        };
        let options = Request {
            hash,
            nonce: nonce.as_deref(),
            policy: text(item, "policy"),
        };
        assert_eq!(request(&data, &options).unwrap(), read(file), "{file}");
    }
}

#[test]
fn a_valid_token_reports_what_it_says() {
    let trust = TimestampTrust {
        roots: vec![read("root.der")],
        nonce: Some(unhex("9a3c5e7f10213243")),
        ..TimestampTrust::default()
    };
    let stamp = verify_token(&read("rsa.tsr"), &read("data.txt"), &trust).unwrap();
    // openssl's accuracy setting: secs 1, millisecs 500, microsecs 100; ms precision 3.
    assert_eq!(stamp.accuracy_us, Some(1_500_100));
    // clock_precision_digits 3: at most "YYYYMMDDhhmmss.sssZ".
    assert!(stamp.gen_time.ends_with('Z') && stamp.gen_time.len() <= 19);
    assert_eq!(stamp.nonce.as_deref(), Some(&unhex("9a3c5e7f10213243")[..]));
}

#[test]
fn the_token_is_what_openssl_takes_out_of_the_reply() {
    // rsa.tst is `openssl ts -reply -in rsa.tsr -token_out`.
    assert_eq!(token_of(&read("rsa.tsr")).unwrap(), read("rsa.tst"));
    assert_eq!(token_of(&read("rsa.tst")).unwrap(), read("rsa.tst"));
    let err = token_of(&read("rejected.tsr")).unwrap_err();
    assert_eq!(
        (err.code(), err.path()),
        (Code::TimestampInvalid, "/status")
    );
    let err = token_of(&read("root.der")).unwrap_err();
    assert_eq!(err.code(), Code::TimestampInvalid, "{err}");
}

#[test]
fn a_rejection_names_the_status_and_failure() {
    let trust = TimestampTrust {
        roots: vec![read("root.der")],
        ..TimestampTrust::default()
    };
    let err = verify_token(&read("rejected.tsr"), &read("data.txt"), &trust).unwrap_err();
    assert_eq!(err.code(), Code::TimestampInvalid);
    assert_eq!(err.path(), "/status");
    assert!(err.message().contains("rejection"), "{err}");
    assert!(err.message().contains("unacceptedPolicy"), "{err}");
}

#[test]
fn truncated_or_foreign_input_is_invalid() {
    let trust = TimestampTrust {
        roots: vec![read("root.der")],
        ..TimestampTrust::default()
    };
    let token = read("rsa.tsr");
    let data = read("data.txt");
    for cut in [0, 1, 2, 10, token.len() / 2, token.len() - 1] {
        let err = verify_token(&token[..cut], &data, &trust).unwrap_err();
        assert_eq!(err.code(), Code::TimestampInvalid, "cut at {cut}: {err}");
    }
    // A certificate is DER but no time-stamp.
    let err = verify_token(&read("root.der"), &data, &trust).unwrap_err();
    assert_eq!(err.code(), Code::TimestampInvalid, "{err}");
    // Every single-byte change is refused (or, in unsigned places, still verifies).
    for i in (0..token.len()).step_by(7) {
        let mut changed = token.clone();
        changed[i] ^= 0x40;
        if let Ok(stamp) = verify_token(&changed, &data, &trust) {
            assert_eq!(stamp.imprint.len(), 32, "byte {i}");
        }
    }
}

#[test]
fn malformed_trust_is_an_invalid_option() {
    let data = read("data.txt");
    let trust = TimestampTrust {
        roots: vec![read("root.der"), b"not a certificate".to_vec()],
        ..TimestampTrust::default()
    };
    let err = verify_token(&read("rsa.tsr"), &data, &trust).unwrap_err();
    assert_eq!((err.code(), err.path()), (Code::InvalidOption, "/roots/1"));
    assert_eq!(trust.check().unwrap_err(), err);
    let trust = TimestampTrust {
        roots: vec![read("root.der")],
        policy: Some("policy one".into()),
        ..TimestampTrust::default()
    };
    let err = verify_token(&read("rsa.tsr"), &data, &trust).unwrap_err();
    assert_eq!((err.code(), err.path()), (Code::InvalidOption, "/policy"));
    assert_eq!(trust.check().unwrap_err(), err);
    let options = Request {
        nonce: Some(&[0, 0]),
        ..Request::default()
    };
    let err = request(&data, &options).unwrap_err();
    assert_eq!((err.code(), err.path()), (Code::InvalidOption, "/nonce"));
}

/// The token `token` (a ContentInfo of SignedData) with its certificates replaced by `certs`
/// (each a certificate's DER): outside what the TSA signed, so the signature still holds.
fn with_certificates(token: &[u8], certs: impl Fn(Vec<Vec<u8>>) -> Vec<Vec<u8>>) -> Vec<u8> {
    use der::{Any, Decode, Encode, Reader, SliceReader, Tag, TagNumber, Tagged};
    let parts = |bytes: &[u8]| -> Vec<Any> {
        let mut r = SliceReader::new(bytes).unwrap();
        let mut out = Vec::new();
        while !r.is_finished() {
            out.push(Any::decode(&mut r).unwrap());
        }
        out
    };
    let join =
        |tag: Tag, items: &[Vec<u8>]| Any::new(tag, items.concat()).unwrap().to_der().unwrap();
    let info = Any::from_der(token).unwrap();
    let [oid, explicit] = parts(info.value()).try_into().unwrap();
    let signed = Any::from_der(explicit.value()).unwrap();
    let certs_tag = Tag::ContextSpecific {
        constructed: true,
        number: TagNumber(0),
    };
    let fields: Vec<Vec<u8>> = parts(signed.value())
        .into_iter()
        .map(|f| match f.tag() == certs_tag {
            true => {
                let held = parts(f.value())
                    .iter()
                    .map(|c| c.to_der().unwrap())
                    .collect();
                join(certs_tag, &certs(held))
            }
            false => f.to_der().unwrap(),
        })
        .collect();
    let signed = join(Tag::Sequence, &fields);
    join(
        Tag::Sequence,
        &[oid.to_der().unwrap(), join(explicit.tag(), &[signed])],
    )
}

#[test]
fn a_token_with_more_certificates_than_a_path_needs_is_refused_before_any_is_tried() {
    let trust = TimestampTrust {
        roots: vec![read("root.der")],
        ..TimestampTrust::default()
    };
    let (token, data) = (read("rsa.tst"), read("data.txt"));
    let padded = |to: usize| {
        with_certificates(&token, |mut certs| {
            let first = certs[0].clone();
            certs.resize(to, first);
            certs
        })
    };
    // Rebuilt as it was, the token verifies; padded with copies up to the bound, too.
    verify_token(&with_certificates(&token, |c| c), &data, &trust).unwrap();
    verify_token(&padded(16), &data, &trust).unwrap();
    let err = verify_token(&padded(17), &data, &trust).unwrap_err();
    assert_eq!(
        (err.code(), err.path()),
        (Code::TimestampInvalid, "/certificates")
    );
    assert!(err.message().contains("carries 17 certificates"), "{err}");
}
