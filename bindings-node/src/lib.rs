//! Node.js bindings for actionseal: RFC 8785 canonical JSON and SHA-256 fingerprints that
//! bind a human approval to the exact action it was given for, and the approval model built
//! on them (contracts, action envelopes, approval records, the permit check, budgets).
//!
//! Every rule, default and error text is core's (`actionseal-core`, whose host rulebook
//! decides what a JavaScript value may be); this crate only moves values between JavaScript
//! and core, with the walker and tape decoder it shares with the WebAssembly build
//! (`actionseal-js`), and throws core's errors as `ActionsealError`s (`code`, `path`,
//! `offset`; the message is core's Display text).
//!
//! Canonical form and fingerprints are here; the approval model is in `model.rs`,
//! `contract.rs`, `approval.rs` and `schema.rs`; proof of who decided in `proof.rs`.

mod approval;
mod contract;
mod fail;
mod host;
mod instance;
mod js;
mod ledger;
mod model;
mod options;
mod proof;
mod schema;
mod strings;
mod text;
mod to_js;
mod verdict;

pub use approval::Approval;
pub use contract::{Contract, Requirement};
pub use ledger::{verify_audit, Ledger, ManualClock};
pub use model::{action, amend, approve, charge, check, requires_approval, short_fingerprint};
pub use proof::{
    ed25519_verify, pae, passkey_challenge, public_key, verify_envelope, verify_passkey,
    verify_proof, verify_registration, SigningKey,
};
pub use schema::Schema;

use actionseal_core::{digest_equal as core_digest_equal, Digest, Options};
use fail::Fail;
use js::{Js, JsResult};
use napi::bindgen_prelude::{Env, Object, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

/// What every function throws for input it refuses: an `Error` whose `code` says why, with
/// the JSON Pointer `path` of the value concerned and, for JSON text, the byte `offset` in
/// its UTF-8 (else `null`). The message is `"<code>: <explanation>"` and the location; only
/// `code`, `path` and `offset` are stable. An exception thrown by a getter or a Proxy trap of
/// a value is passed on unchanged instead.
///
/// @example
/// try { fingerprint({ amount: 10n }) } catch (e) {
///   if (e instanceof ActionsealError) console.log(e.code, e.path) // unsupported_type /amount
/// }
#[napi]
pub struct ActionsealError {}
// The class is the walker's (bindings-js/js/host.mjs), which both JavaScript packages share;
// this struct only gives it its place among the generated exports and declarations, and
// `module_exports` puts the real class there.

/// Exports the error class of this environment's walker in place of the placeholder.
#[napi(module_exports)]
pub fn module_exports(env: Env, exports: Object<'_>) -> Result<()> {
    run(&env, |js| {
        let class = js.named(instance::get(js, |i| i.host)?, c"ActionsealError")?;
        js.set_named(exports.raw(), c"ActionsealError", class)?;
        // The functions called most often, on small values, go straight to Node-API: the
        // generic wrapper around the `#[napi]` functions costs a tenth of a small call.
        js.set_named(
            exports.raw(),
            c"fingerprint",
            js.function(c"fingerprint", raw::fingerprint)?,
        )?;
        js.set_named(
            exports.raw(),
            c"canonicalize",
            js.function(c"canonicalize", raw::canonicalize)?,
        )
    })
}

/// Options of `canonicalize`, `fingerprint`, `canonicalizeJson`, `fingerprintJson` and
/// `parseJson`.
#[napi(object, js_name = "Options")]
pub struct CanonOptions {
    /// Number profile: `"strict"` (the default) refuses a number whose canonical form would
    /// denote a different value (`9007199254740993`, `1e-400`) with code `inexact_number`;
    /// `"rfc8785"` rounds every number to the nearest double, as plain RFC 8785 does. Any
    /// other value is an error with code `invalid_option`. Host values (JavaScript numbers)
    /// are doubles already, so the profile only matters for JSON text.
    #[napi(ts_type = "'strict' | 'rfc8785'")]
    pub profile: Option<String>,
}

/// Runs a conversion and turns its failure into a thrown JavaScript error.
pub(crate) fn run<T>(env: &Env, f: impl FnOnce(Js) -> JsResult<T>) -> Result<T> {
    let js = Js(env.raw());
    f(js).map_err(|fail: Fail| fail.throw(js))
}

fn read_options(js: Js, options: Option<Unknown<'_>>) -> JsResult<Options> {
    options::read(js, options.map(|o| o.raw()))
}

/// The RFC 8785 canonical JSON text of a JavaScript value.
///
/// Accepts plain objects (prototype `Object.prototype` or `null`, also another realm's such
/// as a `vm` context's), arrays, strings, finite numbers (`-0` becomes `0`), booleans and
/// `null`; a Proxy is read through its traps. Anything else throws an `ActionsealError` with a
/// `code` and the JSON Pointer `path` of the value: `unsupported_type` (`undefined`, BigInt,
/// Symbol, functions, `Date`, `Map`, `Set`, typed arrays, boxed primitives, class instances,
/// objects with a `toJSON` method), `sparse_array`, `cyclic_value`, `non_finite_number`,
/// `lone_surrogate`, `non_string_key` (a symbol key) or `depth_limit_exceeded` (nesting
/// deeper than 128). Only own enumerable string keys are read; an exception thrown by a
/// getter or Proxy trap propagates unchanged.
///
/// @example
/// canonicalize({ b: 1, a: "x" }) // '{"a":"x","b":1}'
#[napi(
    ts_args_type = "value: unknown, options?: Options | null",
    ts_return_type = "string"
)]
pub fn canonicalize(
    env: Env,
    value: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let text = canonical_of(js, value.raw(), options.map(|o| o.raw()))?;
        Ok(to_js::unknown(js, text))
    })
}

