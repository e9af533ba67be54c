//! The two base64 forms actionseal reads and writes, both in their one canonical spelling
//! (RFC 4648 section 3.5: the unused low bits of the last character must be zero), so every
//! byte string has exactly one text and every text at most one byte string. No whitespace.
//!
//! - [`url`]: base64url without padding (section 5). JWK (RFC 7517), WebAuthn's `challenge`,
//!   the JOSE family and the DSSE envelope's fields use it.
//! - [`standard`]: standard base64 with `=` padding (section 4). The C2SP signed note,
//!   checkpoint and witness formats (`crate::tlog`) use it; padding is required and exact.

use crate::error::{Code, Error, Result};

/// An alphabet and whether its texts are padded to whole groups of four.
struct Codec {
    alphabet: &'static [u8; 64],
    /// The six bits each byte stands for, or [`NOT_IN_ALPHABET`]. A table: a signed envelope's
    /// payload (hundreds of characters) is decoded on every check.
    sextets: [u8; 256],
    /// The two characters of each 12 bits: a group of three bytes is written with two
    /// look-ups, since a disclosure is encoded for each sensitive value committed.
    pairs: [[u8; 2]; 4096],
    padded: bool,
    name: &'static str,
}

const NOT_IN_ALPHABET: u8 = 0xFF;

const fn sextets(alphabet: &[u8; 64]) -> [u8; 256] {
    let mut table = [NOT_IN_ALPHABET; 256];
    let mut i = 0;
    while i < alphabet.len() {
        table[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    table
}

const fn pairs(alphabet: &[u8; 64]) -> [[u8; 2]; 4096] {
    let mut table = [[0u8; 2]; 4096];
    let mut i = 0;
    while i < 4096 {
        table[i] = [alphabet[i >> 6], alphabet[i & 63]];
        i += 1;
    }
    table
}

const URL_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const STANDARD_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static URL: Codec = Codec {
    alphabet: URL_ALPHABET,
    sextets: sextets(URL_ALPHABET),
    pairs: pairs(URL_ALPHABET),
    padded: false,
    name: "unpadded base64url",
};

static STANDARD: Codec = Codec {
    alphabet: STANDARD_ALPHABET,
    sextets: sextets(STANDARD_ALPHABET),
    pairs: pairs(STANDARD_ALPHABET),
    padded: true,
    name: "padded standard base64",
};

/// base64url without padding (RFC 4648 section 5).
pub(crate) mod url {
    use crate::error::Result;

    /// The base64url text of `bytes`, without padding.
    pub fn encode(bytes: &[u8]) -> String {
        super::URL.encode(bytes)
    }

    /// [`encode`] appended to a string the caller has.
    pub(crate) fn encode_into(bytes: &[u8], out: &mut String) {
        super::URL.encode_into(bytes, out)
    }

    /// Decodes canonical unpadded base64url; anything else is
    /// [`Code::InvalidBase64`](crate::Code::InvalidBase64).
    pub fn decode(text: &str) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        super::URL.decode_into(text, &mut out)?;
        Ok(out)
    }

    /// [`decode`] into a buffer the caller reuses (cleared first).
    pub(crate) fn decode_into(text: &str, out: &mut Vec<u8>) -> Result<()> {
        super::URL.decode_into(text, out)
    }
}

/// Standard base64 with padding (RFC 4648 section 4).
pub(crate) mod standard {
    use crate::error::Result;

    /// The padded standard base64 text of `bytes`.
    pub(crate) fn encode(bytes: &[u8]) -> String {
        super::STANDARD.encode(bytes)
    }

    /// Decodes canonical padded standard base64; anything else is
    /// [`Code::InvalidBase64`](crate::Code::InvalidBase64) (callers in a document of their
    /// own recode it to that document's code).
    pub(crate) fn decode(text: &str) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        super::STANDARD.decode_into(text, &mut out)?;
        Ok(out)
    }

    /// [`decode`] into a buffer the caller reuses (cleared first).
    pub(crate) fn decode_into(text: &str, out: &mut Vec<u8>) -> Result<()> {
        super::STANDARD.decode_into(text, out)
    }
}

impl Codec {
    fn encode(&self, bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        self.encode_into(bytes, &mut out);
        out
    }

