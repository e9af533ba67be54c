//! The change feed on both engines: every change of every task after a cursor, once, however
//! its transaction commits; the blocking read woken by a commit.

mod common;

use actionseal_core::ledger::{chain_of, EventKind, State};
use actionseal_core::Code;
use actionseal_ledger::{Change, ChangeCursor, Ledger, Task};
use common::*;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(10);

fn awaiting(l: &Ledger, job: &str) -> Task {
    l.propose(&refund(job, "req-1", 2500), &refund_contract(), "agent")
        .unwrap()
}

fn approve(l: &Ledger, task: &Task, decision_id: &str) {
    l.decide(&decision(task, decision_id, "approved", l.now(), HOUR))
        .unwrap();
}

/// Every change from `after` on, read `limit` at a time.
fn all_after(l: &Ledger, after: &ChangeCursor, limit: usize) -> (Vec<Change>, ChangeCursor) {
    let (mut all, mut cursor) = (Vec::new(), after.clone());
    loop {
        let read = l.changes(&cursor, limit).unwrap();
        // The text is what callers keep.
        cursor = read.cursor.to_string().parse().unwrap();
        assert_eq!(cursor, read.cursor);
        if read.changes.is_empty() {
            return (all, cursor);
        }
        assert!(read.changes.len() <= limit);
        all.extend(read.changes);
    }
}

#[test]
fn the_feed_lists_each_change_once_with_no_argument_values() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let ids: Vec<String> = (0..3)
            .map(|i| whole_lifecycle(&l, &format!("job-{i}"), &format!("d{i}"), "worker-1"))
            .collect();
        let (all, end) = all_after(&l, &ChangeCursor::default(), 1000);
        for id in &ids {
            let kinds: Vec<&str> = all
                .iter()
                .filter(|c| &c.task_id == id)
                .map(|c| c.kind.as_str())
                .collect();
            assert_eq!(kinds, kinds_of(&l, id), "{engine:?}");
        }
        let last = all.iter().rfind(|c| c.task_id == ids[0]).unwrap();
        assert_eq!(last.state, Some(State::Succeeded));
        let first = &all[0];
        assert_eq!(
            (first.kind, first.state),
            (EventKind::Proposed, Some(State::AwaitingApproval))
        );
        for c in &all {
            let text = actionseal_core::canonicalize(&c.to_value());
            assert!(!text.contains("order-17"), "{engine:?}: {text}");
        }
        // A page at a time: the same changes, in the same order.
        let (paged, paged_end) = all_after(&l, &ChangeCursor::default(), 2);
        assert_eq!(paged, all, "{engine:?}");
        assert_eq!(paged_end, end);
        // Nothing after the end, until something happens.
        assert!(l.changes(&end, 10).unwrap().changes.is_empty());
        let t = awaiting(&l, "job-9");
        let next = l.changes(&end, 10).unwrap();
        assert_eq!(next.changes.len(), 1, "{engine:?}");
        assert_eq!(next.changes[0].task_id, t.id);
    }
}

fn kinds_of(l: &Ledger, task: &str) -> Vec<&'static str> {
    l.task_history(task)
        .unwrap()
        .1
        .iter()
        .map(|e| e.kind.as_str())
        .collect()
}

#[test]
fn a_cursor_is_read_strictly() {
    let db = Db::fresh(Engine::Sqlite);
    let l = db.open();
    for bad in [
        "x", "1", "1:", ":1", "1:0", "256:1", "1:2,1:3", "-1:2", "1:2,", " 1:2",
    ] {
        let e = bad.parse::<ChangeCursor>().unwrap_err();
        assert_eq!(e.code(), Code::InvalidRequest, "{bad:?}");
    }
    assert_eq!("".parse::<ChangeCursor>().unwrap(), ChangeCursor::default());
    let e = l.changes(&ChangeCursor::default(), 0).unwrap_err();
    assert_eq!(e.code(), Code::InvalidRequest);
}

