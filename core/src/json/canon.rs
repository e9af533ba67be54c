//! RFC 8785 serialization of a [`Value`], and of JSON text without building one.

mod chunks;
mod cursor;
mod members;
mod text;

use crate::json::number::write_number;
use crate::json::scan::{find_special, special_bytes, PLAIN};
use crate::json::sink::Sink;
use crate::json::value::Value;

pub(crate) use text::canonicalize_text;
#[cfg(feature = "fuzzing")]
pub(crate) use text::{write_text, REARRANGE_MAX};

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

/// The RFC 8785 canonical text of `value`.
pub fn canonicalize(value: &Value<'_>) -> String {
    // Room for a typical action or record: a few hundred bytes without regrowing from 8.
    let mut out = String::with_capacity(256);
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
#[inline(always)]
pub(crate) fn write_string<S: Sink>(s: &str, out: &mut S) {
    // Most keys and many values are short and need no escape: quoted in one step, inline.
    if s.len() <= 16 && !short_needs_escape(s.as_bytes()) {
        return out.put_quoted(s);
    }
    write_quoted(s, out);
}

/// [`write_string`] of a string that is long or needs escapes (out of line, so that the short
/// path inlines small).
#[inline(never)]
fn write_quoted<S: Sink>(s: &str, out: &mut S) {
    out.put_ascii(b'"');
    write_content(s, out);
    out.put_ascii(b'"');
}

/// Whether a string of at most 16 bytes has a byte RFC 8785 escapes, read as at most two
/// (overlapping) words instead of byte by byte.
#[inline(always)]
fn short_needs_escape(b: &[u8]) -> bool {
    // A word of the bytes (any of them, any number of times), the rest plain.
    let word = |b: &[u8]| -> u64 {
        match b.len() {
            8.. => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            4.. => {
                let n = b.len();
                let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
                u64::from(lo) | (u64::from(hi) << 32)
            }
            // Built in a register: bytes stored to memory and read back as a word would
            // wait for the stores.
            _ => b.iter().enumerate().fold(PLAIN, |w, (i, &c)| {
                (w & !(0xFF << (8 * i))) | (u64::from(c) << (8 * i))
            }),
        }
    };
    let n = b.len();
    let mut hits = special_bytes(word(b), false);
    if n > 8 {
        hits |= special_bytes(word(&b[n - 8..]), false);
    }
    hits != 0
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

#[cfg(test)]
mod tests;
