//! Python values to core values.
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
//! them: no overridden method is called. Everything else is `unsupported_type`.
//!
//! A successful walk runs no Python code (it allocates no object the garbage collector
//! tracks), so nothing can change or free a value while it is being read: that is what lets
//! strings be borrowed instead of copied. Once a walk fails, only the keys on the path to the
//! failure are read again, and those are held; a value converted earlier for the same call
//! is dropped unread. Recursion is bounded by `max_depth`, and the containers being visited
//! are kept to detect cycles.
//!
//! The converted value lives only inside a `with_*` function, which hands it to a closure
//! that calls core (no Python code) and returns core's owned result; that result is turned
//! into Python objects (which can run Python code) only after the value is gone.

use crate::error::to_py;
use crate::text::{utf8, Utf8Error};
use actionseal_core::{write_canonical, Digest, Error, Number, Object, Options, Profile, Value};
use pyo3::exceptions::PyValueError;
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

/// The canonical text of a Python value.
pub(crate) fn canonicalize(root: &Bound<'_, PyAny>, options: &Options) -> PyResult<String> {
    let py = root.py();
    // SAFETY: as in `with_value`: the value is written out at once and never leaves here.
    match unsafe { convert(py, root.as_ptr(), options, Skip::NONE) } {
        Ok(converted) => {
            let mut out = String::with_capacity(converted.text_len);
            write_canonical(&converted.value, &mut out);
            Ok(out)
        }
        Err(failure) => Err(failure.into_py(py)),
    }
}

/// The fingerprint (`sha256:<hex>`) of a Python value.
pub(crate) fn fingerprint(root: &Bound<'_, PyAny>, options: &Options) -> PyResult<String> {
    canonicalize(root, options).map(|text| Digest::of(text.as_bytes()).to_string())
}

/// A converted value and a guess at the length of its canonical text.
struct Converted<'a> {
    value: Value<'a>,
    text_len: usize,
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
        profile: options.profile,
        max_depth: options.max_depth,
        open: Vec::new(),
        text_len: 0,
        skip,
    };
    let value = walk.value(obj)?;
    Ok(Converted {
        value,
        text_len: walk.text_len,
    })
}

/// Why a value could not be converted.
enum Failure {
    /// A core error, with the path built so far.
    Core(Error),
    /// A Python exception (out of memory), passed on as is.
    Python(PyErr),
}

impl Failure {
    /// A value (or, with `is_key`, a dict key) of a type JSON cannot hold, named by its type.
    fn unsupported(obj: &Bound<'_, PyAny>, is_key: bool) -> Failure {
        // `__name__` can be computed by a metaclass, so this can run Python code; the keys the
        // path is built from are held (see `Walk::dict`).
        let name = match obj.get_type().name() {
            Ok(n) => n.to_string(),
            Err(e) => return Failure::Python(e),
        };
        Failure::Core(if is_key {
            Error::non_string_key(&name)
        } else {
            Error::unsupported_type(&name)
        })
    }

    fn in_key(self, key: &str) -> Failure {
        match self {
            Failure::Core(e) => Failure::Core(e.in_key(key)),
            f @ Failure::Python(_) => f,
        }
    }

    fn in_index(self, index: usize) -> Failure {
        match self {
            Failure::Core(e) => Failure::Core(e.in_index(index)),
            f @ Failure::Python(_) => f,
        }
    }

    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Core(e) => to_py(py, &e),
            Failure::Python(e) => e,
        }
    }
}

struct Walk<'py> {
    py: Python<'py>,
    profile: Profile,
    max_depth: usize,
    /// The containers from the root down to the one being read.
    open: Vec<*mut ffi::PyObject>,
    /// A guess at the length of the canonical text, to allocate it once: the bytes of every
    /// string and key plus a few per value.
    text_len: usize,
    /// The member the root dict leaves out. Taken by the first dict read, which is the root
    /// when this is set.
    skip: Skip,
}

