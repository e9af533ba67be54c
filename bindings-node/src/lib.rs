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
//! `contract.rs`, `approval.rs`, `schema.rs` and `set.rs` (a quorum's set); proof of who
//! decided in `proof.rs` and `delegation.rs`. They build on a floor that uses none of them
//! (`scripts/import-cycles` checks): Node-API calls (`js.rs`), failures and how they are
//! thrown (`fail.rs`, `throw.rs`), per-environment state (`instance.rs`), strings
//! (`strings.rs`, `text.rs`, `to_js.rs`) and the walk of host values (`host.rs`,
//! `options.rs`).

mod approval;
mod batch;
mod contract;
mod delegation;
mod evidence;
mod fail;
mod gate;
mod host;
mod instance;
mod js;
mod ledger;
mod ledger_batch;
mod ledger_evidence;
mod ledger_retention;
mod log_key;
mod model;
mod options;
mod proof;
mod schema;
mod sensitive;
mod set;
mod strings;
mod text;
mod throw;
mod to_js;
mod verdict;
mod webhook;

pub use approval::Approval;
pub use batch::{
    batch_build, batch_decide, batch_deselect, batch_verify_decision, batch_verify_item,
    breaker_step, check_batch, check_item,
};
pub use contract::{Contract, Requirement};
pub use delegation::{delegation_digest, sign_delegation, verify_delegation};
pub use evidence::verify_evidence;
pub use gate::{gate_defaults, gate_step};
pub use ledger::{verify_audit, Ledger, ManualClock};
pub use model::{
    action, amend, approve, charge, check, notices, requires_approval, short_fingerprint,
};
pub use proof::{
    ed25519_verify, pae, passkey_challenge, public_key, verify_envelope, verify_passkey,
    verify_proof, verify_registration, SigningKey,
};
pub use schema::Schema;
pub use sensitive::{commit_action, reveal_action};
pub use set::check_set;
pub use webhook::{sign_webhook, verify_webhook};

use actionseal_core::{digest_equal as core_digest_equal, Digest, Options};
use fail::Fail;
use js::{Js, JsResult};
use napi::bindgen_prelude::{Env, Object, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

/// Raised when input is refused, a value of the wrong type included; `code` says why.
///
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

/// Exports the error class of this environment's walker in place of the placeholder, and the
/// walker's front (`host.front`) in place of `fingerprint`, `canonicalize` and `check`.
#[napi(module_exports)]
pub fn module_exports(env: Env, exports: Object<'_>) -> Result<()> {
    run(&env, |js| {
        let host = instance::get(js, |i| i.host)?;
        let class = js.named(host, c"ActionsealError")?;
        js.set_named(exports.raw(), c"ActionsealError", class)?;
        // The calls made most often, on small values, walk in JavaScript first and then call
        // the addon once (see `front` in the walker); the rest goes straight to Node-API: the
        // generic wrapper around the `#[napi]` functions costs a tenth of a small call.
        let natives = js.object()?;
        let set = |name: &std::ffi::CStr, v| js.set_named(natives, name, v);
        set(
            c"fingerprint",
            js.function(c"fingerprint", raw::fingerprint)?,
        )?;
        set(
            c"canonicalize",
            js.function(c"canonicalize", raw::canonicalize)?,
        )?;
        set(c"check", js.named(exports.raw(), c"check")?)?;
        set(c"digest", js.function(c"digest", raw::digest)?)?;
        set(c"digestWalk", js.function(c"digestWalk", raw::digest_walk)?)?;
        set(c"canonical", js.function(c"canonical", raw::canonical)?)?;
        set(
            c"canonicalWalk",
            js.function(c"canonicalWalk", raw::canonical_walk)?,
        )?;
        let remembered = raw::remembered();
        let check_loaded = js.function_with(c"checkLoaded", raw::check_loaded, remembered);
        let check_loaded = match check_loaded
            .and_then(|f| js.finalize_with(f, remembered, raw::forget).map(|()| f))
        {
            Ok(f) => f,
            Err(e) => {
                // SAFETY: the box was made above, and nothing holds it now.
                unsafe { raw::forget(js.0, remembered, std::ptr::null_mut()) };
                return Err(e);
            }
        };
        set(c"checkLoaded", check_loaded)?;
        set(c"maxDepth", js.number(Options::default().max_depth as f64)?)?;
        set(c"lengths", instance::get(js, |i| i.lengths)?)?;
        set(c"approvalProto", approval::class_prototype(js)?)?;
        set(c"contractProto", instance::get(js, |i| i.contract_proto)?)?;
        let fronts = js.call(js.named(host, c"front")?, &[natives])?;
        for name in [c"fingerprint", c"canonicalize", c"check"] {
            js.set_named(exports.raw(), name, js.named(fronts, name)?)?;
        }
        Ok(())
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

/// The RFC 8785 canonical JSON text of a value.
///
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
        let text = canonical_of(js, value.raw(), options.map(|o| o.raw()), None)?;
        Ok(to_js::unknown(js, text))
    })
}

/// `"sha256:<64 hex>"` of the canonical text of a value.
///
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
        let f = fingerprint_of(js, value.raw(), options.map(|o| o.raw()), None)?;
        Ok(to_js::unknown(js, f))
    })
}

