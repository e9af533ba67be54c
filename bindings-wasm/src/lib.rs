//! WebAssembly bindings of actionseal, for browsers and Node: the API of the Node package.
//!
//! Every function is synchronous. Failures throw a JavaScript `Error` whose message is core's
//! Display text and which has `code`, `path` and `offset` properties. All rules, defaults and
//! messages come from `actionseal-core`; this crate only converts values.
//!
//! Canonical form and fingerprints are here; the approval model is in `model.rs`,
//! `contract.rs` and `schema.rs`.

mod contract;
mod error;
mod fail;
mod host;
mod js;
mod model;
mod options;
mod schema;
mod to_js;

pub use contract::JsContract;
pub use model::{action, approve, charge, check, requires_approval, short_fingerprint};
pub use schema::JsSchema;

use actionseal_core::{Error, Options, Value};
use bumpalo::Bump;
use options::BadOptions;
use wasm_bindgen::prelude::*;

/// Gives `js/host.js` this instance's memory, once, when the module is instantiated.
#[wasm_bindgen(start)]
fn start() {
    js::attach(&wasm_bindgen::memory());
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Options of every function. */
export interface Options {
  /** Number profile: "strict" (the default) refuses numbers whose value canonicalization
   * would change; "rfc8785" rounds them as plain RFC 8785 does. */
  profile?: "strict" | "rfc8785";
}

/** A JSON text: a string, or its UTF-8 bytes. */
export type JsonText = string | Uint8Array;

/** What every function throws: a plain `Error` with these properties. */
export interface ActionsealError extends Error {
  /** Stable snake_case code, such as "duplicate_key" or "unsupported_type". */
  code: string;
  /** JSON Pointer (RFC 6901) to the value concerned; "" for the root. */
  path: string;
  /** Byte offset in the UTF-8 input text, when the input was text. */
  offset: number | undefined;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// The options argument, typed for TypeScript.
    #[wasm_bindgen(typescript_type = "Options")]
    pub type OptionsArg;

    /// A JSON text argument, typed for TypeScript.
    #[wasm_bindgen(typescript_type = "JsonText")]
    pub type JsonTextArg;
}

/// The RFC 8785 canonical text of a JavaScript value (plain objects, arrays, strings, finite
/// numbers, booleans, `null`).
#[wasm_bindgen(js_name = canonicalize)]
pub fn canonicalize(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    options: Option<OptionsArg>,
) -> Result<String, JsValue> {
    with_host_value(&value, options, actionseal_core::canonicalize)
}

/// The fingerprint (`sha256:` + 64 hex digits) of a JavaScript value's canonical text.
#[wasm_bindgen(js_name = fingerprint)]
pub fn fingerprint(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    options: Option<OptionsArg>,
) -> Result<String, JsValue> {
    with_host_value(&value, options, |v| {
        actionseal_core::fingerprint(v).to_string()
    })
}

/// The RFC 8785 canonical text of a JSON text (a string or UTF-8 bytes).
#[wasm_bindgen(js_name = canonicalizeJson)]
pub fn canonicalize_json(
    text: JsonTextArg,
    options: Option<OptionsArg>,
) -> Result<String, JsValue> {
    let options = read_options(options)?;
    let bytes = text_bytes(&text)?;
    actionseal_core::canonicalize_json(&bytes, &options).map_err(|e| error::to_js(&e))
}

/// The fingerprint of a JSON text (a string or UTF-8 bytes).
#[wasm_bindgen(js_name = fingerprintJson)]
pub fn fingerprint_json(text: JsonTextArg, options: Option<OptionsArg>) -> Result<String, JsValue> {
    let options = read_options(options)?;
    let bytes = text_bytes(&text)?;
    actionseal_core::fingerprint_json(&bytes, &options)
        .map(|d| d.to_string())
        .map_err(|e| error::to_js(&e))
}

/// A JSON text (a string or UTF-8 bytes) parsed strictly, as every actionseal function reads
/// JSON: duplicate keys, lone surrogates, `NaN`, numbers too large for a double, inexact
/// numbers (under the default `"strict"` profile) and nesting deeper than 128 levels throw.
/// Returns fresh plain objects and arrays (object members in canonical order; a `"__proto__"`
/// key is an own property).
#[wasm_bindgen(js_name = parseJson, unchecked_return_type = "unknown")]
pub fn parse_json(text: JsonTextArg, options: Option<OptionsArg>) -> Result<JsValue, JsValue> {
    let options = read_options(options)?;
    let bytes = text_bytes(&text)?;
    let value = actionseal_core::parse(&bytes, &options).map_err(|e| error::to_js(&e))?;
    to_js::value(&value)
}

/// Whether two fingerprints name the same digest, compared in constant time; anything that is
/// not a well-formed fingerprint string is equal to nothing.
#[wasm_bindgen(js_name = digestEqual)]
pub fn digest_equal(
    #[wasm_bindgen(unchecked_param_type = "unknown")] a: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown")] b: JsValue,
) -> bool {
    match (a.as_string(), b.as_string()) {
        (Some(a), Some(b)) => actionseal_core::digest_equal(&a, &b),
        _ => false,
    }
}

fn read_options(options: Option<OptionsArg>) -> Result<Options, JsValue> {
    let options: JsValue = options.map_or(JsValue::UNDEFINED, Into::into);
    options::read(&options).map_err(|e| match e {
        BadOptions::Core(e) => error::to_js(&e),
        BadOptions::Thrown(v) => v,
    })
}

/// Converts a host value under `options` and applies `f` to it.
fn with_host_value<T>(
    value: &JsValue,
    options: Option<OptionsArg>,
    f: impl FnOnce(&Value<'_>) -> T,
) -> Result<T, JsValue> {
    let options = read_options(options)?;
    let arena = Bump::new();
    let mut walker = host::Walker::new(options.max_depth, &arena);
    match walker.root(value) {
        Ok(v) => Ok(f(&v)),
        Err(fail) => Err(fail.into_js(options.max_depth, None)),
    }
}

/// The bytes of a JSON text argument: a string (lone surrogates kept for the parser to
/// report with their offset) or a `Uint8Array` (a `Buffer` is one), copied.
fn text_bytes(text: &JsValue) -> Result<Vec<u8>, JsValue> {
    let max_depth = Options::default().max_depth;
    match host::Walker::new(max_depth, &Bump::new()).text(text) {
        Ok(Some(bytes)) => return Ok(bytes),
        Ok(None) => {}
        Err(fail) => return Err(fail.into_js(max_depth, None)),
    }
    if let Some(bytes) = text.dyn_ref::<js_sys::Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    // Named as the Node package names it, for the message only.
    let name = if text.is_null() {
        "null".to_owned()
    } else if text.is_object() {
        Some(js::class_name(text))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "object".to_owned())
    } else {
        match text.js_typeof().as_string().as_deref() {
            Some("symbol") => "Symbol".to_owned(),
            Some("bigint") => "BigInt".to_owned(),
            Some(t) => t.to_owned(),
            None => "value".to_owned(),
        }
    };
    Err(error::to_js(&Error::not_json_text(&name)))
}
