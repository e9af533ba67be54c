//! `Schema`: a tool-argument JSON Schema on its own, compiled once.

use crate::{error, host, NoOptions};
use actionseal_core::{Options, Schema};
use wasm_bindgen::prelude::*;

/// A tool-argument JSON Schema (the strict subset contracts use), compiled once.
///
/// A compiled tool-argument schema: the strict JSON Schema subset of actionseal contracts,
/// for validating arguments without a whole contract (a form, a model's tool call).
///
/// `new Schema(schema)` throws `unsupported_schema` or `invalid_schema` with the path inside
/// the schema. Like `Contract`, it lives in WebAssembly memory: `free()` (or `using`)
/// releases it at once, garbage collection otherwise.
#[wasm_bindgen(js_name = Schema)]
pub struct JsSchema {
    inner: Schema,
}

#[wasm_bindgen(js_class = Schema)]
impl JsSchema {
    /// Compiles a schema; raises ActionsealError (unsupported_schema, invalid_schema).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "object | boolean")] schema: JsValue,
        options: Option<NoOptions>,
    ) -> Result<JsSchema, JsValue> {
        crate::no_options(options)?;
        let inner = error::core(host::with_value(
            &schema,
            &Options::default(),
            Schema::compile,
        )?)?;
        Ok(JsSchema { inner })
    }

    /// Raises ActionsealError with the first way the value breaks the schema.
    ///
    /// Throws the first way `value` breaks the schema (code and JSON Pointer into the value);
    /// returns nothing when it fits.
    pub fn validate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
        options: Option<NoOptions>,
    ) -> Result<(), JsValue> {
        crate::no_options(options)?;
        error::core(host::with_value(&value, &Options::default(), |v| {
            self.inner.validate(v)
        })?)
    }
}
