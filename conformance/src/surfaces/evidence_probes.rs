//! Holding the evidence shapes (`evidence_shapes.rs`) to core with a real export: an in-memory
//! ledger signing its checkpoints with the key of Go's sumdb/note examples records a refund
//! (proposed, a checkpoint a witness cosigns, decided with a signed record, claimed,
//! completed) and exports it, the export's checkpoint cosigned too. Its bundle and the trust
//! that verifies it are the samples of the input shapes, each part probed in its place in
//! them ("core accepts" is `verify_evidence` succeeding); the timeline core writes for them
//! gives the output shapes' members; the checkpoint the ledger made is `LogCheckpoint`.

use crate::decisions::core_value;
use actionseal_core::evidence::verify_evidence;
use actionseal_core::tlog::checkpoint::Checkpoint as Body;
use actionseal_core::tlog::cosignature::Cosigner;
use actionseal_core::tlog::note::{Note, SignerKey};
use actionseal_core::{canonicalize, KeySet, OwnedValue, ProofPolicy};
use actionseal_ledger::{Call, Checkpoint, Ledger, LedgerOptions, ManualClock};
use serde_json::{json, Value as Json};
use std::sync::{Arc, OnceLock};

const LOG_KEY: &str =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";

/// What the sample run wrote.
struct Exported {
    bundle: Json,
    trust: Json,
    checkpoint: Json,
}

fn json_of(v: &OwnedValue) -> Result<Json, String> {
    serde_json::from_str(&canonicalize(v)).map_err(|e| e.to_string())
}

fn value(v: &Json) -> Result<OwnedValue, String> {
    core_value(&v.to_string()).map_err(|e| e.to_string())
}

/// Has `witness` cosign the checkpoint and the ledger keep it.
fn cosigned(l: &Ledger, witness: &Cosigner, c: &Checkpoint) -> actionseal_core::Result<Checkpoint> {
    let note = Note::parse(c.note.as_bytes())?;
    let body = Body::parse(note.text())?;
    let line = witness.cosign(&body, 1_764_500_000)?;
    l.add_cosignatures(c.size, &witness.verifier(), &[line])
}

fn run() -> Result<Exported, String> {
    let err = |e: actionseal_core::Error| e.to_string();
    let signer = SignerKey::parse(LOG_KEY).map_err(err)?;
    let witness = Cosigner::new(SignerKey::from_seed("witness.example", &[7; 32]).map_err(err)?);
    let keys = KeySet::from_value(&value(&super::proof::service_keys())?).map_err(err)?;
    let clock = ManualClock::new(1_764_496_980_000);
    let options = LedgerOptions {
        clock: Arc::new(clock.clone()),
        proof: Some(ProofPolicy::new(false, keys)),
        checkpoint_signer: Some(signer.clone()),
        ..LedgerOptions::default()
    };
    let l = Ledger::open_with("sqlite::memory:", options).map_err(err)?;
    let call = |c: Call, v: Json| -> Result<Json, String> {
        json_of(&l.call(c, &value(&v)?).map_err(|e| format!("{c:?}: {e}"))?)
    };
    let contract = json!({"tool": "refund_create", "version": "1", "effect": "write", "cost_minor": 25,
        "approval": "always", "args": {"type": "object", "properties": {"amount_minor": {"type": "integer"}}}});
    let loaded = actionseal_core::Contract::from_value(&value(&contract)?).map_err(err)?;
    let ids = json!({"tenant": "t", "subject": "user:s", "job_id": "j", "request_id": "r", "policy_version": "p"});
    let ids = value(&ids)?;
    let ids = actionseal_core::ActionIds::from_value(&ids).map_err(err)?;
    let action =
        actionseal_core::Action::build(&loaded, &value(&json!({"amount_minor": 5}))?, &ids)
            .map_err(err)?;
    let action = json_of(action.value())?;
    let task = call(
        Call::Propose,
        json!({"action": action, "contract": contract, "proposer": "agent"}),
    )?;
    // An earlier checkpoint a witness cosigned: the bundle's `witnessed`.
    cosigned(&l, &witness, &l.checkpoint().map_err(err)?).map_err(err)?;
    clock.advance(60_000).unwrap();
    let record = json!({"approval_id": task["approval_id"], "decision_id": "d", "action": action,
        "action_digest": task["action_digest"], "decision": "approved", "approver": "user:b",
        "decided_at": l.now(), "expires_at": l.now() + 3_600_000});
    call(Call::Decide, super::proof::envelope(&record))?;
    let facts = json!({"tenant": "t", "policy_version": "p", "contract": contract,
        "approver_authorized": {"approver": "user:b", "authorized": true},
        "subject_authorized": {"subject": "user:s", "authorized": true}});
    let claim = call(
        Call::Claim,
        json!({"task_id": task["id"], "action": action, "facts": facts, "executor": "w", "lease_ms": 1000}),
    )?;
    call(
        Call::Complete,
        json!({"task_id": task["id"], "fence": claim["claim"]["fence"], "outcome": "succeeded", "executor": "w"}),
    )?;
    let id = task["id"].as_str().unwrap_or_default();
    let mut made = None;
    let bundle = l
        .evidence_with(id, "auditor:carol", None, |c| {
            let c = cosigned(&l, &witness, &c)?;
            // What the bindings' `Ledger.checkpoint` returns.
            made = Some(c.to_value()?);
            Ok(c)
        })
        .map_err(err)?;
    let trust = json!({"ledger_keys": [{"key": signer.verifier().to_string()}],
        "witnesses": {"keys": [witness.verifier().to_string()], "quorum": 1},
        "approval_keys": super::proof::service_keys()});
    Ok(Exported {
        bundle: json_of(&bundle.to_value())?,
        trust,
        checkpoint: json_of(&made.ok_or("no checkpoint was made")?)?,
    })
}

