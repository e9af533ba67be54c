//! JavaScript values to core [`Value`]s.
//!
//! Accepted: plain objects (prototype `Object.prototype` or `null`, or another realm's
//! `Object.prototype`), arrays, strings, finite numbers, booleans and `null`. Everything else
//! is an error with a code from core and the JSON Pointer of the value, never dropped or
//! converted. Only own enumerable string keys are read, with getters run (as
//! `JSON.stringify` does); an exception thrown by a getter or Proxy trap propagates unchanged.
//!
//! The walk has two halves: `gather.js` records the value on a tape in one call (reading it
//! through Node-API instead costs several native calls per property, slower than plain
//! JavaScript), and [`Decoder`] applies the rules while reading the tape.

use crate::fail::Fail;
use crate::gather::gather;
use crate::js::{Handle, Js, JsResult};
use crate::tape::{Decoder, Utf8Text};
use actionseal_core::{Error, Options, Value};

/// How many other realms' prototypes one call accepts (each costs one more walk).
const MAX_FOREIGN: usize = 8;

/// Converts one JavaScript value and hands it to `f`, with a guess of the length of its
/// canonical text (to size the output once).
pub(crate) fn with_value<R>(
    js: Js,
    v: Handle,
    options: &Options,
    f: impl FnOnce(&Value<'_>, usize) -> R,
) -> JsResult<R> {
    convert(js, &[v], options, None, |values, size, _| {
        f(&values[0], size)
    })
}

/// An object that may stand as itself, not as data, as one member of one of the values: a
/// `Contract` as `check`'s `context.contract`.
#[derive(Clone, Copy)]
pub(crate) struct Lift {
    /// Which of the values.
    pub(crate) value: usize,
    /// The member of that value (an object) where such an object may be.
    pub(crate) key: &'static str,
    /// Objects that inherit from this prototype are handed over as they are.
    pub(crate) proto: Handle,
}

/// Converts several JavaScript values (the arguments of one call) in one walk, and hands `f`
/// the values and, with `lift`, the object found at `lift.key` of value `lift.value`, which
/// is then left out of that value. Such an object anywhere else is `unsupported_type`.
///
/// The first value that cannot be converted gives the error, as if they were converted in
/// turn.
pub(crate) fn with_values<const N: usize, R>(
    js: Js,
    values: [Handle; N],
    options: &Options,
    lift: Option<Lift>,
    f: impl FnOnce(&[Value<'_>; N], Option<Handle>) -> R,
) -> JsResult<R> {
    convert(js, &values, options, lift, |values, _, lifted| {
        let values: &[Value<'_>; N] = values
            .try_into()
            .map_err(|_| Fail::Internal("value count"))?;
        Ok(f(values, lifted))
    })?
}

/// The walk: `gather` records the values, the decoder reads them; the objects and arrays of
/// other realms that the decoder accepts are gathered again as plain.
fn convert<R>(
    js: Js,
    values: &[Handle],
    options: &Options,
    lift: Option<Lift>,
    f: impl FnOnce(&[Value<'_>], usize, Option<Handle>) -> R,
) -> JsResult<R> {
    let mut plain: Vec<Handle> = Vec::new();
    let mut arrays: Vec<Handle> = Vec::new();
    loop {
        let extra = if plain.is_empty() && arrays.is_empty() {
            None
        } else {
            Some((js.array_of(&plain)?, js.array_of(&arrays)?))
        };
        let g = gather(js, values, options.max_depth, extra, lift.map(|l| l.proto))?;
        let utf8 = Utf8Text::new(&g);
        let decoded = {
            let mut decoder = Decoder::new(js, &g, &utf8, options.max_depth, &plain, &arrays);
            let mut out = Vec::with_capacity(values.len());
            let mut result = Ok(());
            for i in 0..values.len() {
                let key = lift.filter(|l| l.value == i).map(|l| l.key);
                match decoder.next(key) {
                    Ok(v) => out.push(v),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            result
                .and_then(|()| decoder.finish())
                .map(|()| (out, decoder.lifted()))
        };
        let size = utf8.len() + 4 * g.tape.len() + 16;
        // The tape may be the environment's, which the next walk writes on: `f` may start
        // one (for another argument), so the tape is let go first.
        drop(g);
        match decoded {
            Err(Fail::Regather { proto, array }) if plain.len() + arrays.len() < MAX_FOREIGN => {
                if array {
                    arrays.push(proto);
                } else {
                    plain.push(proto);
                }
            }
            Err(Fail::Regather { .. }) => {
                return Err(Error::unsupported_type("object from another realm").into())
            }
            Ok((values, lifted)) => return Ok(f(&values, size, lifted)),
            Err(other) => return Err(other),
        }
    }
}
