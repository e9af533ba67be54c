//! Batch decisions that prove who made them (issue 28), on both engines, by the rules of a
//! task's proven decision: a signed or passkey-approved batch record is verified against the
//! server's keys as it arrives, recorded only when it is byte for byte the record the ledger
//! builds for the batch as it awaits its decision, its proof kept on the batch and in the
//! audit, and its items claimed where claims require proof; a bare decision where proof is
//! required, a record over another batch or selection, or a forged key leave no decision.

mod common;

use actionseal_core::batch::{BatchDecision, Header, Semantics};
use actionseal_core::ledger::{reattach, State};
use actionseal_core::{
    canonicalize, sign_approval, verify_batch_proof, Code, Decision, DecisionInput, OwnedValue,
    ProofPolicy, SigningKey,
};
use actionseal_ledger::{
    Batch, BatchDecided, ClaimOutcome, ClaimRequest, DecisionDraft, Ledger, LedgerOptions,
    ManualClock, ProofRequirement,
};
use common::proofs::*;
use common::*;
use std::sync::Arc;

/// The ledger at `db` on `clock`, with the server's keys, requiring proof or not.
fn open(db: &Db, clock: &ManualClock, required: bool) -> Ledger {
    Ledger::open_with(
        &db.url,
        LedgerOptions {
            clock: Arc::new(clock.clone()),
            proof: Some(ProofPolicy::new(required, keys("user:bob"))),
            ..LedgerOptions::default()
        },
    )
    .unwrap()
}

/// A per-item batch of `n` refunds of job `job`.
fn propose(l: &Ledger, job: &str, n: usize) -> (Batch, Vec<OwnedValue>) {
    let actions = refunds(&batch_contract(100_000), job, n);
    let b = l
        .propose_batch(
            &actions,
            &batch_contract(100_000),
            Semantics::PerItem,
            "agent",
        )
        .unwrap();
    (b, actions)
}

/// `b` with the item at `position` deselected by user:bob.
fn deselect(l: &Ledger, b: &Batch, position: u64) -> Batch {
    l.amend_batch(&json(&format!(
        r#"{{"batch_id": "{}", "amends": "{}", "deselect": [{position}], "reviewer": "user:bob",
            "reason": "refunded by phone"}}"#,
        b.id, b.digest
    )))
    .unwrap()
}

/// The record the ledger builds for user:bob's approval of `b` as it is now, decided at T0.
fn record(b: &Batch, decision_id: &str) -> BatchDecision {
    b.decision(&DecisionDraft {
        decision_id,
        decision: Decision::Approved,
        approver: "user:bob",
        decided_at: T0,
        expires_at: T0 + HOUR,
    })
    .unwrap()
    .record
}

/// user:bob's approval of `b` at T0, naming no proposal.
fn unamended<'a>(b: &'a Batch, decision_id: &'a str) -> DecisionInput<'a> {
    DecisionInput {
        approval_id: &b.approval_id,
        decision_id,
        decision: Decision::Approved,
        approver: "user:bob",
        decided_at: T0,
        expires_at: T0 + HOUR,
        proposed_digest: None,
        role: None,
        on_behalf_of: None,
        delegation: None,
    }
}

fn signed(r: &BatchDecision, key: &SigningKey) -> OwnedValue {
    sign_approval(r.value(), key).unwrap()
}

/// The code and pointer of a refused decision.
fn refused(r: actionseal_core::Result<BatchDecided>) -> (Code, String) {
    match r {
        Ok(d) => panic!("recorded: {:?}", d.batch.decision_id),
        Err(e) => (e.code(), e.path().to_owned()),
    }
}

/// The batch events' details of kind `kind`.
fn batch_events(l: &Ledger, kind: &str) -> Vec<OwnedValue> {
    audit_events(l)
        .into_iter()
        .filter(|e| str_field(e, "kind") == kind)
        .map(|e| field(&e, "detail").clone())
        .collect()
}

