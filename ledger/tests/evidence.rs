//! Evidence bundles on both engines (issue 26): a task's bundle, exported from a real ledger,
//! verifies with core and nothing else (no database), says who proposed, approved (with which
//! key), claimed and completed it, and holds nothing of any other task; an edited, removed,
//! reordered or foreign event, a bundle verified with another ledger key or after that key's
//! retirement, and a retired approval key are each refused at the member that broke.

mod common;

use actionseal_core::evidence::verify_evidence;
use actionseal_core::tlog::cosignature::Cosigner;
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::tlog::witness::{add_checkpoint, Log, Request};
use actionseal_core::{
    base64url_encode, canonicalize, sign_approval, Action, Approval, Code, Decision, DecisionInput,
    OwnedValue, ProofPolicy, SigningKey, Value,
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
    clock.advance(MINUTE);
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
    clock.advance(MINUTE);
    let out = l
        .claim(&ClaimRequest {
            task_id: &t.id,
            action: &act,
            facts: &facts(&contract),
            executor: "worker-1",
            lease_ms: HOUR,
            budget: None,
            proof: Default::default(),
        })
        .unwrap();
    let ClaimOutcome::Claimed(c, _) = out else {
        panic!("not claimed: {}", out.result())
    };
    clock.advance(MINUTE);
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
