//! Bad input gets a clear coded error, no panic, and nothing half-written.

mod common;

use actionseal_core::ledger::{Observed, Reported};
use actionseal_core::Code;
use actionseal_ledger::{ClaimRequest, Ledger};
use common::*;

fn open_err(url: &str) -> Code {
    match Ledger::open(url) {
        Ok(_) => panic!("{url} opened"),
        Err(e) => {
            assert!(!e.message().is_empty());
            e.code()
        }
    }
}

#[test]
fn malformed_urls() {
    for url in [
        "",
        "mysql://localhost/x",
        "sqlite:",
        "sqlite:x.db?synchronous=off",
        "postgres://u@localhost:notaport/db",
        "postgres://u@localhost/db extra",
    ] {
        assert_eq!(open_err(url), Code::InvalidLedgerUrl, "{url}");
    }
}

#[test]
fn unreachable_postgres_and_missing_directories() {
    // Port 1 on loopback: nothing listens there.
    assert_eq!(
        open_err("postgres://postgres@127.0.0.1:1/postgres?connect_timeout=5"),
        Code::LedgerUnavailable
    );
    assert_eq!(
        open_err("sqlite:/nonexistent-dir/ledger.db"),
        Code::LedgerUnavailable
    );
}

#[test]
fn files_that_are_not_ledgers() {
    let dir = temp_dir();
    let junk = dir.join("junk.db");
    std::fs::write(&junk, vec![b'x'; 8192]).unwrap();
    assert_eq!(
        open_err(&format!("sqlite:{}", junk.display())),
        Code::NotALedger
    );
    assert_eq!(
        std::fs::read(&junk).unwrap(),
        vec![b'x'; 8192],
        "left as it was"
    );
    let other = dir.join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE orders (id INTEGER)")
        .unwrap();
    assert_eq!(
        open_err(&format!("sqlite:{}", other.display())),
        Code::NotALedger
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_schema_from_the_future() {
    for engine in engines() {
        let db = Db::fresh(engine);
        db.open();
        db.sql("UPDATE ledger_schema SET version = 99");
        assert_eq!(open_err(&db.url), Code::LedgerSchemaTooNew, "{engine:?}");
    }
}

/// A schema version that no actionseal wrote (below 1, or none at all) is a database changed
/// by hand: it used to open as current.
#[test]
fn a_schema_version_no_actionseal_wrote() {
    for engine in engines() {
        for sql in [
            "UPDATE ledger_schema SET version = -1",
            "UPDATE ledger_schema SET version = 0",
            "DELETE FROM ledger_schema",
        ] {
            let db = Db::fresh(engine);
            db.open();
            db.sql(sql);
            assert_eq!(
                open_err(&db.url),
                Code::LedgerSchemaInvalid,
                "{engine:?}: {sql}"
            );
        }
    }
}

#[test]
fn missing_tasks_approvals_and_budgets_and_malformed_requests() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = refund_contract();
        let act = refund("job-1", "req-1", 2500);
        let task = l.propose(&act, &contract, "agent").unwrap();
        l.decide(&decision(&task, "d1", "approved", l.now(), HOUR))
            .unwrap();
        let before = l.audit_export().unwrap();
        let f = facts(&contract);
        let req = |task_id, executor, lease_ms, budget| ClaimRequest {
            task_id,
            action: &act,
            facts: &f,
            executor,
            lease_ms,
            budget,
            proof: Default::default(),
        };
        let codes = [
            l.task("task_nope").unwrap_err().code(),
            l.claim(&req("task_nope", "w", HOUR, None))
                .unwrap_err()
                .code(),
            l.complete("task_nope", 1, Reported::Succeeded, None, "w")
                .unwrap_err()
                .code(),
            l.reconcile("task_nope", Observed::Failed, None, "r")
                .unwrap_err()
                .code(),
            l.revoke("apr_nope", "admin").unwrap_err().code(),
            l.decide(&json(
                &actionseal_core::canonicalize(&decision(&task, "d2", "approved", 1, 2))
                    .replace(task.approval_id.as_deref().unwrap(), "apr_nope"),
            ))
            .unwrap_err()
            .code(),
            l.budget("nope").unwrap_err().code(),
            l.claim(&req(&task.id, "w", HOUR, Some("nope")))
                .unwrap_err()
                .code(),
            l.claim(&req(&task.id, "w", 0, None)).unwrap_err().code(),
            l.claim(&req(&task.id, " w", HOUR, None))
                .unwrap_err()
                .code(),
            l.decide(&json(r#"{"decision": "approved"}"#))
                .unwrap_err()
                .code(),
            l.claim(&ClaimRequest {
                facts: &json("{}"),
                ..req(&task.id, "w", HOUR, None)
            })
            .unwrap_err()
            .code(),
            l.propose(&act, &json("{}"), "agent").unwrap_err().code(),
            l.set_budget("b", -1).unwrap_err().code(),
        ];
        assert_eq!(
            codes,
            [
                Code::TaskNotFound,
                Code::TaskNotFound,
                Code::TaskNotFound,
                Code::TaskNotFound,
                Code::ApprovalNotFound,
                Code::ApprovalNotFound,
                Code::BudgetNotFound,
                Code::BudgetNotFound,
                Code::InvalidRequest,
                Code::InvalidRequest,
                Code::InvalidDecision,
                Code::InvalidContext,
                Code::InvalidContract,
                Code::InvalidRequest,
            ],
            "{engine:?}"
        );
        // Nothing was written by any of them, and the task is still claimable.
        assert_eq!(l.audit_export().unwrap(), before);
        assert_eq!(
            l.task(&task.id).unwrap().state,
            actionseal_core::ledger::State::Approved
        );
    }
}
