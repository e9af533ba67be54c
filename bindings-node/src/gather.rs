//! Runs `gather.js`, the JavaScript half of the host walk, and collects what it recorded.

use crate::fail::Fail;
use crate::instance::instance;
use crate::js::{Handle, Js, JsResult};
use napi::sys;
use std::borrow::Cow;

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
    /// The array of the objects that `HELD` entries refer to by index, when some were to
    /// be handed over.
    pub(crate) held: Option<Handle>,
}

/// Records `values` one after the other, entering at most `max_depth` levels of containers
/// in each, treating as plain the objects and arrays whose prototypes are in the extra lists
/// (other realms'), and handing over as they are, in a new array, the objects that inherit
/// from `held_proto`.
///
/// The result may borrow the environment's tape: read it before any JavaScript runs.
pub(crate) fn gather<'t>(
    js: Js,
    values: &[Handle],
    max_depth: usize,
    extra_protos: Option<(Handle, Handle)>,
    held_proto: Option<Handle>,
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
    let none = js.undefined()?;
    let (objects, arrays) = extra_protos.unwrap_or((none, none));
    let held = match held_proto {
        Some(_) => Some(js.array_of(&[])?),
        None => None,
    };
    let mut args = Vec::with_capacity(6 + values.len());
    args.extend([
        depth,
        tape,
        objects,
        arrays,
        held_proto.unwrap_or(none),
        held.unwrap_or(none),
    ]);
    args.extend_from_slice(values);
    let result = js.call(f, &args)?;
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
            held,
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
        held,
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
