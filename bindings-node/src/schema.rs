//! `Schema`: a tool-argument JSON Schema on its own, compiled once.

use crate::host;
use crate::run;
use actionseal_core::{Options, Schema as CoreSchema};
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

/// A tool-argument JSON Schema (the strict subset contracts use), compiled once.
///
/// A tool-argument JSON Schema (actionseal's strict subset of JSON Schema 2020-12: closed
/// objects, strict types, ECMA patterns, formats), compiled once.
///
/// `new Schema(schema)` throws `unsupported_schema` (a keyword, format or pattern feature
/// outside the subset) or `invalid_schema` (a malformed keyword), with the JSON Pointer of the
/// offending part of the schema as `path`. A contract's `args` is such a schema.
#[napi]
pub struct Schema {
    inner: CoreSchema,
}

#[napi]
impl Schema {
    /// Compiles a schema; raises ActionsealError (unsupported_schema, invalid_schema).
    #[napi(constructor, ts_args_type = "schema: object")]
    pub fn new(env: Env, schema: Unknown<'_>, options: Option<Unknown<'_>>) -> Result<Schema> {
        run(&env, |js| {
            crate::options::none(js, options.map(|o| o.raw()))?;
            let inner = host::with_value(js, schema.raw(), &Options::default(), |schema, _| {
                CoreSchema::compile(schema)
            })??;
            Ok(Schema { inner })
        })
    }

    /// Raises ActionsealError with the first way the value breaks the schema.
    ///
    /// Throws the first way `value` breaks the schema (`type_mismatch`, `unknown_field`,
    /// `missing_field`, ..., with the JSON Pointer of the value concerned as `path`);
    /// returns nothing when it fits.
    #[napi(ts_args_type = "value: unknown")]
    pub fn validate(
        &self,
        env: Env,
        value: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<()> {
        run(&env, |js| {
            crate::options::none(js, options.map(|o| o.raw()))?;
            host::with_value(js, value.raw(), &Options::default(), |value, _| {
                self.inner.validate(value)
            })??;
            Ok(())
        })
    }
}
