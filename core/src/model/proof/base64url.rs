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

/// The six bits a base64url character stands for, or `None`.
fn sextet(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// Decodes canonical unpadded base64url; anything else is [`Code::InvalidBase64`].
pub fn decode(text: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
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
    for (i, chunk) in b.chunks(4).enumerate() {
        let mut n = 0u32;
        for (j, &c) in chunk.iter().enumerate() {
            let Some(v) = sextet(c) else {
                let what = match c {
                    b'=' => "padding ('=') is not accepted",
                    b'+' | b'/' => "'+' and '/' are standard base64, not base64url",
                    _ => "a character outside the base64url alphabet",
                };
                return Err(invalid(what).with_offset(i * 4 + j));
            };
            n |= v << (18 - 6 * j);
        }
        let bytes = chunk.len() - 1;
        // A short last group carries bits that no byte takes: they must be zero, or two texts
        // would decode to the same bytes.
        if bytes < 3 && n & (0xFF_FFFF >> (8 * bytes)) != 0 {
            return Err(
                invalid("the unused bits of the last character are not zero")
                    .with_offset(i * 4 + chunk.len() - 1),
            );
        }
        for k in 0..bytes {
            out.push((n >> (16 - 8 * k)) as u8);
        }
    }
    Ok(())
}

fn invalid(why: &str) -> Error {
    Error::new(
        Code::InvalidBase64,
        format!("not canonical unpadded base64url: {why}"),
    )
}

#[cfg(test)]
mod tests;
