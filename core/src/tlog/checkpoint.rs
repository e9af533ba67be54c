//! The C2SP tlog-checkpoint note text (c2sp.org/tlog-checkpoint@v1.0.0): the log's origin, the
//! tree size in decimal, the RFC 9162 root hash in padded standard base64, then optional
//! extension lines, each newline-terminated:
//!
//! ```text
//! example.com/behind-the-sofa
//! 20852163
//! CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=
//! ```
//!
//! The text is what the log signs ([`super::note`]) and its witnesses cosign
//! ([`super::cosignature`]). Parsing is strict so that one checkpoint has one text: no leading
//! zeros, a root of exactly 32 bytes in canonical base64, no empty line, no control character.

use super::merkle::Hash;
use crate::base64::standard as base64;
use crate::error::{Code, Error, Result};
use std::fmt;

/// A log's signed statement of its tree: origin, size and root hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    origin: String,
    size: u64,
    root: Hash,
    extensions: Vec<String>,
}

impl Checkpoint {
    /// The checkpoint of the log `origin` at `size` with `root`; the origin must be one
    /// non-empty line without control characters ([`Code::CheckpointInvalid`]).
    pub fn new(origin: &str, size: u64, root: Hash) -> Result<Checkpoint> {
        check_line(origin, 0)?;
        Ok(Checkpoint {
            origin: origin.to_owned(),
            size,
            root,
            extensions: Vec::new(),
        })
    }

    /// Reads a checkpoint text (a note's text, final newline included); problems are
    /// [`Code::CheckpointInvalid`] with the byte offset.
    pub fn parse(text: &str) -> Result<Checkpoint> {
        let body = text
            .strip_suffix('\n')
            .ok_or_else(|| invalid("a checkpoint ends in a newline").with_offset(text.len()))?;
        let mut lines = Vec::new();
        let mut at = 0;
        for line in body.split('\n') {
            check_line(line, at)?;
            lines.push((line, at));
            at += line.len() + 1;
        }
        let [(origin, _), (size, size_at), (root, root_at), extensions @ ..] = lines.as_slice()
        else {
            return Err(
                invalid("a checkpoint has an origin, a size and a root hash line")
                    .with_offset(text.len()),
            );
        };
        Ok(Checkpoint {
            origin: (*origin).to_owned(),
            size: parse_size(size).map_err(|e| e.with_offset(*size_at))?,
            root: parse_hash(root).map_err(|e| super::shifted(e, *root_at))?,
            extensions: extensions.iter().map(|(l, _)| (*l).to_owned()).collect(),
        })
    }

    /// The origin: the log's identity.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The tree size.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The root hash of the tree at that size.
    pub fn root(&self) -> &Hash {
        &self.root
    }

    /// The extension lines, without their newlines.
    pub fn extensions(&self) -> &[String] {
        &self.extensions
    }
}

impl fmt::Display for Checkpoint {
    /// The checkpoint text, final newline included.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.origin)?;
        writeln!(f, "{}", self.size)?;
        writeln!(f, "{}", base64::encode(&self.root))?;
        self.extensions.iter().try_for_each(|e| writeln!(f, "{e}"))
    }
}

/// A decimal size without leading zeros (`0` alone for zero), within 64 bits.
pub(crate) fn parse_size(text: &str) -> Result<u64> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    canonical
        .then(|| text.parse::<u64>().ok())
        .flatten()
        .ok_or_else(|| invalid("a size is a decimal number without leading zeros, below 2^64"))
}

/// A 32-byte hash in canonical padded standard base64; offsets are in `text`.
pub(crate) fn parse_hash(text: &str) -> Result<Hash> {
    let bytes = base64::decode(text).map_err(|e| e.recode(Code::CheckpointInvalid))?;
    bytes.try_into().map_err(|_| invalid("a hash is 32 bytes"))
}

/// A non-empty line without control characters.
fn check_line(line: &str, at: usize) -> Result<()> {
    if line.is_empty() {
        return Err(invalid("an empty line in a checkpoint").with_offset(at));
    }
    match line.bytes().position(|b| b < 0x20) {
        Some(i) => Err(invalid("a control character in a checkpoint").with_offset(at + i)),
        None => Ok(()),
    }
}

fn invalid(message: &str) -> Error {
    Error::new(Code::CheckpointInvalid, message)
}

#[cfg(test)]
mod tests;
