//! Audit tampering: the events table refuses UPDATE and DELETE; with the refusal switched off
//! by someone who owns the database, an edited row, a deleted row and two swapped rows are each
//! found at the right seq. The red team's four cases, each of which `audit verify` let through
//! before: a task row rewound (and claimed again), a task's last event moved back, the last
//! event removed with its chain's head, an event edited and its chain sealed again (found
//! against heads exported before). On PostgreSQL the edits are the owner's (a superuser's): an
//! application role that does not own the tables cannot make them to the events.

mod common;

use actionseal_core::ledger::{chain_of, Break, ExportedHeads, Problem};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger};
use common::*;

/// Three full lifecycles: 12 events; returns the first task and its chain, whose four events
/// are seqs 1 to 4 of that chain.
fn history(db: &Db) -> (Ledger, String, i64) {
    let l = db.open();
    let mut first = None;
    for i in 0..3 {
        let id = whole_lifecycle(&l, &format!("job-{i}"), &format!("d{i}"), "worker-1");
        first.get_or_insert(id);
    }
    let r = l.audit_verify().unwrap();
    assert_eq!((r.events, r.broken), (12, None));
    let id = first.unwrap();
    let c = chain_of(Some(&id));
    (l, id, c)
}

/// The first break of the ledger's own verification.
fn break_of(l: &Ledger) -> Option<Break> {
    l.audit_verify().unwrap().broken
}

/// Where the audit breaks: (chain, seq, problem).
fn broken(l: &Ledger) -> Option<(i64, i64, Problem)> {
    let at = break_of(l).map(|b| (b.chain.unwrap(), b.seq.unwrap(), b.problem));
    // The same verdict from the exported text alone, as any runtime would compute it (it
    // has neither the recorded heads nor the rows).
    let alone = actionseal_core::ledger::verify_audit(l.audit_export().unwrap().as_bytes(), &[]);
    if !matches!(
        at.map(|b| b.2),
        Some(Problem::HeadMismatch | Problem::RowMismatch)
    ) {
        assert_eq!(
            alone
                .broken
                .map(|b| (b.chain.unwrap(), b.seq.unwrap(), b.problem)),
            at
        );
    }
    at
}

/// (problem, task, field, chain, seq) of a break about a task.
fn about_task(b: Option<Break>) -> Option<(Problem, String, &'static str, i64, i64)> {
    b.map(|b| {
        (
            b.problem,
            b.task.unwrap_or_default(),
            b.field.unwrap_or_default(),
            b.chain.unwrap(),
            b.seq.unwrap(),
        )
    })
}

/// The refund of `job` claimed again by another handle on the database (one that has not
/// itself written the task, so it reads the row as stored).
fn claim_again(db: &Db, job: &str) -> ClaimOutcome {
    let (contract, act) = (refund_contract(), refund(job, "req-1", 2500));
    let task = actionseal_core::ledger::task_id("tenant-a", job, "req-1");
    db.open()
        .claim(&ClaimRequest {
            task_id: &task,
            action: &act,
            facts: &facts(&contract),
            executor: "worker-2",
            lease_ms: HOUR,
            budget: None,
            proof: Default::default(),
        })
        .unwrap()
}