/// `fingerprint(value, options)`; `first` is the walker front's walk of `value`.
fn fingerprint_of(
    js: Js,
    value: js::Handle,
    options: Option<js::Handle>,
    first: Option<host::Walked>,
) -> JsResult<js::Handle> {
    let opts = options::read(js, options)?;
    let digest = host::with_canonical(js, value, &opts, first, |t| Digest::of(t.as_bytes()))?;
    // `sha256:` and 64 hex digits, written without allocating.
    const ROOM: usize = 80;
    let mut buf = [0u8; ROOM];
    let mut rest = &mut buf[..];
    std::io::Write::write_fmt(&mut rest, format_args!("{digest}"))
        .map_err(|_| Fail::Internal("digest text"))?;
    let len = ROOM - rest.len();
    let text = std::str::from_utf8(&buf[..len]).map_err(|_| Fail::Internal("digest text"))?;
    to_js::string(js, text)
}

/// `canonicalize(value, options)`; `first` is the walker front's walk of `value`.
fn canonical_of(
    js: Js,
    value: js::Handle,
    options: Option<js::Handle>,
    first: Option<host::Walked>,
) -> JsResult<js::Handle> {
    let opts = options::read(js, options)?;
    host::with_canonical(js, value, &opts, first, |t| to_js::string(js, t))?
}

mod raw {
    //! `fingerprint` and `canonicalize` as plain Node-API callbacks, and the native halves of
    //! the walker's front (see `module_exports`).

    use crate::host::Walked;
    use crate::js::{Handle, Js, JsResult};
    use crate::model::Remembered;
    use napi::sys;
    use std::cell::Cell;
    use std::ffi::c_void;
    use std::ptr;

