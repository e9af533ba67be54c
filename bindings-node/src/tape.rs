//! Reads the tape `gather.js` recorded into a core [`Value`], applying every rule.
//!
//! The tape only says what the JavaScript value was made of; whether that is acceptable, and
//! with which error, is decided here (with core's error constructors). Paths are built while
//! unwinding, as core's own parser does.

use crate::fail::Fail;
use crate::gather::Gathered;
use crate::js::{Handle, Js, JsResult};
use crate::realm::{self, Proto};
use actionseal_core::{string_from_utf16, utf16_to_wtf8, Error, Number, Object, Value};
use napi::sys::ValueType;
use std::borrow::Cow;

// Tags, as written by gather.js.
const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const NUMBER: u8 = 3;
const STRING: u8 = 4;
const ARRAY: u8 = 5;
const OBJECT: u8 = 6;
const OTHER: u8 = 7;
const HOLE: u8 = 8;
const DEEP: u8 = 9;
const FOREIGN: u8 = 10;
const HELD: u8 = 11;

// Container flags.
const TO_JSON: u32 = 1;
const SYMBOL_KEY: u32 = 2;

/// Most entries reserved up front; a count on the tape is checked only as it is read.
const MAX_RESERVE: usize = 4096;

/// All gathered text as UTF-8, when it has no lone surrogates, for strings to borrow from.
pub(crate) struct Utf8Text {
    utf8: Option<String>,
    /// Every code unit is ASCII, so a string's UTF-8 length is its length.
    ascii: bool,
}

impl Utf8Text {
    /// The length of the text in UTF-8 bytes, when it was transcoded.
    pub(crate) fn len(&self) -> usize {
        self.utf8.as_ref().map_or(0, String::len)
    }

    /// Transcodes the gathered text once, so that no string needs its own allocation.
    pub(crate) fn new(g: &Gathered<'_>) -> Utf8Text {
        let ascii = g.text.iter().all(|&u| u < 0x80);
        let bytes = if ascii {
            g.text.iter().map(|&u| u as u8).collect()
        } else {
            utf16_to_wtf8(&g.text)
        };
        Utf8Text {
            // Fails when some string has a lone surrogate; each is then decoded on its own,
            // and core reports the lone surrogate where it is.
            utf8: String::from_utf8(bytes).ok(),
            ascii,
        }
    }
}

/// Decodes one gathered value. The value borrows its strings from the [`Utf8Text`] (`'a`),
/// not from the tape (`'g`), so the tape can be released (and reused by the next walk) while
/// the value is in use.
pub(crate) struct Decoder<'g, 'a> {
    js: Js,
    g: &'g Gathered<'g>,
    pos: usize,
    text_pos: usize,
    utf8: Option<&'a str>,
    ascii: bool,
    byte_pos: usize,
    max_depth: usize,
    /// Classification of `protos[i]`, filled as needed.
    protos: Vec<Option<Proto>>,
    /// Other realms' prototypes already accepted for this call.
    foreign_plain: &'g [Handle],
    foreign_array: &'g [Handle],
    /// The member of the value being read that may be a held object (see [`Decoder::next`]).
    lift: Option<&'g str>,
    /// The held object found there.
    lifted: Option<Handle>,
}

impl<'g, 'a> Decoder<'g, 'a> {
    /// A decoder for `g`, which was gathered with `max_depth` and the given accepted
    /// prototypes of other realms.
    pub(crate) fn new(
        js: Js,
        g: &'g Gathered<'g>,
        utf8: &'a Utf8Text,
        max_depth: usize,
        foreign_plain: &'g [Handle],
        foreign_array: &'g [Handle],
    ) -> Decoder<'g, 'a> {
        Decoder {
            js,
            g,
            pos: 0,
            text_pos: 0,
            utf8: utf8.utf8.as_deref(),
            ascii: utf8.ascii,
            byte_pos: 0,
            max_depth,
            protos: Vec::new(),
            foreign_plain,
            foreign_array,
            lift: None,
            lifted: None,
        }
    }

