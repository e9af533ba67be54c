//! The cost of proof at dispatch: `check_with` of a service-signed decision (envelope verified,
//! payload parsed once, then the check) beside `check_with` of the same bare record, against
//! one Ed25519 verification by OpenSSL (`openssl speed -elapsed -seconds 2 ed25519`) on the same machine
//! in the same run. Goal (issue 11): the extra cost is at most 1.5x that verification.
//!
//!   cargo bench -p actionseal-bench --bench proof
//!
//! The Rust figures are interleaved rounds of fixed windows, reported as the median and the
//! range over rounds; OpenSSL runs before and after the rounds and the median of the two runs
//! is used (both are printed). Not a test: nothing here asserts a time.

use actionseal_bench::refund_check;
use actionseal_core::{
    check_with, pae, sign_approval, KeySet, Object, Outcome, ProofPolicy, SigningKey, Value,
    PAYLOAD_TYPE,
};
use std::hint::black_box;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUNDS: usize = 21;
const WINDOW: Duration = Duration::from_millis(40);

/// Microseconds per call of `f`, over one window.
fn window(f: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < WINDOW {
        for _ in 0..16 {
            f();
        }
        n += 16;
    }
    start.elapsed().as_secs_f64() * 1e6 / n as f64
}

/// OpenSSL's Ed25519 verifications per second, from `openssl speed`. `-elapsed` makes it
/// divide by wall-clock time, as the windows here do (its default is user CPU time, which a
/// busy machine does not inflate).
fn openssl_verify_per_second() -> Option<f64> {
    let out = Command::new("openssl")
        .args(["speed", "-elapsed", "-seconds", "2", "ed25519"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    // "253 bits EdDSA (Ed25519)   0.0000s   0.0001s  25017.4   8960.1": sign/s, verify/s.
    let line = text.lines().find(|l| l.contains("(Ed25519)"))?;
    line.split_whitespace().last()?.parse().ok()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes --bench; a filter argument from `cargo test --benches` means: just
    // check that it runs.
    let quick = std::env::args().any(|a| a == "--test");
    let (record, action, plain) = refund_check();
    let key = SigningKey::from_seed(&[42; 32]);
    let envelope = sign_approval(&record, &key).expect("sign");
    let keys = KeySet::from_value(&Value::Object(
        Object::from_entries(vec![(
            "service_keys".into(),
            Value::Object(
                Object::from_entries(vec![(
                    key.public_key().keyid().to_owned().into(),
                    Value::Object(
                        Object::from_entries(vec![("key".into(), key.public_key().to_jwk())])
                            .expect("entry"),
                    ),
                )])
                .expect("keys"),
            ),
        )])
        .expect("key set"),
    ))
    .expect("key set");
    let signed = plain
        .clone()
        .with_proof(Some(Arc::new(ProofPolicy::new(true, keys))));
    assert_eq!(
        check_with(Some(&record), &action, &plain).outcome,
        Outcome::Permit
    );
    assert_eq!(
        check_with(Some(&envelope), &action, &signed).outcome,
        Outcome::Permit
    );
    let message = pae(
        PAYLOAD_TYPE,
        actionseal_core::canonicalize(&record).as_bytes(),
    );
    let sig = key.sign(&message);
    let public = key.public_key().clone();
    if quick {
        println!("proof bench: inputs check out");
        return;
    }

    let before = openssl_verify_per_second();
    let mut bare = Vec::new();
    let mut proven = Vec::new();
    let mut dalek = Vec::new();
    let mut extra = Vec::new();
    for _ in 0..ROUNDS {
        let a = window(&mut || {
            black_box(check_with(Some(black_box(&record)), &action, &plain));
        });
        let b = window(&mut || {
            black_box(check_with(Some(black_box(&envelope)), &action, &signed));
        });
        let c = window(&mut || {
            black_box(public.verify(black_box(&message), &sig)).expect("verifies");
        });
        bare.push(a);
        proven.push(b);
        dalek.push(c);
        extra.push(b - a);
    }
    let after = openssl_verify_per_second();

    let range = |v: &[f64]| {
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        format!("{lo:.2}-{hi:.2}")
    };
    let rows = [
        ("check_with(bare record)", &mut bare),
        ("check_with(signed envelope)", &mut proven),
        ("  extra cost (signed - bare, per round)", &mut extra),
        ("core Ed25519 verify_strict alone", &mut dalek),
    ];
    println!("\nproof at dispatch: {ROUNDS} interleaved rounds of {WINDOW:?} windows");
    println!("| what | median µs/op | range over rounds |");
    println!("|---|---:|---:|");
    let mut medians = Vec::new();
    for (name, v) in rows {
        let r = range(v);
        let m = median(v);
        medians.push(m);
        println!("| {name} | {m:.2} | {r} |");
    }
    match (before, after) {
        (Some(b), Some(a)) => {
            let per_call = 1e6 / ((a + b) / 2.0);
            println!(
                "| OpenSSL Ed25519 verify (openssl speed: {b:.0}/s before, {a:.0}/s after) | {per_call:.2} | {:.2}-{:.2} |",
                1e6 / b.max(a),
                1e6 / b.min(a)
            );
            println!(
                "\nextra cost of proof = {:.2}x one OpenSSL Ed25519 verification (goal: at most 1.5x); \
                 core's verify_strict alone = {:.2}x",
                medians[2] / per_call,
                medians[3] / per_call
            );
        }
        _ => println!("\n`openssl speed` did not run: no OpenSSL comparison"),
    }
}
