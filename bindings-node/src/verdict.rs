//! The verdict of `check` as a JavaScript object: core's `Verdict::to_value`, made by the
//! walker's `verdict` from one string and their lengths (cheaper than parsing the verdict's
//! JSON text).

use crate::fail::Fail;
use crate::instance::{self, LENGTHS};
use crate::js::{Js, JsResult};
use crate::to_js::{self, string as text};
use actionseal_core::Verdict;
use napi::bindgen_prelude::Unknown;

/// `verdict.to_value()`, as a fresh plain object.
pub(crate) fn to_js(js: Js, verdict: &Verdict) -> JsResult<Unknown<'static>> {
    let (pool, lengths) = actionseal_js::verdict_pool(verdict);
    if lengths.len() > LENGTHS {
        return Err(Fail::Internal(
            "a verdict with more strings than its lengths array",
        ));
    }
    let inst = instance::instance(js)?;
    // SAFETY: `inst` is live; its lengths array holds `LENGTHS` i32s at `lengths_data`, kept
    // alive by the instance and reachable from nowhere else, and no JavaScript runs while
    // this writes them.
    let (f, array) = unsafe {
        let slots = std::slice::from_raw_parts_mut((*inst).lengths_data, LENGTHS);
        slots[..lengths.len()].copy_from_slice(&lengths);
        ((*inst).verdict, (*inst).lengths)
    };
    let args = [text(js, &pool)?, js.deref(array)?];
    Ok(to_js::unknown(js, js.call(js.deref(f)?, &args)?))
}