    /// Appends the text of `bytes` to `out`: six bytes at a time (four look-ups, eight
    /// characters), then whole groups of three, then the rest.
    fn encode_into(&self, bytes: &[u8], out: &mut String) {
        let mut text = std::mem::take(out).into_bytes();
        let start = text.len();
        let pair = |n: u64, shift: u32| self.pairs[(n >> shift) as usize & 0xFFF];
        let mut sixes = bytes.chunks_exact(6);
        let threes = sixes.remainder().len() / 3;
        text.resize(start + sixes.len() * 8 + threes * 4, 0);
        let (eights, fours) = text[start..].split_at_mut(sixes.len() * 8);
        for (g, eight) in sixes.by_ref().zip(eights.chunks_exact_mut(8)) {
            let n = u64::from_be_bytes([0, 0, g[0], g[1], g[2], g[3], g[4], g[5]]);
            for (two, shift) in eight.chunks_exact_mut(2).zip([36, 24, 12, 0]) {
                two.copy_from_slice(&pair(n, shift));
            }
        }
        let mut groups = sixes.remainder().chunks_exact(3);
        for (g, four) in groups.by_ref().zip(fours.chunks_exact_mut(4)) {
            let n = u64::from_be_bytes([0, 0, 0, 0, 0, g[0], g[1], g[2]]);
            four[..2].copy_from_slice(&pair(n, 12));
            four[2..].copy_from_slice(&pair(n, 0));
        }
        let at = |n: u32, shift: u32| self.alphabet[(n >> shift) as usize & 63];
        let last = groups.remainder();
        if !last.is_empty() {
            let n = last
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
            for i in 0..=last.len() {
                text.push(at(n, 18 - 6 * i as u32));
            }
            if self.padded {
                text.resize(text.len() + 3 - last.len(), b'=');
            }
        }
        // Only the alphabet's ASCII was appended to a string.
        *out = String::from_utf8(text).unwrap_or_default();
    }

    fn decode_into(&self, text: &str, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let b = self.unpadded(text.as_bytes())?;
        if b.len() % 4 == 1 {
            return Err(self.invalid("its length leaves a single character over"));
        }
        out.reserve(b.len() / 4 * 3 + 2);
        let mut groups = b.chunks_exact(4);
        for (i, group) in groups.by_ref().enumerate() {
            let n = self.bits(group, i * 4)?;
            out.extend_from_slice(&n.to_be_bytes()[1..]);
        }
        let last = groups.remainder();
        if !last.is_empty() {
            let at = b.len() - last.len();
            let n = self.bits(last, at)?;
            let bytes = last.len() - 1;
            // A short last group carries bits that no byte takes: they must be zero, or two
            // texts would decode to the same bytes.
            if n & (0xFF_FFFF >> (8 * bytes)) != 0 {
                return Err(self
                    .invalid("the unused bits of the last character are not zero")
                    .with_offset(b.len() - 1));
            }
            out.extend_from_slice(&n.to_be_bytes()[1..=bytes]);
        }
        Ok(())
    }

    /// The text without its padding, which must be exactly what its length needs.
    fn unpadded<'t>(&self, text: &'t [u8]) -> Result<&'t [u8]> {
        if !self.padded {
            return Ok(text);
        }
        if !text.len().is_multiple_of(4) {
            // A stray character explains a wrong length better than the length does.
            let stray = text
                .iter()
                .position(|&c| self.sextets[usize::from(c)] == NOT_IN_ALPHABET && c != b'=');
            if let Some(at) = stray {
                return Err(self
                    .invalid("a character outside the alphabet")
                    .with_offset(at));
            }
            return Err(self
                .invalid("its length is not a multiple of 4")
                .with_offset(text.len()));
        }
        let pad = text
            .iter()
            .rev()
            .take(2)
            .take_while(|&&c| c == b'=')
            .count();
        let data = &text[..text.len() - pad];
        // "xy==" holds one byte, "xyz=" two: a padded group of three '=' holds none.
        if pad > 0 && data.len() % 4 == 1 {
            return Err(self
                .invalid("padding ('=') in place of data")
                .with_offset(data.len() - 1));
        }
        Ok(data)
    }

    /// The 24 bits of a group of up to four characters, the first character's highest; `at`
    /// is the group's offset in the text.
    fn bits(&self, group: &[u8], at: usize) -> Result<u32> {
        let mut n = 0u32;
        for (j, &c) in group.iter().enumerate() {
            let v = self.sextets[usize::from(c)];
            if v == NOT_IN_ALPHABET {
                let what = match c {
                    b'=' if self.padded => "padding ('=') before the end",
                    b'=' => "padding ('=') is not accepted",
                    b'+' | b'/' if !self.padded => "'+' and '/' are standard base64, not base64url",
                    b'-' | b'_' if self.padded => "'-' and '_' are base64url, not standard base64",
                    _ => "a character outside the alphabet",
                };
                return Err(self.invalid(what).with_offset(at + j));
            }
            n |= u32::from(v) << (18 - 6 * j);
        }
        Ok(n)
    }

    fn invalid(&self, why: &str) -> Error {
        Error::new(
            Code::InvalidBase64,
            format!("not canonical {}: {why}", self.name),
        )
    }
}

#[cfg(test)]
mod tests;
