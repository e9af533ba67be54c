//! Tests of the pattern engine: ECMA semantics and syntax, counters, the DFA against the NFA
//! simulation, both against the `regex` crate on the syntax they share, and the ECMA
//! verdicts V8 recorded (`conformance/vectors/pattern/`).

use super::dfa::{self, Cache, Outcome};
use super::{pike, Pattern};
use crate::error::Code;
use crate::json::options::Options;
use crate::json::parse::parse;
use crate::json::value::Value;
use proptest::prelude::*;
use std::path::Path;

fn pattern_matches(p: &str, s: &str) -> bool {
    Pattern::new(p)
        .unwrap_or_else(|e| panic!("pattern {p:?}: {e}"))
        .is_match(s)
}

#[test]
fn ecma_pattern_semantics() {
    for (p, s, want) in [
        ("a", "xay", true),
        ("^a", "xa", false),
        ("a$", "a\n", false),
        (".", "\r", false),
        (".", "\u{2028}", false),
        (".", "\u{1F600}", true),
        ("^.$", "\u{1F600}", true),
        ("\\s", "\u{A0}", true),
        ("\\s", "\u{FEFF}", true),
        ("\\S", "\u{3000}", false),
        ("\\d", "\u{0663}", false),
        ("\\w", "é", false),
        ("\\bfoo\\b", "a foo.", true),
        ("\\Bfoo", "afoo", true),
        ("^[^]$", "\n", true),
        ("[]", "a", false),
        ("^\\u{1F600}$", "\u{1F600}", true),
        ("^\\uD83D\\uDE00$", "\u{1F600}", true),
        ("^[\\uD83D\\uDE00-\\uD83D\\uDE4F]$", "\u{1F610}", true),
        ("^\\cJ$", "\n", true),
        ("^[\\b]$", "\u{8}", true),
        ("^\\x41\\0$", "A\0", true),
        ("^[\\w-]+$", "a-b_c", true),
        ("^[a-z-0]+$", "-", true),
        ("^(?:ab|cd){2}$", "abcd", true),
        ("^a{2,3}$", "aaaa", false),
        ("^a{2,}?$", "aaaa", true),
        ("^(?<year>\\d{4})-(\\d{2})$", "2024-05", true),
        ("^(?=.*\\d)(?!.*\\s).{8,}$", "abcdefg1", true),
        ("^(?=.*\\d)(?!.*\\s).{8,}$", "abcdef 1", false),
        ("^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$", "-12.5", true),
        ("^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$", "+.", false),
        ("^[A-Z]{3}-\\d{4}$", "ABC-1234", true),
        ("", "anything", true),
        ("(?:)*", "", true),
        ("\\/\\.\\*", "/.*", true),
        // Counted repetitions of one class (counters).
        ("^a{3}$", "aaa", true),
        ("^a{3}$", "aa", false),
        ("^a{2,3}$", "aaa", true),
        ("^[a-z0-9]{1,255}@", "abc@", true),
        ("[a-z0-9]{1,255}@", "--@", false),
        ("[a-z0-9]{2,3}@", "a-bcde@", true),
        ("[a-z0-9]{2,3}@", "a-b@", false),
        ("^.{8,}$", "1234567", false),
        ("^.{8,}$", "12345678\u{1F600}", true),
        ("^\\d{0}$", "", true),
        ("^x\\d{0,2}y$", "x123y", false),
        ("^(?:\\d{2}-){2}\\d{2}$", "12-34-56", true),
        ("^(?:[a-z]{2,}\\.)+[a-z]{2,}$", "ab.cd.ef", true),
        ("^(?:[a-z]{2,}\\.)+[a-z]{2,}$", "ab.c.ef", false),
        ("[a-z]{0,9000}x", "yyyy", false),
        ("[a-z]{0,9000}x", "\u{1F600}x", true),
        ("\\b\\w{3}\\b", "ab abcd abc", true),
        ("\\b\\w{3}\\b", "ab abcd", false),
        // The literal and window skips.
        ("b\\d{2,4}$", "b12b123", true),
        ("b\\d{2,4}$", "b12345", false),
        ("é.{0,3}ü", "xxéabcüxx", true),
        ("é.{0,3}ü", "xxéabcdü", false),
    ] {
        assert_eq!(pattern_matches(p, s), want, "{p:?} on {s:?}");
    }
}

