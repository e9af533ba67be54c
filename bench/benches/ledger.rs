//! Full task lifecycles per second (propose, decide, claim, complete) through the ledger,
//! side by side in one run with a naive implementation on the same engine: four transactions,
//! a SELECT-then-UPDATE claim, no audit, no budget, no check. Goals (issue 9): the ledger costs
//! at most 1.5x the naive lifecycle on each backend; on SQLite at least 2,000 lifecycles/s with
//! synchronous=FULL and 6,000/s with NORMAL.
//!
//!   cargo bench -p actionseal-bench --bench ledger                       # SQLite only
//!   scripts/pg run --fsync cargo bench -p actionseal-bench --bench ledger  # and PostgreSQL
//!
//! Rounds are interleaved (ledger, naive, ledger, naive, ...); the table gives the median
//! lifecycles/s of the rounds with their spread, and p50/p99 latency of one lifecycle.

use actionseal_bench::{lifecycle, median, wanted, Refund};
use actionseal_core::canonicalize;
use actionseal_ledger::Ledger;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUNDS: usize = 5;

/// One implementation: runs one lifecycle of task `job`.
trait Lifecycle: Send + Sync {
    fn run(&self, f: &Refund, job: &str);
}

impl Lifecycle for Ledger {
    fn run(&self, f: &Refund, job: &str) {
        lifecycle(self, self, f, job);
    }
}

/// Two ledgers on one database, as two processes would have: the one that proposes and
/// decides (an agent and its reviewers' callbacks), and the executor's, which claims and
/// completes. The executor never holds what the other one last wrote.
struct Apart {
    deciding: Ledger,
    executing: Ledger,
}

impl Lifecycle for Apart {
    fn run(&self, f: &Refund, job: &str) {
        lifecycle(&self.deciding, &self.executing, f, job);
    }
}

/// The naive lifecycle on SQLite: four autocommit writes, the claim a SELECT then an UPDATE.
struct NaiveSqlite(std::sync::Mutex<rusqlite::Connection>);

impl NaiveSqlite {
    fn open(path: &std::path::Path, sync: &str) -> NaiveSqlite {
        let c = rusqlite::Connection::open(path).expect("open");
        c.busy_timeout(Duration::from_secs(30)).expect("busy");
        c.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
            .expect("wal");
        // The log's checkpoint interval that is fastest for this code: SQLite's default
        // (1,000 pages) with FULL, because an fsync after the log grew also writes the file's
        // new size; 10,000 pages with NORMAL, where a checkpoint's fsync is the only one.
        let checkpoint = if sync == "FULL" { 1000 } else { 10000 };
        c.execute_batch(&format!(
            "PRAGMA synchronous={sync}; PRAGMA wal_autocheckpoint={checkpoint};
             CREATE TABLE IF NOT EXISTS naive_tasks (id TEXT PRIMARY KEY, state TEXT NOT NULL,
               action TEXT NOT NULL, approval TEXT, fence INTEGER NOT NULL);"
        ))
        .expect("schema");
        NaiveSqlite(std::sync::Mutex::new(c))
    }
}

impl Lifecycle for NaiveSqlite {
    fn run(&self, f: &Refund, job: &str) {
        let act = canonicalize(&f.action(job));
        let c = self.0.lock().expect("lock");
        c.prepare_cached("INSERT INTO naive_tasks VALUES (?1, 'awaiting_approval', ?2, NULL, 0)")
            .and_then(|mut s| s.execute([job, act.as_str()]))
            .expect("propose");
        c.prepare_cached("UPDATE naive_tasks SET state = 'approved', approval = ?2 WHERE id = ?1")
            .and_then(|mut s| s.execute([job, "{\"decision\":\"approved\"}"]))
            .expect("decide");
        let state: String = c
            .prepare_cached("SELECT state FROM naive_tasks WHERE id = ?1")
            .and_then(|mut s| s.query_row([job], |r| r.get(0)))
            .expect("look");
        assert_eq!(state, "approved");
        c.prepare_cached(
            "UPDATE naive_tasks SET state = 'claimed', fence = fence + 1 WHERE id = ?1",
        )
        .and_then(|mut s| s.execute([job]))
        .expect("claim");
        c.prepare_cached("UPDATE naive_tasks SET state = 'succeeded' WHERE id = ?1")
            .and_then(|mut s| s.execute([job]))
            .expect("complete");
    }
}

