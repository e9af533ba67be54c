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
    let mut plain: Vec<Handle> = Vec::new();
    let mut arrays: Vec<Handle> = Vec::new();
    loop {
        let extra = if plain.is_empty() && arrays.is_empty() {
            None
        } else {
            Some((js.array_of(&plain)?, js.array_of(&arrays)?))
        };
        let g = gather(js, v, options.max_depth, extra)?;
        let utf8 = Utf8Text::new(&g);
        match Decoder::new(js, &g, &utf8, options.max_depth, &plain, &arrays).root() {
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
            Ok(value) => return Ok(f(&value, utf8.len() + 4 * g.tape.len() + 16)),
            Err(other) => return Err(other),
        }
    }
}
