// Makes the plain object that `check` returns, in one call from src/verdict.rs.
//
// This script is compiled once per Node environment (src/instance.rs); its value is the
// `verdict` function. The object has the shape of core's `Verdict::to_value`, which the
// permit conformance vectors hold it to; making it here, from a few strings, costs a fraction
// of writing the verdict as JSON text and parsing that.
'use strict';
(() => {
  // Captured now, so that later changes to the globals cannot change the result.
  const split = Function.prototype.call.bind(String.prototype.split)
  const parse = JSON.parse

  // `reasons`: the reason names separated by spaces ('' for none); `drift`: JSON text of the
  // array of JSON Pointers, or null for none; `errorCode` and `errorPath` null without an
  // action error.
  return function verdict(outcome, reasons, drift, actionDigest, approvedDigest, errorCode, errorPath) {
    return {
      action_digest: actionDigest,
      action_error: errorCode === null ? null : { code: errorCode, path: errorPath },
      approved_digest: approvedDigest,
      drift: drift === null ? [] : parse(drift),
      outcome,
      reasons: reasons === '' ? [] : split(reasons, ' '),
    }
  }
})()
