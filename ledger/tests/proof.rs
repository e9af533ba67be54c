//! Decisions that prove who made them, on both engines: a service-signed record (DSSE, Ed25519)
//! or a passkey-approved record is verified against the server's keys, recorded only when it is
//! byte for byte the record the ledger builds for the task's round, de-duplicated like any
//! decision, and its signer kept in the audit; forgeries are refused and leave no decision.

mod common;

use actionseal_core::ledger::State;
use actionseal_core::{
    base64url_encode, canonicalize, sign_approval, Action, Approval, Code, Decision, DecisionInput,
    Digest, OwnedValue, ProofPolicy, SigningKey,
};
use actionseal_ledger::{
    ClaimOutcome, ClaimRequest, Ledger, LedgerOptions, ManualClock, ProofRequirement, Task,
};
use common::proofs::*;
use common::*;
use std::sync::Arc;

fn int_field(v: &OwnedValue, key: &str) -> Option<i64> {
    match field(v, key) {
        actionseal_core::Value::Number(n) => n.as_safe_integer(),
        _ => None,
    }
}

fn open(db: &Db, clock: &ManualClock, proof: Option<ProofPolicy>) -> Ledger {
    Ledger::open_with(
        &db.url,
        LedgerOptions {
            clock: Arc::new(clock.clone()),
            proof,
            ..LedgerOptions::default()
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
    decided_at: i64,
}

impl<'a> Decide<'a> {
    fn approve(task: &'a Task, decision_id: &'a str) -> Decide<'a> {
        Decide {
            task,
            decision_id,
            decision: Decision::Approved,
            approver: "user:bob",
            proposed_digest: task.is_amended().then_some(task.proposed_digest),
            decided_at: T0,
        }
    }

    fn record(&self) -> OwnedValue {
        let action = Action::from_value(self.task.action.value()).unwrap();
        let input = DecisionInput {
            approval_id: self.task.approval_id.as_deref().unwrap(),
            decision_id: self.decision_id,
            decision: self.decision,
            approver: self.approver,
            decided_at: self.decided_at,
            expires_at: self.decided_at + 30 * MINUTE,
            proposed_digest: self.proposed_digest,
            role: None,
            on_behalf_of: None,
            delegation: None,
        };
        Approval::decide(&action, &input).unwrap().value().clone()
    }
}

fn signed(record: &OwnedValue, key: &SigningKey) -> OwnedValue {
    sign_approval(record, key).unwrap()
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
        proof: Default::default(),
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
        let whole = actionseal_core::ledger::reattach(stored.value(), proof);
        assert_eq!(canonicalize(&whole), canonicalize(&envelope));
        let verified = actionseal_core::verify_proof(&whole, &keys("user:bob"), T0).unwrap();
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

/// The red-team case: a key retired at T0 + 10 min signs, after its retirement, a record dated
/// 1 ms before it. The ledger judges the key at its own clock as the decision arrives, and
/// bounds decided_at by the task's round.
#[test]
fn a_retired_key_cannot_approve_by_backdating() {
    let retired = T0 + 10 * MINUTE;
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(
            &db,
            &clock,
            Some(ProofPolicy::new(true, retired_at(retired))),
        );
        let contract = refund_contract();
        let early = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        clock.set(retired + 10 * MINUTE);
        let late = l
            .propose(&refund("job-2", "req-1", 2500), &contract, "agent")
            .unwrap();
        for task in [&early, &late] {
            let mut backdated = Decide::approve(task, "dec-1");
            backdated.decided_at = retired - 1;
            let record = backdated.record();
            assert_eq!(
                code(l.decide(&signed(&record, &service_key()))),
                Code::KeyOutsideWindow,
                "{engine:?}"
            );
            assert_eq!(
                code(l.decide(&passkey_approved(&record, &passkey(), ORIGIN))),
                Code::KeyOutsideWindow
            );
            assert_eq!(l.task(&task.id).unwrap().state, State::AwaitingApproval);
        }
        // A decision that reached the ledger before the retirement outlives it: the key was
        // judged at its arrival, which the claim hands to the executor.
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(
            &db,
            &clock,
            Some(ProofPolicy::new(true, retired_at(retired))),
        );
        let task = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let record = Decide::approve(&task, "dec-1").record();
        clock.set(retired - 1);
        l.decide(&signed(&record, &service_key())).unwrap();
        clock.set(retired + MINUTE);
        let ClaimOutcome::Claimed(c, _) = claim(&l, &task, &contract) else {
            panic!("{engine:?}: the claim after the retirement")
        };
        let proof = c.proof.expect("the claimed decision's proof");
        assert_eq!(int_field(&proof, "verified_at"), Some(retired - 1));
        let proven = field(&proof, "proven");
        let verified =
            actionseal_core::verify_proof(proven, &retired_at(retired), retired - 1).unwrap();
        assert_eq!(verified.approval().value(), c.approval.as_ref().unwrap());
        assert_eq!(verified.approval().value(), &record);
        // Judged at the executor's own clock instead, the retired key no longer verifies.
        let e = actionseal_core::verify_proof(proven, &retired_at(retired), retired + MINUTE)
            .unwrap_err();
        assert_eq!(e.code(), Code::KeyOutsideWindow);
    }
}

/// "Proof required" belongs to the database: a second handle cannot weaken it, a handle
/// opened before it was required cannot get a bare decision past a strict claim, and only an
/// explicit, audited change weakens it.
#[test]
fn proof_required_binds_every_handle_on_the_database() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        // A handle opened before any handle required proof.
        let stale = open(&db, &clock, None);
        let strict = open(&db, &clock, required());
        assert_eq!(strict.policy().unwrap().proof, ProofRequirement::Required);
        let contract = refund_contract();
        let first = strict
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        // A second handle with no policy takes the database's: a bare decision is refused.
        let second = open(&db, &clock, None);
        let bare = decision(&first, "dec-1", "approved", T0, 30 * MINUTE);
        assert_eq!(code(second.decide(&bare)), Code::MissingProof, "{engine:?}");
        // A handle that says proof is optional is refused at open.
        let weaker = Ledger::open_with(
            &db.url,
            LedgerOptions {
                clock: Arc::new(clock.clone()),
                proof: Some(ProofPolicy::new(false, keys("user:bob"))),
                ..LedgerOptions::default()
            },
        );
        assert_eq!(weaker.err().unwrap().code(), Code::ProofPolicyWeakened);
        // The stale handle still records a bare decision, but the strict handle's claim
        // refuses a task whose decision carries no proof, and changes nothing.
        stale.decide(&bare).unwrap();
        let e = strict
            .claim(&ClaimRequest {
                task_id: &first.id,
                action: first.action.value(),
                facts: &facts(&contract),
                executor: "worker-1",
                lease_ms: 5 * MINUTE,
                budget: None,
                proof: Default::default(),
            })
            .unwrap_err();
        assert_eq!(e.code(), Code::MissingProof);
        assert_eq!(strict.task(&first.id).unwrap().state, State::Approved);
        // A claim can require proof on its own, on any handle.
        let e = stale
            .claim(&ClaimRequest {
                task_id: &first.id,
                action: first.action.value(),
                facts: &facts(&contract),
                executor: "worker-1",
                lease_ms: 5 * MINUTE,
                budget: None,
                proof: ProofRequirement::Required,
            })
            .unwrap_err();
        assert_eq!(e.code(), Code::MissingProof);
        // Revoked, re-approved with proof: claimable, and the claim returns what it checked.
        strict
            .revoke(first.approval_id.as_deref().unwrap(), "user:admin")
            .unwrap();
        let ClaimOutcome::Reapproval { task, .. } = claim(&strict, &first, &contract) else {
            panic!("{engine:?}: a revoked approval goes back to the reviewer")
        };
        let record = Decide::approve(&task, "dec-2").record();
        let decided = strict.decide(&signed(&record, &service_key())).unwrap();
        assert!(decided.task.proof.is_some());
        let ClaimOutcome::Claimed(c, _) = claim(&strict, &task, &contract) else {
            panic!("{engine:?}: the proven decision is claimable")
        };
        assert_eq!(c.approval.as_ref().unwrap(), &record);
        let proof = c.proof.unwrap();
        assert_eq!(str_field(field(&proof, "signer"), "kind"), "service");
        let verified = actionseal_core::verify_proof(
            field(&proof, "proven"),
            &keys("user:bob"),
            int_field(&proof, "verified_at").unwrap(),
        )
        .unwrap();
        assert_eq!(verified.approval().value(), &record);

        // Only an explicit change weakens it, and the audit records who and why.
        let policy = second
            .set_proof_requirement(ProofRequirement::Optional, "user:admin", "pilot ended")
            .unwrap();
        assert_eq!(policy.proof, ProofRequirement::Optional);
        assert_eq!(policy.changed_by, "user:admin");
        let reopened = Ledger::open_with(
            &db.url,
            LedgerOptions {
                clock: Arc::new(clock.clone()),
                proof: Some(ProofPolicy::new(false, keys("user:bob"))),
                ..LedgerOptions::default()
            },
        );
        assert!(reopened.is_ok());
        let audit = strict.audit_export().unwrap();
        let changes: Vec<&str> = audit
            .lines()
            .filter(|l| l.contains("proof_policy_changed"))
            .collect();
        assert_eq!(
            changes.len(),
            2,
            "{engine:?}: strengthened at open, then weakened"
        );
        assert!(changes[1].contains("user:admin") && changes[1].contains("pilot ended"));
        assert!(strict.audit_verify().unwrap().broken.is_none());
    }
}

