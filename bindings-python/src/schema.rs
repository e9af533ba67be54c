//! `actionseal.Schema`: a tool-argument JSON Schema on its own, compiled once.

use crate::convert::with_value;
use crate::error::to_py;
use actionseal_core::{Options, Schema};
use pyo3::prelude::*;

/// A tool-argument JSON Schema (the strict subset contracts use), compiled once.
///
/// A tool-argument JSON Schema, compiled: the strict subset a contract's ``args`` uses
/// (closed objects, strict types, ECMA patterns, the listed formats), for any value.
///
/// ``Schema(schema)`` raises ActionsealError ``unsupported_schema`` for a keyword, format or
/// pattern feature outside the subset and ``invalid_schema`` for a malformed one, the path a
/// JSON Pointer into the schema. Unlike a contract's ``args``, the top level may be any
/// schema. Immutable; safe to share between threads.
#[pyclass(frozen, module = "actionseal", name = "Schema")]
pub(crate) struct PySchema(Schema);

#[pymethods]
impl PySchema {
    #[new]
    #[pyo3(signature = (schema, *, profile = None), text_signature = "(schema)")]
    fn new(schema: &Bound<'_, PyAny>, profile: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let py = schema.py();
        crate::profile::refuse(py, profile)?;
        with_value(schema, &Options::default(), Schema::compile)?
            .map(PySchema)
            .map_err(|e| to_py(py, &e))
    }

    /// Raises ActionsealError with the first way the value breaks the schema.
    ///
    /// Validates a value; raises ActionsealError with the first error (``unknown_field``,
    /// ``type_mismatch``, ...), its path a JSON Pointer into the value.
    #[pyo3(signature = (value, *, profile = None), text_signature = "(self, value)")]
    fn validate(
        &self,
        value: &Bound<'_, PyAny>,
        profile: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let py = value.py();
        crate::profile::refuse(py, profile)?;
        with_value(value, &Options::default(), |v| self.0.validate(v))?.map_err(|e| to_py(py, &e))
    }
}
