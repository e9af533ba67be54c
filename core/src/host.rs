//! The host-value rulebook: what a value of a host language may be, and every error about one.
//!
//! A binding walks its runtime's values (Python objects, JavaScript values) and reports what it
//! finds to a [`Builder`]: scalars, the facts of each container ([`Container`]: its kind, its
//! class or prototype, a `toJSON` method, symbol keys, its identity), keys, holes, and values
//! that are not data at all ([`HostType`]). The builder decides, and builds the core [`Value`]:
//!
//! - **Data.** `null`, booleans, strings of Unicode scalar values, finite numbers (host
//!   integers under the profile's rule for integers, see [`crate::Number::from_i64`]),
//!   arrays and objects with string keys. Anything else is [`Code::UnsupportedType`], named
//!   by [`HostType::name`].
//! - **Containers.** An object is accepted when its class is the host's plain mapping
//!   ([`Class::Plain`]: a JavaScript object whose prototype is `Object.prototype` or `null`, a
//!   Python `dict`), or another realm's `Object.prototype` ([`Prototype::accepts`]); an
//!   array likewise. A container with a `toJSON` method is refused (`JSON.stringify` would
//!   call it instead of reading the data), as is one with symbol keys
//!   ([`Code::NonStringKey`]). What is not data is refused where it is, at any depth.
//! - **Depth and cycles.** Containers nest at most `max_depth` deep
//!   ([`Code::DepthLimitExceeded`]). A container that is one of the containers it is inside
//!   is [`Code::CyclicValue`], reported where it first contains itself; the cycle is checked
//!   before the depth, so a cycle is never reported as depth. Bindings give each container an
//!   identity token; two open containers with the same token are the same object.
//! - **Holes.** An array with a missing element is [`Code::SparseArray`] at the array.
//! - **Paths.** Every error carries the JSON Pointer of the value concerned; an error that
//!   belongs to a container (a hole, a bad key, a `toJSON` method, symbol keys) carries the
//!   container's pointer. The first problem met in the walk's order is the one reported.
//!
//! Arguments that are not values to convert (JSON text, digests, options) have their rules
//! here too: [`json_text`], [`digest_argument`], [`options`] and [`no_options`]; so has the
//! one argument that holds several approvals ([`approval_set`]).

use crate::error::{Code, Error};
use crate::json::number::Number;
use crate::json::options::{Options, Profile};
use crate::json::value::{Object, Value};
use std::borrow::Cow;

/// What a host value is, when it is not data: the name it has in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostType<'n> {
    /// JavaScript `undefined`.
    Undefined,
    /// JavaScript `null` where a value is not data (an argument).
    Null,
    /// A boolean where a value is not data (an argument).
    Boolean,
    /// A number where a value is not data (an argument).
    Number,
    /// A string where a value is not data (an argument).
    String,
    /// A JavaScript BigInt.
    BigInt,
    /// A JavaScript Symbol.
    Symbol,
    /// A JavaScript function.
    Function,
    /// An object of the class the host names (`Date`, `Map`, a class name; a Python type name
    /// such as `bytes` or `Decimal`); `None` when it has no name.
    Object(Option<&'n str>),
    /// A JavaScript array that is not plain data (an `Array` subclass without a name).
    Array,
}

impl HostType<'_> {
    /// The name messages use.
    pub fn name(&self) -> &str {
        match self {
            HostType::Undefined => "undefined",
            HostType::Null => "null",
            HostType::Boolean => "boolean",
            HostType::Number => "number",
            HostType::String => "string",
            HostType::BigInt => "BigInt",
            HostType::Symbol => "Symbol",
            HostType::Function => "function",
            HostType::Object(Some(name)) if !name.is_empty() => name,
            HostType::Object(_) => "object",
            HostType::Array => "array",
        }
    }
}

/// Whether a container is an object (a mapping) or an array (a sequence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A JavaScript object, a Python `dict`.
    Object,
    /// A JavaScript array, a Python `list` or `tuple`.
    Array,
}

/// What a JavaScript prototype other than this realm's `Object.prototype`, `Array.prototype`
/// or `null` is, as facts the walker reads from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prototype<'n> {
    /// `proto.constructor.name`, when `proto.constructor` is a function.
    pub name: Option<&'n str>,
    /// Whether `proto.constructor.prototype === proto` (the prototype belongs to its
    /// constructor, as a built-in's does).
    pub own: bool,
    /// The same facts about `Object.getPrototypeOf(proto)`; `None` when that is `null`.
    pub parent: Option<Parent<'n>>,
}

