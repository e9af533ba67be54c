//! `actionseal batch`: every batch vector the command line can run (build, deselect, verify,
//! check of one item and of several) gives the vector's result and exit status, and a batch
//! goes from build through deselect, decide and a signed decision to a permitted check.

mod common;

use common::{run, temp_dir, write};
use serde_json::Value as Json;
use std::path::Path;

fn vectors() -> Vec<(String, Json)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors/batch");
    let mut all: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    all.sort();
    all.into_iter()
        .map(|p| {
            let doc = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p.file_stem().unwrap().to_string_lossy().into_owned(), doc)
        })
        .collect()
}

/// The exit status `actionseal batch` gives a result: a verdict's, 4 for an item not in the
/// batch, 2 for any other error.
fn status(op: &str, expect: &Json) -> i32 {
    let outcome = |o: &Json| match o.as_str() {
        Some("permit") => 0,
        Some("reapprove") => 3,
        _ => 4,
    };
    match (op, expect.get("error").and_then(Json::as_str)) {
        (_, Some("not_in_batch")) => 4,
        (_, Some(_)) => 2,
        ("check_item", None) => outcome(&expect["outcome"]),
        ("check_batch", None) => {
            let verdicts = expect["verdicts"].as_array().unwrap();
            if expect["claimable"].as_array().unwrap().len() == verdicts.len() {
                0
            } else {
                verdicts
                    .iter()
                    .map(|v| outcome(&v["outcome"]))
                    .max()
                    .unwrap()
            }
        }
        _ => 0,
    }
}

#[test]
fn vectors_give_their_results_and_exit_statuses() {
    let dir = temp_dir("batch-vectors");
    let mut ran = 0;
    for (name, v) in vectors() {
        let text = |key: &str| {
            write(
                &dir.join(format!("{name}.{key}.json")),
                v[key].as_str().unwrap(),
            )
        };
        let semantics = || {
            let s: Json = serde_json::from_str(v["semantics"].as_str().unwrap()).unwrap();
            s.as_str().unwrap().to_owned()
        };
        let op = v["op"].as_str().unwrap();
        let args: Vec<String> = match op {
            "build" | "deselect" => {
                let server: Json = serde_json::from_str(v["server"].as_str().unwrap()).unwrap();
                let mut a = vec![
                    "batch".into(),
                    op.into(),
                    "--contract".into(),
                    text("contract"),
                ];
                a.extend(["--semantics".into(), semantics()]);
                if !server.is_null() {
                    a.extend(["--server".into(), text("server")]);
                }
                if op == "deselect" {
                    let indices: Json =
                        serde_json::from_str(v["indices"].as_str().unwrap()).unwrap();
                    for i in indices.as_array().unwrap() {
                        a.extend(["--index".into(), i.to_string()]);
                    }
                }
                a.push(text("actions"));
                a
            }
            "verify_item" => vec![
                "batch".into(),
                "verify".into(),
                "--header".into(),
                text("header"),
                text("item"),
            ],
            "check_item" | "check_batch" => {
                let mut a = vec!["batch".into(), "check".into()];
                for (i, approval) in v["approvals"].as_array().unwrap().iter().enumerate() {
                    let path = write(
                        &dir.join(format!("{name}.approval{i}.json")),
                        approval.as_str().unwrap(),
                    );
                    a.extend(["--approval".into(), path]);
                }
                let pairs = if op == "check_item" {
                    ["item", "action"]
                } else {
                    ["items", "actions"]
                };
                for key in pairs {
                    a.extend([format!("--{key}"), text(key)]);
                }
                a.extend(["--context".into(), text("context")]);
                a
            }
            // Semantics the command line has no words for: an unknown one, a breaker's steps
            // (core's breaker_step has no command), check of one approval (`actionseal check`).
            _ => continue,
        };
        if op == "build" && semantics() == "some" {
            continue;
        }
        let out = run(&args, b"");
        let expect = &v["expect"];
        assert_eq!(
            out.status.code(),
            Some(status(op, expect)),
            "batch/{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        match expect.get("error").and_then(Json::as_str) {
            Some(code) => {
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(
                    stderr.starts_with(&format!("error: {code}: ")),
                    "batch/{name}: {stderr}"
                );
                assert!(out.stdout.is_empty(), "batch/{name}");
            }
            None => {
                let got: Json = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(&got, expect, "batch/{name}");
            }
        }
        ran += 1;
    }
    assert!(ran >= 40, "only {ran} vectors ran");
}

