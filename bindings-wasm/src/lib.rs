//! WebAssembly bindings of actionseal, for browsers and Node: the API of the Node package.
//!
//! Every function is synchronous. Failures throw an `ActionsealError` (the class of the
//! walker module both JavaScript packages share, exported by this package's entry points)
//! whose message is core's Display text and which has `code`, `path` and `offset`. All rules,
//! defaults and messages come from `actionseal-core`, whose host rulebook decides what a
//! JavaScript value may be; this crate only moves values, with the walker and tape decoder it
//! shares with the Node addon (`actionseal-js`).
//!
//! Canonical form and fingerprints are here; the approval model is in `model.rs`,
//! `contract.rs`, `approval.rs`, `schema.rs`, `set.rs` (a quorum's set) and `batch.rs`
//! (batches); proof of who decided in `proof.rs` and `delegation.rs`.

mod approval;
mod batch;
mod contract;
mod delegation;
mod error;
mod evidence;
mod gate;
mod host;
mod model;
mod options;
mod proof;
mod schema;
mod sensitive;
mod set;
mod to_js;
mod types;

pub use approval::JsApproval;
pub use batch::{
    batch_build, batch_decide, batch_deselect, batch_verify_decision, batch_verify_item,
    breaker_step, check_batch, check_item,
};
pub use contract::JsContract;
pub use delegation::{delegation_digest, sign_delegation, verify_delegation};
pub use evidence::verify_evidence;
pub use gate::{gate_defaults, gate_step};
pub use model::{
    action, amend, approve, charge, check, notices, requires_approval, short_fingerprint,
};
pub use proof::{
    ed25519_verify, pae, passkey_challenge, public_key, verify_envelope, verify_passkey,
    verify_proof, verify_registration, JsSigningKey,
};
pub use schema::JsSchema;
pub use sensitive::{commit_action, reveal_action};
pub use set::check_set;

use actionseal_core::Options;
use actionseal_js::wasm::HOST;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The options argument, typed for TypeScript.
    #[wasm_bindgen(typescript_type = "Options")]
    pub type OptionsArg;

    /// A JSON text argument, typed for TypeScript.
    #[wasm_bindgen(typescript_type = "JsonText")]
    pub type JsonTextArg;

    /// The options argument of the approval model's functions, which take none (core refuses
    /// any with `invalid_option`: they never round a number).
    #[wasm_bindgen(typescript_type = "undefined")]
    pub type NoOptions;
}

/// The RFC 8785 canonical JSON text of a value.
///
/// The RFC 8785 canonical text of a JavaScript value (plain objects, arrays, strings, finite
/// numbers, booleans, `null`).
#[wasm_bindgen(js_name = canonicalize)]
pub fn canonicalize(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    options: Option<OptionsArg>,
) -> Result<String, JsValue> {
    Ok(host::canonical(&value, &read_options(options)?)?)
}

/// `"sha256:<64 hex>"` of the canonical text of a value.
///
/// The fingerprint (`sha256:` + 64 hex digits) of a JavaScript value's canonical text.
#[wasm_bindgen(js_name = fingerprint)]
pub fn fingerprint(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    options: Option<OptionsArg>,
) -> Result<String, JsValue> {
    let text = host::canonical(&value, &read_options(options)?)?;
    Ok(actionseal_core::Digest::of(text.as_bytes()).to_string())
}

/// The RFC 8785 canonical form of JSON text given as str or UTF-8 bytes.
#[wasm_bindgen(js_name = canonicalizeJson)]
pub fn canonicalize_json(
    text: JsonTextArg,
    options: Option<OptionsArg>,
) -> Result<String, JsValue> {
    let options = read_options(options)?;
    let bytes = text_bytes(&text)?;
    actionseal_core::canonicalize_json(&bytes, &options).map_err(|e| error::to_js(&e))
}

/// `"sha256:<64 hex>"` of the canonical form of JSON text.
///
/// The fingerprint of a JSON text (a string or UTF-8 bytes).
#[wasm_bindgen(js_name = fingerprintJson)]
pub fn fingerprint_json(text: JsonTextArg, options: Option<OptionsArg>) -> Result<String, JsValue> {
    let options = read_options(options)?;
    let bytes = text_bytes(&text)?;
    actionseal_core::fingerprint_json(&bytes, &options)
        .map(|d| d.to_string())
        .map_err(|e| error::to_js(&e))
}

/// JSON text parsed as strictly as every function reads JSON, as fresh plain values (JavaScript's
/// `loads`).
///
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

/// Whether two fingerprints name the same digest, compared in constant time; anything that is not a
/// well-formed fingerprint str is equal to nothing. Never raises.
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
    options::read(&options.map_or(JsValue::UNDEFINED, Into::into))
}

/// Refuses the options a caller passed to a function of the approval model.
fn no_options(options: Option<NoOptions>) -> Result<(), JsValue> {
    options::none(&options.map_or(JsValue::UNDEFINED, Into::into))
}

/// The bytes of a JSON text argument: a string (lone surrogates kept, in their three-byte
/// form, for the parser to report with their offset) or a `Uint8Array` (a `Buffer` is one),
/// copied; anything else is core's `unsupported_type`.
fn text_bytes(text: &JsValue) -> Result<Vec<u8>, JsValue> {
    if text.is_string() {
        // UTF-8 from the engine when that is lossless, else from the code units.
        if HOST.with(|h| h.well_formed(text)) {
            return Ok(text.as_string().unwrap_or_default().into_bytes());
        }
        let units = HOST.with(|h| h.units(text)).to_vec();
        return Ok(actionseal_core::utf16_to_wtf8(&units));
    }
    if let Some(bytes) = text.dyn_ref::<js_sys::Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    let description = HOST.with(|h| h.describe(text));
    Err(error::to_js(&actionseal_core::host::json_text(
        actionseal_js::described(&description),
    )))
}