fn exported() -> Result<&'static Exported, String> {
    static RUN: OnceLock<Result<Exported, String>> = OnceLock::new();
    RUN.get_or_init(run).as_ref().map_err(Clone::clone)
}

/// The sample of the input shape `name` (its value in the real export); `None` for a shape
/// not of this room.
pub(super) fn sample(name: &str) -> Option<Result<Json, String>> {
    let pick = |f: fn(&Exported) -> &Json| Some(exported().map(|e| f(e).clone()));
    match name {
        "EvidenceBundle" => pick(|e| &e.bundle),
        "EvidenceEntry" => pick(|e| &e.bundle["events"][0]),
        "EvidenceAnchor" => pick(|e| &e.bundle["checkpoint"]),
        "EvidenceWitnessed" => pick(|e| &e.bundle["witnessed"][0]),
        "EvidenceTrust" => pick(|e| &e.trust),
        "EvidenceLedgerKey" => pick(|e| &e.trust["ledger_keys"][0]),
        "EvidenceWitnesses" => pick(|e| &e.trust["witnesses"]),
        _ => None,
    }
}

/// Whether core verifies the real export with `v` in the place of the input shape `name`;
/// `None` for a shape not of this room.
pub(super) fn core_accepts(name: &str, v: &Json) -> Option<Result<(), String>> {
    let e = match exported() {
        Ok(e) => e,
        Err(why) => return Some(Err(why)),
    };
    let (mut bundle, mut trust) = (e.bundle.clone(), e.trust.clone());
    match name {
        "EvidenceBundle" => bundle = v.clone(),
        "EvidenceEntry" => bundle["events"][0] = v.clone(),
        "EvidenceAnchor" => bundle["checkpoint"] = v.clone(),
        "EvidenceWitnessed" => bundle["witnessed"][0] = v.clone(),
        "EvidenceTrust" => trust = v.clone(),
        "EvidenceLedgerKey" => trust["ledger_keys"][0] = v.clone(),
        "EvidenceWitnesses" => trust["witnesses"] = v.clone(),
        _ => return None,
    }
    Some(verified(&bundle, &trust).map(drop))
}

fn verified(bundle: &Json, trust: &Json) -> Result<Json, String> {
    let timeline = verify_evidence(&value(bundle)?, &value(trust)?).map_err(|e| e.to_string())?;
    json_of(&timeline.to_value())
}

/// The members, sorted, of what core writes for the output shape `name`; `None` for a shape
/// not of this room.
pub(super) fn output_members(name: &str) -> Option<Result<Vec<String>, String>> {
    let pick: fn(&Json) -> &Json = match name {
        "EvidenceTimeline" => |t| t,
        "EvidenceStep" => |t| &t["steps"][0],
        "EvidenceLog" => |t| &t["log"],
        _ => return None,
    };
    let timeline = exported().and_then(|e| verified(&e.bundle, &e.trust));
    Some(timeline.map(|t| {
        let mut keys: Vec<String> = pick(&t)
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    }))
}

/// What the sample run wrote, each with the shape it must have member for member and type for
/// type (`ledger_probes.rs` checks them): the checkpoint, and the bundle, trust and timeline,
/// whose samples above come from the run rather than from their shapes.
pub(super) fn written() -> Result<Vec<(&'static str, Json)>, String> {
    let e = exported()?;
    Ok(vec![
        ("LogCheckpoint", e.checkpoint.clone()),
        ("EvidenceBundle", e.bundle.clone()),
        ("EvidenceTrust", e.trust.clone()),
        ("EvidenceTimeline", verified(&e.bundle, &e.trust)?),
    ])
}
