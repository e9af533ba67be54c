//! `Schema`: a tool-argument JSON Schema on its own, compiled once.

use crate::error;
use crate::host::Walker;
use actionseal_core::{Schema, DEFAULT_MAX_DEPTH};
use bumpalo::Bump;
use wasm_bindgen::prelude::*;

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
    /// Compiles a schema.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "object | boolean")] schema: JsValue,
    ) -> Result<JsSchema, JsValue> {
        let arena = Bump::new();
        let schema = Walker::new(DEFAULT_MAX_DEPTH, &arena).read(&schema)?;
        Schema::compile(&schema)
            .map(|inner| JsSchema { inner })
            .map_err(|e| error::to_js(&e))
    }

    /// Throws the first way `value` breaks the schema (code and JSON Pointer into the value);
    /// returns nothing when it fits.
    pub fn validate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    ) -> Result<(), JsValue> {
        let arena = Bump::new();
        let value = Walker::new(DEFAULT_MAX_DEPTH, &arena).read(&value)?;
        self.inner.validate(&value).map_err(|e| error::to_js(&e))
    }
}
