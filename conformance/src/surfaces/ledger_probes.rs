//! Holding the ledger's shapes to the ledger. Inputs are held to core's readers as the model's
//! shapes are (a sample is accepted; every field left out or retyped is refused). Outputs are
//! held to what a real ledger writes: an in-memory ledger runs every operation, and each result
//! must have exactly the shape's members, each of its type, every nullable member seen with a
//! value at least once, and every member of a union seen where the union says.

use super::ledger::{shapes, unions};
use super::shape_types::{all_fields, shape, Shape, Ty};
use crate::decisions::json_value;
use actionseal_core::ledger::{self, request, DecisionEnvelope, EventKind};
use actionseal_core::{Action, Contract};
use actionseal_ledger::{Call, Ledger, LedgerOptions, ManualClock};
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

fn value(text: &Json) -> Result<actionseal_core::OwnedValue, String> {
    crate::decisions::core_value(&text.to_string()).map_err(|e| e.to_string())
}

/// Whether core's reader of the ledger input `name` accepts `v`; `None` for a name that is
/// not one.
pub fn core_accepts(name: &str, v: &Json) -> Option<Result<(), String>> {
    let value = match value(v) {
        Ok(x) => x,
        Err(e) => return Some(Err(e)),
    };
    let facts = |f: &actionseal_core::Value<'_>| ledger::context(f, 0, None).map(drop);
    let r = match name {
        "TaskIdentity" => request::TaskIdentity::from_value(&value).map(drop),
        "SetProofRequirementRequest" => request::SetProofRequirement::from_value(&value).map(drop),
        "ProposeRequest" => request::Propose::from_value(&value).and_then(|r| {
            Action::from_value(r.action)?;
            Contract::from_value(r.contract).map(drop)
        }),
        "AmendRequest" => request::Amend::from_value(&value).and_then(|r| {
            Action::from_value(&r.amendment.action)?;
            Contract::from_value(r.contract).map(drop)
        }),
        "DecisionEnvelope" => DecisionEnvelope::from_value(&value).map(drop),
        "ClaimFacts" => facts(&value),
        "ClaimRequest" => request::Claim::from_value(&value).and_then(|r| {
            Action::from_value(r.action)?;
            facts(r.facts)
        }),
        "CompleteRequest" => request::Complete::from_value(&value).map(drop),
        "ReconcileRequest" => request::Reconcile::from_value(&value).map(drop),
        "RevokeRequest" => request::Revoke::from_value(&value).map(drop),
        "BudgetLimit" => request::SetBudget::from_value(&value).map(drop),
        "RedactRequest" => request::Redact::from_value(&value).map(drop),
        "RetentionRequest" => request::SetRetention::from_value(&value).map(drop),
        "TaskFilter" => request::Filter::from_value(&value).map(drop),
        "PageQuery" => request::PageQuery::from_value(&value).map(drop),
        "WaitRequest" => request::Wait::from_value(&value).map(drop),
        "ChangesRequest" => request::Changes::from_value(&value).map(drop),
        "AuditHead" => request::heads(&json_value(&format!("[{v}]"))).map(drop),
        "ExportedHeads" => ledger::ExportedHeads::from_value(&value).map(drop),
        _ => return super::ledger_batch::core_accepts(name, v),
    };
    Some(r.map_err(|e| e.to_string()))
}

/// Where `ClaimFacts` and core's claim disagree: its members must be exactly the facts a
/// claim takes (`FACT_FIELDS`; a probe cannot see an optional fact the shape leaves out), and
/// each fact but `contract` (a document there, not a `Contract`) goes into the check's
/// context as it is, so it must have `CheckContext`'s type.
pub fn fact_problems(all: &[Shape]) -> Vec<String> {
    let facts = all_fields(all, shape(all, "ClaimFacts"));
    let context = all_fields(all, shape(all, "CheckContext"));
    let mut named: Vec<&str> = facts.iter().map(|f| f.name).collect();
    let mut core = ledger::FACT_FIELDS.to_vec();
    named.sort_unstable();
    core.sort_unstable();
    let mut problems = Vec::new();
    if named != core {
        problems.push(format!(
            "ClaimFacts: a claim takes the facts {core:?}, the shape has {named:?}"
        ));
    }
    for f in facts.iter().filter(|f| f.name != "contract") {
        match context.iter().find(|c| c.name == f.name) {
            Some(c) if c.ty == f.ty && c.optional == f.optional => {}
            _ => problems.push(format!(
                "ClaimFacts.{}: not typed as CheckContext.{0}, where the claim puts it",
                f.name
            )),
        }
    }
    problems
}

