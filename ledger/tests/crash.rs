//! Crashes: a worker process SIGKILLed between claim and complete, and SIGKILL in the middle of
//! a stream of writes. Nothing is dispatched twice, and the ledger carries on.

mod common;

use actionseal_core::ledger::{Observed, Reported, State};
use actionseal_core::Code;
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, ManualClock};
use common::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const LEASE: i64 = MINUTE;

/// The business system, shared between processes: a SQLite file of applied idempotency keys.
struct BusinessFile(PathBuf);

impl BusinessFile {
    fn conn(&self) -> rusqlite::Connection {
        let c = rusqlite::Connection::open(&self.0).unwrap();
        c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
        c.execute_batch(
            "CREATE TABLE IF NOT EXISTS effects (key TEXT PRIMARY KEY, n INTEGER NOT NULL);
             CREATE TABLE IF NOT EXISTS dispatches (key TEXT NOT NULL);",
        )
        .unwrap();
        c
    }

    /// One dispatch: the effect happens once per key.
    fn dispatch(&self, key: &str) {
        let c = self.conn();
        c.execute("INSERT INTO dispatches VALUES (?1)", [key])
            .unwrap();
        c.execute(
            "INSERT INTO effects VALUES (?1, 1) ON CONFLICT (key) DO UPDATE SET n = n + 1",
            [key],
        )
        .unwrap();
    }

    fn has(&self, key: &str) -> bool {
        self.conn()
            .query_row("SELECT COUNT(*) FROM effects WHERE key = ?1", [key], |r| {
                r.get::<_, i64>(0)
            })
            .unwrap()
            == 1
    }

    fn counts(&self) -> (i64, i64) {
        let c = self.conn();
        let d = c
            .query_row("SELECT COUNT(*) FROM dispatches", [], |r| r.get(0))
            .unwrap();
        let e = c
            .query_row("SELECT COUNT(*) FROM effects", [], |r| r.get(0))
            .unwrap();
        (d, e)
    }
}

/// The worker that will be killed (does nothing unless started by a test below): claims the
/// task at the clock's time, optionally dispatches, says so, and waits to be killed.
#[test]
fn crash_worker() {
    let Ok(url) = std::env::var("ACTIONSEAL_CRASH_URL") else {
        return;
    };
    let task = std::env::var("ACTIONSEAL_CRASH_TASK").unwrap();
    let business = BusinessFile(std::env::var("ACTIONSEAL_CRASH_BUSINESS").unwrap().into());
    let dispatch = std::env::var("ACTIONSEAL_CRASH_DISPATCH").unwrap() == "yes";
    let clock = ManualClock::new(T0);
    let l = Ledger::open_with_clock(&url, Arc::new(clock)).unwrap();
    let t = l.task(&task).unwrap();
    let out = l
        .claim(&ClaimRequest {
            task_id: &task,
            action: &t.action,
            facts: &facts(&refund_contract()),
            executor: "worker-1",
            lease_ms: LEASE,
            budget: None,
            proof: Default::default(),
        })
        .unwrap();
    let ClaimOutcome::Claimed(c, _) = out else {
        panic!("{}", out.result())
    };
    if dispatch {
        business.dispatch(&c.idempotency_key);
    }
    println!("CLAIMED {} {}", c.fence, c.idempotency_key);
    loop {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
}

/// Starts the worker, waits for its claim, SIGKILLs it; returns (fence, idempotency key).
fn claim_then_die(db: &Db, task: &str, business: &Path, dispatch: bool) -> (i64, String) {
    let mut child = helper(
        "crash_worker",
        &[
            ("ACTIONSEAL_CRASH_URL", db.url.clone()),
            ("ACTIONSEAL_CRASH_TASK", task.to_owned()),
            ("ACTIONSEAL_CRASH_BUSINESS", business.display().to_string()),
            (
                "ACTIONSEAL_CRASH_DISPATCH",
                if dispatch { "yes" } else { "no" }.into(),
            ),
        ],
    )
    .spawn()
    .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("CLAIMED ") {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the worker died before claiming"
        );
    }
    child.kill().unwrap(); // SIGKILL: no destructor, no completion
    child.wait().unwrap();
    let mut parts = line.split_whitespace().skip(1);
    let fence = parts.next().unwrap().parse().unwrap();
    (fence, parts.next().unwrap().to_owned())
}

fn setup(db: &Db, clock: &ManualClock) -> (Ledger, String) {
    let l = db.open_at(clock);
    let contract = refund_contract();
    let t = l
        .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
        .unwrap();
    l.decide(&decision(&t, "d1", "approved", T0, 24 * HOUR))
        .unwrap();
    (l, t.id)
}

fn reclaim(l: &Ledger, task: &str) -> actionseal_core::Result<ClaimOutcome> {
    let t = l.task(task).unwrap();
    l.claim(&ClaimRequest {
        task_id: task,
        action: &t.action,
        facts: &facts(&refund_contract()),
        executor: "worker-2",
        lease_ms: LEASE,
        budget: None,
        proof: Default::default(),
    })
}