fn claim<'v>(
    task: &'v str,
    action: &'v OwnedValue,
    facts: &'v OwnedValue,
    proof: ProofRequirement,
) -> ClaimRequest<'v, 'v> {
    ClaimRequest {
        task_id: task,
        action,
        facts,
        executor: "worker",
        lease_ms: HOUR,
        budget: None,
        proof,
    }
}

fn verified(l: &Ledger) {
    let report = l.audit_verify().unwrap();
    assert!(report.broken.is_none(), "{:?}", report.broken);
}

#[test]
fn a_signed_batch_decision_is_recorded_kept_and_its_items_claimed_where_proof_is_required() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, true);
        let (b, actions) = propose(&l, "job-1", 3);
        // A deselection: the record the reviewer signs names the model's proposal too.
        let b = deselect(&l, &b, 1);
        let r = record(&b, "dec-1");
        let envelope = signed(&r, &service_key());

        // Bare, the same decision is refused where proof is required, and changes nothing.
        let bare = b
            .decision(&DecisionDraft {
                decision_id: "dec-1",
                decision: Decision::Approved,
                approver: "user:bob",
                decided_at: T0,
                expires_at: T0 + HOUR,
            })
            .unwrap()
            .envelope
            .to_value();
        assert_eq!(refused(l.decide_batch(&bare)).0, Code::MissingProof);
        assert_eq!(l.batch(&b.id).unwrap().state, State::AwaitingApproval);

        let decided = l.decide_batch(&envelope).unwrap();
        assert!(!decided.duplicate);
        assert_eq!(decided.batch.state, State::Approved);
        let keyid = service_key().public_key().keyid().to_owned();
        assert_eq!(str_field(decided.signer.as_ref().unwrap(), "keyid"), keyid);
        // The batch keeps the signed record byte for byte, and how it was proven.
        let kept = decided.batch.record.as_ref().unwrap();
        assert_eq!(canonicalize(kept), canonicalize(r.value()));
        let proof = decided.batch.proof.as_ref().unwrap();
        assert_eq!(str_field(field(proof, "signer"), "keyid"), keyid);
        assert_eq!(l.batch(&b.id).unwrap().proof.as_ref(), Some(proof));

        // The audit keeps the signature without the payload: with the batch's record it is
        // whole again and verifies anywhere.
        let events = batch_events(&l, "batch_decided");
        assert_eq!(events.len(), 1);
        let kept_proof = field(&events[0], "proof");
        assert!(matches!(
            field(kept_proof, "payload"),
            actionseal_core::Value::Null
        ));
        assert_eq!(
            canonicalize(field(kept_proof, "signatures")),
            canonicalize(field(&envelope, "signatures"))
        );
        let whole = reattach(kept, kept_proof);
        assert!(verify_batch_proof(&whole, &keys("user:bob"), T0).is_ok());

        // Delivered again: a duplicate, naming its signer, nothing changed.
        let again = l.decide_batch(&envelope).unwrap();
        assert!(again.duplicate);
        assert!(again.signer.is_some());

        // Each selected item is claimed, under a claim that requires proof.
        let f = facts(&batch_contract(100_000));
        for (id, action) in [(&b.items[0].0, &actions[0]), (&b.items[1].0, &actions[2])] {
            let out = l
                .claim_item(&claim(id, action, &f, ProofRequirement::Required))
                .unwrap();
            assert!(
                matches!(out, ClaimOutcome::Claimed(..)),
                "{engine:?} {out:?}"
            );
        }
        let deselected = &b.proposed_items[1];
        assert_eq!(l.task(deselected).unwrap().state, State::Rejected);
        verified(&l);
    }
}

