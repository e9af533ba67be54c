//! Claiming every item of a 1,000-item batch against claiming 1,000 tasks approved one by one,
//! through the same ledger, on each engine (issue 28's goal: at most 1.3x). An item's claim
//! does what a task's does, and in the same transaction checks its inclusion proof against
//! the batch decision, its drift, the lineage's caps and its breaker.
//!
//!   cargo bench -p actionseal-bench --bench batch_claims                       # SQLite
//!   scripts/pg run --fsync cargo bench -p actionseal-bench --bench batch_claims  # and PostgreSQL
//!
//! Each round proposes and decides both sides first (not timed), then times the 1,000 claims
//! of one side and of the other, in alternating order. On SQLite the write-ahead log is copied
//! back (`wal_checkpoint(RESTART)`) before each timed side: otherwise whichever side ran first
//! copied back the log of both sides' untimed proposals and decisions, in the background
//! checkpointer's thread and its commits' own checkpoints, and the per-round ratios split into
//! two modes (0.9x and 2x) by where that work fell. The table gives the median and range
//! of the per-round ratio, and each side's median claims/s. On PostgreSQL a ledger handle
//! remembers the tasks it wrote last, so a single task's claim through the handle that
//! decided it sends no read: a second row, on a database of its own, claims both sides
//! through another handle.

use actionseal_bench::{json, median_and_range, option, wanted, Refund};
use actionseal_core::batch::Semantics;
use actionseal_core::{canonicalize, OwnedValue};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger};
use std::time::Instant;

const ROUNDS: usize = 5;
/// How many items a batch has, and how many single tasks it is compared with (`--items=N`;
/// the issue's goal is at 1,000).
fn items() -> usize {
    option("items", 1000.0) as usize
}

/// The refunds of `examples/refund/` under its contract made batchable up to [`items`].
fn batchable() -> Refund {
    let text = canonicalize(&Refund::new().contract);
    Refund::under(json(&format!(
        r#"{},"batch":{{"max_items":{}}}}}"#,
        text.strip_suffix('}').expect("an object"),
        items()
    )))
}

fn request<'v>(
    task: &'v str,
    action: &'v OwnedValue,
    facts: &'v OwnedValue,
) -> ClaimRequest<'v, 'v> {
    ClaimRequest {
        task_id: task,
        action,
        facts,
        executor: "worker",
        lease_ms: 3_600_000,
        budget: None,
        proof: Default::default(),
    }
}

fn claimed(out: ClaimOutcome) {
    let ClaimOutcome::Claimed(..) = out else {
        panic!("not claimed: {}", out.result())
    };
}

/// 1,000 tasks proposed and approved one by one; returns their ids and actions.
fn singles(l: &Ledger, f: &Refund, round: usize) -> Vec<(String, OwnedValue)> {
    (0..items())
        .map(|i| {
            let job = format!("single-{round}-{i}");
            let act = f.action(&job);
            let t = l.propose(&act, &f.contract, "agent").expect("propose");
            let now = l.now();
            let d = json(&format!(
                r#"{{"approval_id": "{}", "decision_id": "d-{job}", "job_id": "{job}",
                    "request_id": "req-1", "action_digest": "{}", "decision": "approved",
                    "approver": "user:bob", "decided_at": {now}, "expires_at": {}}}"#,
                t.approval_id.as_deref().unwrap_or(""),
                t.action_digest,
                now + 3_600_000
            ));
            l.decide(&d).expect("decide");
            (t.id, act)
        })
        .collect()
}

/// A batch of 1,000 refunds proposed and approved with one decision; its items' ids and
/// actions.
fn batch(l: &Ledger, f: &Refund, round: usize) -> Vec<(String, OwnedValue)> {
    let actions: Vec<OwnedValue> = (0..items())
        .map(|i| f.action(&format!("batch-{round}-{i}")))
        .collect();
    let b = l
        .propose_batch(&actions, &f.contract, Semantics::PerItem, "agent")
        .expect("propose_batch");
    let now = l.now();
    let d = json(&format!(
        r#"{{"approval_id": "{}", "decision_id": "d-batch-{round}", "batch_id": "{}",
            "batch_digest": "{}", "decision": "approved", "approver": "user:bob",
            "decided_at": {now}, "expires_at": {}}}"#,
        b.approval_id,
        b.id,
        b.digest,
        now + 3_600_000
    ));
    l.decide_batch(&d).expect("decide_batch");
    b.items
        .iter()
        .map(|(id, _)| id.clone())
        .zip(actions)
        .collect()
}

