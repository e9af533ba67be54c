//! Runs one payload through fingerprint_json many times, for profilers:
//!   cargo run --release -p actionseal-bench --example profile -- 10k.json 2000
use actionseal_core::{fingerprint_json, Options};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "10k.json".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let input = std::fs::read(format!("{}/payloads/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let opts = Options::default();
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(fingerprint_json(std::hint::black_box(&input), &opts).unwrap());
    }
    let per = t.elapsed() / n as u32;
    println!("{name}: {per:?} per call, {:.0} MB/s", input.len() as f64 / per.as_secs_f64() / 1e6);
}
