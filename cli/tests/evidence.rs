//! `actionseal ledger evidence export` then `actionseal evidence verify`: a bundle written by
//! one command verifies with the other and no database; a tampered one exits 4 with its code.

mod common;

use common::run_clean;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The signer and verifier keys of Go's `golang.org/x/mod/sumdb/note` examples.
const LOG_KEY: &str =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const LOG_VERIFIER: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn example(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/refund")
        .join(file)
        .display()
        .to_string()
}

#[test]
fn an_exported_bundle_verifies_without_the_ledger() {
    let d = std::env::temp_dir().join(format!("actionseal-cli-evidence-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let d = Dir(d);
    let file = |name: &str, text: &str| {
        let p = d.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let key = file("log.key", &format!("{LOG_KEY}\n"));
    let trust = file(
        "trust.json",
        &format!(r#"{{"ledger_keys": [{{"key": "{LOG_VERIFIER}"}}]}}"#),
    );
    // A new file, which the URL asks to be created.
    let db = format!("sqlite:{}?mode=create", d.0.join("l.db").display());
    let ledger = |args: &[&str]| {
        let mut all = vec!["ledger", "--db", &db, "--log-key", &key];
        all.extend_from_slice(args);
        run_clean(&all)
    };
    let proposed = ledger(&[
        "propose",
        "--action",
        &example("action.json"),
        "--contract",
        &example("contract.json"),
        "--proposer",
        "agent",
    ]);
    assert_eq!(proposed.status.code(), Some(0), "{}", stderr(&proposed));
    let task: serde_json::Value = serde_json::from_slice(&proposed.stdout).unwrap();
    let id = task["id"].as_str().unwrap();

    // To stdout, then to a file: both verify.
    let out = ledger(&["evidence", "export", id, "--actor", "auditor:carol"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bundle = file("bundle.json", &String::from_utf8(out.stdout).unwrap());
    let verified = run_clean(&["evidence", "verify", "--trust", &trust, &bundle]);
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));
    let timeline: serde_json::Value = serde_json::from_slice(&verified.stdout).unwrap();
    assert_eq!(timeline["task"], task["id"]);
    assert_eq!(timeline["exported_by"], "auditor:carol");
    assert_eq!(timeline["steps"][0]["kind"], "proposed");
    let kept = d.0.join("kept.json");
    let k = kept.to_str().unwrap();
    let out = ledger(&["evidence", "export", id, "--out", k]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let again = run_clean(&["evidence", "verify", "--trust", &trust, k]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));

    // An event edited after the export: its leaf is not in the signed tree.
    let text = std::fs::read_to_string(&bundle).unwrap();
    let tampered = file(
        "tampered.json",
        &text.replacen("\"agent\"", "\"agent:2\"", 1),
    );
    let refused = run_clean(&["evidence", "verify", "--trust", &trust, &tampered]);
    assert_eq!(refused.status.code(), Some(4));
    assert!(
        stderr(&refused).starts_with("error: inclusion_proof_invalid: "),
        "{}",
        stderr(&refused)
    );

    // An unknown task is bad input; no key, no checkpoint and no export.
    let unknown = ledger(&["evidence", "export", "task_0"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("task_not_found"));
    let keyless = run_clean(&["ledger", "--db", &db, "evidence", "export", id]);
    assert_eq!(keyless.status.code(), Some(64));
}
