//! What checkpointing the Merkle log every second costs the ledger's lifecycles (issue 26).
//! Goal: at most 5% fewer lifecycles/s on each engine and configuration of the ledger bench.
//!
//!   cargo bench -p actionseal-bench --bench checkpoint [-- FILTER --rounds=5 --seconds=4]
//!   scripts/pg run --fsync cargo bench -p actionseal-bench --bench checkpoint   # and PostgreSQL
//!
//! Two ledgers of the same configuration, each on its own database and both with a checkpoint
//! key, run the ledger bench's lifecycles (propose, decide, claim, complete) in rounds of a
//! fixed time, interleaved (the order alternates round by round); during the rounds of one, a
//! thread calls `checkpoint()` every second, half a second into the round first, so each
//! checkpoint sequences about a second of events (the first one also the tail of its previous
//! round). The cost of a round pair is lifecycles/s without / with; the table gives its median
//! and range over the rounds, both rates, the lifecycles' p99 (writers wait while a checkpoint
//! runs), how many checkpoints and leaves each round made, and how long a checkpoint took.

use actionseal_bench::{lifecycle, log_key, median_and_range, option, wanted, Refund};
use actionseal_ledger::{Ledger, LedgerOptions};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static JOB: AtomicUsize = AtomicUsize::new(0);

fn open(url: &str) -> Ledger {
    Ledger::open_with(
        url,
        LedgerOptions {
            checkpoint_signer: Some(log_key()),
            ..LedgerOptions::default()
        },
    )
    .expect("ledger")
}

/// One round's figures.
#[derive(Default)]
struct Round {
    rate: f64,
    latencies: Vec<Duration>,
    checkpoints: usize,
    leaves: u64,
    checkpoint_ms: Vec<f64>,
}

/// Lifecycles on `workers` threads for `length`; with `checkpoints`, a thread checkpoints the
/// ledger every second from half a second in. `size` is the log's size before the round.
fn round(
    l: &Ledger,
    f: &Refund,
    workers: usize,
    length: Duration,
    checkpoints: bool,
    size: &mut u64,
) -> Round {
    let done = AtomicBool::new(false);
    let start = Instant::now();
    let (latencies, elapsed, made) = std::thread::scope(|scope| {
        let checkpointer = checkpoints.then(|| {
            scope.spawn(|| {
                let mut made = Vec::new();
                let mut next = start + Duration::from_millis(500);
                // None after the round's end: the last lifecycles may run past it.
                while !done.load(Ordering::Relaxed) && next < start + length {
                    let now = Instant::now();
                    if now < next {
                        std::thread::sleep((next - now).min(Duration::from_millis(20)));
                        continue;
                    }
                    let t = Instant::now();
                    let c = l.checkpoint().expect("checkpoint");
                    made.push((c.size, t.elapsed().as_secs_f64() * 1e3));
                    next += Duration::from_secs(1);
                }
                made
            })
        });
        let hs: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut lats = Vec::new();
                    while start.elapsed() < length {
                        let job = format!("job-{}", JOB.fetch_add(1, Ordering::Relaxed));
                        let t = Instant::now();
                        lifecycle(l, l, f, &job);
                        lats.push(t.elapsed());
                    }
                    lats
                })
            })
            .collect();
        let lats: Vec<Duration> = hs
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect();
        let elapsed = start.elapsed();
        done.store(true, Ordering::Relaxed);
        let made = checkpointer.map_or_else(Vec::new, |h| h.join().expect("checkpointer"));
        (lats, elapsed, made)
    });
    let rate = latencies.len() as f64 / elapsed.as_secs_f64();
    let before = *size;
    if let Some(&(last, _)) = made.last() {
        *size = last;
    }
    Round {
        rate,
        latencies,
        checkpoints: made.len(),
        leaves: *size - before,
        checkpoint_ms: made.into_iter().map(|(_, ms)| ms).collect(),
    }
}