#[test]
fn the_events_table_refuses_update_and_delete() {
    for engine in engines() {
        let db = Db::fresh(engine);
        history(&db);
        assert!(db.sql_fails("UPDATE ledger_events SET kind = 'x' WHERE seq = 1"));
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
        let (l, _, c) = history(&db);
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
        let (l, _, c) = history(&db);
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
        let (l, _, c) = history(&db);
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

/// Red team 1: a task row moved from `succeeded` back to `approved`, after which a second
/// claim succeeded.
#[test]
fn a_rewound_row_and_the_second_claim_it_let_through_are_found() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, id, c) = history(&db);
        db.sql(&format!(
            "UPDATE ledger_tasks SET state = 'approved' WHERE id = '{id}'"
        ));
        // The row is not what its events (which end in `succeeded`) leave it at.
        assert_eq!(
            about_task(break_of(&l)),
            Some((Problem::RowMismatch, id.clone(), "state", c, 4)),
            "{engine:?}"
        );
        // The rewound row is claimed a second time ...
        let out = claim_again(&db, "job-0");
        assert!(matches!(out, ClaimOutcome::Claimed(..)), "{engine:?}");
        // ... and that claim cannot follow the task's success: the export alone shows it.
        assert_eq!(
            about_task(break_of(&l)),
            Some((Problem::InvalidTransition, id, "state", c, 5)),
            "{engine:?}"
        );
        assert_eq!(broken(&l), Some((c, 5, Problem::InvalidTransition)));
    }
}

/// Red team 2: `ledger_tasks.last_event` moved back one event.
#[test]
fn a_last_event_moved_back_is_found() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, id, c) = history(&db);
        db.sql(&format!(
            "UPDATE ledger_tasks SET last_event = (SELECT task_prev FROM ledger_events \
             WHERE id = ledger_tasks.last_event) WHERE id = '{id}'"
        ));
        assert_eq!(
            kinds(&l, &id).len(),
            3,
            "{engine:?}: the history lost an event"
        );
        assert_eq!(
            about_task(break_of(&l)),
            Some((Problem::RowMismatch, id, "last_event", c, 4)),
            "{engine:?}"
        );
    }
}

/// Red team 3: the last event deleted with the chain's head moved back. Its task's row still
/// says what that event did; heads exported before it was deleted say the chain was longer.
#[test]
fn a_last_event_removed_with_its_head_is_found() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, id, c) = history(&db);
        let heads = l.audit_heads().unwrap();
        unprotect(&db);
        db.sql(&format!(
            "DELETE FROM ledger_events WHERE chain = {c} AND seq = 4;
             UPDATE ledger_head SET seq = 3, digest = (SELECT digest FROM ledger_events
               WHERE chain = {c} AND seq = 3) WHERE chain = {c};"
        ));
        // The chain alone holds together.
        let alone =
            actionseal_core::ledger::verify_audit(l.audit_export().unwrap().as_bytes(), &[]);
        assert!(alone.broken.is_none(), "{engine:?}");
        // The row says `succeeded`, its events now end at `claimed`.
        assert_eq!(
            about_task(break_of(&l)),
            Some((Problem::RowMismatch, id, "state", c, 3)),
            "{engine:?}"
        );
        let b = l.audit_verify_with(Some(&heads)).unwrap().broken.unwrap();
        assert_eq!(
            (b.chain, b.seq, b.problem),
            (Some(c), Some(4), Problem::Truncated),
            "{engine:?}"
        );
    }
}

/// Red team 4: an event edited and its chain sealed again. Nothing in the database can tell
/// (the edit changes no transition); heads exported before it can.
#[test]
fn a_resealed_chain_is_found_against_exported_heads() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, _, c) = history(&db);
        let heads = l.audit_heads().unwrap();
        // The file a keeper holds, read back.
        let kept =
            ExportedHeads::from_value(&json(&actionseal_core::canonicalize(&heads.to_value())))
                .unwrap();
        assert_eq!(kept, heads);
        let pinned = heads.heads.iter().find(|h| h.0 == c).unwrap().1;
        // Work after the export is no break.
        whole_lifecycle(&l, "job-9", "d9", "worker-1");
        assert!(l.audit_verify_with(Some(&kept)).unwrap().broken.is_none());
        unprotect(&db);
        // The claim of seq 3 now names another executor.
        reseal(&db, c, 3, |e| e.actor = "mallory".into());
        assert!(
            break_of(&l).is_none(),
            "{engine:?}: only the exported heads can tell"
        );
        let b = l.audit_verify_with(Some(&kept)).unwrap().broken.unwrap();
        assert_eq!(
            (b.chain, b.seq, b.problem),
            (Some(c), Some(pinned), Problem::Resealed),
            "{engine:?}"
        );
    }
}

