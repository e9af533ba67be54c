//! Schema `pattern` matching against the `regex` crate, on patterns both can express with
//! the same meaning (ASCII classes spelt out; ECMA's `.` and `\s` written as `regex`
//! classes). Ours runs through the public API, `Schema::validate` of a string against
//! `{"type": "string", "pattern": P}` (with `maxLength` where the string is longer than the
//! default pattern input limit), so it includes the type and length checks a user pays for;
//! `regex` runs `Regex::is_match` on the same `&str`.
//!
//! Rounds are interleaved (each round times every case with each engine, in turn), and the
//! summary gives, per case, the median time of each and the median and range of the per-round
//! ratios. Goal (issue 7 item 5): at most 5x the `regex` crate's time.
//!
//!   cargo bench -p actionseal-bench --bench pattern

use actionseal_bench::median;
use actionseal_core::{canonicalize, parse, Options, Schema, Value};
use regex::Regex;
use std::hint::black_box;
use std::time::{Duration, Instant};

const ROUNDS: usize = 15;
/// Rounds for a case where one call takes more than [`SLOW`] (the `regex` crate on
/// `[a-z]{0,9000}x` takes seconds).
const SLOW_ROUNDS: usize = 3;
const SLOW: Duration = Duration::from_millis(50);
/// Each measurement runs the operation for about this long.
const BATCH: Duration = Duration::from_millis(3);

struct Case {
    name: String,
    ecma: &'static str,
    rust: &'static str,
    subject: String,
}

fn letters(n: usize) -> String {
    (0..n)
        .map(|i| (b'a' + (i * 7 % 26) as u8) as char)
        .collect()
}

fn cases() -> Vec<Case> {
    let l10k = letters(10_000);
    let l100k = letters(100_000);
    let no_x = |s: &str| s.replace('x', "y");
    let words = |n: usize| -> String {
        (0..n)
            .map(|i| {
                if i % 9 == 8 {
                    ' '
                } else {
                    (b'a' + (i * 11 % 26) as u8) as char
                }
            })
            .collect()
    };
    let mut out = Vec::new();
    let mut add = |name: &str, ecma, rust, subject: String| {
        out.push(Case {
            name: name.to_owned(),
            ecma,
            rust,
            subject,
        })
    };
    // The two patterns.
    add(
        "[a-z0-9]{1,255}@  100 KB letters",
        "[a-z0-9]{1,255}@",
        "[a-z0-9]{1,255}@",
        l100k.clone(),
    );
    add(
        "[a-z0-9]{1,255}@  100 KB letters, @ last",
        "[a-z0-9]{1,255}@",
        "[a-z0-9]{1,255}@",
        format!("{l100k}@"),
    );
    add(
        "[a-z0-9]{1,255}@  100 KB words",
        "[a-z0-9]{1,255}@",
        "[a-z0-9]{1,255}@",
        words(100_000),
    );
    add(
        "[a-z0-9]{1,255}@  10 KB words, @ last",
        "[a-z0-9]{1,255}@",
        "[a-z0-9]{1,255}@",
        words(9_999) + "@",
    );
    add(
        "[a-z]{0,9000}x  10 KB, no x",
        "[a-z]{0,9000}x",
        "[a-z]{0,9000}x",
        no_x(&l10k),
    );
    add(
        "[a-z]{0,9000}x  10 KB, x last",
        "[a-z]{0,9000}x",
        "[a-z]{0,9000}x",
        no_x(&l10k[..9_999]) + "x",
    );
    // Scans with nothing to skip by.
    add(
        "\\d{3,}  10 KB letters",
        "\\d{3,}",
        "[0-9]{3,}",
        l10k.clone(),
    );
    add(
        "^[a-z ]*$  10 KB words",
        "^[a-z ]*$",
        "^[a-z ]*$",
        words(10_000),
    );
    add(
        "^.{8,}$  10 KB",
        "^.{8,}$",
        "^[^\\n\\r\\u{2028}\\u{2029}]{8,}$",
        l10k.clone(),
    );
    add(
        "^\\S+$  10 KB",
        "^\\S+$",
        "^[^\\t\\n\\x0B\\x0C\\r \\u{A0}\\u{1680}\\u{2000}-\\u{200A}\\u{2028}\\u{2029}\\u{202F}\\u{205F}\\u{3000}\\u{FEFF}]+$",
        l10k.clone(),
    );
    add(
        "^[^@]+$  10 KB non-ASCII",
        "^[^@]+$",
        "^[^@]+$",
        "é€😀".repeat(3_333),
    );
    add(
        "^(?:foo|bar|baz)+$  10 KB",
        "^(?:foo|bar|baz)+$",
        "^(?:foo|bar|baz)+$",
        "foobarbaz".repeat(1_111),
    );
    add(
        "hostname-like  10 KB",
        "^(?:[a-z0-9-]{1,63}\\.)+[a-z]{2,63}$",
        "^(?:[a-z0-9-]{1,63}\\.)+[a-z]{2,63}$",
        "abcdefgh.".repeat(1_100) + "com",
    );
    // Short arguments, as tools get them.
    add(
        "email  24 B",
        "^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}\\.[A-Za-z]{2,63}$",
        "^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}\\.[A-Za-z]{2,63}$",
        "john.doe+tag@example.com".into(),
    );
    add(
        "date  10 B",
        "^\\d{4}-\\d{2}-\\d{2}$",
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
        "2024-05-17".into(),
    );
    add(
        "uuid  36 B",
        "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        "123e4567-e89b-12d3-a456-426614174000".into(),
    );
    add(
        "sku  12 B",
        "^[A-Z]{3}-\\d{4,8}$",
        "^[A-Z]{3}-[0-9]{4,8}$",
        "ABC-12345678".into(),
    );
    out
}

