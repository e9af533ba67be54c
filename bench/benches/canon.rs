//! canonicalize + fingerprint of JSON text: actionseal against serde_json_canonicalizer and
//! serde_jcs (each after serde_json parsing with `float_roundtrip`, then sha2), in one run.
//! For 1 MB, also plain SHA-256 over the same bytes, the floor any canonicalizer pays.
//!
//!   cargo bench -p actionseal-bench
//!
//! Throughput is reported in input bytes per second; bench/README.md records the ratios.

use actionseal_core::{fingerprint_json, Options};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sha2::{Digest, Sha256};
use std::hint::black_box;

fn payload(name: &str) -> Vec<u8> {
    let path = format!("{}/payloads/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(path).expect("payload")
}

/// About 1 MB: the 10 KB payload's line items repeated under distinct keys.
fn one_megabyte() -> Vec<u8> {
    let ten_k = String::from_utf8(payload("10k.json")).unwrap();
    let mut s = String::from("{");
    let mut i = 0;
    while s.len() < 1_000_000 {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("\"part-{i:04}\":{}", ten_k.trim()));
        i += 1;
    }
    s.push('}');
    s.into_bytes()
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn actionseal(input: &[u8]) -> String {
    fingerprint_json(input, &Options::default()).unwrap().to_string()
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

fn bench(c: &mut Criterion) {
    let cases = [
        ("refund", payload("refund.json")),
        ("10k", payload("10k.json")),
        ("1m", one_megabyte()),
    ];
    for (name, input) in &cases {
        // All three must agree before their speed means anything.
        assert_eq!(actionseal(input), json_canonicalizer(input), "{name}");
        assert_eq!(actionseal(input), jcs(input), "{name}");
        let mut g = c.benchmark_group(format!("fingerprint_json/{name}"));
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.bench_with_input(BenchmarkId::new("actionseal", name), input, |b, i| {
            b.iter(|| actionseal(black_box(i)))
        });
        g.bench_with_input(BenchmarkId::new("serde_json_canonicalizer", name), input, |b, i| {
            b.iter(|| json_canonicalizer(black_box(i)))
        });
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

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
