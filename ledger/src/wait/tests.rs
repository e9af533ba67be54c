//! A commit between a wait's read and its block still wakes it, on both engines: the task is
//! approved right after the wait read it as awaiting approval. A wait that read first and
//! watched second (the naive order) would sleep through that approval until its timeout, and
//! fail these tests.

use crate::{Ledger, Task, Waited};
use actionseal_core::ledger::State;
use actionseal_core::{parse, Action, ActionIds, Contract, Options, OwnedValue};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(10);

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

/// A fresh database: a SQLite file, or a PostgreSQL database when `scripts/pg run` gives one
/// (dropped at the end).
struct Db {
    url: String,
    drop: Box<dyn FnOnce()>,
}

impl Drop for Db {
    fn drop(&mut self) {
        std::mem::replace(&mut self.drop, Box::new(|| {}))();
    }
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn databases() -> Vec<Db> {
    let name = format!(
        "wait_{}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    );
    let dir = std::env::temp_dir().join(format!("actionseal-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut dbs = vec![Db {
        url: format!("sqlite:{}", dir.join("ledger.db").display()),
        drop: Box::new(move || drop(std::fs::remove_dir_all(dir))),
    }];
    match std::env::var("ACTIONSEAL_TEST_PG").as_deref() {
        Ok("skip") => eprintln!("ACTIONSEAL_TEST_PG=skip: PostgreSQL tests skipped on request"),
        Ok(base) => {
            let base = base.to_owned();
            let mut admin = postgres::Client::connect(&base, postgres::NoTls).unwrap();
            admin
                .batch_execute(&format!("CREATE DATABASE {name}"))
                .unwrap();
            let (prefix, _) = base.rsplit_once('/').unwrap();
            dbs.push(Db {
                url: format!("{prefix}/{name}"),
                drop: Box::new(move || {
                    let _ = admin.batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"));
                }),
            });
        }
        Err(_) => panic!("ACTIONSEAL_TEST_PG is not set: run the tests through `scripts/pg run`"),
    }
    dbs
}

/// A refund of 2500 minor units: awaiting a reviewer.
fn awaiting(l: &Ledger) -> (Task, OwnedValue) {
    let contract = json(include_str!("../../../examples/refund/contract.json"));
    let c = Contract::from_value(&contract).unwrap();
    let ids = ActionIds {
        tenant: "tenant-a",
        subject: "user:alice",
        job_id: "job-1",
        request_id: "req-1",
        policy_version: "refund-policy-2026-08-01",
    };
    let args = json(r#"{"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}"#);
    let action = Action::build(&c, &args, &ids).unwrap().value().clone();
    let task = l.propose(&action, &contract, "agent").unwrap();
    assert_eq!(task.state, State::AwaitingApproval);
    let decision = json(&format!(
        r#"{{"approval_id": "{}", "decision_id": "d1", "job_id": "job-1", "request_id": "req-1",
            "action_digest": "{}", "decision": "approved", "approver": "user:bob",
            "decided_at": {}, "expires_at": {}}}"#,
        task.approval_id.as_deref().unwrap(),
        task.action_digest,
        l.now(),
        l.now() + 3_600_000
    ));
    (task, decision)
}

/// Waits on `waiter` while `approver` approves the task just after the wait's first read.
fn approved_after_the_read(waiter: &Ledger, approver: &Ledger) {
    let (task, decision) = awaiting(waiter);
    let mut reads = 0;
    let started = std::time::Instant::now();
    let out = waiter
        .wait_reading(&task.id, &[State::Approved], TIMEOUT, &mut |t| {
            reads += 1;
            if reads == 1 {
                assert_eq!(t.state, State::AwaitingApproval);
                approver.decide(&decision).unwrap();
            }
        })
        .unwrap();
    assert!(
        matches!(&out, Waited::Reached(t) if t.state == State::Approved),
        "{}: the approval after the read was missed: {out:?}",
        waiter.backend()
    );
    // The naive order reads it approved too, but only once the timeout has passed.
    assert!(
        started.elapsed() < TIMEOUT,
        "{}: woken by the timeout, not by the approval",
        waiter.backend()
    );
    assert_eq!(
        reads, 2,
        "one read before the approval, one after its wake-up"
    );
}

#[test]
fn a_commit_between_the_read_and_the_block_by_the_same_ledger_wakes_the_wait() {
    for db in databases() {
        let l = Ledger::open(&db.url).unwrap();
        approved_after_the_read(&l, &l);
    }
}

/// On SQLite another handle is another process as far as the waiter knows: woken by
/// `PRAGMA data_version` only.
#[test]
fn a_commit_between_the_read_and_the_block_by_another_handle_wakes_the_wait() {
    for db in databases() {
        let (l, other) = (
            Ledger::open(&db.url).unwrap(),
            Ledger::open(&db.url).unwrap(),
        );
        approved_after_the_read(&l, &other);
    }
}
