// What the chromium engine needs on both sides of the CDP boundary: the shared op runner
// (../ops.mjs, also used by the wasm-node and node engines) and a lossless JSON transport.

export { decodeArg, runOp, runOps } from "../ops.mjs";

/** JSON with every character outside printable ASCII escaped (lone surrogates included, as
 * `JSON.stringify` writes them), so no transport can re-encode a string on the way. */
export function asciiJson(value) {
  return JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A result read back from JSON, with the keys that JSON drops (`undefined`) restored. */
export function restoreResult(r) {
  if ("error" in r) {
    const { code, path, offset, isError, isClass, name, message } = r.error;
    return { error: { code, path, offset, isError, isClass, name, message } };
  }
  return { ok: r.ok };
}