/// Facts about the prototype of a [`Prototype`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parent<'n> {
    /// As [`Prototype::name`].
    pub name: Option<&'n str>,
    /// As [`Prototype::own`].
    pub own: bool,
    /// Whether its own prototype is `null`.
    pub root: bool,
}

impl Prototype<'_> {
    /// Whether a container of `kind` with this prototype is plain data: another realm's
    /// (a `vm` context's, an iframe's) `Object.prototype` for an object, its
    /// `Array.prototype` for an array. Such a prototype is the `prototype` of a function
    /// named `Object` and has no prototype itself; an `Array.prototype` belongs to a function
    /// named `Array` and inherits from such an `Object.prototype`.
    pub fn accepts(&self, kind: Kind) -> bool {
        match kind {
            Kind::Object => self.own && self.name == Some("Object") && self.parent.is_none(),
            Kind::Array => {
                self.own
                    && self.name == Some("Array")
                    && self
                        .parent
                        .is_some_and(|p| p.own && p.root && p.name == Some("Object"))
            }
        }
    }

    /// How a container of `kind` with this prototype is named when it is refused.
    pub fn host_type(&self, kind: Kind) -> HostType<'_> {
        match (self.name, kind) {
            (Some(name), _) if !name.is_empty() => HostType::Object(Some(name)),
            (_, Kind::Object) => HostType::Object(None),
            (_, Kind::Array) => HostType::Array,
        }
    }
}

/// The class of a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class<'n> {
    /// The host's own plain kind: a JavaScript object with prototype `Object.prototype` or
    /// `null`, or an array with `Array.prototype`; a Python `dict`, `list` or `tuple` (or a
    /// subclass, read as its built-in data without calling any method).
    Plain,
    /// A JavaScript object or array with some other prototype.
    Prototype(Prototype<'n>),
}

/// The facts of a container, reported when the walk reaches it.
#[derive(Clone, Copy, Debug)]
pub struct Container<'n> {
    /// Object or array.
    pub kind: Kind,
    /// Its class or prototype.
    pub class: Class<'n>,
    /// It has a callable `toJSON` (own or inherited, enumerable or not).
    pub to_json: bool,
    /// It has an own enumerable symbol-keyed property.
    pub symbol_keys: bool,
    /// Identity token: two open containers with the same non-zero token are the same
    /// object. `0` means unknown.
    pub identity: usize,
    /// How many members or elements the binding expects to report (a capacity hint).
    pub len: usize,
}

impl Container<'static> {
    /// A plain container with no notable facts.
    pub fn plain(kind: Kind, identity: usize, len: usize) -> Container<'static> {
        Container {
            kind,
            class: Class::Plain,
            to_json: false,
            symbol_keys: false,
            identity,
            len,
        }
    }
}

/// Why a walk stopped.
#[derive(Debug)]
pub enum Stop {
    /// The value is refused: the error to report, with its path.
    Refused(Error),
    /// The binding called the builder out of order (a bug in the binding, not the caller's
    /// fault): what went wrong.
    Misuse(&'static str),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Refused(e)
    }
}

/// Result of a builder step.
pub type Step<T = ()> = std::result::Result<T, Stop>;

/// An open container, as the rules see it: its identity and where the walk is in it.
struct Frame {
    identity: usize,
    kind: Kind,
    /// Members or elements reported so far.
    count: usize,
    /// The key of the member being reported has been given (objects; the output keeps it).
    keyed: bool,
}

/// Most members reserved up front from a binding's count, which is only a hint.
const MAX_RESERVE: usize = 4096;

