//! canonicalize + fingerprint of JSON text: actionseal against serde_json_canonicalizer and
//! serde_jcs (each after serde_json parsing with `float_roundtrip`, then sha2), in one run.
//! For 1 MB, also plain SHA-256 over the same bytes, the floor any canonicalizer pays.
//!
//!   cargo bench -p actionseal-bench
//!
//! Throughput is reported in input bytes per second; bench/README.md records the ratios.
//!
//! Criterion measures each function over a few seconds, one after another, so on a machine
//! shared with other work its ratios drift with the load. The run ends with a summary that
//! times all of them in many short interleaved windows and keeps each one's best window (the
//! one least disturbed), and prints the ratios the goals are stated in.

use actionseal_bench::{one_megabyte, payload};
use actionseal_core::{fingerprint, fingerprint_json, parse, Options};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sha2::{Digest, Sha256};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn actionseal(input: &[u8]) -> String {
    fingerprint_json(input, &Options::default())
        .unwrap()
        .to_string()
}

fn json_canonicalizer(input: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(input).unwrap();
    let bytes = serde_json_canonicalizer::to_vec(&v).unwrap();
    format!("sha256:{}", hex(&Sha256::digest(&bytes)))
}

fn jcs(input: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(input).unwrap();
    let bytes = serde_jcs::to_vec(&v).unwrap();
    format!("sha256:{}", hex(&Sha256::digest(&bytes)))
}

fn cases() -> [(&'static str, Vec<u8>); 3] {
    [
        ("refund", payload("refund.json")),
        ("10k", payload("10k.json")),
        ("1m", one_megabyte()),
    ]
}

fn bench(c: &mut Criterion) {
    for (name, input) in &cases() {
        // All three must agree before their speed means anything.
        assert_eq!(actionseal(input), json_canonicalizer(input), "{name}");
        assert_eq!(actionseal(input), jcs(input), "{name}");
        let mut g = c.benchmark_group(format!("fingerprint_json/{name}"));
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.bench_with_input(BenchmarkId::new("actionseal", name), input, |b, i| {
            b.iter(|| actionseal(black_box(i)))
        });
        g.bench_with_input(
            BenchmarkId::new("serde_json_canonicalizer", name),
            input,
            |b, i| b.iter(|| json_canonicalizer(black_box(i))),
        );
        g.bench_with_input(BenchmarkId::new("serde_jcs", name), input, |b, i| {
            b.iter(|| jcs(black_box(i)))
        });
        if *name == "1m" {
            g.bench_with_input(BenchmarkId::new("sha256_only", name), input, |b, i| {
                b.iter(|| Sha256::digest(black_box(i)))
            });
        }
        g.finish();
    }
}

/// Rounds of the summary, and the time each implementation gets in a round.
const ROUNDS: usize = 40;
const WINDOW: Duration = Duration::from_millis(5);

/// Every implementation on every case in interleaved rounds; prints the best time per call of
/// each and the ratios.
fn summary(_: &mut Criterion) {
    // Digests as bytes here: formatting them as hex is not what is being compared.
    type Run = fn(&[u8]) -> [u8; 32];
    let runs: [(&str, Run); 5] = [
        ("actionseal", |i| {
            *fingerprint_json(i, &Options::default()).unwrap().as_bytes()
        }),
        // The full parser and the value writer, without the direct text path: what the direct
        // path is worth (docs/RELIABILITY.md).
        ("actionseal_parse_write", |i| {
            let v = parse(i, &Options::default()).unwrap();
            *fingerprint(&v).as_bytes()
        }),
        ("serde_json_canonicalizer", |i| {
            let v: serde_json::Value = serde_json::from_slice(i).unwrap();
            Sha256::digest(serde_json_canonicalizer::to_vec(&v).unwrap()).into()
        }),
        ("serde_jcs", |i| {
            let v: serde_json::Value = serde_json::from_slice(i).unwrap();
            Sha256::digest(serde_jcs::to_vec(&v).unwrap()).into()
        }),
        ("sha256_only", |i| Sha256::digest(i).into()),
    ];
    println!("\nsummary: best of {ROUNDS} interleaved windows of about {WINDOW:?} each");
    for (name, input) in &cases() {
        // Calls per window, from one untimed call of each.
        let calls = runs.map(|(_, run)| {
            let t = Instant::now();
            black_box(run(black_box(input)));
            (WINDOW.as_nanos() / t.elapsed().as_nanos().max(1)).clamp(1, 100_000) as u32
        });
        let mut best = [Duration::MAX; 5];
        let mut all: [Vec<f64>; 5] = Default::default();
        for _ in 0..ROUNDS {
            for (k, (_, run)) in runs.iter().enumerate() {
                let t = Instant::now();
                for _ in 0..calls[k] {
                    black_box(run(black_box(input)));
                }
                best[k] = best[k].min(t.elapsed() / calls[k]);
                all[k].push((t.elapsed() / calls[k]).as_secs_f64());
            }
        }
        let mbs = |d: Duration| input.len() as f64 / d.as_secs_f64() / 1e6;
        for (k, (run, _)) in runs.iter().enumerate() {
            println!(
                "  {name:6} {run:24} {:>10.2} µs {:>8.1} MB/s",
                best[k].as_secs_f64() * 1e6,
                mbs(best[k])
            );
        }
        let faster = best[2].min(best[3]).as_secs_f64();
        println!(
            "  {name:6} actionseal: {:.1}x the throughput of the faster competitor, {:.2}x the time of SHA-256 alone",
            faster / best[0].as_secs_f64(),
            best[0].as_secs_f64() / best[4].as_secs_f64()
        );
        // Per round, parse + write over the direct path: median and range.
        let mut ratios: Vec<f64> = all[1].iter().zip(&all[0]).map(|(p, d)| p / d).collect();
        ratios.sort_by(f64::total_cmp);
        println!(
            "  {name:6} parse + write takes {:.2}x the time of the direct path (best windows); per round median {:.2}x, range {:.2}x to {:.2}x",
            best[1].as_secs_f64() / best[0].as_secs_f64(),
            ratios[ratios.len() / 2],
            ratios[0],
            ratios[ratios.len() - 1]
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench, summary
}
criterion_main!(benches);
