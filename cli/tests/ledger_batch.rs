//! `ledger batch`: a batch proposed, deselected, decided and claimed from the command line,
//! with the exit statuses of `ledger claim`.

mod common;

use actionseal_core::{canonicalize, parse, Action, ActionIds, Contract, Options};
use common::{run, temp_dir, write};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn ok(o: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    serde_json::from_slice(&o.stdout).unwrap()
}

fn ledger(dir: &Path, args: &[&str]) -> Output {
    let db = format!("sqlite:{}?mode=create", dir.join("l.db").display());
    let mut all = vec!["ledger", "--db", &db];
    all.extend_from_slice(args);
    run(&all, b"")
}

const CONTRACT: &str = r#"{"tool": "refund_create", "version": "1", "effect": "write",
    "approval": "always", "cost_minor": 0,
    "args": {"type": "object", "required": ["order_id", "amount_minor"],
             "properties": {"order_id": {"type": "string"}, "amount_minor": {"type": "integer"}}},
    "batch": {"max_items": 10, "caps": {"sum": {"pointer": "/args/amount_minor", "max": 100000}}}}"#;

/// Three refunds of the contract, as canonical JSON texts.
fn actions() -> Vec<String> {
    let c = parse(CONTRACT.as_bytes(), &Options::default()).unwrap();
    let contract = Contract::from_value(&c).unwrap();
    (0..3)
        .map(|i| {
            let args = format!(r#"{{"order_id": "order-{i}", "amount_minor": 100}}"#);
            let args = parse(args.as_bytes(), &Options::default()).unwrap();
            let request = format!("req-{i}");
            let ids = ActionIds {
                tenant: "tenant-a",
                subject: "user:alice",
                job_id: "job-1",
                request_id: &request,
                policy_version: "p-1",
            };
            canonicalize(Action::build(&contract, &args, &ids).unwrap().value())
        })
        .collect()
}

#[test]
fn a_batch_from_the_command_line() {
    let d = temp_dir("batch-cli");
    let list = actions();
    let contract = write(&d.join("contract.json"), CONTRACT);
    let all = write(&d.join("actions.json"), &format!("[{}]", list.join(",")));
    let facts = write(
        &d.join("facts.json"),
        &format!(
            r#"{{"tenant": "tenant-a", "policy_version": "p-1", "contract": {CONTRACT},
                "approver_authorized": {{"approver": "user:bob", "authorized": true}},
                "subject_authorized": {{"subject": "user:alice", "authorized": true}}}}"#
        ),
    );
    ok(&ledger(&d, &["init"]));
    let b = ok(&ledger(
        &d,
        &[
            "batch",
            "propose",
            "--actions",
            &all,
            "--contract",
            &contract,
            "--semantics",
            "per_item",
            "--proposer",
            "agent",
        ],
    ));
    let (id, digest) = (b["id"].as_str().unwrap(), b["digest"].as_str().unwrap());
    let a = ok(&ledger(
        &d,
        &[
            "batch",
            "amend",
            "--batch",
            id,
            "--amends",
            digest,
            "--deselect",
            "2",
            "--reviewer",
            "user:bob",
            "--reason",
            "duplicate",
        ],
    ));
    assert_eq!(a["items"].as_array().unwrap().len(), 2);
    assert_eq!(a["proposed_digest"], b["digest"]);
    let decided = ok(&ledger(
        &d,
        &[
            "batch",
            "decide",
            "--batch",
            id,
            "--approve",
            "--approver",
            "user:bob",
            "--ttl",
            "10m",
        ],
    ));
    assert_eq!(decided["batch"]["state"], "approved");
    let task = a["items"][0]["task_id"].as_str().unwrap();
    let first = write(&d.join("a0.json"), &list[0]);
    let claim = |action: &str| {
        ledger(
            &d,
            &[
                "batch",
                "claim",
                "--task",
                task,
                "--action",
                action,
                "--facts",
                &facts,
                "--executor",
                "worker",
            ],
        )
    };
    // A drifted action: refused as drift (exit 4), nothing claimed.
    let drifted = write(
        &d.join("drift.json"),
        &list[0].replace("\"amount_minor\":100", "\"amount_minor\":900"),
    );
    assert_eq!(claim(&drifted).status.code(), Some(4));
    let won = ok(&claim(&first));
    assert_eq!(won["result"], "claimed");
    assert!(won["claim"]["item"]["proof"].is_object());
    // A second claim: refused by the task's state (exit 5).
    assert_eq!(claim(&first).status.code(), Some(5));
    // The plain claim of an item: refused (batch_item, exit 5).
    let plain = ledger(
        &d,
        &[
            "claim",
            "--task",
            task,
            "--action",
            &first,
            "--facts",
            &facts,
            "--executor",
            "w",
        ],
    );
    assert_eq!(
        plain.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let fence = won["claim"]["fence"].to_string();
    ok(&ledger(
        &d,
        &[
            "batch",
            "complete",
            "--task",
            task,
            "--fence",
            &fence,
            "--outcome",
            "succeeded",
            "--executor",
            "worker",
        ],
    ));
    let shown = ok(&ledger(&d, &["batch", "show", "--batch", id]));
    assert_eq!(shown["totals"]["sum"], 100);
    assert_eq!(shown["breaker"]["state"], "closed");
    let audit = ok(&ledger(&d, &["audit", "verify"]));
    assert_eq!(audit["valid"], true);
}

