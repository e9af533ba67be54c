//! Times one validation of each of issue 7's slow cases (items 4 and 5), for before/after
//! figures. Not a benchmark: one process, a few repetitions, the median and the range.
//!
//!   cargo run --release -p actionseal-bench --example issue7_cases [-- FILTER]

use actionseal_core::{parse, Options, Schema};
use std::time::{Duration, Instant};

/// `D_i = {"KW": [{"$ref": D_{i+1}}, {"$ref": D_{i+1}}]}` for `levels` levels, then `leaf`.
fn doubling(keyword: &str, levels: usize, leaf: &str) -> String {
    let mut defs = Vec::new();
    for i in 0..levels {
        let r = format!("{{\"$ref\":\"#/$defs/D{}\"}}", i + 1);
        defs.push(format!("\"D{i}\":{{\"{keyword}\":[{r},{r}]}}"));
    }
    defs.push(format!("\"D{levels}\":{leaf}"));
    format!(
        "{{\"$defs\":{{{}}},\"$ref\":\"#/$defs/D0\"}}",
        defs.join(",")
    )
}

/// The same through array items: `D_i = {"allOf": [{"items": ref}, {"items": ref}]}`.
fn doubling_items(levels: usize) -> (String, String) {
    let mut defs = Vec::new();
    for i in 0..levels {
        let r = format!("{{\"items\":{{\"$ref\":\"#/$defs/D{}\"}}}}", i + 1);
        defs.push(format!(
            "\"D{i}\":{{\"type\":\"array\",\"allOf\":[{r},{r}]}}"
        ));
    }
    defs.push(format!("\"D{levels}\":{{\"type\":\"integer\"}}"));
    let schema = format!(
        "{{\"$defs\":{{{}}},\"$ref\":\"#/$defs/D0\"}}",
        defs.join(",")
    );
    let value = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
    (schema, value)
}

/// A string schema with the pattern; `maxLength` lets 100 KB through the default pattern
/// input limit (10,000 code points), as the measurement had no such limit.
fn pattern_schema(p: &str) -> String {
    let lit = actionseal_core::canonicalize(&actionseal_core::Value::String(p.into()));
    format!("{{\"type\":\"string\",\"maxLength\":200000,\"pattern\":{lit}}}")
}

fn time(name: &str, schema: &str, value: &str, budget: Duration) {
    let opts = Options::default();
    let s = parse(schema.as_bytes(), &opts).expect("schema parses");
    let schema_bytes = schema.len();
    let s = match Schema::compile(&s) {
        Ok(s) => s,
        Err(e) => {
            println!(
                "{name:<44} schema {schema_bytes:>7} B: refused at load: {} {}",
                e.code(),
                e.message()
            );
            return;
        }
    };
    let v = parse(value.as_bytes(), &opts).expect("value parses");
    let mut runs = Vec::new();
    let start = Instant::now();
    let mut verdict = String::new();
    while runs.len() < 3 || (start.elapsed() < budget && runs.len() < 200) {
        let t = Instant::now();
        let r = s.validate(&v);
        runs.push(t.elapsed());
        verdict = match r {
            Ok(()) => "ok".into(),
            Err(e) => e.code().to_string(),
        };
        if start.elapsed() > budget * 4 {
            break;
        }
    }
    runs.sort();
    let med = runs[runs.len() / 2];
    println!(
        "{name:<44} schema {schema_bytes:>7} B value {:>7} B: median {:>12.3?} (min {:.3?}, max {:.3?}, n={}) -> {verdict}",
        value.len(),
        med,
        runs[0],
        runs[runs.len() - 1],
        runs.len()
    );
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let budget = Duration::from_millis(1500);
    let mut cases: Vec<(String, String, String)> = Vec::new();
    for levels in [16, 20, 22, 24, 26] {
        cases.push((
            format!("allOf/$ref doubling, {levels} levels"),
            doubling("allOf", levels, "{\"type\":\"integer\"}"),
            "1".into(),
        ));
    }
    for levels in [16, 20, 22] {
        // The leaf refuses the value, so anyOf must try both alternatives at every level.
        cases.push((
            format!("anyOf/$ref doubling (failing), {levels} levels"),
            doubling("anyOf", levels, "{\"type\":\"string\"}"),
            "1".into(),
        ));
        cases.push((
            format!("oneOf/$ref doubling, {levels} levels"),
            doubling("oneOf", levels, "{\"type\":\"integer\"}"),
            "1".into(),
        ));
        let (s, v) = doubling_items(levels);
        cases.push((format!("allOf/items doubling, {levels} levels"), s, v));
    }
    let letters: String = (0..100_000)
        .map(|i| (b'a' + (i * 7 % 26) as u8) as char)
        .collect();
    let mut letters_at = letters.clone();
    letters_at.push('@');
    let alnum_spaced: String = (0..100_000)
        .map(|i| {
            if i % 37 == 36 {
                ' '
            } else {
                (b'a' + (i * 11 % 26) as u8) as char
            }
        })
        .collect();
    let mut words_at = alnum_spaced.clone();
    words_at.push('x');
    let mut spaced_at = String::new();
    for i in 0..1000 {
        spaced_at.push_str(&letters[i * 99..i * 99 + 99]);
        spaced_at.push(if i % 2 == 0 { ' ' } else { '-' });
        spaced_at.push('@');
    }
    let mut letters_x = letters.replace('x', "y");
    letters_x.push('x');
    for (p, subject, label) in [
        (
            "[a-z0-9]{1,255}@",
            &spaced_at,
            "100 KB, ' @' or '-@' every 100",
        ),
        ("[a-z]{0,9000}x", &letters_x, "100 KB letters, x last"),
        ("[a-z0-9]{1,255}@", &letters, "100 KB letters, no @"),
        ("[a-z0-9]{1,255}@", &letters_at, "100 KB letters, @ at end"),
        ("[a-z0-9]{1,255}@", &alnum_spaced, "100 KB words, no @"),
        (
            "[a-z]{0,9000}x",
            &letters.replace('x', "y"),
            "100 KB letters, no x",
        ),
        ("[a-z]{0,9000}x", &letters, "100 KB letters with x"),
    ] {
        let value =
            actionseal_core::canonicalize(&actionseal_core::Value::String(subject.as_str().into()));
        cases.push((
            format!("pattern {p} over {label}"),
            pattern_schema(p),
            value,
        ));
    }
    for (name, schema, value) in cases {
        if name.contains(&filter) {
            time(&name, &schema, &value, budget);
        }
    }
}
