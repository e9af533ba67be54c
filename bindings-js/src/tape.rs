//! Reads the tape `js/host.mjs` wrote (its format is described there) and reports what it
//! holds to core's host rulebook, which builds the values and decides every error.

use actionseal_core::host::{
    self, Builder, Class, Container, HostType, Kind, Output, Parent, Prototype, Same,
};
use actionseal_core::{Error, Options, Value};
use std::borrow::Cow;

// Record tags, as written by the walker.
const NULL: u32 = 0;
const FALSE: u32 = 1;
const TRUE: u32 = 2;
const NUMBER: u32 = 3;
const STRING: u32 = 4;
const ARRAY: u32 = 5;
const OBJECT: u32 = 6;
const REPEAT: u32 = 7;
const HOLE: u32 = 8;
const UNDEFINED: u32 = 9;
const BIGINT: u32 = 10;
const SYMBOL: u32 = 11;
const FUNCTION: u32 = 12;
const FOREIGN: u32 = 13;
const HELD: u32 = 14;

// Container flags.
const TO_JSON: u32 = 1;
const SYMBOL_KEY: u32 = 2;

/// Slots before the first record.
const HEADER: usize = 2;

/// The gathered strings and keys, all of them one after another.
#[derive(Clone, Copy)]
pub enum Text<'t> {
    /// As UTF-8, when the text has no lone surrogate (see [`may_be_lossy`]).
    Utf8(&'t str),
    /// As UTF-16 code units, lone surrogates included.
    Utf16(&'t [u16]),
}

/// What the tape's header says.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    /// Slots used, header included.
    pub slots: usize,
    /// The text's length in UTF-16 code units.
    pub text_len: usize,
}

/// Reads and checks the header of a tape.
pub fn header(tape: &[f64]) -> Result<Header, Fail> {
    let slot = |i: usize| {
        tape.get(i)
            .copied()
            .ok_or(Fail::Bug("tape without a header"))
    };
    let slots = count(slot(0)?)?;
    if slots < HEADER || slots > tape.len() {
        return Err(Fail::Bug("tape header out of range"));
    }
    Ok(Header {
        slots,
        text_len: count(slot(1)?)?,
    })
}

/// Whether UTF-8 text an engine wrote from a string may hold a U+FFFD that stands for a lone
/// surrogate it replaced: then the string is read again as UTF-16 code units.
pub fn may_be_lossy(utf8: &str) -> bool {
    // A vectorised substring search, where `str::contains` runs a general one.
    memchr::memmem::find(utf8.as_bytes(), "\u{FFFD}".as_bytes()).is_some()
}

/// A gathered tape, its header checked, and its text.
pub struct Gathered<'t> {
    /// The used slots of the tape, header included.
    pub tape: &'t [f64],
    /// The text.
    pub text: Text<'t>,
}

/// A member of one of the values that may hold an object handed over as it is (HELD): a
/// `Contract` as `check`'s `context.contract`.
#[derive(Clone, Copy)]
pub struct Lift {
    /// Which of the values.
    pub value: usize,
    /// The member (the value is an object).
    pub key: &'static str,
}

/// The values read, and the held object lifted out of one, if any.
#[derive(Debug)]
pub struct Decoded<'t> {
    /// One per value gathered.
    pub values: Vec<Value<'t>>,
    /// The index among the held objects of the one at [`Lift`]'s place (left out of that
    /// value).
    pub lifted: Option<u32>,
    /// A guess at the size of the values' canonical text, in bytes.
    pub size: usize,
}

/// Why the values could not be read.
#[derive(Debug)]
pub enum Fail {
    /// Core refused a value.
    Refused(Error),
    /// A prototype core accepts (another realm's built-in) was not entered: gather again
    /// with `refs[reference]` accepted, as an array's prototype when `array`.
    Regather {
        /// The index of the prototype in the walk's `refs`.
        reference: u32,
        /// Whether it is an array's prototype.
        array: bool,
    },
    /// The tape does not follow the format (a bug in a binding).
    Bug(&'static str),
}

impl From<host::Stop> for Fail {
    fn from(s: host::Stop) -> Fail {
        match s {
            host::Stop::Refused(e) => Fail::Refused(e),
            host::Stop::Misuse(what) => Fail::Bug(what),
        }
    }
}

/// Reads `count` values from a gathered tape under `options`, lifting the held object at
/// `lift`'s place when there is one there.
pub fn decode<'t>(
    g: &Gathered<'t>,
    count: usize,
    options: &Options,
    lift: Option<Lift>,
) -> Result<Decoded<'t>, Fail> {
    decode_held_first(g, count, options, lift, None).map(|(decoded, _)| decoded)
}