// ---------------------------------------------------------------------------------------
// Outputs

/// What the checks of the outputs saw.
#[derive(Default)]
struct Seen {
    /// (shape, field) seen with a value other than `null`.
    present: BTreeSet<(String, String)>,
    /// Union members seen.
    members: BTreeMap<String, BTreeSet<String>>,
}

fn conforms(
    all: &[Shape],
    ty: &Ty,
    v: &Json,
    at: &str,
    seen: &mut Seen,
    problems: &mut Vec<String>,
) {
    let mut bad =
        |what: &str| problems.push(format!("{at}: expected {what}, the ledger wrote {v}"));
    match ty {
        Ty::Str | Ty::Identity | Ty::Disclosure => {
            if !v.is_string() {
                bad("a string")
            }
        }
        Ty::Digest => {
            if v.as_str()
                .is_none_or(|s| s.parse::<actionseal_core::Digest>().is_err())
            {
                bad("a digest")
            }
        }
        Ty::Millis | Ty::Int => {
            if !v.is_i64() {
                bad("an integer")
            }
        }
        Ty::Bool => {
            if !v.is_boolean() {
                bad("a boolean")
            }
        }
        Ty::OneOf(m) => {
            if !v.as_str().is_some_and(|s| m.contains(&s)) {
                bad(&format!("one of {m:?}"))
            }
        }
        Ty::Object => {
            if !v.is_object() {
                bad("an object")
            }
        }
        Ty::Unknown => {}
        Ty::Nullable(t) => {
            if !v.is_null() {
                conforms(all, t, v, at, seen, problems)
            }
        }
        Ty::List(t) => match v.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    conforms(all, t, item, &format!("{at}/{i}"), seen, problems);
                }
            }
            None => bad("a list"),
        },
        Ty::Shape(name) => {
            if let Some(u) = unions().into_iter().find(|u| u.name == *name) {
                match v.as_str() {
                    Some(s) if u.members.contains(&s) => {
                        seen.members
                            .entry(u.name.into())
                            .or_default()
                            .insert(s.into());
                    }
                    _ => bad(&format!("one of {name}")),
                }
                return;
            }
            if matches!(*name, "ErrorCode" | "Reason" | "Outcome") {
                if !v.is_string() {
                    bad("a string")
                }
                return;
            }
            let s = shape(all, name);
            let Some(obj) = v.as_object() else {
                return bad(&format!("a {name}"));
            };
            // An optional member the ledger left out is not described as written.
            let fields: Vec<_> = all_fields(all, s)
                .into_iter()
                .filter(|f| !f.optional || obj.contains_key(f.name))
                .collect();
            let mut want: Vec<&str> = fields.iter().map(|f| f.name).collect();
            let mut got: Vec<&str> = obj.keys().map(String::as_str).collect();
            want.sort_unstable();
            got.sort_unstable();
            if want != got {
                problems.push(format!(
                    "{at}: {name} has {want:?}, the ledger wrote {got:?}"
                ));
                return;
            }
            for f in fields {
                let x = &obj[f.name];
                if !x.is_null() {
                    seen.present.insert((name.to_string(), f.name.to_owned()));
                }
                conforms(all, &f.ty, x, &format!("{at}/{}", f.name), seen, problems);
            }
        }
        Ty::Map(t) => match v.as_object() {
            Some(m) => {
                for (k, item) in m {
                    conforms(all, t, item, &format!("{at}/{k}"), seen, problems);
                }
            }
            None => bad("an object"),
        },
        // One of the types: the first that fits without a problem.
        Ty::Either(tys) => {
            let fits = tys.iter().any(|t| {
                let mut trial = Vec::new();
                conforms(all, t, v, at, seen, &mut trial);
                trial.is_empty()
            });
            if !fits {
                bad("one of the alternatives")
            }
        }
        // A contract document written back as it was given (an evidence bundle's).
        Ty::ApprovalRule => {
            if !(v.is_string() || v.is_object()) {
                bad("an approval rule")
            }
        }
        Ty::Contract | Ty::ContractOrDocument => bad("no contract in an output"),
    }
}