    /// Reads up to `N` arguments (missing ones are `undefined`, as Node-API fills them) and
    /// how many were given, runs `body`, and throws its failure.
    ///
    /// # Safety
    /// Called by Node-API with the environment and callback info of a call.
    unsafe fn call<const N: usize>(
        env: sys::napi_env,
        info: sys::napi_callback_info,
        body: impl FnOnce(Js, [Handle; N], usize) -> JsResult<Handle>,
    ) -> Handle {
        let js = Js(env);
        let mut argc = N;
        let mut argv: [Handle; N] = [ptr::null_mut(); N];
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
            body(js, argv, argc)
        };
        match result {
            Ok(v) => v,
            Err(fail) => {
                fail.throw_now(js);
                ptr::null_mut()
            }
        }
    }

    /// `fingerprint(value, options?)`.
    pub(super) unsafe extern "C" fn fingerprint(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Handle {
        unsafe {
            call(env, info, |js, [v, o]: [Handle; 2], argc| {
                crate::fingerprint_of(js, v, (argc > 1).then_some(o), None)
            })
        }
    }

    /// `canonicalize(value, options?)`.
    pub(super) unsafe extern "C" fn canonicalize(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Handle {
        unsafe {
            call(env, info, |js, [v, o]: [Handle; 2], argc| {
                crate::canonical_of(js, v, (argc > 1).then_some(o), None)
            })
        }
    }

    /// The front's `digest(text, tape, value)`, when `gather` returned the text alone, and
    /// `digestWalk(result, tape, value)` for anything else it returned.
    pub(super) unsafe extern "C" fn digest(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Handle {
        unsafe { one(env, info, true, crate::fingerprint_of) }
    }

    pub(super) unsafe extern "C" fn digest_walk(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Handle {
        unsafe { one(env, info, false, crate::fingerprint_of) }
    }

    /// The front's `canonical(text, tape, value)` and `canonicalWalk(result, tape, value)`, as
    /// `digest`'s.
    pub(super) unsafe extern "C" fn canonical(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Handle {
        unsafe { one(env, info, true, crate::canonical_of) }
    }

    pub(super) unsafe extern "C" fn canonical_walk(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Handle {
        unsafe { one(env, info, false, crate::canonical_of) }
    }

    type One = fn(Js, Handle, Option<Handle>, Option<Walked>) -> JsResult<Handle>;

    /// A front's call about one value walked.
    ///
    /// # Safety
    /// As [`call`].
    unsafe fn one(
        env: sys::napi_env,
        info: sys::napi_callback_info,
        plain: bool,
        f: One,
    ) -> Handle {
        unsafe {
            call(env, info, |js, [result, tape, v]: [Handle; 3], _| {
                let walked = Walked {
                    result,
                    tape,
                    plain,
                    held: None,
                };
                f(js, v, None, Some(walked))
            })
        }
    }

    /// The front's `checkLoaded(approval, result, tape, action, context, held, same)`: `same`
    /// says which of the approval and the held contract are the objects of the front's last
    /// check (`model::Remembered`), and 4 when `held` is given (the text is then `result`).
    /// The function's data is the front's `Remembered`.
    pub(super) unsafe extern "C" fn check_loaded(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Handle {
        let mut data: *mut c_void = ptr::null_mut();
        // SAFETY: as `call`'s; only the function's data is read here.
        let status = unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut data,
            )
        };
        unsafe {
            call(
                env,
                info,
                |js, [approval, result, tape, action, context, held, same]: [Handle; 7], _| {
                    if status != sys::Status::napi_ok || data.is_null() {
                        return Err(crate::fail::Fail::Internal("no front state"));
                    }
                    // SAFETY: `data` is the front's `Remembered`, made with the function and
                    // freed only when the function is collected; used by
                    // this environment's thread only, through a `Cell`.
                    let remembered = &*data.cast::<Cell<Remembered>>();
                    let same = js.uint32(same)?;
                    let held = (same & 4 != 0).then_some(held);
                    let walked = Walked {
                        result,
                        tape,
                        plain: false,
                        held,
                    };
                    let values = [action, context];
                    crate::model::check_loaded(js, approval, walked, values, same, remembered)
                },
            )
        }
    }

    /// A new front state for `check_loaded`, freed by [`forget`].
    pub(super) fn remembered() -> *mut c_void {
        Box::into_raw(Box::new(Cell::new(Remembered::default()))).cast()
    }

    /// Frees what [`remembered`] made.
    pub(super) unsafe extern "C" fn forget(
        _env: sys::napi_env,
        data: *mut c_void,
        _hint: *mut c_void,
    ) {
        // SAFETY: `data` is a box made by `remembered`, finalized once.
        drop(unsafe { Box::from_raw(data.cast::<Cell<Remembered>>()) });
    }
}

/// The RFC 8785 canonical form of JSON text given as str or UTF-8 bytes.
///
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

/// `"sha256:<64 hex>"` of the canonical form of JSON text.
///
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

/// JSON text parsed as strictly as every function reads JSON, as fresh plain values (JavaScript's
/// `loads`).
///
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

/// Whether two fingerprints name the same digest, compared in constant time; anything that is not a
/// well-formed fingerprint str is equal to nothing. Never raises.
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
