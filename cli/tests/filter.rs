//! `ledger show` and `ledger audit export` by tenant, state and time, a page at a time.

mod common;

use common::{example, run, temp_dir, write};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn ok(o: &Output) -> String {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn ledger(db: &str, args: &[&str]) -> Output {
    let mut all = vec!["ledger", "--db", db];
    all.extend_from_slice(args);
    run(&all, b"")
}

/// The example's action, in `tenant` for `job`.
fn action(dir: &Path, tenant: &str, job: &str) -> String {
    let text = std::fs::read_to_string(example("action.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["tenant"] = tenant.into();
    v["job_id"] = job.into();
    write(&dir.join(format!("{job}.json")), &v.to_string())
}

fn ids(list: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(list).unwrap();
    let tasks = v.get("tasks").unwrap_or(&v).as_array().unwrap().clone();
    tasks
        .iter()
        .map(|t| t["job_id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn show_and_export_filtered_and_paged() {
    let d = temp_dir("filter");
    let db = format!("sqlite:{}", d.join("l.db").display());
    ok(&ledger(&db, &["init"]));
    let contract = example("contract.json");
    for (tenant, job) in [("tenant-a", "j1"), ("tenant-b", "j2"), ("tenant-a", "j3")] {
        let a = action(&d, tenant, job);
        ok(&ledger(
            &db,
            &[
                "propose",
                "--action",
                &a,
                "--contract",
                &contract,
                "--proposer",
                "agent",
            ],
        ));
    }
    assert_eq!(ids(&ok(&ledger(&db, &["show"]))), ["j1", "j2", "j3"]);
    assert_eq!(
        ids(&ok(&ledger(&db, &["show", "--tenant", "tenant-a"]))),
        ["j1", "j3"]
    );
    // Times as ms or RFC 3339: nothing was proposed before 2000 or after 2200.
    let none = |args: &[&str]| ids(&ok(&ledger(&db, args))).is_empty();
    assert!(none(&["show", "--until", "946684800000"]));
    assert!(none(&["show", "--since", "2200-01-01T00:00:00Z"]));
    assert!(!none(&["show", "--since", "2000-01-01T01:00:00+01:00"]));
    // Pages: an object with the next cursor, null on the last.
    let first: Value = serde_json::from_str(&ok(&ledger(&db, &["show", "--limit", "2"]))).unwrap();
    assert_eq!(ids(&first.to_string()), ["j1", "j2"]);
    let next = first["next"].as_str().unwrap();
    let rest: Value = serde_json::from_str(&ok(&ledger(
        &db,
        &["show", "--limit", "2", "--after", next],
    )))
    .unwrap();
    assert_eq!(ids(&rest.to_string()), ["j3"]);
    assert_eq!(rest["next"], Value::Null);
    // Bad input: coded (2); a task with a filter is a usage error (64).
    for (args, status, code) in [
        (vec!["show", "--since", "yesterday"], 2, "invalid_request"),
        (vec!["show", "--after", "bogus"], 2, "invalid_request"),
        (vec!["show", "--limit", "0"], 2, "invalid_request"),
        (vec!["show", "--state", "sleeping"], 2, ""),
        (
            vec!["show", "--task", "task_x", "--tenant", "tenant-a"],
            64,
            "",
        ),
    ] {
        let out = ledger(&db, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
        assert!(stderr.contains(code), "{stderr}");
    }

    // The export a page at a time: `next: CURSOR` on stderr while more follow; the pages
    // joined are the export, which verifies.
    let whole = ok(&ledger(&db, &["audit", "export"]));
    assert_eq!(whole.lines().count(), 3);
    let mut joined = String::new();
    let mut after: Option<String> = None;
    loop {
        let mut args = vec!["audit", "export", "--limit", "2"];
        if let Some(a) = &after {
            args.extend(["--after", a.as_str()]);
        }
        let out = ledger(&db, &args);
        joined.push_str(&ok(&out));
        let stderr = String::from_utf8(out.stderr).unwrap();
        match stderr.strip_prefix("next: ") {
            Some(cursor) => after = Some(cursor.trim_end().to_owned()),
            None => {
                assert!(stderr.is_empty(), "{stderr}");
                break;
            }
        }
    }
    assert_eq!(joined, whole);
    let file = write(&d.join("audit.jsonl"), &joined);
    let verified = run(&["ledger", "audit", "verify", "--file", &file], b"");
    assert_eq!(verified.status.code(), Some(0));
    let b = ok(&ledger(&db, &["audit", "export", "--tenant", "tenant-b"]));
    assert_eq!(b.lines().count(), 1);
    assert!(b.contains("\"tenant\":\"tenant-b\""));
    let _ = std::fs::remove_dir_all(d);
}
