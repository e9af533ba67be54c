//! JavaScript values to core [`Value`]s: the Node transport of the walk that both JavaScript
//! packages share.
//!
//! The walker (`bindings-js/js/host.mjs`, run once per environment) records the values on a
//! tape in one call; the shared decoder (`actionseal_js::decode`) hands the tape to core's
//! host rulebook, which decides every rule and error. This file only calls the walker, finds
//! the tape and the text, and gathers again when core accepts another realm's prototype.
//! Reading a value through Node-API instead costs several native calls per property, slower
//! than plain JavaScript.

use crate::fail::Fail;
use crate::instance::instance;
use crate::js::{Handle, Js, JsResult, Utf8};
use actionseal_core::{Options, Value};
use actionseal_js::{decode_held_first, header, Gathered, Text};
use napi::sys;
use std::cell::Cell;

pub(crate) use actionseal_js::Lift;

/// How many other realms' prototypes one call accepts (each costs one more walk).
const MAX_FOREIGN: usize = 8;

/// A longer tape than this is not kept for later calls.
const MAX_KEPT_TAPE: usize = 1 << 16;

/// Converts one JavaScript value and hands it to `f`, with a guess of the length of its
/// canonical text (to size the output once).
pub(crate) fn with_value<R>(
    js: Js,
    v: Handle,
    options: &Options,
    f: impl FnOnce(&Value<'_>, usize) -> R,
) -> JsResult<R> {
    convert(js, &[v], options, None, None, None, |values, size, _, _| {
        f(&values[0], size)
    })
}

/// Converts several JavaScript values (the arguments of one call, at most three) in one
/// walk, and hands `f` the values and, with `lift`, the object found at `lift`'s place,
/// which is then left out of that value: a `Contract` as `check`'s `context.contract`. Such
/// an object anywhere else is `unsupported_type`. The first value that cannot be converted
/// gives the error, as if they were converted in turn. `first` is the front's walk of the
/// values, when it made one.
pub(crate) fn with_values<const N: usize, R>(
    js: Js,
    values: [Handle; N],
    options: &Options,
    lift: Option<(Lift, Handle)>,
    first: Option<Walked>,
    f: impl FnOnce(&[Value<'_>; N], Option<Handle>) -> R,
) -> JsResult<R> {
    convert(
        js,
        &values,
        options,
        lift,
        first,
        None,
        |values, _, lifted, _| {
            let values: &[Value<'_>; N] = values
                .try_into()
                .map_err(|_| Fail::Internal("value count"))?;
            Ok(f(values, lifted))
        },
    )?
}

/// [`with_values`] for two values whose first may be `held`, a value core holds (a loaded
/// approval's frozen action): when it is the same (core's `host::Same`), `f` is given `held`
/// itself and the value is not built; otherwise the converted value, as [`with_values`] does.
pub(crate) fn with_values_held_first<R>(
    js: Js,
    values: [Handle; 2],
    options: &Options,
    lift: Option<(Lift, Handle)>,
    first: Option<Walked>,
    held: &Value<'static>,
    f: impl FnOnce([&Value<'_>; 2], Option<Handle>) -> R,
) -> JsResult<R> {
    convert(
        js,
        &values,
        options,
        lift,
        first,
        Some(held),
        |values, _, lifted, same| {
            let [action, context] = values else {
                return Err(Fail::Internal("value count"));
            };
            Ok(f([if same { held } else { action }, context], lifted))
        },
    )?
}

/// What one walk recorded: the tape (borrowed from the environment's when no JavaScript can
/// run before it is read, else copied) and the handles the records refer to.
struct Walk {
    tape: Vec<f64>,
    borrowed: Option<(*const f64, usize)>,
    text: Handle,
    refs: Option<Handle>,
    held: Option<Handle>,
}

/// The walk: gather, decode (the first value compared with `held_first`, when given: see
/// `actionseal_js::decode_held_first`, whose answer `f` is given); when core accepts a
/// prototype of another realm, gather again with it.
fn convert<R>(
    js: Js,
    values: &[Handle],
    options: &Options,
    lift: Option<(Lift, Handle)>,
    first: Option<Walked>,
    held_first: Option<&Value<'_>>,
    f: impl FnOnce(&[Value<'_>], usize, Option<Handle>, bool) -> R,
) -> JsResult<R> {
    let mut f = Some(f);
    walk(js, values, options, lift.map(|l| l.1), first, |g, held| {
        let (d, same) = decode_held_first(g, values.len(), options, lift.map(|l| l.0), held_first)?;
        let lifted = match (d.lifted, held) {
            (Some(i), Some(held)) => Some(js.element(held, i).map_err(Lost)?),
            (Some(_), None) => return Err(actionseal_js::Fail::Bug("no held objects").into()),
            (None, _) => None,
        };
        let f = f.take().ok_or(Lost(Fail::Internal("decoded twice")))?;
        Ok(f(&d.values, d.size, lifted, same))
    })
}

/// `f` of the canonical text of one JavaScript value: what `canonicalize` returns and
/// `fingerprint` hashes. `first` is the front's walk of it, when it made one.
pub(crate) fn with_canonical<R>(
    js: Js,
    v: Handle,
    options: &Options,
    first: Option<Walked>,
    f: impl FnOnce(&str) -> R,
) -> JsResult<R> {
    // The last call's buffer, when free (a call from a getter during the walk takes its own).
    let mut text = CANONICAL.take();
    let written = walk(js, &[v], options, None, first, |g, _| {
        Ok(actionseal_js::canonical_into(g, options, &mut text)?)
    });
    let result = written.map(|()| f(&text));
    if text.capacity() <= MAX_KEPT_TEXT {
        CANONICAL.set(text);
    }
    result
}

/// Why reading a gathered tape failed: the decoder's reason, or the binding's own.
enum ReadFail {
    Decoder(actionseal_js::Fail),
    Binding(Fail),
}

impl From<actionseal_js::Fail> for ReadFail {
    fn from(f: actionseal_js::Fail) -> ReadFail {
        ReadFail::Decoder(f)
    }
}

/// A failure of the binding's own while reading, passed on.
struct Lost(Fail);

impl From<Lost> for ReadFail {
    fn from(l: Lost) -> ReadFail {
        ReadFail::Binding(l.0)
    }
}

/// Gathers `values` (or takes the front's walk of them, `first`) and has `read` read the tape
/// (given the held objects, if any); gathers again, with the prototype accepted, when core
/// accepts another realm's.
fn walk<T>(
    js: Js,
    values: &[Handle],
    options: &Options,
    held_proto: Option<Handle>,
    mut first: Option<Walked>,
    mut read: impl FnMut(&Gathered<'_>, Option<Handle>) -> Result<T, ReadFail>,
) -> JsResult<T> {
    let mut objects: Vec<Handle> = Vec::new();
    let mut arrays: Vec<Handle> = Vec::new();
    loop {
        let gathered = match first.take() {
            Some(walked) => walked.read(js)?,
            None => gather(js, values, options.max_depth, &objects, &arrays, held_proto)?,
        };
        let tape = gathered.slots();
        let h = header(tape)?;
        let tape = &tape[..h.slots];
        // The text's UTF-8 as V8 writes it (one copy, no transcoding in Rust), unless V8
        // may have replaced a lone surrogate: then its UTF-16 code units.
        let utf8 = Recycled(read_utf8(js, gathered.text, h.text_len)?);
        let utf16;
        let text = if actionseal_js::may_be_lossy(&utf8) {
            utf16 = js.utf16_exact(gathered.text, h.text_len)?;
            Text::Utf16(&utf16)
        } else {
            Text::Utf8(&utf8)
        };
        let g = Gathered { tape, text };
        match read(&g, gathered.held) {
            Ok(t) => return Ok(t),
            Err(ReadFail::Decoder(actionseal_js::Fail::Regather { reference, array }))
                if objects.len() + arrays.len() < MAX_FOREIGN =>
            {
                let refs = gathered
                    .refs
                    .ok_or(Fail::Internal("no references recorded"))?;
                let proto = js.element(refs, reference)?;
                if array {
                    arrays.push(proto)
                } else {
                    objects.push(proto)
                }
            }
            Err(ReadFail::Decoder(actionseal_js::Fail::Regather { .. })) => {
                return Err(actionseal_core::host::too_many_realms().into());
            }
            Err(ReadFail::Decoder(e)) => return Err(e.into()),
            Err(ReadFail::Binding(e)) => return Err(e),
        }
    }
}

impl Walk {
    /// The tape's slots.
    fn slots(&self) -> &[f64] {
        match self.borrowed {
            // SAFETY: the environment's tape, `len` doubles at `data`, kept alive by the
            // instance (or the front's, kept alive by the handle the call was given); no
            // JavaScript runs while the slice is in use (see `gather`).
            Some((data, len)) => unsafe { std::slice::from_raw_parts(data, len) },
            None => &self.tape,
        }
    }
}

/// Runs the walker's `gather` on `values`.
fn gather(
    js: Js,
    values: &[Handle],
    max_depth: usize,
    objects: &[Handle],
    arrays: &[Handle],
    held_proto: Option<Handle>,
) -> JsResult<Walk> {
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
    // This handle keeps the tape alive until the call returns, even if a nested call (from a
    // getter) replaces the environment's tape meanwhile.
    let tape = js.deref(tape_ref)?;
    // `undefined` stands for every absent argument (the walker reads it as null).
    let undefined = js.undefined()?;
    let list = |l: &[Handle]| {
        if l.is_empty() {
            Ok(undefined)
        } else {
            js.array_of(l)
        }
    };
    let count = js.number(values.len() as f64)?;
    let value = |i: usize| values.get(i).copied().unwrap_or(undefined);
    let args = [
        tape,
        js.number(max_depth as f64)?,
        list(objects)?,
        list(arrays)?,
        held_proto.unwrap_or(undefined),
        count,
        value(0),
        value(1),
        value(2),
    ];
    if values.len() > 3 {
        return Err(Fail::Internal("more than three values in one walk"));
    }
    let result = js.call(f, &args)?;
    let (walk, grown) = walk_of(js, result, (tape_data, tape_len))?;
    // Keep a tape that grew, for later calls, unless it grew huge.
    // SAFETY: `inst` is live. Read again: a nested call may have replaced the tape.
    let current_len = unsafe { (*inst).tape_len };
    if let Some((written, info)) = grown {
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
    }
    Ok(walk)
}

/// A walk made by the JavaScript front (`host.front` in the walker): what `gather` returned
/// and the tape it was given. The front passes the text alone when that is what `gather`
/// returned (`plain`), or when it was the given tape with held objects only: then with the
/// held objects, which it took out of what `gather` returned.
#[derive(Clone, Copy)]
pub(crate) struct Walked {
    pub(crate) result: Handle,
    pub(crate) tape: Handle,
    pub(crate) plain: bool,
    pub(crate) held: Option<Handle>,
}

impl Walked {
    /// The walk, read as a native gather's is.
    fn read(self, js: Js) -> JsResult<Walk> {
        let tape = js
            .float64_array(self.tape)?
            .ok_or(Fail::Internal("the front's tape is not a Float64Array"))?;
        if self.plain || self.held.is_some() {
            return Ok(Walk {
                tape: Vec::new(),
                borrowed: Some(tape),
                text: self.result,
                refs: None,
                held: self.held,
            });
        }
        Ok(walk_of(js, self.result, tape)?.0)
    }
}

/// What `gather` returned, given the tape it was given (its data and length in slots): the
/// walk, and the tape it wrote on instead when that grew (with its facts).
#[allow(clippy::type_complexity)]
fn walk_of(
    js: Js,
    result: Handle,
    (tape_data, tape_len): (*const f64, usize),
) -> JsResult<(Walk, Option<(Handle, crate::js::TypedArray)>)> {
    if tape_data.align_offset(std::mem::align_of::<f64>()) != 0 {
        return Err(Fail::Internal("misaligned tape"));
    }
    if js.string_length(result)?.is_some() {
        // The common case: the given tape was used, and nothing else is needed.
        return Ok((
            Walk {
                tape: Vec::new(),
                borrowed: Some((tape_data, tape_len)),
                text: result,
                refs: None,
                held: None,
            },
            None,
        ));
    }
    let text = js.element(result, 0)?;
    let written = js.element(result, 1)?;
    let present = |v: Handle| -> JsResult<Option<Handle>> {
        Ok((js.type_of(v)? != sys::ValueType::napi_null).then_some(v))
    };
    let refs = present(js.element(result, 2)?)?;
    let held = present(js.element(result, 3)?)?;
    let Some(written) = present(written)? else {
        // The given tape, with held objects or references beside it.
        return Ok((
            Walk {
                tape: Vec::new(),
                borrowed: Some((tape_data, tape_len)),
                text,
                refs,
                held,
            },
            None,
        ));
    };
    let info = js
        .typed_array(written)?
        .filter(|i| i.kind == sys::TypedarrayType::float64_array && !i.data.is_null())
        .ok_or(Fail::Internal("tape is not a Float64Array"))?;
    // SAFETY: a Float64Array of `info.len` elements starts at `info.data`; read as bytes
    // since nothing promises the alignment, and copied before any JavaScript runs.
    let bytes = unsafe { std::slice::from_raw_parts(info.data.cast::<u8>(), info.len * 8) };
    let copy: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|b| f64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect();
    Ok((
        Walk {
            tape: copy,
            borrowed: None,
            text,
            refs,
            held,
        },
        Some((written, info)),
    ))
}

/// A text buffer that goes back to [`SCRATCH`] when dropped.
struct Recycled(String);

impl Drop for Recycled {
    fn drop(&mut self) {
        recycle(std::mem::take(&mut self.0));
    }
}

impl std::ops::Deref for Recycled {
    type Target = String;

    fn deref(&self) -> &String {
        &self.0
    }
}

/// The UTF-8 text (lone surrogates replaced by U+FFFD) of a string `len` UTF-16 code units
/// long.
fn read_utf8(js: Js, text: Handle, len: usize) -> JsResult<String> {
    // Room for any text up to a megabyte, so that it is read in one call; a longer one is
    // measured first when it is not ASCII. The buffer is the last call's, when free.
    let mut buf = SCRATCH.take();
    buf.clear();
    buf.reserve(if len <= 1 << 20 { 3 * len + 8 } else { len + 8 });
    loop {
        match js.utf8_into(text, &mut buf)? {
            Utf8::Done => break,
            Utf8::TooLong(n) => buf.reserve(n + 8),
            Utf8::NotString => return Err(Fail::Internal("text is not a string")),
        }
    }
    // V8 writes valid UTF-8; checked rather than trusted.
    String::from_utf8(buf).map_err(|_| Fail::Internal("text is not UTF-8"))
}

thread_local! {
    /// A text buffer kept from one call to the next (see [`Recycled`]).
    static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// The canonical text of the last call of [`with_canonical`], kept for the next.
    static CANONICAL: Cell<String> = const { Cell::new(String::new()) };
}

/// A larger text buffer than this is not kept for the next call.
const MAX_KEPT_TEXT: usize = 1 << 16;

/// Gives a text buffer back for the next call, unless it is large.
fn recycle(text: String) {
    let buf = text.into_bytes();
    if buf.capacity() <= MAX_KEPT_TEXT {
        SCRATCH.set(buf);
    }
}
