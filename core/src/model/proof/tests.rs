//! Proof through the permit check: what each kind of failure becomes, and that a valid proof
//! gives exactly the verdict of the bare record.

use super::*;
use crate::{check, check_with, parse, Context, Options, Outcome};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

const CONTRACT: &str = r#"{"tool":"t","version":"1","effect":"write","approval":"always","cost_minor":0,
    "args":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}"#;

/// A record approved by `b` at 100, expiring at 1000, and its action.
fn record() -> (OwnedValue, OwnedValue) {
    let contract = crate::Contract::from_value(&json(CONTRACT)).unwrap();
    let ids = crate::ActionIds {
        tenant: "a",
        subject: "s",
        job_id: "j",
        request_id: "r",
        policy_version: "p",
    };
    let action = crate::Action::build(&contract, &json(r#"{"n":1}"#), &ids).unwrap();
    let approval = Approval::decide(
        &action,
        &crate::DecisionInput {
            approval_id: "ap",
            decision_id: "d",
            decision: crate::Decision::Approved,
            approver: "b",
            decided_at: 100,
            expires_at: 1000,
            proposed_digest: None,
            role: None,
            on_behalf_of: None,
            delegation: None,
        },
    )
    .unwrap();
    (approval.value().clone(), action.value().clone())
}

fn key(n: u8) -> SigningKey {
    SigningKey::from_seed(&[n; 32])
}

/// A context at now = 500 whose proof policy trusts `entries` (`"<keyid>": {...}` members).
fn context(required: bool, entries: &str) -> OwnedValue {
    json(&format!(
        r#"{{"now":500,"tenant":"a","policy_version":"p","contract":{CONTRACT},
            "approver_authorized":{{"approver":"b","authorized":true}},"subject_authorized":{{"subject":"s","authorized":true}},"revoked":{{"approval_id":"ap","revoked":false}},
            "proof":{{"required":{required},"keys":{{"service_keys":{{{entries}}}}}}}}}"#
    ))
}

fn entry(key: &SigningKey, extra: &str) -> String {
    format!(
        r#""{}":{{"key":"{}"{extra}}}"#,
        key.public_key().keyid(),
        base64url::encode(key.public_key().as_bytes())
    )
}