/// What a [`Builder`] makes of the data it accepts: a [`Value`] ([`Values`]), or the
/// canonical text directly ([`Canonical`], for the functions that need no more), or only
/// whether it is a value core already holds ([`Same`]).
pub trait Output<'a> {
    /// What [`Builder::finish`] returns.
    type Done;
    /// A container begins, with about `len` members or elements.
    fn open(&mut self, kind: Kind, len: usize);
    /// The key of the next member of the innermost object.
    fn key(&mut self, key: Cow<'a, str>);
    /// The key of the member being reported in the open container at `depth` (0 the
    /// outermost), for an error's path.
    fn current_key(&self, depth: usize) -> Option<&str>;
    /// A scalar.
    fn scalar(&mut self, v: Value<'a>);
    /// A string: [`Output::scalar`] unless an output writes strings without building a value.
    #[inline]
    fn string(&mut self, s: Cow<'a, str>) {
        self.scalar(Value::String(s));
    }
    /// A number: [`Output::scalar`] unless an output writes numbers without building a value.
    #[inline]
    fn number(&mut self, n: Number) {
        self.scalar(Value::Number(n));
    }
    /// The innermost container ends; a duplicate key (host keys with the same text) is
    /// [`Code::DuplicateKey`] with the key's path under the object.
    fn close(&mut self) -> Result<(), Error>;
    /// The value reported.
    fn finish(self) -> Option<Self::Done>;
}

/// Builds a value from the facts a binding reports, applying every rule (see the module
/// documentation): into a [`Value`] by default, or any [`Output`]. Strings borrow for `'a`
/// from wherever the binding keeps them.
pub struct Builder<'a, O: Output<'a> = Values<'a>> {
    /// Strings borrow for `'a`, through the output.
    _borrows: std::marker::PhantomData<&'a str>,
    max_depth: usize,
    profile: Profile,
    frames: Vec<Frame>,
    out: O,
    /// A whole value has been reported.
    complete: bool,
}

impl<'a> Builder<'a> {
    /// A builder of a [`Value`] under `options`' depth limit and number profile.
    pub fn new(options: &Options) -> Builder<'a> {
        Builder::with_output(
            options,
            Values {
                open: Vec::with_capacity(8),
                root: None,
            },
        )
    }
}

impl<'a> Builder<'a, Canonical<'a>> {
    /// A builder of the canonical text of the value, under `options`.
    pub fn canonical(options: &Options, capacity: usize) -> Builder<'a, Canonical<'a>> {
        Builder::with_output(options, Canonical::with_capacity(capacity))
    }

    /// [`Builder::canonical`], writing into `text` (emptied first).
    pub fn canonical_into(options: &Options, text: String) -> Builder<'a, Canonical<'a>> {
        Builder::with_output(options, Canonical::into_buffer(text))
    }
}

