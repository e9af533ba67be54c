//! Runs full ledger lifecycles (propose, decide, claim, complete) on a fresh SQLite file, for
//! profilers and quick timings; prints wall and CPU time per lifecycle (and, on PostgreSQL, the
//! operations run again, by reason):
//!   cargo run --release -p actionseal-bench --example ledger_profile -- 2000 normal
//!   valgrind --tool=callgrind target/release/examples/ledger_profile 300 normal
//!   perf record -e cpu-clock -g target/release/examples/ledger_profile 20000 normal
//! The second argument is `normal` (default), `full`, a whole ledger URL, or `naive` for the
//! benchmark's naive lifecycle (`NAIVE_SYNC=FULL` for synchronous=FULL; `naive postgres://…`
//! for the naive code on PostgreSQL, in a table of its own that it creates afresh;
//! `NAIVE_PREPARED=1` prepares its statements once instead of before each use).
use actionseal_bench::{lifecycle, Refund};
use actionseal_core::canonicalize;
use actionseal_ledger::Ledger;

/// CPU time of this thread so far, from Linux's /proc (wall time misleads on a loaded machine).
fn cpu_time() -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(std::time::Duration::from_nanos(ns))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let mode = args.next().unwrap_or_else(|| "normal".into());
    let dir =
        std::env::temp_dir().join(format!("actionseal-ledger-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let url = match mode.as_str() {
        "normal" => format!("sqlite:{}?synchronous=normal", dir.join("l.db").display()),
        "full" => format!("sqlite:{}", dir.join("l.db").display()),
        url => url.to_owned(),
    };
    if mode == "naive" {
        match args.next() {
            Some(url) => naive_pg(n, &url),
            None => naive(n, &dir),
        }
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let ledger = Ledger::open(&url).expect("ledger");
    let refund = Refund::new();
    let one = |job: String| lifecycle(&ledger, &ledger, &refund, &job);
    // THREADS=N runs N threads of n lifecycles each on the one ledger (PostgreSQL's workers).
    let threads: usize = std::env::var("THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1);
    let (t0, c0) = (std::time::Instant::now(), cpu_time());
    if threads == 1 {
        (0..n).for_each(|i| one(format!("job-{i}")));
    } else {
        std::thread::scope(|s| {
            for t in 0..threads {
                let one = &one;
                s.spawn(move || {
                    (0..n).for_each(|i| one(format!("job-{}-{t}-{i}", std::process::id())))
                });
            }
        });
    }
    let wall = t0.elapsed() / n as u32;
    match (c0, cpu_time()) {
        (Some(a), Some(b)) => println!(
            "{n} lifecycles on {url}: {wall:?} wall, {:?} CPU of this thread per lifecycle",
            (b - a) / n as u32
        ),
        _ => println!("{n} lifecycles on {url}: {wall:?} wall per lifecycle"),
    }
    // The operations PostgreSQL ran again, by reason (SQLite names none).
    let ran: Vec<String> = ledger
        .retries()
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(reason, n)| format!("{reason} {n}"))
        .collect();
    if ledger.backend() == "postgres" {
        println!(
            "operations run again: {}",
            if ran.is_empty() {
                "none".to_owned()
            } else {
                ran.join(", ")
            }
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The benchmark's naive lifecycle (SELECT-then-UPDATE, no audit), for comparison.
fn naive(n: usize, dir: &std::path::Path) {
    let c = rusqlite::Connection::open(dir.join("naive.db")).expect("open");
    c.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
        .expect("wal");
    // NORMAL or FULL; as in the benchmark: SQLite's default checkpoint interval with FULL,
    // 10,000 with NORMAL.
    let sync = std::env::var("NAIVE_SYNC").unwrap_or_else(|_| "NORMAL".into());
    let ck = if sync.eq_ignore_ascii_case("full") {
        1000
    } else {
        10000
    };
    c.execute_batch(&format!(
        "PRAGMA synchronous={sync}; PRAGMA wal_autocheckpoint={ck};
         CREATE TABLE naive_tasks (id TEXT PRIMARY KEY, state TEXT NOT NULL,
           action TEXT NOT NULL, approval TEXT, fence INTEGER NOT NULL);"
    ))
    .expect("schema");
    let refund = Refund::new();
    let (t0, c0) = (std::time::Instant::now(), cpu_time());
    for i in 0..n {
        let job = format!("job-{i}");
        let act = canonicalize(&refund.action(&job));
        let run = |sql: &str, p: &[&dyn rusqlite::ToSql]| {
            c.prepare_cached(sql)
                .and_then(|mut s| s.execute(p))
                .expect("sql")
        };
        run(
            "INSERT INTO naive_tasks VALUES (?1, 'awaiting_approval', ?2, NULL, 0)",
            &[&job, &act],
        );
        run(
            "UPDATE naive_tasks SET state = 'approved', approval = ?2 WHERE id = ?1",
            &[&job, &"{}"],
        );
        let _: String = c
            .prepare_cached("SELECT state FROM naive_tasks WHERE id = ?1")
            .and_then(|mut s| s.query_row([&job], |r| r.get(0)))
            .expect("look");
        run(
            "UPDATE naive_tasks SET state = 'claimed', fence = fence + 1 WHERE id = ?1",
            &[&job],
        );
        run(
            "UPDATE naive_tasks SET state = 'succeeded' WHERE id = ?1",
            &[&job],
        );
    }
    let wall = t0.elapsed() / n as u32;
    if let (Some(a), Some(b)) = (c0, cpu_time()) {
        println!(
            "{n} naive lifecycles: {wall:?} wall, {:?} CPU per lifecycle",
            (b - a) / n as u32
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The benchmark's naive lifecycle on PostgreSQL (each statement prepared and executed, as
/// `NaivePg` in `benches/ledger.rs` does; with `NAIVE_PREPARED=1`, each prepared once).
fn naive_pg(n: usize, url: &str) {
    let once = std::env::var("NAIVE_PREPARED").is_ok_and(|v| v == "1");
    let mut kept: std::collections::HashMap<&'static str, postgres::Statement> =
        std::collections::HashMap::new();
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connect");
    c.batch_execute(
        "DROP TABLE IF EXISTS naive_tasks;
         CREATE TABLE naive_tasks (id TEXT PRIMARY KEY, state TEXT NOT NULL,
           action TEXT NOT NULL, approval TEXT, fence BIGINT NOT NULL)",
    )
    .expect("schema");
    let refund = Refund::new();
    let (t0, c0) = (std::time::Instant::now(), cpu_time());
    for i in 0..n {
        let job = format!("job-{i}");
        let act = canonicalize(&refund.action(&job));
        let mut statement = |c: &mut postgres::Client, sql: &'static str| match kept.get(sql) {
            Some(st) => st.clone(),
            None => {
                let st = c.prepare(sql).expect("prepare");
                if once {
                    kept.insert(sql, st.clone());
                }
                st
            }
        };
        let st = statement(
            &mut c,
            "INSERT INTO naive_tasks VALUES ($1, 'awaiting_approval', $2, NULL, 0)",
        );
        c.execute(&st, &[&job, &act]).expect("propose");
        let st = statement(
            &mut c,
            "UPDATE naive_tasks SET state = 'approved', approval = $2 WHERE id = $1",
        );
        c.execute(&st, &[&job, &"{\"decision\":\"approved\"}"])
            .expect("decide");
        let st = statement(&mut c, "SELECT state FROM naive_tasks WHERE id = $1");
        let _: String = c.query_one(&st, &[&job]).expect("look").get(0);
        for sql in [
            "UPDATE naive_tasks SET state = 'claimed', fence = fence + 1 WHERE id = $1",
            "UPDATE naive_tasks SET state = 'succeeded' WHERE id = $1",
        ] {
            let st = statement(&mut c, sql);
            c.execute(&st, &[&job]).expect("execute");
        }
    }
    let wall = t0.elapsed() / n as u32;
    if let (Some(a), Some(b)) = (c0, cpu_time()) {
        println!(
            "{n} naive lifecycles on {url}: {wall:?} wall, {:?} CPU per lifecycle",
            (b - a) / n as u32
        );
    }
}
