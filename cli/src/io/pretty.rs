//! Indenting canonical JSON for people: whitespace is added between tokens and nowhere else,
//! so the text still denotes the canonical value, member order and number spelling included.

/// `canonical` (RFC 8785 text, so no whitespace between tokens) indented two spaces a level;
/// an empty object or array stays `{}` / `[]`.
pub(super) fn indent(canonical: &str) -> String {
    let mut out = String::with_capacity(canonical.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut chars = canonical.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    while let Some(c) = chars.next() {
        out.push(c);
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else {
            match c {
                '"' => in_string = true,
                '{' | '[' if matches!(chars.peek(), Some('}' | ']')) => out.extend(chars.next()),
                '{' | '[' => {
                    depth += 1;
                    newline(&mut out, depth);
                }
                ',' => newline(&mut out, depth),
                ':' => out.push(' '),
                _ => {}
            }
        }
        if !in_string && matches!(chars.peek(), Some('}' | ']')) {
            depth = depth.saturating_sub(1);
            newline(&mut out, depth);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::indent;

    #[test]
    fn indents_between_tokens_only() {
        assert_eq!(indent("{}"), "{}");
        assert_eq!(indent("[]"), "[]");
        assert_eq!(indent("1"), "1");
        assert_eq!(
            indent(r#"{"a":[1,{}],"b":"x,{:}\"]","c":[]}"#),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": \"x,{:}\\\"]\",\n  \"c\": []\n}"
        );
        // An escaped backslash ends before the closing quote.
        assert_eq!(indent(r#"["\\",1]"#), "[\n  \"\\\\\",\n  1\n]");
        assert_eq!(indent(r#"{"a":"x"}"#), "{\n  \"a\": \"x\"\n}");
        assert_eq!(indent("[[]]"), "[\n  []\n]");
    }
}
