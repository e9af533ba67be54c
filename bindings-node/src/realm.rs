//! Prototypes: which ones make an object plain or an array, and names for the others.

use crate::fail::Fail;
use crate::js::{Handle, Js, JsResult};
use crate::strings::Reader;
use actionseal_core::Error;
use napi::sys::ValueType;

/// What a prototype makes of an object that has it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Proto {
    /// This realm's `Object.prototype`, or `null`: a plain object.
    Plain,
    /// This realm's `Array.prototype`.
    Array,
    /// Another realm's `Object.prototype` (a `vm` context, Jest's environment).
    ForeignPlain,
    /// Another realm's `Array.prototype`.
    ForeignArray,
    /// Anything else: a class, a built-in such as `Date` or `Map`, a subclass of `Array`.
    Other,
}

/// Classifies a prototype that is not this realm's `Object.prototype`, `Array.prototype`
/// or `null`. Another realm's `Object.prototype` has no prototype and is the `prototype` of
/// its `constructor`, a function named `Object`; its `Array.prototype` likewise belongs to a
/// function named `Array` and inherits from its `Object.prototype`.
pub(crate) fn classify(js: Js, proto: Handle) -> JsResult<Proto> {
    if js.type_of(proto)? != ValueType::napi_object {
        return Ok(Proto::Other);
    }
    let parent = js.prototype(proto)?;
    if js.type_of(parent)? == ValueType::napi_null {
        return Ok(if is_builtin(js, proto, "Object")? {
            Proto::ForeignPlain
        } else {
            Proto::Other
        });
    }
    if is_builtin(js, proto, "Array")?
        && js.type_of(js.prototype(parent)?)? == ValueType::napi_null
        && is_builtin(js, parent, "Object")?
    {
        return Ok(Proto::ForeignArray);
    }
    Ok(Proto::Other)
}

/// Whether `proto.constructor` is a function named `name` whose `prototype` is `proto`.
fn is_builtin(js: Js, proto: Handle, name: &str) -> JsResult<bool> {
    let ctor = js.named(proto, c"constructor")?;
    if js.type_of(ctor)? != ValueType::napi_function
        || !js.same(js.named(ctor, c"prototype")?, proto)?
    {
        return Ok(false);
    }
    Ok(Reader::new(js).string(js.named(ctor, c"name")?)?.as_deref() == Some(name))
}

/// `unsupported_type` for an object with prototype `proto`, named after its constructor
/// when it has one (`Date`, `Map`, a class name), else `fallback`.
pub(crate) fn unsupported(js: Js, proto: Handle, fallback: &str) -> Fail {
    let name = constructor_name(js, proto).unwrap_or_else(|_| {
        // The name only decorates the message: a throwing getter here is not the caller's
        // error, so it is dropped.
        js.clear_exception();
        None
    });
    Error::unsupported_type(name.as_deref().unwrap_or(fallback)).into()
}

fn constructor_name(js: Js, proto: Handle) -> JsResult<Option<String>> {
    if js.type_of(proto)? != ValueType::napi_object {
        return Ok(None);
    }
    let ctor = js.named(proto, c"constructor")?;
    if js.type_of(ctor)? != ValueType::napi_function {
        return Ok(None);
    }
    let name = Reader::new(js).string(js.named(ctor, c"name")?)?;
    Ok(name.filter(|n| !n.is_empty()))
}