/// Runs every operation of an in-memory ledger; returns each result with the shape it must
/// have.
fn outputs() -> Result<Vec<(&'static str, Json)>, String> {
    let contract = json!({"tool": "refund_create", "version": "1", "effect": "write", "cost_minor": 25,
        "approval": "always", "args": {"type": "object", "properties": {"amount_minor": {"type": "integer"}}}});
    let loaded = Contract::from_value(&value(&contract)?).map_err(|e| e.to_string())?;
    let envelope = |job: &str, amount: i64| -> Result<Json, String> {
        let ids = json!({"tenant": "t", "subject": "user:s", "job_id": job, "request_id": "r", "policy_version": "p"});
        let ids = value(&ids)?;
        let ids = actionseal_core::ActionIds::from_value(&ids).map_err(|e| e.to_string())?;
        let a = Action::build(&loaded, &value(&json!({"amount_minor": amount}))?, &ids)
            .map_err(|e| e.to_string())?;
        serde_json::from_str(&actionseal_core::canonicalize(a.value())).map_err(|e| e.to_string())
    };
    let clock = ManualClock::new(1_000_000);
    // Proof is optional here, so that both a bare and a signed decision are recorded.
    let keys = actionseal_core::KeySet::from_value(&value(&super::proof::service_keys())?)
        .map_err(|e| e.to_string())?;
    let options = LedgerOptions {
        clock: Arc::new(clock.clone()),
        proof: Some(actionseal_core::ProofPolicy::new(false, keys)),
        ..LedgerOptions::default()
    };
    let l = Ledger::open_with("sqlite::memory:", options).map_err(|e| e.to_string())?;
    let call = |c: Call, v: Json| -> Result<Json, String> {
        let out = l.call(c, &value(&v)?).map_err(|e| format!("{c:?}: {e}"))?;
        serde_json::from_str(&actionseal_core::canonicalize(&out)).map_err(|e| e.to_string())
    };
    let facts = |subject_ok: bool| {
        json!({"tenant": "t", "policy_version": "p", "contract": contract,
        "approver_authorized": {"approver": "user:b", "authorized": true},
        "subject_authorized": {"subject": "user:s", "authorized": subject_ok}})
    };
    let mut out = Vec::new();
    // A task approved, drifted, claimed with a budget, completed; another revoked and sent back;
    // a third rejected before dispatch.
    let mut tasks = Vec::new();
    for job in ["j1", "j2", "j3"] {
        let action = envelope(job, 5)?;
        let proposed = call(
            Call::Propose,
            json!({"action": envelope(job, 7)?, "contract": contract, "proposer": "agent"}),
        )?;
        out.push(("LedgerTask", proposed.clone()));
        // A reviewer amends 7 to 5 before deciding (the retry is a duplicate).
        let amend = json!({"task_id": proposed["id"], "amends": proposed["action_digest"],
            "action": action, "reviewer": "user:r", "reason": "r", "contract": contract});
        out.push(("Amended", call(Call::Amend, amend.clone())?));
        out.push(("Amended", call(Call::Amend, amend)?));
        for a in call(Call::Amendments, json!({"task_id": proposed["id"]}))?
            .as_array()
            .into_iter()
            .flatten()
        {
            out.push(("AmendmentRecord", a.clone()));
        }
        let task = call(Call::Task, json!({"task_id": proposed["id"]}))?;
        let bare = json!({"approval_id": task["approval_id"], "decision_id": format!("d-{job}"),
            "job_id": job, "request_id": "r", "action_digest": task["action_digest"], "decision": "approved",
            "approver": "user:b", "decided_at": 1_000_000, "expires_at": 2_000_000});
        // The second task's decision arrives signed: the record the ledger builds, as a
        // reviewer's approval system signs it.
        let decision = if job == "j2" {
            super::proof::envelope(&json!({"approval_id": task["approval_id"],
                "decision_id": format!("d-{job}"), "action": task["action"],
                "action_digest": task["action_digest"], "proposed_digest": task["proposed_digest"],
                "decision": "approved", "approver": "user:b", "decided_at": 1_000_000,
                "expires_at": 2_000_000}))
        } else {
            bare
        };
        let decided = call(Call::Decide, decision)?;
        out.push(("Decided", decided));
        tasks.push((task, action));
    }
    out.push((
        "LedgerBudget",
        call(Call::SetBudget, json!({"name": "b", "limit_minor": 100}))?,
    ));
    let claim = |t: &Json, a: &Json, subject_ok: bool, budget: Json| {
        call(
            Call::Claim,
            json!({"task_id": t["id"], "action": a, "facts": facts(subject_ok),
            "executor": "w", "lease_ms": 1000, "budget": budget}),
        )
    };
    let (t1, a1) = &tasks[0];
    out.push((
        "ClaimOutcome",
        claim(t1, &envelope("j1", 6)?, true, Json::Null)?,
    ));
    out.push(("ClaimOutcome", claim(t1, a1, true, json!("b"))?));
    clock.advance(10).unwrap();
    out.push((
        "LedgerTask",
        call(
            Call::Complete,
            json!({"task_id": t1["id"], "fence": 1, "outcome": "succeeded",
        "executor": "w", "result": {"ok": true}}),
        )?,
    ));
    let (t2, a2) = &tasks[1];
    out.push((
        "Revocation",
        call(
            Call::Revoke,
            json!({"approval_id": t2["approval_id"], "actor": "admin"}),
        )?,
    ));
    out.push(("ClaimOutcome", claim(t2, a2, true, Json::Null)?));
    let (t3, a3) = &tasks[2];
    out.push(("ClaimOutcome", claim(t3, a3, false, Json::Null)?));
    // A signed decision claimed by a claim that requires proof: the claim carries it.
    let proven = call(
        Call::Propose,
        json!({"action": envelope("j4", 5)?, "contract": contract, "proposer": "agent"}),
    )?;
    let record = json!({"approval_id": proven["approval_id"], "decision_id": "d-j4",
        "action": proven["action"], "action_digest": proven["action_digest"],
        "decision": "approved", "approver": "user:b", "decided_at": l.now(),
        "expires_at": 2_000_000});
    out.push((
        "Decided",
        call(Call::Decide, super::proof::envelope(&record))?,
    ));
    out.push((
        "ClaimOutcome",
        call(
            Call::Claim,
            json!({"task_id": proven["id"], "action": proven["action"], "facts": facts(true),
            "executor": "w", "lease_ms": 1000, "proof": "required"}),
        )?,
    ));
    let waited = |states: Json| {
        call(
            Call::Wait,
            json!({"task_id": t1["id"], "states": states, "timeout_ms": 0}),
        )
    };
    let now = call(Call::Task, json!({"task_id": t1["id"]}))?;
    out.push(("Waited", waited(json!([now["state"]]))?));
    out.push(("Waited", waited(json!(["rejected"]))?));
    out.push(("ChangesRead", call(Call::Changes, json!({"limit": 1000}))?));
    // A page cut at its limit (a cursor) and the last one (none).
    out.push(("TasksPage", call(Call::TasksPage, json!({"limit": 1}))?));
    out.push(("TasksPage", call(Call::TasksPage, json!({}))?));
    out.push(("AuditPage", call(Call::AuditPage, json!({"limit": 1}))?));
    out.push(("AuditPage", call(Call::AuditPage, json!({}))?));
    out.push(("LedgerPolicy", call(Call::Policy, json!({}))?));
    out.push((
        "LedgerPolicy",
        call(
            Call::SetProofRequirement,
            json!({"proof": "required", "actor": "admin", "reason": "every decision signed"}),
        )?,
    ));
    out.push((
        "TaskHistory",
        call(Call::History, json!({"task_id": t1["id"]}))?,
    ));
    out.push(("LedgerBudget", call(Call::Budget, json!({"name": "b"}))?));
    out.push((
        "RetentionPolicy",
        call(
            Call::SetRetention,
            json!({"tenant": "t", "class": "pii", "keep_ms": 1000, "at_finish": "shred",
            "actor": "dpo"}),
        )?,
    ));
    for p in call(Call::Retention, json!({}))?
        .as_array()
        .into_iter()
        .flatten()
    {
        out.push(("RetentionPolicy", p.clone()));
    }
    out.push((
        "Shredded",
        call(Call::Redact, json!({"task_id": t1["id"], "actor": "dpo"}))?,
    ));
    for d in call(Call::RetentionRun, json!({"actor": "dpo"}))?
        .as_array()
        .into_iter()
        .flatten()
    {
        out.push(("Shredded", d.clone()));
    }
    for t in call(Call::Tasks, json!({}))?
        .as_array()
        .into_iter()
        .flatten()
    {
        out.push(("LedgerTask", t.clone()));
    }
    let heads = call(Call::AuditHeads, json!({}))?;
    out.push(("ExportedHeads", heads.clone()));
    let report = call(Call::AuditVerify, json!({"exported": heads}))?;
    out.push(("AuditReport", report));
    // The same export with its first line edited: a report with a break.
    let export = call(Call::AuditExport, json!({}))?;
    let text = export
        .as_str()
        .unwrap_or_default()
        .replacen("\"seq\":1", "\"seq\":2", 1);
    let broken = ledger::verify_audit(text.as_bytes(), &[]).to_value();
    out.push((
        "AuditReport",
        serde_json::from_str(&actionseal_core::canonicalize(&broken)).map_err(|e| e.to_string())?,
    ));
    // And with its first claim's fence changed and its chain sealed again: a replay break,
    // naming the task and the member.
    let text = reseal_first_claim(export.as_str().unwrap_or_default())?;
    let broken = ledger::verify_audit(text.as_bytes(), &[]).to_value();
    out.push((
        "AuditReport",
        serde_json::from_str(&actionseal_core::canonicalize(&broken)).map_err(|e| e.to_string())?,
    ));
    Ok(out)
}

