//! A strict RFC 8259 parser: every ambiguity the JSON grammar leaves to implementations
//! (duplicate keys, lone surrogates, out-of-range numbers, a BOM) is an error with its own code.

use crate::error::{Code, Error, Result};
use crate::json::keyorder::cmp_utf16;
use crate::json::number;
use crate::json::options::Options;
use crate::json::scan::find_special;
use crate::json::value::{Object, Value};
use std::borrow::Cow;

/// Parses one JSON text from UTF-8 bytes.
///
/// Objects come back with their keys in canonical order. Errors carry the byte offset and
/// the JSON Pointer of the value concerned.
pub fn parse<'a>(input: &'a [u8], options: &Options) -> Result<Value<'a>> {
    options.check()?;
    if input.len() > options.max_bytes {
        return Err(Error::at(
            Code::SizeLimitExceeded,
            options.max_bytes,
            format!(
                "input is {} bytes, more than the limit of {}",
                input.len(),
                options.max_bytes
            ),
        ));
    }
    if input.starts_with(b"\xEF\xBB\xBF")
        || input.starts_with(b"\xFE\xFF")
        || input.starts_with(b"\xFF\xFE")
    {
        return Err(Error::at(
            Code::ByteOrderMark,
            0,
            "input starts with a byte-order mark",
        ));
    }
    let text = std::str::from_utf8(input).map_err(|e| utf8_error(input, e.valid_up_to()))?;
    let mut p = Parser {
        s: text,
        b: input,
        pos: 0,
        options,
        members: Vec::new(),
    };
    p.skip_ws();
    let value = p.value(0)?;
    p.skip_ws();
    if p.pos != input.len() {
        return Err(Error::at(
            Code::TrailingContent,
            p.pos,
            "unexpected content after the JSON value",
        ));
    }
    Ok(value)
}

/// Reads the string whose opening quote is at `open` in `text`: its value and the offset just
/// after its closing quote. Errors are those [`parse`] reports for the same string.
pub(crate) fn read_string<'a>(
    text: &'a str,
    open: usize,
    options: &Options,
) -> Result<(Cow<'a, str>, usize)> {
    let mut p = Parser {
        s: text,
        b: text.as_bytes(),
        pos: open,
        options,
        members: Vec::new(),
    };
    let value = p.string()?;
    Ok((value, p.pos))
}

/// Classifies the first invalid byte sequence: a surrogate encoded as if it were a scalar
/// value (as CESU-8 and WTF-8 do) is a lone surrogate, anything else is invalid UTF-8.
fn utf8_error(input: &[u8], at: usize) -> Error {
    let rest = &input[at..];
    if rest.len() >= 3
        && rest[0] == 0xED
        && (0xA0..=0xBF).contains(&rest[1])
        && (0x80..=0xBF).contains(&rest[2])
    {
        Error::at(
            Code::LoneSurrogate,
            at,
            "UTF-8 encoded surrogate (not a Unicode scalar value)",
        )
    } else {
        Error::at(Code::InvalidUtf8, at, "invalid UTF-8")
    }
}

struct Parser<'a, 'o> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
    options: &'o Options,
    /// Members of the objects being parsed, innermost last, with the offset of each key;
    /// one buffer reused for every object.
    members: Vec<(Cow<'a, str>, Value<'a>, usize)>,
}