#[test]
fn a_bare_batch_decision_is_claimed_only_where_claims_do_not_require_proof() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, false);
        let (b, actions) = propose(&l, "job-1", 2);
        let bare = b
            .decision(&DecisionDraft {
                decision_id: "dec-1",
                decision: Decision::Approved,
                approver: "user:bob",
                decided_at: T0,
                expires_at: T0 + HOUR,
            })
            .unwrap()
            .envelope
            .to_value();
        let decided = l.decide_batch(&bare).unwrap();
        assert!(decided.signer.is_none() && decided.batch.proof.is_none());
        let f = facts(&batch_contract(100_000));
        let strict = claim(&b.items[0].0, &actions[0], &f, ProofRequirement::Required);
        assert_eq!(
            l.claim_item(&strict).unwrap_err().code(),
            Code::MissingProof,
            "{engine:?}"
        );
        let plain = claim(&b.items[0].0, &actions[0], &f, ProofRequirement::Optional);
        assert!(matches!(
            l.claim_item(&plain).unwrap(),
            ClaimOutcome::Claimed(..)
        ));
        verified(&l);
    }
}

#[test]
fn a_passkey_batch_decision_is_recorded_and_its_counter_must_move() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, true);
        let (first, _) = propose(&l, "job-1", 2);
        let (second, _) = propose(&l, "job-2", 2);
        let approved = passkey_counted(record(&first, "dec-1").value(), &passkey(), ORIGIN, 3);
        let decided = l.decide_batch(&approved).unwrap();
        assert_eq!(decided.batch.state, State::Approved);
        let signer = decided.signer.unwrap();
        assert_eq!(str_field(&signer, "kind"), "passkey");
        assert_eq!(str_field(&signer, "credential_id"), credential_id());
        // The same counter again: a cloned authenticator or a replay.
        let replay = passkey_counted(record(&second, "dec-2").value(), &passkey(), ORIGIN, 3);
        assert_eq!(
            refused(l.decide_batch(&replay)).0,
            Code::SignCountNotIncreasing
        );
        assert_eq!(l.batch(&second.id).unwrap().state, State::AwaitingApproval);
        let next = passkey_counted(record(&second, "dec-2").value(), &passkey(), ORIGIN, 4);
        assert_eq!(l.decide_batch(&next).unwrap().batch.state, State::Approved);
        verified(&l);
    }
}

#[test]
fn a_signature_over_another_batch_or_selection_or_by_a_forged_key_is_refused() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, true);
        let (proposed, _) = propose(&l, "job-1", 3);
        let (other, _) = propose(&l, "job-2", 3);
        // Signed over the proposal, then the reviewer deselected an item: another digest.
        let before = signed(&record(&proposed, "dec-1"), &service_key());
        let b = deselect(&l, &proposed, 0);
        assert_eq!(
            refused(l.decide_batch(&before)),
            (Code::DecisionMismatch, "/batch_digest".to_owned())
        );
        // The right digest, but silent about the proposal the reviewer deselected from.
        let draft = record(&b, "dec-1");
        let header = Header::from_value(&b.header).unwrap();
        let silent = BatchDecision::decide(&header, &unamended(&b, "dec-1")).unwrap();
        assert_eq!(
            refused(l.decide_batch(&signed(&silent, &service_key()))),
            (Code::DecisionMismatch, "/proposed_digest".to_owned())
        );
        // Another batch's document under this batch's approval id.
        let theirs = Header::from_value(&other.header).unwrap();
        let swapped = BatchDecision::decide(&theirs, &unamended(&b, "dec-1")).unwrap();
        assert_eq!(
            refused(l.decide_batch(&signed(&swapped, &service_key()))),
            (Code::DecisionMismatch, "/batch_digest".to_owned())
        );
        // A key the server does not hold, and a signature that does not verify.
        let forged = signed(&draft, &SigningKey::from_seed(&[9; 32]));
        assert_eq!(refused(l.decide_batch(&forged)).0, Code::UnknownKey);
        let good = signed(&draft, &service_key());
        let text = canonicalize(&good);
        let sig = str_field(
            match field(&good, "signatures") {
                actionseal_core::Value::Array(s) => &s[0],
                _ => panic!("no signatures"),
            },
            "sig",
        )
        .to_owned();
        let flipped = format!(
            "{}{}",
            if sig.starts_with('A') { "B" } else { "A" },
            &sig[1..]
        );
        let bad = json(&text.replace(&sig, &flipped));
        assert_eq!(refused(l.decide_batch(&bad)).0, Code::InvalidSignature);
        // None of them decided anything; the reviewer's own record still does.
        assert_eq!(l.batch(&b.id).unwrap().state, State::AwaitingApproval);
        assert_eq!(l.decide_batch(&good).unwrap().batch.state, State::Approved);
        verified(&l);
    }
}

