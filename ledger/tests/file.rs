//! The SQLite file itself: how a new ledger file is laid out, that a file laid out otherwise
//! (by an older build) keeps its layout and works, and that docs/LEDGER.md's conversion works.

mod common;

use actionseal_core::ledger::State;
use actionseal_ledger::Ledger;
use common::*;

fn pragma(path: &std::path::Path, name: &str) -> String {
    let c = rusqlite::Connection::open(path).unwrap();
    c.query_row(&format!("PRAGMA {name}"), [], |r| {
        r.get::<_, rusqlite::types::Value>(0)
    })
    .map(|v| match v {
        rusqlite::types::Value::Integer(n) => n.to_string(),
        rusqlite::types::Value::Text(s) => s,
        other => format!("{other:?}"),
    })
    .unwrap()
}

/// One whole lifecycle, to show the file works.
fn lifecycle(l: &Ledger, job: &str) {
    let id = whole_lifecycle(l, job, &format!("{job}-d"), "worker-1");
    assert_eq!(l.task(&id).unwrap().state, State::Succeeded);
}

#[test]
fn a_new_file_has_small_pages_and_a_log() {
    let db = Db::fresh(Engine::Sqlite);
    let l = db.open();
    lifecycle(&l, "job-new");
    let path = db.path.as_ref().unwrap();
    assert_eq!(pragma(path, "page_size"), "2048");
    assert_eq!(pragma(path, "journal_mode"), "wal");
}

#[test]
fn a_file_with_other_pages_keeps_them_and_works() {
    let db = Db::fresh(Engine::Sqlite);
    let path = db.path.as_ref().unwrap();
    // As an older build left it: SQLite's default page size, fixed by WAL.
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("PRAGMA page_size=4096;").unwrap();
    let mode: String = c
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(c);
    let l = db.open();
    lifecycle(&l, "job-old");
    drop(l);
    assert_eq!(pragma(path, "page_size"), "4096");
    let l = db.open();
    lifecycle(&l, "job-reopened");
    drop(l);

    // The conversion docs/LEDGER.md gives, with no process using the file.
    rusqlite::Connection::open(path)
        .unwrap()
        .execute_batch(
            "PRAGMA journal_mode=DELETE; PRAGMA page_size=2048; VACUUM; PRAGMA journal_mode=WAL;",
        )
        .unwrap();
    assert_eq!(pragma(path, "page_size"), "2048");
    assert_eq!(pragma(path, "journal_mode"), "wal");
    let l = db.open();
    lifecycle(&l, "job-converted");
    let report = l.audit_verify().unwrap();
    assert!(report.broken.is_none());
    assert_eq!(report.events, 12, "three lifecycles of four events each");
}
