//! JavaScript values to core values, with the host rules of the Node package.
//!
//! Accepted: plain objects (prototype `Object.prototype` or `null`, of any realm; own
//! enumerable string keys only, getters run) and arrays, strings, finite numbers, booleans and
//! `null`. Everything else is an error whose text comes from core, with the JSON Pointer of
//! the value. An exception from a getter or Proxy trap propagates unchanged.
//!
//! A call into JavaScript costs far more than the Rust around it, so `js/host.js` encodes a
//! whole container per call: the kinds of its members and their strings and numbers, as a
//! tape of records that [`Tape`] reads. Rust then applies every rule. Each tape is copied
//! into an arena that lives as long as the resulting [`Value`], whose strings borrow from it
//! instead of being allocated one by one. Cycles are looked for only once the depth limit is
//! reached (see `fail.rs`).

use crate::fail::{Fail, Trail};
use crate::js::{self, shape, tag};
use actionseal_core::{Contract, Error, Number, Object, Value};
use bumpalo::Bump;
use std::borrow::Cow;
use wasm_bindgen::{JsCast, JsValue};

/// Bytes of scratch buffer to start with; a larger container grows it.
const INITIAL_BUFFER: usize = 4096;

/// A scratch buffer larger than this is not kept for the next call.
const KEEP_MAX: usize = 1 << 16;

thread_local! {
    /// The scratch buffer kept between calls, so that a call does not allocate and clear one.
    /// A walker takes it and puts it back when dropped; a walker started by a getter during
    /// another walk (re-entry) finds none and makes its own.
    static SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Takes a class instance as a contract, if it is a `Contract`; an exception from it is
/// [`Fail::Thrown`].
pub(crate) type Lend = fn(&JsValue) -> Result<Option<Contract>, Fail>;

/// Walks JavaScript values into core [`Value`]s whose strings live in `arena`.
pub(crate) struct Walker<'a> {
    max_depth: usize,
    arena: &'a Bump,
    /// Where the JS side writes a tape; its length is its capacity.
    scratch: Vec<u8>,
    /// Where the JS side writes a tape's length.
    slot: Box<f64>,
    /// The root member that may be a `Contract` instance (see [`Walker::root_holding`]).
    hold: Option<(&'static str, Lend)>,
    /// The contract found there.
    held: Option<Contract>,
    /// The root member whose object is kept (see [`Walker::root_capturing`]).
    capture: Option<&'static str>,
    /// That object.
    captured: Option<JsValue>,
}

impl Drop for Walker<'_> {
    fn drop(&mut self) {
        if self.scratch.len() <= KEEP_MAX {
            SCRATCH.set(std::mem::take(&mut self.scratch));
        }
    }
}

/// A value read from a tape: a finished leaf, or an object still to be converted.
enum Item<'a> {
    Leaf(Value<'a>),
    Container(JsValue),
    Hole,
}

impl<'a> Walker<'a> {
    /// A walker enforcing `max_depth` levels of arrays and objects.
    pub(crate) fn new(max_depth: usize, arena: &'a Bump) -> Walker<'a> {
        let mut scratch = SCRATCH.take();
        if scratch.len() < INITIAL_BUFFER {
            scratch.resize(INITIAL_BUFFER, 0);
        }
        Walker {
            max_depth,
            arena,
            scratch,
            slot: Box::new(0.0),
            hold: None,
            held: None,
            capture: None,
            captured: None,
        }
    }

    /// Converts a whole value; a failure becomes the value to throw.
    pub(crate) fn read(&mut self, value: &JsValue) -> Result<Value<'a>, JsValue> {
        self.root(value)
            .map_err(|f| f.into_js(self.max_depth, None))
    }

