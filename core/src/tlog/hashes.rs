//! Lists of tree hashes in JSON: standard base64 strings, as in a checkpoint's own text
//! (C2SP tlog-checkpoint), read by every document that carries a proof.

use crate::base64::standard as b64;
use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};
use crate::tlog::merkle::Hash;
use std::borrow::Cow;

/// The most hashes a proof holds: one per level of a tree of up to 2^64 leaves.
const MAX_PROOF: usize = 64;

/// Reads a proof: a list of base64 hashes; problems are `code`.
pub(crate) fn read_list(v: &Value<'_>, code: Code) -> Result<Vec<Hash>> {
    let Value::Array(items) = v else {
        return Err(Error::new(code, "a proof must be a list of base64 hashes"));
    };
    if items.len() > MAX_PROOF {
        return Err(Error::new(
            code,
            format!("a proof has at most {MAX_PROOF} hashes"),
        ));
    }
    let mut hashes = Vec::with_capacity(items.len());
    for (i, h) in items.iter().enumerate() {
        hashes.push(read(h, code).map_err(|e| e.in_index(i))?);
    }
    Ok(hashes)
}

/// Reads one base64 hash; problems are `code`.
pub(crate) fn read(v: &Value<'_>, code: Code) -> Result<Hash> {
    let text = v
        .as_str()
        .ok_or_else(|| Error::new(code, "a hash must be a base64 string"))?;
    if let Some(hash) = decode_hash(text.as_bytes()) {
        return Ok(hash);
    }
    // Anything else is read by the general decoder, for its error (or a length's).
    let mut bytes = Vec::new();
    b64::decode_into(text, &mut bytes).map_err(|e| e.with_code(code))?;
    Hash::try_from(bytes.as_slice()).map_err(|_| Error::new(code, "a hash has 32 bytes"))
}

/// Each standard base64 character's six bits; 0xFF for any other byte.
const SEXTETS: [u8; 256] = {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut table = [0xFF; 256];
    let mut i = 0;
    while i < alphabet.len() {
        table[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// The hash whose canonical padded text is `text` (43 characters and one `=`, the last
/// character's two unused bits zero), written straight into the hash; `None` for any other
/// text. A batch item's check reads ten, and the general decoder's buffer and per-group
/// checks were a tenth of it; `tests` shows both readers agree.
fn decode_hash(text: &[u8]) -> Option<Hash> {
    let text: &[u8; 44] = text.try_into().ok()?;
    let six = |i: usize| u32::from(SEXTETS[usize::from(text[i])]);
    let mut hash = [0u8; 32];
    // Any byte outside the alphabet sets a bit above the sextets' six here.
    let mut outside = 0u32;
    // Ten whole groups of four characters, three bytes each (fixed indices: no bounds checks).
    for g in 0..10 {
        let (a, b, c, d) = (six(4 * g), six(4 * g + 1), six(4 * g + 2), six(4 * g + 3));
        outside |= a | b | c | d;
        let n = a << 18 | b << 12 | c << 6 | d;
        hash[3 * g..3 * g + 3].copy_from_slice(&n.to_be_bytes()[1..]);
    }
    // The last: three characters for two bytes, and the padding.
    let (a, b, c) = (six(40), six(41), six(42));
    outside |= a | b | c;
    let n = a << 18 | b << 12 | c << 6;
    hash[30..].copy_from_slice(&n.to_be_bytes()[1..3]);
    (outside < 64 && text[43] == b'=' && c & 0b11 == 0).then_some(hash)
}

/// One hash as JSON.
pub(crate) fn write(hash: &Hash) -> OwnedValue {
    Value::String(Cow::Owned(b64::encode(hash)))
}

/// A proof as JSON.
pub(crate) fn write_list(proof: &[Hash]) -> OwnedValue {
    Value::Array(proof.iter().map(write).collect())
}

#[cfg(test)]
mod tests;