    /// The next recorded value.
    ///
    /// With `lift`, the member `lift` of this value, when it is an object, may be a held
    /// object (one `gather` handed over as it is): it is then left out of the value and
    /// returned by [`Decoder::lifted`]. A held object anywhere else is refused as any other
    /// non-plain object is.
    pub(crate) fn next(&mut self, lift: Option<&'g str>) -> JsResult<Value<'a>> {
        self.lift = lift;
        let v = self.value(0);
        self.lift = None;
        v
    }

    /// Checks that the values read were all the tape holds.
    pub(crate) fn finish(&self) -> JsResult<()> {
        if self.pos != self.g.tape.len() || self.text_pos != self.g.text.len() {
            return Err(Fail::Internal("tape not used up"));
        }
        Ok(())
    }

    /// The held object taken out of a value by [`Decoder::next`], if any.
    pub(crate) fn lifted(&self) -> Option<Handle> {
        self.lifted
    }

    fn slot(&mut self) -> JsResult<f64> {
        let v = *self
            .g
            .tape
            .get(self.pos)
            .ok_or(Fail::Internal("tape ended early"))?;
        self.pos += 1;
        Ok(v)
    }

    /// A tag, count, length or index slot.
    fn int(&mut self) -> JsResult<u32> {
        let v = self.slot()?;
        // `as` saturates (NaN to 0), so the round trip holds only for a u32 value.
        let i = v as u32;
        if f64::from(i) == v {
            Ok(i)
        } else {
            Err(Fail::Internal("bad integer on the tape"))
        }
    }

    fn tag(&mut self) -> JsResult<u8> {
        u8::try_from(self.int()?).map_err(|_| Fail::Internal("bad tag on the tape"))
    }

    /// The next `len` code units of the text, as a string; core rejects a lone surrogate.
    fn text(&mut self, len: u32) -> JsResult<Cow<'a, str>> {
        let end = self.text_pos + len as usize;
        let units: &'g [u16] = self
            .g
            .text
            .get(self.text_pos..end)
            .ok_or(Fail::Internal("text ended early"))?;
        self.text_pos = end;
        if let Some(all) = self.utf8 {
            if let Some(n) = if self.ascii {
                Some(units.len())
            } else {
                utf8_len(units)
            } {
                let s = all
                    .get(self.byte_pos..self.byte_pos + n)
                    .ok_or(Fail::Internal("text offsets"))?;
                self.byte_pos += n;
                return Ok(Cow::Borrowed(s));
            }
        }
        match string_from_utf16(units) {
            Ok(s) if self.utf8.is_none() => Ok(Cow::Owned(s)),
            Ok(_) => Err(Fail::Internal("surrogate at a string's edge decoded")),
            Err(e) => Err(e.into()),
        }
    }

