//! Runs the refund permit check many times, for profilers, and prints what one check and one
//! fingerprint of the action cost, interleaved (median of 9 rounds):
//!   cargo run --release -p actionseal-bench --example check_profile -- 100000
use actionseal_bench::refund_check;
use actionseal_core::{check_approval, check_with, fingerprint, Approval};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let (approval, action, context) = refund_check();
    let loaded = Approval::from_value(&approval).expect("the example approval loads");
    let time = |f: &dyn Fn()| {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        t.elapsed() / n
    };
    let mut rounds: Vec<[Duration; 3]> = (0..9)
        .map(|_| {
            [
                time(&|| {
                    black_box(fingerprint(black_box(&action)));
                }),
                time(&|| {
                    black_box(check_with(Some(&approval), black_box(&action), &context));
                }),
                time(&|| {
                    black_box(check_approval(Some(&loaded), black_box(&action), &context));
                }),
            ]
        })
        .collect();
    rounds.sort_by_key(|r| r[0]);
    let [fp, with, loaded] = rounds[4];
    println!("fingerprint(action) {fp:?}; check_with {with:?}; check_approval {loaded:?}");
}
