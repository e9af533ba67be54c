//! Decisions that prove who made them, on both engines: a service-signed record (DSSE, Ed25519)
//! or a passkey-approved record is verified against the server's keys, recorded only when it is
//! byte for byte the record the ledger builds for the task's round, de-duplicated like any
//! decision, and its signer kept in the audit; forgeries are refused and leave no decision.

mod common;

use actionseal_core::ledger::State;
use actionseal_core::{
    base64url_encode, canonicalize, fingerprint, sign_approval, Action, Approval, Code, Decision,
    DecisionInput, Digest, KeySet, OwnedValue, ProofPolicy, SigningKey,
};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, LedgerOptions, ManualClock, Task};
use common::*;
use std::sync::Arc;

const RP: &str = "example.com";
const ORIGIN: &str = "https://example.com";

fn service_key() -> SigningKey {
    SigningKey::from_seed(&[1; 32])
}

/// The reviewer's passkey (EdDSA, so the test can make assertions with core's signer).
fn passkey() -> SigningKey {
    SigningKey::from_seed(&[2; 32])
}

fn credential_id() -> String {
    base64url_encode(&[5; 16])
}

/// `key` as a COSE_Key `{1: 1, 3: -8, -1: 6, -2: x}`.
fn cose(key: &SigningKey) -> Vec<u8> {
    let mut c = vec![0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20];
    c.extend_from_slice(key.public_key().as_bytes());
    c
}

/// The server's key set: the service key, and the passkey registered to `passkey_owner`.
fn keys(passkey_owner: &str) -> KeySet {
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

fn open(db: &Db, clock: &ManualClock, proof: Option<ProofPolicy>) -> Ledger {
    Ledger::open_with(
        &db.url,
        LedgerOptions {
            clock: Arc::new(clock.clone()),
            proof,
        },
    )
    .unwrap()
}

fn required() -> Option<ProofPolicy> {
    Some(ProofPolicy::new(true, keys("user:bob")))
}

/// What a reviewer decides: the record the ledger builds for `task`'s current round.
struct Decide<'a> {
    task: &'a Task,
    decision_id: &'a str,
    decision: Decision,
    approver: &'a str,
    proposed_digest: Option<Digest>,
}

impl<'a> Decide<'a> {
    fn approve(task: &'a Task, decision_id: &'a str) -> Decide<'a> {
        Decide {
            task,
            decision_id,
            decision: Decision::Approved,
            approver: "user:bob",
            proposed_digest: task.is_amended().then_some(task.proposed_digest),
        }
    }

    fn record(&self) -> OwnedValue {
        let action = Action::from_value(self.task.action.value()).unwrap();
        let input = DecisionInput {
            approval_id: self.task.approval_id.as_deref().unwrap(),
            decision_id: self.decision_id,
            decision: self.decision,
            approver: self.approver,
            decided_at: T0,
            expires_at: T0 + 30 * MINUTE,
            proposed_digest: self.proposed_digest,
        };
        Approval::decide(&action, &input).unwrap().value().clone()
    }
}

fn signed(record: &OwnedValue, key: &SigningKey) -> OwnedValue {
    sign_approval(record, key).unwrap()
}