/// A passkey's signature counter must go up from one decision to the next (WebAuthn Level 3,
/// 6.1.1): a cloned authenticator or a replayed assertion is refused; an authenticator that
/// keeps no counter (always 0) is not.
#[test]
fn a_passkey_counter_that_does_not_increase_is_refused() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, required());
        let contract = refund_contract();
        let tasks: Vec<Task> = (1..=5)
            .map(|i| {
                l.propose(
                    &refund(&format!("job-{i}"), "req-1", 2500),
                    &contract,
                    "agent",
                )
                .unwrap()
            })
            .collect();
        let approve = |task: &Task, id: &str, count: u32| {
            let record = Decide::approve(task, id).record();
            l.decide(&passkey_counted(&record, &passkey(), ORIGIN, count))
        };
        approve(&tasks[0], "dec-1", 7).unwrap();
        assert_eq!(
            code(approve(&tasks[1], "dec-2", 7)),
            Code::SignCountNotIncreasing,
            "{engine:?}"
        );
        assert_eq!(
            code(approve(&tasks[1], "dec-2", 3)),
            Code::SignCountNotIncreasing
        );
        approve(&tasks[1], "dec-2", 8).unwrap();
        // The same delivery again is a duplicate, not a second use of the counter.
        let again = Decide::approve(&tasks[0], "dec-1").record();
        assert!(
            l.decide(&passkey_counted(&again, &passkey(), ORIGIN, 7))
                .unwrap()
                .duplicate
        );
        // A refusal leaves the task waiting, with its refusal audited.
        assert_eq!(l.task(&tasks[2].id).unwrap().state, State::AwaitingApproval);
        assert_eq!(kinds(&l, &tasks[1].id)[1], "decision_refused");
        // A service signature has no counter; another credential's counter is its own.
        let envelope = signed(
            &Decide::approve(&tasks[2], "dec-3").record(),
            &service_key(),
        );
        l.decide(&envelope).unwrap();

        // An authenticator without a counter reports 0 every time.
        let db = Db::fast(engine);
        let l = open(&db, &clock, required());
        for (i, task) in tasks.iter().take(2).enumerate() {
            let t = l
                .propose(
                    &Action::from_value(task.action.value())
                        .unwrap()
                        .value()
                        .clone(),
                    &contract,
                    "agent",
                )
                .unwrap();
            let record = Decide::approve(&t, &format!("dec-{i}")).record();
            l.decide(&passkey_counted(&record, &passkey(), ORIGIN, 0))
                .unwrap();
        }
    }
}
