//! The one base64 form actionseal accepts: base64url (RFC 4648 section 5) without padding, in
//! its canonical spelling. No `=`, no `+` or `/`, no whitespace, and the unused low bits of the
//! last character must be zero, so every byte string has exactly one text and every text at
//! most one byte string. JWK (RFC 7517), WebAuthn's `challenge` and the JOSE family use this
//! form; the DSSE envelope's fields use it too, so there is one decoder for everything.

use crate::error::{Code, Error, Result};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The base64url text of `bytes`, without padding.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
        }
    }
    out
}

/// The six bits each byte stands for as a base64url character, or [`NOT_BASE64URL`]. A
/// table: a signed envelope's payload (hundreds of characters) is decoded on every check.
const SEXTETS: [u8; 256] = {
    let mut table = [NOT_BASE64URL; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};
const NOT_BASE64URL: u8 = 0xFF;

/// Decodes canonical unpadded base64url; anything else is [`Code::InvalidBase64`].
pub fn decode(text: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    decode_into(text, &mut out)?;
    Ok(out)
}

/// [`decode`] into a buffer the caller reuses (cleared first).
pub(crate) fn decode_into(text: &str, out: &mut Vec<u8>) -> Result<()> {
    out.clear();
    let b = text.as_bytes();
    if b.len() % 4 == 1 {
        return Err(invalid("its length leaves a single character over"));
    }
    out.reserve(b.len() / 4 * 3 + 2);
    let mut groups = b.chunks_exact(4);
    for (i, group) in groups.by_ref().enumerate() {
        let n = bits(group, i * 4)?;
        out.extend_from_slice(&n.to_be_bytes()[1..]);
    }
    let last = groups.remainder();
    if !last.is_empty() {
        let at = b.len() - last.len();
        let n = bits(last, at)?;
        let bytes = last.len() - 1;
        // A short last group carries bits that no byte takes: they must be zero, or two texts
        // would decode to the same bytes.
        if n & (0xFF_FFFF >> (8 * bytes)) != 0 {
            return Err(
                invalid("the unused bits of the last character are not zero")
                    .with_offset(b.len() - 1),
            );
        }
        out.extend_from_slice(&n.to_be_bytes()[1..=bytes]);
    }
    Ok(())
}

/// The 24 bits of a group of up to four characters, the first character's highest; `at` is
/// the group's offset in the text.
fn bits(group: &[u8], at: usize) -> Result<u32> {
    let mut n = 0u32;
    for (j, &c) in group.iter().enumerate() {
        let v = SEXTETS[usize::from(c)];
        if v == NOT_BASE64URL {
            let what = match c {
                b'=' => "padding ('=') is not accepted",
                b'+' | b'/' => "'+' and '/' are standard base64, not base64url",
                _ => "a character outside the base64url alphabet",
            };
            return Err(invalid(what).with_offset(at + j));
        }
        n |= u32::from(v) << (18 - 6 * j);
    }
    Ok(n)
}

fn invalid(why: &str) -> Error {
    Error::new(
        Code::InvalidBase64,
        format!("not canonical unpadded base64url: {why}"),
    )
}

#[cfg(test)]
mod tests;
