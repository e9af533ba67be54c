//! The first pass's inner loop: reading the tokens of JSON text and writing their canonical
//! form, most of it by copying runs of the input.
//!
//! Every function here returns `None` for anything [`crate::parse()`] would reject (and may for
//! input it would accept only if the caller falls back to it, which no test has found).

use super::{write_content, write_string};
use crate::json::number;
use crate::json::options::Options;
use crate::json::parse::read_string;
use crate::json::scan::{find_special_or_high, utf8_char_end};

/// Offsets into the input and the output are kept as `u32` by the caller; the output can
/// outgrow the input only by converted numbers, which check it.
pub(super) const MAX_LEN: usize = u32::MAX as usize;

/// Room kept after the written output: short copies write up to 16 bytes at once, and
/// [`super::chunks::Chunks`] reads up to 32.
pub(super) const SLACK: usize = 32;

/// Marks a key whose decoded text is in the caller's `keys` buffer (it had escapes) rather
/// than in the input.
pub(super) const DECODED: u32 = 1 << 31;

/// Where reading and writing stand. A plain copyable value, so that the functions that use it
/// keep it in registers; the caller stores it around calls that recurse.
///
/// The output is a `Vec<u8>` whose length is its allocated size: `out[..len]` is written,
/// and bytes after it are scratch that short copies may overwrite.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cursor<'a> {
    pub(super) b: &'a [u8],
    /// The next input byte.
    pub(super) pos: usize,
    /// Start of the input not yet copied to the output; `b[run..pos]` is canonical as it is.
    pub(super) run: usize,
    /// Length of the written output.
    pub(super) len: usize,
}

/// Makes room in `out` for `n` more bytes after `len`, and the slack.
pub(super) fn reserve(out: &mut Vec<u8>, len: usize, n: usize) {
    let need = len + n + SLACK;
    if need > out.len() {
        out.resize(need.max(2 * out.len()), 0);
    }
}

