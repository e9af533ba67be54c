//! JavaScript values to core values: the wasm-bindgen transport of the walk that both
//! JavaScript packages share.
//!
//! The walker (`bindings-js/js/host.mjs`, imported as an ES module) records the values on a
//! tape in one call; the shared decoder (`actionseal_js::decode`) hands the tape to core's
//! host rulebook, which decides every rule and error. This file only calls the walker, copies
//! the tape and the text into WebAssembly memory, and gathers again when core accepts another
//! realm's prototype. A call from WebAssembly into JavaScript costs far more than the work per
//! property, so one call records everything.

use crate::error;
use actionseal_core::{Options, Value};
use actionseal_js::wasm::HOST;
use actionseal_js::{decode, header, Gathered, Lift, Text};
use js_sys::{Array, Float64Array};
use wasm_bindgen::{JsCast, JsValue};

/// How many other realms' prototypes one call accepts (each costs one more walk).
const MAX_FOREIGN: usize = 8;

/// Slots of the tape kept for every walk.
const TAPE: u32 = 1024;

thread_local! {
    /// The tape the walker writes on when it fits, kept between calls.
    static GIVEN: Float64Array = Float64Array::new_with_length(TAPE);
}

/// Why a call failed.
pub(crate) enum Fail {
    /// Core refused something.
    Core(actionseal_core::Error),
    /// A value to throw as it is: an exception from a getter or a Proxy trap, or an internal
    /// error.
    Js(JsValue),
}

impl From<actionseal_core::Error> for Fail {
    fn from(e: actionseal_core::Error) -> Fail {
        Fail::Core(e)
    }
}

impl From<JsValue> for Fail {
    fn from(v: JsValue) -> Fail {
        Fail::Js(v)
    }
}

impl From<Fail> for JsValue {
    fn from(f: Fail) -> JsValue {
        match f {
            Fail::Core(e) => error::to_js(&e),
            Fail::Js(v) => v,
        }
    }
}

impl Fail {
    /// Places a core error under member `key`, as the caller's other errors about the value.
    pub(crate) fn in_key(self, key: &str) -> Fail {
        match self {
            Fail::Core(e) => Fail::Core(e.in_key(key)),
            js => js,
        }
    }
}

/// Converts one JavaScript value under `options` and hands it to `f`.
pub(crate) fn with_value<R>(
    value: &JsValue,
    options: &Options,
    f: impl FnOnce(&Value<'_>) -> R,
) -> Result<R, Fail> {
    convert(&[value], options, None, |values, _| f(&values[0]))
}

/// Converts several JavaScript values (the arguments of one call, at most three) in one walk
/// and hands `f` the values and, with `lift`, the object that inherits from the given
/// prototype found at `lift`'s place (left out of that value): a `Contract` as `check`'s
/// `context.contract`. Such an object anywhere else is core's `unsupported_type`.
pub(crate) fn convert<R>(
    values: &[&JsValue],
    options: &Options,
    lift: Option<(Lift, &JsValue)>,
    f: impl FnOnce(&[Value<'_>], Option<JsValue>) -> R,
) -> Result<R, Fail> {
    let mut f = Some(f);
    walk(values, options, lift.map(|l| l.1), |g, held| {
        let d = decode(g, values.len(), options, lift.map(|l| l.0))?;
        let lifted = d.lifted.map(|i| held.unchecked_ref::<Array>().get(i));
        let f = f.take().ok_or(actionseal_js::Fail::Bug("decoded twice"))?;
        Ok(f(&d.values, lifted))
    })
}

/// The canonical text of one JavaScript value, written as the walk is read (no value is
/// built): what `canonicalize` returns and `fingerprint` hashes.
pub(crate) fn canonical(value: &JsValue, options: &Options) -> Result<String, Fail> {
    walk(&[value], options, None, |g, _| {
        actionseal_js::canonical(g, options)
    })
}

/// Gathers `values` and has `read` read the tape (given the held objects); gathers again,
/// with the prototype accepted, when core accepts another realm's.
fn walk<T>(
    values: &[&JsValue],
    options: &Options,
    held_proto: Option<&JsValue>,
    mut read: impl FnMut(&Gathered<'_>, &JsValue) -> Result<T, actionseal_js::Fail>,
) -> Result<T, Fail> {
    if values.len() > 3 {
        return Err(internal("more than three values in one walk").into());
    }
    let objects = Array::new();
    let arrays = Array::new();
    let (undefined, null) = (JsValue::UNDEFINED, JsValue::NULL);
    let value = |i: usize| values.get(i).copied().unwrap_or(&undefined);
    let held_proto = held_proto.unwrap_or(&null);
    loop {
        let list = |a: &Array| {
            if a.length() == 0 {
                JsValue::NULL
            } else {
                a.into()
            }
        };
        let (result, given) = GIVEN.with(|given| {
            let result = HOST.with(|h| {
                h.gather(
                    given,
                    options.max_depth as f64,
                    &list(&objects),
                    &list(&arrays),
                    held_proto,
                    values.len() as u32,
                    value(0),
                    value(1),
                    value(2),
                )
            });
            (result, given.clone())
        });
        // An exception from a getter or a Proxy trap, passed on unchanged.
        let result = result?;
        let (text, tape, refs, held) = match result.as_string() {
            Some(_) => (result, given, JsValue::NULL, JsValue::NULL),
            None => {
                let parts: Array = result.unchecked_into();
                let written = parts.get(1);
                let tape = if written.is_null() {
                    given
                } else {
                    written.unchecked_into()
                };
                (parts.get(0), tape, parts.get(2), parts.get(3))
            }
        };
        let slots = tape.get_index(0) as u32;
        let mut copy = vec![0.0; slots as usize];
        tape.subarray(0, slots).copy_to(&mut copy);
        let h = header(&copy).map_err(bug)?;
        // The text's UTF-8 as the engine encodes it, unless it may have replaced a lone
        // surrogate: then its UTF-16 code units.
        let utf8 = text.as_string().unwrap_or_default();
        let utf16;
        let text = if actionseal_js::may_be_lossy(&utf8) {
            utf16 = HOST.with(|h| h.units(&text)).to_vec();
            Text::Utf16(&utf16)
        } else {
            Text::Utf8(&utf8)
        };
        let g = Gathered {
            tape: &copy[..h.slots],
            text,
        };
        match read(&g, &held) {
            Ok(t) => return Ok(t),
            Err(actionseal_js::Fail::Regather { reference, array })
                if ((objects.length() + arrays.length()) as usize) < MAX_FOREIGN =>
            {
                let proto = refs.unchecked_ref::<Array>().get(reference);
                if array { &arrays } else { &objects }.push(&proto);
            }
            Err(actionseal_js::Fail::Regather { .. }) => {
                return Err(actionseal_core::host::too_many_realms().into())
            }
            Err(e) => return Err(bug(e)),
        }
    }
}

/// A decoder failure: core's error, or an internal one.
fn bug(f: actionseal_js::Fail) -> Fail {
    match f {
        actionseal_js::Fail::Refused(e) => Fail::Core(e),
        actionseal_js::Fail::Bug(what) => Fail::Js(internal(what)),
        actionseal_js::Fail::Regather { .. } => Fail::Js(internal("an unexpected regather")),
    }
}

/// An error that says nothing about the caller's value: a bug in this package.
pub(crate) fn internal(what: &str) -> JsValue {
    js_sys::Error::new(&format!("internal error in actionseal-wasm: {what}")).into()
}