#[test]
fn ecma_pattern_syntax() {
    for p in [
        "\\-",
        "a{",
        "{1}",
        "}",
        "]",
        "a**",
        "[z-a]",
        "[\\d-z]",
        "\\a",
        "\\_",
        "(",
        ")",
        "a)",
        "\\x4",
        "\\u12",
        "\\u{110000}",
        "\\c1",
        "(?<1a>x)",
        "(?<n>a)(?<n>b)",
        "a{2,1}",
        "^*",
        "\\b+",
        "(?=a)*",
        "[",
        "\\",
        "\\00",
        "[\\B]",
    ] {
        let e = Pattern::new(p).expect_err(p);
        assert_eq!(e.code(), Code::InvalidSchema, "{p:?}: {e}");
    }
    for p in [
        "(a)\\1",
        "\\k<n>",
        "(?<=a)b",
        "(?<!a)b",
        "a(?=b)",
        "(?=a)b",
        "^a(?=b)",
        "^(?=a)|b",
        "^(?=(?=a))",
        "\\p{L}",
        "[\\P{L}]",
        "(?i:a)",
        "(?:ab){10000}",
        "(?:a|bc){7000}",
    ] {
        let e = Pattern::new(p).expect_err(p);
        assert_eq!(e.code(), Code::UnsupportedSchema, "{p:?}: {e}");
    }
    // Repeating nothing is quick however large the count, and so is repeating one class.
    assert!(Pattern::new("(?:){4294967295}").is_ok());
    assert!(Pattern::new("(?:){0,4294967295}").is_ok());
    assert!(Pattern::new("a{4294967295}").is_ok());
    assert!(Pattern::new("(?:[a-z]{1,1000}\\.){1,1000}").is_ok());
}

/// The verdicts of each way to run a pattern (see [`super::Probe`]).
fn all_ways(p: &Pattern, s: &str) -> [bool; 3] {
    let r = super::probe_compiled(p, s);
    [r.matched, r.small_cache, r.nfa]
}

/// Matching work of `pattern` over `text`: as validation runs it, and by the NFA alone.
fn work(pattern: &str, text: &str) -> (u64, u64) {
    let r = super::probe(pattern, text).unwrap();
    let p = Pattern::new(pattern).unwrap();
    let before = super::program::WORK.with(|w| w.get());
    pike::run(&p.main.prog, text, 0, &[0, 1, 0]);
    (r.work, super::program::WORK.with(|w| w.get()) - before)
}

#[test]
fn counted_repetitions_cost_the_same_whatever_their_bounds() {
    // Issue 7: the cost multiplied by the bounds (255 and 9,000 threads per character).
    let letters: String = (0..10_000)
        .map(|i| (b'a' + (i * 7 % 26) as u8) as char)
        .collect();
    let no_x = letters.replace('x', "y");
    let words: String = letters
        .chars()
        .enumerate()
        .map(|(i, c)| if i % 9 == 8 { ' ' } else { c })
        .collect();
    for (small, large, text) in [
        ("[a-z0-9]{1,2}@", "[a-z0-9]{1,255}@", &letters),
        ("[a-z0-9]{1,2}@", "[a-z0-9]{1,255}@", &words),
        ("[a-z]{0,9}x", "[a-z]{0,9000}x", &no_x),
        ("^[a-z ]{0,9}$", "^[a-z ]{0,9000}$", &words),
        ("\\b[a-z]{2,3}\\b", "\\b[a-z]{2,3000}\\b", &words),
        ("[a-z ]{4,}\\d", "[a-z ]{4000,}\\d", &words),
    ] {
        let (a, a_nfa) = work(small, text);
        let (b, b_nfa) = work(large, text);
        assert!(b <= 2 * a + 50_000, "{large:?}: {b} steps, {small:?}: {a}");
        assert!(
            b_nfa <= 2 * a_nfa + 50_000,
            "NFA {large:?}: {b_nfa} steps, {small:?}: {a_nfa}"
        );
        // And linear: a few steps per character.
        assert!(
            b_nfa <= 40 * text.len() as u64,
            "NFA {large:?}: {b_nfa} steps"
        );
    }
}