/// [`decode`], except that with `held`, a value core holds, the first value is first compared
/// with it (core's `host::Same`: the same rules, nothing built). When it is the same, it is not
/// built: `values[0]` is `null`, and the `bool` returned is true. Otherwise (or when comparing
/// stops on any failure) it is read again from its start as [`decode`] reads it, so that
/// errors and their order are [`decode`]'s.
pub fn decode_held_first<'t>(
    g: &Gathered<'t>,
    count: usize,
    options: &Options,
    lift: Option<Lift>,
    held: Option<&Value<'_>>,
) -> Result<(Decoded<'t>, bool), Fail> {
    let lift_at = |i: usize| lift.filter(|l| l.value == i).map(|l| l.key);
    let mut d = Decoder::new(g);
    let same = held.is_some_and(|held| {
        d.lift = lift_at(0);
        let mut b = Builder::with_output(options, Same::new(held));
        d.value(&mut b).is_ok() && matches!(b.finish(), Ok(true))
    });
    let mut values = Vec::with_capacity(count);
    if same {
        values.push(Value::Null);
    } else if held.is_some() {
        // From the start again, as a decoder that compared nothing.
        d = Decoder::new(g);
    }
    for i in values.len()..count {
        d.lift = lift_at(i);
        let mut b = Builder::new(options);
        d.value(&mut b)?;
        values.push(b.finish()?);
    }
    d.used_up()?;
    let decoded = Decoded {
        values,
        lifted: d.lifted,
        size: d.text.byte + 4 * g.tape.len() + 16,
    };
    Ok((decoded, same))
}

/// The canonical text of a gathered tape's one value: what `canonicalize` returns and
/// `fingerprint` hashes. A large value's text is written as the tape is read, without
/// building the value (fewer allocations); a small one is built first, which costs less than
/// moving its members' text into order.
pub fn canonical(g: &Gathered<'_>, options: &Options) -> Result<String, Fail> {
    let mut text = String::new();
    canonical_into(g, options, &mut text)?;
    Ok(text)
}

/// [`canonical`], written into `text` (emptied first), such as a buffer kept from one call to
/// the next.
pub fn canonical_into(g: &Gathered<'_>, options: &Options, text: &mut String) -> Result<(), Fail> {
    /// Slots from which writing directly pays.
    const DIRECT_FROM: usize = 512;
    let mut d = Decoder::new(g);
    let size = d.size_guess();
    text.clear();
    if g.tape.len() >= DIRECT_FROM {
        text.reserve(size);
        let mut b = Builder::canonical_into(options, std::mem::take(text));
        d.value(&mut b)?;
        *text = b.finish()?;
    } else {
        let mut b = Builder::new(options);
        d.value(&mut b)?;
        let value = b.finish()?;
        text.reserve(size);
        actionseal_core::write_canonical(&value, text);
    }
    d.used_up()
}

struct Decoder<'t> {
    tape: &'t [f64],
    pos: usize,
    text: Cursor<'t>,
    /// The member of the value being read where a held object may be.
    lift: Option<&'static str>,
    lifted: Option<u32>,
}

/// A tag, count, length or index slot as an integer.
fn count(v: f64) -> Result<usize, Fail> {
    // `as` saturates (NaN to 0), so the round trip holds only for an integer in range.
    let i = v as u32;
    if f64::from(i) == v {
        Ok(i as usize)
    } else {
        Err(Fail::Bug("bad integer on the tape"))
    }
}

