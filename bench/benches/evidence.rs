//! Evidence bundles (issue 26). Goals: `verify_evidence` of a typical refund bundle takes at
//! most 3 ms natively (10 ms in Chromium: `bench/wasm-chromium.mjs`), and a bundle's size and
//! its verification time grow at most with the logarithm of the log's size.
//!
//!   cargo bench -p actionseal-bench --bench evidence
//!
//! The typical bundle is a refund exported from a real ledger: proposed, approved with a
//! service-signed record, claimed, completed, witnessed. For the log's size, the same task's
//! events are placed at the end of a log of 10^3, 10^5 and 10^6 leaves (the others filler
//! events), with their proofs and a checkpoint signed again over that log: the bundle differs
//! only in its proofs, so what grows is what the log's size adds.

use actionseal_bench::{json, Refund};
use actionseal_core::evidence::{verify_evidence, Bundle};
use actionseal_core::ledger::Reported;
use actionseal_core::tlog::checkpoint::Checkpoint;
use actionseal_core::tlog::merkle::{inclusion_proof, leaf_hash, MemoryTree};
use actionseal_core::tlog::note::{Note, SignerKey};
use actionseal_core::{
    base64url_encode, canonicalize, sign_approval, Action, Approval, Decision, DecisionInput,
    KeySet, OwnedValue, ProofPolicy, SigningKey,
};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, LedgerOptions};
use std::time::Instant;

const ROUNDS: usize = 20;

fn service_key() -> SigningKey {
    SigningKey::from_seed(&[1; 32])
}

fn log_key() -> SignerKey {
    SignerKey::from_seed("bench.actionseal.example/log", &[7; 32]).expect("log key")
}

fn approval_keys() -> String {
    let k = service_key();
    format!(
        r#"{{"service_keys": {{"{}": {{"key": "{}"}}}}}}"#,
        k.public_key().keyid(),
        base64url_encode(k.public_key().as_bytes())
    )
}

fn trust() -> OwnedValue {
    json(&format!(
        r#"{{"ledger_keys": [{{"key": "{}"}}], "approval_keys": {}}}"#,
        log_key().verifier(),
        approval_keys()
    ))
}

/// A refund's bundle, exported from a ledger in memory.
fn refund_bundle() -> Bundle {
    let keys = KeySet::from_value(&json(&approval_keys())).expect("keys");
    let l = Ledger::open_with(
        "sqlite::memory:",
        LedgerOptions {
            proof: Some(ProofPolicy::new(false, keys)),
            checkpoint_signer: Some(log_key()),
            ..LedgerOptions::default()
        },
    )
    .expect("ledger");
    let f = Refund::new();
    let act = f.action("job-1");
    let t = l.propose(&act, &f.contract, "agent:7").expect("propose");
    let input = DecisionInput {
        approval_id: t.approval_id.as_deref().expect("approval id"),
        decision_id: "d-1",
        decision: Decision::Approved,
        approver: "user:bob",
        decided_at: l.now(),
        expires_at: l.now() + 3_600_000,
        proposed_digest: None,
        role: None,
        on_behalf_of: None,
        delegation: None,
    };
    let record =
        Approval::decide(&Action::from_value(&act).expect("action"), &input).expect("record");
    l.decide(&sign_approval(record.value(), &service_key()).expect("sign"))
        .expect("decide");
    let out = l
        .claim(&ClaimRequest {
            task_id: &t.id,
            action: &act,
            facts: &f.facts,
            executor: "worker-1",
            lease_ms: 60_000,
            budget: None,
            proof: Default::default(),
        })
        .expect("claim");
    let ClaimOutcome::Claimed(c, _) = out else {
        panic!("not claimed")
    };
    l.complete(&t.id, c.fence, Reported::Succeeded, None, "worker-1")
        .expect("complete");
    l.evidence(&t.id, "auditor:carol", None).expect("evidence")
}

/// `b` with its events at the end of a log of `size` leaves, proofs and checkpoint to match.
fn in_log_of(b: &Bundle, size: u64) -> Bundle {
    let mut b = b.clone();
    let ours = b.events.len() as u64 + 1;
    let mut tree = MemoryTree::new();
    for i in 0..size - ours {
        tree.push(leaf_hash(format!("filler event {i}").as_bytes()));
    }
    let first = size - ours;
    for (i, e) in b
        .events
        .iter_mut()
        .chain(std::iter::once(&mut b.export))
        .enumerate()
    {
        e.index = first + i as u64;
        tree.push(leaf_hash(e.text.as_bytes()));
    }
    for e in b.events.iter_mut().chain(std::iter::once(&mut b.export)) {
        e.proof = inclusion_proof(&mut tree, e.index, size).expect("proof");
    }
    let text = Checkpoint::new(log_key().name(), size, tree.root())
        .expect("checkpoint")
        .to_string();
    b.checkpoint.note = Note::signed(&text, &log_key()).expect("note").to_string();
    b.witnessed.clear();
    b
}

fn micros_per_call(bundle: &OwnedValue, trust: &OwnedValue, calls: usize) -> f64 {
    let t = Instant::now();
    for _ in 0..calls {
        std::hint::black_box(verify_evidence(bundle, trust).expect("verifies"));
    }
    t.elapsed().as_secs_f64() * 1e6 / calls as f64
}

fn median_and_range(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let base = refund_bundle();
    let trust = trust();
    let typical = json(&canonicalize(&base.to_value()));
    verify_evidence(&typical, &trust).expect("the typical bundle verifies");
    let (m, lo, hi) = median_and_range(
        (0..ROUNDS)
            .map(|_| micros_per_call(&typical, &trust, 200))
            .collect(),
    );
    println!("| bundle | bytes | verify µs, median (range of {ROUNDS} rounds) | goal |");
    println!("|---|---:|---:|---|");
    println!(
        "| typical refund, witnessed log of {} events | {} | {m:.0} ({lo:.0}-{hi:.0}) | at most 3,000 |",
        base.export.index + 1,
        canonicalize(&typical).len()
    );
    // The same bundle in logs of growing size, interleaved round by round.
    let sizes = [1_000u64, 100_000, 1_000_000];
    let built: Vec<Bundle> = sizes.iter().map(|&n| in_log_of(&base, n)).collect();
    let bundles: Vec<OwnedValue> = built
        .iter()
        .map(|b| json(&canonicalize(&b.to_value())))
        .collect();
    let mut times = vec![Vec::new(); sizes.len()];
    for _ in 0..ROUNDS {
        for (i, b) in bundles.iter().enumerate() {
            times[i].push(micros_per_call(b, &trust, 200));
        }
    }
    println!();
    println!(
        "| log size | log2 | bundle bytes | proof hashes | verify µs, median (range) | µs / log2 |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for (((n, b), t), parts) in sizes.iter().zip(&bundles).zip(times).zip(&built) {
        let hashes: usize = parts.events.iter().map(|e| e.proof.len()).sum();
        let (m, lo, hi) = median_and_range(t);
        let log2 = (*n as f64).log2();
        println!(
            "| {n} | {log2:.1} | {} | {hashes} | {m:.0} ({lo:.0}-{hi:.0}) | {:.1} |",
            canonicalize(b).len(),
            m / log2
        );
    }
}
