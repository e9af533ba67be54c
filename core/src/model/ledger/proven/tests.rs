use super::*;
use crate::model::approval::{Approval, Decision, DecisionInput};
use crate::model::proof::{base64url, sign_approval, SigningKey};
use crate::{parse, Action, ActionIds, Contract, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

fn action(n: i64) -> Action {
    let contract = Contract::from_value(&json(
        r#"{"tool":"t","version":"1","effect":"write","approval":"always","cost_minor":0,
            "args":{"type":"object","properties":{"n":{"type":"integer"}}}}"#,
    ))
    .unwrap();
    let ids = ActionIds {
        tenant: "a",
        subject: "s",
        job_id: "job-1",
        request_id: "req-1",
        policy_version: "p",
    };
    Action::build(&contract, &json(&format!(r#"{{"n":{n}}}"#)), &ids).unwrap()
}

fn record(action: &Action, expires_at: i64) -> Approval {
    Approval::decide(
        action,
        &DecisionInput {
            approval_id: "ap-1",
            decision_id: "dec-1",
            decision: Decision::Approved,
            approver: "user:bob",
            decided_at: 100,
            expires_at,
            proposed_digest: None,
            role: None,
            on_behalf_of: None,
            delegation: None,
        },
    )
    .unwrap()
}

fn key() -> SigningKey {
    SigningKey::from_seed(&[3; 32])
}

fn keys() -> KeySet {
    let k = key();
    let keys = json(&format!(
        r#"{{"service_keys": {{"{}": {{"key": "{}"}}}}}}"#,
        k.public_key().keyid(),
        base64url::encode(k.public_key().as_bytes())
    ));
    KeySet::from_value(&keys).unwrap()
}

const BARE: &str = r#"{"approval_id": "ap-1", "decision_id": "dec-1", "job_id": "job-1",
    "request_id": "req-1", "action_digest": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
    "decision": "approved", "approver": "user:bob", "decided_at": 100, "expires_at": 200}"#;

#[test]
fn a_signed_record_gives_the_decision_it_names() {
    let a = action(1);
    let r = record(&a, 200);
    let envelope = sign_approval(r.value(), &key()).unwrap();
    let p =
        Presented::<DecisionEnvelope>::read(&envelope, &keys(), ProofRequirement::Required, 150)
            .unwrap();
    let d = p.envelope();
    assert_eq!(
        (
            d.approval_id.as_str(),
            d.decision_id.as_str(),
            d.approver.as_str()
        ),
        ("ap-1", "dec-1", "user:bob")
    );
    assert_eq!(
        (d.job_id.as_str(), d.request_id.as_str()),
        ("job-1", "req-1")
    );
    assert_eq!(d.action_digest, a.digest());
    assert_eq!((d.decided_at, d.expires_at), (100, 200));
    let proven = p.proven().unwrap();
    // The proof keeps the signatures, not the payload (the record, with the action's values).
    let o = envelope.as_object().unwrap();
    let mut keys: Vec<&str> = proven
        .proof()
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, _)| k)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["payloadType", "signatures"]);
    assert_eq!(
        proven.proof().as_object().unwrap().get("signatures"),
        o.get("signatures")
    );
    assert_eq!(
        proven.signer(),
        &Signer::Service {
            keyid: key().public_key().keyid().to_owned()
        }
    );
    proven.check_built(&r).unwrap();
    assert_eq!((proven.verified_at(), proven.sign_count()), (150, None));
    // Put back together, the proof and the record are the envelope as it arrived.
    let whole = reattach(r.value(), proven.proof());
    assert_eq!(canonicalize(&whole), canonicalize(&envelope));
}

#[test]
fn a_passkey_counter_must_increase_unless_both_are_zero() {
    let proven = |count| ProvenDecision {
        envelope: DecisionEnvelope::from_value(&json(BARE)).unwrap(),
        record: record(&action(1), 200),
        signer: Signer::Passkey {
            credential_id: "AQID".into(),
            algorithm: "EdDSA",
        },
        sign_count: Some(count),
        verified_at: 150,
        proof: OwnedValue::Null,
    };
    for (new, stored, ok) in [
        (1, None, true),
        (0, None, true),
        (8, Some(7), true),
        (0, Some(0), true),
        (7, Some(7), false),
        (3, Some(7), false),
        (0, Some(7), false),
        (u32::MAX, Some(i64::from(u32::MAX)), false),
    ] {
        let got = proven(new).check_sign_count(stored);
        assert_eq!(got.is_ok(), ok, "{new} after {stored:?}");
        if let Err(e) = got {
            assert_eq!(
                (e.code(), e.path()),
                (Code::SignCountNotIncreasing, "/passkey")
            );
        }
    }
}

#[test]
fn a_decision_is_dated_between_its_round_and_its_arrival() {
    let d = DecisionEnvelope::from_value(&json(BARE)).unwrap();
    assert!(d.check_time(100, 100).is_ok());
    assert!(d.check_time(0, 1_000).is_ok());
    for (start, now) in [(101, 1_000), (0, 99)] {
        let e = d.check_time(start, now).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::DecidedOutsideRound, "/decided_at")
        );
    }
}

#[test]
fn a_record_other_than_the_built_one_is_a_mismatch_at_its_first_difference() {
    let a = action(1);
    let envelope = sign_approval(record(&a, 200).value(), &key()).unwrap();
    let p =
        Presented::<DecisionEnvelope>::read(&envelope, &keys(), ProofRequirement::Optional, 150)
            .unwrap();
    let proven = p.proven().unwrap();
    let e = proven.check_built(&record(&a, 300)).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::DecisionMismatch, "/expires_at")
    );
    // The action sorts first: another action is reported there, not at its digest.
    let e = proven.check_built(&record(&action(2), 200)).unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::DecisionMismatch, "/action"));
}

