//! The ledger scenarios of `conformance/vectors/ledger/scenarios/`, run on both engines: every
//! step's hand-written expectation (state, result, error code, fence, drift, duplicate), the
//! audit's event kinds, and the SHA-256 of the exported audit, which must be the same bytes
//! everywhere.

mod common;

use actionseal_core::ledger::{Observed, Reported};
use actionseal_core::{Action, ActionIds, Contract, OwnedValue};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, ManualClock, Task};
use common::{engines, Db};
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors/ledger")
}

fn core(v: &Json) -> OwnedValue {
    common::json(&v.to_string())
}

fn load(path: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs one scenario; returns (problems, each task's event kinds, the export's digest).
fn run(common: &Json, scenario: &Json, db: &Db) -> (Vec<String>, Json, String) {
    let start = common["start"].as_i64().unwrap();
    let clock = ManualClock::new(start);
    let l = db.open_at(&clock);
    let contract_name = scenario["contract"].as_str().unwrap_or("refund");
    let contract_doc = core(&common["contracts"][contract_name]);
    let contract = Contract::from_value(&contract_doc).unwrap();
    let mut facts = common["facts"].clone();
    facts["contract"] = common["contracts"][contract_name].clone();
    let facts = core(&facts);
    let ids = &common["ids"];
    let mut tasks: Vec<Task> = Vec::new();
    let mut actions: Vec<OwnedValue> = Vec::new();
    let mut sent: HashMap<String, OwnedValue> = HashMap::new();
    let mut problems = Vec::new();
    let build = |job: &str, args: &Json| {
        let ids = ActionIds {
            tenant: ids["tenant"].as_str().unwrap(),
            subject: ids["subject"].as_str().unwrap(),
            job_id: job,
            request_id: ids["request_id"].as_str().unwrap(),
            policy_version: ids["policy_version"].as_str().unwrap(),
        };
        Action::build(&contract, &core(args), &ids)
            .unwrap()
            .value()
            .clone()
    };
    for (i, step) in scenario["steps"].as_array().unwrap().iter().enumerate() {
        if let Some(at) = step["at"].as_i64() {
            clock.set(start + at);
        }
        let now = l.now();
        let task_ix = step["task"].as_u64().map(|t| t as usize);
        // A step may name a task id outright (one that does not exist).
        let task_id = match step["task_id"].as_str() {
            Some(id) => id.to_owned(),
            None => task_ix.map(|t| tasks[t].id.clone()).unwrap_or_default(),
        };
        let got: Result<Json, actionseal_core::Error> = match step["op"].as_str().unwrap() {
            "propose" => {
                let act = build(step["job"].as_str().unwrap(), &step["args"]);
                let r = l.propose(&act, &contract_doc, common["proposer"].as_str().unwrap());
                if let Ok(t) = &r {
                    if !tasks.iter().any(|x| x.id == t.id) {
                        tasks.push(t.clone());
                        actions.push(act);
                    }
                }
                r.map(|t| json!({"state": t.state.as_str()}))
            }
            "decide" => {
                let d = match step["replay"].as_str() {
                    Some(id) => sent[id].clone(),
                    None => {
                        let t = l.task(&task_id).unwrap();
                        let apr = match step["approval_round"].as_i64() {
                            Some(n) => actionseal_core::ledger::approval_id(&t.id, n),
                            None => t.approval_id.clone().unwrap(),
                        };
                        let digest = match step["digest_of"].as_u64() {
                            Some(o) => tasks[o as usize].action_digest,
                            None => t.action_digest,
                        };
                        let mut d = json!({
                            "approval_id": apr,
                            "decision_id": step["decision_id"],
                            "job_id": t.job_id,
                            "request_id": t.request_id,
                            "action_digest": digest.to_string(),
                            "decision": step["decision"],
                            "approver": step.get("approver").unwrap_or(&common["approver"]),
                            "decided_at": step["decided_at"].as_i64().map_or(now, |d| start + d),
                            "expires_at": now + step["ttl"].as_i64().unwrap(),
                        });
                        // A decision made through a delegation names its root and chain.
                        for (k, v) in step["through"].as_object().into_iter().flatten() {
                            d[k] = v.clone();
                        }
                        let d = core(&d);
                        sent.entry(step["decision_id"].as_str().unwrap().to_owned())
                            .or_insert_with(|| d.clone());
                        d
                    }
                };
                l.decide(&d)
                    .map(|r| json!({"state": r.task.state.as_str(), "duplicate": r.duplicate}))
            }
            "amend" => {
                let ix = task_ix.unwrap();
                let mut replacement = serde_json::from_str::<Json>(&actionseal_core::canonicalize(
                    &build(&tasks[ix].job_id, &step["args"]),
                ))
                .unwrap();
                for e in step["edit"].as_array().into_iter().flatten() {
                    *replacement.pointer_mut(e[0].as_str().unwrap()).unwrap() = e[1].clone();
                }
                let amends = match step["amends"].as_str() {
                    Some("proposal") => tasks[ix].action_digest,
                    _ => l.task(&task_id).unwrap().action_digest,
                };
                let a = core(&json!({
                    "task_id": task_id,
                    "amends": amends.to_string(),
                    "action": replacement,
                    "reviewer": step["reviewer"].as_str().unwrap_or("user:carol"),
                    "reason": "a reviewer's correction",
                }));
                l.amend(&a, &contract_doc).map(|r| {
                    json!({
                        "state": r.task.state.as_str(),
                        "duplicate": r.duplicate,
                        "amendments": r.task.amendments,
                    })
                })
            }
            "claim" => {
                let ix = task_ix.unwrap();
                let presented = match step.get("args") {
                    Some(args) => build(&tasks[ix].job_id, args),
                    None => actions[ix].clone(),
                };
                l.claim(&ClaimRequest {
                    task_id: &task_id,
                    action: &presented,
                    facts: &facts,
                    executor: step["executor"].as_str().unwrap(),
                    lease_ms: step["lease_ms"]
                        .as_i64()
                        .unwrap_or(common["lease_ms"].as_i64().unwrap()),
                    budget: step["budget"].as_str(),
                    proof: Default::default(),
                })
                .map(|out| {
                    let mut v = json!({"result": out.result(), "state": out.task().state.as_str()});
                    match &out {
                        ClaimOutcome::Claimed(c, _) => v["fence"] = c.fence.into(),
                        ClaimOutcome::Drift { verdict, .. }
                        | ClaimOutcome::Reapproval { verdict, .. }
                        | ClaimOutcome::Rejected { verdict, .. } => {
                            v["drift"] = json!(verdict.drift);
                            v["reasons"] = json!(verdict
                                .reasons
                                .iter()
                                .map(|r| r.as_str())
                                .collect::<Vec<_>>());
                        }
                    }
                    v
                })
            }
            "complete" => l
                .complete(
                    &task_id,
                    step["fence"].as_i64().unwrap(),
                    Reported::parse(step["outcome"].as_str().unwrap()).unwrap(),
                    None,
                    "worker",
                )
                .map(|t| json!({"state": t.state.as_str()})),
            "reconcile" => l
                .reconcile(
                    &task_id,
                    Observed::parse(step["observed"].as_str().unwrap()).unwrap(),
                    None,
                    "reconciler",
                )
                .map(|t| json!({"state": t.state.as_str()})),
            "budget" => l
                .set_budget(
                    step["name"].as_str().unwrap(),
                    step["limit"].as_i64().unwrap(),
                )
                .map(|b| json!({"limit": b.limit_minor})),
            "revoke" => {
                let approval_id = match step["approval_id"].as_str() {
                    Some(id) => id.to_owned(),
                    None => l.task(&task_id).unwrap().approval_id.unwrap(),
                };
                l.revoke(&approval_id, "admin")
                    .map(|r| json!({"duplicate": r.duplicate}))
            }
            "expire_leases" => l.expire_leases().map(|ids| json!({"expired": ids.len()})),
            "task" => l.task(&task_id).map(|t| json!({"state": t.state.as_str()})),
            op => panic!("unknown op {op}"),
        };
        let got = got.unwrap_or_else(|e| json!({"error": e.code().as_str()}));
        if let Some(want) = step["expect"].as_object() {
            for (k, v) in want {
                if got.get(k) != Some(v) {
                    problems.push(format!("step {i}: {k} is {:?}, expected {v}", got.get(k)));
                }
            }
        }
        if got.get("error").is_some() && step["expect"].get("error").is_none() {
            problems.push(format!("step {i}: unexpected {got}"));
        }
    }
    // Each task's events, in order (one task's events are in one chain).
    let kinds: Json = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (_, events) = l.task_history(&t.id).unwrap();
            let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
            (i.to_string(), json!(kinds))
        })
        .collect::<serde_json::Map<_, _>>()
        .into();
    let report = l.audit_verify().unwrap();
    assert!(report.broken.is_none());
    let export = l.audit_export().unwrap();
    (
        problems,
        kinds,
        actionseal_core::Digest::of(export.as_bytes()).to_string(),
    )
}

#[test]
fn ledger_scenarios_on_both_engines() {
    let common = load(&dir().join("common.json"));
    let mut files: Vec<_> = std::fs::read_dir(dir().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 7);
    let mut failures = Vec::new();
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let scenario = load(&path);
        let mut heads = Vec::new();
        for engine in engines() {
            let db = Db::fresh(engine);
            let (problems, kinds, head) = run(&common, &scenario, &db);
            for p in problems {
                failures.push(format!("{name} on {engine:?}: {p}"));
            }
            if kinds != scenario["audit"] {
                failures.push(format!("{name} on {engine:?}: audit {kinds}"));
            }
            heads.push(head);
        }
        match scenario["audit_digest"].as_str() {
            Some(want) if heads.iter().all(|h| h == want) => {}
            want => failures.push(format!(
                "{name}: audit digests {heads:?}, expected {want:?}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn urls_that_do_not_open() {
    let doc = load(&dir().join("open.json"));
    for case in doc["cases"].as_array().unwrap() {
        let url = case["url"].as_str().unwrap();
        let got = actionseal_ledger::Ledger::open(url)
            .err()
            .map(|e| e.code().as_str());
        assert_eq!(got, case["error"].as_str(), "{url}");
    }
}
