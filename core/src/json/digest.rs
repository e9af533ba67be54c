//! SHA-256 fingerprints of canonical bytes and their constant-time comparison.

use crate::error::{Code, Error, Result};
use crate::json::canon::Bytes;
use sha2::{Digest as _, Sha256};
use std::fmt;
use std::str::FromStr;

/// A SHA-256 fingerprint, written `sha256:` + 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest([u8; 32]);

const PREFIX: &str = "sha256:";

/// The longest message that fits two blocks with its padding (FIPS 180-4 §5.1.1: a 0x80 byte
/// and the 8-byte length).
const SHORT: usize = 2 * 64 - 9;

/// SHA-256's initial hash value (FIPS 180-4 §5.3.3).
const SHA256_H0: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// SHA-256 of a message of at most [`SHORT`] bytes, padded here and compressed directly,
/// without the streaming hasher's buffering: a disclosure (about 90 bytes) is hashed for each
/// sensitive value committed or checked. `None` for a longer message.
fn short(bytes: &[u8]) -> Option<[u8; 32]> {
    if bytes.len() > SHORT {
        return None;
    }
    let n = if bytes.len() < 56 { 1 } else { 2 };
    let mut blocks = [[0u8; 64]; 2];
    let flat = blocks.as_flattened_mut();
    flat[..bytes.len()].copy_from_slice(bytes);
    flat[bytes.len()] = 0x80;
    flat[n * 64 - 8..n * 64].copy_from_slice(&(bytes.len() as u64 * 8).to_be_bytes());
    Some(compressed(&blocks[..n]))
}

/// SHA-256 of a message already padded into `blocks` (FIPS 180-4 §5.1.1).
pub(crate) fn compressed(blocks: &[[u8; 64]]) -> [u8; 32] {
    let mut state = SHA256_H0;
    sha2::block_api::compress256(&mut state, blocks);
    let mut hash = [0u8; 32];
    for (bytes, word) in hash.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
    hash
}

impl Digest {
    /// The SHA-256 digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        match short(bytes) {
            Some(hash) => Digest(hash),
            None => Digest(Sha256::digest(bytes).into()),
        }
    }

    /// The 32 digest bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Compares in time independent of where the digests differ.
    pub fn ct_eq(&self, other: &Digest) -> bool {
        let diff = self
            .0
            .iter()
            .zip(other.0.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        std::hint::black_box(diff) == 0
    }
}

/// A [`Bytes`] sink that hashes canonical text as it is written, so the whole text is never
/// held: long pieces are hashed where they are, short ones gathered into larger blocks.
pub(crate) struct Hasher {
    buf: Vec<u8>,
    sha: Sha256,
}

/// Bytes gathered before the hasher is called: large enough that per-call overhead is
/// negligible, small enough to stay in the L1/L2 cache.
const CHUNK: usize = 8 * 1024;

impl Hasher {
    /// A hasher with nothing written.
    pub(crate) fn new() -> Hasher {
        Hasher {
            // Allocated only if small pieces are gathered.
            buf: Vec::new(),
            sha: Sha256::new(),
        }
    }

    /// The digest of everything written.
    pub(crate) fn finish(mut self) -> Digest {
        self.sha.update(&self.buf);
        Digest(self.sha.finalize().into())
    }

    /// Hashes what is gathered, then `b` if it is long or else gathers it.
    fn flush_then_put(&mut self, b: &[u8]) {
        if !self.buf.is_empty() {
            self.sha.update(&self.buf);
            self.buf.clear();
        }
        if b.len() >= DIRECT {
            self.sha.update(b);
        } else {
            self.buf.extend_from_slice(b);
        }
    }
}

/// Pieces at least this long are hashed where they are rather than gathered.
const DIRECT: usize = 64;

impl Bytes for Hasher {
    #[inline]
    fn put_bytes(&mut self, b: &[u8]) {
        if b.len() < DIRECT && self.buf.len() + b.len() <= CHUNK {
            self.buf.extend_from_slice(b);
        } else {
            self.flush_then_put(b);
        }
    }
}

/// A digest's text, `sha256:<64 lowercase hex>`, on the stack.
pub struct DigestText([u8; 71]);

impl DigestText {
    /// The text.
    pub fn as_str(&self) -> &str {
        // Only the ASCII prefix and hex digits were written.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl Digest {
    /// The digest's text without allocating (what `to_string` gives).
    pub fn text(&self) -> DigestText {
        // Two hex digits per byte from one table look-up.
        const PAIRS: [[u8; 2]; 256] = {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let mut t = [[0u8; 2]; 256];
            let mut i = 0;
            while i < 256 {
                t[i] = [HEX[i >> 4], HEX[i & 0xF]];
                i += 1;
            }
            t
        };
        let mut s = [0u8; 71];
        s[..7].copy_from_slice(PREFIX.as_bytes());
        for (pair, b) in s[7..].chunks_exact_mut(2).zip(self.0) {
            pair.copy_from_slice(&PAIRS[usize::from(b)]);
        }
        DigestText(s)
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text().as_str())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Digest {
    type Err = Error;

    /// Parses `sha256:` + 64 lowercase hex digits; anything else is [`Code::InvalidDigest`].
    fn from_str(s: &str) -> Result<Digest> {
        let invalid = || {
            Error::new(
                Code::InvalidDigest,
                "a digest is \"sha256:\" followed by 64 lowercase hex digits",
            )
        };
        let hex = s.strip_prefix(PREFIX).ok_or_else(invalid)?.as_bytes();
        if hex.len() != 64 {
            return Err(invalid());
        }
        let mut out = [0u8; 32];
        let mut bad = 0u8;
        for (o, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
            let (hi, hi_bad) = nibble(pair[0]);
            let (lo, lo_bad) = nibble(pair[1]);
            *o = (hi << 4) | lo;
            bad |= hi_bad | lo_bad;
        }
        if bad != 0 {
            return Err(invalid());
        }
        Ok(Digest(out))
    }
}

/// Decodes a lowercase hex digit without branching on its value; the second result is
/// non-zero when the byte is not one.
fn nibble(c: u8) -> (u8, u8) {
    let digit = c.wrapping_sub(b'0');
    let letter = c.wrapping_sub(b'a');
    let is_digit = ((u16::from(digit) + 0xF6) >> 8) as u8 ^ 1; // 1 when digit < 10
    let is_letter = ((u16::from(letter) + 0xFA) >> 8) as u8 ^ 1; // 1 when letter < 6
    let value =
        (digit & is_digit.wrapping_neg()) | (letter.wrapping_add(10) & is_letter.wrapping_neg());
    (value & 0xF, (is_digit | is_letter) ^ 1)
}

/// Whether two fingerprint strings name the same digest, compared in constant time.
///
/// A malformed or wrong-length digest on either side is never equal to anything.
pub fn digest_equal(a: &str, b: &str) -> bool {
    match (a.parse::<Digest>(), b.parse::<Digest>()) {
        (Ok(a), Ok(b)) => a.ct_eq(&b),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
