//! Races: thousands of tasks, each claimed at once by many contenders (threads on both
//! engines, separate processes on one SQLite file). Exactly one winner per task and exactly one
//! `claimed` event per task. The same harness, pointed at a deliberately naive
//! SELECT-then-UPDATE claim (test code only), sees double claims: it can see the bug.

mod common;

use actionseal_core::ledger::Reported;
use actionseal_core::{check_with, Code, OwnedValue};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger};
use common::*;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Barrier};

const TASKS: usize = 2_000;
const CONTENDERS: usize = 16;

/// Proposes and approves `n` refunds; returns their task ids in order.
fn approved_tasks(l: &Ledger, n: usize) -> Vec<String> {
    let contract = refund_contract();
    (0..n)
        .map(|i| {
            let t = l
                .propose(
                    &refund(&format!("job-{i}"), "req-1", 2500),
                    &contract,
                    "agent",
                )
                .unwrap();
            l.decide(&decision(
                &t,
                &format!("dec-{i}"),
                "approved",
                l.now(),
                24 * HOUR,
            ))
            .unwrap();
            t.id
        })
        .collect()
}

fn ledger_claim(l: &Ledger, id: &str, action: &OwnedValue, facts: &OwnedValue) -> bool {
    let r = l.claim(&ClaimRequest {
        task_id: id,
        action,
        facts,
        executor: "racer",
        lease_ms: HOUR,
        budget: None,
        proof: Default::default(),
    });
    match r {
        Ok(ClaimOutcome::Claimed(..)) => true,
        Err(e) if e.code() == Code::AlreadyClaimed => false,
        Ok(other) => panic!("unexpected claim result {}", other.result()),
        Err(e) => panic!("unexpected claim error {e}"),
    }
}

/// The naive claim a hurried implementation writes: look, then write, in two statements,
/// with the permit check in between.
struct Naive {
    conn: NaiveConn,
}

enum NaiveConn {
    Sqlite(rusqlite::Connection),
    Postgres(postgres::Client),
}

impl Naive {
    fn connect(db_url: &str) -> Naive {
        let conn = if let Some(rest) = db_url.strip_prefix("sqlite:") {
            let path = rest.split('?').next().unwrap();
            let c = rusqlite::Connection::open(path).unwrap();
            c.busy_timeout(std::time::Duration::from_secs(30)).unwrap();
            NaiveConn::Sqlite(c)
        } else {
            NaiveConn::Postgres(postgres::Client::connect(db_url, postgres::NoTls).unwrap())
        };
        Naive { conn }
    }

    fn claim(&mut self, id: &str, approval: &OwnedValue, action: &OwnedValue) -> bool {
        let state: String = match &mut self.conn {
            NaiveConn::Sqlite(c) => c
                .query_row("SELECT state FROM ledger_tasks WHERE id = ?1", [id], |r| {
                    r.get(0)
                })
                .unwrap(),
            NaiveConn::Postgres(c) => c
                .query_one("SELECT state FROM ledger_tasks WHERE id = $1", &[&id])
                .unwrap()
                .get(0),
        };
        if state != "approved" {
            return false;
        }
        // The check runs between the read and the write, as it would in real code.
        let approval_id = approval.pointer("/approval_id").and_then(|v| v.as_str());
        let revoked = approval_id.map(|id| (id, false));
        let ctx =
            actionseal_core::ledger::context(&facts(&refund_contract()), T0, revoked).unwrap();
        let _ = check_with(Some(approval), action, &ctx);
        match &mut self.conn {
            NaiveConn::Sqlite(c) => c
                .execute(
                    "UPDATE ledger_tasks SET state = 'claimed', fence = fence + 1 WHERE id = ?1",
                    [id],
                )
                .unwrap(),
            NaiveConn::Postgres(c) => c
                .execute(
                    "UPDATE ledger_tasks SET state = 'claimed', fence = fence + 1 WHERE id = $1",
                    &[&id],
                )
                .unwrap() as usize,
        };
        true
    }
}

/// (task id, approved action, approval record) of every task, in id order.
fn work(l: &Ledger) -> Vec<(String, OwnedValue, OwnedValue)> {
    let mut tasks: Vec<_> = l
        .tasks(None, None)
        .unwrap()
        .into_iter()
        .map(|t| {
            let approval = t.approval.map_or(OwnedValue::Null, |a| a.value().clone());
            (t.id, t.action.value().clone(), approval)
        })
        .collect();
    tasks.sort_by(|a, b| a.0.cmp(&b.0));
    tasks
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Ledger,
    Naive,
}

