//! The generated cross-runtime corpus: random JSON texts (valid, and mutated into each error
//! class) from a fixed seed, with the results the Rust core gives them.

use crate::expected;
use actionseal_core::{Number, Profile};
use serde_json::{json, Value as Json};

/// Number of cases in `generated/corpus.jsonl`.
pub const CASES: usize = 3000;
const SEED: u64 = 0x5EA1_AC71_0000_0001;

/// SplitMix64: tiny, seedable and the same on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A generated value, kept as a tree so it can be written with varied spellings.
enum Gen {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Gen>),
    Obj(Vec<(String, Gen)>),
}

fn random_char(r: &mut Rng) -> char {
    let ranges: &[(u32, u32)] = &[
        (0x61, 0x7A),
        (0x41, 0x5A),
        (0x30, 0x39),
        (0x20, 0x7F),
        (0x00, 0x1F),
        (0xA0, 0xFF),
        (0x100, 0x7FF),
        (0x4E00, 0x9FFF),
        (0xE000, 0xFFFD),
        (0x2028, 0x2029),
        (0x1F300, 0x1FAFF),
        (0x10000, 0x10FFFF),
    ];
    let (lo, hi) = r.pick(ranges);
    let c = lo + (r.next() % u64::from(hi - lo + 1)) as u32;
    char::from_u32(c).unwrap_or('?')
}

fn random_string(r: &mut Rng, max: usize) -> String {
    let len = r.below(max + 1);
    (0..len).map(|_| random_char(r)).collect()
}

fn random_number(r: &mut Rng) -> f64 {
    match r.below(6) {
        0 => (r.below(100_000) as f64) - 50_000.0,
        1 => (r.next() % (1 << 53)) as f64 * if r.chance(50) { -1.0 } else { 1.0 },
        2 => (r.below(1_000_000) as f64) / 100.0,
        3 => {
            let f = f64::from_bits(r.next());
            if f.is_finite() {
                f
            } else {
                0.5
            }
        }
        4 => 10f64.powi(r.below(40) as i32 - 20),
        _ => r.pick(&[
            0.0,
            -0.0,
            1e21,
            1e-7,
            5e-324,
            f64::MAX,
            9_007_199_254_740_992.0,
        ]),
    }
}

fn random_value(r: &mut Rng, depth: usize) -> Gen {
    let leaf = depth >= 4 || r.chance(45);
    if leaf {
        return match r.below(5) {
            0 => Gen::Null,
            1 => Gen::Bool(r.chance(50)),
            2 | 3 => Gen::Num(random_number(r)),
            _ => Gen::Str(random_string(r, 8)),
        };
    }
    if r.chance(50) {
        let n = r.below(5);
        Gen::Arr((0..n).map(|_| random_value(r, depth + 1)).collect())
    } else {
        let n = r.below(6);
        let mut members: Vec<(String, Gen)> = Vec::new();
        for _ in 0..n {
            // Half the keys from a small pool, so that nested objects share keys with the
            // objects around them.
            let key = if r.chance(50) {
                r.pick(&["a", "b", "m", "y", "z", "id"]).to_owned()
            } else {
                random_string(r, 4)
            };
            if !members.iter().any(|(k, _)| *k == key) {
                members.push((key, random_value(r, depth + 1)));
            }
        }
        Gen::Obj(members)
    }
}