impl<'a> Parser<'a, '_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.pos) {
            self.pos += 1;
        }
    }

    fn syntax(&self, message: &str) -> Error {
        let message = match self.b.get(self.pos) {
            None => format!("{message}, found the end of the input"),
            Some(&c) if c.is_ascii_graphic() => format!("{message}, found '{}'", c as char),
            Some(&c) => format!("{message}, found byte 0x{c:02x}"),
        };
        Error::at(Code::SyntaxError, self.pos, message)
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>> {
        match self.b.get(self.pos) {
            Some(b'{') => self.object(self.enter(depth)?),
            Some(b'[') => self.array(self.enter(depth)?),
            Some(b'"') => self.string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'N') if self.b[self.pos..].starts_with(b"NaN") => Err(Error::at(
                Code::NonFiniteNumber,
                self.pos,
                "NaN is not a JSON number",
            )),
            Some(b'I') if self.b[self.pos..].starts_with(b"Infinity") => Err(Error::at(
                Code::NonFiniteNumber,
                self.pos,
                "Infinity is not a JSON number",
            )),
            _ => Err(self.syntax("expected a JSON value")),
        }
    }

    fn enter(&self, depth: usize) -> Result<usize> {
        if depth >= self.options.max_depth {
            return Err(Error::at(
                Code::DepthLimitExceeded,
                self.pos,
                format!(
                    "nesting deeper than the limit of {}",
                    self.options.max_depth
                ),
            ));
        }
        Ok(depth + 1)
    }

    fn literal(&mut self, word: &str, value: Value<'a>) -> Result<Value<'a>> {
        if self.b[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.syntax(&format!("expected '{word}'")))
        }
    }

    fn number(&mut self) -> Result<Value<'a>> {
        let start = self.pos;
        let (end, simple) = number::scan(self.b, start)?;
        let n = number::from_token(&self.s[start..end], simple, self.options.profile)
            .map_err(|e| e.with_offset(start))?;
        self.pos = end;
        Ok(Value::Number(n))
    }

    fn array(&mut self, depth: usize) -> Result<Value<'a>> {
        self.pos += 1;
        self.skip_ws();
        let mut items = Vec::new();
        if self.b.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            let index = items.len();
            items.push(self.value(depth).map_err(|e| e.in_index(index))?);
            self.skip_ws();
            match self.b.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.syntax("expected ',' or ']' in array")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value<'a>> {
        self.pos += 1;
        self.skip_ws();
        let base = self.members.len();
        if self.b.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Value::Object(Object::new()));
        }
        loop {
            if self.b.get(self.pos) != Some(&b'"') {
                return Err(self.syntax("expected a string key"));
            }
            let key_offset = self.pos;
            let key = self.string()?;
            self.skip_ws();
            if self.b.get(self.pos) != Some(&b':') {
                return Err(self.syntax("expected ':' after object key").in_key(&key));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth).map_err(|e| e.in_key(&key))?;
            self.members.push((key, value, key_offset));
            self.skip_ws();
            match self.b.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return self.finish_object(base);
                }
                _ => return Err(self.syntax("expected ',' or '}' in object")),
            }
        }
    }

    /// Sorts the members of the object that started at `base`, rejecting duplicate keys.
    fn finish_object(&mut self, base: usize) -> Result<Value<'a>> {
        let members = &mut self.members[base..];
        // Equal keys stay in input order, so a duplicate is reported where it repeats.
        members.sort_unstable_by(|a, b| cmp_utf16(&a.0, &b.0).then(a.2.cmp(&b.2)));
        if let Some(w) = members.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Error::at(
                Code::DuplicateKey,
                w[1].2,
                format!("duplicate key {:?}", w[1].0),
            )
            .in_key(&w[1].0));
        }
        let entries = self.members.drain(base..).map(|(k, v, _)| (k, v)).collect();
        Ok(Value::Object(Object::from_sorted(entries)))
    }

    /// Parses a string at the opening quote. Borrows from the input unless it has escapes.
    fn string(&mut self) -> Result<Cow<'a, str>> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        let mut owned: Option<String> = None;
        let mut chunk = start;
        loop {
            self.pos = find_special(self.b, self.pos);
            match self.b.get(self.pos) {
                Some(b'"') => {
                    let tail = &self.s[chunk..self.pos];
                    self.pos += 1;
                    return Ok(match owned {
                        None => Cow::Borrowed(tail),
                        Some(mut s) => {
                            s.push_str(tail);
                            Cow::Owned(s)
                        }
                    });
                }
                Some(b'\\') => {
                    let prefix_end = self.pos;
                    let c = self.escape()?;
                    let s =
                        owned.get_or_insert_with(|| String::with_capacity(prefix_end - start + 16));
                    s.push_str(&self.s[chunk..prefix_end]);
                    s.push(c);
                    chunk = self.pos;
                }
                Some(&c) => {
                    return Err(Error::at(
                        Code::SyntaxError,
                        self.pos,
                        format!("control character U+{c:04X} must be escaped in a string"),
                    ))
                }
                None => return Err(Error::at(Code::SyntaxError, open, "unterminated string")),
            }
        }
    }

    /// Decodes one escape sequence at the backslash.
    fn escape(&mut self) -> Result<char> {
        let at = self.pos;
        let c = match self.b.get(at + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode_escape(),
            _ => {
                self.pos += 1;
                return Err(self.syntax("invalid escape sequence"));
            }
        };
        self.pos += 2;
        Ok(c)
    }

    fn unicode_escape(&mut self) -> Result<char> {
        let at = self.pos;
        let hi = self.hex4(at + 2)?;
        self.pos = at + 6;
        let lone = || {
            Error::at(
                Code::LoneSurrogate,
                at,
                format!("\\u{hi:04x} is an unpaired surrogate"),
            )
        };
        match hi {
            0xD800..=0xDBFF => {
                if !self.b[self.pos..].starts_with(b"\\u") {
                    return Err(lone());
                }
                let lo = self.hex4(self.pos + 2)?;
                if !(0xDC00..=0xDFFF).contains(&lo) {
                    return Err(lone());
                }
                self.pos += 6;
                let c = 0x1_0000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                char::from_u32(c).ok_or_else(lone)
            }
            0xDC00..=0xDFFF => Err(lone()),
            _ => char::from_u32(hi).ok_or_else(lone),
        }
    }

    fn hex4(&self, at: usize) -> Result<u32> {
        let digits = self.b.get(at..at + 4).unwrap_or(&[]);
        let mut v = 0u32;
        for (i, &d) in digits.iter().enumerate() {
            let x = (d as char).to_digit(16).ok_or_else(|| {
                Error::at(Code::SyntaxError, at + i, "expected 4 hex digits after \\u")
            })?;
            v = v * 16 + x;
        }
        if digits.len() < 4 {
            return Err(Error::at(
                Code::SyntaxError,
                at + digits.len(),
                "expected 4 hex digits after \\u",
            ));
        }
        Ok(v)
    }
}