/// Every contender (a thread) tries every task, all in the same order; returns wins per task.
fn race_threads(db: &Db, mode: Mode) -> Vec<u32> {
    let ledger = Arc::new(db.open());
    let tasks = Arc::new(work(&ledger));
    let wins: Arc<Vec<AtomicU32>> = Arc::new((0..tasks.len()).map(|_| AtomicU32::new(0)).collect());
    let start = Arc::new(Barrier::new(CONTENDERS));
    std::thread::scope(|s| {
        for _ in 0..CONTENDERS {
            let (ledger, tasks, wins, start) =
                (ledger.clone(), tasks.clone(), wins.clone(), start.clone());
            let url = db.url.clone();
            s.spawn(move || {
                let f = facts(&refund_contract());
                let mut naive = (mode == Mode::Naive).then(|| Naive::connect(&url));
                start.wait();
                for (i, (id, action, approval)) in tasks.iter().enumerate() {
                    let won = match &mut naive {
                        Some(n) => n.claim(id, approval, action),
                        None => ledger_claim(&ledger, id, action, &f),
                    };
                    if won {
                        wins[i].fetch_add(1, Ordering::SeqCst);
                    }
                }
            });
        }
    });
    wins.iter().map(|w| w.load(Ordering::SeqCst)).collect()
}

fn assert_single_winners(db: &Db, wins: &[u32]) {
    assert_eq!(wins.len(), TASKS);
    let bad: Vec<_> = wins.iter().enumerate().filter(|(_, w)| **w != 1).collect();
    assert!(
        bad.is_empty(),
        "{:?}: tasks without exactly one winner: {:?}",
        db.engine,
        &bad[..bad.len().min(10)]
    );
    let l = db.open();
    let mut claimed: HashMap<String, usize> = HashMap::new();
    let mut refused = 0;
    for e in audit_events(&l) {
        match str_field(&e, "kind") {
            "claimed" => *claimed.entry(str_field(&e, "task").to_owned()).or_default() += 1,
            "claim_refused" => refused += 1,
            _ => {}
        }
    }
    assert_eq!(claimed.len(), TASKS);
    assert!(
        claimed.values().all(|n| *n == 1),
        "one claim event per task"
    );
    // Every losing attempt was refused and recorded, and the chain holds.
    assert_eq!(refused, TASKS * (CONTENDERS - 1));
    assert!(l.audit_verify().unwrap().broken.is_none());
    eprintln!(
        "{:?}: {TASKS} tasks x {CONTENDERS} contenders: one winner each, {refused} refusals recorded",
        db.engine
    );
}

fn assert_double_claims(engine: Engine, wins: &[u32]) {
    let doubled = wins.iter().filter(|w| **w > 1).count();
    eprintln!("{engine:?}: naive SELECT-then-UPDATE double-claimed {doubled} of {TASKS} tasks");
    assert!(
        doubled > 0,
        "{engine:?}: the harness did not catch the naive claim"
    );
}

/// The databases a race runs on: SQLite both with `synchronous=NORMAL`, where each thread's
/// transaction commits alone, and with FULL (the default), where the threads of one ledger
/// commit in batches (see the SQLite backend's group commit); PostgreSQL once.
fn race_dbs() -> Vec<Db> {
    engines()
        .into_iter()
        .flat_map(|engine| match engine {
            Engine::Sqlite => vec![Db::fresh(engine), Db::fast(engine)],
            Engine::Postgres => vec![Db::fast(engine)],
        })
        .collect()
}

#[test]
fn race_threads_one_winner_per_task() {
    for db in race_dbs() {
        let t = std::time::Instant::now();
        approved_tasks(&db.open(), TASKS);
        eprintln!("{}: setup {:?}", db.url, t.elapsed());
        let t = std::time::Instant::now();
        let wins = race_threads(&db, Mode::Ledger);
        eprintln!("{}: race {:?}", db.url, t.elapsed());
        assert_single_winners(&db, &wins);
    }
}

#[test]
fn race_threads_naive_claim_double_claims() {
    for engine in engines() {
        let db = Db::fast(engine);
        approved_tasks(&db.open(), TASKS);
        assert_double_claims(engine, &race_threads(&db, Mode::Naive));
    }
}

