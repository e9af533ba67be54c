//! How results are printed: one line of canonical JSON by default (what scripts read),
//! `--pretty` for the same JSON indented, `ledger show --table` for people, and `--pretty`
//! refused where the output is not one JSON value.

mod common;

use common::{example, run, temp_dir};
use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn ok(o: Output) -> String {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    stdout(&o)
}

/// The default and `--pretty` outputs of one command: the same value, member order included
/// (serde_json's `preserve_order` is off, so the text is compared after removing whitespace
/// between tokens too).
fn same_content(line: &str, pretty: &str) {
    assert_eq!(line.matches('\n').count(), 1, "one line: {line}");
    assert!(pretty.matches('\n').count() > 1, "indented: {pretty}");
    assert!(
        pretty.contains("\n  \"") || pretty.contains("\n  {"),
        "two spaces: {pretty}"
    );
    let a: serde_json::Value = serde_json::from_str(line).unwrap();
    let b: serde_json::Value = serde_json::from_str(pretty).unwrap();
    assert_eq!(a, b);
    let mut squeezed = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in pretty.trim_end().chars() {
        if in_string || !c.is_whitespace() {
            squeezed.push(c);
        }
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (_, false, '"') => in_string = !in_string,
            _ => {}
        }
    }
    assert_eq!(squeezed, line.trim_end());
}

#[test]
fn pretty_is_the_same_json_indented() {
    let d = temp_dir("pretty");
    let db = format!("sqlite:{}", d.join("l.db").display());
    let ledger = |extra: &[&str]| {
        let mut args = vec!["ledger", "--db", &db];
        args.extend_from_slice(extra);
        run(&args, b"")
    };
    same_content(&ok(ledger(&["init"])), &ok(ledger(&["init", "--pretty"])));
    // The flag is global: before the subcommand too.
    let (action, contract) = (example("action.json"), example("contract.json"));
    let propose = [
        "propose",
        "--action",
        &action,
        "--contract",
        &contract,
        "--proposer",
        "agent",
    ];
    let line = ok(ledger(&propose));
    let mut pretty = vec!["--pretty", "ledger", "--db", &db];
    pretty.extend_from_slice(&propose);
    same_content(&line, &ok(run(&pretty, b"")));
    same_content(&ok(ledger(&["show"])), &ok(ledger(&["show", "--pretty"])));
    // Outside the ledger: a check's verdict.
    let check = [
        "check",
        "--action",
        &action,
        "--context",
        &example("context.json"),
        "--approval",
        &example("approval.json"),
    ];
    let verdict = run(&check, b"");
    let mut pretty = check.to_vec();
    pretty.push("--pretty");
    let indented = run(&pretty, b"");
    assert_eq!(verdict.status.code(), indented.status.code());
    same_content(&stdout(&verdict), &stdout(&indented));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn pretty_is_refused_where_the_output_is_not_one_json_value() {
    let d = temp_dir("not-pretty");
    let db = format!("sqlite:{}", d.join("l.db").display());
    assert_eq!(
        run(&["ledger", "--db", &db, "init"], b"").status.code(),
        Some(0)
    );
    for args in [
        vec!["canon", "--pretty"],
        vec!["digest", "--pretty"],
        vec!["ledger", "--db", &db, "--pretty", "audit", "export"],
        vec!["ledger", "--db", &db, "show", "--table", "--pretty"],
    ] {
        let out = run(&args, b"{}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(64), "{args:?}: {stderr}");
        assert!(stderr.contains("--pretty"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn show_as_a_table() {
    let d = temp_dir("table");
    let db = format!("sqlite:{}", d.join("l.db").display());
    let ledger = |extra: &[&str]| {
        let mut args = vec!["ledger", "--db", &db];
        args.extend_from_slice(extra);
        run(&args, b"")
    };
    ok(ledger(&["init"]));
    assert_eq!(
        ok(ledger(&["show", "--table"])),
        "ID  STATE  TENANT  TOOL  JOB  REQUEST  PROPOSED\n"
    );
    let task: serde_json::Value = serde_json::from_str(&ok(ledger(&[
        "propose",
        "--action",
        &example("action.json"),
        "--contract",
        &example("contract.json"),
        "--proposer",
        "agent",
    ])))
    .unwrap();
    let id = task["id"].as_str().unwrap();
    let table = ok(ledger(&["show", "--table"]));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 2, "{table}");
    let cells: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        cells[..6],
        [
            id,
            "awaiting_approval",
            "tenant-a",
            "refund_create",
            "job-7f93",
            "req-b285"
        ],
        "{table}"
    );
    // PROPOSED is the task's created_at in RFC 3339, UTC.
    let created = task["created_at"].as_i64().unwrap();
    assert_eq!(
        actionseal_core::rfc3339::parse_ms(cells[6]).unwrap(),
        created
    );
    // Columns line up under their heads.
    assert_eq!(lines[0].find("STATE"), lines[1].find("awaiting_approval"));
    // One task: its fields, then its history.
    let one = ok(ledger(&["show", "--task", id, "--table"]));
    assert!(one.starts_with("FIELD "), "{one}");
    assert!(one.contains(&format!("\nid             {id}\n")), "{one}");
    assert!(one.contains("\nAT "), "{one}");
    assert!(one.contains(" proposed "), "{one}");
    // Arguments are never in a table.
    assert!(!one.contains("order-17") && !table.contains("order-17"));
    let _ = std::fs::remove_dir_all(d);
}
