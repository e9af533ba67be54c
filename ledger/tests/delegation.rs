//! Decisions made through a delegation, in the ledger (issue 25). The chain is verified when
//! the decision arrives: each link's proof against the server's keys at the ledger's clock,
//! then the chain's rules (connection, attenuation, windows, scope). A claim, whose handle
//! holds no keys, reads back the links the ledger verified and judges the rest again, with
//! the executor's revocation facts. Every delegate along a chain is bound by the separation
//! of duties, and a bare link is not proof.

mod common;

use actionseal_core::{
    base64url_encode, canonicalize, sign_approval, sign_delegation, Action, Approval, Code,
    Decision, DecisionInput, KeySet, OwnedValue, ProofPolicy, SigningKey,
};
use actionseal_ledger::{
    ClaimOutcome, ClaimRequest, Ledger, LedgerOptions, ManualClock, ProofRequirement, Task,
};
use common::*;
use std::sync::Arc;

/// The service key that signs for `who` (one per person, allowed to sign only for them).
fn key_of(who: &str) -> SigningKey {
    let seed = match who {
        "user:carol" => 1,
        "user:alice" => 2,
        "user:dave" => 3,
        _ => 4,
    };
    SigningKey::from_seed(&[seed; 32])
}

/// The server's key set: the service keys of carol, alice and dave and the approval
/// service's own key (user:server's), each allowed to sign only for its person, and the
/// approval service's for anyone.
fn server_keys() -> KeySet {
    let entry = |who: &str| {
        let k = key_of(who);
        let approvers = match who {
            "user:server" => String::new(),
            _ => format!(r#", "approvers": ["{who}"]"#),
        };
        format!(
            r#""{}": {{"key": "{}"{approvers}}}"#,
            k.public_key().keyid(),
            base64url_encode(k.public_key().as_bytes())
        )
    };
    let entries: Vec<String> = ["user:carol", "user:alice", "user:dave", "user:server"]
        .iter()
        .map(|w| entry(w))
        .collect();
    KeySet::from_value(&json(&format!(
        r#"{{"service_keys": {{{}}}}}"#,
        entries.join(",")
    )))
    .unwrap()
}

/// Opens the ledger at `db` on `clock`, with the server's keys and `required` (the reviewers'
/// side); an executor opens it with [`Db::open_at`], no keys at all.
fn reviewers(db: &Db, clock: &ManualClock, required: bool) -> Ledger {
    Ledger::open_with(
        &db.url,
        LedgerOptions {
            clock: Arc::new(clock.clone()),
            proof: Some(ProofPolicy::new(required, server_keys())),
            ..LedgerOptions::default()
        },
    )
    .unwrap()
}

/// A delegation document from `from` to `to` over refunds in tenant-a within `[0, until)`,
/// with `extra` members (JSON text starting with a comma, or empty).
fn document(from: &str, to: &str, until: i64, extra: &str) -> OwnedValue {
    json(&format!(
        r#"{{"delegation_id": "dlg-{}", "delegator": "{from}", "delegate": "{to}",
            "tenant": "tenant-a", "tools": ["refund_create"], "not_before": 0,
            "not_after": {until}{extra}}}"#,
        &to[5..]
    ))
}

/// The document signed with its delegator's key.
fn link(from: &str, to: &str, extra: &str) -> OwnedValue {
    sign_delegation(&document(from, to, 9_000_000_000_000, extra), &key_of(from)).unwrap()
}

/// The record the ledger builds for `approver`'s approval of `t`'s round, on behalf of the
/// first link's delegator when `links` is not empty, signed by the approval service.
fn signed_member(t: &Task, id: &str, approver: &str, links: &[OwnedValue], at: i64) -> OwnedValue {
    let action = Action::from_value(t.action.value()).unwrap();
    let root = links.first().map(|_| "user:carol");
    let record = Approval::decide(
        &action,
        &DecisionInput {
            approval_id: t.approval_id.as_deref().unwrap(),
            decision_id: id,
            decision: Decision::Approved,
            approver,
            decided_at: at,
            expires_at: at + HOUR,
            proposed_digest: None,
            role: None,
            on_behalf_of: root,
            delegation: (!links.is_empty()).then_some(links),
        },
    )
    .unwrap();
    sign_approval(record.value(), &key_of("user:server")).unwrap()
}

fn propose(l: &Ledger, job: &str) -> Task {
    let contract = two_of_any();
    let act = action(
        &contract,
        r#"{"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}"#,
        job,
        "req-1",
    );
    l.propose(&act, &contract, "user:zed").unwrap()
}