/// The fingerprint of a JavaScript value: `"sha256:"` followed by the 64 lowercase hex
/// digits of the SHA-256 digest of its canonical JSON text.
///
/// Accepts the same values as `canonicalize` and throws the same errors.
///
/// @example
/// fingerprint({ order_id: "A-17", amount_minor: 2500 }) // 'sha256:…'
#[napi(
    ts_args_type = "value: unknown, options?: Options | null",
    ts_return_type = "string"
)]
pub fn fingerprint(
    env: Env,
    value: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let f = fingerprint_of(js, value.raw(), options.map(|o| o.raw()))?;
        Ok(to_js::unknown(js, f))
    })
}

/// `fingerprint(value, options)`.
fn fingerprint_of(js: Js, value: js::Handle, options: Option<js::Handle>) -> JsResult<js::Handle> {
    let opts = options::read(js, options)?;
    let digest = Digest::of(host::canonical(js, value, &opts)?.as_bytes());
    to_js::string(js, &digest.to_string())
}

/// `canonicalize(value, options)`.
fn canonical_of(js: Js, value: js::Handle, options: Option<js::Handle>) -> JsResult<js::Handle> {
    let opts = options::read(js, options)?;
    to_js::string(js, &host::canonical(js, value, &opts)?)
}

mod raw {
    //! `fingerprint` and `canonicalize` as plain Node-API callbacks (see `module_exports`).

    use crate::js::{Handle, Js};
    use napi::sys;
    use std::ptr;

    type Body = fn(Js, Handle, Option<Handle>) -> crate::js::JsResult<Handle>;