#[test]
fn a_blocking_read_wakes_on_a_commit_and_times_out_without_one() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = Arc::new(db.open());
        let task = awaiting(&l, "job-1");
        let end = all_after(&l, &ChangeCursor::default(), 100).1;
        let quiet = Duration::from_millis(300);
        let started = Instant::now();
        let read = l.changes_wait(&end, 10, quiet).unwrap();
        assert!(started.elapsed() >= quiet);
        assert!(read.changes.is_empty(), "{engine:?}");
        assert_eq!(read.cursor, end);
        let (l2, t2) = (l.clone(), task.clone());
        let approver = thread::spawn(move || {
            thread::sleep(Duration::from_millis(200));
            approve(&l2, &t2, "d1");
        });
        let started = Instant::now();
        let read = l.changes_wait(&end, 10, TIMEOUT).unwrap();
        approver.join().unwrap();
        assert!(started.elapsed() < TIMEOUT, "woke before the timeout");
        assert_eq!(read.changes.len(), 1, "{engine:?}: {read:?}");
        assert_eq!(read.changes[0].kind, EventKind::Decided);
        assert_eq!(read.changes[0].state, Some(State::Approved));
    }
}

/// On PostgreSQL an event can commit after another that took a higher id: here task A's
/// approval takes its id, then waits at its commit (a deferred trigger waits for a lock the
/// test holds) while task B's approval, in another chain, takes a higher id and commits. A
/// read then sees B's and not A's; once A's commits, the next read from that cursor returns
/// it. A cursor that is one id (the highest read) would have skipped it for ever.
#[test]
fn an_event_committed_late_with_a_lower_id_is_not_skipped() {
    if !engines().contains(&Engine::Postgres) {
        return;
    }
    let db = Db::fresh(Engine::Postgres);
    let l = Arc::new(db.open());
    let a = awaiting(&l, "job-a");
    let b = (0..)
        .map(|i| awaiting(&l, &format!("job-b{i}")))
        .find(|b| chain_of(Some(&b.id)) != chain_of(Some(&a.id)))
        .unwrap();
    let start = all_after(&l, &ChangeCursor::default(), 100).1;
    db.sql(&format!(
        "CREATE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
           IF NEW.task = '{}' THEN PERFORM pg_advisory_xact_lock_shared(4242); END IF;
           RETURN NULL; END $$;
         CREATE CONSTRAINT TRIGGER test_hold AFTER INSERT ON ledger_events
           DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_hold();",
        a.id
    ));
    let mut holder = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    holder
        .batch_execute("SELECT pg_advisory_lock(4242)")
        .unwrap();
    let (l2, a2) = (l.clone(), a.clone());
    let late = thread::spawn(move || approve(&l2, &a2, "d-a"));
    // Until A's approval has its id and waits to commit.
    let deadline = Instant::now() + TIMEOUT;
    while holder
        .query_one(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0)
        == 0
    {
        assert!(
            Instant::now() < deadline,
            "A's approval never reached its commit"
        );
        thread::sleep(Duration::from_millis(10));
    }
    approve(&l, &b, "d-b");
    let first = l.changes(&start, 100).unwrap();
    let tasks: Vec<&str> = first.changes.iter().map(|c| c.task_id.as_str()).collect();
    assert_eq!(tasks, [b.id.as_str()], "only B's approval has committed");
    holder
        .batch_execute("SELECT pg_advisory_unlock(4242)")
        .unwrap();
    late.join().unwrap();
    let second = l.changes(&first.cursor, 100).unwrap();
    assert_eq!(second.changes.len(), 1, "{second:?}");
    let (late_one, seen) = (&second.changes[0], &first.changes[0]);
    assert_eq!(
        (late_one.task_id.as_str(), late_one.kind),
        (a.id.as_str(), EventKind::Decided)
    );
    assert!(
        late_one.event_id < seen.event_id,
        "A's event has the lower id ({} < {}): a feed after the highest id read skips it",
        late_one.event_id,
        seen.event_id
    );
    assert!(l.changes(&second.cursor, 100).unwrap().changes.is_empty());
}