#[test]
fn bare_envelopes_are_refused_only_where_proof_is_required() {
    let bare = json(BARE);
    let e = Presented::<DecisionEnvelope>::read(&bare, &keys(), ProofRequirement::Required, 150)
        .unwrap_err();
    assert_eq!(e.code(), Code::MissingProof);
    for keys in [KeySet::EMPTY, keys()] {
        let p = Presented::<DecisionEnvelope>::read(&bare, &keys, ProofRequirement::Optional, 150)
            .unwrap();
        assert!(p.proven().is_none());
        assert_eq!(p.envelope().decision_id, "dec-1");
    }
    // A bare envelope's own problems keep their code where proof is optional.
    let e = Presented::<DecisionEnvelope>::read(
        &json(r#"{"approval_id": 1}"#),
        &KeySet::EMPTY,
        ProofRequirement::Optional,
        150,
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::InvalidDecision);
}

#[test]
fn proof_without_trusted_keys_is_refused() {
    let envelope = sign_approval(record(&action(1), 200).value(), &key()).unwrap();
    let e = Presented::<DecisionEnvelope>::read(
        &envelope,
        &KeySet::EMPTY,
        ProofRequirement::Optional,
        150,
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::UnknownKey);
    let other = SigningKey::from_seed(&[4; 32]);
    let forged = sign_approval(record(&action(1), 200).value(), &other).unwrap();
    let e = Presented::<DecisionEnvelope>::read(&forged, &keys(), ProofRequirement::Required, 150)
        .unwrap_err();
    assert_eq!(e.code(), Code::UnknownKey);
}

#[test]
fn a_signed_record_keeps_its_role_and_delegation() {
    // Issue 25: the approval server signs a quorum member with its role, or a delegate's decision
    // with the chain; the ledger's decision must say the same, else the record it builds differs.
    let a = action(1);
    let link = delegation_link(Some(&key()));
    let r = Approval::decide(
        &a,
        &DecisionInput {
            approval_id: "ap-1",
            decision_id: "dec-1",
            decision: Decision::Approved,
            approver: "user:dave",
            decided_at: 100,
            expires_at: 200,
            proposed_digest: None,
            role: Some("finance"),
            on_behalf_of: Some("user:carol"),
            delegation: Some(std::slice::from_ref(&link)),
        },
    )
    .unwrap();
    let envelope = sign_approval(r.value(), &key()).unwrap();
    let p =
        Presented::<DecisionEnvelope>::read(&envelope, &keys(), ProofRequirement::Required, 150)
            .unwrap();
    let d = p.envelope();
    assert_eq!(
        (d.role.as_deref(), d.on_behalf_of.as_deref()),
        (Some("finance"), Some("user:carol"))
    );
    assert_eq!(d.delegation.as_deref(), Some(std::slice::from_ref(&link)));
}

/// A delegation from user:carol to user:dave over tool `t` for [0, 1000): signed with `key`,
/// or bare.
fn delegation_link(key: Option<&SigningKey>) -> OwnedValue {
    let document = json(
        r#"{"delegation_id": "dlg-1", "delegator": "user:carol", "delegate": "user:dave",
            "tenant": "a", "tools": ["t"], "not_before": 0, "not_after": 1000}"#,
    );
    match key {
        Some(k) => crate::sign_delegation(&document, k).unwrap(),
        None => document,
    }
}

/// A bare decision by user:dave for user:carol through `link`.
fn delegated(link: &OwnedValue) -> OwnedValue {
    let mut text = BARE.replace(
        r#""user:bob""#,
        r#""user:dave", "on_behalf_of": "user:carol""#,
    );
    text.pop();
    json(&format!(
        r#"{text}, "delegation": [{}]}}"#,
        crate::canonicalize(link)
    ))
}

#[test]
fn every_delegation_link_is_verified_as_the_decision_arrives() {
    use ProofRequirement::{Optional, Required};
    let signed = delegation_link(Some(&key()));
    let bare = delegation_link(None);
    let forged = delegation_link(Some(&SigningKey::from_seed(&[9; 32])));
    let read = |link: &OwnedValue, required| {
        Presented::<DecisionEnvelope>::read(&delegated(link), &keys(), required, 150)
            .map(|p| p.envelope().clone())
    };
    assert!(read(&signed, Optional).is_ok());
    assert!(read(&bare, Optional).is_ok());
    let e = read(&forged, Optional).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::UnknownKey, "/delegation/0/signatures/0/keyid")
    );
    let e = read(&json(r#"{"delegation_id": "dlg-1"}"#), Optional).unwrap_err();
    assert_eq!(e.code(), Code::InvalidDelegation);
    // A signed decision's links are verified the same way, and must carry proof where the
    // ledger requires it.
    let r = |link: &OwnedValue, required| {
        let record = Approval::decide(
            &action(1),
            &DecisionInput {
                approval_id: "ap-1",
                decision_id: "dec-1",
                decision: Decision::Approved,
                approver: "user:dave",
                decided_at: 100,
                expires_at: 200,
                proposed_digest: None,
                role: None,
                on_behalf_of: Some("user:carol"),
                delegation: Some(std::slice::from_ref(link)),
            },
        )
        .unwrap();
        let envelope = sign_approval(record.value(), &key()).unwrap();
        Presented::<DecisionEnvelope>::read(&envelope, &keys(), required, 150).map(|_| ())
    };
    assert!(r(&signed, Required).is_ok());
    assert!(r(&bare, Optional).is_ok());
    let e = r(&bare, Required).unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::MissingProof, "/delegation/0"));
    assert_eq!(r(&forged, Optional).unwrap_err().code(), Code::UnknownKey);
}
