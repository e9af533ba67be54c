//! Python values to core values: the walk reports what it finds to core's host rulebook
//! (`actionseal_core::host::Builder`), which decides everything (what may be data, depth,
//! cycles, type names, paths, every error) and builds the value.
//!
//! | Python | JSON |
//! | --- | --- |
//! | `dict` with `str` keys | object |
//! | `list`, `tuple` | array |
//! | `str` | string |
//! | `int` (never `bool`) | number, under the profile's rule for integers |
//! | `float` | number |
//! | `True`, `False` | `true`, `false` |
//! | `None` | `null` |
//!
//! Subclasses of `dict`, `list`, `tuple`, `str`, `int` and `float` (`IntEnum`, `StrEnum`,
//! `OrderedDict`, named tuples, ...) are read as their built-in data, as `json.dumps` reads
//! them: no overridden method is called. Everything else is reported as not data, named by
//! its type. A container's identity is its address, so core finds cycles.
//!
//! A successful walk runs no Python code (it allocates no object the garbage collector
//! tracks), so nothing can change or free a value while it is being read: that is what lets
//! strings be borrowed instead of copied. Once a walk fails, only the keys on the path to the
//! failure are read again (core builds the error's path from them), and those are held; a
//! value converted earlier for the same call is dropped unread.
//!
//! The converted value lives only inside a `with_*` function, which hands it to a closure
//! that calls core (no Python code) and returns core's owned result; that result is turned
//! into Python objects (which can run Python code) only after the value is gone.