impl<'a, O: Output<'a>> Builder<'a, O> {
    /// A builder into `out`, under `options`' depth limit and number profile.
    pub fn with_output(options: &Options, out: O) -> Builder<'a, O> {
        Builder {
            _borrows: std::marker::PhantomData,
            max_depth: options.max_depth,
            profile: options.profile,
            // Most values nest a few levels: one allocation for them.
            frames: Vec::with_capacity(8),
            out,
            complete: false,
        }
    }

    /// How many containers are open.
    #[inline]
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    /// The limit on [`Builder::depth`].
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// A container begins at the current position; its members or elements follow, then
    /// [`Builder::close`].
    pub fn open(&mut self, c: Container<'_>) -> Step {
        // What is not data is refused where it is, whatever its depth.
        if let Class::Prototype(p) = c.class {
            if !p.accepts(c.kind) {
                return Err(self.refuse(p.host_type(c.kind)).into());
            }
        }
        // `JSON.stringify` would call `toJSON` instead of reading the data.
        if c.to_json {
            return Err(self
                .here(Error::unsupported_type("object with a toJSON method"))
                .into());
        }
        if c.symbol_keys {
            return Err(self.here(Error::non_string_key("Symbol")).into());
        }
        // A cycle nests without end: checked first, so it is never reported as depth.
        if c.identity != 0 && self.frames.iter().any(|f| f.identity == c.identity) {
            return Err(self.here(Error::cyclic_value()).into());
        }
        if self.frames.len() >= self.max_depth {
            return Err(self.here(Error::depth_limit(self.max_depth)).into());
        }
        self.value_starts()?;
        self.out.open(c.kind, c.len.min(MAX_RESERVE));
        self.frames.push(Frame {
            identity: c.identity,
            kind: c.kind,
            count: 0,
            keyed: false,
        });
        Ok(())
    }

    /// The key of the next member of the open object.
    #[inline]
    pub fn key(&mut self, key: Cow<'a, str>) -> Step {
        match self.frames.last_mut() {
            Some(
                f @ Frame {
                    kind: Kind::Object,
                    keyed: false,
                    ..
                },
            ) => {
                f.keyed = true;
                self.out.key(key);
                Ok(())
            }
            _ => Err(Stop::Misuse(
                "a key outside an object, or two keys in a row",
            )),
        }
    }

    /// The key of the next member, as UTF-16 code units; an unpaired surrogate is
    /// [`Code::LoneSurrogate`] at the object (a key that cannot be named cannot be in a path).
    pub fn key_utf16(&mut self, units: &[u16]) -> Step {
        match crate::string_from_utf16(units) {
            Ok(key) => self.key(Cow::Owned(key)),
            Err(e) => Err(self.in_container(e).into()),
        }
    }

    /// A key that is not a string (a Python `int`, `None`, `bytes`): [`Code::NonStringKey`]
    /// at the object.
    pub fn non_string_key(&self, key: HostType<'_>) -> Stop {
        self.in_container(Error::non_string_key(key.name())).into()
    }

    /// A string key with an unpaired surrogate, found by the host: at the object.
    pub fn lone_surrogate_key(&self) -> Stop {
        self.in_container(Error::lone_surrogate()).into()
    }

    /// The array's next element is missing: [`Code::SparseArray`] at the array.
    pub fn hole(&self) -> Stop {
        match self.frames.last() {
            Some(f) if f.kind == Kind::Array => {
                self.in_container(Error::sparse_array(f.count)).into()
            }
            _ => Stop::Misuse("a hole outside an array"),
        }
    }

    /// A value at the current position that is not data: [`Code::UnsupportedType`].
    pub fn unsupported(&self, t: HostType<'_>) -> Stop {
        self.refuse(t).into()
    }

    /// A string with an unpaired surrogate, found by the host, at the current position.
    pub fn lone_surrogate(&self) -> Stop {
        self.here(Error::lone_surrogate()).into()
    }

    /// An integer too long for the host to write out in decimal (far beyond any double):
    /// [`Code::NumberOverflow`] at the current position.
    pub fn integer_too_long(&self) -> Stop {
        self.here(Error::number_overflow(
            "an integer with more digits than the host converts to text",
        ))
        .into()
    }

    /// `null`.
    #[inline]
    pub fn null(&mut self) -> Step {
        self.put(Value::Null)
    }

    /// A boolean.
    #[inline]
    pub fn boolean(&mut self, b: bool) -> Step {
        self.put(Value::Bool(b))
    }

    /// A string.
    #[inline]
    pub fn string(&mut self, s: Cow<'a, str>) -> Step {
        self.value_starts()?;
        self.out.string(s);
        self.value_ends();
        Ok(())
    }

    /// A string as UTF-16 code units; an unpaired surrogate is [`Code::LoneSurrogate`].
    pub fn string_utf16(&mut self, units: &[u16]) -> Step {
        match crate::string_from_utf16(units) {
            Ok(s) => self.string(Cow::Owned(s)),
            Err(e) => Err(self.here(e).into()),
        }
    }

    /// A double (a JavaScript number, a Python `float`); NaN and the infinities are
    /// [`Code::NonFiniteNumber`].
    #[inline]
    pub fn double(&mut self, f: f64) -> Step {
        match Number::from_f64(f) {
            Ok(n) => self.number(n),
            Err(e) => Err(self.here(e).into()),
        }
    }

    /// A host integer, under the profile's rule for integers.
    #[inline]
    pub fn integer(&mut self, i: i64) -> Step {
        match Number::from_i64(i, self.profile) {
            Ok(n) => self.number(n),
            Err(e) => Err(self.here(e).into()),
        }
    }

    /// A host integer beyond 64 bits, under the profile's rule for integers.
    pub fn integer_wide(&mut self, i: i128) -> Step {
        match Number::from_i128(i, self.profile) {
            Ok(n) => self.number(n),
            Err(e) => Err(self.here(e).into()),
        }
    }

    /// A host integer beyond 128 bits, as its decimal text, under the profile's rule.
    pub fn integer_text(&mut self, digits: &str) -> Step {
        match Number::from_text(digits, self.profile) {
            Ok(n) => self.number(n),
            Err(e) => Err(self.here(e).into()),
        }
    }

    /// The open container ends.
    pub fn close(&mut self) -> Step {
        match self.frames.last() {
            None => return Err(Stop::Misuse("close without a container")),
            Some(Frame { keyed: true, .. }) => {
                return Err(Stop::Misuse("an object closed after a key without a value"))
            }
            Some(_) => {}
        }
        self.frames.pop();
        // Two host keys with the same text (Python `str` subclasses that compare unequal):
        // the error's path is the key's, under this object.
        self.out.close().map_err(|e| self.here(e))?;
        self.value_ends();
        Ok(())
    }

    /// The value reported, once every container is closed.
    pub fn finish(self) -> Step<O::Done> {
        if !self.frames.is_empty() || !self.complete {
            return Err(Stop::Misuse("the walk ended before the value was complete"));
        }
        self.out
            .finish()
            .ok_or(Stop::Misuse("the walk ended before the value was complete"))
    }

    /// A number, written without a value when the output can.
    #[inline]
    fn number(&mut self, n: Number) -> Step {
        self.value_starts()?;
        self.out.number(n);
        self.value_ends();
        Ok(())
    }

    #[inline(always)]
    fn put(&mut self, v: Value<'a>) -> Step {
        self.value_starts()?;
        self.out.scalar(v);
        self.value_ends();
        Ok(())
    }

    /// A value may begin here: a member with its key, an element, or the root.
    #[inline(always)]
    fn value_starts(&self) -> Step {
        match self.frames.last() {
            None if self.complete => Err(Stop::Misuse("a second value after the root")),
            Some(Frame {
                kind: Kind::Object,
                keyed: false,
                ..
            }) => Err(Stop::Misuse("a member value without a key")),
            _ => Ok(()),
        }
    }

    /// A value ended: the next member or element, or the whole value.
    #[inline(always)]
    fn value_ends(&mut self) {
        match self.frames.last_mut() {
            Some(f) => {
                f.count += 1;
                f.keyed = false;
            }
            None => self.complete = true,
        }
    }

    fn refuse(&self, t: HostType<'_>) -> Error {
        self.here(Error::unsupported_type(t.name()))
    }

    /// `e`, placed at the current position (the member or element being reported).
    fn here(&self, e: Error) -> Error {
        self.locate(e, self.frames.len())
    }

    /// `e`, placed at the innermost open container.
    fn in_container(&self, e: Error) -> Error {
        self.locate(e, self.frames.len().saturating_sub(1))
    }

    /// `e` with the positions of the outermost `n` open containers before its path.
    fn locate(&self, e: Error, n: usize) -> Error {
        self.frames[..n]
            .iter()
            .enumerate()
            .rev()
            .fold(e, |e, (depth, f)| match (f.kind, f.keyed) {
                (Kind::Array, _) => e.in_index(f.count),
                (Kind::Object, true) => match self.out.current_key(depth) {
                    Some(k) => e.in_key(k),
                    None => e,
                },
                // Between members: the object itself.
                (Kind::Object, false) => e,
            })
    }
}

