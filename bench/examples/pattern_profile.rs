//! Runs one pattern over one subject in a loop, for profiling the pattern engine.
//!
//!   cargo build --release -p actionseal-bench --example pattern_profile
//!   target/release/examples/pattern_profile '^(?:foo|bar|baz)+$' foobarbaz 1111 100000
//!
//! Arguments: the pattern, a piece of subject, how often to repeat the piece, iterations.

use actionseal_core::{canonicalize, parse, Options, Schema, Value};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, pattern, piece, times, iters] = args.as_slice() else {
        eprintln!("usage: pattern_profile PATTERN PIECE TIMES ITERATIONS");
        std::process::exit(64);
    };
    let subject = piece.repeat(times.parse().expect("TIMES"));
    let iters: u64 = iters.parse().expect("ITERATIONS");
    let p = canonicalize(&Value::String(pattern.as_str().into()));
    let schema = format!("{{\"type\":\"string\",\"maxLength\":1000000,\"pattern\":{p}}}");
    let schema = Schema::compile(&parse(schema.as_bytes(), &Options::default()).unwrap()).unwrap();
    let value = Value::String(subject.as_str().into());
    let verdict = schema.validate(&value).is_ok();
    let t = Instant::now();
    for _ in 0..iters {
        std::hint::black_box(schema.validate(std::hint::black_box(&value)).is_ok());
    }
    let per = t.elapsed().as_nanos() as f64 / iters as f64;
    println!(
        "{pattern:?} over {} bytes: {verdict}, {per:.0} ns per call, {:.2} ns per byte",
        subject.len(),
        per / subject.len().max(1) as f64
    );
}