/// Killed after claim and before dispatch: after the lease the task is `unknown`, nothing
/// dispatches it again by itself; the business system says it never ran, so
/// `reconcile(not_executed)` lets it be claimed again with the same key and a higher fence,
/// and the old worker's completion is refused.
#[test]
fn crash_after_claim_then_reconcile_not_executed() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let dir = temp_dir();
        let business = BusinessFile(dir.join("business.db"));
        let clock = ManualClock::new(T0);
        let (l, task) = setup(&db, &clock);
        let (fence, key) = claim_then_die(&db, &task, &business.0, false);

        clock.set(T0 + LEASE / 2);
        assert_eq!(l.task(&task).unwrap().state, State::Claimed);
        assert_eq!(reclaim(&l, &task).unwrap_err().code(), Code::AlreadyClaimed);
        clock.set(T0 + LEASE + 1);
        assert_eq!(l.expire_leases().unwrap(), std::slice::from_ref(&task));
        assert_eq!(l.task(&task).unwrap().state, State::Unknown);
        assert_eq!(reclaim(&l, &task).unwrap_err().code(), Code::AlreadyClaimed);
        assert_eq!(business.counts(), (0, 0), "no automatic second dispatch");

        // Ask the business system, by idempotency key.
        assert!(!business.has(&key));
        l.reconcile(&task, Observed::NotExecuted, None, "reconciler")
            .unwrap();
        let ClaimOutcome::Claimed(c, _) = reclaim(&l, &task).unwrap() else {
            panic!()
        };
        assert_eq!(c.idempotency_key, key);
        assert!(c.fence > fence);
        business.dispatch(&c.idempotency_key);
        l.complete(&task, c.fence, Reported::Succeeded, None, "worker-2")
            .unwrap();
        // The old worker comes back: its fence is stale.
        let e = l
            .complete(&task, fence, Reported::Succeeded, None, "worker-1")
            .unwrap_err();
        assert_eq!(e.code(), Code::StaleFence);
        assert_eq!(business.counts(), (1, 1), "exactly one effect");
        let kinds: Vec<_> = l
            .task_history(&task)
            .unwrap()
            .1
            .iter()
            .map(|e| e.kind.as_str())
            .collect();
        assert_eq!(
            kinds,
            [
                "proposed",
                "decided",
                "claimed",
                "claim_refused",
                "lease_expired",
                "claim_refused",
                "reconciled",
                "claimed",
                "completed",
                "complete_refused"
            ]
        );
        assert!(l.audit_verify().unwrap().broken.is_none());
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Killed after the business system did it: reconciliation asks, finds the effect, and the
/// task succeeds without a second dispatch.
#[test]
fn crash_after_dispatch_then_reconcile_succeeded() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let dir = temp_dir();
        let business = BusinessFile(dir.join("business.db"));
        let clock = ManualClock::new(T0);
        let (l, task) = setup(&db, &clock);
        let (_, key) = claim_then_die(&db, &task, &business.0, true);
        clock.set(T0 + LEASE);
        assert_eq!(reclaim(&l, &task).unwrap_err().code(), Code::AlreadyClaimed);
        assert_eq!(l.task(&task).unwrap().state, State::Unknown);
        assert!(business.has(&key));
        let t = l
            .reconcile(
                &task,
                Observed::Succeeded,
                Some(&json(r#"{"refund_id": "rf-1"}"#)),
                "reconciler",
            )
            .unwrap();
        assert_eq!(t.state, State::Succeeded);
        assert_eq!(business.counts(), (1, 1));
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The writer that will be killed mid-stream: full lifecycles, one after another, reporting
/// each finished one.
#[test]
fn churn_worker() {
    let Ok(url) = std::env::var("ACTIONSEAL_CHURN_URL") else {
        return;
    };
    let round = std::env::var("ACTIONSEAL_CHURN_ROUND").unwrap();
    let l = Ledger::open(&url).unwrap();
    for i in 0.. {
        let id = whole_lifecycle(
            &l,
            &format!("job-{round}-{i}"),
            &format!("d-{round}-{i}"),
            "churn",
        );
        println!("DONE {id}");
    }
}

/// SIGKILL during writes leaves a consistent SQLite file, and a restarted process carries on.
#[test]
fn durability_sigkill_during_writes() {
    let db = Db::fresh(Engine::Sqlite);
    let mut reported = Vec::new();
    for round in 0..4 {
        let mut child = helper(
            "churn_worker",
            &[
                ("ACTIONSEAL_CHURN_URL", db.url.clone()),
                ("ACTIONSEAL_CHURN_ROUND", round.to_string()),
            ],
        )
        .spawn()
        .unwrap();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut done = 0;
        let mut line = String::new();
        // Kill it somewhere in the middle of a lifecycle, at a different point each round.
        while done < 20 + round * 7 {
            line.clear();
            assert!(reader.read_line(&mut line).unwrap() > 0, "the writer died");
            if let Some(id) = line.trim().strip_prefix("DONE ") {
                reported.push(id.to_owned());
                done += 1;
            }
        }
        std::thread::sleep(std::time::Duration::from_micros(300 * round as u64));
        child.kill().unwrap();
        child.wait().unwrap();

        let c = rusqlite::Connection::open(db.path.as_ref().unwrap()).unwrap();
        let check: String = c
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        drop(c);
        let l = db.open();
        assert!(l.audit_verify().unwrap().broken.is_none(), "round {round}");
        // Every finished lifecycle the writer reported is there, and every task's state is
        // the one its last event recorded: no operation was half-written.
        for id in &reported {
            assert_eq!(l.task(id).unwrap().state, State::Succeeded);
        }
        for t in l.tasks(None, None).unwrap() {
            let (task, events) = l.task_history(&t.id).unwrap();
            assert_eq!(events.last().unwrap().state, Some(task.state), "{}", t.id);
            let claims = events
                .iter()
                .filter(|e| e.kind.as_str() == "claimed")
                .count();
            assert_eq!(claims as i64, task.fence);
        }
    }
    eprintln!(
        "4 SIGKILLs during writes: {} lifecycles kept, file consistent each time",
        reported.len()
    );
}
