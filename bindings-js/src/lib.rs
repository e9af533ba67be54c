//! What actionseal's two JavaScript packages share: the walker (`js/host.mjs`), which records
//! a JavaScript value on a tape in one call, and the decoder of that tape ([`decode`]), which
//! hands what it reads to core's host rulebook (`actionseal_core::host`). The Node addon
//! (napi) and the WebAssembly build (wasm-bindgen) only move the tape and the text between
//! JavaScript and Rust, each in its own way.

pub mod salts;
mod tape;

pub use tape::{
    canonical, canonical_into, decode, decode_held_first, header, may_be_lossy, Decoded, Fail,
    Gathered, Header, Lift, Text,
};

use actionseal_core::host::HostType;
use actionseal_core::{canonicalize, Value, Verdict};
use std::borrow::Cow;

/// The walker, an ES module: `export const host = <expression>`.
pub const MODULE: &str = include_str!("../js/host.mjs");

/// Where the expression begins.
const MARKER: &str = "\nexport const host = ";

/// The walker as a script whose completion value is the `host` object, for a runtime that
/// runs scripts rather than modules (Node-API's `napi_run_script`): the expression after
/// `MARKER`. The module holds only comments before it (checked by a test).
pub fn script() -> &'static str {
    MODULE
        .split_once(MARKER)
        .map_or("", |(_, expression)| expression)
}

/// What the walker's `describe` said a value is, as core names types.
pub fn described(description: &str) -> HostType<'_> {
    match description {
        "undefined" => HostType::Undefined,
        "null" => HostType::Null,
        "boolean" => HostType::Boolean,
        "number" => HostType::Number,
        "string" => HostType::String,
        "bigint" => HostType::BigInt,
        "symbol" => HostType::Symbol,
        "function" => HostType::Function,
        other => HostType::Object(other.strip_prefix("object:")),
    }
}

/// `check`'s verdict for the walker's `verdict`: core's strings laid end to end, and their
/// lengths in UTF-16 code units, in the order `verdict` in host.mjs reads them (-1 for null;
/// -2 for an approved digest that is the action's, as it is whenever the action is the
/// approved one: written once).
pub fn verdict_pool(v: &Verdict) -> (String, Vec<i32>) {
    let mut pool = String::with_capacity(256);
    let mut lengths = Vec::with_capacity(8 + v.reasons.len());
    verdict_pool_into(v, &mut pool, &mut lengths);
    (pool, lengths)
}

/// [`verdict_pool`], written into `pool` and `lengths` (emptied first), such as buffers kept
/// from one call to the next.
pub fn verdict_pool_into(v: &Verdict, pool: &mut String, lengths: &mut Vec<i32>) {
    use std::fmt::Write;
    pool.clear();
    lengths.clear();
    push(pool, lengths, v.outcome.as_str());
    // A digest's text is ASCII: its length in units is its length in bytes.
    let digest = |d: &actionseal_core::Digest, pool: &mut String, lengths: &mut Vec<i32>| {
        let at = pool.len();
        // Writing to a String cannot fail.
        let _ = write!(pool, "{d}");
        lengths.push((pool.len() - at) as i32);
    };
    digest(&v.action_digest, pool, lengths);
    match &v.approved_digest {
        Some(d) if *d == v.action_digest => lengths.push(-2),
        Some(d) => digest(d, pool, lengths),
        None => lengths.push(-1),
    }
    match &v.action_error {
        Some(e) => {
            push(pool, lengths, e.code().as_str());
            push(pool, lengths, e.path());
        }
        None => lengths.push(-1),
    }
    lengths.push(v.reasons.len() as i32);
    for r in &v.reasons {
        push(pool, lengths, r.as_str());
    }
    if v.drift.is_empty() {
        lengths.push(-1);
    } else {
        // JSON text, so that any pointer (spaces, commas, anything) crosses intact.
        let pointers = v
            .drift
            .iter()
            .map(|p| Value::String(Cow::Borrowed(p.as_str())))
            .collect();
        push(pool, lengths, &canonicalize(&Value::Array(pointers)));
    }
    // A quorum's state, only under a quorum, as core words it: one JSON text.
    let quorum = v.quorum.as_ref().and_then(|_| match v.to_value() {
        Value::Object(whole) => whole.get("quorum").map(canonicalize),
        _ => None,
    });
    match quorum {
        Some(text) => push(pool, lengths, &text),
        None => lengths.push(-1),
    }
}