/// The export with its first `claimed` event given another fence, and every event of that
/// chain from there sealed again.
fn reseal_first_claim(export: &str) -> Result<String, String> {
    let mut events = Vec::new();
    for line in export.lines() {
        let mut v = value(&serde_json::from_str::<Json>(line).map_err(|e| e.to_string())?)?;
        if let actionseal_core::Value::Object(o) = &mut v {
            let kept = o
                .clone()
                .into_entries()
                .into_iter()
                .filter(|(k, _)| k != "digest")
                .collect();
            *o = actionseal_core::Object::from_entries(kept).map_err(|e| e.to_string())?;
        }
        events.push(ledger::Event::from_value(&v).map_err(|e| e.to_string())?);
    }
    let first = events
        .iter()
        .position(|e| e.kind == EventKind::Claimed)
        .ok_or("no claim")?;
    let (chain, from) = (events[first].chain, events[first].seq);
    events[first].fence = Some(9);
    let mut prev = None;
    let mut out = String::new();
    for e in &mut events {
        if e.chain == chain {
            if e.seq >= from {
                e.prev = prev;
            }
            prev = Some(e.digest());
        }
        out += &ledger::Event::line(&e.canonical(), &e.digest());
        out.push('\n');
    }
    Ok(out)
}

/// Where what the ledger writes and the output shapes disagree.
pub fn output_problems(all: &[Shape]) -> Vec<String> {
    let results = match outputs().and_then(|mut r| {
        r.extend(super::evidence_probes::written()?);
        r.extend(super::ledger_batch::written()?);
        Ok(r)
    }) {
        Ok(r) => r,
        Err(e) => return vec![format!("the ledger's sample run failed: {e}")],
    };
    let mut seen = Seen::default();
    let mut problems = Vec::new();
    for (name, v) in &results {
        conforms(all, &Ty::Shape(name), v, name, &mut seen, &mut problems);
    }
    // Every nullable member of an output was seen with a value, so its type was checked.
    for s in shapes().iter().filter(|s| s.output) {
        for f in &s.fields {
            let key = (s.name.to_owned(), f.name.to_owned());
            if matches!(f.ty, Ty::Nullable(_)) && !seen.present.contains(&key) {
                problems.push(format!(
                    "{}.{}: the sample run never wrote it with a value",
                    s.name, f.name
                ));
            }
        }
    }
    for u in unions().iter().filter(|u| matches!(u.name, "ClaimResult")) {
        let got = seen.members.get(u.name).cloned().unwrap_or_default();
        for m in &u.members {
            if !got.contains(*m) {
                problems.push(format!("{}: the sample run never saw {m}", u.name));
            }
        }
    }
    problems
}