impl<'t> Decoder<'t> {
    /// A decoder at the first record of `g`.
    fn new(g: &Gathered<'t>) -> Decoder<'t> {
        Decoder {
            tape: g.tape,
            pos: HEADER,
            text: Cursor::new(g.text),
            lift: None,
            lifted: None,
        }
    }

    /// Every slot and every unit of text read, as the walker wrote them.
    fn used_up(&self) -> Result<(), Fail> {
        if self.pos != self.tape.len() || !self.text.done() {
            return Err(Fail::Bug("tape not used up"));
        }
        Ok(())
    }

    /// About the length of the canonical text: the text and a few bytes per slot.
    fn size_guess(&self) -> usize {
        let text = match self.text.text {
            Text::Utf8(s) => s.len(),
            Text::Utf16(u) => 3 * u.len(),
        };
        text + 4 * self.tape.len() + 16
    }

    fn slot(&mut self) -> Result<f64, Fail> {
        let v = *self
            .tape
            .get(self.pos)
            .ok_or(Fail::Bug("tape ended early"))?;
        self.pos += 1;
        Ok(v)
    }

    fn int(&mut self) -> Result<u32, Fail> {
        count(self.slot()?).map(|i| i as u32)
    }

    /// A name length (-1 for none) and the name.
    fn name(&mut self) -> Result<Option<&'t str>, Fail> {
        let len = self.slot()?;
        if len == -1.0 {
            return Ok(None);
        }
        match self.text.take(count(len)? as u32)? {
            Piece::Str(s) => Ok(Some(s)),
            // A name is only a fact for a message: one that is not text is no name.
            Piece::Units(_) | Piece::Broken => Ok(None),
        }
    }

    fn value<O: Output<'t>>(&mut self, b: &mut Builder<'t, O>) -> Result<(), Fail> {
        let tag = self.int()?;
        match tag {
            NULL => b.null()?,
            FALSE => b.boolean(false)?,
            TRUE => b.boolean(true)?,
            NUMBER => {
                let x = self.slot()?;
                b.double(x)?
            }
            STRING => {
                let len = self.int()?;
                match self.text.take(len)? {
                    Piece::Str(s) => b.string(Cow::Borrowed(s))?,
                    Piece::Units(u) => b.string_utf16(u)?,
                    Piece::Broken => return Err(b.lone_surrogate().into()),
                }
            }
            ARRAY | OBJECT => self.container(
                b,
                if tag == ARRAY {
                    Kind::Array
                } else {
                    Kind::Object
                },
            )?,
            REPEAT => {
                let depth = self.int()? as usize;
                // The open container at `depth` has the identity token `depth + 1`.
                b.open(Container::plain(Kind::Object, depth + 1, 0))?;
                return Err(Fail::Bug("a repeat that core did not refuse"));
            }
            HOLE => return Err(Fail::Bug("a hole outside an array")),
            UNDEFINED => return Err(b.unsupported(HostType::Undefined).into()),
            BIGINT => return Err(b.unsupported(HostType::BigInt).into()),
            SYMBOL => return Err(b.unsupported(HostType::Symbol).into()),
            FUNCTION => return Err(b.unsupported(HostType::Function).into()),
            FOREIGN => return Err(self.foreign(b)),
            HELD => {
                let _index = self.int()?;
                let name = self.name()?;
                return Err(b.unsupported(HostType::Object(name)).into());
            }
            _ => return Err(Fail::Bug("unknown tag on the tape")),
        }
        Ok(())
    }

    fn container<O: Output<'t>>(&mut self, b: &mut Builder<'t, O>, kind: Kind) -> Result<(), Fail> {
        let (_proto, flags, len) = (self.int()?, self.int()?, self.int()?);
        // Every prototype the walker enters is plain: this realm's, or one core accepted.
        b.open(Container {
            kind,
            class: Class::Plain,
            to_json: flags & TO_JSON != 0,
            symbol_keys: flags & SYMBOL_KEY != 0,
            identity: b.depth() + 1,
            len: len as usize,
        })?;
        if flags != 0 {
            return Err(Fail::Bug("a container with flags that core did not refuse"));
        }
        let top = b.depth() == 1;
        for _ in 0..len {
            if kind == Kind::Array {
                if self.tape.get(self.pos) == Some(&f64::from(HOLE)) {
                    return Err(b.hole().into());
                }
                self.value(b)?;
                continue;
            }
            let key_len = self.int()?;
            let key = match self.text.take(key_len)? {
                Piece::Str(s) => s,
                Piece::Units(u) => {
                    b.key_utf16(u)?;
                    self.value(b)?;
                    continue;
                }
                Piece::Broken => return Err(b.lone_surrogate_key().into()),
            };
            if top && self.lift == Some(key) && self.tape.get(self.pos) == Some(&f64::from(HELD)) {
                self.pos += 1;
                self.lifted = Some(self.int()?);
                self.name()?;
                continue;
            }
            b.key(Cow::Borrowed(key))?;
            self.value(b)?;
        }
        b.close()?;
        Ok(())
    }

    /// An object or array with a prototype the walker did not enter.
    fn foreign<O: Output<'t>>(&mut self, b: &mut Builder<'t, O>) -> Fail {
        match self.foreign_facts() {
            Ok((reference, kind, p)) if p.accepts(kind) => Fail::Regather {
                reference,
                array: kind == Kind::Array,
            },
            Ok((_, kind, p)) => match b.open(Container {
                class: Class::Prototype(p),
                ..Container::plain(kind, 0, 0)
            }) {
                Err(stop) => stop.into(),
                Ok(()) => Fail::Bug("a prototype that core neither accepts nor refuses"),
            },
            Err(f) => f,
        }
    }

    fn foreign_facts(&mut self) -> Result<(u32, Kind, Prototype<'t>), Fail> {
        let reference = self.int()?;
        let kind = if self.int()? == 1 {
            Kind::Array
        } else {
            Kind::Object
        };
        let name = self.name()?;
        let own = self.slot()? == 1.0;
        let parent = match self.tape.get(self.pos) {
            Some(&-1.0) => {
                self.pos += 1;
                None
            }
            _ => {
                let name = self.name()?;
                let (own, root) = (self.slot()? == 1.0, self.slot()? == 1.0);
                Some(Parent { name, own, root })
            }
        };
        Ok((reference, kind, Prototype { name, own, parent }))
    }
}

