//! `Ledger::wait` on both engines: woken by an approval made by another thread, another
//! handle on the same database or another process, within a generous timeout; timing out
//! when nothing happens. That a commit between the wait's read and its block still wakes it
//! is tested in `src/wait/tests.rs`, which can commit exactly there.

mod common;

use actionseal_core::ledger::State;
use actionseal_core::Code;
use actionseal_ledger::{Ledger, Task, Waited};
use common::*;
use std::io::{BufRead, BufReader};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Long enough never to pass on a slow machine; the tests expect to wake well before it.
const TIMEOUT: Duration = Duration::from_secs(10);

/// A refund above 1000 minor units: awaiting a reviewer.
fn awaiting(l: &Ledger, job: &str) -> Task {
    let t = l
        .propose(&refund(job, "req-1", 2500), &refund_contract(), "agent")
        .unwrap();
    assert_eq!(t.state, State::AwaitingApproval);
    t
}

fn approve(l: &Ledger, task: &Task, decision_id: &str) {
    l.decide(&decision(task, decision_id, "approved", l.now(), HOUR))
        .unwrap();
}

/// Waits for `task` to be approved while `approver` approves it a little later.
fn woken_by(l: &Ledger, task: &Task, approver: impl FnOnce() + Send + 'static) {
    let started = Instant::now();
    let t = thread::spawn(move || {
        thread::sleep(Duration::from_millis(200));
        approver();
    });
    let out = l.wait(&task.id, &[State::Approved], TIMEOUT).unwrap();
    t.join().unwrap();
    let Waited::Reached(task) = out else {
        panic!("timed out: {out:?}")
    };
    assert_eq!(task.state, State::Approved);
    assert!(started.elapsed() < TIMEOUT, "woke before the timeout");
}

#[test]
fn another_thread_on_the_same_ledger_wakes_a_waiter() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = Arc::new(db.open());
        let task = awaiting(&l, "job-1");
        let (l2, t2) = (l.clone(), task.clone());
        woken_by(&l, &task, move || approve(&l2, &t2, "d1"));
    }
}

#[test]
fn another_handle_on_the_same_database_wakes_a_waiter() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let task = awaiting(&l, "job-1");
        let other = db.open();
        let t2 = task.clone();
        woken_by(&l, &task, move || approve(&other, &t2, "d1"));
    }
}

#[test]
fn another_process_wakes_a_waiter() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let task = awaiting(&l, "job-1");
        let mut child = helper(
            "wait_approving_process",
            &[
                ("ACTIONSEAL_WAIT_URL", db.url.clone()),
                ("ACTIONSEAL_WAIT_TASK", task.id.clone()),
            ],
        )
        .spawn()
        .unwrap();
        // Once it is ready to approve (its start-up is not what is waited for).
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.starts_with("READY") {
            line.clear();
            assert!(out.read_line(&mut line).unwrap() > 0, "helper died");
        }
        let waited = l.wait(&task.id, &[State::Approved], TIMEOUT).unwrap();
        assert!(child.wait().unwrap().success());
        assert!(
            matches!(&waited, Waited::Reached(t) if t.state == State::Approved),
            "{engine:?}: {waited:?}"
        );
    }
}

/// The helper of `another_process_wakes_a_waiter`: approves the task a little after saying
/// it is ready.
#[test]
fn wait_approving_process() {
    let Ok(url) = std::env::var("ACTIONSEAL_WAIT_URL") else {
        return;
    };
    let l = Ledger::open(&url).unwrap();
    let task = l
        .task(&std::env::var("ACTIONSEAL_WAIT_TASK").unwrap())
        .unwrap();
    println!("READY");
    thread::sleep(Duration::from_millis(300));
    approve(&l, &task, "d-process");
}

