//! Version 10's batch rows on both engines: a version 9 ledger with a batch half claimed
//! upgrades in place (SQLite stores its batches' item lists last and both batch tables with a
//! rowid, so that an item's claim reads the batch's head without walking the lists' overflow
//! pages), and its batch is then claimed, shown and audited as before.

mod common;

use actionseal_core::batch::Semantics;
use actionseal_core::ledger::State;
use actionseal_core::{Code, OwnedValue};
use actionseal_ledger::{Batch, ClaimOutcome, ClaimRequest};
use common::*;

/// The refund tool, batchable up to 40 items.
fn contract() -> OwnedValue {
    json(
        r#"{"tool": "refund_create", "version": "1", "effect": "write", "approval": "always",
            "cost_minor": 0,
            "args": {"type": "object", "required": ["order_id", "amount_minor"],
                     "properties": {"order_id": {"type": "string"},
                                    "amount_minor": {"type": "integer", "minimum": 1}}},
            "batch": {"max_items": 40}}"#,
    )
}

fn approval(b: &Batch, at: i64) -> OwnedValue {
    json(&format!(
        r#"{{"approval_id": "{}", "decision_id": "dec-1", "batch_id": "{}",
            "batch_digest": "{}", "decision": "approved", "approver": "user:bob",
            "decided_at": {at}, "expires_at": {}}}"#,
        b.approval_id,
        b.id,
        b.digest,
        at + HOUR
    ))
}

fn claim<'v>(task: &'v str, action: &'v OwnedValue, facts: &'v OwnedValue) -> ClaimRequest<'v, 'v> {
    ClaimRequest {
        task_id: task,
        action,
        facts,
        executor: "worker",
        lease_ms: HOUR,
        budget: None,
        proof: Default::default(),
    }
}

/// Turns a current ledger's batch tables back into version 9's, rows kept: on SQLite
/// `WITHOUT ROWID`, with the item lists amid the batch's columns.
fn downgrade_to_v9(db: &Db) {
    downgrade_to_v10(db);
    if db.engine == Engine::Sqlite {
        db.sql(
            "CREATE TABLE b9 (
               id TEXT PRIMARY KEY, lineage TEXT NOT NULL, tenant TEXT NOT NULL,
               semantics TEXT NOT NULL, header TEXT NOT NULL, digest TEXT NOT NULL,
               proposed_digest TEXT NOT NULL, items TEXT NOT NULL, proposed_items TEXT NOT NULL,
               amendments INTEGER NOT NULL, state TEXT NOT NULL,
               approval_id TEXT NOT NULL UNIQUE, decision_id TEXT, record TEXT, proof TEXT,
               contract TEXT NOT NULL, proposer TEXT NOT NULL, created_at INTEGER NOT NULL,
               updated_at INTEGER NOT NULL) WITHOUT ROWID;
             INSERT INTO b9 SELECT id, lineage, tenant, semantics, header, digest,
               proposed_digest, items, proposed_items, amendments, state, approval_id,
               decision_id, record, proof, contract, proposer, created_at, updated_at
               FROM ledger_batches;
             DROP TABLE ledger_batches;
             ALTER TABLE b9 RENAME TO ledger_batches;
             CREATE TABLE i9 (task_id TEXT PRIMARY KEY, lineage TEXT NOT NULL,
               idx INTEGER NOT NULL, batch TEXT, proof TEXT) WITHOUT ROWID;
             INSERT INTO i9 SELECT task_id, lineage, idx, batch, proof FROM ledger_batch_items;
             DROP TABLE ledger_batch_items;
             ALTER TABLE i9 RENAME TO ledger_batch_items;",
        );
    }
    db.sql("UPDATE ledger_schema SET version = 9;");
}

#[test]
fn a_version_9_ledger_keeps_its_batches_through_the_upgrade() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let c = contract();
        let actions: Vec<OwnedValue> = (0..5)
            .map(|i| {
                let args = format!(r#"{{"order_id": "order-{i}", "amount_minor": 100}}"#);
                action(&c, &args, "job-1", &format!("req-{i}"))
            })
            .collect();
        let b = l
            .propose_batch(&actions, &c, Semantics::PerItem, "agent")
            .unwrap();
        l.decide_batch(&approval(&b, l.now())).unwrap();
        let ids: Vec<String> = b.items.iter().map(|(id, _)| id.clone()).collect();
        let f = facts(&c);
        for i in 0..2 {
            let out = l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap();
            assert!(matches!(out, ClaimOutcome::Claimed(..)), "{engine:?} {i}");
        }
        let before = l.batch(&b.id).unwrap();
        drop(l);
        downgrade_to_v9(&db);

        let l = db.open();
        assert_eq!(
            db.texts("SELECT CAST(max(version) AS TEXT) FROM ledger_schema"),
            vec![vec![Some("11".to_owned())]],
            "{engine:?}"
        );
        if engine == Engine::Sqlite {
            // The lists last; both tables with a rowid.
            assert_eq!(
                db.texts(
                    "SELECT name FROM pragma_table_info('ledger_batches') \
                     WHERE cid >= 17 ORDER BY cid"
                ),
                vec![
                    vec![Some("items".to_owned())],
                    vec![Some("proposed_items".to_owned())]
                ]
            );
            for table in ["ledger_batches", "ledger_batch_items"] {
                let sql = db.texts(&format!(
                    "SELECT sql FROM sqlite_master WHERE name = '{table}'"
                ));
                let sql = sql[0][0].as_deref().unwrap();
                assert!(!sql.contains("WITHOUT ROWID"), "{sql}");
            }
        }
        let after = l.batch(&b.id).unwrap();
        assert_eq!(
            (after.digest, &after.items, after.state),
            (before.digest, &before.items, before.state),
            "{engine:?}"
        );
        // The claimed items stay claimed once; the others are claimed now, against the
        // decision and the inclusion proofs the upgrade carried over.
        let again = l.claim_item(&claim(&ids[0], &actions[0], &f)).unwrap_err();
        assert_eq!(again.code(), Code::AlreadyClaimed, "{engine:?}");
        for i in 2..5 {
            let out = l.claim_item(&claim(&ids[i], &actions[i], &f)).unwrap();
            assert!(matches!(out, ClaimOutcome::Claimed(..)), "{engine:?} {i}");
        }
        assert_eq!(
            ids.iter()
                .map(|id| l.task(id).unwrap().state)
                .collect::<Vec<_>>(),
            vec![State::Claimed; 5]
        );
        let report = l.audit_verify().unwrap();
        assert!(report.broken.is_none(), "{engine:?}: {:?}", report.broken);
    }
}
