//! Integers a hostile database holds: the ledger stores only safe integers (within
//! ±(2^53 − 1), which JSON carries exactly in every runtime), so a larger one in a task or a
//! budget row is refused as `ledger_value_out_of_range` when read, never handed out as `null`
//! (what the bindings used to return for it) nor rounded.

mod common;

use actionseal_core::{Code, MAX_SAFE_INTEGER};
use actionseal_ledger::Ledger;
use common::*;

/// Reads the edited row: the task's fence or the budget's spent, or the error's code.
fn read(l: &Ledger, table: &str, id: &str) -> Result<i64, Code> {
    let got = match table {
        "ledger_tasks" => l.task(id).map(|t| t.fence),
        _ => l.budget("team").map(|b| b.spent_minor),
    };
    got.map_err(|e| e.code())
}

#[test]
fn an_unsafe_integer_in_a_row_is_refused_when_read() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let id = whole_lifecycle(&l, "job-1", "d1", "worker-1");
        l.set_budget("team", 100).unwrap();
        drop(l);
        for (table, column, value) in [
            ("ledger_tasks", "fence", 1_i64 << 60),
            ("ledger_tasks", "fence", MAX_SAFE_INTEGER + 1),
            ("ledger_tasks", "reserved", -MAX_SAFE_INTEGER - 1),
            ("ledger_tasks", "updated_at", i64::MAX),
            ("ledger_tasks", "lease_until", i64::MIN),
            ("ledger_budgets", "spent_minor", 1_i64 << 60),
        ] {
            let what = format!("{engine:?} {table}.{column} = {value}");
            db.sql(&format!("UPDATE {table} SET {column} = {value}"));
            let l = db.open();
            assert_eq!(
                read(&l, table, &id),
                Err(Code::LedgerValueOutOfRange),
                "{what}"
            );
            if table == "ledger_tasks" {
                let listed = l.tasks(None, None).map_err(|e| e.code());
                assert_eq!(listed.err(), Some(Code::LedgerValueOutOfRange), "{what}");
            }
            // The largest safe integer is the ledger's own.
            db.sql(&format!("UPDATE {table} SET {column} = {MAX_SAFE_INTEGER}"));
            let back = read(&db.open(), table, &id);
            match column {
                "fence" | "spent_minor" => assert_eq!(back, Ok(MAX_SAFE_INTEGER), "{what}"),
                _ => assert!(back.is_ok(), "{what}"),
            }
        }
    }
}
