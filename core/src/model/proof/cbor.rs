//! A small strict CBOR (RFC 8949) reader for what WebAuthn hands over: COSE keys, attestation
//! objects and authenticator extensions. CTAP2 requires the canonical encoding, and so does
//! this reader: definite lengths only, each argument in its shortest form, no duplicate map
//! keys, text that is UTF-8. Floats, tags and other simple values never occur there and are
//! refused, as is nesting deeper than [`MAX_DEPTH`].

/// Deepest nesting accepted.
pub(crate) const MAX_DEPTH: usize = 16;

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

/// Reads exactly one item that spans all of `input`.
pub(crate) fn read_exact(input: &[u8]) -> Result<Item<'_>, Why> {
    let (item, used) = read_prefix(input)?;
    if used != input.len() {
        return Err("bytes follow the CBOR item");
    }
    Ok(item)
}

/// Reads one item at the start of `input`: the item and the number of bytes it took.
pub(crate) fn read_prefix(input: &[u8]) -> Result<(Item<'_>, usize), Why> {
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

    fn item(&mut self, depth: usize) -> Result<Item<'a>, Why> {
        if depth > MAX_DEPTH {
            return Err("CBOR nested too deeply");
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
                // Each element takes at least one byte: a length beyond the input is refused
                // before anything is allocated for it.
                let n = self.len(arg)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.item(depth + 1)?);
                }
                Item::Array(items)
            }
            5 => {
                let n = self.len(arg)?;
                let mut members: Vec<(Item<'a>, Item<'a>)> = Vec::with_capacity(n);
                for _ in 0..n {
                    let key = self.item(depth + 1)?;
                    if members.iter().any(|(k, _)| *k == key) {
                        return Err("a CBOR map has the same key twice");
                    }
                    let value = self.item(depth + 1)?;
                    members.push((key, value));
                }
                Item::Map(members)
            }
            6 => return Err("CBOR tags are not accepted"),
            _ => match arg {
                20 => Item::Bool(false),
                21 => Item::Bool(true),
                22 => Item::Null,
                _ => return Err("CBOR floats and simple values are not accepted"),
            },
        })
    }
}

#[cfg(test)]
mod tests;