/// The naive lifecycle on PostgreSQL, one connection per worker.
struct NaivePg {
    url: String,
    pool: std::sync::Mutex<Vec<postgres::Client>>,
}

impl Lifecycle for NaivePg {
    fn run(&self, f: &Refund, job: &str) {
        let act = canonicalize(&f.action(job));
        let taken = self.pool.lock().expect("pool").pop();
        let mut c = taken.unwrap_or_else(|| {
            postgres::Client::connect(&self.url, postgres::NoTls).expect("connect")
        });
        let mut exec = |sql: &str, params: &[&(dyn postgres::types::ToSql + Sync)]| {
            let st = c.prepare(sql).expect("prepare");
            c.execute(&st, params).expect("execute")
        };
        exec(
            "INSERT INTO naive_tasks VALUES ($1, 'awaiting_approval', $2, NULL, 0)",
            &[&job, &act],
        );
        exec(
            "UPDATE naive_tasks SET state = 'approved', approval = $2 WHERE id = $1",
            &[&job, &"{\"decision\":\"approved\"}"],
        );
        let st = c
            .prepare("SELECT state FROM naive_tasks WHERE id = $1")
            .expect("prepare");
        let state: String = c.query_one(&st, &[&job]).expect("look").get(0);
        assert_eq!(state, "approved");
        let mut exec = |sql: &str| {
            let st = c.prepare(sql).expect("prepare");
            c.execute(&st, &[&job]).expect("execute")
        };
        exec("UPDATE naive_tasks SET state = 'claimed', fence = fence + 1 WHERE id = $1");
        exec("UPDATE naive_tasks SET state = 'succeeded' WHERE id = $1");
        self.pool.lock().expect("pool").push(c);
    }
}

#[derive(Default)]
struct Samples {
    rates: Vec<f64>,
    latencies: Vec<Duration>,
}

static JOB: AtomicUsize = AtomicUsize::new(0);