#[test]
fn build_deselect_decide_sign_and_check() {
    let dir = temp_dir("batch-flow");
    let (_, v) = vectors()
        .into_iter()
        .find(|(n, _)| n == "y_build_three_refunds")
        .unwrap();
    let (_, checked) = vectors()
        .into_iter()
        .find(|(n, _)| n == "y_permit_item_of_approved_batch")
        .unwrap();
    let contract = write(&dir.join("contract.json"), v["contract"].as_str().unwrap());
    let actions = write(&dir.join("actions.json"), v["actions"].as_str().unwrap());

    let out = run(
        &[
            "batch",
            "deselect",
            "--contract",
            &contract,
            "--semantics",
            "per_item",
            "--index",
            "1",
            &actions,
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kept: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(kept["proposed_digest"], v["expect"]["batch_digest"]);
    let header = write(&dir.join("header.json"), &kept["header"].to_string());
    let decision = format!(
        r#"{{"approval_id": "apr-batch-1", "decision_id": "dec-1", "decision": "approved",
            "approver": "user:carol", "decided_at": 1764500000000, "expires_at": 1764501800000,
            "proposed_digest": {}}}"#,
        kept["proposed_digest"]
    );
    let out = run(
        &["batch", "decide", "--header", &header],
        decision.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let record = write(
        &dir.join("record.json"),
        &String::from_utf8_lossy(&out.stdout),
    );

    let private = dir.join("service.jwk").display().to_string();
    let public = run(&["key", "generate", "--out", &private], b"");
    assert!(public.status.success());
    let public: Json = serde_json::from_slice(&public.stdout).unwrap();
    // The executor trusts the key (bare decisions still accepted: proof not required).
    let mut trusting: Json = serde_json::from_str(checked["context"].as_str().unwrap()).unwrap();
    trusting["proof"] = serde_json::json!({"required": false,
        "keys": {"service_keys": {public["kid"].as_str().unwrap(): {"key": public}}}});
    let context = write(&dir.join("trusting.json"), &trusting.to_string());
    let signed = run(&["key", "sign", "--key", &private, &record], b"");
    assert!(
        signed.status.success(),
        "{}",
        String::from_utf8_lossy(&signed.stderr)
    );
    let signed = write(
        &dir.join("signed.json"),
        &String::from_utf8_lossy(&signed.stdout),
    );

    // The remainder's second item: the third refund.
    let all: Json = serde_json::from_str(v["actions"].as_str().unwrap()).unwrap();
    let item = serde_json::json!({"action": all[2], "proof": kept["items"][1]["proof"]});
    let item = write(&dir.join("item.json"), &item.to_string());
    let action = write(&dir.join("action.json"), &all[2].to_string());
    let out = run(&["batch", "verify", "--header", &header, &item], b"");
    assert!(out.status.success());
    for approval in [&record, &signed] {
        let out = run(
            &[
                "batch",
                "check",
                "--approval",
                approval,
                "--item",
                &item,
                "--action",
                &action,
                "--context",
                &context,
            ],
            b"",
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // The deselected refund is not in the remainder.
    let gone = serde_json::json!({"action": all[1], "proof": kept["items"][1]["proof"]});
    let gone = write(&dir.join("gone.json"), &gone.to_string());
    let out = run(&["batch", "verify", "--header", &header, &gone], b"");
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: not_in_batch: "));
    let out = run(
        &[
            "batch",
            "check",
            "--approval",
            &record,
            "--item",
            &gone,
            "--action",
            &action,
            "--context",
            &context,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn usage_errors() {
    for args in [
        &["batch", "build", "--semantics", "per_item"][..],
        &[
            "batch",
            "build",
            "--contract",
            "c.json",
            "--semantics",
            "per-item",
        ],
        &[
            "batch",
            "deselect",
            "--contract",
            "c.json",
            "--semantics",
            "per_item",
        ],
        &[
            "batch",
            "check",
            "--context",
            "x.json",
            "--item",
            "i.json",
            "--action",
            "a.json",
        ],
        &[
            "batch",
            "check",
            "--approval",
            "a.json",
            "--context",
            "x.json",
            "--item",
            "i.json",
        ],
    ] {
        assert_eq!(run(args, b"").status.code(), Some(64), "{args:?}");
    }
}