#[test]
fn nothing_happening_times_out() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let task = awaiting(&l, "job-1");
        let started = Instant::now();
        let timeout = Duration::from_millis(300);
        let out = l.wait(&task.id, &[State::Approved], timeout).unwrap();
        assert!(started.elapsed() >= timeout, "{engine:?}");
        let Waited::TimedOut(t) = out else {
            panic!("{engine:?}: {out:?}")
        };
        assert_eq!(t.state, State::AwaitingApproval);
        // Another task's commits wake nothing it returns for.
        let other = awaiting(&l, "job-2");
        let l = Arc::new(l);
        let (l2, o2) = (l.clone(), other.clone());
        let t = thread::spawn(move || approve(&l2, &o2, "d2"));
        let out = l.wait(&task.id, &[State::Approved], timeout).unwrap();
        t.join().unwrap();
        assert!(matches!(out, Waited::TimedOut(_)), "{engine:?}: {out:?}");
    }
}

#[test]
fn a_task_already_there_returns_at_once_and_an_unknown_one_is_not_found() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let task = awaiting(&l, "job-1");
        let out = l
            .wait(
                &task.id,
                &[State::AwaitingApproval, State::Rejected],
                TIMEOUT,
            )
            .unwrap();
        assert!(matches!(out, Waited::Reached(_)), "{engine:?}: {out:?}");
        let e = l.wait(
            "task_00000000000000000000000000000000",
            &[State::Approved],
            TIMEOUT,
        );
        assert_eq!(e.unwrap_err().code(), Code::TaskNotFound, "{engine:?}");
    }
}

/// Approvals committed together (SQLite's group commit, with `synchronous=FULL`: the batch's
/// last member commits for all of them) wake every waiter.
#[test]
fn approvals_committed_together_wake_every_waiter() {
    const N: usize = 8;
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = Arc::new(db.open());
        let tasks: Vec<Task> = (0..N).map(|i| awaiting(&l, &format!("job-{i}"))).collect();
        let waiters: Vec<_> = tasks
            .iter()
            .map(|t| {
                let (l, id) = (l.clone(), t.id.clone());
                thread::spawn(move || l.wait(&id, &[State::Approved], TIMEOUT).unwrap())
            })
            .collect();
        thread::sleep(Duration::from_millis(100));
        let approvers: Vec<_> = tasks
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                let l = l.clone();
                thread::spawn(move || approve(&l, &t, &format!("d{i}")))
            })
            .collect();
        for a in approvers {
            a.join().unwrap();
        }
        for w in waiters {
            let out = w.join().unwrap();
            assert!(matches!(out, Waited::Reached(_)), "{engine:?}: {out:?}");
        }
    }
}

/// A listening connection that drops loses the notifications it would have had: the wait
/// listens again on a new one and reads again, and the approval after the drop still wakes it.
#[test]
fn a_dropped_listening_connection_is_replaced() {
    if !engines().contains(&Engine::Postgres) {
        return;
    }
    let db = Db::fresh(Engine::Postgres);
    let l = Arc::new(db.open());
    let task = awaiting(&l, "job-1");
    let mut admin = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    // Its LISTEN may still be answering when it is cut off: the watch replaces it all the same.
    let listening = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() \
                     AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()";
    let (l2, id) = (l.clone(), task.id.clone());
    let started = Instant::now();
    let waiter = thread::spawn(move || l2.wait(&id, &[State::Approved], TIMEOUT).unwrap());
    let pid: i32 = loop {
        if let Some(row) = admin.query(listening, &[]).unwrap().first() {
            break row.get(0);
        }
        assert!(started.elapsed() < TIMEOUT, "the wait never listened");
        thread::sleep(Duration::from_millis(10));
    };
    admin
        .execute("SELECT pg_terminate_backend($1)", &[&pid])
        .unwrap();
    // Once it listens on another connection (the approval would otherwise be in the gap,
    // which the read after listening covers anyway).
    while admin
        .query(listening, &[])
        .unwrap()
        .iter()
        .all(|r| r.get::<_, i32>(0) == pid)
    {
        assert!(started.elapsed() < TIMEOUT, "the wait never listened again");
        thread::sleep(Duration::from_millis(10));
    }
    approve(&db.open(), &task, "d1");
    let out = waiter.join().unwrap();
    assert!(started.elapsed() < TIMEOUT, "woke before the timeout");
    assert!(matches!(out, Waited::Reached(_)), "{out:?}");
}