/// Whether `obj`'s type is exactly `ty`.
///
/// # Safety
/// `obj` must point to a live object.
#[inline(always)]
unsafe fn is_type(obj: *mut ffi::PyObject, ty: *mut ffi::PyTypeObject) -> bool {
    ffi::Py_TYPE(obj) == ty
}

impl<'py> Walk<'py> {
    /// Converts one value.
    ///
    /// # Safety
    /// `obj` must point to a live object that, with everything it contains, stays alive and
    /// unchanged for `'a`: true while no Python code runs, as none does here.
    unsafe fn value<'a>(&mut self, obj: *mut ffi::PyObject) -> Result<Value<'a>, Failure> {
        self.text_len += 8;
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
            self.float(obj)
        } else if is_type(obj, addr_of_mut!(ffi::PyBool_Type)) {
            Ok(Value::Bool(obj == ffi::Py_True()))
        } else if obj == ffi::Py_None() {
            Ok(Value::Null)
        } else if is_type(obj, addr_of_mut!(ffi::PyTuple_Type)) {
            self.tuple(obj)
        } else {
            self.subclass(obj)
        }
    }

    /// Instances of subclasses of the built-in types, read as their built-in data; `bool`
    /// cannot be subclassed, so an `int` subclass is never a boolean.
    unsafe fn subclass<'a>(&mut self, obj: *mut ffi::PyObject) -> Result<Value<'a>, Failure> {
        if ffi::PyUnicode_Check(obj) != 0 {
            self.string(obj)
        } else if ffi::PyLong_Check(obj) != 0 {
            self.int(obj)
        } else if ffi::PyFloat_Check(obj) != 0 {
            self.float(obj)
        } else if ffi::PyDict_Check(obj) != 0 {
            self.dict(obj)
        } else if ffi::PyList_Check(obj) != 0 {
            self.list(obj)
        } else if ffi::PyTuple_Check(obj) != 0 {
            self.tuple(obj)
        } else {
            Err(Failure::unsupported(
                &Bound::from_borrowed_ptr(self.py, obj),
                false,
            ))
        }
    }

    unsafe fn string<'a>(&mut self, obj: *mut ffi::PyObject) -> Result<Value<'a>, Failure> {
        let s = utf8(self.py, obj).map_err(Failure::from)?;
        self.text_len += s.len();
        Ok(Value::String(Cow::Borrowed(s)))
    }

    unsafe fn int<'a>(&mut self, obj: *mut ffi::PyObject) -> Result<Value<'a>, Failure> {
        let mut overflow = 0;
        let i = ffi::PyLong_AsLongLongAndOverflow(obj, &mut overflow);
        if overflow == 0 {
            if i == -1 && !ffi::PyErr_Occurred().is_null() {
                return Err(Failure::Python(PyErr::fetch(self.py)));
            }
            return Number::from_i64(i, self.profile)
                .map(Value::Number)
                .map_err(Failure::Core);
        }
        // Beyond 64 bits: through the decimal text, which the limited API can give without
        // running Python code (`PyNumber_ToBase` takes an `int` subclass as it is).
        let text = match Bound::from_owned_ptr_or_err(self.py, ffi::PyNumber_ToBase(obj, 10)) {
            Ok(text) => text,
            // More digits than `sys.get_int_max_str_digits()` lets Python write out: far
            // beyond the largest double (about 1.8e308) under any setting of it (>= 640).
            Err(e) if e.is_instance_of::<PyValueError>(self.py) => {
                return Err(Failure::Core(too_many_digits()))
            }
            Err(e) => return Err(Failure::Python(e)),
        };
        let digits = utf8(self.py, text.as_ptr()).map_err(Failure::from)?;
        match digits.parse::<i128>() {
            Ok(i) => Number::from_i128(i, self.profile),
            Err(_) => Number::from_text(digits, self.profile),
        }
        .map(Value::Number)
        .map_err(Failure::Core)
    }

    unsafe fn float<'a>(&mut self, obj: *mut ffi::PyObject) -> Result<Value<'a>, Failure> {
        // Cannot fail: `obj` is a float.
        Number::from_f64(ffi::PyFloat_AsDouble(obj))
            .map(Value::Number)
            .map_err(Failure::Core)
    }

    /// Enters a container: refuses one already open (a cycle) or one too deep.
    unsafe fn enter(&mut self, obj: *mut ffi::PyObject) -> Result<(), Failure> {
        if self.open.contains(&obj) {
            return Err(Failure::Core(Error::cyclic_value()));
        }
        if self.open.len() >= self.max_depth {
            return Err(Failure::Core(Error::depth_limit(self.max_depth)));
        }
        self.open.push(obj);
        Ok(())
    }

    unsafe fn dict<'a>(&mut self, obj: *mut ffi::PyObject) -> Result<Value<'a>, Failure> {
        self.enter(obj)?;
        let skip = std::mem::replace(&mut self.skip, Skip::NONE);
        let mut entries = Vec::with_capacity(ffi::PyDict_Size(obj).max(0) as usize);
        let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
        while ffi::PyDict_Next(obj, &mut pos, &mut k, &mut v) != 0 {
            let key = self.key(k)?;
            if v == skip.value && key == skip.key {
                continue;
            }
            // Failing can run Python code: naming a type, or raising (a lone surrogate, an int
            // too long to print) allocates an object the garbage collector tracks, which can
            // start a collection and so a finalizer. The key must outlive that, because the
            // error's path is then built from it.
            let _hold = Bound::from_borrowed_ptr(self.py, k);
            let value = self.value(v).map_err(|f| f.in_key(key))?;
            entries.push((Cow::Borrowed(key), value));
        }
        self.open.pop();
        Object::from_entries(entries)
            .map(Value::Object)
            .map_err(Failure::Core)
    }

    /// A dict key: a `str`. A key with a lone surrogate cannot be named in a JSON Pointer, so
    /// that error, like a non-string key, has the path of the dict.
    unsafe fn key<'a>(&mut self, key: *mut ffi::PyObject) -> Result<&'a str, Failure> {
        if is_type(key, addr_of_mut!(ffi::PyUnicode_Type)) || ffi::PyUnicode_Check(key) != 0 {
            let s = utf8(self.py, key).map_err(Failure::from)?;
            self.text_len += s.len() + 4;
            Ok(s)
        } else {
            Err(Failure::unsupported(
                &Bound::from_borrowed_ptr(self.py, key),
                true,
            ))
        }
    }

    unsafe fn list<'a>(&mut self, obj: *mut ffi::PyObject) -> Result<Value<'a>, Failure> {
        self.sequence(obj, ffi::PyList_Size(obj), |i| ffi::PyList_GetItem(obj, i))
    }

    unsafe fn tuple<'a>(&mut self, obj: *mut ffi::PyObject) -> Result<Value<'a>, Failure> {
        self.sequence(obj, ffi::PyTuple_Size(obj), |i| {
            ffi::PyTuple_GetItem(obj, i)
        })
    }

    /// A list or tuple of `len` items, read with `item` (a borrowed reference).
    unsafe fn sequence<'a>(
        &mut self,
        obj: *mut ffi::PyObject,
        len: ffi::Py_ssize_t,
        item: impl Fn(ffi::Py_ssize_t) -> *mut ffi::PyObject,
    ) -> Result<Value<'a>, Failure> {
        self.enter(obj)?;
        let mut items = Vec::with_capacity(len.max(0) as usize);
        for i in 0..len {
            let it = item(i);
            if it.is_null() {
                return Err(Failure::Python(PyErr::fetch(self.py)));
            }
            items.push(self.value(it).map_err(|f| f.in_index(i as usize))?);
        }
        self.open.pop();
        Ok(Value::Array(items))
    }
}

impl From<Utf8Error> for Failure {
    fn from(e: Utf8Error) -> Failure {
        match e {
            Utf8Error::LoneSurrogate => Failure::Core(Error::lone_surrogate()),
            Utf8Error::Python(e) => Failure::Python(e),
        }
    }
}

/// The error for an `int` too long for Python to write in decimal.
fn too_many_digits() -> Error {
    Error::number_overflow("an int with more digits than Python converts to text")
}
