//! Per-environment state: what the addon made or looked up once in each Node environment
//! (the main thread and every worker thread have their own).

use crate::fail::Fail;
use crate::js::{Handle, Js, JsResult};
use napi::sys;
use std::ffi::c_void;
use std::ptr;

/// Slots in the tape made for a new environment.
const FIRST_TAPE: usize = 1024;

/// Slots in the array of string lengths `verdict` reads.
pub(crate) const LENGTHS: usize = 64;

/// The name the `Contract` class (contract.rs) is registered under, as napi-rs keys it.
const CONTRACT_CLASS: &str = "Contract\0";

/// This environment's state.
pub(crate) struct Instance {
    /// The walker's `host` object (bindings-js/js/host.mjs), run as a script here.
    pub(crate) host: sys::napi_ref,
    /// `host.gather`, `host.fail`, `host.verdict`, `host.describe`.
    pub(crate) gather: sys::napi_ref,
    pub(crate) fail: sys::napi_ref,
    pub(crate) verdict: sys::napi_ref,
    pub(crate) describe: sys::napi_ref,
    /// The tape `gather` writes on when it fits.
    pub(crate) tape: sys::napi_ref,
    /// The tape's memory, which stays put while `tape` holds it: the `Float64Array` is
    /// reachable only from here and from `gather`, so nothing can detach it.
    pub(crate) tape_data: *const f64,
    /// The tape's length in slots.
    pub(crate) tape_len: usize,
    /// An `Int32Array` of [`LENGTHS`] for `verdict`, and its memory (as the tape's).
    pub(crate) lengths: sys::napi_ref,
    pub(crate) lengths_data: *mut i32,
    /// `JSON.parse` as it was when the environment first used the addon, so that a later
    /// change to the global does not change what the functions return.
    pub(crate) json_parse: sys::napi_ref,
    /// `Contract.prototype`, whose instances `check` takes in its context.
    pub(crate) contract_proto: sys::napi_ref,
}

/// Frees the instance data when the environment goes away; Node releases the references.
unsafe extern "C" fn finalize(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the `Box<Instance>` leaked in `instance`, finalized once.
    drop(unsafe { Box::from_raw(data.cast::<Instance>()) });
}

/// This environment's state, made on first use.
///
/// A raw pointer: JavaScript run by `gather` may call the addon again, so no reference to the
/// state is held across a call into JavaScript.
pub(crate) fn instance(js: Js) -> JsResult<*mut Instance> {
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: `js.0` is the live environment; instance data is only ever set below.
    let status = unsafe { sys::napi_get_instance_data(js.0, &mut data) };
    if status != sys::Status::napi_ok {
        return Err(Fail::Napi(status));
    }
    if !data.is_null() {
        // Set below to a live `Box<Instance>`, freed only with the environment, and used by
        // one thread (this environment's) at a time.
        return Ok(data.cast::<Instance>());
    }
    let host = js.run_script(actionseal_js::script())?;
    let tape = js.new_typed_array(sys::TypedarrayType::float64_array, FIRST_TAPE)?;
    let tape_info = js.typed_array(tape)?.ok_or(Fail::Internal("new tape"))?;
    let lengths = js.new_typed_array(sys::TypedarrayType::int32_array, LENGTHS)?;
    let lengths_info = js
        .typed_array(lengths)?
        .ok_or(Fail::Internal("new lengths"))?;
    let json = js.named(js.global()?, c"JSON")?;
    let json_parse = js.named(json, c"parse")?;
    let contract_proto = contract_prototype(js)?;
    let instance = Box::into_raw(Box::new(Instance {
        host: js.reference(host)?,
        gather: js.reference(js.named(host, c"gather")?)?,
        fail: js.reference(js.named(host, c"fail")?)?,
        verdict: js.reference(js.named(host, c"verdict")?)?,
        describe: js.reference(js.named(host, c"describe")?)?,
        tape: js.reference(tape)?,
        tape_data: tape_info.data.cast::<f64>(),
        tape_len: tape_info.len,
        lengths: js.reference(lengths)?,
        lengths_data: lengths_info.data.cast::<i32>().cast_mut(),
        json_parse: js.reference(json_parse)?,
        contract_proto: js.reference(contract_proto)?,
    }));
    // SAFETY: hands the box to Node, which calls `finalize` on it once.
    let status = unsafe {
        sys::napi_set_instance_data(
            js.0,
            instance.cast::<c_void>(),
            Some(finalize),
            ptr::null_mut(),
        )
    };
    if status != sys::Status::napi_ok {
        // SAFETY: Node did not take it.
        drop(unsafe { Box::from_raw(instance) });
        return Err(Fail::Napi(status));
    }
    Ok(instance)
}

/// A handle to a value the instance holds, read through `field` (the instance is only
/// read for as long as the field is copied).
pub(crate) fn get(
    js: Js,
    field: impl FnOnce(&Instance) -> sys::napi_ref,
) -> JsResult<sys::napi_value> {
    let inst = instance(js)?;
    // SAFETY: `inst` is live (see `instance`); the reference is copied out before any
    // JavaScript runs.
    let r = field(unsafe { &*inst });
    js.deref(r)
}

/// `Contract.prototype`, from the constructor napi-rs registered for this environment (by
/// name: the floor of the addon does not depend on the classes built on it).
fn contract_prototype(js: Js) -> JsResult<Handle> {
    let ctor = napi::bindgen_prelude::get_class_constructor(CONTRACT_CLASS)
        .ok_or(Fail::Internal("the Contract class is not registered"))?;
    js.named(js.deref(ctor)?, c"prototype")
}
