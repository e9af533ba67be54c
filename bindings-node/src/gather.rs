//! Runs `gather.js`, the JavaScript half of the host walk, and collects what it recorded.

use crate::fail::Fail;
use crate::js::{Handle, Js, JsResult};
use napi::sys;
use std::borrow::Cow;
use std::ffi::c_void;
use std::ptr;

/// The script; its completion value is the `gather` function.
const SOURCE: &str = include_str!("gather.js");

/// Slots in the tape made for a new environment.
const FIRST_TAPE: usize = 1024;

/// A longer tape than this is not kept for later calls.
const MAX_KEPT_TAPE: usize = 1 << 16;

/// What one run of `gather` recorded (format in `gather.js`).
pub(crate) struct Gathered<'t> {
    /// The tape from slot 2 on. Borrowed from the environment's tape when no JavaScript can
    /// run before it is read (no `refs` or `protos` to look at), else copied.
    pub(crate) tape: Cow<'t, [f64]>,
    /// All strings and keys, concatenated, as UTF-16 code units.
    pub(crate) text: Vec<u16>,
    /// The values that the tape's last entry describes (see `gather.js`), if any.
    pub(crate) refs: Option<Handle>,
    /// The prototypes that tape entries refer to by index, when there are more than the
    /// three fixed ones.
    pub(crate) protos: Option<Handle>,
}

/// Per-environment state: the compiled `gather` function and the tape it writes on.
struct Instance {
    gather: sys::napi_ref,
    tape: sys::napi_ref,
    /// The tape's memory, which stays put while `tape` holds it: the `Float64Array` is
    /// reachable only from here and from `gather`, so nothing can detach it.
    tape_data: *const f64,
    tape_len: usize,
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
fn instance(js: Js) -> JsResult<*mut Instance> {
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
    let gather = js.run_script(SOURCE)?;
    let tape = js.new_f64_array(FIRST_TAPE)?;
    let info = js.typed_array(tape)?.ok_or(Fail::Internal("new tape"))?;
    let instance = Box::into_raw(Box::new(Instance {
        gather: js.reference(gather)?,
        tape: js.reference(tape)?,
        tape_data: info.data.cast::<f64>(),
        tape_len: info.len,
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

/// Records `value`, entering at most `max_depth` levels of containers, and treating as plain
/// the objects and arrays whose prototypes are in the extra lists (other realms').
///
/// The result may borrow the environment's tape: read it before any JavaScript runs.
pub(crate) fn gather<'t>(
    js: Js,
    value: Handle,
    max_depth: usize,
    extra_protos: Option<(Handle, Handle)>,
) -> JsResult<Gathered<'t>> {
    let inst = instance(js)?;
    // SAFETY: `inst` is live (see `instance`); the fields are copied out before any
    // JavaScript runs.
    let (gather_ref, tape_ref, tape_data, tape_len) = unsafe {
        (
            (*inst).gather,
            (*inst).tape,
            (*inst).tape_data,
            (*inst).tape_len,
        )
    };
    let f = js.deref(gather_ref)?;
    // This handle keeps the tape alive until the callback returns, even if a nested call
    // (from a getter) replaces the environment's tape meanwhile.
    let tape = js.deref(tape_ref)?;
    let depth = js.number(max_depth as f64)?;
    let result = match extra_protos {
        None => js.call(f, &[value, depth, tape])?,
        Some((objects, arrays)) => js.call(f, &[value, depth, tape, objects, arrays])?,
    };
    if let Some(len) = js.string_length(result)? {
        // The common case: the tape given was used, and nothing else is needed.
        if tape_data.align_offset(std::mem::align_of::<f64>()) != 0 {
            return Err(Fail::Internal("misaligned tape"));
        }
        // SAFETY: `tape_data` points to the `tape_len` doubles of the tape given to `gather`,
        // kept alive by the handle `tape`; no JavaScript runs while the caller reads it.
        let all = unsafe { std::slice::from_raw_parts(tape_data, tape_len) };
        return Ok(Gathered {
            tape: Cow::Borrowed(used(all, len)?),
            text: js.utf16_exact(result, len)?,
            refs: None,
            protos: None,
        });
    }
    let text_value = js.element(result, 0)?;
    let written = js.element(result, 1)?;
    let refs = js.element(result, 2)?;
    let protos = js.element(result, 3)?;
    let info = js
        .typed_array(written)?
        .ok_or(Fail::Internal("tape is not a Float64Array"))?;
    if info.kind != sys::TypedarrayType::float64_array || info.data.is_null() {
        return Err(Fail::Internal("tape is not a Float64Array"));
    }
    // SAFETY: a Float64Array of `info.len` elements starts at `info.data`; read as bytes
    // since nothing promises the alignment, and copied before any JavaScript runs.
    let bytes = unsafe { std::slice::from_raw_parts(info.data.cast::<u8>(), info.len * 8) };
    let all: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|b| f64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect();
    let text_len = js
        .string_length(text_value)?
        .ok_or(Fail::Internal("text is not a string"))?;
    let tape_copy = used(&all, text_len)?.to_vec();
    // Keep a tape that grew, for later calls, unless it grew huge.
    // SAFETY: `inst` is live. Read again: a nested call may have replaced the tape.
    let current_len = unsafe { (*inst).tape_len };
    if info.len > current_len
        && info.len <= MAX_KEPT_TAPE
        && info.data.align_offset(std::mem::align_of::<f64>()) == 0
    {
        let new_ref = js.reference(written)?;
        // SAFETY: `inst` is live and no other reference to it exists while this runs.
        let old = unsafe {
            let inst = &mut *inst;
            inst.tape_data = info.data.cast::<f64>();
            inst.tape_len = info.len;
            std::mem::replace(&mut inst.tape, new_ref)
        };
        js.delete_reference(old)?;
    }
    let present = |v: Handle| -> JsResult<Option<Handle>> {
        Ok((js.type_of(v)? != sys::ValueType::napi_null).then_some(v))
    };
    Ok(Gathered {
        tape: Cow::Owned(tape_copy),
        text: js.utf16_exact(text_value, text_len)?,
        refs: present(refs)?,
        protos: present(protos)?,
    })
}

/// The used slots after the two header slots, checking the header.
fn used(all: &[f64], text_len: usize) -> JsResult<&[f64]> {
    let bad = Fail::Internal("malformed tape header");
    let (&n, &t) = (
        all.first().ok_or(Fail::Internal("empty tape"))?,
        all.get(1).ok_or(Fail::Internal("empty tape"))?,
    );
    if !(n >= 2.0 && n <= all.len() as f64) || t != text_len as f64 {
        return Err(bad);
    }
    Ok(&all[2..n as usize])
}
