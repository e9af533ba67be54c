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

use actionseal_core::{Code, Digest, Number, Outcome, Reason, Requirement, Value, Verdict};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
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

/// The verdict of a check, as `Verdict::to_value` words it (the conformance vectors compare
/// the two in every runtime), built directly (but for the `quorum` member, core's value): its keys, outcome and reasons are strings made
/// once and shared, and the digests are written without a core value in between (or, for
/// the `known` digest, a loaded approval's, are its string).
pub(crate) fn verdict<'py>(
    py: Python<'py>,
    v: &Verdict,
    known: Option<(Digest, &Bound<'py, PyString>)>,
) -> PyResult<Bound<'py, PyAny>> {
    let digest = |d: &Digest| match known {
        Some((k, text)) if k == *d => text.clone(),
        _ => PyString::new(py, d.text().as_str()),
    };
    // Keys in canonical order, as every dict from core has them.
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "action_digest"), digest(&v.action_digest))?;
    let error = match &v.action_error {
        Some(e) => {
            let error = PyDict::new(py);
            error.set_item(intern!(py, "code"), name(py, e.code().as_str()))?;
            error.set_item(intern!(py, "path"), e.path())?;
            error.into_any()
        }
        None => py.None().into_bound(py),
    };
    dict.set_item(intern!(py, "action_error"), error)?;
    let approved = match &v.approved_digest {
        Some(d) => digest(d).into_any(),
        None => py.None().into_bound(py),
    };
    dict.set_item(intern!(py, "approved_digest"), approved)?;
    dict.set_item(intern!(py, "drift"), PyList::new(py, &v.drift)?)?;
    dict.set_item(intern!(py, "outcome"), name(py, v.outcome.as_str()))?;
    // Only under a quorum; core words its state (a check's hot path never has one).
    if v.quorum.is_some() {
        if let Value::Object(whole) = v.to_value() {
            if let Some(quorum) = whole.get("quorum") {
                dict.set_item(intern!(py, "quorum"), value(py, quorum)?)?;
            }
        }
    }
    let reasons = PyList::empty(py);
    for r in &v.reasons {
        reasons.append(name(py, r.as_str()))?;
    }
    dict.set_item(intern!(py, "reasons"), reasons)?;
    Ok(dict.into_any())
}

/// One of core's fixed names (an outcome, a reason, an error code) as a Python string made
/// once: the names are few, and a shared string needs no new object nor hashing.
fn name<'py>(py: Python<'py>, s: &'static str) -> Bound<'py, PyString> {
    /// A literal's address and length, and its Python string.
    type Named = ((usize, usize), Py<PyString>);
    static NAMES: PyOnceLock<Vec<Named>> = PyOnceLock::new();
    let key = |s: &str| (s.as_ptr() as usize, s.len());
    let names = NAMES.get_or_init(py, || {
        let fixed = [Outcome::Permit, Outcome::Reapprove, Outcome::Reject]
            .iter()
            .map(|o| o.as_str())
            .chain(Reason::ALL.iter().map(|r| r.as_str()))
            .chain(Code::ALL.iter().map(|c| c.as_str()));
        fixed
            .map(|s| (key(s), PyString::intern(py, s).unbind()))
            .collect()
    });
    // Found by where the literal is, not by comparing text.
    match names.iter().find(|(k, _)| *k == key(s)) {
        Some((_, found)) => found.bind(py).clone(),
        None => PyString::new(py, s),
    }
}
