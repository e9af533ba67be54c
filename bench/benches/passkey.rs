//! Passkey registration on hostile input (issue 23 item 5): `Registration::verify` of the
//! recorded Chromium registration, against attestation objects built to cost the CBOR reader
//! the most, of growing size up to the 16 KiB bound and past it. Shapes:
//!
//! - `many keys`: the red team's, one map of distinct keys (0, 1, 2, ...) filling the size;
//! - `widest`: the most work the bounds let through, maps of 32 distinct keys nested until
//!   the size is filled (every item is read, then the registration is refused).
//!
//! Each case runs in 15 interleaved rounds (one call of over 100 ms runs once a round); the
//! table gives the median time per call, the time per KiB of input and the code returned.
//! Not a test: nothing here asserts a time.
//!
//!   cargo bench -p actionseal-bench --bench passkey
//!   cargo bench -p actionseal-bench --bench passkey -- --max-kib 64   # hostile sizes up to 64 KiB

use actionseal_core::{
    base64url_decode, base64url_encode, parse, Options, OwnedValue, Registration,
};
use std::hint::black_box;
use std::time::{Duration, Instant};

const ROUNDS: usize = 15;
const WINDOW: Duration = Duration::from_millis(20);

// conformance/vectors/passkey/y_register_es256.json
const CREDENTIAL_ID: &str = "bj48wkoxFDbBOJaJ2RhYe_3FbBhZrftAxGH6u-xdy8E";
const ATTESTATION: &str = "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikSZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2NFAAAAAQECAwQFBgcIAQIDBAUGBwgAIG4-PMJKMRQ2wTiWidkYWHv9xWwYWa37QMRh-rvsXcvBpQECAyYgASFYIABIsRXjaTygM7j6xzUDBVcIsTBbFiLHs8GE8Kb0hSL6Ilgg5E3hly6-Q-xIn5sL3tw2W2p9OSMittpukyhtiADXbew";
const CLIENT_DATA: &str = "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiSExLQkhxOXFkeW5JRkxubTlvT1dYZWhVNFlhbVN2SVpxcG5rcDJhQTdOcyIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6NDU0MDUiLCJjcm9zc09yaWdpbiI6ZmFsc2V9";
const CHALLENGE: &str = "HLKBHq9qdynIFLnm9oOWXehU4YamSvIZqpnkp2aA7Ns";
const RP: &str = r#"{"rp_id": "localhost", "origins": ["http://localhost:45405"]}"#;

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .expect("JSON")
        .into_owned()
}

fn registration(attestation: &str) -> OwnedValue {
    json(&format!(
        r#"{{"credential_id": "{CREDENTIAL_ID}", "attestation_object": "{attestation}",
            "client_data_json": "{CLIENT_DATA}"}}"#
    ))
}

/// The shortest CBOR head of major type `major` with argument `n`.
fn head(major: u8, n: usize, out: &mut Vec<u8>) {
    let m = major << 5;
    match n {
        0..=23 => out.push(m | n as u8),
        24..=255 => out.extend([m | 24, n as u8]),
        256..=65_535 => out.extend([m | 25, (n >> 8) as u8, n as u8]),
        _ => {
            out.push(m | 26);
            out.extend((n as u32).to_be_bytes());
        }
    }
}

/// One map of distinct keys filling `size` bytes.
fn many_keys(size: usize) -> Vec<u8> {
    let mut members = Vec::new();
    let mut n = 0;
    while members.len() + 10 < size {
        head(0, n, &mut members);
        members.push(0);
        n += 1;
    }
    let mut out = Vec::new();
    head(5, n, &mut out);
    out.extend(members);
    out
}

/// Maps of 32 distinct keys (0..31), each value a map of the same kind, as deep as `size`
/// allows (at most 8 levels), the leaves 0: a top map of as many such trees as fit in `size`.
fn widest(size: usize) -> Vec<u8> {
    fn tree(levels: u32, out: &mut Vec<u8>) {
        if levels == 0 {
            out.push(0);
            return;
        }
        head(5, 32, out);
        for k in 0..32 {
            head(0, k, out);
            tree(levels - 1, out);
        }
    }
    let subtree = |levels| {
        let mut t = Vec::new();
        tree(levels, &mut t);
        t
    };
    // The deepest subtree that fits beside the top map's head and one key.
    let levels = (1..8)
        .take_while(|&l| subtree(l).len() + 4 <= size)
        .last()
        .unwrap_or(0);
    let t = subtree(levels);
    let (mut members, mut n) = (Vec::new(), 0);
    while n < 32 {
        let mut key = Vec::new();
        head(0, n, &mut key);
        if 3 + members.len() + key.len() + t.len() > size {
            break;
        }
        members.extend(key);
        members.extend(&t);
        n += 1;
    }
    let mut out = Vec::new();
    head(5, n, &mut out);
    out.extend(members);
    out
}

/// Microseconds per call over one window (or one call, if that takes over 100 ms).
fn time(r: &OwnedValue, challenge: &[u8], rp: &OwnedValue) -> f64 {
    let start = Instant::now();
    let mut n = 0u32;
    loop {
        black_box(Registration::verify(black_box(r), challenge, rp)).ok();
        n += 1;
        let spent = start.elapsed();
        if spent >= WINDOW || spent >= Duration::from_millis(100) {
            return spent.as_secs_f64() * 1e6 / f64::from(n);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--test");
    // A build without the bounds takes minutes a call on the largest inputs.
    let max_kib = args
        .iter()
        .position(|a| a == "--max-kib")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(usize::MAX);
    let challenge = base64url_decode(CHALLENGE).expect("challenge");
    let rp = json(RP);
    let mut cases = vec![(
        "recorded registration (Chromium)".to_owned(),
        base64url_decode(ATTESTATION).expect("base64url").len(),
        registration(ATTESTATION),
    )];
    for kib in [1, 4, 16, 64, 256, 1024]
        .into_iter()
        .filter(|&k| k <= max_kib)
    {
        for (shape, bytes) in [
            ("many keys", many_keys(kib * 1024)),
            ("widest", widest(kib * 1024)),
        ] {
            let text = base64url_encode(&bytes);
            cases.push((
                format!("{shape}, {kib} KiB"),
                bytes.len(),
                registration(&text),
            ));
        }
    }
    let codes: Vec<String> = cases
        .iter()
        .map(|(_, _, r)| match Registration::verify(r, &challenge, &rp) {
            Ok(_) => "ok".to_owned(),
            Err(e) => e.code().as_str().to_owned(),
        })
        .collect();
    assert_eq!(codes[0], "ok", "the recorded registration verifies");
    if quick {
        println!("passkey bench: inputs check out");
        return;
    }
    let mut times = vec![Vec::new(); cases.len()];
    for _ in 0..ROUNDS {
        for (i, (_, _, r)) in cases.iter().enumerate() {
            times[i].push(time(r, &challenge, &rp));
        }
    }
    println!("\nRegistration::verify: median of {ROUNDS} interleaved rounds");
    println!("| input | bytes | code | µs/call | µs/KiB |");
    println!("|---|---:|---|---:|---:|");
    for (i, (name, len, _)) in cases.iter().enumerate() {
        times[i].sort_by(f64::total_cmp);
        let us = times[i][ROUNDS / 2];
        let per_kib = us * 1024.0 / *len as f64;
        println!("| {name} | {len} | {} | {us:.2} | {per_kib:.3} |", codes[i]);
    }
}
