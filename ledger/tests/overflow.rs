//! Counters and amounts read from a hostile database file never wrap: a fence, an approval
//! round, a budget's minor units or an audit sequence altered to the end of the 64-bit range
//! fails the operation with `ledger_value_out_of_range`, and nothing of it is written.

mod common;

use actionseal_core::ledger::{Reported, State};
use actionseal_core::Code;
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, Task};
use common::*;

const MAX: i64 = i64::MAX;

fn claim(l: &Ledger, task: &Task, budget: Option<&str>) -> actionseal_core::Result<ClaimOutcome> {
    l.claim(&ClaimRequest {
        task_id: &task.id,
        action: task.action.value(),
        facts: &facts(&refund_contract()),
        executor: "worker-1",
        lease_ms: HOUR,
        budget,
        proof: Default::default(),
    })
}

/// An approved refund of `job`.
fn approved(l: &Ledger, job: &str) -> Task {
    let t = l
        .propose(&refund(job, "req-1", 2500), &refund_contract(), "agent")
        .unwrap();
    l.decide(&decision(
        &t,
        &format!("dec-{job}"),
        "approved",
        l.now(),
        HOUR,
    ))
    .unwrap()
    .task
}

#[test]
fn a_fence_at_the_end_of_the_range_is_refused() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let task = approved(&db.open(), "job-1");
        db.sql(&format!(
            "UPDATE ledger_tasks SET fence = {MAX} WHERE id = '{}'",
            task.id
        ));
        // A handle that did not write the task itself reads it as altered.
        let l = db.open();
        let e = claim(&l, &task, None).unwrap_err();
        assert_eq!(e.code(), Code::LedgerValueOutOfRange, "{engine:?}");
        let t = l.task(&task.id).unwrap();
        assert_eq!((t.state, t.fence), (State::Approved, MAX));
    }
}

#[test]
fn budget_amounts_at_the_end_of_the_range_are_refused() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        l.set_budget("refunds", 1_000_000).unwrap();
        let task = approved(&l, "job-1");
        let ClaimOutcome::Claimed(c, _) = claim(&l, &task, Some("refunds")).unwrap() else {
            panic!("{engine:?}: not claimed")
        };
        drop(l);
        db.sql(&format!(
            "UPDATE ledger_budgets SET spent_minor = {MAX} WHERE name = 'refunds'"
        ));
        let l = db.open();
        let e = l
            .complete(&task.id, c.fence, Reported::Succeeded, None, "worker-1")
            .unwrap_err();
        assert_eq!(e.code(), Code::LedgerValueOutOfRange, "{engine:?}");
        assert_eq!(l.task(&task.id).unwrap().state, State::Claimed);
        // The reservation: a reserved amount at the end of the range cannot take another.
        db.sql(&format!(
            "UPDATE ledger_budgets SET spent_minor = {}, reserved_minor = {MAX}, \
             limit_minor = {MAX} WHERE name = 'refunds'",
            -MAX
        ));
        let other = approved(&l, "job-2");
        let e = claim(&l, &other, Some("refunds")).unwrap_err();
        assert_eq!(e.code(), Code::LedgerValueOutOfRange, "{engine:?}");
        assert_eq!(l.task(&other.id).unwrap().state, State::Approved);
    }
}

#[test]
fn an_audit_sequence_at_the_end_of_the_range_is_refused() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let task = approved(&l, "job-1");
        drop(l);
        db.sql(&format!("UPDATE ledger_head SET seq = {MAX}"));
        let l = db.open();
        let e = claim(&l, &task, None).unwrap_err();
        // SQLite's chain is sealed by the ledger; PostgreSQL's statement refuses the sum itself.
        let want = match engine {
            Engine::Sqlite => Code::LedgerValueOutOfRange,
            Engine::Postgres => Code::LedgerStorage,
        };
        assert_eq!(e.code(), want, "{engine:?}");
        assert_eq!(l.task(&task.id).unwrap().state, State::Approved);
    }
}
