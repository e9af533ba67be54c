//! Evidence bundles (issue 26). Goals: `verify_evidence` of a typical refund bundle takes at
//! most 3 ms natively (10 ms in Chromium: `bench/wasm-chromium.mjs`), and a bundle's size and
//! its verification time grow at most with the logarithm of the log's size.
//!
//!   cargo bench -p actionseal-bench --bench evidence [-- --write-bundle PATH]
//!
//! The typical bundle is a refund exported from a real ledger: proposed, approved with a
//! service-signed record, claimed, completed, its checkpoint cosigned by one witness (the
//! trust asks for one). For the log's size, the same task's events are placed at the end of a
//! log of 10^3, 10^5 and 10^6 leaves (the others filler events), with their proofs and a
//! checkpoint signed and cosigned again over that log: the bundle differs only in its proofs,
//! so what grows is what the log's size adds.
//!
//! `--write-bundle PATH` also writes `{"bundle", "trust"}` of the typical bundle to PATH, the
//! input of the Python, Node and Chromium rows: `-- --write-bundle payloads/evidence-refund.json`
//! (cargo runs a bench in `bench/`).

use actionseal_bench::{cpu_seconds, json, log_key, median_and_range, Refund};
use actionseal_core::evidence::{verify_evidence, Bundle};
use actionseal_core::ledger::Reported;
use actionseal_core::tlog::checkpoint::Checkpoint;
use actionseal_core::tlog::cosignature::Cosigner;
use actionseal_core::tlog::merkle::{inclusion_proof, leaf_hash, MemoryTree};
use actionseal_core::tlog::note::{Note, Signature, SignerKey};
use actionseal_core::{
    base64url_encode, canonicalize, sign_approval, Action, Approval, Decision, DecisionInput,
    KeySet, OwnedValue, ProofPolicy, SigningKey,
};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, LedgerOptions};

const ROUNDS: usize = 20;

fn service_key() -> SigningKey {
    SigningKey::from_seed(&[1; 32])
}

/// The witness that cosigns the bundles' checkpoints.
fn witness() -> Cosigner {
    Cosigner::new(SignerKey::from_seed("witness.example", &[9; 32]).expect("witness key"))
}

fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

/// The witness's cosignature at `seconds` of the checkpoint in `note` (signed by the log).
fn cosignature(note: &Note, seconds: u64) -> Signature {
    let checkpoint = Checkpoint::parse(note.text()).expect("checkpoint");
    witness().cosign(&checkpoint, seconds).expect("cosign")
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
        r#"{{"ledger_keys": [{{"key": "{}"}}], "approval_keys": {},
            "witnesses": {{"keys": ["{}"], "quorum": 1}}}}"#,
        log_key().verifier(),
        approval_keys(),
        witness().verifier()
    ))
}

/// A refund's bundle, exported from a ledger in memory, its checkpoint cosigned by the witness.
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
    l.evidence_with(&t.id, "auditor:carol", None, |c| {
        let note = Note::parse(c.note.as_bytes()).expect("note");
        let line = cosignature(&note, now_seconds());
        l.add_cosignatures(c.size, &witness().verifier(), &[line])
    })
    .expect("evidence")
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
    let mut note = Note::signed(&text, &log_key()).expect("note");
    note.push(cosignature(&note, now_seconds()))
        .expect("cosignature");
    b.checkpoint.note = note.to_string();
    b.witnessed.clear();
    b
}

/// CPU microseconds per call (this thread's: waiting for a core on a shared machine is not
/// the verifier's).
fn micros_per_call(bundle: &OwnedValue, trust: &OwnedValue, calls: usize) -> f64 {
    let t = cpu_seconds();
    for _ in 0..calls {
        std::hint::black_box(verify_evidence(bundle, trust).expect("verifies"));
    }
    (cpu_seconds() - t) * 1e6 / calls as f64
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let base = refund_bundle();
    let trust = trust();
    let typical = json(&canonicalize(&base.to_value()));
    verify_evidence(&typical, &trust).expect("the typical bundle verifies");
    let args: Vec<String> = std::env::args().collect();
    if let Some(path) = args
        .windows(2)
        .find(|w| w[0] == "--write-bundle")
        .map(|w| &w[1])
    {
        let both = format!(
            r#"{{"bundle": {}, "trust": {}}}"#,
            canonicalize(&typical),
            canonicalize(&trust)
        );
        std::fs::write(path, canonicalize(&json(&both)) + "\n").expect("write the bundle");
        println!("(the typical bundle and its trust: {path})");
    }
    let (m, lo, hi) = median_and_range(
        (0..ROUNDS)
            .map(|_| micros_per_call(&typical, &trust, 200))
            .collect(),
    );
    println!("CPU µs per call, median (lowest-highest) of {ROUNDS} rounds of 200 calls");
    println!();
    println!("| bundle | bytes | verify µs, median (range of {ROUNDS} rounds) | goal |");
    println!("|---|---:|---:|---|");
    println!(
        "| typical refund, {} events, witnessed, in a log of {} | {} | {m:.0} ({lo:.0}-{hi:.0}) | at most 3,000 |",
        base.events.len() + 1,
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
        let hashes: usize = parts
            .events
            .iter()
            .chain(std::iter::once(&parts.export))
            .map(|e| e.proof.len())
            .sum();
        let (m, lo, hi) = median_and_range(t);
        let log2 = (*n as f64).log2();
        println!(
            "| {n} | {log2:.1} | {} | {hashes} | {m:.0} ({lo:.0}-{hi:.0}) | {:.1} |",
            canonicalize(b).len(),
            m / log2
        );
    }
}
