//! Every quorum and delegation vector through the command line: `check` of a set, its members
//! given as repeated `--approval` files and as one `--approvals` array, with its verdict (or
//! code) and the exit status of its outcome; `delegation verify` and `delegation digest` with
//! their results, codes and statuses.

mod common;

use actionseal_conformance::{vectors, Vector};
use common::{example, run, temp_dir, write};
use std::path::Path;
use std::process::Output;

/// What the command line must give for a vector's `expect`: the exit status, and the verdict
/// on stdout or the code on stderr.
fn holds(name: &str, out: &Output, expect: &serde_json::Value) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    match expect.get("error").and_then(|e| e.as_str()) {
        Some(code) => {
            assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
            assert!(
                stderr.starts_with(&format!("error: {code}: ")),
                "{name}: {stderr}"
            );
        }
        None => {
            let want = match expect["outcome"].as_str() {
                Some("permit") => 0,
                Some("reapprove") => 3,
                _ => 4,
            };
            assert_eq!(out.status.code(), Some(want), "{name}: {stderr}");
            let verdict: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(&verdict, expect, "{name}");
        }
    }
}

/// A `check_set` vector: each member in a file of its own (`--approval`, in order), and the
/// whole set as one JSON array of the members' texts as they are (`--approvals`).
fn check_set(dir: &Path, v: &Vector) {
    let text = |key: &str| v.doc[key].as_str().unwrap();
    let mut args: Vec<String> = vec![
        "check".into(),
        "--action".into(),
        write(&dir.join("action.json"), text("action")),
        "--context".into(),
        write(&dir.join("context.json"), text("context")),
    ];
    let members: Vec<&str> = v.doc["approvals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let mut each = args.clone();
    for (i, member) in members.iter().enumerate() {
        each.push("--approval".into());
        each.push(write(&dir.join(format!("approval-{i}.json")), member));
    }
    holds(&v.name, &run(&each, b""), &v.doc["expect"]);
    args.push("--approvals".into());
    args.push(write(
        &dir.join("approvals.json"),
        &format!("[{}]", members.join(",")),
    ));
    holds(
        &format!("{} (--approvals)", v.name),
        &run(&args, b""),
        &v.doc["expect"],
    );
}

/// A `verify_delegation` or `delegation_digest` vector: `delegation verify` (a refused link
/// exits 4, a bad key set 2) or `delegation digest` (bad input exits 2).
fn delegation(dir: &Path, v: &Vector, digest: bool) {
    let text = |key: &str| v.doc[key].as_str().unwrap();
    let out = if digest {
        run(&["delegation", "digest"], text("document").as_bytes())
    } else {
        let keys = write(&dir.join("keys.json"), text("keys"));
        let at = v.doc["at"].as_i64().unwrap().to_string();
        run(
            &["delegation", "verify", "--keys", &keys, "--at", &at],
            text("link").as_bytes(),
        )
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expect = &v.doc["expect"];
    match expect.get("error").and_then(|e| e.as_str()) {
        Some(code) => {
            let want = if digest || code == "invalid_key_set" {
                2
            } else {
                4
            };
            assert_eq!(out.status.code(), Some(want), "{}: {stderr}", v.name);
            assert!(
                stderr.starts_with(&format!("error: {code}: ")),
                "{}: {stderr}",
                v.name
            );
        }
        None => {
            assert!(out.status.success(), "{}: {stderr}", v.name);
            let got: serde_json::Value = if digest {
                serde_json::json!({"digest": String::from_utf8_lossy(&out.stdout).trim_end()})
            } else {
                serde_json::from_slice(&out.stdout).unwrap()
            };
            assert_eq!(&got, expect, "{}", v.name);
        }
    }
}

#[test]
fn every_quorum_and_delegation_vector_through_the_command_line() {
    let dir = temp_dir("quorum-vectors");
    for kind in ["quorum", "delegation"] {
        let all = vectors(kind);
        assert!(!all.is_empty(), "no vectors in vectors/{kind}");
        for v in &all {
            match v.doc["op"].as_str() {
                Some("check_set") => check_set(&dir, v),
                Some("verify_delegation") => delegation(&dir, v, false),
                Some("delegation_digest") => delegation(&dir, v, true),
                other => panic!("{kind}/{}: unknown op {other:?}", v.name),
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_set_is_an_array_and_one_way_of_giving_it() {
    let dir = temp_dir("quorum-usage");
    let base = |extra: &[String]| -> Output {
        let mut args: Vec<String> = ["check", "--action"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.push(example("action.json"));
        args.push("--context".into());
        args.push(example("context.json"));
        args.extend_from_slice(extra);
        run(&args, b"")
    };
    // A lone record is not a set of one.
    let out = base(&["--approvals".into(), example("approval.json")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: invalid_approval: ") && stderr.contains("approval.json"),
        "{stderr}"
    );
    // A set of one is the check of one.
    let record = std::fs::read_to_string(example("approval.json")).unwrap();
    let set = write(&dir.join("set.json"), &format!("[{record}]"));
    let one = base(&["--approval".into(), example("approval.json")]);
    let of_set = base(&["--approvals".into(), set.clone()]);
    assert_eq!(one.status.code(), Some(0));
    assert_eq!(of_set.stdout, one.stdout);
    // Both ways at once is a usage error.
    let both = base(&[
        "--approval".into(),
        example("approval.json"),
        "--approvals".into(),
        set,
    ]);
    assert_eq!(both.status.code(), Some(64));
    std::fs::remove_dir_all(dir).unwrap();
}
