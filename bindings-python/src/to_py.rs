//! Core values to Python values: every result that leaves the binding goes through here.
//!
//! | JSON | Python |
//! | --- | --- |
//! | object | `dict`, keys in canonical (RFC 8785) order |
//! | array | `list` |
//! | string | `str` |
//! | number | `int` when integral within ±(2^53 − 1), else `float` |
//! | `true`, `false` | `True`, `False` |
//! | `null` | `None` |
//!
//! Safe integers become `int` so that amounts, counts and times read back as the integers
//! they were written as (`2500.00` is `2500`); any other number is the double core holds.

use actionseal_core::{Number, Requirement, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pyo3::{intern, IntoPyObjectExt};

/// The Python value of a core value. Depth is bounded by the value's origin: everything core
/// hands back was read under a depth limit.
pub(crate) fn value<'py>(py: Python<'py>, v: &Value<'_>) -> PyResult<Bound<'py, PyAny>> {
    match v {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => number(py, *n),
        Value::String(s) => Ok(PyString::new(py, s).into_any()),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value(py, item)?)?;
            }
            Ok(list.into_any())
        }
        Value::Object(o) => {
            let dict = PyDict::new(py);
            for (k, item) in o.iter() {
                dict.set_item(PyString::new(py, k), value(py, item)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

/// An `int` for a safe integer, else a `float`.
pub(crate) fn number(py: Python<'_>, n: Number) -> PyResult<Bound<'_, PyAny>> {
    match n.as_safe_integer() {
        Some(i) => i.into_bound_py_any(py),
        None => n.as_f64().into_bound_py_any(py),
    }
}

/// `{"required": bool, "rule": str}`: core's [`Requirement`], field for field.
pub(crate) fn requirement<'py>(py: Python<'py>, r: &Requirement) -> PyResult<Bound<'py, PyAny>> {
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "required"), r.required)?;
    dict.set_item(intern!(py, "rule"), &r.rule)?;
    Ok(dict.into_any())
}