    /// As [`Walker::read`], for a value that the caller's errors place at member `key` (the
    /// arguments of an action are under `/args`), so its conversion errors are too.
    pub(crate) fn read_in(&mut self, value: &JsValue, key: &str) -> Result<Value<'a>, JsValue> {
        self.root(value)
            .map_err(|f| f.into_js(self.max_depth, Some(key)))
    }

    /// Converts a value and returns beside it the JavaScript object that was its root member
    /// `key`, if that member was an object: `check` converts the presented action only once
    /// when it is the very object the approval froze.
    pub(crate) fn root_capturing(
        &mut self,
        value: &JsValue,
        key: &'static str,
    ) -> Result<(Value<'a>, Option<JsValue>), JsValue> {
        (self.capture, self.captured) = (Some(key), None);
        let root = self.read(value);
        self.capture = None;
        root.map(|v| (v, self.captured.take()))
    }

    /// Converts a value whose root member `key` may be a `Contract` instance rather than a
    /// contract document: such a member is taken by `lend` and left out of the value, and
    /// the contract is returned beside it. Any other class instance there is refused as
    /// everywhere else, and the members are read in the same order either way, so the first
    /// problem is the one reported.
    pub(crate) fn root_holding(
        &mut self,
        value: &JsValue,
        key: &'static str,
        lend: Lend,
    ) -> Result<(Value<'a>, Option<Contract>), JsValue> {
        (self.hold, self.held) = (Some((key, lend)), None);
        let root = self.read(value);
        self.hold = None;
        root.map(|v| (v, self.held.take()))
    }

    /// Converts a whole value.
    pub(crate) fn root(&mut self, value: &JsValue) -> Result<Value<'a>, Fail> {
        // Most values are objects, which need no tape of their own.
        if value.is_object() {
            return self.container(value.clone(), 0);
        }
        let (tape, children) = self.encode(|p, c, s| js::encode_value(value, p, c, s))?;
        match Tape::new(tape).item(&children, &mut 0)? {
            Item::Leaf(v) => Ok(v),
            Item::Container(v) => self.container(v, 0),
            Item::Hole => Err(Tape::corrupt()),
        }
    }

    /// The bytes of a string for the JSON parser (UTF-8, with lone surrogates in their
    /// three-byte form, which the parser reports); `None` when `value` is not a string.
    pub(crate) fn text(&mut self, value: &JsValue) -> Result<Option<Vec<u8>>, Fail> {
        let len = self.fill(|p, c, s| js::encode_value(value, p, c, s))?.0;
        let tape = self.scratch.get(..len).ok_or_else(Tape::corrupt)?;
        let Ok(string_len) = usize::try_from(Tape::new(tape).tag()?) else {
            return Ok(None);
        };
        // The tape is the string's record: its tag, then exactly its bytes.
        match tape.get(4..) {
            Some(bytes) if bytes.len() == string_len => Ok(Some(bytes.to_vec())),
            _ => Err(Tape::corrupt()),
        }
    }

    /// Runs an encoding call with the scratch buffer, making room and fetching the tape
    /// again when it did not fit. Returns the tape's length and the call's `children`.
    fn fill(&mut self, f: impl FnOnce(u32, u32, u32) -> JsValue) -> Result<(usize, JsValue), Fail> {
        let slot = &mut *self.slot as *mut f64 as usize as u32;
        let buf = &mut self.scratch;
        let children = f(buf.as_mut_ptr() as usize as u32, buf.len() as u32, slot);
        let len = *self.slot;
        if len < 0.0 {
            return Err(Fail::Thrown(js::take_thrown()));
        }
        let len = len as usize;
        if len > buf.len() {
            buf.resize(len, 0);
            js::take(buf.as_mut_ptr() as usize as u32);
        }
        Ok((len, children))
    }

    /// As [`Walker::fill`], and copies the tape into the arena.
    fn encode(
        &mut self,
        f: impl FnOnce(u32, u32, u32) -> JsValue,
    ) -> Result<(&'a [u8], JsValue), Fail> {
        let (len, children) = self.fill(f)?;
        let tape = self.scratch.get(..len).unwrap_or_default();
        Ok((self.arena.alloc_slice_copy(tape), children))
    }

    fn container(&mut self, v: JsValue, depth: usize) -> Result<Value<'a>, Fail> {
        if depth >= self.max_depth {
            return Err(Fail::Deep(Box::new(Trail::new(v))));
        }
        let bits = js::shape(&v);
        if bits & shape::THREW != 0 {
            return Err(Fail::Thrown(js::take_thrown()));
        }
        let is_array = bits & shape::ARRAY != 0;
        let allowed = if is_array {
            shape::PROTO_ARRAY | shape::PROTO_OTHER_ARRAY
        } else {
            shape::PROTO_OBJECT | shape::PROTO_NULL | shape::PROTO_OTHER_OBJECT
        };
        if bits & allowed == 0 {
            let name = js::class_name(&v);
            let name = if name.is_empty() { "object" } else { &name };
            return Err(Error::unsupported_type(name).into());
        }
        // `JSON.stringify` would call it instead of reading the data, so such a value has no
        // single JSON meaning.
        if bits & shape::TO_JSON != 0 {
            return Err(Error::unsupported_type("object with a toJSON method").into());
        }
        if !is_array && bits & shape::SYMBOL_KEY != 0 {
            return Err(Error::non_string_key("Symbol").into());
        }
        if is_array {
            let (tape, children) = self.encode(|p, c, s| js::encode_elements(&v, p, c, s))?;
            self.array(&v, tape, &children, depth + 1)
        } else {
            let (tape, children) = self.encode(|p, c, s| js::encode_members(&v, p, c, s))?;
            self.object(&v, tape, &children, depth + 1)
        }
    }

    fn array(
        &mut self,
        array: &JsValue,
        tape: &'a [u8],
        children: &JsValue,
        depth: usize,
    ) -> Result<Value<'a>, Fail> {
        let mut tape = Tape::new(tape);
        let mut next_child = 0;
        // Each element takes at least 4 bytes of tape, which bounds what the count may reserve.
        let mut items = Vec::with_capacity(tape.count(4)?);
        while !tape.done() {
            let i = items.len() as u32;
            let item = match tape.item(children, &mut next_child) {
                Ok(Item::Leaf(v)) => Ok(v),
                Ok(Item::Container(v)) => self.container(v, depth),
                Ok(Item::Hole) => return Err(Error::sparse_array(i as usize).into()),
                Err(e) => Err(e),
            };
            items.push(item.map_err(|e| e.in_index(i, array))?);
        }
        Ok(Value::Array(items))
    }

    fn object(
        &mut self,
        object: &JsValue,
        tape: &'a [u8],
        children: &JsValue,
        depth: usize,
    ) -> Result<Value<'a>, Fail> {
        let mut tape = Tape::new(tape);
        let mut next_child = 0;
        let mut entries = Vec::with_capacity(tape.count(8)?);
        while !tape.done() {
            // Object.keys gives only strings, which the tape cannot mistake for anything else.
            let key = match tape.item(children, &mut next_child)? {
                Item::Leaf(Value::String(key)) => key,
                _ => return Err(Tape::corrupt()),
            };
            let value = match tape.item(children, &mut next_child) {
                Ok(Item::Leaf(v)) => Ok(v),
                Ok(Item::Container(v)) => {
                    if depth == 1 {
                        if self.capture.is_some_and(|k| k == key) {
                            self.captured = Some(v.clone());
                        }
                        if self.hold.is_some_and(|(k, _)| k == key) {
                            match self.take_held(&v) {
                                Ok(true) => continue,
                                Ok(false) => {}
                                Err(e) => return Err(e.in_key(key.into_owned(), object)),
                            }
                        }
                    }
                    self.container(v, depth)
                }
                Ok(Item::Hole) => Err(Tape::corrupt()),
                Err(e) => Err(e),
            };
            match value {
                Ok(v) => entries.push((key, v)),
                Err(e) => return Err(e.in_key(key.into_owned(), object)),
            }
        }
        Ok(Value::Object(Object::from_entries(entries)?))
    }
}