/// Separate processes on one SQLite file: each contender is this test binary, re-run as
/// `race_process_worker`.
fn race_processes(db: &Db, mode: Mode) -> Vec<u32> {
    let l = db.open();
    let tasks = work(&l);
    drop(l);
    let go = db.path.as_ref().unwrap().with_extension("go");
    let mut children: Vec<_> = (0..CONTENDERS)
        .map(|_| {
            helper(
                "race_process_worker",
                &[
                    ("ACTIONSEAL_RACE_URL", db.url.clone()),
                    ("ACTIONSEAL_RACE_MODE", format!("{mode:?}")),
                    ("ACTIONSEAL_RACE_GO", go.display().to_string()),
                ],
            )
            .spawn()
            .unwrap()
        })
        .collect();
    // Wait until every worker is ready, then start them together.
    let mut readers: Vec<_> = children
        .iter_mut()
        .map(|c| BufReader::new(c.stdout.take().unwrap()))
        .collect();
    for r in &mut readers {
        let mut line = String::new();
        while !line.starts_with("READY") {
            line.clear();
            assert!(
                r.read_line(&mut line).unwrap() > 0,
                "worker died before it was ready"
            );
        }
    }
    std::fs::File::create(&go).unwrap().flush().unwrap();
    let index: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.0.as_str(), i))
        .collect();
    let mut wins = vec![0u32; tasks.len()];
    for r in readers {
        for line in r.lines() {
            let line = line.unwrap();
            if let Some(id) = line.strip_prefix("WON ") {
                wins[index[id]] += 1;
            }
        }
    }
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a worker failed");
    }
    wins
}