/// A task of `job` approved by dave for carol through `chain`, then by bob.
fn approved_through(desk: &Ledger, job: &str, chain: &[OwnedValue]) -> Task {
    let t = propose(desk, job);
    desk.decide(&signed_member(
        &t,
        &format!("{job}-dave"),
        "user:dave",
        chain,
        T0,
    ))
    .unwrap();
    desk.decide(&signed_member(
        &t,
        &format!("{job}-bob"),
        "user:bob",
        &[],
        T0,
    ))
    .unwrap()
    .task
}

/// The executor's facts: bob and carol may approve, every link of `links` is not revoked.
fn facts_for(links: &[OwnedValue]) -> OwnedValue {
    let revoked: Vec<String> = links
        .iter()
        .map(|l| {
            let digest = actionseal_core::ledger::link_digest(l);
            format!(r#"{{"delegation": "{digest}", "revoked": false}}"#)
        })
        .collect();
    json(&format!(
        r#"{{"tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01", "contract": {},
            "approver_authorized": [{{"approver": "user:bob", "authorized": true}},
                                    {{"approver": "user:carol", "authorized": true}}],
            "subject_authorized": {{"subject": "user:alice", "authorized": true}},
            "delegations_revoked": [{}]}}"#,
        canonicalize(&two_of_any()),
        revoked.join(",")
    ))
}

fn claim(l: &Ledger, t: &Task, facts: &OwnedValue, proof: ProofRequirement) -> ClaimOutcome {
    l.claim(&ClaimRequest {
        task_id: &t.id,
        action: t.action.value(),
        facts,
        executor: "worker-1",
        lease_ms: HOUR,
        budget: None,
        proof,
    })
    .unwrap()
}

#[test]
fn an_executor_without_keys_claims_a_decision_made_through_a_signed_chain() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let desk = reviewers(&db, &clock, true);
        let chain = [link("user:carol", "user:dave", "")];
        let t = approved_through(&desk, "job-1", &chain);
        assert_eq!(t.state.as_str(), "approved", "{engine:?}");
        // The executor's handle holds no keys: the ledger verified the link on arrival.
        let worker = db.open_at(&clock);
        clock.advance(MINUTE).unwrap();
        let out = claim(&worker, &t, &facts_for(&chain), ProofRequirement::Required);
        let ClaimOutcome::Claimed(c, task) = out else {
            panic!("{engine:?}: {} {:?}", out.result(), out.task().state);
        };
        assert_eq!(task.state.as_str(), "claimed", "{engine:?}");
        assert_eq!(c.approvals.len(), 2, "{engine:?}");
        let task = worker.task(&task.id).unwrap();
        let counted = &task.quorum.as_ref().expect("its quorum").counted;
        assert_eq!(
            (counted[0].approver.as_str(), counted[0].delegate.as_deref()),
            ("user:carol", Some("user:dave")),
            "{engine:?}"
        );
    }
}

#[test]
fn a_claim_still_judges_the_chain_at_its_own_time_and_facts() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let desk = reviewers(&db, &clock, false);
        let chain = [sign_delegation(
            &document("user:carol", "user:dave", T0 + HOUR, ""),
            &key_of("user:carol"),
        )
        .unwrap()];
        let t = approved_through(&desk, "job-1", &chain);
        let worker = db.open_at(&clock);
        // Without a revocation fact about the link, the claim fails closed.
        let out = claim(&worker, &t, &facts_for(&[]), ProofRequirement::Optional);
        assert_eq!(out.result(), "awaiting_reapproval", "{engine:?}");
        assert!(reasons(&out).contains(&"delegation_revoked".to_owned()));
        // The link's window ends before the next round's claim.
        let t = approved_through(&desk, "job-2", &chain);
        clock.advance(2 * HOUR).unwrap();
        let out = claim(&worker, &t, &facts_for(&chain), ProofRequirement::Optional);
        assert!(
            reasons(&out).contains(&"delegation_expired".to_owned()),
            "{engine:?}: {:?}",
            reasons(&out)
        );
    }
}

fn reasons(out: &ClaimOutcome) -> Vec<String> {
    match out {
        ClaimOutcome::Claimed(..) => Vec::new(),
        ClaimOutcome::Drift { verdict, .. }
        | ClaimOutcome::Reapproval { verdict, .. }
        | ClaimOutcome::Rejected { verdict, .. } => verdict
            .reasons
            .iter()
            .map(|r| r.as_str().to_owned())
            .collect(),
    }
}

