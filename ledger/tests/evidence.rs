//! Evidence bundles on both engines (issue 26): a task's bundle, exported from a real ledger,
//! verifies with core and nothing else (no database), says who proposed, approved (with which
//! key), claimed and completed it, and holds nothing of any other task; an edited, removed,
//! reordered or foreign event, a bundle verified with another ledger key or after that key's
//! retirement, and a retired approval key are each refused at the member that broke.

mod common;

use actionseal_core::batch::Semantics;
use actionseal_core::evidence::verify_evidence;
use actionseal_core::tlog::cosignature::Cosigner;
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::tlog::witness::{add_checkpoint, Log, Request};
use actionseal_core::{
    base64url_encode, canonicalize, sign_approval, sign_delegation, Action, Approval, Code,
    Decision, DecisionInput, OwnedValue, ProofPolicy, SigningKey, Value,
};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, LedgerOptions, ManualClock};
use common::*;
use std::sync::Arc;

fn service_key() -> SigningKey {
    SigningKey::from_seed(&[1; 32])
}

fn approval_keys(valid_until: Option<i64>) -> String {
    let k = service_key();
    let until = valid_until.map_or(String::new(), |u| format!(r#", "valid_until": {u}"#));
    format!(
        r#"{{"service_keys": {{"{}": {{"key": "{}"{until}}}}}}}"#,
        k.public_key().keyid(),
        base64url_encode(k.public_key().as_bytes()),
    )
}

/// The witness of these tests, and its cosignature verifier key.
fn witness() -> Cosigner {
    Cosigner::new(SignerKey::from_seed("witness.example", &[9; 32]).unwrap())
}

fn trust(ledger_key: &str, approval: &str) -> OwnedValue {
    json(&format!(
        r#"{{"ledger_keys": [{ledger_key}], "approval_keys": {approval},
            "witnesses": {{"keys": ["{}"], "quorum": 1}}}}"#,
        witness().verifier()
    ))
}