/// `record` plus `"passkey"`: an assertion of `key` over its fingerprint, on `origin`, UP+UV.
fn passkey_approved(record: &OwnedValue, key: &SigningKey, origin: &str) -> OwnedValue {
    let challenge = fingerprint(record);
    let client_data = format!(
        r#"{{"type":"webauthn.get","challenge":"{}","origin":"{origin}"}}"#,
        base64url_encode(challenge.as_bytes())
    );
    let mut data = Digest::of(RP.as_bytes()).as_bytes().to_vec();
    data.extend_from_slice(&[0x05, 0, 0, 0, 1]);
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

/// `v` with the string member `key` (of `v`, or of its first signature) replaced by `f` of it.
fn edit(v: &OwnedValue, key: &str, f: impl Fn(&str) -> String) -> OwnedValue {
    let old = match key {
        "sig" => match field(v, "signatures") {
            actionseal_core::Value::Array(s) => str_field(&s[0], key).to_owned(),
            _ => panic!("no signatures"),
        },
        _ => str_field(v, key).to_owned(),
    };
    assert!(!old.is_empty(), "no {key}");
    let text = canonicalize(v).replace(&format!("\"{old}\""), &format!("\"{}\"", f(&old)));
    json(&text)
}

/// A base64url string with one bit of its first byte flipped.
fn flip(b64: &str) -> String {
    let mut bytes = actionseal_core::base64url_decode(b64).unwrap();
    bytes[0] ^= 1;
    base64url_encode(&bytes)
}

fn claim(l: &Ledger, task: &Task, contract: &OwnedValue) -> ClaimOutcome {
    l.claim(&ClaimRequest {
        task_id: &task.id,
        action: task.action.value(),
        facts: &facts(contract),
        executor: "worker-1",
        lease_ms: 5 * MINUTE,
        budget: None,
    })
    .unwrap()
}

fn code(r: actionseal_core::Result<actionseal_ledger::Decided>) -> Code {
    match r {
        Ok(d) => panic!("recorded: {:?}", d.decision),
        Err(e) => e.code(),
    }
}

/// The decided event of `task`: its detail's signer and proof.
fn decided_detail(l: &Ledger, task: &str) -> OwnedValue {
    let (_, events) = l.task_history(task).unwrap();
    let decided: Vec<_> = events
        .iter()
        .filter(|e| e.kind.as_str() == "decided")
        .collect();
    assert_eq!(decided.len(), 1);
    decided[0].detail.clone()
}

#[test]
fn a_signed_decision_is_recorded_claimable_and_names_its_signer() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, required());
        let contract = refund_contract();
        let task = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let record = Decide::approve(&task, "dec-1").record();
        let envelope = signed(&record, &service_key());
        let decided = l.decide(&envelope).unwrap();
        assert!(!decided.duplicate);
        assert_eq!(decided.task.state, State::Approved);
        let keyid = service_key().public_key().keyid().to_owned();
        let signer = decided.signer.clone().unwrap();
        assert_eq!(str_field(&signer, "kind"), "service");
        assert_eq!(str_field(&signer, "keyid"), keyid);
        // The stored record is the signed payload, byte for byte.
        let stored = decided.task.approval.as_ref().unwrap();
        assert_eq!(canonicalize(stored.value()), canonicalize(&record));
        assert_eq!(decided.decision.decision_id, "dec-1");
        assert_eq!(decided.decision.approver, "user:bob");

        // The audit keeps who signed and the signature, not the payload: with the record the
        // task keeps, the envelope is whole again and verifies anywhere.
        let detail = decided_detail(&l, &task.id);
        assert_eq!(str_field(field(&detail, "signer"), "keyid"), keyid);
        let proof = field(&detail, "proof");
        assert_eq!(
            canonicalize(field(proof, "signatures")),
            canonicalize(field(&envelope, "signatures"))
        );
        assert!(matches!(
            field(proof, "payload"),
            actionseal_core::Value::Null
        ));
        let whole = json(&format!(
            r#"{{"payloadType": "{}", "payload": "{}", "signatures": {}}}"#,
            str_field(proof, "payloadType"),
            base64url_encode(canonicalize(stored.value()).as_bytes()),
            canonicalize(field(proof, "signatures"))
        ));
        assert_eq!(canonicalize(&whole), canonicalize(&envelope));
        let verified = actionseal_core::verify_proof(&whole, &keys("user:bob")).unwrap();
        assert_eq!(verified.approval().value(), &record);
        let exported = l.audit_export().unwrap();
        assert!(exported.contains(&keyid));
        assert!(
            !exported.contains("order-17"),
            "the audit holds no argument values"
        );
        assert!(l.audit_verify().unwrap().broken.is_none());

        match claim(&l, &task, &contract) {
            ClaimOutcome::Claimed(c, _) => assert_eq!(c.task_id, task.id),
            other => panic!("{}", other.result()),
        }
    }
}

