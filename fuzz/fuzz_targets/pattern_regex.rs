//! The pattern engine against the `regex` crate, on generated patterns both express with the
//! same meaning (ECMA's `.`, `\d`, `\s`, `\w`, `\b` spelt out as `regex` classes), over
//! generated subjects with non-ASCII, astral and line-terminator characters; and its work
//! bounded as in `pattern_total` (so counted repetitions with large bounds stay linear).
#![no_main]

use actionseal_core::schema::probe_pattern;
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

/// (ECMA, regex) spellings of the same atom.
const ATOMS: &[(&str, &str)] = &[
    ("a", "a"),
    ("b", "b"),
    ("1", "1"),
    ("\\d", "[0-9]"),
    ("[a-c]", "[a-c]"),
    ("-", "\\-"),
    (" ", " "),
    ("é", "é"),
    ("😀", "😀"),
    ("\\n", "\\n"),
    ("\\.", "\\."),
    (".", "[^\\n\\r\\u{2028}\\u{2029}]"),
    ("\\D", "[^0-9]"),
    ("\\w", "[0-9A-Za-z_]"),
    ("\\W", "[^0-9A-Za-z_]"),
    (
        "\\s",
        "[\\t\\n\\x0B\\x0C\\r \\u{A0}\\u{1680}\\u{2000}-\\u{200A}\\u{2028}\\u{2029}\\u{202F}\\u{205F}\\u{3000}\\u{FEFF}]",
    ),
    ("[^a-c\\d]", "[^a-c0-9]"),
    ("[😀-😂é]", "[😀-😂é]"),
    ("[^]", "(?s:.)"),
    ("[]", "[^\\x00-\\x{10FFFF}]"),
];
const ASSERTS: &[(&str, &str)] = &[
    ("^", "^"),
    ("$", "$"),
    ("\\b", "(?-u:\\b)"),
    ("\\B", "(?-u:\\B)"),
];
const QUANTIFIERS: &[&str] = &[
    "*", "+", "?", "*?", "{2}", "{0,3}", "{1,40}", "{3,}", "{25}",
];
/// Large bounds, only on ASCII atoms (whose `regex` automata stay small enough to build).
const LARGE: &[&str] = &["{0,300}", "{2,5000}", "{1,255}", "{1000,}"];
/// How many of ATOMS are ASCII (one byte each in UTF-8).
const ASCII_ATOMS: usize = 5;
const CHARS: &[char] = &[
    'a', 'b', 'c', '1', '-', ' ', '.', '_', '\n', '\r', 'é', '😀', '😁', '\u{2028}', '\u{A0}', 'Z',
];

fn pattern(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<(String, String)> {
    let (mut e, mut r) = (String::new(), String::new());
    for _ in 0..u.int_in_range(1..=4)? {
        let (a, b) = match u.int_in_range(0..=9)? {
            0 => {
                let (a, b) = *u.choose(ASSERTS)?;
                (a.to_owned(), b.to_owned())
            }
            1 | 2 if depth > 0 => {
                let (a1, b1) = pattern(u, depth - 1)?;
                let (a2, b2) = pattern(u, depth - 1)?;
                (format!("(?:{a1}|{a2})"), format!("(?:{b1}|{b2})"))
            }
            3 if depth > 0 => {
                let (a, b) = pattern(u, depth - 1)?;
                let q = *u.choose(&QUANTIFIERS[..6])?;
                (format!("(?:{a}){q}"), format!("(?:{b}){q}"))
            }
            _ => {
                let i = u.choose_index(ATOMS.len())?;
                let (a, b) = ATOMS[i];
                if i < ASCII_ATOMS && u.ratio(1, 6)? {
                    let q = *u.choose(LARGE)?;
                    (format!("{a}{q}"), format!("{b}{q}"))
                } else if u.ratio(1, 2)? {
                    let q = *u.choose(QUANTIFIERS)?;
                    (format!("{a}{q}"), format!("{b}{q}"))
                } else {
                    (a.to_owned(), b.to_owned())
                }
            }
        };
        e.push_str(&a);
        r.push_str(&b);
    }
    Ok((e, r))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok((ecma, rust)) = pattern(&mut u, 2) else {
        return;
    };
    let mut subject = String::new();
    while subject.len() < 1000 && u.arbitrary::<bool>().unwrap_or(false) {
        let Ok(&c) = u.choose(CHARS) else { break };
        let n = u.int_in_range(1..=40u32).unwrap_or(1);
        subject.extend(std::iter::repeat_n(c, n as usize));
    }
    let Ok(theirs) = regex::RegexBuilder::new(&rust).size_limit(1 << 23).build() else {
        return;
    };
    let p = probe_pattern(&ecma, &subject).unwrap_or_else(|e| panic!("{ecma:?}: {e}"));
    let want = theirs.is_match(&subject);
    assert_eq!(
        [p.matched, p.small_cache, p.nfa],
        [want; 3],
        "{ecma:?} vs {rust:?} on {subject:?}"
    );
    let bound = 16 * (subject.len() as u64 + 1) * (p.size as u64 + 64);
    assert!(p.work <= bound, "{ecma:?}: {} steps > {bound}", p.work);
});