/// The contender process (does nothing unless started by `race_processes`).
#[test]
fn race_process_worker() {
    let Ok(url) = std::env::var("ACTIONSEAL_RACE_URL") else {
        return;
    };
    let naive = std::env::var("ACTIONSEAL_RACE_MODE").unwrap() == "Naive";
    let go = std::path::PathBuf::from(std::env::var("ACTIONSEAL_RACE_GO").unwrap());
    let l = Ledger::open(&url).unwrap();
    let tasks = work(&l);
    let f = facts(&refund_contract());
    let mut n = naive.then(|| Naive::connect(&url));
    let mut out = std::io::stdout().lock();
    writeln!(out, "READY").unwrap();
    out.flush().unwrap();
    while !go.exists() {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    for (id, action, approval) in &tasks {
        let won = match &mut n {
            Some(n) => n.claim(id, approval, action),
            None => ledger_claim(&l, id, action, &f),
        };
        if won {
            writeln!(out, "WON {id}").unwrap();
        }
    }
    out.flush().unwrap();
}

#[test]
fn race_processes_one_winner_per_task_on_one_sqlite_file() {
    let db = Db::fast(Engine::Sqlite);
    approved_tasks(&db.open(), TASKS);
    let wins = race_processes(&db, Mode::Ledger);
    assert_single_winners(&db, &wins);
}

#[test]
fn race_processes_naive_claim_double_claims() {
    let db = Db::fast(Engine::Sqlite);
    approved_tasks(&db.open(), TASKS);
    assert_double_claims(Engine::Sqlite, &race_processes(&db, Mode::Naive));
}

/// 64 concurrent claims against a budget that fits 10: exactly 10 win, and spending never
/// passes the limit.
#[test]
fn budget_race_exactly_ten_fit() {
    for db in race_dbs() {
        let engine = db.engine;
        let l = Arc::new(db.open());
        let ids = approved_tasks(&l, 64);
        let cost = 25; // the refund contract's cost_minor
        l.set_budget("refunds", 10 * cost).unwrap();
        let start = Arc::new(Barrier::new(64));
        let results: Vec<Result<ClaimOutcome, actionseal_core::Error>> = std::thread::scope(|s| {
            let hs: Vec<_> = ids
                .iter()
                .enumerate()
                .map(|(i, id)| {
                    let (l, start) = (l.clone(), start.clone());
                    s.spawn(move || {
                        let (a, f) = (
                            refund(&format!("job-{i}"), "req-1", 2500),
                            facts(&refund_contract()),
                        );
                        start.wait();
                        l.claim(&ClaimRequest {
                            task_id: id,
                            action: &a,
                            facts: &f,
                            executor: "racer",
                            lease_ms: HOUR,
                            budget: Some("refunds"),
                            proof: Default::default(),
                        })
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let won: Vec<_> = results
            .iter()
            .filter_map(|r| match r {
                Ok(ClaimOutcome::Claimed(c, _)) => Some(c.clone()),
                _ => None,
            })
            .collect();
        let over = results
            .iter()
            .filter(|r| matches!(r, Err(e) if e.code() == Code::BudgetExceeded))
            .count();
        assert_eq!((won.len(), over), (10, 54), "{engine:?}");
        let b = l.budget("refunds").unwrap();
        assert_eq!((b.spent_minor, b.reserved_minor), (0, 10 * cost));
        for c in &won {
            l.complete(&c.task_id, c.fence, Reported::Succeeded, None, "racer")
                .unwrap();
        }
        let b = l.budget("refunds").unwrap();
        assert_eq!((b.spent_minor, b.reserved_minor), (10 * cost, 0));
        assert!(b.spent_minor <= b.limit_minor);
        // The losers are still claimable once money is freed: nothing of them was claimed.
        assert_eq!(
            l.tasks(Some(actionseal_core::ledger::State::Approved), None)
                .unwrap()
                .len(),
            54
        );
    }
}

/// The same proposal sent by 16 contenders at once, for 50 tasks: one task each, one `proposed`
/// event and 15 duplicates (on PostgreSQL the losers of the insert run again and find it).
#[test]
fn concurrent_proposals_make_one_task() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = Arc::new(db.open());
        let contract = refund_contract();
        let start = Barrier::new(CONTENDERS);
        std::thread::scope(|s| {
            for _ in 0..CONTENDERS {
                let (l, contract, start) = (l.clone(), &contract, &start);
                s.spawn(move || {
                    start.wait();
                    for i in 0..50 {
                        let act = refund(&format!("job-{i}"), "req-1", 2500);
                        l.propose(&act, contract, "agent").unwrap();
                    }
                });
            }
        });
        let tasks = l.tasks(None, None).unwrap();
        assert_eq!(tasks.len(), 50, "{engine:?}");
        for t in &tasks {
            let kinds: Vec<String> = l
                .task_history(&t.id)
                .unwrap()
                .1
                .iter()
                .map(|e| e.kind.as_str().to_owned())
                .collect();
            assert_eq!(kinds.len(), CONTENDERS, "{engine:?}");
            assert_eq!(kinds[0], "proposed");
            assert!(kinds[1..].iter().all(|k| k == "propose_duplicate"));
        }
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}

/// Claims racing drifted calls on the same tasks: a drift is refused and recorded without
/// changing the task's state, so a claim that read the task just before must not be written
/// over it (on PostgreSQL a claim first reads without a lock, and its write holds only if the
/// task is still as read). One winner per task, and every attempt's event is in the task's
/// history and in the chain.
#[test]
fn claims_race_drifted_calls_one_winner_and_every_event_kept() {
    const RACED: usize = 200;
    const THREADS: usize = 8;
    for db in race_dbs() {
        let l = Arc::new(db.open());
        let ids = approved_tasks(&l, RACED);
        let start = Arc::new(Barrier::new(THREADS));
        let wins: Vec<AtomicU32> = (0..RACED).map(|_| AtomicU32::new(0)).collect();
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let (l, ids, wins, start) = (&l, &ids, &wins, start.clone());
                s.spawn(move || {
                    let f = facts(&refund_contract());
                    // Even threads present the approved call; odd ones a drifted amount.
                    let amount = if t % 2 == 0 { 2500 } else { 2600 };
                    start.wait();
                    for (i, id) in ids.iter().enumerate() {
                        let a = refund(&format!("job-{i}"), "req-1", amount);
                        let r = l.claim(&ClaimRequest {
                            task_id: id,
                            action: &a,
                            facts: &f,
                            executor: "racer",
                            lease_ms: HOUR,
                            budget: None,
                            proof: Default::default(),
                        });
                        match r {
                            Ok(ClaimOutcome::Claimed(..)) => {
                                wins[i].fetch_add(1, Ordering::SeqCst);
                            }
                            Ok(ClaimOutcome::Drift { .. }) => assert_eq!(amount, 2600),
                            Err(e) if e.code() == Code::AlreadyClaimed => {}
                            Ok(other) => panic!("unexpected claim result {}", other.result()),
                            Err(e) => panic!("unexpected claim error {e}"),
                        }
                    }
                });
            }
        });
        let mut in_audit: HashMap<String, usize> = HashMap::new();
        for e in audit_events(&l) {
            *in_audit
                .entry(str_field(&e, "task").to_owned())
                .or_default() += 1;
        }
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(wins[i].load(Ordering::SeqCst), 1, "{}: {id}", db.url);
            let (task, history) = l.task_history(id).unwrap();
            assert_eq!(task.state, actionseal_core::ledger::State::Claimed);
            // Proposed, decided, then one event per attempt: the claim, each drift, each
            // attempt refused after the claim.
            assert_eq!(history.len(), 2 + THREADS, "{}: {id}", db.url);
            assert_eq!(in_audit.get(id.as_str()), Some(&history.len()));
            let claimed = history.iter().filter(|e| e.kind.as_str() == "claimed");
            assert_eq!(claimed.count(), 1, "{}: {id}", db.url);
        }
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}