#[test]
fn a_passkey_approved_decision_is_recorded_and_claimable() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, required());
        let contract = refund_contract();
        let task = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let record = Decide::approve(&task, "dec-1").record();
        let approved = passkey_approved(&record, &passkey(), ORIGIN);
        let decided = l.decide(&approved).unwrap();
        assert_eq!(decided.task.state, State::Approved);
        let signer = decided.signer.clone().unwrap();
        assert_eq!(str_field(&signer, "kind"), "passkey");
        assert_eq!(str_field(&signer, "credential_id"), credential_id());
        assert_eq!(str_field(&signer, "algorithm"), "EdDSA");
        // The task keeps the record without the assertion; the audit keeps the assertion.
        let stored = decided.task.approval.as_ref().unwrap();
        assert_eq!(canonicalize(stored.value()), canonicalize(&record));
        let detail = decided_detail(&l, &task.id);
        assert_eq!(
            canonicalize(field(&detail, "proof")),
            canonicalize(field(&approved, "passkey"))
        );
        assert!(!l.audit_export().unwrap().contains("order-17"));
        assert!(matches!(
            claim(&l, &task, &contract),
            ClaimOutcome::Claimed(..)
        ));
    }
}

#[test]
fn forged_decisions_are_refused_and_record_nothing() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, required());
        let contract = refund_contract();
        let task = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let other = l
            .propose(&refund("job-2", "req-1", 9900), &contract, "agent")
            .unwrap();
        let record = Decide::approve(&task, "dec-1").record();
        let envelope = signed(&record, &service_key());

        // Unsigned, where proof is required.
        assert_eq!(
            code(l.decide(&decision(&task, "dec-1", "approved", T0, 30 * MINUTE))),
            Code::MissingProof
        );
        // Signed by a key the server does not trust.
        assert_eq!(
            code(l.decide(&signed(&record, &SigningKey::from_seed(&[9; 32])))),
            Code::UnknownKey
        );
        // A flipped bit of the signature, and of the payload.
        let sig = edit(&envelope, "sig", flip);
        assert_eq!(code(l.decide(&sig)), Code::InvalidSignature);
        let payload = edit(&envelope, "payload", flip);
        assert_eq!(code(l.decide(&payload)), Code::InvalidSignature);
        // A valid signature over another task's record, presented for this task's round.
        let elsewhere = Decide::approve(&other, "dec-1").record();
        let swapped = edit(&elsewhere, "approval_id", |_| {
            task.approval_id.clone().unwrap()
        });
        assert_eq!(
            code(l.decide(&signed(&swapped, &service_key()))),
            Code::DecisionMismatch
        );
        // A signed record that is not the one the ledger builds: it says the action was
        // amended when it was not.
        let mut claims_amended = Decide::approve(&task, "dec-1");
        claims_amended.proposed_digest = Some(other.action_digest);
        let e = l
            .decide(&signed(&claims_amended.record(), &service_key()))
            .unwrap_err();
        assert_eq!(e.code(), Code::DecisionMismatch);
        assert_eq!(e.path(), "/proposed_digest");
        // A passkey registered to another approver.
        let other_owner = open(
            &db,
            &clock,
            Some(ProofPolicy::new(true, keys("user:carol"))),
        );
        let approved = passkey_approved(&record, &passkey(), ORIGIN);
        assert_eq!(code(other_owner.decide(&approved)), Code::SignerNotAllowed);
        // A passkey ceremony on another origin, and an assertion over another record.
        assert_eq!(
            code(l.decide(&passkey_approved(
                &record,
                &passkey(),
                "https://evil.example"
            ))),
            Code::OriginNotAllowed
        );
        let mut rejected = Decide::approve(&task, "dec-1");
        rejected.decision = Decision::Rejected;
        let mut reused = passkey_approved(&rejected.record(), &passkey(), ORIGIN);
        reused = edit(&reused, "decision", |_| "approved".into());
        assert_eq!(code(l.decide(&reused)), Code::ChallengeMismatch);
        // Signed for an approver the record does not name: another approver's name in a
        // record signed by a passkey that is bob's.
        let mut carol = Decide::approve(&task, "dec-1");
        carol.approver = "user:carol";
        assert_eq!(
            code(l.decide(&passkey_approved(&carol.record(), &passkey(), ORIGIN))),
            Code::SignerNotAllowed
        );

        // Nothing was recorded: the task still awaits its decision, and dec-1 is free.
        let t = l.task(&task.id).unwrap();
        assert_eq!(t.state, State::AwaitingApproval);
        assert!(t.approval.is_none());
        let decided = l.decide(&envelope).unwrap();
        assert!(!decided.duplicate);
        assert_eq!(decided.task.state, State::Approved);
        // Only the mismatches reached the task's chain (refused with their codes).
        assert_eq!(
            kinds(&l, &task.id),
            [
                "proposed",
                "decision_refused",
                "decision_refused",
                "decided"
            ]
        );
    }
}

