//! The verdict of `check` as a JavaScript object: core's `Verdict::to_value`, made by the
//! walker's `verdict` from one string and their lengths (cheaper than parsing the verdict's
//! JSON text).

use crate::fail::Fail;
use crate::instance::{self, LENGTHS};
use crate::js::{Handle, Js, JsResult};
use crate::to_js::string as text;
use actionseal_core::Verdict;
use std::cell::Cell;

/// `verdict.to_value()`, as a fresh plain object.
pub(crate) fn to_js(js: Js, verdict: &Verdict) -> JsResult<Handle> {
    let pool = pool(js, verdict)?;
    let inst = instance::instance(js)?;
    // SAFETY: `inst` is live; the references are copied out before any JavaScript runs.
    let (f, array) = unsafe { ((*inst).verdict, (*inst).lengths) };
    js.call(js.deref(f)?, &[pool, js.deref(array)?])
}

/// The strings the walker's `verdict` makes `verdict` from, as one JavaScript string; their
/// lengths are written on the instance's lengths array.
pub(crate) fn pool(js: Js, verdict: &Verdict) -> JsResult<Handle> {
    // The last call's buffers (no JavaScript runs while they are out).
    let (mut pool, mut lengths) = BUFFERS.take();
    actionseal_js::verdict_pool_into(verdict, &mut pool, &mut lengths);
    let made = write(js, &pool, &lengths);
    BUFFERS.set((pool, lengths));
    made
}

thread_local! {
    /// The pool and lengths of the last verdict, kept for the next.
    static BUFFERS: Cell<(String, Vec<i32>)> = const { Cell::new((String::new(), Vec::new())) };
}

/// Writes `lengths` on the instance's lengths array and makes the pool's string.
fn write(js: Js, pool: &str, lengths: &[i32]) -> JsResult<Handle> {
    if lengths.len() > LENGTHS {
        return Err(Fail::Internal(
            "a verdict with more strings than its lengths array",
        ));
    }
    let inst = instance::instance(js)?;
    // SAFETY: `inst` is live; its lengths array holds `LENGTHS` i32s at `lengths_data`, kept
    // alive by the instance and reachable only from it and the walker's front (which only
    // hands it to `verdict`), and no JavaScript runs while this writes them.
    unsafe {
        let slots = std::slice::from_raw_parts_mut((*inst).lengths_data, LENGTHS);
        slots[..lengths.len()].copy_from_slice(lengths);
    }
    text(js, pool)
}

#[cfg(test)]
mod tests {
    use super::LENGTHS;
    use actionseal_core::Reason;

    #[test]
    fn a_verdict_with_every_reason_fits_the_lengths_array() {
        // The outcome, two digests, an action error's code and path, the number of reasons,
        // each reason, the drift and the quorum's state (`verdict_pool_into`).
        assert!(8 + Reason::ALL.len() <= LENGTHS);
    }
}
