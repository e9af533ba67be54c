//! RFC 8785 serialization of a [`Value`], and of JSON text without building one.

mod chunks;
mod cursor;
mod members;
mod text;

use crate::json::number::write_number;
use crate::json::scan::find_special;
use crate::json::value::Value;

pub(crate) use text::canonicalize_text;
#[cfg(feature = "fuzzing")]
pub(crate) use text::{write_text, REARRANGE_MAX};

/// Where canonical text goes: a `String`, or a hasher that never holds all of it.
pub(crate) trait Sink {
    /// Appends text.
    fn put(&mut self, s: &str);
    /// Appends one ASCII byte.
    fn put_ascii(&mut self, c: u8);
}

/// Where the direct path's output goes, in pieces: bytes of canonical UTF-8 text.
pub(crate) trait Bytes {
    /// Appends bytes.
    fn put_bytes(&mut self, b: &[u8]);
}

impl Bytes for Vec<u8> {
    #[inline]
    fn put_bytes(&mut self, b: &[u8]) {
        self.extend_from_slice(b);
    }
}

impl Sink for String {
    #[inline]
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }

    #[inline]
    fn put_ascii(&mut self, c: u8) {
        debug_assert!(c.is_ascii());
        self.push(char::from(c));
    }
}

/// The RFC 8785 canonical text of `value`.
pub fn canonicalize(value: &Value<'_>) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

/// Appends the RFC 8785 canonical text of `value` to `out`.
///
/// Objects are already in canonical key order (an [`crate::Object`] invariant), so this is a
/// single pass.
pub fn write_canonical(value: &Value<'_>, out: &mut String) {
    write_value(value, out);
}

pub(crate) fn write_value<S: Sink>(value: &Value<'_>, out: &mut S) {
    match value {
        Value::Null => out.put("null"),
        Value::Bool(true) => out.put("true"),
        Value::Bool(false) => out.put("false"),
        Value::Number(n) => write_number(n.as_f64(), out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.put_ascii(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put_ascii(b',');
                }
                write_value(item, out);
            }
            out.put_ascii(b']');
        }
        Value::Object(o) => {
            out.put_ascii(b'{');
            for (i, (k, v)) in o.iter().enumerate() {
                if i > 0 {
                    out.put_ascii(b',');
                }
                write_string(k, out);
                out.put_ascii(b':');
                write_value(v, out);
            }
            out.put_ascii(b'}');
        }
    }
}

/// Appends a string as RFC 8785 section 3.2.2.2 says: `"` and `\` escaped, the short forms
/// `\b \f \n \r \t`, `\u00xx` (lowercase) for other control characters, everything else as is.
pub(crate) fn write_string<S: Sink>(s: &str, out: &mut S) {
    out.put_ascii(b'"');
    write_content(s, out);
    out.put_ascii(b'"');
}

/// Appends the text between the quotes of [`write_string`].
pub(crate) fn write_content<S: Sink>(s: &str, out: &mut S) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = s.as_bytes();
    let mut start = 0;
    loop {
        let i = find_special(b, start);
        out.put(&s[start..i]);
        let Some(&c) = b.get(i) else { break };
        match c {
            b'"' => out.put("\\\""),
            b'\\' => out.put("\\\\"),
            0x08 => out.put("\\b"),
            0x0C => out.put("\\f"),
            b'\n' => out.put("\\n"),
            b'\r' => out.put("\\r"),
            b'\t' => out.put("\\t"),
            _ => {
                out.put("\\u00");
                out.put_ascii(HEX[usize::from(c >> 4)]);
                out.put_ascii(HEX[usize::from(c & 0xF)]);
            }
        }
        start = i + 1;
    }
}