fn p99_ms(rounds: &[Round]) -> f64 {
    let mut v: Vec<Duration> = rounds.iter().flat_map(|r| r.latencies.clone()).collect();
    v.sort();
    let i = ((v.len() as f64 - 1.0) * 0.99).round() as usize;
    v.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

fn compare(label: &str, with: &Ledger, without: &Ledger, workers: usize) {
    if !wanted(label) {
        return;
    }
    let rounds = option("rounds", 5.0) as usize;
    let length = Duration::from_secs_f64(option("seconds", 4.0));
    let f = Refund::new();
    // Warm up both (connections, caches, files); the log starts from a checkpoint.
    let warm = Duration::from_millis(300);
    let mut size = with.checkpoint().expect("checkpoint").size;
    round(without, &f, workers, warm, false, &mut 0);
    round(with, &f, workers, warm, false, &mut 0);
    let (mut w, mut wo) = (Vec::new(), Vec::new());
    for i in 0..rounds {
        if i % 2 == 0 {
            w.push(round(with, &f, workers, length, true, &mut size));
            wo.push(round(without, &f, workers, length, false, &mut 0));
        } else {
            wo.push(round(without, &f, workers, length, false, &mut 0));
            w.push(round(with, &f, workers, length, true, &mut size));
        }
    }
    let cost = median_and_range(w.iter().zip(&wo).map(|(a, b)| b.rate / a.rate).collect());
    let rate = |v: &[Round]| median_and_range(v.iter().map(|r| r.rate).collect());
    let (rw, rwo) = (rate(&w), rate(&wo));
    let span = |v: Vec<u64>| {
        let (lo, hi) = (v.iter().min(), v.iter().max());
        format!("{}-{}", lo.unwrap_or(&0), hi.unwrap_or(&0))
    };
    let ms: Vec<f64> = w.iter().flat_map(|r| r.checkpoint_ms.clone()).collect();
    let (ms_median, _, ms_max) = median_and_range(ms);
    println!(
        "| {label} | {:.3}x ({:.3}-{:.3}) | {:.0} ({:.0}-{:.0}) | {:.0} ({:.0}-{:.0}) | {:.2} / {:.2} | {} | {} | {ms_median:.1} / {ms_max:.1} |",
        cost.0,
        cost.1,
        cost.2,
        rw.0,
        rw.1,
        rw.2,
        rwo.0,
        rwo.1,
        rwo.2,
        p99_ms(&w),
        p99_ms(&wo),
        span(w.iter().map(|r| r.checkpoints as u64).collect()),
        span(w.iter().map(|r| r.leaves).collect()),
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` and test discovery
    }
    let dir = std::env::temp_dir().join(format!(
        "actionseal-bench-checkpoint-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    println!(
        "| backend | cost: lifecycles/s without / with checkpoints, median (range) | with: lifecycles/s (rounds) | without | p99 ms with / without | checkpoints a round | leaves a round | checkpoint ms, median / max |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (sync, q) in [("FULL", ""), ("NORMAL", "?synchronous=normal")] {
        let url = |side: &str| {
            format!(
                "sqlite:{}{q}",
                dir.join(format!("{side}-{sync}.db")).display()
            )
        };
        let (with, without) = (open(&url("with")), open(&url("without")));
        compare(&format!("SQLite {sync}, 1 process"), &with, &without, 1);
        compare(
            &format!("SQLite {sync}, 1 process, 4 threads"),
            &with,
            &without,
            4,
        );
    }
    match std::env::var("ACTIONSEAL_TEST_PG") {
        Ok(base) => {
            let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("pg");
            let url = |db: &str| format!("{}/{db}", base.rsplit_once('/').expect("url").0);
            for db in ["bench_checkpoint_with", "bench_checkpoint_without"] {
                // One statement each: neither runs inside a transaction.
                for sql in [
                    format!("DROP DATABASE IF EXISTS {db}"),
                    format!("CREATE DATABASE {db}"),
                ] {
                    admin.batch_execute(&sql).expect("db");
                }
            }
            let with = open(&url("bench_checkpoint_with"));
            let without = open(&url("bench_checkpoint_without"));
            for workers in [1, 8, 32] {
                let label = format!(
                    "PostgreSQL, {workers} {}",
                    if workers == 1 { "worker" } else { "workers" }
                );
                compare(&label, &with, &without, workers);
            }
        }
        Err(_) => println!(
            "(PostgreSQL skipped: run through `scripts/pg run --fsync cargo bench -p actionseal-bench --bench checkpoint`)"
        ),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