/// A batch decision signed with a service key after a deselection, on a ledger that requires
/// proof: the ledger verifies the batch record it would build itself (the proposal kept
/// beside the selection), keeps its proof, and refuses the same decision bare.
#[test]
fn a_signed_batch_decision_from_the_command_line() {
    let d = temp_dir("batch-cli-signed");
    let private = d.join("service.jwk").display().to_string();
    let public: Value =
        serde_json::from_slice(&run(&["key", "generate", "--out", &private], b"").stdout).unwrap();
    let kid = public["kid"].as_str().unwrap();
    let keys = write(
        &d.join("keys.json"),
        &format!(r#"{{"service_keys":{{"{kid}":{{"key":{public}}}}}}}"#),
    );
    let contract = write(&d.join("contract.json"), CONTRACT);
    let all = write(
        &d.join("actions.json"),
        &format!("[{}]", actions().join(",")),
    );
    ok(&ledger(&d, &["init"]));
    let b = ok(&ledger(
        &d,
        &[
            "batch",
            "propose",
            "--actions",
            &all,
            "--contract",
            &contract,
            "--semantics",
            "per_item",
            "--proposer",
            "agent",
        ],
    ));
    let (id, digest) = (b["id"].as_str().unwrap(), b["digest"].as_str().unwrap());
    ok(&ledger(
        &d,
        &[
            "batch",
            "amend",
            "--batch",
            id,
            "--amends",
            digest,
            "--deselect",
            "0",
            "--reviewer",
            "user:bob",
            "--reason",
            "duplicate",
        ],
    ));
    let decide = |signed: bool| {
        let mut args = vec![
            "batch",
            "decide",
            "--batch",
            id,
            "--approve",
            "--approver",
            "user:bob",
            "--ttl",
            "10m",
            "--keys",
            &keys,
            "--require-proof",
        ];
        if signed {
            args.extend(["--key", private.as_str()]);
        }
        ledger(&d, &args)
    };
    let bare = decide(false);
    assert_eq!(bare.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bare.stderr).starts_with("error: missing_proof: "));
    let decided = ok(&decide(true));
    assert_eq!(decided["batch"]["state"], "approved");
    assert_eq!(decided["signer"]["keyid"], kid);
    assert_eq!(decided["batch"]["proof"]["signer"]["keyid"], kid);
    assert_eq!(decided["batch"]["record"]["proposed_digest"], b["digest"]);
    let _ = std::fs::remove_dir_all(d);
}