impl Walker<'_> {
    /// Whether the held member `v` is a `Contract` instance, which is then kept. Plain data
    /// is not asked (no user code runs for a contract document), and is converted as usual.
    fn take_held(&mut self, v: &JsValue) -> Result<bool, Fail> {
        let Some((_, lend)) = self.hold else {
            return Ok(false);
        };
        if is_plain(js::shape(v))? {
            return Ok(false);
        }
        match lend(v)? {
            Some(contract) => {
                self.held = Some(contract);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

/// Whether `shape` bits describe plain data (an object or array of any realm), or the
/// exception that reading them threw.
pub(crate) fn is_plain(bits: u32) -> Result<bool, Fail> {
    if bits & shape::THREW != 0 {
        return Err(Fail::Thrown(js::take_thrown()));
    }
    let plain = shape::PROTO_OBJECT
        | shape::PROTO_NULL
        | shape::PROTO_OTHER_OBJECT
        | shape::PROTO_ARRAY
        | shape::PROTO_OTHER_ARRAY;
    Ok(bits & plain != 0)
}

/// Reads the records of a tape written by `js/host.js`.
struct Tape<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Tape<'a> {
    fn new(bytes: &'a [u8]) -> Tape<'a> {
        Tape { bytes, pos: 0 }
    }

    fn done(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], Fail> {
        let end = self.pos.saturating_add(N);
        let chunk = self.bytes.get(self.pos..end).ok_or_else(Tape::corrupt)?;
        self.pos = end;
        chunk.try_into().map_err(|_| Tape::corrupt())
    }

    /// The count that starts a container's tape, as a capacity: at most what the rest of
    /// the tape can hold at `min_size` bytes per item.
    fn count(&mut self, min_size: usize) -> Result<usize, Fail> {
        let n = usize::try_from(self.tag()?).map_err(|_| Tape::corrupt())?;
        Ok(n.min((self.bytes.len() - self.pos) / min_size))
    }

    fn tag(&mut self) -> Result<i32, Fail> {
        Ok(i32::from_le_bytes(self.take()?))
    }

    /// The next record. An `OBJECT` is the next entry of `children`.
    fn item(&mut self, children: &JsValue, next_child: &mut u32) -> Result<Item<'a>, Fail> {
        let t = self.tag()?;
        let leaf = match t {
            0.. => {
                let end = self.pos.saturating_add(t as usize);
                let bytes = self.bytes.get(self.pos..end).ok_or_else(Tape::corrupt)?;
                self.pos = end;
                // The JS encoder writes a lone surrogate as a three-byte sequence that is
                // not UTF-8, so invalid UTF-8 means exactly that.
                let s = std::str::from_utf8(bytes).map_err(|_| Error::lone_surrogate())?;
                Value::String(Cow::Borrowed(s))
            }
            tag::NUMBER => Value::Number(Number::from_f64(f64::from_le_bytes(self.take()?))?),
            tag::FALSE => Value::Bool(false),
            tag::TRUE => Value::Bool(true),
            tag::NULL => Value::Null,
            tag::OBJECT if !children.is_null() => {
                let child = children.unchecked_ref::<js_sys::Array>().get(*next_child);
                *next_child += 1;
                return Ok(Item::Container(child));
            }
            tag::HOLE => return Ok(Item::Hole),
            tag::UNDEFINED => return Err(Error::unsupported_type("undefined").into()),
            tag::BIGINT => return Err(Error::unsupported_type("BigInt").into()),
            tag::SYMBOL => return Err(Error::unsupported_type("Symbol").into()),
            tag::FUNCTION => return Err(Error::unsupported_type("function").into()),
            _ => return Err(Tape::corrupt()),
        };
        Ok(Item::Leaf(leaf))
    }

    /// A tape that does not follow the format: a bug, reported as an exception rather than
    /// a coded error, since it says nothing about the caller's value.
    fn corrupt() -> Fail {
        Fail::Thrown(
            js_sys::Error::new("actionseal-wasm: internal error: malformed value tape").into(),
        )
    }
}
