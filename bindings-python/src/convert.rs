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
//! failure are read again, and those are held. Recursion is bounded by `max_depth`, and the
//! containers being visited are kept to detect cycles.

use crate::error::to_py;
use crate::text::{utf8, Utf8Error};
use actionseal_core::{
    write_canonical, Code, Digest, Error, Number, Object, Options, Profile, Value, MAX_SAFE_INTEGER,
};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use std::borrow::Cow;
use std::ptr::addr_of_mut;

/// The canonical text of a Python value.
///
/// The converted value borrows strings from Python objects, so it must not outlive this call
/// nor see Python code run while it exists (which could free them): it never leaves this
/// function, which writes it out at once.
pub(crate) fn canonicalize(root: &Bound<'_, PyAny>, options: &Options) -> PyResult<String> {
    let py = root.py();
    let mut walk = Walk {
        py,
        profile: options.profile,
        max_depth: options.max_depth,
        open: Vec::new(),
        text_len: 0,
    };
    // SAFETY: `root` is alive for this call; see the module doc for why its contents are too.
    match unsafe { walk.value(root.as_ptr()) } {
        Ok(value) => {
            let mut out = String::with_capacity(walk.text_len);
            write_canonical(&value, &mut out);
            Ok(out)
        }
        Err(failure) => Err(failure.into_py(py)),
    }
}

/// The fingerprint (`sha256:<hex>`) of a Python value.
pub(crate) fn fingerprint(root: &Bound<'_, PyAny>, options: &Options) -> PyResult<String> {
    canonicalize(root, options).map(|text| Digest::of(text.as_bytes()).to_string())
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
            if i.unsigned_abs() <= MAX_SAFE_INTEGER as u64 {
                return Number::from_i64(i, self.profile)
                    .map(Value::Number)
                    .map_err(Failure::Core);
            }
            // Beyond 2^53 an integer gets the rule its decimal text gets in JSON text: core's
            // `from_i64` accepts 2^60 under strict although its canonical form,
            // 1152921504606847000, names another number, while `from_text` refuses it.
            return self.int_text(&i.to_string());
        }
        // Beyond 64 bits: the decimal text too.
        match Bound::from_owned_ptr_or_err(self.py, ffi::PyNumber_ToBase(obj, 10)) {
            Ok(text) => self.int_text(utf8(self.py, text.as_ptr()).map_err(Failure::from)?),
            // More digits than `sys.get_int_max_str_digits()` lets Python write out: far
            // beyond the largest double (about 1.8e308) under any setting of it (>= 640).
            Err(e) if e.is_instance_of::<PyValueError>(self.py) => {
                Err(Failure::Core(too_many_digits()))
            }
            Err(e) => Err(Failure::Python(e)),
        }
    }

    /// An integer from its decimal digits, by core's rule for number text.
    fn int_text<'a>(&self, digits: &str) -> Result<Value<'a>, Failure> {
        Number::from_text(digits, self.profile)
            .map(Value::Number)
            // The text is ours, not the caller's: an offset into it means nothing.
            .map_err(|e| Failure::Core(Error::new(e.code(), e.message())))
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
        let mut entries = Vec::with_capacity(ffi::PyDict_Size(obj).max(0) as usize);
        let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
        while ffi::PyDict_Next(obj, &mut pos, &mut k, &mut v) != 0 {
            let key = self.key(k)?;
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
///
/// Core has no constructor for a number it never sees as text (see the report to the lead);
/// until it does, this is the one message the binding words itself.
fn too_many_digits() -> Error {
    Error::new(
        Code::NumberOverflow,
        "integer has more digits than Python converts to text, far too large for a double",
    )
}
