use super::*;

/// The escapes RFC 8785 asks for, one character at a time.
fn reference(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Short strings are quoted in one step when nothing in them needs an escape: every length
/// up to past the short path, with each kind of special character at every position.
#[test]
fn short_strings_are_escaped_wherever_the_special_byte_is() {
    for len in 0..=20 {
        for special in ['"', '\\', '\n', '\u{1f}', '\u{0}', '\u{7f}', 'é', '#', '!'] {
            for at in 0..len.max(1) {
                let s: String = (0..len)
                    .map(|i| if i == at { special } else { 'a' })
                    .collect();
                let mut out = String::new();
                write_string(&s, &mut out);
                assert_eq!(out, reference(&s), "{s:?}");
            }
        }
    }
}