#[test]
fn matchers_agree_on_hand_picked_cases() {
    let long_run = "ab".repeat(300) + "c";
    for (p, s) in [
        // Counts in ranges every other position: more ranges than a DFA state holds.
        ("^(?:ab)*[a-z]{0,1000}c", long_run.as_str()),
        ("^(?:ab)*[a-z]{0,1000}d", long_run.as_str()),
        ("^(?:ab)+[a-z]{3,}$", long_run.as_str()),
        ("^(?:ab)+[a-z]{3,599}$", long_run.as_str()),
        ("\\bb[a-z]{2,500}c\\b", long_run.as_str()),
        ("^(?=.*c)(?:ab){2,}", long_run.as_str()),
        ("[a-z]{0,9000}x", "abcx"),
        ("x[a-z]{3,5}$", "xabxabcd"),
    ] {
        let pat = Pattern::new(p).unwrap();
        let ways = all_ways(&pat, s);
        if p.starts_with("^(?:ab)") && !p.contains(",}") {
            // Counts every other position: more ranges than a DFA state may hold.
            let mut cache = Cache::default();
            let handed = dfa::search(&pat.main.prog, pat.main.skips.as_ref(), &mut cache, s, 0);
            assert!(matches!(handed, Outcome::Handoff { .. }), "{p:?}");
        }
        let theirs = regex::Regex::new(&p.replace("\\b", "(?-u:\\b)").replace("(?=.*c)", ""))
            .unwrap()
            .is_match(s)
            && (!p.contains("(?=.*c)") || s.contains('c'));
        assert_eq!(ways, [theirs; 3], "{p:?} on {s:?}");
    }
}

/// Pattern text built from ECMA-syntax pieces, valid or not.
fn arb_pattern_text() -> impl Strategy<Value = String> {
    const PIECES: &[&str] = &[
        "a",
        "b",
        "\\d",
        "\\s",
        "\\w",
        "\\b",
        ".",
        "^",
        "$",
        "(",
        ")",
        "(?:",
        "(?=",
        "(?!",
        "[",
        "]",
        "[^",
        "-",
        "|",
        "*",
        "+",
        "?",
        "{2}",
        "{1,3}",
        "{2,}",
        "\\u{1F600}",
        "\\uD83D",
        "\\uDE00",
        "\\x4",
        "\\c",
        "\\k<a>",
        "\\1",
        "(?<a>",
        "\\",
        "{",
        "}",
        "é",
        "\\p{L}",
    ];
    prop::collection::vec(prop::sample::select(PIECES), 0..12).prop_map(|v| v.concat())
}

/// A pattern in the syntax ECMA and the `regex` crate share, as (ECMA text, `regex` text)
/// with ECMA's meaning spelt out for `regex`.
fn arb_shared_pattern() -> impl Strategy<Value = (String, String)> {
    let leaf = prop_oneof![
        prop::sample::select(&["a", "b", "1", " ", "é", "_"][..]).prop_map(|c| (c.to_owned(), regex::escape(c))),
        Just(("\\n".to_owned(), "\\n".to_owned())),
        Just((".".to_owned(), "[^\\n\\r\\u{2028}\\u{2029}]".to_owned())),
        Just(("\\d".to_owned(), "[0-9]".to_owned())),
        Just(("\\W".to_owned(), "[^0-9A-Za-z_]".to_owned())),
        Just(("\\s".to_owned(), "[\\t\\n\\x0B\\x0C\\r \\u{A0}\\u{1680}\\u{2000}-\\u{200A}\\u{2028}\\u{2029}\\u{202F}\\u{205F}\\u{3000}\\u{FEFF}]".to_owned())),
        Just(("[^a-c\\d]".to_owned(), "[^a-c0-9]".to_owned())),
        Just(("^".to_owned(), "^".to_owned())),
        Just(("$".to_owned(), "$".to_owned())),
        Just(("\\b".to_owned(), "(?-u:\\b)".to_owned())),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| {
                let (a, b): (Vec<String>, Vec<String>) = v.into_iter().unzip();
                (a.concat(), b.concat())
            }),
            (inner.clone(), inner.clone()).prop_map(|((a1, b1), (a2, b2))| {
                (format!("(?:{a1}|{a2})"), format!("(?:{b1}|{b2})"))
            }),
            (
                inner,
                prop::sample::select(&["*", "+", "?", "{2}", "{0,2}", "{1,}", "*?"][..])
            )
                .prop_map(|((a, b), q)| (format!("(?:{a}){q}"), format!("(?:{b}){q}"))),
        ]
    })
}

