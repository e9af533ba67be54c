//! JSON Pointer (RFC 6901) helpers.

/// Appends `token` to `out` with `~` and `/` escaped as RFC 6901 requires.
pub(crate) fn push_escaped(out: &mut String, token: &str) {
    // Runs without `~` or `/` (most tokens are one) are copied whole.
    let mut rest = token;
    while let Some(i) = rest.bytes().position(|b| b == b'~' || b == b'/') {
        out.push_str(&rest[..i]);
        out.push_str(if rest.as_bytes()[i] == b'~' {
            "~0"
        } else {
            "~1"
        });
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
}

/// Splits a JSON Pointer into its unescaped reference tokens.
///
/// Returns `None` when `pointer` is not a valid pointer (non-empty and not starting with `/`,
/// or with a `~` not followed by `0` or `1`).
pub fn parse_pointer(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/')
        .map(|raw| {
            let mut token = String::with_capacity(raw.len());
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some('0') => token.push('~'),
                        Some('1') => token.push('/'),
                        _ => return None,
                    }
                } else {
                    token.push(c);
                }
            }
            Some(token)
        })
        .collect()
}

#[cfg(test)]
mod tests;