impl<'a> Cursor<'a> {
    /// At the start of `b`, with nothing written.
    pub(super) fn new(b: &'a [u8]) -> Cursor<'a> {
        Cursor {
            b,
            pos: 0,
            run: 0,
            len: 0,
        }
    }

    #[inline(always)]
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// The output offset that the current input position will have.
    #[inline(always)]
    pub(super) fn out_pos(&self) -> u32 {
        (self.len + (self.pos - self.run)) as u32
    }

    /// Copies the pending run up to `to` to the output.
    #[inline(always)]
    pub(super) fn flush(&mut self, out: &mut Vec<u8>, to: usize) {
        self.copy(out, self.run, to);
    }

    /// Appends `b[from..to]` to the output: 16 bytes at once if it is no longer than that.
    #[inline(always)]
    fn copy(&mut self, out: &mut Vec<u8>, from: usize, to: usize) {
        let n = to - from;
        if n <= 16 {
            if let (Some(d), Some(s)) = (
                out.get_mut(self.len..self.len + 16),
                self.b.get(from..from + 16),
            ) {
                d.copy_from_slice(s);
                self.len += n;
                return;
            }
        }
        self.append(out, &self.b[from..to]);
    }

    /// Appends `s` to the output.
    pub(super) fn append(&mut self, out: &mut Vec<u8>, s: &[u8]) {
        reserve(out, self.len, s.len());
        out[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
    }

    /// Writes `text` in place of the input from `at` to the current position.
    fn replace(&mut self, out: &mut Vec<u8>, at: usize, text: &[u8]) {
        self.flush(out, at);
        self.append(out, text);
        self.run = self.pos;
    }

    #[inline(always)]
    pub(super) fn skip_ws(&mut self, out: &mut Vec<u8>) {
        if self.peek().is_some_and(is_ws) {
            self.flush(out, self.pos);
            self.pos += 1;
            // Indentation is spaces: count them eight at a time, without a branch per byte
            // (the first byte that is not a space is the lowest non-zero byte of the xor).
            while let Some(chunk) = self.b.get(self.pos..self.pos + 8) {
                let w = u64::from_le_bytes([
                    chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
                ]);
                let spaces = ((w ^ 0x2020_2020_2020_2020).trailing_zeros() / 8) as usize;
                self.pos += spaces;
                if spaces < 8 {
                    break;
                }
            }
            while self.peek().is_some_and(is_ws) {
                self.pos += 1;
            }
            self.run = self.pos;
        }
    }

    /// The `:` after a key, and whitespace around it. `": "` and `":"`, the usual spellings,
    /// are handled without the general whitespace loop.
    #[inline(always)]
    pub(super) fn colon(&mut self, out: &mut Vec<u8>) -> Option<()> {
        match self.b.get(self.pos..self.pos + 3) {
            Some(&[b':', b' ', next]) if !is_ws(next) => {
                self.flush(out, self.pos + 1);
                self.pos += 2;
                self.run = self.pos;
                return Some(());
            }
            Some(&[b':', next, _]) if !is_ws(next) => {
                self.pos += 1;
                return Some(());
            }
            _ => {}
        }
        self.skip_ws(out);
        if self.peek() != Some(b':') {
            return None;
        }
        self.pos += 1;
        self.skip_ws(out);
        Some(())
    }

    /// What follows a member or an item, with whitespace around it: `Some(true)` for a
    /// comma (consumed, and the whitespace after it), `Some(false)` for `close` (consumed).
    #[inline(always)]
    pub(super) fn separator(&mut self, out: &mut Vec<u8>, close: u8) -> Option<bool> {
        if self.peek() != Some(b',') {
            self.skip_ws(out);
            let c = self.peek()?;
            if c == close {
                self.pos += 1;
                return Some(false);
            }
            if c != b',' {
                return None;
            }
        }
        self.pos += 1;
        self.skip_ws(out);
        Some(true)
    }

    #[inline(always)]
    pub(super) fn literal(&mut self, word: &[u8]) -> Option<()> {
        if !self.b[self.pos..].starts_with(word) {
            return None;
        }
        self.pos += word.len();
        Some(())
    }

    #[inline(always)]
    pub(super) fn number(&mut self, out: &mut Vec<u8>, options: &Options) -> Option<()> {
        let start = self.pos;
        if let Some((end, canon_start, canon_end)) = number::scan_short(self.b, start) {
            self.pos = end;
            if (canon_start, canon_end) != (start, end) {
                self.flush(out, start);
                self.copy(out, canon_start, canon_end);
                self.run = end;
            }
            return Some(());
        }
        self.converted_number(out, options)
    }

    /// A number that needs a float parser and Ryu, with the parser's checks.
    #[cold]
    fn converted_number(&mut self, out: &mut Vec<u8>, options: &Options) -> Option<()> {
        let start = self.pos;
        let (end, simple) = number::scan(self.b, start).ok()?;
        let token = std::str::from_utf8(&self.b[start..end]).ok()?;
        let (_, text) = number::from_token_canonical(token, simple, options.profile).ok()?;
        self.pos = end;
        self.replace(out, start, text.bytes());
        // Output offsets of everything still to come must fit in u32.
        (self.len + (self.b.len() - self.pos) < MAX_LEN).then_some(())
    }

    /// A string value at its opening quote. Escapes are rewritten in place where their
    /// canonical form differs (only `\/` and `\u`), so no decoded copy is made.
    #[inline(always)]
    pub(super) fn string(&mut self, out: &mut Vec<u8>) -> Option<()> {
        let mut i = self.pos + 1;
        loop {
            i = find_special_or_high(self.b, i);
            let c = *self.b.get(i)?;
            if c == b'"' {
                self.pos = i + 1;
                return Some(());
            } else if c >= 0x80 {
                i = utf8_run(self.b, i)?;
            } else if c == b'\\' {
                i = self.escape(out, i)?;
            } else {
                return None;
            }
        }
    }

    /// A key at its opening quote. Returns where its decoded text is: `b[key..key + len]`,
    /// or in `keys` if `len` has [`DECODED`] set.
    #[inline(always)]
    pub(super) fn key(
        &mut self,
        out: &mut Vec<u8>,
        keys: &mut Vec<u8>,
        options: &Options,
    ) -> Option<(u32, u32)> {
        let open = self.pos;
        let mut i = open + 1;
        loop {
            i = find_special_or_high(self.b, i);
            let c = *self.b.get(i)?;
            if c == b'"' {
                self.pos = i + 1;
                return Some(((open + 1) as u32, (i - open - 1) as u32));
            } else if c >= 0x80 {
                i = utf8_run(self.b, i)?;
            } else if c == b'\\' {
                return self.escaped_key(out, keys, options);
            } else {
                return None;
            }
        }
    }

    /// A key at its opening quote that is the same text as `b[key..key + len]`, a key read
    /// earlier that had no escapes; `false` (consuming nothing) if it is not.
    #[inline(always)]
    pub(super) fn same_key(&mut self, key: usize, len: usize) -> bool {
        let at = self.pos + 1;
        if self.b.get(self.pos) != Some(&b'"') || self.b.get(at + len) != Some(&b'"') {
            return false;
        }
        let same = match (self.b.get(at..at + 8), self.b.get(key..key + 8)) {
            (Some(x), Some(y)) if len <= 8 => {
                let (x, y) = (word(x), word(y));
                // The first `len` bytes, in this little-endian reading the low ones.
                let mask = if len == 8 {
                    u64::MAX
                } else {
                    (1 << (8 * len)) - 1
                };
                (x ^ y) & mask == 0
            }
            _ => self.b.get(at..at + len) == self.b.get(key..key + len),
        };
        if same {
            self.pos = at + len + 1;
        }
        same
    }

    /// Handles the escape sequence at `i` in a string value and returns where it ends.
    ///
    /// RFC 8785 writes `"` `\` and U+0008, U+0009, U+000A, U+000C, U+000D with the short
    /// escapes JSON has for them, other control characters as `\u00xx`, and everything else
    /// as itself: so the two-character escapes other than `\/` are already canonical, and
    /// `\/` and `\uXXXX` are replaced by the canonical text of their character.
    #[inline(never)]
    fn escape(&mut self, out: &mut Vec<u8>, i: usize) -> Option<usize> {
        let (c, end) = match *self.b.get(i + 1)? {
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => return Some(i + 2),
            b'/' => ('/', i + 2),
            b'u' => {
                let hi = hex4(self.b, i + 2)?;
                match hi {
                    0xD800..=0xDBFF => {
                        if self.b.get(i + 6..i + 8) != Some(b"\\u") {
                            return None;
                        }
                        let lo = hex4(self.b, i + 8)?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return None;
                        }
                        let c = 0x1_0000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        (char::from_u32(c)?, i + 12)
                    }
                    0xDC00..=0xDFFF => return None,
                    _ => (char::from_u32(hi)?, i + 6),
                }
            }
            _ => return None,
        };
        self.flush(out, i);
        let mut utf8 = [0; 4];
        let c = c.encode_utf8(&mut utf8);
        if c.as_bytes()[0] < 0x20 || c == "\"" || c == "\\" {
            let mut text = String::with_capacity(6);
            write_content(c, &mut text);
            self.append(out, text.as_bytes());
        } else {
            self.append(out, c.as_bytes());
        }
        // Canonical escapes are never longer than the input's, so the output has not
        // outgrown the input.
        self.run = end;
        Some(end)
    }

    /// A key with escapes, at its opening quote: read by the parser, its decoded text added
    /// to `keys` for sorting, and its canonical form written.
    #[cold]
    fn escaped_key(
        &mut self,
        out: &mut Vec<u8>,
        keys: &mut Vec<u8>,
        options: &Options,
    ) -> Option<(u32, u32)> {
        let open = self.pos;
        // Find the closing quote, validating as we go, so the parser can read the string.
        let mut i = open + 1;
        let close = loop {
            i = find_special_or_high(self.b, i);
            match self.b.get(i) {
                Some(b'"') => break i,
                Some(b'\\') => i += 2,
                Some(&c) if c >= 0x80 => i = utf8_run(self.b, i)?,
                _ => return None,
            }
        };
        let text = std::str::from_utf8(&self.b[open..=close]).ok()?;
        let (value, next) = read_string(text, 0, options).ok()?;
        if next != text.len() {
            return None;
        }
        let mut canonical = String::with_capacity(value.len() + 2);
        write_string(&value, &mut canonical);
        self.pos = close + 1;
        self.replace(out, open, canonical.as_bytes());
        let at = u32::try_from(keys.len()).ok()?;
        let len = u32::try_from(value.len()).ok().filter(|&l| l < DECODED)?;
        keys.extend_from_slice(value.as_bytes());
        Some((at, len | DECODED))
    }
}

/// Eight bytes as a little-endian integer.
#[inline(always)]
fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// Whether `c` is JSON whitespace.
#[inline(always)]
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\r' | b'\t')
}

/// Validates the non-ASCII characters starting at `b[i]`; returns where they end.
#[inline(never)]
fn utf8_run(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        i = utf8_char_end(b, i)?;
        match b.get(i) {
            Some(&c) if c >= 0x80 => {}
            _ => return Some(i),
        }
    }
}

/// The value of the four hex digits at `b[at..at + 4]`.
#[inline]
fn hex4(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)?
        .iter()
        .try_fold(0, |v, &d| Some(v * 16 + char::from(d).to_digit(16)?))
}
