//! Runs the refund permit check many times, for profilers:
//!   cargo run --release -p actionseal-bench --example check_profile -- 100000
use actionseal_bench::refund_check;
use actionseal_core::check_with;

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let (approval, action, context) = refund_check();
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(check_with(Some(&approval), &action, &context));
    }
    println!("{:?} per check", t.elapsed() / n);
}
