//! Audit tampering: the events table refuses UPDATE and DELETE; with the refusal switched off
//! by someone who owns the database, an edited row, a deleted row and two swapped rows are each
//! found at the right seq.

mod common;

use actionseal_core::ledger::{chain_of, Problem};
use actionseal_ledger::Ledger;
use common::*;

/// Three full lifecycles: 12 events; returns the chain of the first task, whose four events
/// are seqs 1 to 4 of that chain.
fn history(db: &Db) -> (Ledger, i64) {
    let l = db.open();
    let mut first = None;
    for i in 0..3 {
        let id = whole_lifecycle(&l, &format!("job-{i}"), &format!("d{i}"), "worker-1");
        first.get_or_insert_with(|| chain_of(Some(&id)));
    }
    let r = l.audit_verify().unwrap();
    assert_eq!((r.events, r.broken), (12, None));
    (l, first.unwrap())
}

fn unprotect(db: &Db) {
    match db.engine {
        Engine::Sqlite => {
            db.sql("DROP TRIGGER ledger_events_no_update; DROP TRIGGER ledger_events_no_delete;")
        }
        Engine::Postgres => db.sql("ALTER TABLE ledger_events DISABLE TRIGGER USER"),
    }
}

/// Where the audit breaks: (chain, seq, problem).
fn broken(l: &Ledger) -> Option<(i64, i64, Problem)> {
    let r = l.audit_verify().unwrap();
    let at = r
        .broken
        .map(|b| (b.chain.unwrap(), b.seq.unwrap(), b.problem));
    // The same verdict from the exported text alone, as any runtime would compute it.
    let alone = actionseal_core::ledger::verify_audit(l.audit_export().unwrap().as_bytes(), &[]);
    if at.map(|b| b.2) != Some(Problem::HeadMismatch) {
        assert_eq!(
            alone
                .broken
                .map(|b| (b.chain.unwrap(), b.seq.unwrap(), b.problem)),
            at
        );
    }
    at
}

#[test]
fn the_events_table_refuses_update_and_delete() {
    for engine in engines() {
        let db = Db::fresh(engine);
        history(&db);
        assert!(db.sql_fails("UPDATE ledger_events SET actor = 'x' WHERE seq = 1"));
        assert!(db.sql_fails("UPDATE ledger_events SET body = 'x' WHERE seq = 1"));
        assert!(db.sql_fails("DELETE FROM ledger_events WHERE seq = 1"));
        if engine == Engine::Postgres {
            assert!(db.sql_fails("TRUNCATE ledger_events"));
        }
        assert!(db.open().audit_verify().unwrap().broken.is_none());
    }
}

#[test]
fn an_edited_row_is_found_at_its_seq() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = history(&db);
        unprotect(&db);
        db.sql(&format!(
            "UPDATE ledger_events SET body = replace(body, '\"actor\":\"worker-1\"', \
             '\"actor\":\"mallory\"') WHERE chain = {c} AND seq = 3"
        ));
        assert_eq!(
            broken(&l),
            Some((c, 3, Problem::DigestMismatch)),
            "{engine:?}"
        );
    }
}

#[test]
fn a_deleted_row_is_found_at_its_seq() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = history(&db);
        unprotect(&db);
        db.sql(&format!(
            "DELETE FROM ledger_events WHERE chain = {c} AND seq = 2"
        ));
        assert_eq!(broken(&l), Some((c, 2, Problem::SeqGap)), "{engine:?}");
        // Removing the last ones is found against the recorded head.
        db.sql(&format!(
            "DELETE FROM ledger_events WHERE chain = {c} AND seq >= 2"
        ));
        assert_eq!(
            broken(&l),
            Some((c, 2, Problem::HeadMismatch)),
            "{engine:?}"
        );
    }
}

#[test]
fn two_swapped_rows_are_found_at_the_first() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = history(&db);
        unprotect(&db);
        // Events are stored in the order they were written (`id`): swap the places of two.
        db.sql(&format!(
            "CREATE TEMP TABLE swap AS SELECT
               (SELECT id FROM ledger_events WHERE chain = {c} AND seq = 2) AS a,
               (SELECT id FROM ledger_events WHERE chain = {c} AND seq = 3) AS b;
             UPDATE ledger_events SET id = -1 WHERE id = (SELECT a FROM swap);
             UPDATE ledger_events SET id = (SELECT a FROM swap) WHERE id = (SELECT b FROM swap);
             UPDATE ledger_events SET id = (SELECT b FROM swap) WHERE id = -1;"
        ));
        assert_eq!(broken(&l), Some((c, 2, Problem::SeqGap)), "{engine:?}");
    }
}