#[test]
fn a_repeated_proven_decision_is_recorded_once() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, required());
        let contract = refund_contract();
        let task = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let record = Decide::approve(&task, "dec-1").record();
        let envelope = signed(&record, &service_key());
        assert!(!l.decide(&envelope).unwrap().duplicate);
        let again = l.decide(&envelope).unwrap();
        assert!(again.duplicate);
        assert_eq!(again.task.state, State::Approved);
        assert!(again.signer.is_some());
        // The same decision approved with the passkey is the same decision: a duplicate.
        let by_passkey = passkey_approved(&record, &passkey(), ORIGIN);
        assert!(l.decide(&by_passkey).unwrap().duplicate);
        // The same decision_id, signed with other content: a conflict.
        let mut rejected = Decide::approve(&task, "dec-1");
        rejected.decision = Decision::Rejected;
        assert_eq!(
            code(l.decide(&signed(&rejected.record(), &service_key()))),
            Code::DecisionConflict
        );
        assert_eq!(
            kinds(&l, &task.id),
            [
                "proposed",
                "decided",
                "decision_duplicate",
                "decision_duplicate",
                "decision_refused"
            ]
        );
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}

#[test]
fn without_required_proof_bare_and_proven_decisions_are_both_accepted() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, Some(ProofPolicy::new(false, keys("user:bob"))));
        let contract = refund_contract();
        let bare = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let proven = l
            .propose(&refund("job-2", "req-1", 2500), &contract, "agent")
            .unwrap();
        let d = l
            .decide(&decision(&bare, "dec-1", "approved", T0, 30 * MINUTE))
            .unwrap();
        assert!(d.signer.is_none());
        assert!(!canonicalize(&decided_detail(&l, &bare.id)).contains("signer"));
        let envelope = signed(&Decide::approve(&proven, "dec-2").record(), &service_key());
        assert!(l.decide(&envelope).unwrap().signer.is_some());
        // A forged proof is refused even where proof is optional.
        let forged = signed(
            &Decide::approve(&proven, "dec-3").record(),
            &SigningKey::from_seed(&[9; 32]),
        );
        assert_eq!(code(l.decide(&forged)), Code::UnknownKey);

        // A ledger configured with no keys at all verifies nothing.
        let no_keys = open(&db, &clock, None);
        let third = no_keys
            .propose(&refund("job-3", "req-1", 2500), &contract, "agent")
            .unwrap();
        let envelope = signed(&Decide::approve(&third, "dec-4").record(), &service_key());
        assert_eq!(code(no_keys.decide(&envelope)), Code::UnknownKey);
    }
}

#[test]
fn an_amended_task_needs_the_record_that_names_the_proposal() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, required());
        let contract = refund_contract();
        let task = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let amended = refund("job-1", "req-1", 2000);
        let a = json(&format!(
            r#"{{"task_id": "{}", "amends": "{}", "action": {}, "reviewer": "user:bob",
                "reason": "partial refund"}}"#,
            task.id,
            task.action_digest,
            canonicalize(&amended)
        ));
        let task = l.amend(&a, &contract).unwrap().task;
        assert!(task.is_amended());
        // Signed without proposed_digest: not the record the ledger builds.
        let mut silent = Decide::approve(&task, "dec-1");
        silent.proposed_digest = None;
        let e = l
            .decide(&signed(&silent.record(), &service_key()))
            .unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::DecisionMismatch, "/proposed_digest")
        );
        let decided = l
            .decide(&signed(
                &Decide::approve(&task, "dec-1").record(),
                &service_key(),
            ))
            .unwrap();
        assert_eq!(decided.task.state, State::Approved);
        assert!(matches!(
            claim(&l, &decided.task, &contract),
            ClaimOutcome::Claimed(..)
        ));
    }
}