use crate::error::to_py;
use crate::text::{utf8, Utf8Error};
use actionseal_core::host::{Builder, Container, HostType, Kind, Output, Same, Stop};
use actionseal_core::{Digest, Options, Value};
use pyo3::exceptions::{PySystemError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::borrow::Cow;
use std::ptr::addr_of_mut;

/// Converts a Python value and passes core's value to `f`.
///
/// The value borrows strings from Python objects, so `f` must run no Python code (which could
/// free them): it may call core, never Python. What `f` returns must not borrow from the value
/// (the signature sees to that), so it is safe to turn into Python objects afterwards.
pub(crate) fn with_value<R>(
    root: &Bound<'_, PyAny>,
    options: &Options,
    f: impl FnOnce(&Value<'_>) -> R,
) -> PyResult<R> {
    convert_then(root, None, options, f)
}

/// [`with_value`] for a value that sits at `key` of what core reports on: a conversion error's
/// path starts with `/key`, as core's errors about the value do.
pub(crate) fn with_value_at<R>(
    root: &Bound<'_, PyAny>,
    key: &str,
    options: &Options,
    f: impl FnOnce(&Value<'_>) -> R,
) -> PyResult<R> {
    convert_then(root, Some(key), options, f)
}

fn convert_then<R>(
    root: &Bound<'_, PyAny>,
    key: Option<&str>,
    options: &Options,
    f: impl FnOnce(&Value<'_>) -> R,
) -> PyResult<R> {
    let py = root.py();
    // SAFETY: `root` is alive for this call; see the module doc for why its contents are too.
    match unsafe { convert(py, root.as_ptr(), options, Skip::NONE) } {
        Ok(converted) => Ok(f(&converted.value)),
        Err(failure) => {
            let failure = match key {
                Some(key) => failure.in_key(key),
                None => failure,
            };
            Err(failure.into_py(py))
        }
    }
}

/// Converts two Python values and passes both to `f`, as [`with_value`] does one.
///
/// If the second fails to convert, raising the error can run Python code, which could free
/// strings the first borrows: the first is then dropped unread before the error is raised.
pub(crate) fn with_values<R>(
    first: &Bound<'_, PyAny>,
    second: &Bound<'_, PyAny>,
    options: &Options,
    f: impl FnOnce(&Value<'_>, &Value<'_>) -> R,
) -> PyResult<R> {
    let py = first.py();
    // SAFETY: as in `with_value`.
    let a = unsafe { convert(py, first.as_ptr(), options, Skip::NONE) }
        .map_err(|failure| failure.into_py(py))?;
    // SAFETY: as in `with_value`; no Python code has run since `a` was converted, and none
    // runs before `f` returns unless this walk fails.
    match unsafe { convert(py, second.as_ptr(), options, Skip::NONE) } {
        Ok(b) => Ok(f(&a.value, &b.value)),
        Err(failure) => {
            drop(a);
            Err(failure.into_py(py))
        }
    }
}

/// Converts `N` Python values and passes them all to `f`, as [`with_values`] does two: when
/// one fails to convert, those converted before it are dropped unread before the error is
/// raised.
pub(crate) fn with_each<const N: usize, R>(
    values: [&Bound<'_, PyAny>; N],
    options: &Options,
    f: impl FnOnce([&Value<'_>; N]) -> R,
) -> PyResult<R> {
    let mut converted = Vec::with_capacity(N);
    for v in values {
        // SAFETY: as in `with_value`; no Python code runs between these walks unless one
        // fails, and then the values converted so far are dropped before the error is raised.
        match unsafe { convert(v.py(), v.as_ptr(), options, Skip::NONE) } {
            Ok(c) => converted.push(c),
            Err(failure) => {
                drop(converted);
                return Err(failure.into_py(v.py()));
            }
        }
    }
    Ok(f(std::array::from_fn(|i| &converted[i].value)))
}

/// Converts a dict without one member, given as its key's text and its value object (found by
/// identity, so that no Python code runs to compare), and passes the object to `f` as
/// [`with_value`] does.
pub(crate) fn with_dict_without<R>(
    dict: &Bound<'_, PyDict>,
    (key, value): (&'static str, &Bound<'_, PyAny>),
    options: &Options,
    f: impl FnOnce(&Value<'_>) -> R,
) -> PyResult<R> {
    let py = dict.py();
    let skip = Skip {
        key,
        value: value.as_ptr(),
    };
    // SAFETY: as in `with_value`; the skipped value is only compared by address.
    match unsafe { convert(py, dict.as_ptr(), options, skip) } {
        Ok(converted) => Ok(f(&converted.value)),
        Err(failure) => Err(failure.into_py(py)),
    }
}

/// The canonical text of a Python value, written as the walk goes (no value is built).
pub(crate) fn canonicalize(root: &Bound<'_, PyAny>, options: &Options) -> PyResult<String> {
    canonical_into(root, options, String::with_capacity(256))
}

/// The fingerprint (`sha256:<hex>`) of a Python value.
pub(crate) fn fingerprint(root: &Bound<'_, PyAny>, options: &Options) -> PyResult<String> {
    // The text is only hashed: written into the buffer the last call used.
    let text = canonical_into(root, options, TEXT.take())?;
    let digest = Digest::of(text.as_bytes());
    if text.capacity() <= 1 << 16 {
        TEXT.set(text);
    }
    Ok(digest.to_string())
}

thread_local! {
    /// The buffer `fingerprint` writes canonical text into, kept from one call to the next.
    static TEXT: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
}

/// [`canonicalize`], writing into `text`.
///
/// The walk reports members in canonical order. When it fails, the value is walked again as
/// every conversion walks it (members in iteration order), so that the error reported is the
/// first one met in that order, as elsewhere. When the first walk stopped at a failure that
/// may have run Python code ([`Failure::Redo`]) and the second finds nothing wrong, that code
/// changed the value: its text is written from the second walk's value.
fn canonical_into(root: &Bound<'_, PyAny>, options: &Options, text: String) -> PyResult<String> {
    let py = root.py();
    let mut walk = Walk {
        py,
        b: Builder::canonical_into(options, text),
        skip: Skip::NONE,
        in_order: Some(InOrder::take()),
    };
    // SAFETY: `root` is alive for this call; see the module doc for why its contents are too.
    // The text borrows nothing.
    match unsafe { walk.value(root.as_ptr()) }.and_then(|()| Ok(walk.b.finish()?)) {
        Ok(text) => Ok(text),
        Err(first @ (Failure::Core(_) | Failure::Redo)) => {
            // SAFETY: as above.
            match unsafe { convert(py, root.as_ptr(), options, Skip::NONE) } {
                Err(failure) => Err(failure.into_py(py)),
                Ok(now) => match first {
                    Failure::Redo => Ok(actionseal_core::canonicalize(&now.value)),
                    // The failure ran Python code that changed the value (naming a type
                    // can): what the first walk found is still what was wrong with it.
                    first => Err(first.into_py(py)),
                },
            }
        }
        Err(failure) => Err(failure.into_py(py)),
    }
}

/// Whether a Python value is exactly `held`, a value core holds (see core's `host::Same`),
/// found by a walk under the conversion's rules that converts nothing. `false` when it
/// differs, and when the walk fails: the ordinary conversion then reports the error.
pub(crate) fn is_same(root: &Bound<'_, PyAny>, held: &Value<'_>, options: &Options) -> bool {
    let mut walk = Walk {
        py: root.py(),
        b: Builder::with_output(options, Same::new(held)),
        skip: Skip::NONE,
        in_order: None,
    };
    // SAFETY: as in `with_value`; nothing read is kept past the walk.
    let same = unsafe { walk.value(root.as_ptr()) }.and_then(|()| Ok(walk.b.finish()?));
    matches!(same, Ok(true))
}

/// A converted value.
struct Converted<'a> {
    value: Value<'a>,
}

/// A member of the root dict to leave out: the one with this key text and this value object.
#[derive(Clone, Copy)]
struct Skip {
    key: &'static str,
    /// Null for none.
    value: *mut ffi::PyObject,
}

impl Skip {
    const NONE: Skip = Skip {
        key: "",
        value: std::ptr::null_mut(),
    };
}

/// Converts one Python value; when it is a dict, without the member `skip` names.
///
/// # Safety
/// `obj` must point to a live object that, with everything it contains, stays alive and
/// unchanged while the result is used: true while no Python code runs (see the module doc).
unsafe fn convert<'a>(
    py: Python<'_>,
    obj: *mut ffi::PyObject,
    options: &Options,
    skip: Skip,
) -> Result<Converted<'a>, Failure> {
    let mut walk = Walk {
        py,
        b: Builder::new(options),
        skip,
        in_order: None,
    };
    walk.value(obj)?;
    let value = walk.b.finish()?;
    Ok(Converted { value })
}

/// Why a value could not be converted.
enum Failure {
    /// Core refused the value (the error carries its path).
    Core(actionseal_core::Error),
    /// A Python exception (out of memory), passed on as is.
    Python(PyErr),
    /// This binding reported facts out of order (a bug).
    Bug(&'static str),
    /// A walk in canonical order (see [`InOrder`]) met a value or key that is not data, and
    /// stopped before asking core for the error: finding it may have run Python code (raising
    /// an exception, naming a type), which can free the keys core would build the path from.
    /// The value is walked again by a walk that holds its keys.
    Redo,
}

impl From<Stop> for Failure {
    fn from(s: Stop) -> Failure {
        match s {
            Stop::Refused(e) => Failure::Core(e),
            Stop::Misuse(what) => Failure::Bug(what),
        }
    }
}

impl Failure {
    fn in_key(self, key: &str) -> Failure {
        match self {
            Failure::Core(e) => Failure::Core(e.in_key(key)),
            f => f,
        }
    }

    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Core(e) => to_py(py, &e),
            Failure::Python(e) => e,
            Failure::Bug(what) => {
                PySystemError::new_err(format!("internal error in actionseal: {what}"))
            }
            Failure::Redo => {
                PySystemError::new_err("internal error in actionseal: a walk not redone")
            }
        }
    }
}

struct Walk<'py, 'a, O: Output<'a> = actionseal_core::host::Values<'a>> {
    py: Python<'py>,
    b: Builder<'a, O>,
    /// The member the root dict leaves out. Taken by the first dict read, which is the root
    /// when this is set.
    skip: Skip,
    /// When set, dicts report their members in canonical key order (see [`InOrder`]).
    in_order: Option<InOrder>,
}

/// What a walk that reports members in canonical key order keeps: a canonical text is then
/// written as it goes, with no member moved when its object closes.
///
/// Core decides the order (`cmp_utf16`) and still checks it (and finds duplicate keys) when
/// each object closes. Records of one shape (the items of a list of dicts from one
/// `json.load`) share their key objects: a dict whose keys are the same objects, in the same
/// iteration order, as the last dict read at its depth takes that dict's order without
/// sorting, nor reading the keys' text again. Nothing frees a key while the walk runs (no
/// Python code runs), and what the walk learnt is forgotten when it ends; the buffers are
/// kept, empty, for the next walk on the thread.
#[derive(Default)]
struct InOrder(Buffers);

/// The vectors of an [`InOrder`].
#[derive(Default)]
struct Buffers {
    /// The members of the dicts being read, innermost last. The keys are borrowed, not held:
    /// nothing can free them while the walk runs, because it stops at the first failure that
    /// can run Python code ([`Failure::Redo`]) without reading them again.
    members: Vec<Member>,
    /// Per depth, the keys of the last dict read there (in iteration order) and the order
    /// core gave them (indices into those keys).
    last: Vec<(Vec<Member>, Vec<u32>)>,
}

/// A dict member: its key object, the key's UTF-8 text (borrowed from the key object) and
/// its value object.
#[derive(Clone, Copy)]
struct Member {
    key: *mut ffi::PyObject,
    text: *const u8,
    len: usize,
    value: *mut ffi::PyObject,
}

/// Dicts of at most this many members are put in order on the stack.
const SMALL: usize = 8;

impl Member {
    const NONE: Member = Member {
        key: std::ptr::null_mut(),
        text: std::ptr::null(),
        len: 0,
        value: std::ptr::null_mut(),
    };

    /// The key's text.
    ///
    /// # Safety
    /// The key object must be alive, as it is while the member is held.
    unsafe fn text<'a>(&self) -> &'a str {
        std::str::from_utf8_unchecked(std::slice::from_raw_parts(self.text, self.len))
    }
}

thread_local! {
    /// The buffers the last walk in order on this thread used, empty.
    static IN_ORDER: std::cell::Cell<Option<Buffers>> = const { std::cell::Cell::new(None) };
}

impl InOrder {
    /// The buffers of the thread's last walk, or new ones.
    fn take() -> InOrder {
        InOrder(IN_ORDER.take().unwrap_or_default())
    }

    /// Forgets the members from `base` on.
    fn pop_to(&mut self, base: usize) {
        self.0.members.truncate(base);
    }
}

impl Drop for InOrder {
    fn drop(&mut self) {
        self.pop_to(0);
        // Key objects can be freed once the walk is over: nothing about them is kept.
        for (keys, order) in &mut self.0.last {
            keys.clear();
            order.clear();
        }
        let kept = std::mem::take(&mut self.0);
        // `try_with`: the thread may be ending.
        let _ = IN_ORDER.try_with(|cell| cell.set(Some(kept)));
    }
}

/// Whether `obj`'s type is exactly `ty`.
///
/// # Safety
/// `obj` must point to a live object.
#[inline(always)]
unsafe fn is_type(obj: *mut ffi::PyObject, ty: *mut ffi::PyTypeObject) -> bool {
    ffi::Py_TYPE(obj) == ty
}

impl<'a, O: Output<'a>> Walk<'_, 'a, O> {
    /// Reports one value.
    ///
    /// # Safety
    /// `obj` must point to a live object that, with everything it contains, stays alive and
    /// unchanged for `'a`: true while no Python code runs, as none does here.
    unsafe fn value(&mut self, obj: *mut ffi::PyObject) -> Result<(), Failure> {
        // Exact built-in types first, most common first: one pointer comparison each.
        if is_type(obj, addr_of_mut!(ffi::PyUnicode_Type)) {
            self.string(obj)
        } else if is_type(obj, addr_of_mut!(ffi::PyLong_Type)) {
            self.int(obj)
        } else if is_type(obj, addr_of_mut!(ffi::PyDict_Type)) {
            self.dict(obj)
        } else if is_type(obj, addr_of_mut!(ffi::PyList_Type)) {
            self.list(obj)
        } else if is_type(obj, addr_of_mut!(ffi::PyFloat_Type)) {
            Ok(self.b.double(ffi::PyFloat_AsDouble(obj))?)
        } else if is_type(obj, addr_of_mut!(ffi::PyBool_Type)) {
            Ok(self.b.boolean(obj == ffi::Py_True())?)
        } else if obj == ffi::Py_None() {
            Ok(self.b.null()?)
        } else if is_type(obj, addr_of_mut!(ffi::PyTuple_Type)) {
            self.tuple(obj)
        } else {
            self.subclass(obj)
        }
    }

    /// Instances of subclasses of the built-in types, read as their built-in data; `bool`
    /// cannot be subclassed, so an `int` subclass is never a boolean.
    unsafe fn subclass(&mut self, obj: *mut ffi::PyObject) -> Result<(), Failure> {
        if ffi::PyUnicode_Check(obj) != 0 {
            self.string(obj)
        } else if ffi::PyLong_Check(obj) != 0 {
            self.int(obj)
        } else if ffi::PyFloat_Check(obj) != 0 {
            Ok(self.b.double(ffi::PyFloat_AsDouble(obj))?)
        } else if ffi::PyDict_Check(obj) != 0 {
            self.dict(obj)
        } else if ffi::PyList_Check(obj) != 0 {
            self.list(obj)
        } else if ffi::PyTuple_Check(obj) != 0 {
            self.tuple(obj)
        } else if self.in_order.is_some() {
            Err(Failure::Redo)
        } else {
            let name = type_name(self.py, obj)?;
            Err(self.b.unsupported(HostType::Object(Some(&name))).into())
        }
    }

    unsafe fn string(&mut self, obj: *mut ffi::PyObject) -> Result<(), Failure> {
        match utf8(self.py, obj) {
            Ok(s) => Ok(self.b.string(Cow::Borrowed(s))?),
            Err(Utf8Error::LoneSurrogate) => Err(self.refused(|b| b.lone_surrogate())),
            Err(Utf8Error::Python(e)) => Err(Failure::Python(e)),
        }
    }

    unsafe fn int(&mut self, obj: *mut ffi::PyObject) -> Result<(), Failure> {
        let mut overflow = 0;
        let i = ffi::PyLong_AsLongLongAndOverflow(obj, &mut overflow);
        if overflow == 0 {
            if i == -1 && !ffi::PyErr_Occurred().is_null() {
                return Err(Failure::Python(PyErr::fetch(self.py)));
            }
            return Ok(self.b.integer(i)?);
        }
        // Beyond 64 bits: through the decimal text, which the limited API can give without
        // running Python code (`PyNumber_ToBase` takes an `int` subclass as it is).
        let text = match Bound::from_owned_ptr_or_err(self.py, ffi::PyNumber_ToBase(obj, 10)) {
            Ok(text) => text,
            // More digits than `sys.get_int_max_str_digits()` lets Python write out: far
            // beyond the largest double under any setting of it (>= 640).
            Err(e) if e.is_instance_of::<PyValueError>(self.py) => {
                return Err(self.refused(|b| b.integer_too_long()))
            }
            Err(e) => return Err(Failure::Python(e)),
        };
        let digits = match utf8(self.py, text.as_ptr()) {
            Ok(d) => d,
            Err(Utf8Error::LoneSurrogate) => return Err(Failure::Bug("an int's digits")),
            Err(Utf8Error::Python(e)) => return Err(Failure::Python(e)),
        };
        match digits.parse::<i128>() {
            Ok(i) => Ok(self.b.integer_wide(i)?),
            Err(_) => Ok(self.b.integer_text(digits)?),
        }
    }

    unsafe fn dict(&mut self, obj: *mut ffi::PyObject) -> Result<(), Failure> {
        if self.in_order.is_some() {
            return self.dict_in_order(obj);
        }
        let len = ffi::PyDict_Size(obj).max(0) as usize;
        self.b
            .open(Container::plain(Kind::Object, obj as usize, len))?;
        let skip = std::mem::replace(&mut self.skip, Skip::NONE);
        let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
        while ffi::PyDict_Next(obj, &mut pos, &mut k, &mut v) != 0 {
            // Failing can run Python code: naming a type, or raising (a lone surrogate, an int
            // too long to print) allocates an object the garbage collector tracks, which can
            // start a collection and so a finalizer. The key must outlive that, because core
            // builds the error's path from it.
            let hold = Bound::from_borrowed_ptr(self.py, k);
            let key = self.key(k)?;
            if v == skip.value && key == skip.key {
                continue;
            }
            self.b.key(Cow::Borrowed(key))?;
            self.value(v)?;
            drop(hold);
        }
        Ok(self.b.close()?)
    }

    /// A dict, its members reported in canonical key order (see [`InOrder`]).
    unsafe fn dict_in_order(&mut self, obj: *mut ffi::PyObject) -> Result<(), Failure> {
        let len = ffi::PyDict_Size(obj).max(0) as usize;
        self.b
            .open(Container::plain(Kind::Object, obj as usize, len))?;
        let depth = self.b.depth();
        let py = self.py;
        let Some(InOrder(o)) = self.in_order.as_mut() else {
            return Err(Failure::Bug("a walk in order without its buffers"));
        };
        if o.last.len() < depth {
            o.last.resize_with(depth, Default::default);
        }
        let (keys, order) = &mut o.last[depth - 1];
        let members = &mut o.members;
        let base = members.len();
        // Whether the keys so far are the last dict's at this depth, whose text is known.
        let mut same_keys = true;
        let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
        while ffi::PyDict_Next(obj, &mut pos, &mut k, &mut v) != 0 {
            let (text, len) = match keys.get(members.len() - base) {
                Some(m) if same_keys && m.key == k => (m.text, m.len),
                _ => {
                    same_keys = false;
                    let key = key_in_order(py, k)?;
                    (key.as_ptr(), key.len())
                }
            };
            members.push(Member {
                key: k,
                text,
                len,
                value: v,
            });
        }
        let these = &members[base..];
        let n = these.len();
        if !(same_keys && keys.len() == n) {
            keys.clear();
            keys.extend_from_slice(these);
            order.clear();
            order.extend(0..n as u32);
            // SAFETY: the keys are the dict's, alive while no Python code runs.
            order.sort_unstable_by(|&x, &y| unsafe {
                actionseal_core::cmp_utf16(these[x as usize].text(), these[y as usize].text())
            });
        }
        if n <= SMALL {
            // A record of a few keys: its members in order on the stack, so that the buffers
            // are not borrowed again for each (the values' walks use them).
            let mut sorted = [Member::NONE; SMALL];
            for (slot, &at) in sorted.iter_mut().zip(order.iter()) {
                *slot = these[at as usize];
            }
            members.truncate(base);
            for m in &sorted[..n] {
                // The key is the dict's, and no Python code has run since it was read.
                self.b.key(Cow::Borrowed(m.text()))?;
                self.value(m.value)?;
            }
            return Ok(self.b.close()?);
        }
        for i in 0..n {
            let o = self.buffers()?;
            let Some(m) = o.last[depth - 1]
                .1
                .get(i)
                .and_then(|&at| o.members.get(base + at as usize).copied())
            else {
                return Err(Failure::Bug("a member out of range"));
            };
            // The key is the dict's, and no Python code has run since it was read.
            self.b.key(Cow::Borrowed(m.text()))?;
            self.value(m.value)?;
        }
        self.b.close()?;
        if let Some(o) = self.in_order.as_mut() {
            o.pop_to(base);
        }
        Ok(())
    }

    /// Core's error about what the walk just found, which finding may have run Python code:
    /// [`Failure::Redo`] in a walk in canonical order, whose keys are not held.
    fn refused(&self, error: impl FnOnce(&Builder<'a, O>) -> Stop) -> Failure {
        if self.in_order.is_some() {
            Failure::Redo
        } else {
            error(&self.b).into()
        }
    }

    /// The buffers of a walk in order.
    fn buffers(&mut self) -> Result<&mut Buffers, Failure> {
        match self.in_order.as_mut() {
            Some(o) => Ok(&mut o.0),
            None => Err(Failure::Bug("a walk in order without its buffers")),
        }
    }

    /// A dict key: a `str`. A key with a lone surrogate or of another type is core's error at
    /// the dict (a key that cannot be named cannot be in a path).
    unsafe fn key(&mut self, key: *mut ffi::PyObject) -> Result<&'a str, Failure> {
        if is_type(key, addr_of_mut!(ffi::PyUnicode_Type)) || ffi::PyUnicode_Check(key) != 0 {
            match utf8(self.py, key) {
                Ok(s) => Ok(s),
                Err(Utf8Error::LoneSurrogate) => Err(self.refused(|b| b.lone_surrogate_key())),
                Err(Utf8Error::Python(e)) => Err(Failure::Python(e)),
            }
        } else if self.in_order.is_some() {
            Err(Failure::Redo)
        } else {
            let name = type_name(self.py, key)?;
            Err(self.b.non_string_key(HostType::Object(Some(&name))).into())
        }
    }

    unsafe fn list(&mut self, obj: *mut ffi::PyObject) -> Result<(), Failure> {
        self.sequence(obj, ffi::PyList_Size(obj), |i| ffi::PyList_GetItem(obj, i))
    }

    unsafe fn tuple(&mut self, obj: *mut ffi::PyObject) -> Result<(), Failure> {
        self.sequence(obj, ffi::PyTuple_Size(obj), |i| {
            ffi::PyTuple_GetItem(obj, i)
        })
    }

    /// A list or tuple of `len` items, read with `item` (a borrowed reference).
    unsafe fn sequence(
        &mut self,
        obj: *mut ffi::PyObject,
        len: ffi::Py_ssize_t,
        item: impl Fn(ffi::Py_ssize_t) -> *mut ffi::PyObject,
    ) -> Result<(), Failure> {
        self.b.open(Container::plain(
            Kind::Array,
            obj as usize,
            len.max(0) as usize,
        ))?;
        for i in 0..len {
            let it = item(i);
            if it.is_null() {
                return Err(Failure::Python(PyErr::fetch(self.py)));
            }
            self.value(it)?;
        }
        Ok(self.b.close()?)
    }
}

/// A dict key in a walk in canonical order: a `str`'s text. Anything else is
/// [`Failure::Redo`] (see [`Walk::refused`]).
///
/// # Safety
/// `key` must point to a live object that outlives `'a`, as it does while no Python code runs.
unsafe fn key_in_order<'a>(py: Python<'_>, key: *mut ffi::PyObject) -> Result<&'a str, Failure> {
    if ffi::PyUnicode_Check(key) == 0 {
        return Err(Failure::Redo);
    }
    match utf8(py, key) {
        Ok(s) => Ok(s),
        Err(Utf8Error::LoneSurrogate) => Err(Failure::Redo),
        Err(Utf8Error::Python(e)) => Err(Failure::Python(e)),
    }
}

/// The name of an object's type, for core's messages. `__name__` can be computed by a
/// metaclass, so this can run Python code; the keys the path is built from are held (see
/// `Walk::dict`).
unsafe fn type_name(py: Python<'_>, obj: *mut ffi::PyObject) -> Result<String, Failure> {
    match Bound::from_borrowed_ptr(py, obj).get_type().name() {
        Ok(n) => Ok(n.to_string()),
        Err(e) => Err(Failure::Python(e)),
    }
}
