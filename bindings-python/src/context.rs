//! The `context` argument of `check`: the executor's trusted state, whose `contract` may be a
//! loaded `Contract` rather than a document.

use crate::contract::PyContract;
use crate::convert::{with_dict_without, with_value};
use crate::error::to_py;
use actionseal_core::{Context, Options};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Reads a context. When it is a dict whose `"contract"` member is a `Contract`, the other
/// members are read with that contract (`Context::with_contract`), so its schema is not
/// compiled again; otherwise the whole value goes to core (`Context::from_value`), which
/// loads a contract document or refuses what is not a context.
pub(crate) fn read(context: &Bound<'_, PyAny>) -> PyResult<Context> {
    let py = context.py();
    let options = Options::default();
    if let Ok(dict) = context.cast::<PyDict>() {
        // Looked up before anything is converted: the Python code a lookup can run (a key's
        // `__eq__`) cannot reach a converted value.
        if let Some(found) = dict.get_item(intern!(py, "contract"))? {
            if let Ok(contract) = found.cast::<PyContract>() {
                let loaded = contract.get().0.clone();
                return with_dict_without(dict, ("contract", &found), &options, |v| {
                    Context::with_contract(v, Some(loaded))
                })?
                .map_err(|e| to_py(py, &e));
            }
        }
    }
    with_value(context, &options, Context::from_value)?.map_err(|e| to_py(py, &e))
}