#[test]
fn a_chain_that_does_not_hold_is_refused_as_the_decision_arrives() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let desk = reviewers(&db, &clock, false);
        let t = propose(&desk, "job-1");
        let refused = |links: &[OwnedValue]| {
            let e = desk
                .decide(&signed_member(&t, "d-1", "user:dave", links, T0))
                .unwrap_err();
            (e.code(), e.path().to_owned(), e.message().to_owned())
        };
        let cases = [
            (
                vec![sign_delegation(
                    &json(
                        &canonicalize(&document("user:carol", "user:dave", 9_000_000_000_000, ""))
                            .replace("refund_create", "refund_void"),
                    ),
                    &key_of("user:carol"),
                )
                .unwrap()],
                Code::DelegationRefused,
                "delegation_out_of_scope",
            ),
            (
                vec![sign_delegation(
                    &document("user:carol", "user:dave", T0, ""),
                    &key_of("user:carol"),
                )
                .unwrap()],
                Code::DelegationRefused,
                "delegation_expired",
            ),
            (
                vec![
                    link("user:carol", "user:dave", ""),
                    link(
                        "user:dave",
                        "user:erin",
                        r#", "when": [{"pointer": "/args/amount_minor", "op": "lte", "value": 1}]"#,
                    ),
                ],
                Code::DelegationRefused,
                "delegation_invalid",
            ),
        ];
        for (links, code, reason) in cases {
            let (c, path, message) = refused(&links);
            assert_eq!((c, path.as_str()), (code, "/delegation"), "{engine:?}");
            assert!(message.contains(reason), "{engine:?}: {message}");
        }
        // A link signed by a key the server does not know, or by one that may not sign for
        // the delegator, keeps the proof's code.
        let stranger = sign_delegation(
            &document("user:carol", "user:dave", 9_000_000_000_000, ""),
            &SigningKey::from_seed(&[9; 32]),
        )
        .unwrap();
        assert_eq!(refused(&[stranger]).0, Code::UnknownKey, "{engine:?}");
        let daves = sign_delegation(
            &document("user:carol", "user:dave", 9_000_000_000_000, ""),
            &key_of("user:dave"),
        )
        .unwrap();
        assert_eq!(refused(&[daves]).0, Code::SignerNotAllowed, "{engine:?}");
        // Nothing counted, nothing changed; each refusal of the chain's rules is in the audit
        // (a proof that fails is refused before the task is read, as a decision's own is).
        let t = desk.task(&t.id).unwrap();
        assert_eq!(t.state.as_str(), "awaiting_approval", "{engine:?}");
        assert!(t.quorum.unwrap().counted.is_empty(), "{engine:?}");
        assert_eq!(
            kinds(&desk, &t.id)
                .iter()
                .filter(|k| *k == "decision_refused")
                .count(),
            3,
            "{engine:?}"
        );
    }
}

#[test]
fn no_one_along_a_chain_may_be_the_subject() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let desk = reviewers(&db, &clock, true);
        let t = propose(&desk, "job-1");
        // Alice, the refund's subject, passes carol's delegation on to dave.
        let chain = [
            link("user:carol", "user:alice", ""),
            link("user:alice", "user:dave", ""),
        ];
        let e = desk
            .decide(&signed_member(&t, "d-1", "user:dave", &chain, T0))
            .unwrap_err();
        assert_eq!(e.code(), Code::ApproverNotSeparate, "{engine:?}");
        assert!(e.message().contains("user:alice"), "{engine:?}: {e}");
    }
}

#[test]
fn a_bare_link_is_not_proof() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let bare = [document("user:carol", "user:dave", 9_000_000_000_000, "")];
        // A ledger that requires proof refuses it as the decision arrives.
        let strict = reviewers(&db, &clock, true);
        let t = propose(&strict, "job-1");
        let e = strict
            .decide(&signed_member(&t, "d-1", "user:dave", &bare, T0))
            .unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::MissingProof, "/delegation/0"),
            "{engine:?}"
        );
        drop(strict);
        // One that does not records it, and a claim that requires proof refuses it.
        let db = Db::fast(engine);
        let desk = reviewers(&db, &clock, false);
        let t = approved_through(&desk, "job-1", &bare);
        let worker = db.open_at(&clock);
        let facts = facts_for(&bare);
        let e = worker
            .claim(&ClaimRequest {
                task_id: &t.id,
                action: t.action.value(),
                facts: &facts,
                executor: "worker-1",
                lease_ms: HOUR,
                budget: None,
                proof: ProofRequirement::Required,
            })
            .unwrap_err();
        assert_eq!(e.code(), Code::MissingProof, "{engine:?}");
        let out = claim(&worker, &t, &facts, ProofRequirement::Optional);
        assert_eq!(out.result(), "claimed", "{engine:?}");
    }
}