/// One string taken from the text.
enum Piece<'t> {
    Str(&'t str),
    Units(&'t [u16]),
    /// The string ends with the first half of a surrogate pair whose second half begins the
    /// next string: a lone surrogate in each.
    Broken,
}

/// A position in the text, in UTF-16 code units and, for UTF-8 text, in bytes.
struct Cursor<'t> {
    text: Text<'t>,
    unit: usize,
    byte: usize,
    /// The whole UTF-8 text is ASCII: a string's length in bytes is its length in units.
    ascii: bool,
}

impl<'t> Cursor<'t> {
    fn new(text: Text<'t>) -> Cursor<'t> {
        let ascii = matches!(text, Text::Utf8(s) if s.is_ascii());
        Cursor {
            text,
            unit: 0,
            byte: 0,
            ascii,
        }
    }

    fn done(&self) -> bool {
        match self.text {
            Text::Utf8(s) => self.byte == s.len(),
            Text::Utf16(u) => self.unit == u.len(),
        }
    }

    /// The next string, `len` UTF-16 code units long.
    fn take(&mut self, len: u32) -> Result<Piece<'t>, Fail> {
        let len = len as usize;
        let short = Fail::Bug("text ended early");
        match self.text {
            Text::Utf16(units) => {
                let piece = units.get(self.unit..self.unit + len).ok_or(short)?;
                self.unit += len;
                Ok(Piece::Units(piece))
            }
            Text::Utf8(s) if self.ascii => {
                let piece = s.get(self.byte..self.byte + len).ok_or(short)?;
                self.byte += len;
                self.unit += len;
                Ok(Piece::Str(piece))
            }
            Text::Utf8(s) => {
                let rest = s.get(self.byte..).ok_or(short)?;
                // Most strings are ASCII even in text that is not: one unit per byte.
                if let Some(ascii) = rest.get(..len).filter(|p| p.is_ascii()) {
                    self.byte += len;
                    self.unit += len;
                    return Ok(Piece::Str(ascii));
                }
                let mut units = 0;
                let mut bytes = 0;
                for c in rest.chars() {
                    if units == len {
                        break;
                    }
                    let n = c.len_utf16();
                    if units + n > len {
                        return Ok(Piece::Broken);
                    }
                    units += n;
                    bytes += c.len_utf8();
                }
                if units != len {
                    return Err(Fail::Bug("text ended early"));
                }
                self.byte += bytes;
                self.unit += len;
                Ok(Piece::Str(&rest[..bytes]))
            }
        }
    }
}

#[cfg(test)]
mod tests;