/// A pattern whose repetitions are counted ones of single classes (counters), with
/// `regex`'s spelling of the same meaning.
fn arb_counted_pattern() -> impl Strategy<Value = (String, String)> {
    let class = prop::sample::select(
        &[
            ("a", "a"),
            ("[ab]", "[ab]"),
            ("\\d", "[0-9]"),
            ("[^a]", "[^a]"),
            (".", "[^\\n\\r\\u{2028}\\u{2029}]"),
        ][..],
    );
    let bounds =
        prop::sample::select(&["{2}", "{0,3}", "{1,4}", "{2,}", "{3,5}", "{0,1}", "*", "+"][..]);
    let piece = prop_oneof![
        (class, bounds).prop_map(|((e, r), b)| (format!("{e}{b}"), format!("{r}{b}"))),
        prop::sample::select(&["a", "b", "1", "^", "$", "(?:ab)*", "(?:a|1)"][..])
            .prop_map(|p| (p.to_owned(), p.to_owned())),
    ];
    prop::collection::vec(piece, 1..5).prop_map(|v| {
        let (a, b): (Vec<String>, Vec<String>) = v.into_iter().unzip();
        (a.concat(), b.concat())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn random_patterns_never_panic(p in arb_pattern_text(), s in "[ab1 é\n\u{1F600}]{0,8}") {
        if let Ok(pat) = Pattern::new(&p) {
            let _ = all_ways(&pat, &s);
        }
    }

    #[test]
    fn pattern_engine_agrees_with_regex_crate((ecma, rust) in arb_shared_pattern(), s in "[ab1 é_\n\r\u{2028}\u{A0}]{0,8}") {
        let ours = Pattern::new(&ecma).map_err(|e| TestCaseError::fail(format!("{ecma:?}: {e}")))?;
        let theirs = regex::Regex::new(&rust).map_err(|e| TestCaseError::fail(format!("{rust:?}: {e}")))?;
        let want = theirs.is_match(&s);
        prop_assert_eq!(all_ways(&ours, &s), [want; 3], "{:?} vs {:?} on {:?}", ecma, rust, s);
    }

    #[test]
    fn counters_agree_with_regex_crate((ecma, rust) in arb_counted_pattern(), s in "[ab1\n]{0,14}") {
        let ours = Pattern::new(&ecma).map_err(|e| TestCaseError::fail(format!("{ecma:?}: {e}")))?;
        let theirs = regex::Regex::new(&rust).map_err(|e| TestCaseError::fail(format!("{rust:?}: {e}")))?;
        let want = theirs.is_match(&s);
        prop_assert_eq!(all_ways(&ours, &s), [want; 3], "{:?} vs {:?} on {:?}", ecma, rust, s);
    }
}

/// The verdicts V8 recorded (`conformance/tools/gen-pattern-vectors.mjs`): a pattern V8
/// refuses is refused here; one it accepts compiles here (or is outside the documented
/// subset) and matches exactly the subjects V8's `RegExp(p, "u")` matched at code point
/// boundaries, in every way this engine can run it.
#[test]
fn agrees_with_v8() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors/pattern/v8.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut accepted, mut unsupported, mut refused, mut verdicts) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let doc = parse(line.as_bytes(), &Options::default())
            .unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let o = doc.as_object().expect("an object per line");
        let p = o.get("pattern").and_then(Value::as_str).expect("pattern");
        let ours = Pattern::new(p);
        match (o.get("subjects"), ours) {
            (None, Ok(_)) => {
                failures.push(format!("line {}: {p:?} compiles, V8 refuses it", n + 1))
            }
            (None, Err(_)) => refused += 1,
            (Some(_), Err(e)) if e.code() == Code::UnsupportedSchema => unsupported += 1,
            (Some(_), Err(e)) => {
                failures.push(format!("line {}: {p:?}: V8 accepts it, here {e}", n + 1))
            }
            (Some(Value::Array(subjects)), Ok(pat)) => {
                accepted += 1;
                for pair in subjects {
                    let Value::Array(pair) = pair else {
                        panic!("line {}: a subject is [string, bool]", n + 1)
                    };
                    // A third member notes where V8's test() strays from ECMA-262.
                    let (Value::String(s), Value::Bool(want)) = (&pair[0], &pair[1]) else {
                        panic!("line {}: a subject is [string, bool, note?]", n + 1)
                    };
                    verdicts += 1;
                    let got = all_ways(&pat, s);
                    if got != [*want; 3] {
                        failures.push(format!(
                            "line {}: {p:?} on {s:?}: V8 {want}, here {got:?}",
                            n + 1
                        ));
                    }
                }
            }
            (Some(_), Ok(_)) => panic!("line {}: subjects must be an array", n + 1),
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The file must hold data, and the engine must run most of what V8 accepts.
    assert!(
        accepted >= 1500 && verdicts >= 15_000,
        "{accepted} patterns, {verdicts} verdicts"
    );
    assert!(
        unsupported * 20 <= accepted,
        "{unsupported} unsupported of {}",
        accepted + unsupported
    );
    assert!(refused >= 100, "{refused} refused");
}