fn log_key() -> String {
    format!(r#"{{"key": "{LOG_VERIFIER}"}}"#)
}

fn open(db: &Db, clock: &ManualClock) -> Ledger {
    let keys = actionseal_core::KeySet::from_value(&json(&approval_keys(None))).unwrap();
    Ledger::open_with(
        &db.url,
        LedgerOptions {
            clock: Arc::new(clock.clone()),
            proof: Some(ProofPolicy::new(false, keys)),
            checkpoint_signer: Some(SignerKey::parse(LOG_KEY).unwrap()),
            ..LedgerOptions::default()
        },
    )
    .unwrap()
}

/// A refund proposed, approved with a signed record, claimed and completed; returns its id.
fn signed_refund(l: &Ledger, clock: &ManualClock, job: &str) -> String {
    let (contract, act) = (refund_contract(), refund(job, "req-1", 2500));
    let t = l.propose(&act, &contract, "agent:7").unwrap();
    clock.advance(MINUTE).unwrap();
    let input = DecisionInput {
        approval_id: t.approval_id.as_deref().unwrap(),
        decision_id: &format!("d-{job}"),
        decision: Decision::Approved,
        approver: "user:bob",
        decided_at: l.now(),
        expires_at: l.now() + HOUR,
        proposed_digest: None,
        role: None,
        on_behalf_of: None,
        delegation: None,
    };
    let action = Action::from_value(&act).unwrap();
    let record = Approval::decide(&action, &input).unwrap();
    let signed = sign_approval(record.value(), &service_key()).unwrap();
    l.decide(&signed).unwrap();
    clock.advance(MINUTE).unwrap();
    let out = claim_under(l, &t.id, &act, &contract, "worker-1").unwrap();
    let ClaimOutcome::Claimed(c, _) = out else {
        panic!("not claimed: {}", out.result())
    };
    clock.advance(MINUTE).unwrap();
    l.complete(
        &t.id,
        c.fence,
        actionseal_core::ledger::Reported::Succeeded,
        None,
        "worker-1",
    )
    .unwrap();
    t.id
}

/// Has the latest checkpoint cosigned by the test's witness at `seconds`.
fn cosign(
    l: &Ledger,
    checkpoint: actionseal_ledger::Checkpoint,
    seconds: u64,
) -> actionseal_ledger::Checkpoint {
    let request: Request = l.witness_request(0).unwrap();
    let log = Log::new(
        request.checkpoint().origin(),
        vec![actionseal_core::tlog::note::VerifierKey::parse(LOG_VERIFIER).unwrap()],
    );
    let cosigned = add_checkpoint(&log, None, &request, &witness(), seconds)
        .unwrap_or_else(|r| panic!("{}", r.error()));
    l.add_cosignatures(
        checkpoint.size,
        &witness().verifier(),
        &[cosigned.cosignature],
    )
    .unwrap()
}

fn bundle_value(b: &actionseal_core::evidence::Bundle) -> OwnedValue {
    // Through its text, as a file would carry it.
    json(&canonicalize(&b.to_value()))
}

fn refused(bundle: &OwnedValue, trust: &OwnedValue) -> (Code, String) {
    let e = verify_evidence(bundle, trust).unwrap_err();
    (e.code(), e.path().to_owned())
}

/// `v` with the member at `pointer` replaced by `to` (edited as a file would be).
fn set(v: &mut OwnedValue, pointer: &[&str], to: OwnedValue) {
    let mut doc: serde_json::Value = serde_json::from_str(&canonicalize(v)).unwrap();
    *doc.pointer_mut(&format!("/{}", pointer.join("/"))).unwrap() =
        serde_json::from_str(&canonicalize(&to)).unwrap();
    *v = json(&doc.to_string());
}

fn get(v: &OwnedValue, pointer: &[&str]) -> OwnedValue {
    let doc: serde_json::Value = serde_json::from_str(&canonicalize(v)).unwrap();
    json(
        &doc.pointer(&format!("/{}", pointer.join("/")))
            .unwrap()
            .to_string(),
    )
}

/// A ledger on one engine, its clock from `T0`, and the database it lives in.
struct Fixture {
    // Dropped before its database.
    l: Ledger,
    clock: ManualClock,
    db: Db,
}

impl Fixture {
    fn new(engine: Engine) -> Fixture {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        Fixture {
            l: open(&db, &clock),
            clock,
            db,
        }
    }

    /// A signed refund of `job`, proposed to completion: its task's id.
    fn refund(&self, job: &str) -> String {
        signed_refund(&self.l, &self.clock, job)
    }

    /// The bundle of `task`, its checkpoint cosigned by the test's witness at `seconds`.
    fn bundle(&self, task: &str, seconds: u64) -> OwnedValue {
        let l = &self.l;
        bundle_value(
            &l.evidence_with(task, "auditor:carol", None, |c| Ok(cosign(l, c, seconds)))
                .unwrap_or_else(|e| panic!("{:?}: {e}", self.db.engine)),
        )
    }
}

#[test]
fn a_signed_refund_verifies_offline_with_its_timeline() {
    for engine in engines() {
        let f = Fixture::new(engine);
        let other = f.refund("job-other");
        let id = f.refund("job-1");
        let bundle = f.bundle(&id, 1_764_500_000);
        let text = canonicalize(&bundle);
        assert!(
            !text.contains(&other),
            "{engine:?}: the bundle names another task"
        );
        assert!(
            !text.contains("job-other"),
            "{engine:?}: another task's job"
        );
        let timeline = verify_evidence(&bundle, &trust(&log_key(), &approval_keys(None)))
            .unwrap_or_else(|e| panic!("{engine:?}: {e}"))
            .to_value();
        if std::env::var_os("EVIDENCE_PRINT").is_some() {
            println!("{}\n{}", canonicalize(&bundle), canonicalize(&timeline));
        }
        let Value::Array(steps) = get(&timeline, &["steps"]) else {
            panic!("no steps")
        };
        let step_kinds: Vec<String> = steps
            .iter()
            .map(|s| get(s, &["kind"]).as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            step_kinds,
            ["proposed", "decided", "claimed", "completed"],
            "{engine:?}"
        );
        assert_eq!(get(&steps[0], &["actor"]).as_str(), Some("agent:7"));
        assert_eq!(get(&steps[1], &["actor"]).as_str(), Some("user:bob"));
        assert_eq!(
            get(&steps[1], &["signer", "keyid"]).as_str(),
            Some(service_key().public_key().keyid())
        );
        assert_eq!(get(&steps[2], &["actor"]).as_str(), Some("worker-1"));
        assert_eq!(get(&timeline, &["state"]).as_str(), Some("succeeded"));
        assert_eq!(
            get(&timeline, &["exported_by"]).as_str(),
            Some("auditor:carol")
        );
        assert_eq!(
            get(&timeline, &["log", "time_source"]).as_str(),
            Some("witness")
        );
        assert_eq!(
            get(&timeline, &["log", "witnesses"]),
            json(r#"["witness.example"]"#)
        );
        // The export is in the audit, and the ledger's own audit still verifies.
        assert!(kinds(&f.l, &id).ends_with(&["evidence_exported".to_owned()]));
        assert!(f.l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

#[test]
fn tampering_is_refused_at_the_member_that_broke() {
    for engine in engines() {
        let f = Fixture::new(engine);
        let other = f.refund("job-other");
        let id = f.refund("job-1");
        let bundle = f.bundle(&id, 1_764_500_000);
        let other_bundle = f.bundle(&other, 1_764_500_100);
        let trust = trust(&log_key(), &approval_keys(None));
        let case = |name: &str, edit: &dyn Fn(&mut OwnedValue), want: (Code, &str)| {
            let mut b = bundle.clone();
            edit(&mut b);
            let (code, path) = refused(&b, &trust);
            assert_eq!((code, path.as_str()), want, "{engine:?}: {name}");
        };
        case(
            "an event edited",
            &|b| set(b, &["events", "2", "event", "actor"], json(r#""worker-2""#)),
            (Code::InclusionProofInvalid, "/events/2/proof"),
        );
        case(
            "an event removed",
            &|b| {
                let Value::Array(events) = get(b, &["events"]) else {
                    panic!()
                };
                let kept: Vec<OwnedValue> = events
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| *i != 2)
                    .map(|(_, e)| e)
                    .collect();
                set(b, &["events"], Value::Array(kept));
            },
            (Code::EvidenceIncomplete, "/events/2"),
        );
        case(
            "two events reordered",
            &|b| {
                let Value::Array(mut events) = get(b, &["events"]) else {
                    panic!()
                };
                events.swap(1, 2);
                set(b, &["events"], Value::Array(events));
            },
            (Code::EvidenceIncomplete, "/events/2/index"),
        );
        case(
            "another task's event",
            &|b| {
                let foreign = get(&other_bundle, &["events", "1"]);
                set(b, &["events", "1"], foreign);
            },
            (Code::EvidenceOtherTask, "/events/1/event/task"),
        );
        case(
            "a proof for another checkpoint",
            &|b| {
                let proof = get(&other_bundle, &["events", "1", "proof"]);
                set(b, &["events", "1", "proof"], proof);
            },
            (Code::InclusionProofInvalid, "/events/1/proof"),
        );
        case(
            "the approved amount",
            &|b| set(b, &["actions", "0", "args", "amount_minor"], json("250000")),
            (Code::EvidenceMismatch, "/actions/0"),
        );
        // Verified against another ledger's key, the checkpoint is not trusted.
        let stranger = SignerKey::from_seed("PeterNeumann", &[3; 32])
            .unwrap()
            .verifier();
        let (code, path) = refused(
            &bundle,
            &self::trust(&format!(r#"{{"key": "{stranger}"}}"#), &approval_keys(None)),
        );
        assert_eq!(
            (code, path.as_str()),
            (Code::CheckpointUntrusted, "/checkpoint/note")
        );
    }
}

#[test]
fn rotated_keys_keep_old_bundles_verifying() {
    for engine in engines() {
        let f = Fixture::new(engine);
        let id = f.refund("job-1");
        let cosigned_at: u64 = 1_764_500_000;
        let bundle = f.bundle(&id, cosigned_at);
        let ms = cosigned_at as i64 * 1000;
        // The ledger's key was retired after the witness saw the checkpoint, and the approval
        // key after the ledger recorded the decision: the bundle still verifies.
        let retired = format!(r#"{{"key": "{LOG_VERIFIER}", "valid_until": {}}}"#, ms + 1);
        verify_evidence(&bundle, &trust(&retired, &approval_keys(Some(T0 + HOUR))))
            .unwrap_or_else(|e| panic!("{engine:?}: {e}"));
        // A ledger key retired before the checkpoint's independent time cannot vouch for it.
        let early = format!(r#"{{"key": "{LOG_VERIFIER}", "valid_until": {ms}}}"#);
        let (code, path) = refused(&bundle, &trust(&early, &approval_keys(None)));
        assert_eq!(
            (code, path.as_str()),
            (Code::CheckpointUntrusted, "/checkpoint/note")
        );
        // An approval key retired before the ledger recorded the decision.
        let (code, path) = refused(&bundle, &trust(&log_key(), &approval_keys(Some(T0))));
        assert_eq!(path, "/decisions/0", "{engine:?}: {code}");
    }
}

#[test]
fn a_task_from_before_kept_contracts_needs_its_contract() {
    for engine in engines() {
        let f = Fixture::new(engine);
        let (l, id) = (&f.l, f.refund("job-1"));
        f.db.sql("DELETE FROM ledger_contracts");
        let e = l.evidence(&id, "auditor:carol", None).unwrap_err();
        assert_eq!(e.code(), Code::InvalidRequest, "{engine:?}: {e}");
        let b = l
            .evidence(&id, "auditor:carol", Some(&refund_contract()))
            .unwrap();
        let trust = json(&format!(
            r#"{{"ledger_keys": [{}], "approval_keys": {}}}"#,
            log_key(),
            approval_keys(None)
        ));
        verify_evidence(&bundle_value(&b), &trust).unwrap_or_else(|e| panic!("{engine:?}: {e}"));
        let e = l
            .evidence(&id, "auditor:carol", Some(&lookup_contract()))
            .unwrap_err();
        assert_eq!(e.code(), Code::EvidenceMismatch, "{engine:?}: {e}");
    }
}

#[test]
fn a_contract_other_than_the_kept_one_is_refused_before_anything_is_recorded() {
    for engine in engines() {
        let f = Fixture::new(engine);
        let id = f.refund("job-1");
        let before = kinds(&f.l, &id);
        let e =
            f.l.evidence(&id, "auditor:carol", Some(&lookup_contract()))
                .unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::EvidenceMismatch, "/contract"),
            "{engine:?}: {e}"
        );
        assert_eq!(kinds(&f.l, &id), before, "{engine:?}: an export recorded");
        assert!(f.l.checkpoints().unwrap().is_empty(), "{engine:?}");
        // The kept contract itself, passed again, is no mismatch.
        let b =
            f.l.evidence(&id, "auditor:carol", Some(&refund_contract()))
                .unwrap_or_else(|e| panic!("{engine:?}: {e}"));
        assert_eq!(
            canonicalize(&b.contract),
            canonicalize(&refund_contract()),
            "{engine:?}"
        );
    }
}

/// The batchable refund tool, and three refunds of job-batch under it.
fn batch_refunds() -> (OwnedValue, Vec<OwnedValue>) {
    let contract = batch_contract(100_000);
    let actions = refunds(&contract, "job-batch", 3);
    (contract, actions)
}

impl Fixture {
    /// `b` approved bare by user:bob, for an hour.
    fn approve_batch(&self, b: &actionseal_ledger::Batch, decision_id: &str) {
        self.approve_batch_acting(b, decision_id, "");
    }

    /// [`Fixture::approve_batch`] with `acting`'s members too (JSON text starting with a
    /// comma, or empty): whom bob decides for, and through which delegation.
    fn approve_batch_acting(&self, b: &actionseal_ledger::Batch, decision_id: &str, acting: &str) {
        let l = &self.l;
        let decision = json(&format!(
            r#"{{"approval_id": "{}", "decision_id": "{decision_id}", "batch_id": "{}",
                "batch_digest": "{}", "decision": "approved", "approver": "user:bob",
                "decided_at": {}, "expires_at": {}{acting}}}"#,
            b.approval_id,
            b.id,
            b.digest,
            l.now(),
            l.now() + HOUR
        ));
        l.decide_batch(&decision).unwrap();
        self.clock.advance(MINUTE).unwrap();
    }

    /// `b` approved by user:bob with a record signed by the service key, for an hour.
    fn approve_batch_signed(&self, b: &actionseal_ledger::Batch, decision_id: &str) {
        let l = &self.l;
        let drafted = b
            .decision(&actionseal_ledger::DecisionDraft {
                decision_id,
                decision: Decision::Approved,
                approver: "user:bob",
                decided_at: l.now(),
                expires_at: l.now() + HOUR,
            })
            .unwrap();
        let signed = sign_approval(drafted.record.value(), &service_key()).unwrap();
        l.decide_batch(&signed).unwrap();
        self.clock.advance(MINUTE).unwrap();
    }

    /// Claims item `item` of a batch presenting `action`, under `facts`: the claim's outcome.
    fn claim_item(&self, facts: &OwnedValue, item: &str, action: &OwnedValue) -> ClaimOutcome {
        self.l
            .claim_item(&ClaimRequest {
                task_id: item,
                action,
                facts,
                executor: "worker-1",
                lease_ms: HOUR,
                budget: None,
                proof: Default::default(),
            })
            .unwrap()
    }

    /// Claims item `item` under the contract's usual facts and completes it as succeeded.
    fn run_item(&self, contract: &OwnedValue, item: &str, action: &OwnedValue) {
        self.run_item_under(&facts(contract), item, action);
    }

    /// Claims item `item` under `facts` and completes it as succeeded.
    fn run_item_under(&self, facts: &OwnedValue, item: &str, action: &OwnedValue) {
        let claimed = self.claim_item(facts, item, action);
        let ClaimOutcome::Claimed(c, _) = claimed else {
            panic!("{item} not claimed: {}", claimed.result())
        };
        self.clock.advance(MINUTE).unwrap();
        let done = actionseal_core::ledger::Reported::Succeeded;
        self.l
            .complete_item(item, c.fence, done, None, "worker-1")
            .unwrap();
    }
}

#[test]
fn a_batch_item_verifies_offline_through_its_inclusion_proof() {
    for engine in engines() {
        let f = Fixture::new(engine);
        let (contract, actions) = batch_refunds();
        let b =
            f.l.propose_batch(&actions, &contract, Semantics::PerItem, "agent:7")
                .unwrap();
        f.clock.advance(MINUTE).unwrap();
        f.approve_batch(&b, "d-batch");
        let item = b.items[1].0.clone();
        f.run_item(&contract, &item, &actions[1]);
        let bundle = f.bundle(&item, 1_764_500_000);
        let trust = trust(&log_key(), &approval_keys(None));
        let timeline = verify_evidence(&bundle, &trust)
            .unwrap_or_else(|e| panic!("{engine:?}: {e}"))
            .to_value();
        let Value::Array(steps) = get(&timeline, &["steps"]) else {
            panic!("no steps")
        };
        let step_kinds: Vec<&str> = steps
            .iter()
            .map(|s| field(s, "kind").as_str().unwrap())
            .collect();
        assert_eq!(
            step_kinds,
            ["proposed", "decided", "claimed", "completed"],
            "{engine:?}"
        );
        // The bundle holds the batch's decision and item 1's proof, never another item.
        let record = get(&bundle, &["decisions", "0"]);
        assert_eq!(
            field(&record, "batch_digest").as_str(),
            Some(b.digest.to_string().as_str())
        );
        assert_eq!(get(&bundle, &["in_batch", "0", "index"]), json("1"));
        let text = canonicalize(&bundle);
        assert!(
            !text.contains("order-0") && !text.contains("order-2"),
            "{engine:?}"
        );

        // Item 1's proof presented for item 0's place, a decision about another batch, or
        // no proof at all: each refused where it broke.
        let mut moved = bundle.clone();
        set(&mut moved, &["in_batch", "0", "index"], json("0"));
        assert_eq!(
            refused(&moved, &trust),
            (Code::NotInBatch, "/in_batch/0".to_owned()),
            "{engine:?}"
        );
        let mut other = bundle.clone();
        // A well-formed root of another batch (32 zero bytes, base64).
        let root = "A".repeat(43) + "=";
        set(
            &mut other,
            &["decisions", "0", "batch", "root"],
            json(&format!("\"{root}\"")),
        );
        assert_eq!(
            refused(&other, &trust),
            (Code::EvidenceMismatch, "/decisions/0/batch".to_owned()),
            "{engine:?}"
        );
        let mut bare = bundle.clone();
        set(&mut bare, &["in_batch", "0"], json("null"));
        assert_eq!(
            refused(&bare, &trust),
            (Code::EvidenceMismatch, "/in_batch/0".to_owned()),
            "{engine:?}"
        );
        assert!(f.l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

#[test]
fn an_item_decided_twice_holds_its_proof_in_each_batch() {
    for engine in engines() {
        let f = Fixture::new(engine);
        let (contract, actions) = batch_refunds();
        let l = &f.l;
        let first = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "agent:7")
            .unwrap();
        f.approve_batch(&first, "d-first");
        let ids: Vec<String> = first.items.iter().map(|(id, _)| id.clone()).collect();
        f.run_item(&contract, &ids[0], &actions[0]);
        // The decision runs out: items 1 and 2 wait, over a batch of their own.
        f.clock.advance(2 * HOUR).unwrap();
        let out = f.claim_item(&facts(&contract), &ids[2], &actions[2]);
        assert_eq!(out.result(), "awaiting_reapproval", "{engine:?}");
        let rest = last_batch(l);
        f.approve_batch(&rest, "d-rest");
        f.run_item(&contract, &ids[2], &actions[2]);

        let bundle = f.bundle(&ids[2], 1_764_500_000);
        verify_evidence(&bundle, &trust(&log_key(), &approval_keys(None)))
            .unwrap_or_else(|e| panic!("{engine:?}: {e}"));
        // Item 2 was third of three, then second of the two left.
        assert_eq!(get(&bundle, &["in_batch", "0", "index"]), json("2"));
        assert_eq!(get(&bundle, &["in_batch", "1", "index"]), json("1"));
        let digests: Vec<OwnedValue> = (0..2)
            .map(|k| get(&bundle, &["decisions", &k.to_string(), "batch_digest"]))
            .collect();
        assert_eq!(
            digests,
            [first.digest, rest.digest].map(|d| json(&format!("\"{d}\""))),
            "{engine:?}"
        );
        // The second batch's proof under the first batch's decision does not verify.
        let mut swapped = bundle.clone();
        set(
            &mut swapped,
            &["in_batch", "0"],
            get(&bundle, &["in_batch", "1"]),
        );
        assert_eq!(
            refused(&swapped, &trust(&log_key(), &approval_keys(None))).1,
            "/in_batch/0",
            "{engine:?}"
        );
    }
}

#[test]
fn a_batch_item_decided_with_a_signed_record_names_its_signer_offline() {
    for engine in engines() {
        let f = Fixture::new(engine);
        let (contract, actions) = batch_refunds();
        let b =
            f.l.propose_batch(&actions, &contract, Semantics::PerItem, "agent:7")
                .unwrap();
        f.approve_batch_signed(&b, "d-signed");
        let item = b.items[2].0.clone();
        f.run_item(&contract, &item, &actions[2]);
        let bundle = f.bundle(&item, 1_764_500_000);
        let trusted = trust(&log_key(), &approval_keys(None));
        let timeline = verify_evidence(&bundle, &trusted)
            .unwrap_or_else(|e| panic!("{engine:?}: {e}"))
            .to_value();
        assert_eq!(
            get(&timeline, &["steps", "1", "signer", "keyid"]).as_str(),
            Some(service_key().public_key().keyid()),
            "{engine:?}"
        );
        // The record travels signed: its payload, not the bare record.
        assert!(field(&get(&bundle, &["decisions", "0"]), "payloadType")
            .as_str()
            .is_some());
        // The same bundle under a verifier that trusts another approval key: refused.
        let other = SigningKey::from_seed(&[7; 32]);
        let untrusted = format!(
            r#"{{"service_keys": {{"{}": {{"key": "{}"}}}}}}"#,
            other.public_key().keyid(),
            base64url_encode(other.public_key().as_bytes()),
        );
        let (code, path) = refused(&bundle, &trust(&log_key(), &untrusted));
        assert_eq!(
            (code, path.as_str()),
            (Code::UnknownKey, "/decisions/0/signatures/0/keyid"),
            "{engine:?}"
        );
        assert!(f.l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

#[test]
fn a_batch_item_decided_through_a_delegation_verifies_offline_with_its_chain() {
    // The verifier holds the chain to the item's own action at the decided event's time, as
    // the ledger held it to every item when the decision arrived: an honest ledger's bundle
    // passes, on both engines.
    for engine in engines() {
        let f = Fixture::new(engine);
        let (contract, actions) = batch_refunds();
        let b =
            f.l.propose_batch(&actions, &contract, Semantics::PerItem, "agent:7")
                .unwrap();
        let link = sign_delegation(
            &json(
                r#"{"delegation_id": "dlg-bob", "delegator": "user:carol", "delegate": "user:bob",
                    "tenant": "tenant-a", "tools": ["refund_create"], "not_before": 0,
                    "not_after": 9000000000000}"#,
            ),
            &service_key(),
        )
        .unwrap();
        let acting = format!(
            r#", "on_behalf_of": "user:carol", "delegation": [{}]"#,
            canonicalize(&link)
        );
        f.approve_batch_acting(&b, "d-delegated", &acting);
        // The executor states that carol may approve and that her link is not revoked.
        let facts = json(&format!(
            r#"{{"tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01",
                "contract": {}, "subject_authorized": {{"subject": "user:alice", "authorized": true}},
                "approver_authorized": {{"approver": "user:carol", "authorized": true}},
                "delegations_revoked": [{{"delegation": "{}", "revoked": false}}]}}"#,
            canonicalize(&contract),
            actionseal_core::ledger::link_digest(&link)
        ));
        let item = b.items[0].0.clone();
        f.run_item_under(&facts, &item, &actions[0]);
        let bundle = f.bundle(&item, 1_764_500_000);
        let timeline = verify_evidence(&bundle, &trust(&log_key(), &approval_keys(None)))
            .unwrap_or_else(|e| panic!("{engine:?}: {e}"))
            .to_value();
        assert_eq!(
            get(&timeline, &["steps", "1", "on_behalf_of"]).as_str(),
            Some("user:carol"),
            "{engine:?}"
        );
        assert!(f.l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}