    /// Reads `(value, options?)` and runs `body`, throwing its failure.
    ///
    /// # Safety
    /// Called by Node-API with the environment and callback info of a call.
    unsafe fn call(env: sys::napi_env, info: sys::napi_callback_info, body: Body) -> Handle {
        let js = Js(env);
        let mut argc = 2usize;
        let mut argv: [Handle; 2] = [ptr::null_mut(); 2];
        let status = unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                &mut argc,
                argv.as_mut_ptr(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        let result = if status != sys::Status::napi_ok {
            Err(crate::fail::Fail::Napi(status))
        } else {
            // Missing arguments are `undefined`, as Node-API fills them.
            body(js, argv[0], (argc > 1).then_some(argv[1]))
        };
        match result {
            Ok(v) => v,
            Err(fail) => {
                fail.throw_now(js);
                ptr::null_mut()
            }
        }
    }

    pub(super) unsafe extern "C" fn fingerprint(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Handle {
        unsafe { call(env, info, crate::fingerprint_of) }
    }

    pub(super) unsafe extern "C" fn canonicalize(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Handle {
        unsafe { call(env, info, crate::canonical_of) }
    }
}

/// The RFC 8785 canonical form of JSON text, given as a string or as UTF-8 bytes
/// (`Uint8Array` or `Buffer`).
///
/// The text is parsed strictly: duplicate keys, lone surrogates (escaped, or unpaired in the
/// string itself), a byte-order mark, `NaN`, numbers too large for a double and (under the
/// default `"strict"` profile) numbers that would change value all throw an `ActionsealError` with a
/// `code`, the JSON Pointer `path` and the byte `offset` in the UTF-8 text. Input is limited to
/// 16 MiB and 128 levels of nesting.
///
/// @example
/// canonicalizeJson('{"b": 1.50, "a": [true]}') // '{"a":[true],"b":1.5}'
#[napi(ts_args_type = "text: string | Uint8Array, options?: Options | null")]
pub fn canonicalize_json(
    env: Env,
    text: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<String> {
    run(&env, |js| {
        let opts = read_options(js, options)?;
        text::with_bytes(js, text.raw(), &opts, actionseal_core::canonicalize_json)
    })
}

/// The fingerprint of JSON text (a string or UTF-8 bytes): `"sha256:"` followed by the
/// SHA-256 digest, in lowercase hex, of its canonical form.
///
/// Reads the text like `canonicalizeJson` and throws the same errors.
///
/// @example
/// fingerprintJson('{"amount_minor": 2500}') // 'sha256:…'
#[napi(
    ts_args_type = "text: string | Uint8Array, options?: Options | null",
    ts_return_type = "string"
)]
pub fn fingerprint_json(
    env: Env,
    text: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let opts = read_options(js, options)?;
        let digest = text::with_bytes(js, text.raw(), &opts, actionseal_core::fingerprint_json)?;
        to_js::text(js, &digest.to_string())
    })
}

/// JSON text (a string or UTF-8 bytes) parsed strictly, as every actionseal function reads
/// JSON: duplicate keys, lone surrogates, `NaN`, numbers too large for a double, inexact
/// numbers (under the default `"strict"` profile), a byte-order mark and nesting deeper than
/// 128 levels throw, as for `canonicalizeJson`. Returns fresh plain objects and arrays; a
/// `"__proto__"` key is an own property, as `JSON.parse` makes it.
///
/// @example
/// parseJson('{"amount_minor": 2500.00}') // { amount_minor: 2500 }
/// parseJson('{"a": 1, "a": 2}')          // throws duplicate_key at /a
#[napi(
    ts_args_type = "text: string | Uint8Array, options?: Options | null",
    ts_return_type = "unknown"
)]
pub fn parse_json(
    env: Env,
    text: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let opts = read_options(js, options)?;
        let canonical =
            text::with_bytes(js, text.raw(), &opts, actionseal_core::canonicalize_json)?;
        to_js::json(js, &canonical)
    })
}

/// Whether two fingerprints name the same digest, compared in constant time.
///
/// Each must be `"sha256:"` followed by 64 lowercase hex digits. A malformed fingerprint,
/// or an argument that is not a string, is never equal to anything: the result is `false`,
/// nothing is thrown.
///
/// @example
/// digestEqual(approval.fingerprint, fingerprint(action)) // true when they match
#[napi(ts_args_type = "a: unknown, b: unknown")]
pub fn digest_equal(env: Env, a: Unknown<'_>, b: Unknown<'_>) -> Result<bool> {
    run(&env, |js| {
        let mut reader = strings::Reader::new(js);
        let mut read = |v: Unknown<'_>| match reader.string(v.raw()) {
            Ok(s) => Ok(s),
            // A lone surrogate cannot be part of a well-formed digest.
            Err(Fail::Core(_)) => Ok(None),
            Err(f) => Err(f),
        };
        let (Some(a), Some(b)) = (read(a)?, read(b)?) else {
            return Ok(false);
        };
        Ok(core_digest_equal(&a, &b))
    })
}