fn reasons(approval: Option<&Value<'_>>, action: &Value<'_>, ctx: &Value<'_>) -> Vec<&'static str> {
    let v = check(approval, action, ctx).unwrap();
    assert_eq!(v.reasons.is_empty(), v.outcome == Outcome::Permit);
    v.reasons.iter().map(|r| r.as_str()).collect()
}

#[test]
fn a_signed_decision_permits_like_the_bare_record() {
    let (record, action) = record();
    let k = key(1);
    let envelope = sign_approval(&record, &k).unwrap();
    let ctx = context(true, &entry(&k, ""));
    let signed = check(Some(&envelope), &action, &ctx).unwrap();
    assert_eq!(signed.outcome, Outcome::Permit);
    let bare = check(Some(&record), &action, &context(false, "")).unwrap();
    assert_eq!(
        crate::canonicalize(&signed.to_value()),
        crate::canonicalize(&bare.to_value())
    );
    // verify_envelope gives the record and the signer.
    let keys = KeySet::from_value(&json(&format!(
        r#"{{"service_keys":{{{}}}}}"#,
        entry(&k, "")
    )))
    .unwrap();
    let verified = verify_envelope(&envelope, &keys, 100).unwrap();
    assert_eq!(verified.approval().value(), &record);
    assert_eq!(
        verified.signer(),
        &Signer::Service {
            keyid: k.public_key().keyid().into()
        }
    );
}

/// The red-team case: a key retired at 300 signs a record dated before its retirement. The
/// record's `decided_at` is the signer's word; the window is judged at the verifier's time.
#[test]
fn a_retired_key_cannot_approve_by_backdating() {
    let (record, action) = record();
    let k = key(1);
    let envelope = sign_approval(&record, &k).unwrap();
    let retired = entry(&k, r#","valid_until":300"#);
    assert_eq!(
        reasons(Some(&envelope), &action, &context(true, &retired)),
        ["key_untrusted"]
    );
    let keys = KeySet::from_value(&json(&format!(r#"{{"service_keys":{{{retired}}}}}"#))).unwrap();
    let e = verify_envelope(&envelope, &keys, 500).unwrap_err();
    assert_eq!(e.code(), Code::KeyOutsideWindow);
    // Judged at a time inside the window (a ledger's recorded arrival), it holds.
    assert!(verify_envelope(&envelope, &keys, 299).is_ok());
}

#[test]
fn each_failure_has_its_reason() {
    let (record, action) = record();
    let (k, other) = (key(1), key(2));
    let envelope = sign_approval(&record, &k).unwrap();
    let trusted = entry(&k, "");
    // No proof where it is required; no proof needed otherwise.
    assert_eq!(
        reasons(Some(&record), &action, &context(true, &trusted)),
        ["proof_missing"]
    );
    assert!(reasons(Some(&record), &action, &context(false, &trusted)).is_empty());
    // A key the server does not trust, or none at all.
    assert_eq!(
        reasons(Some(&envelope), &action, &context(true, &entry(&other, ""))),
        ["key_untrusted"]
    );
    let no_proof = json(
        r#"{"now":500,"tenant":"a","policy_version":"p","contract":null,
        "approver_authorized":{"approver":"b","authorized":true},
        "subject_authorized":{"subject":"s","authorized":true},
        "revoked":{"approval_id":"ap","revoked":false}}"#,
    );
    assert_eq!(
        reasons(Some(&envelope), &action, &no_proof),
        ["key_untrusted", "unknown_tool"]
    );
    // The window, judged at the context's now (500): from inclusive, until exclusive.
    for (window, ok) in [
        (r#","valid_from":500"#, true),
        (r#","valid_from":501"#, false),
        (r#","valid_until":501"#, true),
        (r#","valid_until":500"#, false),
    ] {
        let got = reasons(Some(&envelope), &action, &context(true, &entry(&k, window)));
        assert_eq!(got.is_empty(), ok, "{window}");
        if !ok {
            assert_eq!(got, ["key_untrusted"]);
        }
    }
    // Whom the key may sign for.
    let only_c = entry(&k, r#","approvers":["c"]"#);
    assert_eq!(
        reasons(Some(&envelope), &action, &context(true, &only_c)),
        ["signer_not_allowed"]
    );
    let b_and_c = entry(&k, r#","approvers":["c","b"]"#);
    assert!(reasons(Some(&envelope), &action, &context(true, &b_and_c)).is_empty());
    // A flipped bit in the signature.
    let mut forged = crate::canonicalize(&envelope);
    let at = forged.find(r#""sig":""#).unwrap() + 7;
    let flipped = if &forged[at..=at] == "A" { "B" } else { "A" };
    forged.replace_range(at..=at, flipped);
    assert_eq!(
        reasons(Some(&json(&forged)), &action, &context(true, &trusted)),
        ["proof_invalid"]
    );
}

#[test]
fn signed_content_is_checked_like_any_record() {
    let (record, action) = record();
    let k = key(1);
    let ctx = context(true, &entry(&k, ""));
    // A signed rejection is a rejection.
    let mut rejected = crate::canonicalize(&record).replace("\"approved\"", "\"rejected\"");
    let env = sign_approval(&json(&rejected), &k).unwrap();
    assert_eq!(reasons(Some(&env), &action, &ctx), ["decision_rejected"]);
    // A signed approval of another action is drift.
    let other = json(&crate::canonicalize(&action).replace(r#""n":1"#, r#""n":2"#));
    let env = sign_approval(&record, &k).unwrap();
    assert_eq!(reasons(Some(&env), &other, &ctx), ["action_drift"]);
    // A validly signed payload that is not a record: invalid_approval, never a permit.
    rejected = r#"{"hello":"world"}"#.into();
    let payload = rejected.as_bytes();
    let sig = k.sign(&pae(PAYLOAD_TYPE, payload));
    let env = json(&format!(
        r#"{{"payloadType":"{PAYLOAD_TYPE}","payload":"{}","signatures":[{{"keyid":"{}","sig":"{}"}}]}}"#,
        base64url::encode(payload),
        k.public_key().keyid(),
        base64url::encode(&sig)
    ));
    assert_eq!(reasons(Some(&env), &action, &ctx), ["invalid_approval"]);
    // Signing refuses a tampered record.
    let tampered = json(&crate::canonicalize(&record).replace(r#""n":1"#, r#""n":3"#));
    let e = sign_approval(&tampered, &k).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::InvalidApproval, "/action_digest")
    );
}

#[test]
fn a_preloaded_policy_gives_the_same_verdict() {
    let (record, action) = record();
    let k = key(1);
    let envelope = sign_approval(&record, &k).unwrap();
    let ctx = context(true, &entry(&k, ""));
    let from_json = check(Some(&envelope), &action, &ctx).unwrap();
    let policy = ProofPolicy::from_value(ctx.as_object().unwrap().get("proof").unwrap()).unwrap();
    let Value::Object(o) = &ctx else { panic!() };
    let without: Vec<_> = o
        .iter()
        .filter(|(k, _)| *k != "proof")
        .map(|(k, v)| (Cow::Owned(k.to_owned()), v.clone()))
        .collect();
    let preloaded = Context::from_value(&Value::Object(Object::from_entries(without).unwrap()))
        .unwrap()
        .with_proof(Some(std::sync::Arc::new(policy)));
    assert!(preloaded.proof().unwrap().required());
    let v = check_with(Some(&envelope), &action, &preloaded);
    assert_eq!(
        crate::canonicalize(&v.to_value()),
        crate::canonicalize(&from_json.to_value())
    );
}

#[test]
fn malformed_key_sets_are_refused_with_a_path() {
    let k = key(1);
    let x = base64url::encode(k.public_key().as_bytes());
    let id = k.public_key().keyid();
    for (text, code, path) in [
        (
            format!(r#"{{"service_keys":{{"wrong":{{"key":"{x}"}}}}}}"#),
            Code::InvalidKeySet,
            "/service_keys/wrong".to_owned(),
        ),
        (
            format!(
                r#"{{"service_keys":{{"{id}":{{"key":"{x}","valid_from":5,"valid_until":5}}}}}}"#
            ),
            Code::InvalidKeySet,
            format!("/service_keys/{id}/valid_until"),
        ),
        (
            format!(r#"{{"service_keys":{{"{id}":{{"key":"{x}","approvers":[]}}}}}}"#),
            Code::InvalidKeySet,
            format!("/service_keys/{id}/approvers"),
        ),
        (
            format!(r#"{{"service_keys":{{"{id}":{{"key":"{x}","approvers":["b","b"]}}}}}}"#),
            Code::InvalidKeySet,
            format!("/service_keys/{id}/approvers/1"),
        ),
        (
            format!(r#"{{"service_keys":{{"{id}":{{"key":"{x}="}}}}}}"#),
            Code::InvalidBase64,
            format!("/service_keys/{id}/key"),
        ),
        (
            r#"{"passkeys":{}, "other":1}"#.to_owned(),
            Code::InvalidKeySet,
            "/other".to_owned(),
        ),
        (
            r#"{"passkeys":{"AAAA":{"public_key":"oA","approver":"b"}}}"#.to_owned(),
            Code::InvalidKey,
            "/passkeys/AAAA/public_key".to_owned(),
        ),
    ] {
        let e = KeySet::from_value(&json(&text)).unwrap_err();
        assert_eq!((e.code(), e.path()), (code, path.as_str()), "{text}");
    }
}

#[test]
fn a_loaded_approval_is_a_bare_record() {
    // An executor that loads a record once gets the same verdict as for the record itself: a
    // context that requires proof refuses it, one that does not permits it.
    let (record, action) = record();
    let loaded = crate::Approval::from_value(&record).unwrap();
    // Neither a signed envelope nor a passkey-approved record loads: a loaded approval is
    // checked as a bare record without looking for its proof (`proof::bare`).
    let envelope = sign_approval(&record, &key(1)).unwrap();
    assert!(crate::Approval::from_value(&envelope).is_err());
    let text = crate::canonicalize(&record);
    let with_passkey = json(&format!(r#"{{"{}":{{}},{}"#, webauthn::MEMBER, &text[1..]));
    assert!(webauthn::looks_like_passkey(&with_passkey));
    assert!(crate::Approval::from_value(&with_passkey).is_err());
    let trusted = entry(&key(1), "");
    for required in [true, false] {
        let ctx = crate::Context::from_value(&context(required, &trusted)).unwrap();
        let got = crate::check_approval(Some(&loaded), &action, &ctx);
        let want = crate::check_with(Some(&record), &action, &ctx);
        assert_eq!(got.reasons, want.reasons);
        assert_eq!(
            got.reasons.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
            if required {
                vec!["proof_missing"]
            } else {
                vec![]
            }
        );
    }
}
