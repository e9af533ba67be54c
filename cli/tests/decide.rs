//! `ledger decide --task T --approve|--reject --approver A --ttl D [--key K]`: the decision
//! built from the task as the ledger holds it, signed with K when given, and recorded.

mod common;

use common::{example, run, temp_dir, write};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn ok(o: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `actionseal ledger --db sqlite:<dir>/<name> ARGS...`.
fn ledger(dir: &Path, name: &str, args: &[&str]) -> Output {
    let db = format!("sqlite:{}?mode=create", dir.join(name).display());
    let mut all = vec!["ledger", "--db", &db];
    all.extend_from_slice(args);
    run(&all, b"")
}

/// The refund example proposed on the ledger `name`: its task.
fn propose(dir: &Path, name: &str) -> Value {
    let (action, contract) = (example("action.json"), example("contract.json"));
    ok(&ledger(
        dir,
        name,
        &[
            "propose",
            "--action",
            &action,
            "--contract",
            &contract,
            "--proposer",
            "agent",
        ],
    ))
}

#[test]
fn approve_and_reject_without_writing_json() {
    let d = temp_dir("decide-bare");
    for (name, flag, state) in [
        ("a.db", "--approve", "approved"),
        ("r.db", "--reject", "rejected"),
    ] {
        let task = propose(&d, name);
        let id = task["id"].as_str().unwrap();
        let args = [
            "decide",
            "--task",
            id,
            flag,
            "--approver",
            "user:bob",
            "--ttl",
            "10m",
        ];
        let decided = ok(&ledger(&d, name, &args));
        assert_eq!(decided["task"]["state"], state);
        let decision = &decided["decision"];
        // Everything about the task comes from the ledger; the reviewer gave the rest.
        for member in ["approval_id", "job_id", "request_id", "action_digest"] {
            assert_eq!(decision[member], task[member], "{member}");
        }
        assert_eq!(decision["approver"], "user:bob");
        assert_eq!(decision["decision"], state);
        let (at, until) = (
            decision["decided_at"].as_i64().unwrap(),
            decision["expires_at"].as_i64().unwrap(),
        );
        assert_eq!(until - at, 600_000);
        assert!(at >= task["created_at"].as_i64().unwrap());
        assert!(decision["decision_id"]
            .as_str()
            .unwrap()
            .starts_with("dec_"));
        assert_eq!(decided["signer"], Value::Null);
    }
    // A retry with the decision's id is recorded once.
    let task = propose(&d, "retry.db");
    let id = task["id"].as_str().unwrap();
    let args = [
        "decide",
        "--task",
        id,
        "--approve",
        "--approver",
        "user:bob",
        "--ttl",
        "1h",
        "--decision-id",
        "d-1",
    ];
    assert_eq!(ok(&ledger(&d, "retry.db", &args))["duplicate"], false);
    let again = ledger(&d, "retry.db", &args);
    // Decided again at a later time: the same id with other content conflicts, exit 5.
    assert_eq!(again.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&again.stderr).starts_with("error: decision_conflict: "));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn usage_errors() {
    let d = temp_dir("decide-usage");
    let task = propose(&d, "l.db");
    let id = task["id"].as_str().unwrap();
    for args in [
        // Both, neither.
        vec![
            "decide",
            "--task",
            id,
            "--approve",
            "--reject",
            "--approver",
            "a",
            "--ttl",
            "1m",
        ],
        vec!["decide", "--task", id, "--approver", "a", "--ttl", "1m"],
        // A duration without a unit, a zero one.
        vec![
            "decide",
            "--task",
            id,
            "--approve",
            "--approver",
            "a",
            "--ttl",
            "10",
        ],
        vec![
            "decide",
            "--task",
            id,
            "--approve",
            "--approver",
            "a",
            "--ttl",
            "0s",
        ],
        // A key, but no key set to verify it with.
        vec![
            "decide",
            "--task",
            id,
            "--approve",
            "--approver",
            "a",
            "--ttl",
            "1m",
            "--key",
            "k",
        ],
        // A decision file and a task.
        vec![
            "decide",
            "--decision",
            "f.json",
            "--task",
            id,
            "--approve",
            "--approver",
            "a",
            "--ttl",
            "1m",
        ],
        // A verdict without a task.
        vec!["decide", "--approve"],
    ] {
        assert_eq!(
            ledger(&d, "l.db", &args).status.code(),
            Some(64),
            "{args:?}"
        );
    }
    // Nothing was decided.
    let shown = ok(&ledger(&d, "l.db", &["show", "--task", id]));
    assert_eq!(shown["state"], "awaiting_approval");
    let none = ledger(
        &d,
        "l.db",
        &[
            "decide",
            "--task",
            "task_nope",
            "--approve",
            "--approver",
            "a",
            "--ttl",
            "1m",
        ],
    );
    assert_eq!(none.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(d);
}

/// Signed with a service key: the ledger verifies the approval record it would build itself,
/// byte for byte, so a record that left out the amendment's proposed_digest (or signed the
/// envelope instead) would be refused as decision_mismatch.
#[test]
fn signed_with_a_key_after_an_amendment() {
    let d = temp_dir("decide-signed");
    let private = d.join("service.jwk").display().to_string();
    let public: Value =
        serde_json::from_slice(&run(&["key", "generate", "--out", &private], b"").stdout).unwrap();
    let kid = public["kid"].as_str().unwrap();
    let keys = write(
        &d.join("keys.json"),
        &format!(r#"{{"service_keys":{{"{kid}":{{"key":{public}}}}}}}"#),
    );
    let task = propose(&d, "l.db");
    let id = task["id"].as_str().unwrap();
    let amended = ok(&ledger(
        &d,
        "l.db",
        &[
            "amend",
            "--task",
            id,
            "--amends",
            task["action_digest"].as_str().unwrap(),
            "--action",
            &example("action-drifted.json"),
            "--contract",
            &example("contract.json"),
            "--reviewer",
            "user:carol",
            "--reason",
            "the customer asked for 26.00",
        ],
    ));
    let digest = amended["task"]["action_digest"].clone();
    assert_ne!(digest, task["action_digest"]);
    let decide = [
        "decide",
        "--task",
        id,
        "--approve",
        "--approver",
        "user:bob",
        "--ttl",
        "36h",
        "--key",
        &private,
        "--keys",
        &keys,
        "--require-proof",
    ];
    let decided = ok(&ledger(&d, "l.db", &decide));
    assert_eq!(decided["task"]["state"], "approved");
    assert_eq!(decided["signer"]["keyid"], kid);
    assert_eq!(decided["signer"]["kind"], "service");
    let record = &decided["task"]["approval"];
    assert_eq!(record["action_digest"], digest);
    assert_eq!(record["proposed_digest"], task["action_digest"]);
    assert_eq!(
        record["expires_at"].as_i64().unwrap() - record["decided_at"].as_i64().unwrap(),
        36 * 3_600_000
    );
    // Where proof is required, the same decision without --key is refused.
    let bare = propose(&d, "bare.db");
    let bare_id = bare["id"].as_str().unwrap();
    let out = ledger(
        &d,
        "bare.db",
        &[
            "decide",
            "--task",
            bare_id,
            "--approve",
            "--approver",
            "user:bob",
            "--ttl",
            "1h",
            "--keys",
            &keys,
            "--require-proof",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: missing_proof: "));
    let _ = std::fs::remove_dir_all(d);
}