    /// Converts the value at the tape position, nested inside `depth` containers.
    fn value(&mut self, depth: usize) -> JsResult<Value<'a>> {
        match self.tag()? {
            NULL => Ok(Value::Null),
            FALSE => Ok(Value::Bool(false)),
            TRUE => Ok(Value::Bool(true)),
            NUMBER => Ok(Value::Number(Number::from_f64(self.slot()?)?)),
            STRING => {
                let len = self.int()?;
                Ok(Value::String(self.text(len)?))
            }
            OTHER => Err(self.other()),
            DEEP => Err(self.too_deep(depth)),
            FOREIGN => {
                let (proto, array) = (self.int()?, self.int()? != 0);
                Err(self.foreign(proto, array))
            }
            HELD => {
                let i = self.int()?;
                Err(self.held_error(i))
            }
            ARRAY => self.container(depth, true),
            OBJECT => self.container(depth, false),
            _ => Err(Fail::Internal("unexpected tag on the tape")),
        }
    }

    fn container(&mut self, depth: usize, array: bool) -> JsResult<Value<'a>> {
        let (proto, flags, len) = (self.int()?, self.int()?, self.int()?);
        let out = self.check_container(proto, flags, array).and_then(|()| {
            if array {
                self.array(len, depth + 1)
            } else {
                self.object(len, depth + 1)
            }
        });
        out.map_err(|f| match f {
            Fail::Cycle(at) if at == depth => Error::cyclic_value().into(),
            f => f,
        })
    }

    /// Rules for a container itself: a plain object or a real array, with no `toJSON`
    /// (which `JSON.stringify` would call instead of reading the data) and no symbol keys.
    fn check_container(&mut self, proto: u32, flags: u32, array: bool) -> JsResult<()> {
        let class = self.proto(proto)?;
        let ok = if array {
            matches!(class, Proto::Array | Proto::ForeignArray)
        } else {
            matches!(class, Proto::Plain | Proto::ForeignPlain)
        };
        if !ok {
            return Err(self.foreign(proto, array));
        }
        if flags & TO_JSON != 0 {
            return Err(Error::unsupported_type("object with a toJSON method").into());
        }
        if flags & SYMBOL_KEY != 0 {
            return Err(Error::non_string_key("Symbol").into());
        }
        Ok(())
    }

    fn array(&mut self, len: u32, depth: usize) -> JsResult<Value<'a>> {
        let mut items = Vec::with_capacity((len as usize).min(MAX_RESERVE));
        for i in 0..len {
            if self.g.tape.get(self.pos) == Some(&f64::from(HOLE)) {
                return Err(Error::sparse_array(i as usize).into());
            }
            items.push(self.value(depth).map_err(|f| f.in_index(i as usize))?);
        }
        Ok(Value::Array(items))
    }

    fn object(&mut self, count: u32, depth: usize) -> JsResult<Value<'a>> {
        let mut entries = Vec::with_capacity((count as usize).min(MAX_RESERVE));
        for _ in 0..count {
            let len = self.int()?;
            let key = self.text(len)?;
            // `depth` 1: members of the root object.
            if depth == 1
                && self.lift == Some(&*key)
                && self.g.tape.get(self.pos) == Some(&f64::from(HELD))
            {
                self.pos += 1;
                let i = self.int()?;
                self.lifted = Some(self.held(i)?);
                continue;
            }
            let value = self.value(depth).map_err(|f| f.in_key(&key))?;
            entries.push((key, value));
        }
        Ok(Value::Object(Object::from_entries(entries)?))
    }

    /// What `protos[i]` makes of an object.
    fn proto(&mut self, i: u32) -> JsResult<Proto> {
        let i = i as usize;
        match i {
            0 | 2 => return Ok(Proto::Plain),
            1 => return Ok(Proto::Array),
            _ => {}
        }
        if let Some(Some(p)) = self.protos.get(i) {
            return Ok(*p);
        }
        let handle = self.proto_handle(i as u32)?;
        let class = realm::classify(self.js, handle)?;
        // Another realm's prototype counts only once `host` has accepted it for this call
        // (and gathered again with it); until then it asks for that.
        let accepted = match class {
            Proto::ForeignPlain => self.foreign_plain,
            Proto::ForeignArray => self.foreign_array,
            _ => &[],
        };
        if matches!(class, Proto::ForeignPlain | Proto::ForeignArray)
            && !self.contains(accepted, handle)?
        {
            return Err(Fail::Regather {
                proto: handle,
                array: class == Proto::ForeignArray,
            });
        }
        if self.protos.len() <= i {
            self.protos.resize(i + 1, None);
        }
        self.protos[i] = Some(class);
        Ok(class)
    }

    fn proto_handle(&self, i: u32) -> JsResult<Handle> {
        let protos = self
            .g
            .protos
            .ok_or(Fail::Internal("no prototypes recorded"))?;
        self.js.element(protos, i)
    }

    /// `held[i]`.
    fn held(&self, i: u32) -> JsResult<Handle> {
        let held = self
            .g
            .held
            .ok_or(Fail::Internal("no held objects recorded"))?;
        self.js.element(held, i)
    }

    /// The error for a held object where only data may be: `unsupported_type`, named after
    /// its constructor (`Contract`).
    fn held_error(&self, i: u32) -> Fail {
        match self.held(i).and_then(|h| self.js.prototype(h)) {
            Ok(proto) => realm::unsupported(self.js, proto, "object"),
            Err(f) => f,
        }
    }

    /// `refs[i]`.
    fn reference(&self, i: u32) -> JsResult<Handle> {
        let refs = self.g.refs.ok_or(Fail::Internal("no values recorded"))?;
        self.js.element(refs, i)
    }

    fn contains(&self, list: &[Handle], v: Handle) -> JsResult<bool> {
        for &p in list {
            if self.js.same(p, v)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The error for an object or array whose prototype was not accepted.
    fn foreign(&mut self, proto: u32, array: bool) -> Fail {
        match self.proto(proto) {
            Ok(Proto::Plain) if !array => Fail::Internal("plain object recorded as foreign"),
            Ok(Proto::Array) if array => Fail::Internal("array recorded as foreign"),
            Ok(_) => match self.proto_handle(proto) {
                Ok(handle) => {
                    realm::unsupported(self.js, handle, if array { "array" } else { "object" })
                }
                Err(f) => f,
            },
            Err(f) => f,
        }
    }

    /// `unsupported_type` for `refs[0]`, a value that is neither an object nor a primitive
    /// JSON knows.
    fn other(&self) -> Fail {
        let js = self.js;
        let t = match self.reference(0).and_then(|v| js.type_of(v)) {
            Ok(t) => t,
            Err(f) => return f,
        };
        let name = match t {
            ValueType::napi_undefined => "undefined",
            ValueType::napi_symbol => "Symbol",
            ValueType::napi_function => "function",
            ValueType::napi_bigint => "BigInt",
            _ => "external value",
        };
        Error::unsupported_type(name).into()
    }

    /// The error for a container at the depth limit, at `depth`: a cycle if a container on
    /// its path (`refs`, outermost first, then the container) repeats an outer one (the
    /// first repeat is where the cycle closes), else `depth_limit_exceeded`.
    fn too_deep(&self, depth: usize) -> Fail {
        let js = self.js;
        let mut path = Vec::with_capacity(depth + 1);
        for i in 0..=depth {
            match u32::try_from(i)
                .map_err(|_| Fail::Internal("depth"))
                .and_then(|i| self.reference(i))
            {
                Ok(h) => path.push(h),
                Err(f) => return f,
            }
        }
        for j in 1..path.len() {
            for i in 0..j {
                match js.same(path[i], path[j]) {
                    Ok(true) if j == depth => return Error::cyclic_value().into(),
                    Ok(true) => return Fail::Cycle(j),
                    Ok(false) => {}
                    Err(f) => return f,
                }
            }
        }
        Error::depth_limit(self.max_depth).into()
    }
}

/// The UTF-8 length of a string's code units, taken from the whole text's UTF-8 (which
/// has no lone surrogate); `None` when the string starts with a low surrogate or ends with a
/// high one, that is when its surrogate pairs the whole text with a neighbour's.
fn utf8_len(units: &[u16]) -> Option<usize> {
    let is_high = |u: u16| (0xD800..0xDC00).contains(&u);
    let is_low = |u: u16| (0xDC00..0xE000).contains(&u);
    if units.first().is_some_and(|&u| is_low(u)) || units.last().is_some_and(|&u| is_high(u)) {
        return None;
    }
    Some(
        units
            .iter()
            .map(|&u| match u {
                0..=0x7F => 1,
                // Each half of a pair: four bytes for the pair.
                0x80..=0x7FF | 0xD800..=0xDFFF => 2,
                _ => 3,
            })
            .sum(),
    )
}

#[cfg(test)]
mod tests {
    use super::utf8_len;

    #[test]
    fn utf8_len_matches_utf8() {
        for s in [
            "",
            "abc",
            "\u{e9}",
            "\u{20ac}x",
            "a\u{1F600}b",
            "\u{1F600}\u{1F600}",
            "\u{FFFF}",
        ] {
            let units: Vec<u16> = s.encode_utf16().collect();
            assert_eq!(utf8_len(&units), Some(s.len()), "{s:?}");
        }
        assert_eq!(utf8_len(&[0x61, 0xD83D]), None);
        assert_eq!(utf8_len(&[0xDE00, 0x61]), None);
    }
}
