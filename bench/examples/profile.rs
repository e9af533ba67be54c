//! Runs one payload through fingerprint_json many times, for profilers and quick timings:
//!   cargo run --release -p actionseal-bench --example profile -- 10k.json 2000
//!   valgrind --tool=callgrind target/release/examples/profile 1m 3
//! `1m` is the ~1 MB payload the benchmark builds; other names are files in bench/payloads.
//! A name prefixed with `value:` times `fingerprint` of the parsed value instead (the path
//! bindings take for host values).
use actionseal_bench::{one_megabyte, payload};
use actionseal_core::{fingerprint, fingerprint_json, parse, Options};

/// CPU time of this thread so far, from Linux's /proc (wall time misleads on a loaded machine).
fn cpu_time() -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(std::time::Duration::from_nanos(ns))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "10k.json".into());
    let n: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let (value_path, file) = match name.strip_prefix("value:") {
        Some(file) => (true, file),
        None => (false, name.as_str()),
    };
    let input = if file == "1m" {
        one_megabyte()
    } else {
        payload(file)
    };
    let opts = Options::default();
    let value = parse(&input, &opts).unwrap();
    let (t, cpu) = (std::time::Instant::now(), cpu_time());
    for _ in 0..n {
        if value_path {
            std::hint::black_box(fingerprint(std::hint::black_box(&value)));
        } else {
            std::hint::black_box(fingerprint_json(std::hint::black_box(&input), &opts).unwrap());
        }
    }
    let per = t.elapsed() / n;
    let cpu = cpu_time().zip(cpu).map(|(b, a)| (b - a) / n);
    println!(
        "{name}: {} bytes, {per:?} per call ({:.0} MB/s), CPU {cpu:?} per call ({:.0} MB/s)",
        input.len(),
        input.len() as f64 / per.as_secs_f64() / 1e6,
        cpu.map_or(0.0, |c| input.len() as f64 / c.as_secs_f64() / 1e6),
    );
}
