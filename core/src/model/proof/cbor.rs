//! A small strict CBOR (RFC 8949) reader for what WebAuthn hands over: COSE keys, attestation
//! objects and authenticator extensions. CTAP2 requires the canonical encoding, and so does
//! this reader: definite lengths only, each argument in its shortest form, no duplicate map
//! keys, text that is UTF-8. Floats, tags and other simple values never occur there and are
//! refused.
//!
//! The reader is bounded by what WebAuthn needs, so that its work is linear in a small input:
//! [`MAX_BYTES`] in all, [`MAX_MEMBERS`] members in a map or array, [`MAX_DEPTH`] levels. Map
//! keys are compared by their encoded bytes, sorted once per map: in this encoding equal items
//! have equal bytes. Key order itself is not required: CTAP2 asks authenticators for its
//! canonical order, but the attestation object is assembled by the client.

use crate::error::{Code, Error};

/// Largest CBOR text read. The largest WebAuthn hands over is the attestation object:
/// authenticator data (at most 4 KiB, see `webauthn`) and an attestation statement, whose
/// certificate chain takes a few KiB in TPM or packed attestation.
pub(crate) const MAX_BYTES: usize = 16 * 1024;
/// Most members of one map or array: a TPM attestation statement has 6, CTAP 2.2 defines about
/// a dozen extension outputs, a COSE key has at most 5 parameters here, an x5c chain a handful
/// of certificates and `uvm` at most 3 entries.
pub(crate) const MAX_MEMBERS: usize = 32;
/// Deepest nesting: WebAuthn's deepest item is at depth 3 (a `uvm` entry's member inside the
/// extensions map, or a certificate in an attestation statement's x5c).
pub(crate) const MAX_DEPTH: usize = 8;

/// One data item, borrowing byte and text strings from the input.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item<'a> {
    /// An unsigned integer.
    Uint(u64),
    /// A negative integer: the value is `-1 - n`.
    Nint(u64),
    Bytes(&'a [u8]),
    Text(&'a str),
    Array(Vec<Item<'a>>),
    /// Members in input order.
    Map(Vec<(Item<'a>, Item<'a>)>),
    Bool(bool),
    Null,
}

impl Item<'_> {
    /// The integer value, if this is an integer that fits an `i64`.
    pub(crate) fn as_int(&self) -> Option<i64> {
        match *self {
            Item::Uint(n) => i64::try_from(n).ok(),
            Item::Nint(n) => i64::try_from(n).ok().map(|n| -1 - n),
            _ => None,
        }
    }
}

/// Why a CBOR text was refused, for messages.
pub(crate) type Why = &'static str;

/// A refused CBOR text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Not the strict encoding: the caller's code for a malformed input applies.
    Malformed(Why),
    /// Larger, wider or deeper than WebAuthn needs: [`Code::CborLimitExceeded`].
    OverLimit(Why),
}

impl Refused {
    /// The error: `malformed` is the caller's code for a malformed input.
    pub(crate) fn error(self, malformed: Code) -> Error {
        match self {
            Refused::Malformed(why) => Error::new(malformed, why),
            Refused::OverLimit(why) => Error::new(Code::CborLimitExceeded, why),
        }
    }
}

impl From<Why> for Refused {
    fn from(why: Why) -> Refused {
        Refused::Malformed(why)
    }
}

/// Reads exactly one item that spans all of `input`.
pub(crate) fn read_exact(input: &[u8]) -> Result<Item<'_>, Refused> {
    let (item, used) = read_prefix(input)?;
    if used != input.len() {
        return Err("bytes follow the CBOR item".into());
    }
    Ok(item)
}

/// Reads one item at the start of `input`: the item and the number of bytes it took.
pub(crate) fn read_prefix(input: &[u8]) -> Result<(Item<'_>, usize), Refused> {
    if input.len() > MAX_BYTES {
        return Err(Refused::OverLimit(
            "the CBOR text is longer than WebAuthn needs (16 KiB)",
        ));
    }
    let mut r = Reader { b: input, pos: 0 };
    let item = r.item(0)?;
    Ok((item, r.pos))
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Why> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.b.len());
        let end = end.ok_or("the CBOR item is truncated")?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    /// The head's major type and argument, refusing indefinite and non-shortest forms.
    fn head(&mut self) -> Result<(u8, u64), Why> {
        let initial = self.take(1)?[0];
        let (major, info) = (initial >> 5, initial & 0x1F);
        let arg = match info {
            0..=23 => u64::from(info),
            24..=27 => {
                let bytes = self.take(1 << (info - 24))?;
                let n = bytes.iter().fold(0u64, |n, &b| (n << 8) | u64::from(b));
                let shortest_min = match info {
                    24 => 24,
                    25 => 0x100,
                    26 => 0x1_0000,
                    _ => 0x1_0000_0000,
                };
                if n < shortest_min {
                    return Err("a CBOR argument is not in its shortest form");
                }
                n
            }
            31 => return Err("indefinite-length CBOR items are not accepted"),
            _ => return Err("reserved CBOR additional information"),
        };
        Ok((major, arg))
    }

    fn len(&self, arg: u64) -> Result<usize, Why> {
        usize::try_from(arg)
            .ok()
            .filter(|&n| n <= self.b.len() - self.pos)
            .ok_or("a CBOR length is longer than the input")
    }

    /// The member count of an array or map, refused above [`MAX_MEMBERS`] before any member
    /// is read or anything is allocated for them.
    fn members(arg: u64) -> Result<usize, Refused> {
        usize::try_from(arg)
            .ok()
            .filter(|&n| n <= MAX_MEMBERS)
            .ok_or(Refused::OverLimit(
                "a CBOR map or array has more members than WebAuthn uses (32)",
            ))
    }

    fn item(&mut self, depth: usize) -> Result<Item<'a>, Refused> {
        if depth > MAX_DEPTH {
            return Err(Refused::OverLimit(
                "CBOR nested deeper than WebAuthn uses (8 levels)",
            ));
        }
        let (major, arg) = self.head()?;
        Ok(match major {
            0 => Item::Uint(arg),
            1 => Item::Nint(arg),
            2 => Item::Bytes(self.take(self.len(arg)?)?),
            3 => Item::Text(
                std::str::from_utf8(self.take(self.len(arg)?)?)
                    .map_err(|_| "a CBOR text string is not UTF-8")?,
            ),
            4 => {
                let n = Self::members(arg)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.item(depth + 1)?);
                }
                Item::Array(items)
            }
            5 => {
                let n = Self::members(arg)?;
                let mut members = Vec::with_capacity(n);
                let mut keys: Vec<&'a [u8]> = Vec::with_capacity(n);
                for _ in 0..n {
                    let start = self.pos;
                    let key = self.item(depth + 1)?;
                    keys.push(&self.b[start..self.pos]);
                    let value = self.item(depth + 1)?;
                    members.push((key, value));
                }
                // Each argument has one (shortest) form and lengths are definite, so two keys
                // are the same item exactly when their bytes are the same.
                keys.sort_unstable();
                if keys.windows(2).any(|w| w[0] == w[1]) {
                    return Err("a CBOR map has the same key twice".into());
                }
                Item::Map(members)
            }
            6 => return Err("CBOR tags are not accepted".into()),
            _ => match arg {
                20 => Item::Bool(false),
                21 => Item::Bool(true),
                22 => Item::Null,
                _ => return Err("CBOR floats and simple values are not accepted".into()),
            },
        })
    }
}

#[cfg(test)]
mod tests;
