//! `actionseal ledger redact` and `ledger retention set|show|run` (issue 29) on a SQLite file:
//! a task under a contract with sensitive values, shredded, then refused at its claim with
//! its own exit status; retention by class.

mod common;

use actionseal_core::{canonicalize, parse, Action, ActionIds, Contract, Options};
use common::{run_clean, temp_dir, write};
use std::process::Output;

const CONTRACT: &str = r#"{"tool": "refund_create", "version": "1", "effect": "write",
    "approval": "always", "cost_minor": 0,
    "sensitive": {"/args/customer_email": "pii"},
    "args": {"type": "object", "required": ["order_id", "customer_email"],
             "properties": {"order_id": {"type": "string"},
                            "customer_email": {"type": "string"}}}}"#;

fn ok(o: Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The value of `"key":"..."` in canonical JSON text.
fn member(text: &str, key: &str) -> String {
    let start = text.find(&format!("\"{key}\":\"")).unwrap() + key.len() + 4;
    let rest = &text[start..];
    rest[..rest.find('"').unwrap()].to_owned()
}

#[test]
fn a_redacted_task_is_refused_and_retention_runs_by_class() {
    let d = temp_dir("cli-redact");
    let db = format!("sqlite:{}", d.join("l.db").display());
    let l = |args: &[&str]| {
        let mut all = vec!["ledger", "--db", db.as_str()];
        all.extend_from_slice(args);
        run_clean(&all)
    };
    let contract_v = parse(CONTRACT.as_bytes(), &Options::default()).unwrap();
    let contract = Contract::from_value(&contract_v).unwrap();
    let args = r#"{"order_id": "order-1", "customer_email": "frank.cli-sensitive@example.com"}"#;
    let ids = ActionIds {
        tenant: "tenant-a",
        subject: "user:alice",
        job_id: "job-1",
        request_id: "req-1",
        policy_version: "p1",
    };
    let action = Action::build(
        &contract,
        &parse(args.as_bytes(), &Options::default()).unwrap(),
        &ids,
    )
    .unwrap();
    let contract_file = write(&d.join("contract.json"), CONTRACT);
    let action_file = write(&d.join("action.json"), &canonicalize(action.value()));
    let facts = format!(
        r#"{{"tenant": "tenant-a", "policy_version": "p1", "contract": {},
            "approver_authorized": {{"approver": "user:bob", "authorized": true}},
            "subject_authorized": {{"subject": "user:alice", "authorized": true}}}}"#,
        canonicalize(&contract_v)
    );
    let facts_file = write(&d.join("facts.json"), &facts);
    ok(l(&["init"]));
    let task = ok(l(&[
        "propose",
        "--action",
        &action_file,
        "--contract",
        &contract_file,
        "--proposer",
        "agent",
    ]));
    assert!(!task.contains("frank.cli-sensitive"), "{task}");
    let id = member(&task, "id");
    ok(l(&[
        "decide",
        "--task",
        &id,
        "--approve",
        "--approver",
        "user:bob",
        "--ttl",
        "1h",
    ]));
    let policy = ok(l(&[
        "retention",
        "set",
        "--tenant",
        "tenant-a",
        "--class",
        "pii",
        "--keep",
        "30d",
        "--at-finish",
        "shred",
        "--actor",
        "dpo",
    ]));
    assert!(policy.contains(r#""keep_ms":2592000000"#), "{policy}");
    assert!(ok(l(&["retention", "show"])).contains(r#""class":"pii""#));
    // Nothing is 30 days old yet.
    assert_eq!(ok(l(&["retention", "run"])).trim(), "[]");
    let shredded = ok(l(&["redact", "--task", &id, "--actor", "dpo"]));
    assert!(
        shredded.contains(r#"{"class":"pii","pointer":"/args/customer_email"}"#),
        "{shredded}"
    );
    let refused = l(&[
        "claim",
        "--task",
        &id,
        "--action",
        &action_file,
        "--facts",
        &facts_file,
        "--executor",
        "worker-1",
    ]);
    assert_eq!(
        refused.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(String::from_utf8_lossy(&refused.stderr).starts_with("error: disclosures_shredded: "));
    let bad = l(&[
        "retention",
        "set",
        "--tenant",
        "tenant-a",
        "--class",
        "PII",
        "--keep",
        "forever",
        "--actor",
        "dpo",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}