/// The [`Output`] that builds a [`Value`].
#[derive(Default)]
pub struct Values<'a> {
    /// The containers being built, innermost last.
    open: Vec<Partial<'a>>,
    root: Option<Value<'a>>,
}

enum Partial<'a> {
    /// Members so far; the last awaits its value (a placeholder `null`) after a key.
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
    Array(Vec<Value<'a>>),
}

impl<'a> Values<'a> {
    #[inline(always)]
    fn place(&mut self, v: Value<'a>) {
        match self.open.last_mut() {
            None => self.root = Some(v),
            Some(Partial::Array(items)) => items.push(v),
            Some(Partial::Object(entries)) => {
                if let Some(last) = entries.last_mut() {
                    // The placeholder is a `null`, which owns nothing: no drop to run.
                    std::mem::forget(std::mem::replace(&mut last.1, v));
                }
            }
        }
    }
}

impl<'a> Output<'a> for Values<'a> {
    type Done = Value<'a>;

    fn open(&mut self, kind: Kind, len: usize) {
        self.open.push(match kind {
            Kind::Object => Partial::Object(Vec::with_capacity(len)),
            Kind::Array => Partial::Array(Vec::with_capacity(len)),
        });
    }

    #[inline]
    fn key(&mut self, key: Cow<'a, str>) {
        if let Some(Partial::Object(entries)) = self.open.last_mut() {
            entries.push((key, Value::Null));
        }
    }

    fn current_key(&self, depth: usize) -> Option<&str> {
        match self.open.get(depth) {
            Some(Partial::Object(entries)) => entries.last().map(|(k, _)| k.as_ref()),
            _ => None,
        }
    }

    #[inline(always)]
    fn scalar(&mut self, v: Value<'a>) {
        self.place(v);
    }

    fn close(&mut self) -> Result<(), Error> {
        let v = match self.open.pop() {
            Some(Partial::Object(entries)) => Value::Object(Object::from_entries(entries)?),
            Some(Partial::Array(items)) => Value::Array(items),
            None => return Ok(()),
        };
        self.place(v);
        Ok(())
    }

    fn finish(self) -> Option<Value<'a>> {
        self.root
    }
}