/// A refund of `amount` for order `order` of job `job`, under `contract`.
fn refund_of(contract: &OwnedValue, job: &str, order: usize, amount: i64) -> OwnedValue {
    action(
        contract,
        &format!(
            r#"{{"order_id": "order-{order}", "amount_minor": {amount}, "currency": "USD",
                "reason": "outage"}}"#
        ),
        job,
        &format!("req-{order}"),
    )
}

/// A bare envelope by `approver` about `b` as it is now, through `links` for user:carol when
/// there are any.
fn bare(b: &Batch, decision_id: &str, approver: &str, links: &[OwnedValue]) -> OwnedValue {
    let mut e = b
        .decision(&DecisionDraft {
            decision_id,
            decision: Decision::Approved,
            approver,
            decided_at: T0,
            expires_at: T0 + HOUR,
        })
        .unwrap()
        .envelope;
    if !links.is_empty() {
        e.on_behalf_of = Some("user:carol".to_owned());
        e.delegation = Some(links.to_vec());
    }
    e.to_value()
}

#[test]
fn a_batch_decision_through_a_delegation_must_hold_for_every_item() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, false);
        let contract = batch_contract(100_000);
        let actions: Vec<OwnedValue> = [100, 150, 300]
            .iter()
            .enumerate()
            .map(|(i, amount)| refund_of(&contract, "job-1", i, *amount))
            .collect();
        let b = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "agent")
            .unwrap();
        // Carol lets bob approve refunds of at most 200 for her.
        let link = json(
            r#"{"delegation_id": "dlg-bob", "delegator": "user:carol", "delegate": "user:bob",
                "tenant": "tenant-a", "tools": ["refund_create"], "not_before": 0,
                "not_after": 9000000000000,
                "when": [{"pointer": "/args/amount_minor", "op": "lte", "value": 200}]}"#,
        );
        let links = vec![link];
        // The third item is outside the delegation: the one decision cannot cover it.
        let e = l
            .decide_batch(&bare(&b, "dec-1", "user:bob", &links))
            .unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::DelegationRefused, "/delegation")
        );
        assert!(e.message().contains("delegation_out_of_scope"), "{e:?}");
        // Without it, the chain covers every item.
        let b = deselect(&l, &b, 2);
        let decided = l
            .decide_batch(&bare(&b, "dec-2", "user:bob", &links))
            .unwrap();
        assert_eq!(decided.batch.state, State::Approved);
        let detail = batch_events(&l, "batch_decided").pop().unwrap();
        assert_eq!(str_field(&detail, "on_behalf_of"), "user:carol");
        let digest = actionseal_core::ledger::link_digest(&links[0]).to_string();
        assert!(canonicalize(field(&detail, "delegations")).contains(&digest));

        // The claim judges the recorded chain again, with the executor's revocation facts.
        let facts = |revoked: bool| {
            json(&format!(
                r#"{{"tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01",
                    "contract": {}, "subject_authorized": {{"subject": "user:alice", "authorized": true}},
                    "approver_authorized": [{{"approver": "user:carol", "authorized": true}}],
                    "delegations_revoked": [{{"delegation": "{digest}", "revoked": {revoked}}}]}}"#,
                canonicalize(&contract)
            ))
        };
        let (f, revoked) = (facts(false), facts(true));
        let out = l
            .claim_item(&claim(
                &b.items[0].0,
                &actions[0],
                &f,
                ProofRequirement::Optional,
            ))
            .unwrap();
        assert!(
            matches!(out, ClaimOutcome::Claimed(..)),
            "{engine:?} {out:?}"
        );
        // Carol revoked it since: the decision no longer holds, the rest goes back.
        let out = l
            .claim_item(&claim(
                &b.items[1].0,
                &actions[1],
                &revoked,
                ProofRequirement::Optional,
            ))
            .unwrap();
        assert_eq!(out.result(), "awaiting_reapproval", "{engine:?}");
        verified(&l);
    }
}

