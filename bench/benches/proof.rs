//! The cost of proof at dispatch: `check_with` of a service-signed decision (envelope verified,
//! payload parsed once, then the check) beside `check_with` of the same bare record, against
//! one Ed25519 verification by OpenSSL (`openssl speed -seconds 2 ed25519`) on the same machine
//! in the same run. Goal (issue 11): the extra cost is at most 1.5x that verification.
//!
//!   cargo bench -p actionseal-bench --bench proof
//!
//! `openssl speed` divides by user CPU time, which other processes on a shared machine do not
//! inflate; the windows here measure this thread's CPU time too (wall time is printed beside
//! it). Rust figures are interleaved rounds, reported as the median and range over rounds;
//! OpenSSL runs three times, before, between and after the two halves of the rounds, and its
//! median is the reference. Not a test: nothing here asserts a time.

use actionseal_bench::{cpu_seconds, median, refund_check};
use actionseal_core::{
    check_with, pae, sign_approval, KeySet, Object, Outcome, ProofPolicy, SigningKey, Value,
    PAYLOAD_TYPE,
};
use std::hint::black_box;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUNDS: usize = 20;
const WINDOW: Duration = Duration::from_millis(40);

/// Microseconds per call of `f` over one window: (CPU time, wall time).
fn window(f: &mut dyn FnMut()) -> (f64, f64) {
    let (start, cpu) = (Instant::now(), cpu_seconds());
    let mut n = 0u64;
    while start.elapsed() < WINDOW {
        for _ in 0..16 {
            f();
        }
        n += 16;
    }
    let per = |s: f64| s * 1e6 / n as f64;
    (per(cpu_seconds() - cpu), per(start.elapsed().as_secs_f64()))
}

/// OpenSSL's Ed25519 verifications per (user CPU) second, from `openssl speed`.
fn openssl_verify_per_second() -> Option<f64> {
    let out = Command::new("openssl")
        .args(["speed", "-seconds", "2", "ed25519"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    // "253 bits EdDSA (Ed25519)   0.0000s   0.0001s  25017.4   8960.1": sign/s, verify/s.
    let line = text.lines().find(|l| l.contains("(Ed25519)"))?;
    line.split_whitespace().last()?.parse().ok()
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

    let mut openssl = Vec::new();
    let mut rows: [(&str, Vec<f64>, Vec<f64>); 4] = [
        ("check_with(bare record)", vec![], vec![]),
        ("check_with(signed envelope)", vec![], vec![]),
        ("core Ed25519 verify_strict alone", vec![], vec![]),
        ("extra cost: signed - bare, per round", vec![], vec![]),
    ];
    for round in 0..ROUNDS {
        if round % (ROUNDS / 2) == 0 {
            openssl.extend(openssl_verify_per_second());
        }
        let a = window(&mut || {
            black_box(check_with(Some(black_box(&record)), &action, &plain));
        });
        let b = window(&mut || {
            black_box(check_with(Some(black_box(&envelope)), &action, &signed));
        });
        let c = window(&mut || {
            black_box(public.verify(black_box(&message), &sig)).expect("verifies");
        });
        for (row, (cpu, wall)) in rows.iter_mut().zip([a, b, c, (b.0 - a.0, b.1 - a.1)]) {
            row.1.push(cpu);
            row.2.push(wall);
        }
    }
    openssl.extend(openssl_verify_per_second());

    let range = |v: &[f64]| {
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        format!("{lo:.2}-{hi:.2}")
    };
    println!("\nproof at dispatch: {ROUNDS} interleaved rounds of {WINDOW:?} windows");
    println!("| what | CPU µs/op (median) | range | wall µs/op (median) | range |");
    println!("|---|---:|---:|---:|---:|");
    let mut medians = Vec::new();
    for (name, cpu, wall) in &mut rows {
        let (rc, rw) = (range(cpu), range(wall));
        let (mc, mw) = (median(cpu), median(wall));
        medians.push(mc);
        println!("| {name} | {mc:.2} | {rc} | {mw:.2} | {rw} |");
    }
    if openssl.is_empty() {
        println!("\n`openssl speed` did not run: no OpenSSL comparison");
        return;
    }
    let runs: Vec<String> = openssl.iter().map(|r| format!("{r:.0}")).collect();
    let mut per_call: Vec<f64> = openssl.iter().map(|r| 1e6 / r).collect();
    let reference = median(&mut per_call);
    println!(
        "| OpenSSL Ed25519 verify (openssl speed, verify/s: {}) | {reference:.2} | {} | | |",
        runs.join(", "),
        range(&per_call)
    );
    println!(
        "\nextra cost of proof = {:.2}x one OpenSSL Ed25519 verification (goal: at most 1.5x); \
         core's verify_strict alone = {:.2}x",
        medians[3] / reference,
        medians[2] / reference
    );
}