mod canonical;
mod same;
pub use canonical::Canonical;
pub use same::Same;

/// A call whose values have objects of more realms than the binding walks them again for
/// (each realm's `Object.prototype` costs a walk): [`Code::UnsupportedType`].
pub fn too_many_realms() -> Error {
    Error::unsupported_type("object from yet another realm")
}

/// A member (such as `check`'s `context.contract`) that held an object of a class that is
/// not what may stand there, nor data: [`Code::UnsupportedType`] at `/key`.
pub fn not_an_instance(t: HostType<'_>, key: &str) -> Error {
    Error::unsupported_type(t.name()).in_key(key)
}

/// JSON text given as a value of a type that is neither text nor bytes:
/// [`Code::UnsupportedType`].
pub fn json_text(t: HostType<'_>) -> Error {
    Error::not_json_text(t.name())
}

/// A digest given as a value that is not a string: [`Code::InvalidDigest`].
pub fn digest_argument(t: HostType<'_>) -> Error {
    Error::not_a_digest(t.name())
}

/// The members of a set of approvals (`check_set`'s first argument), as every binding and the
/// CLI hand it over: one value, an array whose elements are each what `check` takes as its
/// approval. Anything else is [`Code::InvalidApproval`]: a lone record is not a set of one.
pub fn approval_set<'a, 'v>(approvals: &'a Value<'v>) -> Result<&'a [Value<'v>], Error> {
    match approvals {
        Value::Array(members) => Ok(members),
        other => Err(Error::new(
            Code::InvalidApproval,
            format!(
                "a set of approvals is an array of approvals, not {}",
                other.type_name()
            ),
        )),
    }
}

/// What a binding found where an options argument may be.
#[derive(Clone, Copy, Debug)]
pub enum OptionsArg<'s> {
    /// None given (JavaScript `undefined` or `null`, Python's default).
    Absent,
    /// Options that are not an object (JavaScript).
    NotAnObject,
    /// An options object (JavaScript) or keyword arguments (Python), with what its
    /// `profile` is.
    Given(ProfileArg<'s>),
}

/// What a binding found as the `profile` option.
#[derive(Clone, Copy, Debug)]
pub enum ProfileArg<'s> {
    /// Not given (JavaScript `undefined`).
    Absent,
    /// A string.
    Name(&'s str),
    /// Something else, of this type.
    Other(HostType<'s>),
}

/// The options of the JSON functions (canonical form, fingerprints, parsing): the profile
/// named, else the default; a profile that is not a known name is [`Code::InvalidOption`].
pub fn options(arg: OptionsArg<'_>) -> Result<Options, Error> {
    match arg {
        OptionsArg::Absent | OptionsArg::Given(ProfileArg::Absent) => Ok(Options::default()),
        OptionsArg::NotAnObject => Err(Error::options_not_an_object()),
        OptionsArg::Given(ProfileArg::Name(name)) => name.parse().map(Options::with_profile),
        OptionsArg::Given(ProfileArg::Other(t)) => Err(Error::invalid_option(format!(
            "the profile must be a string, not {}",
            t.name()
        ))),
    }
}

/// The approval model (contracts, actions, approvals, contexts, budgets, `check`) reads
/// everything with the strict profile and never rounds a number, so it takes no options:
/// anything given is [`Code::InvalidOption`].
pub fn no_options(arg: OptionsArg<'_>) -> Result<(), Error> {
    match arg {
        OptionsArg::Absent => Ok(()),
        _ => Err(Error::invalid_option(
            "contracts, actions, approvals, contexts and budgets are read with the strict \
             profile only (a number is never rounded), so no options are accepted",
        )),
    }
}

#[cfg(test)]
mod tests;
