//! `actionseal ledger` end to end on a SQLite file: results as JSON, documented exit codes,
//! and the ledger demo.

mod common;

use actionseal_core::tlog::cosignature::Cosigner;
use actionseal_core::tlog::note::{SignerKey, VerifierKey};
use actionseal_core::tlog::witness::{add_checkpoint, Latest, Log, Request};
use common::run_clean;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/refund")
}

/// The value of `"key":"..."` in canonical JSON text.
fn member(text: &str, key: &str) -> String {
    let start = text.find(&format!("\"{key}\":")).unwrap() + key.len() + 3;
    let rest = &text[start..];
    let end = rest.find([',', '}']).unwrap();
    rest[..end].trim_matches('"').to_owned()
}

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn dir(name: &str) -> Dir {
    let d = std::env::temp_dir().join(format!("actionseal-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Dir(d)
}

#[test]
fn a_lifecycle_through_the_command_line() {
    let d = dir("lifecycle");
    let db = format!("sqlite:{}", d.0.join("l.db").display());
    let ex = examples();
    let s = |p: &str| ex.join(p).display().to_string();
    let l = |args: &[&str]| {
        let mut all = vec!["ledger", "--db", db.as_str()];
        all.extend_from_slice(args);
        run_clean(&all)
    };
    assert!(l(&["init"]).status.success());
    let out = l(&[
        "propose",
        "--action",
        &s("action.json"),
        "--contract",
        &s("contract.json"),
        "--proposer",
        "agent",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let task = stdout(&out);
    let (id, apr, digest) = (
        member(&task, "id"),
        member(&task, "approval_id"),
        member(&task, "action_digest"),
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let decision = d.0.join("decision.json");
    std::fs::write(
        &decision,
        format!(
            r#"{{"approval_id": "{apr}", "decision_id": "d1", "job_id": "job-7f93", "request_id": "req-b285",
                "action_digest": "{digest}", "decision": "approved", "approver": "user:bob",
                "decided_at": {now}, "expires_at": {}}}"#,
            now + 3_600_000
        ),
    )
    .unwrap();
    assert!(l(&["decide", "--decision", decision.to_str().unwrap()])
        .status
        .success());
    // Facts: the example context without now and revoked.
    let ctx = std::fs::read_to_string(ex.join("context.json")).unwrap();
    let facts = d.0.join("facts.json");
    let mut v: serde_json::Value = serde_json::from_str(&ctx).unwrap();
    v.as_object_mut().unwrap().remove("now");
    v.as_object_mut().unwrap().remove("revoked");
    std::fs::write(&facts, v.to_string()).unwrap();
    let claim = |action: &str, who: &str| {
        l(&[
            "claim",
            "--task",
            &id,
            "--action",
            &s(action),
            "--facts",
            facts.to_str().unwrap(),
            "--executor",
            who,
        ])
    };
    let drift = claim("action-drifted.json", "w1");
    assert_eq!(drift.status.code(), Some(4));
    assert!(stdout(&drift).contains("\"result\":\"tool_args_drift\""));
    let won = claim("action.json", "w1");
    assert_eq!(
        won.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&won.stderr)
    );
    let fence = member(&stdout(&won), "fence");
    let lost = claim("action.json", "w2");
    assert_eq!(lost.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&lost.stderr).starts_with("error: already_claimed: "));
    let done = l(&[
        "complete",
        "--task",
        &id,
        "--fence",
        &fence,
        "--outcome",
        "succeeded",
        "--executor",
        "w1",
    ]);
    assert!(stdout(&done).contains("\"state\":\"succeeded\""));
    let stale = l(&[
        "complete",
        "--task",
        &id,
        "--fence",
        "0",
        "--outcome",
        "failed",
        "--executor",
        "w1",
    ]);
    assert_eq!(stale.status.code(), Some(5));
    let show = stdout(&l(&["show", "--task", &id]));
    assert!(show.contains("\"history\":[") && show.contains("\"kind\":\"claimed\""));
    let verify = l(&["audit", "verify"]);
    assert_eq!(verify.status.code(), Some(0));
    assert!(stdout(&verify).contains("\"valid\":true"));
    let export = d.0.join("audit.jsonl");
    std::fs::write(&export, l(&["audit", "export"]).stdout).unwrap();
    let ok = run_clean(&[
        "ledger",
        "audit",
        "verify",
        "--file",
        export.to_str().unwrap(),
    ]);
    assert_eq!(ok.status.code(), Some(0));
    let text = std::fs::read_to_string(&export).unwrap().replacen(
        "\"actor\":\"w2\"",
        "\"actor\":\"w3\"",
        1,
    );
    std::fs::write(&export, text).unwrap();
    let bad = run_clean(&[
        "ledger",
        "audit",
        "verify",
        "--file",
        export.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(6));
    assert!(stdout(&bad).contains("\"problem\":\"digest_mismatch\""));

    // Heads kept outside the database: the ledger verifies against them, and so does its
    // export; an export cut short of them is truncated.
    let heads = d.0.join("heads.json");
    let out = l(&["audit", "heads"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("{\"at\":") && stdout(&out).contains("\"version\":1}"));
    std::fs::write(&heads, out.stdout).unwrap();
    let h = heads.to_str().unwrap();
    let verify = l(&["audit", "verify", "--heads", h]);
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
    let full = l(&["audit", "export"]).stdout;
    std::fs::write(&export, &full).unwrap();
    let e = export.to_str().unwrap();
    let ok = run_clean(&["ledger", "audit", "verify", "--file", e, "--heads", h]);
    assert_eq!(ok.status.code(), Some(0));
    let text = String::from_utf8(full).unwrap();
    let cut: Vec<&str> = text.lines().collect();
    std::fs::write(&export, cut[..cut.len() - 1].join("\n")).unwrap();
    let cut = run_clean(&["ledger", "audit", "verify", "--file", e, "--heads", h]);
    assert_eq!(cut.status.code(), Some(6));
    assert!(stdout(&cut).contains("\"problem\":\"truncated\""));
    // A heads file of another version is bad input, with its code.
    std::fs::write(&heads, "{\"version\":2,\"at\":0,\"heads\":[]}").unwrap();
    let bad = l(&["audit", "verify", "--heads", h]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("invalid_audit_heads"));
}

#[test]
fn exit_codes_for_bad_ledgers() {
    assert_eq!(
        run_clean(&["ledger", "--db", "mysql://x", "init"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run_clean(&[
            "ledger",
            "--db",
            "postgres://postgres@127.0.0.1:1/x?connect_timeout=5",
            "init"
        ])
        .status
        .code(),
        Some(69)
    );
    assert_eq!(run_clean(&["ledger", "init"]).status.code(), Some(64));
    // A mistyped path is no new, empty ledger: every command but init refuses it (66,
    // EX_NOINPUT), naming the path, and creates nothing.
    let d = dir("missing");
    let path = d.0.join("l.db");
    let db = format!("sqlite:{}", path.display());
    for args in [
        &["show"][..],
        &["show", "--task", "task_nope"],
        &["audit", "export"],
    ] {
        let mut all = vec!["ledger", "--db", db.as_str()];
        all.extend_from_slice(args);
        let out = run_clean(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(66), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: ledger_not_found: "), "{stderr}");
        assert!(stderr.contains(&path.display().to_string()), "{stderr}");
        assert!(stdout(&out).is_empty());
        assert_eq!(std::fs::read_dir(&d.0).unwrap().count(), 0, "{args:?}");
    }
    assert!(run_clean(&["ledger", "--db", &db, "init"]).status.success());
    let out = run_clean(&["ledger", "--db", &db, "show", "--task", "task_nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: task_not_found: "));
    // Or the URL asks for it.
    let other = format!("sqlite:{}?mode=create", d.0.join("m.db").display());
    let out = run_clean(&["ledger", "--db", &other, "show"]);
    assert_eq!(stdout(&out), "[]\n");
    assert!(run_clean(&["ledger", "--help"]).status.success());
}

#[test]
fn the_ledger_demo_tells_the_story() {
    let d = dir("demo");
    let db = format!("sqlite:{}", d.0.join("demo.db").display());
    let out = run_clean(&["ledger", "--db", &db, "demo"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    for expected in [
        "worker-2: refused, already_claimed",
        "tool_args_drift at [\"/args/amount_minor\"]; task still approved; approved amount returned: 2500",
        "user:carol amends 2500 -> 2000 at [\"/args/amount_minor\"]",
        "a decision about the action as the model proposed it: refused, decision_mismatch",
        "the approval record keeps proposed_digest",
        "an amendment after the decision: refused, task_not_awaiting_decision",
        "the model re-sends 2500: tool_args_drift; amended amount returned: 2000",
        "is awaiting_reapproval",
        "dispatch_count 0, business_effect_count 0",
        "dispatched once: dispatch_count 1",
        "moved to unknown",
        "refused, stale_fence",
        "same key both times: true; effects for it: 1",
        "every chain intact: true",
        "refused by the table's trigger",
        "breaks at seq",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(!text.contains("this is a bug"), "{text}");
    // A second run on the same file refuses rather than mixing stories.
    assert_eq!(
        run_clean(&["ledger", "--db", &db, "demo"]).status.code(),
        Some(2)
    );
}

#[test]
fn a_reviewer_amends_through_the_command_line() {
    let d = dir("amend");
    let db = format!("sqlite:{}", d.0.join("l.db").display());
    let ex = examples();
    let s = |p: &str| ex.join(p).display().to_string();
    let l = |args: &[&str]| {
        let mut all = vec!["ledger", "--db", db.as_str()];
        all.extend_from_slice(args);
        run_clean(&all)
    };
    assert!(l(&["init"]).status.success());
    let task = stdout(&l(&[
        "propose",
        "--action",
        &s("action.json"),
        "--contract",
        &s("contract.json"),
        "--proposer",
        "agent",
    ]));
    let (id, proposed) = (member(&task, "id"), member(&task, "action_digest"));
    let amend = |amends: &str, action: &str| {
        l(&[
            "amend",
            "--task",
            &id,
            "--amends",
            amends,
            "--action",
            action,
            "--contract",
            &s("contract.json"),
            "--reviewer",
            "user:carol",
            "--reason",
            "the customer asked for 26.00",
        ])
    };
    // The reviewer changes the amount to 2600 (the "drifted" example's arguments).
    let out = amend(&proposed, &s("action-drifted.json"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(text.contains("\"duplicate\":false") && text.contains("\"amendments\":1"));
    assert!(text.contains(&format!("\"proposed_digest\":\"{proposed}\"")));
    assert!(text.contains("\"amended_pointers\":[\"/args/amount_minor\"]"));
    let amended = member(&text[text.find("\"task\":").unwrap()..], "action_digest");
    assert_ne!(amended, proposed);
    // A second reviewer who loaded the proposal conflicts (exit 5); another tool is bad input.
    let late = amend(&proposed, &s("action.json"));
    assert_eq!(late.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&late.stderr).starts_with("error: amend_conflict: "));
    let other_tool = d.0.join("other-tool.json");
    std::fs::write(
        &other_tool,
        std::fs::read_to_string(ex.join("action-drifted.json"))
            .unwrap()
            .replace("\"refund_create\"", "\"wire_transfer\""),
    )
    .unwrap();
    let tool = amend(&amended, other_tool.to_str().unwrap());
    assert_eq!(tool.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&tool.stderr).starts_with("error: amend_tool_changed: "));
    let show = stdout(&l(&["show", "--task", &id]));
    assert!(show.contains("\"kind\":\"amended\"") && show.contains("\"kind\":\"amend_refused\""));
    assert!(show.contains("\"reason\":\"the customer asked for 26.00\""));
}

#[test]
fn a_decision_signed_by_the_approval_service() {
    use actionseal_core::{base64url_encode, canonicalize, parse, sign_approval, Options};
    let d = dir("proof");
    let db = format!("sqlite:{}", d.0.join("l.db").display());
    let ex = examples();
    let l = |args: &[&str]| {
        let mut all = vec!["ledger", "--db", db.as_str()];
        all.extend_from_slice(args);
        run_clean(&all)
    };
    assert!(l(&["init"]).status.success());
    let out = l(&[
        "propose",
        "--action",
        &ex.join("action.json").display().to_string(),
        "--contract",
        &ex.join("contract.json").display().to_string(),
        "--proposer",
        "agent",
    ]);
    assert!(out.status.success());
    let task = stdout(&out);
    let (apr, digest) = (member(&task, "approval_id"), member(&task, "action_digest"));
    let action = std::fs::read_to_string(ex.join("action.json")).unwrap();
    let key = actionseal_core::SigningKey::from_seed(&[7; 32]);
    let kid = key.public_key().keyid().to_owned();
    let keys = d.0.join("keys.json");
    let x = base64url_encode(key.public_key().as_bytes());
    std::fs::write(
        &keys,
        format!(r#"{{"service_keys": {{"{kid}": {{"key": "{x}"}}}}}}"#),
    )
    .unwrap();
    // Decided now: after the task's proposal, no later than the ledger's clock as it arrives.
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let until = at + 3_600_000;
    let record = format!(
        r#"{{"action": {action}, "action_digest": "{digest}", "approval_id": "{apr}",
            "approver": "user:bob", "decided_at": {at}, "decision": "approved",
            "decision_id": "d1", "expires_at": {until}}}"#
    );
    let record = parse(record.as_bytes(), &Options::default()).unwrap();
    let envelope = d.0.join("signed.json");
    std::fs::write(
        &envelope,
        canonicalize(&sign_approval(&record, &key).unwrap()),
    )
    .unwrap();
    let bare = d.0.join("decision.json");
    std::fs::write(
        &bare,
        format!(
            r#"{{"approval_id": "{apr}", "decision_id": "d1", "job_id": "job-7f93", "request_id": "req-b285",
                "action_digest": "{digest}", "decision": "approved", "approver": "user:bob",
                "decided_at": {at}, "expires_at": {until}}}"#
        ),
    )
    .unwrap();
    let (keys, bare, envelope) = (
        keys.to_str().unwrap(),
        bare.to_str().unwrap(),
        envelope.to_str().unwrap(),
    );

    let usage = l(&["decide", "--decision", bare, "--require-proof"]);
    assert_eq!(usage.status.code(), Some(64));
    let refused = l(&[
        "decide",
        "--decision",
        bare,
        "--keys",
        keys,
        "--require-proof",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).starts_with("error: missing_proof: "));
    let untrusted = l(&["decide", "--decision", envelope]);
    assert!(String::from_utf8_lossy(&untrusted.stderr).starts_with("error: unknown_key: "));
    let out = l(&[
        "decide",
        "--decision",
        envelope,
        "--keys",
        keys,
        "--require-proof",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decided = stdout(&out);
    assert!(decided.contains(&format!(r#""signer":{{"keyid":"{kid}","kind":"service"}}"#)));
    assert!(decided.contains(r#""state":"approved""#));
}

#[test]
fn a_quorum_refuses_a_decider_by_the_rounds_state() {
    use actionseal_core::{fingerprint_json, Options};
    let d = dir("quorum");
    let db = format!("sqlite:{}", d.0.join("l.db").display());
    let ex = examples();
    let l = |args: &[&str]| {
        let mut all = vec!["ledger", "--db", db.as_str()];
        all.extend_from_slice(args);
        run_clean(&all)
    };
    assert!(l(&["init"]).status.success());
    // The example's contract, asking two approvers, and its action made under it.
    let mut contract: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ex.join("contract.json")).unwrap()).unwrap();
    contract["approval"]["quorum"] = serde_json::json!({"approvers": 2});
    let contract = contract.to_string();
    let fingerprint = fingerprint_json(contract.as_bytes(), &Options::default()).unwrap();
    let mut action: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ex.join("action.json")).unwrap()).unwrap();
    action["contract"] = fingerprint.to_string().into();
    let (contract_file, action_file) = (d.0.join("contract.json"), d.0.join("action.json"));
    std::fs::write(&contract_file, &contract).unwrap();
    std::fs::write(&action_file, action.to_string()).unwrap();
    let out = l(&[
        "propose",
        "--action",
        action_file.to_str().unwrap(),
        "--contract",
        contract_file.to_str().unwrap(),
        "--proposer",
        "agent",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let task = stdout(&out);
    let (apr, digest) = (member(&task, "approval_id"), member(&task, "action_digest"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let decide_through = |id: &str, approver: &str, through: &str| {
        let file = d.0.join(format!("{id}.json"));
        std::fs::write(
            &file,
            format!(
                r#"{{"approval_id": "{apr}", "decision_id": "{id}", "job_id": "job-7f93", "request_id": "req-b285",
                    "action_digest": "{digest}", "decision": "approved", "approver": "{approver}",
                    "decided_at": {now}, "expires_at": {}{through}}}"#,
                now + 3_600_000
            ),
        )
        .unwrap();
        l(&["decide", "--decision", file.to_str().unwrap()])
    };
    let decide = |id: &str, approver: &str| decide_through(id, approver, "");
    // A chain for another tool than the action's does not hold as the decision arrives.
    let void_only = format!(
        r#", "on_behalf_of": "user:carol", "delegation": [{{"delegation_id": "dlg-1",
            "delegator": "user:carol", "delegate": "user:dave", "tenant": "tenant-a",
            "tools": ["refund_void"], "not_before": 0, "not_after": {}}}]"#,
        now + 3_600_000
    );
    // Well-formed decisions the round's state refuses exit 5, as decision_conflict does.
    for (id, who, through, code) in [
        ("d1", "agent", "", "approver_not_separate"),
        ("d2", "user:alice", "", "approver_not_separate"),
        ("d0", "user:dave", void_only.as_str(), "delegation_refused"),
    ] {
        let out = decide_through(id, who, through);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(5), "{who}: {stderr}");
        assert!(stderr.starts_with(&format!("error: {code}: ")), "{stderr}");
    }
    let first = decide("d3", "user:bob");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(stdout(&first).contains(r#""state":"awaiting_approval""#));
    let again = decide("d4", "user:bob");
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(5), "{stderr}");
    assert!(
        stderr.starts_with("error: approver_already_decided: "),
        "{stderr}"
    );
    let second = decide("d5", "user:carol");
    assert!(stdout(&second).contains(r#""state":"approved""#));
}

/// The signer and verifier keys of Go's `golang.org/x/mod/sumdb/note` examples.
const LOG_KEY: &str =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const LOG_VERIFIER: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";

/// `actionseal ledger --db sqlite:<d>/<name> --log-key <d>/log.key ARGS...`, the key written
/// first.
fn logged(d: &Dir, name: &str, args: &[&str]) -> Output {
    let key = d.0.join("log.key");
    std::fs::write(&key, format!("{LOG_KEY}\n")).unwrap();
    let db = format!("sqlite:{}", d.0.join(name).display());
    let mut all = vec!["ledger", "--db", &db, "--log-key", key.to_str().unwrap()];
    all.extend_from_slice(args);
    run_clean(&all)
}

/// The example refund proposed by `proposer` on the ledger `name` (made first if need be):
/// one event.
fn propose_refund(d: &Dir, name: &str, proposer: &str) {
    assert!(logged(d, name, &["init"]).status.success());
    let ex = examples();
    let (action, contract) = (ex.join("action.json"), ex.join("contract.json"));
    let out = logged(
        d,
        name,
        &[
            "propose",
            "--action",
            action.to_str().unwrap(),
            "--contract",
            contract.to_str().unwrap(),
            "--proposer",
            proposer,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A checkpoint printed by `audit checkpoint` and kept outside the ledger: the ledger verifies
/// against it (with the verifier key, or the ledger's own key), and another ledger does not.
#[test]
fn a_checkpoint_kept_outside_the_ledger() {
    let d = dir("checkpoint");
    let verifier = d.0.join("log.pub");
    std::fs::write(&verifier, format!("{LOG_VERIFIER}\n")).unwrap();
    let ledger = |name: &str, args: &[&str]| logged(&d, name, args);
    for (name, proposer) in [("a.db", "agent"), ("b.db", "other-agent")] {
        propose_refund(&d, name, proposer);
    }
    let out = ledger("a.db", &["audit", "checkpoint"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let note = stdout(&out);
    assert!(note.starts_with("PeterNeumann\n1\n"), "{note}");
    assert!(note.contains("\n\n\u{2014} PeterNeumann "));
    let kept = d.0.join("checkpoint.txt");
    std::fs::write(&kept, &note).unwrap();
    let k = kept.to_str().unwrap();
    let v = verifier.to_str().unwrap();
    let ok = ledger(
        "a.db",
        &["audit", "verify", "--checkpoint", k, "--log-verifier", v],
    );
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(stdout(&ok).contains("{\"checkpoint\":{\"latest\":1,\"leaves\":1,\"size\":1}}"));
    let own = ledger("a.db", &["audit", "verify", "--checkpoint", k]);
    assert_eq!(own.status.code(), Some(0));
    // Another ledger of the same size holds another event: its root is not the checkpoint's.
    ledger("b.db", &["audit", "checkpoint"]);
    let other = ledger(
        "b.db",
        &["audit", "verify", "--checkpoint", k, "--log-verifier", v],
    );
    assert_eq!(other.status.code(), Some(6));
    assert!(String::from_utf8_lossy(&other.stderr).contains("audit_chain_broken"));
    // No key, no checkpoint.
    let db = format!("sqlite:{}", d.0.join("a.db").display());
    let none = run_clean(&["ledger", "--db", &db, "audit", "checkpoint"]);
    assert_eq!(none.status.code(), Some(64));
}

/// A C2SP witness on a loopback port for `requests` requests, deciding by core's rule (as
/// examples/witness does): its URL and its verifier key string.
fn witness(requests: usize) -> (String, String, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/w", listener.local_addr().unwrap());
    let cosigner = Cosigner::new(SignerKey::from_seed("witness.example", &[7; 32]).unwrap());
    let verifier = cosigner.verifier().to_string();
    let logs = [Log::new(
        "PeterNeumann",
        vec![VerifierKey::parse(LOG_VERIFIER).unwrap()],
    )];
    let server = std::thread::spawn(move || {
        let mut latest: Option<Latest> = None;
        for _ in 0..requests {
            let (mut s, _) = listener.accept().unwrap();
            let mut got = Vec::new();
            let mut buf = [0; 4096];
            let body = loop {
                let n = s.read(&mut buf).unwrap();
                got.extend_from_slice(&buf[..n]);
                let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") else {
                    continue;
                };
                let head = String::from_utf8_lossy(&got[..end]).to_lowercase();
                assert!(
                    head.starts_with("post /w/add-checkpoint http/1.1"),
                    "{head}"
                );
                let length: usize = head
                    .split("content-length:")
                    .nth(1)
                    .and_then(|v| v.lines().next())
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap();
                if got.len() >= end + 4 + length {
                    break got[end + 4..end + 4 + length].to_vec();
                }
            };
            let request = Request::parse(&body).unwrap();
            let log = Log::find(&logs, &request).unwrap();
            let (status, text) =
                match add_checkpoint(log, latest, &request, &cosigner, 1_764_496_800) {
                    Ok(ok) => {
                        latest = Some(ok.latest);
                        (200, ok.cosignature.to_string())
                    }
                    Err(refusal) => (refusal.status(), refusal.body()),
                };
            write!(
                s,
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            )
            .unwrap();
        }
    });
    (url, verifier, server)
}

/// `audit checkpoint --witness`: a witness over HTTP cosigns (asked again from the size its
/// 409 names once the log grew), the ledger keeps its line, and a file gets the cosigned note.
#[test]
fn a_checkpoint_published_to_a_witness_and_a_file() {
    let d = dir("witness");
    let (url, verifier, server) = witness(3);
    let keys = d.0.join("witnesses.pub");
    std::fs::write(&keys, format!("{verifier}\n")).unwrap();
    let published = d.0.join("published.txt");
    let file = format!("file:{}", published.display());
    let ledger = |args: &[&str]| logged(&d, "l.db", args);
    let publish = || {
        let out = ledger(&[
            "audit",
            "checkpoint",
            "--witness",
            &url,
            "--witness",
            &file,
            "--witness-key",
            keys.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
    };
    for proposer in ["agent", "other-agent"] {
        propose_refund(&d, "l.db", proposer);
        let note = publish();
        assert_eq!(note.matches("\u{2014} ").count(), 2, "{note}");
        assert!(note.contains("\n\u{2014} witness.example "));
        assert_eq!(std::fs::read_to_string(&published).unwrap(), note);
    }
    server.join().unwrap();
    let p = published.to_str().unwrap();
    let ok = ledger(&["audit", "verify", "--checkpoint", p]);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let https = ledger(&[
        "audit",
        "checkpoint",
        "--witness",
        "https://witness.example",
    ]);
    assert_eq!(https.status.code(), Some(64));
}

/// `--tsa`: a checkpoint that cannot be time-stamped exits 69 (kept unstamped, as
/// `audit checkpoint` without a TSA then prints), a TSA URL that is not http:// is bad input,
/// and a TSA without its roots is a usage error.
#[test]
fn a_checkpoint_with_a_time_stamping_authority() {
    let d = dir("tsa");
    propose_refund(&d, "a.db", "agent");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/timestamp/root.der");
    let root = root.to_str().unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = format!("http://127.0.0.1:{port}/");
    let tsa =
        |url: &str| ["--tsa", url, "--tsa-root", root, "audit", "checkpoint"].map(str::to_owned);
    let out = logged(&d, "a.db", &tsa(&down).each_ref().map(String::as_str));
    assert_eq!(
        out.status.code(),
        Some(69),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("timestamp_unavailable"));
    let kept = logged(&d, "a.db", &["audit", "checkpoint"]);
    assert_eq!(kept.status.code(), Some(0));
    assert!(stdout(&kept).starts_with("PeterNeumann\n1\n"));
    let https = logged(
        &d,
        "a.db",
        &tsa("https://tsa.example/").each_ref().map(String::as_str),
    );
    assert_eq!(https.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&https.stderr).contains("invalid_option"));
    let rootless = logged(&d, "a.db", &["--tsa", &down, "audit", "checkpoint"]);
    assert_eq!(rootless.status.code(), Some(64));
}