/// Heads are exported only from an audit that verifies.
#[test]
fn no_heads_are_exported_from_a_broken_audit() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, id, _) = history(&db);
        db.sql(&format!(
            "UPDATE ledger_tasks SET fence = 7 WHERE id = '{id}'"
        ));
        let e = l.audit_heads().unwrap_err();
        assert_eq!(
            e.code(),
            actionseal_core::Code::AuditChainBroken,
            "{engine:?}"
        );
        assert!(e.message().contains("fence"), "{e}");
    }
}

/// Item 11: a ledger whose append-only triggers were dropped, disabled or altered used to
/// open silently. It opens with them restored, and the audit records what was found.
#[test]
fn missing_or_altered_triggers_are_restored_and_recorded() {
    for engine in engines() {
        let cases: &[(&str, &[&str])] = match engine {
            Engine::Sqlite => &[
                (
                    "DROP TRIGGER ledger_events_no_update",
                    &["ledger_events_no_update: missing"],
                ),
                (
                    "DROP TRIGGER ledger_events_no_delete;
                     CREATE TRIGGER ledger_events_no_delete BEFORE DELETE ON ledger_events
                     WHEN 0 BEGIN SELECT RAISE(ABORT, 'ledger_events is append-only'); END;",
                    &["ledger_events_no_delete: altered"],
                ),
            ],
            Engine::Postgres => &[
                (
                    "DROP TRIGGER ledger_events_no_truncate ON ledger_events",
                    &["ledger_events_no_truncate: missing"],
                ),
                (
                    "ALTER TABLE ledger_events DISABLE TRIGGER USER",
                    &[
                        "ledger_events_no_change: disabled",
                        "ledger_events_no_truncate: disabled",
                    ],
                ),
                (
                    "CREATE OR REPLACE FUNCTION ledger_events_append_only() RETURNS trigger
                     LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
                    &[
                        "ledger_events_no_change: altered",
                        "ledger_events_no_truncate: altered",
                    ],
                ),
                (
                    "DROP TRIGGER ledger_events_no_change ON ledger_events;
                     CREATE TRIGGER ledger_events_no_change BEFORE UPDATE OF digest ON
                     ledger_events FOR EACH ROW EXECUTE FUNCTION ledger_events_append_only();",
                    &["ledger_events_no_change: altered"],
                ),
            ],
        };
        for (sql, found) in cases {
            let db = Db::fresh(engine);
            drop(history(&db));
            db.sql(sql);
            let l = db.open();
            assert!(
                db.sql_fails("UPDATE ledger_events SET body = 'x' WHERE seq = 1"),
                "{engine:?}: {sql}"
            );
            assert!(db.sql_fails("DELETE FROM ledger_events WHERE seq = 1"));
            let events = audit_events(&l);
            let last = events.last().unwrap();
            assert_eq!(str_field(last, "kind"), "append_only_restored");
            assert_eq!(
                (field(last, "task"), field(last, "chain")),
                (&actionseal_core::Value::Null, &json("0"))
            );
            assert_eq!(
                field(last, "detail"),
                &json(&format!(r#"{{"problems": {found:?}}}"#)),
                "{engine:?}: {sql}"
            );
            let r = l.audit_verify().unwrap();
            assert_eq!((r.events, r.broken), (13, None), "{engine:?}");
            // Intact again: opening records nothing more.
            drop(l);
            assert_eq!(audit_events(&db.open()).len(), 13);
        }
    }
}

/// On PostgreSQL, a role that does not own the tables (the application's, as it should be
/// deployed) cannot change, remove or unprotect events; what it can change (a task row) the
/// audit finds; and it cannot open a ledger whose triggers the owner removed.
#[test]
fn a_role_that_does_not_own_the_ledger() {
    if !engines().contains(&Engine::Postgres) {
        return;
    }
    let db = Db::fresh(Engine::Postgres);
    let (l, id, c) = history(&db);
    drop(l);
    let role = format!("app_{}", std::process::id());
    db.sql(&format!(
        "DO $$ BEGIN CREATE ROLE {role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
         GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {role};
         GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role};"
    ));
    let app = db.as_role(&role);
    for sql in [
        "UPDATE ledger_events SET body = 'x' WHERE seq = 1",
        "DELETE FROM ledger_events WHERE seq = 1",
        "TRUNCATE ledger_events",
        "ALTER TABLE ledger_events DISABLE TRIGGER USER",
        "DROP TRIGGER ledger_events_no_change ON ledger_events",
        "CREATE OR REPLACE FUNCTION ledger_events_append_only() RETURNS trigger
         LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
    ] {
        assert!(app.sql_fails(sql), "the application role could: {sql}");
    }
    // The owner removes the protection: the application role cannot open the ledger ...
    unprotect(&db);
    let e = Ledger::open(&app.url).err().unwrap();
    assert_eq!(e.code(), actionseal_core::Code::LedgerUnprotected, "{e}");
    // ... until the owner opens it, which restores it.
    drop(db.open());
    let l = app.open();
    assert!(app.sql_fails("UPDATE ledger_events SET body = 'x' WHERE seq = 1"));
    // A task row it rewinds is found.
    app.sql(&format!(
        "UPDATE ledger_tasks SET state = 'approved' WHERE id = '{id}'"
    ));
    assert_eq!(
        about_task(break_of(&l)),
        Some((Problem::RowMismatch, id, "state", c, 4))
    );
}

/// What version 5 keeps on the rows for decisions, held to the events like the rest: a round
/// moved earlier (it would admit a decision dated before the round), a proof put on a bare
/// decision (a claim requiring proof would take it), and the ledger's proof policy weakened
/// without its audited change.
#[test]
fn decision_columns_and_the_proof_policy_are_held_to_their_events() {
    use actionseal_core::ProofRequirement;
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, id, c) = history(&db);
        let started = db.texts(&format!(
            "SELECT CAST(round_started_at AS TEXT) FROM ledger_tasks WHERE id = '{id}'"
        ))[0][0]
            .clone()
            .unwrap();
        db.sql(&format!(
            "UPDATE ledger_tasks SET round_started_at = 0 WHERE id = '{id}'"
        ));
        assert_eq!(
            about_task(break_of(&l)),
            Some((Problem::RowMismatch, id.clone(), "round_started_at", c, 4)),
            "{engine:?}"
        );
        db.sql(&format!(
            "UPDATE ledger_tasks SET round_started_at = {started},
               proof = '{{\"proof\":{{}},\"signer\":{{}},\"verified_at\":1}}' WHERE id = '{id}'"
        ));
        assert_eq!(
            about_task(break_of(&l)),
            Some((Problem::RowMismatch, id.clone(), "proof", c, 4)),
            "{engine:?}"
        );
        db.sql(&format!(
            "UPDATE ledger_tasks SET proof = NULL WHERE id = '{id}'"
        ));
        assert!(break_of(&l).is_none(), "{engine:?}");
        // The policy: changed through the ledger it verifies; weakened by hand it does not.
        l.set_proof_requirement(ProofRequirement::Required, "admin", "proof from now on")
            .unwrap();
        assert!(break_of(&l).is_none(), "{engine:?}");
        db.sql("UPDATE ledger_policy SET proof = 'optional'");
        let b = break_of(&l).unwrap();
        assert_eq!(
            (b.problem, b.task, b.field, b.chain),
            (Problem::RowMismatch, None, Some("proof"), Some(0)),
            "{engine:?}"
        );
    }
}