/// Writes a string with randomly chosen (but equivalent) escapes.
fn write_string(r: &mut Rng, s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        let must = c < ' ' || c == '"' || c == '\\';
        if must || r.chance(10) {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' if r.chance(50) => out.push_str("\\n"),
                '/' => out.push_str("\\/"),
                _ => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        if r.chance(50) {
                            out.push_str(&format!("\\u{u:04x}"));
                        } else {
                            out.push_str(&format!("\\u{u:04X}"));
                        }
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out.push('"');
}

/// Writes a number in a random spelling that denotes exactly the same decimal value as its
/// shortest form: moved decimal point, extra leading or trailing zeros (hundreds, now and
/// then), `E`/`e`, explicit `+`.
fn write_number(r: &mut Rng, f: f64, out: &mut String) {
    let canon = Number::from_f64(f).expect("finite").to_canonical_string();
    if f == 0.0 {
        out.push_str(r.pick(&["0", "-0", "0.0", "0e5", "-0.000E-3"]));
        return;
    }
    if r.chance(50) {
        out.push_str(&canon);
        return;
    }
    let (neg, rest) = match canon.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, canon.as_str()),
    };
    let (mant, exp) = match rest.split_once('e') {
        Some((m, e)) => (m, e.parse::<i64>().expect("exponent")),
        None => (rest, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    // value = digits × 10^k with no leading or trailing zeros in digits
    let raw = format!("{int}{frac}");
    let mut k = exp - frac.len() as i64;
    let mut digits = raw.trim_start_matches('0').to_owned();
    while digits.ends_with('0') {
        digits.pop();
        k += 1;
    }
    // Now and then hundreds of padding zeros: number tokens far longer than any double's
    // digits.
    let extra = if r.chance(10) {
        r.below(400)
    } else {
        r.below(3)
    };
    digits.push_str(&"0".repeat(extra));
    k -= extra as i64;
    if neg {
        out.push('-');
    }
    if r.chance(10) {
        // 0.000…digits × 10^e
        let lead = r.below(400);
        out.push_str("0.");
        out.push_str(&"0".repeat(lead));
        out.push_str(&digits);
        let e = k + digits.len() as i64 + lead as i64;
        out.push_str(&format!("e{e}"));
        return;
    }
    let e = if r.chance(50) {
        out.push_str(&digits);
        k
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        k + digits.len() as i64 - 1
    };
    out.push(if r.chance(50) { 'e' } else { 'E' });
    if e >= 0 && r.chance(50) {
        out.push('+');
    }
    out.push_str(&e.to_string());
}

fn ws(r: &mut Rng, out: &mut String) {
    if r.chance(20) {
        out.push_str(r.pick(&[" ", "\n", "\t", "\r\n  ", "  "]));
    }
}

fn write(r: &mut Rng, v: &Gen, out: &mut String) {
    match v {
        Gen::Null => out.push_str("null"),
        Gen::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Gen::Num(f) => write_number(r, *f, out),
        Gen::Str(s) => write_string(r, s, out),
        Gen::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(r, out);
                write(r, item, out);
                ws(r, out);
            }
            out.push(']');
        }
        Gen::Obj(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(r, out);
                write_string(r, k, out);
                out.push(':');
                ws(r, out);
                write(r, v, out);
            }
            out.push('}');
        }
    }
}

/// Ways of breaking a valid text, each aimed at one error class.
fn mutate(r: &mut Rng, text: &str) -> String {
    let wrap = |inner: &str| format!("{{\"v\":{text},{inner}}}");
    match r.below(14) {
        0 => wrap("\"v\":1"),
        1 => wrap("\"\\u0076\":null"),
        2 => format!("[{text},\"\\ud8{:02x}\"]", r.below(0x40)),
        3 => format!("[{text},\"\\udc{:02x}x\"]", r.below(0x100)),
        4 => format!("[{text},900719925474099{}]", 3 + 2 * r.below(3)),
        5 => format!("[{text},0.{}00000000000000001]", r.below(9) + 1),
        6 => format!("[{text},1e-{}]", 330 + r.below(100)),
        7 => format!("[{text},{}]", r.pick(&["NaN", "Infinity", "-Infinity"])),
        8 => format!("[{text},1e{}]", 309 + r.below(1000)),
        9 => format!("[{text},]"),
        10 => format!("{text} {text}"),
        11 => format!("[\"a{}b\",{text}]", char::from(r.below(0x20) as u8)),
        12 => format!("{}{text}{}", "[".repeat(126), "]".repeat(126)),
        _ => format!("\u{feff}{text}"),
    }
}

/// The corpus, one JSON object per case (see conformance/README.md).
pub fn generate() -> Vec<Json> {
    let mut r = Rng(SEED);
    (0..CASES)
        .map(|id| {
            let v = random_value(&mut r, 0);
            let mut text = String::new();
            ws(&mut r, &mut text);
            write(&mut r, &v, &mut text);
            ws(&mut r, &mut text);
            let host = !r.chance(35);
            if !host {
                text = mutate(&mut r, &text);
            }
            let host = host && host_safe(&v);
            json!({
                "id": id,
                "text": text,
                "host": host,
                "strict": expected(text.as_bytes(), Profile::Strict),
                "rfc8785": expected(text.as_bytes(), Profile::Rfc8785),
            })
        })
        .collect()
}

/// Whether every number is a safe integer or a non-integral double, so that every host's
/// JSON parser reads it exactly (Python reads big integers as int, JavaScript as double).
fn host_safe(v: &Gen) -> bool {
    match v {
        Gen::Num(f) => f.fract() != 0.0 || f.abs() <= 9_007_199_254_740_991.0,
        Gen::Arr(items) => items.iter().all(host_safe),
        Gen::Obj(members) => members.iter().all(|(_, v)| host_safe(v)),
        _ => true,
    }
}