/// Seconds to claim every task, one after another.
fn time(
    items: &[(String, OwnedValue)],
    claim: impl Fn(&ClaimRequest<'_, '_>) -> ClaimOutcome,
    facts: &OwnedValue,
) -> f64 {
    let start = Instant::now();
    for (id, act) in items {
        claimed(claim(&request(id, act, facts)));
    }
    start.elapsed().as_secs_f64()
}

/// One row: both sides proposed and decided through `l`, claimed through `claimer`, each
/// timed side after `settle`.
fn compare(label: &str, l: &Ledger, claimer: &Ledger, settle: &dyn Fn()) {
    if !wanted(label) {
        return;
    }
    let f = batchable();
    let (mut ratios, mut item_rates, mut single_rates) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let s = singles(l, &f, round);
        let b = batch(l, &f, round);
        let claim_single = |r: &ClaimRequest<'_, '_>| claimer.claim(r).expect("claim");
        let claim_item = |r: &ClaimRequest<'_, '_>| claimer.claim_item(r).expect("claim_item");
        let side = |tasks: &[(String, OwnedValue)], item: bool| {
            settle();
            match item {
                true => time(tasks, claim_item, &f.facts),
                false => time(tasks, claim_single, &f.facts),
            }
        };
        let (ts, tb) = if round % 2 == 0 {
            let ts = side(&s, false);
            (ts, side(&b, true))
        } else {
            let tb = side(&b, true);
            (side(&s, false), tb)
        };
        ratios.push(tb / ts);
        item_rates.push(items() as f64 / tb);
        single_rates.push(items() as f64 / ts);
    }
    let (r, lo, hi) = median_and_range(ratios);
    let (items, _, _) = median_and_range(item_rates);
    let (singles, _, _) = median_and_range(single_rates);
    println!("| {label} | {r:.2}x ({lo:.2}-{hi:.2}) | {items:.0} | {singles:.0} |");
}

/// The URL of a new, empty database `name` on the server at `base`.
fn database(base: &str, name: &str) -> String {
    let mut admin = postgres::Client::connect(base, postgres::NoTls).expect("pg");
    for sql in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
    ] {
        admin.batch_execute(&sql).expect("db");
    }
    format!("{}/{name}", base.rsplit_once('/').expect("url").0)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` and test discovery
    }
    let dir = std::env::temp_dir().join(format!("actionseal-bench-batch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let n = items();
    println!(
        "| backend | {n} item claims / {n} task claims (rounds) | item claims/s | task claims/s |"
    );
    println!("|---|---:|---:|---:|");
    for (sync, q) in [("FULL", ""), ("NORMAL", "?synchronous=normal")] {
        let url = format!(
            "sqlite:{}{q}",
            dir.join(format!("batch-{sync}.db")).display()
        );
        let l = Ledger::open(&url).expect("ledger");
        let log = rusqlite::Connection::open(dir.join(format!("batch-{sync}.db"))).expect("db");
        // RESTART, not TRUNCATE: the log keeps its length, as under the ledger's checkpointer.
        let settle = || {
            log.query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()))
                .expect("checkpoint")
        };
        compare(&format!("SQLite {sync}"), &l, &l, &settle);
    }
    match std::env::var("ACTIONSEAL_TEST_PG") {
        Ok(base) => {
            let l = Ledger::open(&database(&base, "bench_batch")).expect("ledger");
            compare("PostgreSQL", &l, &l, &|| ());
            // An executor of its own (another process, in practice) has not written the
            // tasks it claims: a single claim reads its task first, as an item's does.
            let url = database(&base, "bench_batch_executor");
            let l = Ledger::open(&url).expect("ledger");
            let executor = Ledger::open(&url).expect("ledger");
            compare("PostgreSQL, claimed through another handle", &l, &executor, &|| ());
        }
        Err(_) => println!(
            "(PostgreSQL skipped: run through `scripts/pg run --fsync cargo bench -p actionseal-bench --bench batch_claims`)"
        ),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