#[test]
fn a_batch_decision_keeps_the_contracts_separation_of_duties() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, false);
        let separate = |duties: &str| {
            json(&canonicalize(&batch_contract(100_000)).replace(
                r#""approval":"always""#,
                &format!(r#""approval":{{"separation":[{duties}],"when":"always"}}"#),
            ))
        };
        let contract = separate(r#""subject","proposer""#);
        let actions = refunds(&contract, "job-1", 2);
        let b = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "user:zed")
            .unwrap();
        // The items' subject, their proposer, and a delegate who is the subject: refused.
        for approver in ["user:alice", "user:zed"] {
            let e = l
                .decide_batch(&bare(&b, "dec-1", approver, &[]))
                .unwrap_err();
            assert_eq!(e.code(), Code::ApproverNotSeparate, "{engine:?} {approver}");
        }
        assert_eq!(l.batch(&b.id).unwrap().state, State::AwaitingApproval);
        // Anyone else decides, and the claim holds the decider to the ledger's proposer.
        l.decide_batch(&bare(&b, "dec-1", "user:bob", &[])).unwrap();
        let f = facts(&contract);
        let out = l
            .claim_item(&claim(
                &b.items[0].0,
                &actions[0],
                &f,
                ProofRequirement::Optional,
            ))
            .unwrap();
        assert!(
            matches!(out, ClaimOutcome::Claimed(..)),
            "{engine:?} {out:?}"
        );

        // A contract that separates the amender takes no batch: who deselected is not kept.
        let amender = separate(r#""amender""#);
        let e = l
            .propose_batch(
                &refunds(&amender, "job-2", 2),
                &amender,
                Semantics::PerItem,
                "x",
            )
            .unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::BatchNotAllowed, "/contract"));
        verified(&l);
    }
}

#[test]
fn revoking_a_batchs_approval_stops_its_unclaimed_items_and_leaves_claimed_ones_in_flight() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = open(&db, &clock, false);
        let (b, actions) = propose(&l, "job-1", 3);
        l.decide_batch(&bare(&b, "dec-1", "user:bob", &[])).unwrap();
        let f = facts(&batch_contract(100_000));
        let ids: Vec<String> = b.items.iter().map(|(id, _)| id.clone()).collect();
        let first = l
            .claim_item(&claim(&ids[0], &actions[0], &f, ProofRequirement::Optional))
            .unwrap();
        let ClaimOutcome::Claimed(claimed, _) = first else {
            panic!("{engine:?} {first:?}");
        };

        let r = l.revoke(&b.approval_id, "user:bob").unwrap();
        assert_eq!((r.task_id.as_str(), r.duplicate), (b.id.as_str(), false));
        assert!(l.revoke(&b.approval_id, "user:bob").unwrap().duplicate);
        // The next claim finds the decision revoked: every remaining item goes back.
        let out = l
            .claim_item(&claim(&ids[1], &actions[1], &f, ProofRequirement::Optional))
            .unwrap();
        assert_eq!(out.result(), "awaiting_reapproval", "{engine:?}");
        assert_eq!(l.task(&ids[2]).unwrap().state, State::AwaitingReapproval);
        // The claimed item is in flight: it finishes as claimed.
        let done = l
            .complete_item(
                &ids[0],
                claimed.fence,
                actionseal_core::ledger::Reported::Succeeded,
                None,
                "worker",
            )
            .unwrap();
        assert_eq!(done.state, State::Succeeded);
        verified(&l);
    }
}