/// One round: `per_worker` lifecycles on each of `workers` threads; returns lifecycles/s.
fn round(
    imp: &Arc<dyn Lifecycle>,
    f: &Arc<Refund>,
    workers: usize,
    per_worker: usize,
    s: &mut Samples,
) {
    let start = Instant::now();
    let lats: Vec<Vec<Duration>> = std::thread::scope(|scope| {
        let hs: Vec<_> = (0..workers)
            .map(|_| {
                let (imp, f) = (imp.clone(), f.clone());
                scope.spawn(move || {
                    (0..per_worker)
                        .map(|_| {
                            let job = format!("job-{}", JOB.fetch_add(1, Ordering::SeqCst));
                            let t = Instant::now();
                            imp.run(&f, &job);
                            t.elapsed()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().expect("worker")).collect()
    });
    let total = workers * per_worker;
    s.rates.push(total as f64 / start.elapsed().as_secs_f64());
    s.latencies.extend(lats.into_iter().flatten());
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1e3
}

fn compare(
    label: &str,
    ledger: Arc<dyn Lifecycle>,
    naive: Arc<dyn Lifecycle>,
    workers: usize,
    per_worker: usize,
) {
    if !wanted(label) {
        return;
    }
    let f = Arc::new(Refund::new());
    // Warm up both (connections, caches, files).
    round(&ledger, &f, workers, 5, &mut Samples::default());
    round(&naive, &f, workers, 5, &mut Samples::default());
    let (mut l, mut n) = (Samples::default(), Samples::default());
    for _ in 0..ROUNDS {
        round(&ledger, &f, workers, per_worker, &mut l);
        round(&naive, &f, workers, per_worker, &mut n);
    }
    let spread = |v: &[f64]| {
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
        format!("{lo:.0}-{hi:.0}")
    };
    let (lm, nm) = (median(&mut l.rates), median(&mut n.rates));
    println!(
        "| {label} | {lm:.0} ({}) | {:.2} / {:.2} | {nm:.0} ({}) | {:.2} / {:.2} | {:.2}x |",
        spread(&l.rates),
        pct(&mut l.latencies, 0.5),
        pct(&mut l.latencies, 0.99),
        spread(&n.rates),
        pct(&mut n.latencies, 0.5),
        pct(&mut n.latencies, 0.99),
        nm / lm
    );
}

/// The attempts `ledgers` ran again so far, summed by reason.
fn retries(ledgers: &[&Ledger]) -> BTreeMap<&'static str, u64> {
    let mut sum = BTreeMap::new();
    for (reason, n) in ledgers.iter().flat_map(|l| l.retries()) {
        *sum.entry(reason).or_default() += n;
    }
    sum
}

/// The retries from `before` to `after` that happened, as `reason count, ...`.
fn retries_between(before: &BTreeMap<&str, u64>, after: &BTreeMap<&str, u64>) -> String {
    let ran: Vec<String> = after
        .iter()
        .map(|(reason, n)| (reason, n - before.get(reason).copied().unwrap_or(0)))
        .filter(|(_, n)| *n > 0)
        .map(|(reason, n)| format!("{reason} {n}"))
        .collect();
    if ran.is_empty() {
        "none".to_owned()
    } else {
        ran.join(", ")
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` and test discovery
    }
    let dir = std::env::temp_dir().join(format!("actionseal-bench-ledger-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    println!(
        "| backend | ledger lifecycles/s (rounds) | ledger p50 / p99 ms | naive lifecycles/s (rounds) | naive p50 / p99 ms | ledger cost |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (sync, q) in [("FULL", ""), ("NORMAL", "?synchronous=normal")] {
        let url = format!(
            "sqlite:{}{q}",
            dir.join(format!("ledger-{sync}.db")).display()
        );
        let ledger: Arc<dyn Lifecycle> = Arc::new(Ledger::open(&url).expect("ledger"));
        let naive: Arc<dyn Lifecycle> = Arc::new(NaiveSqlite::open(
            &dir.join(format!("naive-{sync}.db")),
            sync,
        ));
        let n = if sync == "FULL" { 300 } else { 1000 };
        compare(
            &format!("SQLite {sync}, 1 process"),
            ledger.clone(),
            naive.clone(),
            1,
            n,
        );
        // One process whose threads share one ledger (a Node executor's pool, Python threads).
        compare(
            &format!("SQLite {sync}, 1 process, 4 threads"),
            ledger,
            naive,
            4,
            n / 4,
        );
    }
    match std::env::var("ACTIONSEAL_TEST_PG") {
        Ok(base) => {
            let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("pg");
            for sql in ["DROP DATABASE IF EXISTS bench_ledger", "CREATE DATABASE bench_ledger"] {
                admin.batch_execute(sql).expect("db");
            }
            let url = format!("{}/bench_ledger", base.rsplit_once('/').expect("url").0);
            let one = Arc::new(Ledger::open(&url).expect("ledger"));
            let ledger: Arc<dyn Lifecycle> = one.clone();
            let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("pg");
            c.batch_execute(
                "CREATE TABLE naive_tasks (id TEXT PRIMARY KEY, state TEXT NOT NULL,
                   action TEXT NOT NULL, approval TEXT, fence BIGINT NOT NULL)",
            )
            .expect("schema");
            let naive: Arc<dyn Lifecycle> = Arc::new(NaivePg {
                url: url.clone(),
                pool: std::sync::Mutex::new(Vec::new()),
            });
            let two = Arc::new(Apart {
                deciding: Ledger::open(&url).expect("ledger"),
                executing: Ledger::open(&url).expect("ledger"),
            });
            let apart: Arc<dyn Lifecycle> = two.clone();
            // Each configuration's retries (its warm-up included), printed after the table.
            let mut ran_again = Vec::new();
            let mut counted = |label: String, ledgers: &[&Ledger], run: &dyn Fn(&str)| {
                let before = retries(ledgers);
                run(&label);
                if wanted(&label) {
                    ran_again.push((label, retries_between(&before, &retries(ledgers))));
                }
            };
            for workers in [1, 8, 32] {
                let label = format!(
                    "PostgreSQL, {workers} {}",
                    if workers == 1 { "worker" } else { "workers" }
                );
                let per_worker = (600 / workers).max(20);
                counted(label.clone(), &[&one], &|label| {
                    compare(label, ledger.clone(), naive.clone(), workers, per_worker)
                });
                counted(
                    format!("{label}, deciding and executing ledgers apart"),
                    &[&two.deciding, &two.executing],
                    &|label| compare(label, apart.clone(), naive.clone(), workers, per_worker),
                );
            }
            println!();
            println!("| backend | ledger operations run again, by reason |");
            println!("|---|---|");
            for (label, ran) in ran_again {
                println!("| {label} | {ran} |");
            }
        }
        Err(_) => println!(
            "(PostgreSQL skipped: run through `scripts/pg run --fsync cargo bench -p actionseal-bench --bench ledger`)"
        ),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