/// Nanoseconds per call of `f`, over a batch of about [`BATCH`].
fn per_call(iters: u64, f: &mut dyn FnMut() -> bool) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    t.elapsed().as_nanos() as f64 / iters as f64
}

fn iterations(f: &mut dyn FnMut() -> bool) -> u64 {
    let mut n = 1u64;
    loop {
        // A call slower than SLOW is measured once per round.
        let t = Instant::now();
        for _ in 0..n {
            black_box(f());
        }
        if t.elapsed() >= SLOW && n == 1 {
            return 1;
        }
        if t.elapsed() >= BATCH / 4 || n >= 1 << 24 {
            return n * 4;
        }
        n *= 2;
    }
}

fn show(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn main() {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_default();
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.name.contains(&filter))
        .collect();
    struct Prepared {
        schema: Schema,
        value: Value<'static>,
        regex: Regex,
        ours_iters: u64,
        theirs_iters: u64,
    }
    let mut prepared = Vec::new();
    for c in &cases {
        let pattern = canonicalize(&Value::String(c.ecma.into()));
        let schema = format!("{{\"type\":\"string\",\"maxLength\":200000,\"pattern\":{pattern}}}");
        let schema = Schema::compile(&parse(schema.as_bytes(), &Options::default()).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", c.ecma));
        let value = Value::String(c.subject.clone().into());
        let regex = Regex::new(c.rust).unwrap();
        let ours = schema.validate(&value).is_ok();
        let theirs = regex.is_match(&c.subject);
        assert_eq!(ours, theirs, "{}: different verdicts", c.name);
        let ours_iters = iterations(&mut || schema.validate(&value).is_ok());
        let theirs_iters = iterations(&mut || regex.is_match(&c.subject));
        prepared.push(Prepared {
            schema,
            value,
            regex,
            ours_iters,
            theirs_iters,
        });
    }
    let mut ours = vec![Vec::new(); cases.len()];
    let mut theirs = vec![Vec::new(); cases.len()];
    for round in 0..ROUNDS {
        for (i, (c, p)) in cases.iter().zip(&prepared).enumerate() {
            if round >= SLOW_ROUNDS && (p.ours_iters == 1 || p.theirs_iters == 1) {
                continue;
            }
            ours[i].push(per_call(p.ours_iters, &mut || {
                p.schema.validate(&p.value).is_ok()
            }));
            theirs[i].push(per_call(p.theirs_iters, &mut || {
                p.regex.is_match(&c.subject)
            }));
        }
    }
    println!(
        "\n{ROUNDS} interleaved rounds ({SLOW_ROUNDS} where a call takes over {SLOW:?}); ratio = actionseal / regex per round (median, min–max)\n"
    );
    println!(
        "| case | match | actionseal | regex | ratio (median) | ratio (range) |\n|---|---|---:|---:|---:|---|"
    );
    for (i, c) in cases.iter().enumerate() {
        let mut ratios: Vec<f64> = ours[i].iter().zip(&theirs[i]).map(|(a, b)| a / b).collect();
        let (lo, hi) = ratios
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
        let verdict = prepared[i].regex.is_match(&c.subject);
        println!(
            "| `{}` | {} | {} | {} | {:.2}x | {:.2}–{:.2}x |",
            c.name,
            if verdict { "yes" } else { "no" },
            show(median(&mut ours[i])),
            show(median(&mut theirs[i])),
            median(&mut ratios),
            lo,
            hi
        );
    }
}