/// Appends `s` to the pool and its length in UTF-16 code units to `lengths`.
fn push(pool: &mut String, lengths: &mut Vec<i32>, s: &str) {
    pool.push_str(s);
    let units = if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    };
    lengths.push(units as i32);
}

#[cfg(feature = "wasm")]
pub mod wasm {
    //! The walker, imported by wasm-bindgen (which copies `js/host.mjs` into the package).

    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(module = "/js/host.mjs")]
    extern "C" {
        /// The `host` object.
        pub type Host;

        /// `host` itself.
        #[wasm_bindgen(thread_local_v2, js_name = host)]
        pub static HOST: Host;

        /// `host.gather(given, maxDepth, objectProtos, arrayProtos, heldProto, count, v0, v1, v2)`;
        /// throws what a getter or Proxy trap of the values throws.
        #[wasm_bindgen(method, catch)]
        #[allow(clippy::too_many_arguments)]
        pub fn gather(
            this: &Host,
            given: &js_sys::Float64Array,
            max_depth: f64,
            object_protos: &JsValue,
            array_protos: &JsValue,
            held_proto: &JsValue,
            count: u32,
            v0: &JsValue,
            v1: &JsValue,
            v2: &JsValue,
        ) -> Result<JsValue, JsValue>;

        /// `host.lend(value, proto)`: whether `value`, an instance of the class of `proto`,
        /// handed its Rust value over; throws what a getter or Proxy trap throws.
        #[wasm_bindgen(method, catch)]
        pub fn lend(this: &Host, value: &JsValue, proto: &JsValue) -> Result<bool, JsValue>;

        /// `host.wellFormed(text)`: whether a string has no lone surrogate.
        #[wasm_bindgen(method, js_name = wellFormed)]
        pub fn well_formed(this: &Host, text: &JsValue) -> bool;

        /// `host.units(text)`: the UTF-16 code units of a string.
        #[wasm_bindgen(method)]
        pub fn units(this: &Host, text: &JsValue) -> js_sys::Uint16Array;

        /// `host.describe(value)`.
        #[wasm_bindgen(method)]
        pub fn describe(this: &Host, value: &JsValue) -> String;

        /// `host.fail(code, message, path, offset)`: a new `ActionsealError`.
        #[wasm_bindgen(method)]
        pub fn fail(this: &Host, code: &str, message: &str, path: &str, offset: f64) -> JsValue;

        /// `host.seed()`: 32 bytes from `crypto.getRandomValues`; throws where there is none.
        #[wasm_bindgen(method, catch)]
        pub fn seed(this: &Host) -> Result<js_sys::Uint8Array, JsValue>;

        /// `host.verdict(pool, lengths)`.
        #[wasm_bindgen(method)]
        pub fn verdict(this: &Host, pool: &str, lengths: &[i32]) -> JsValue;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_is_the_module_without_its_export() {
        let (before, after) = MODULE.split_once(MARKER).expect("the marker");
        assert!(before.lines().all(|l| l.is_empty() || l.starts_with("//")));
        assert!(!after.contains("\nexport ") && !after.contains("\nimport "));
        assert_eq!(script(), after);
        assert!(script().trim_end().ends_with("})()"));
    }

    #[test]
    fn descriptions_name_types() {
        assert_eq!(described("bigint").name(), "BigInt");
        assert_eq!(described("object:Uint16Array").name(), "Uint16Array");
        assert_eq!(described("object:").name(), "object");
        assert_eq!(described("null").name(), "null");
    }
}
