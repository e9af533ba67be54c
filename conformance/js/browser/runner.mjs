// Runs a batch of conformance ops against an actionseal module. Shared by the wasm-node engine
// (in Node) and the chromium engine (inside the page), so both decode arguments and report
// results the same way.

const FUNCTIONS = ["canonicalize", "canonicalizeJson", "fingerprint", "fingerprintJson", "digestEqual"];

/** Turns one encoded argument into the host value it stands for. */
export function decodeArg(arg) {
  if (arg !== null && typeof arg === "object" && !Array.isArray(arg)) {
    const keys = Object.keys(arg);
    if (keys.length === 1 && keys[0] === "$bytes") return Uint8Array.from(arg.$bytes);
    // Indirect eval: global scope, and the parentheses let `{...}` be an object literal.
    if (keys.length === 1 && keys[0] === "$js") return (0, eval)(`(${arg.$js}\n)`);
  }
  return arg;
}

/** The result of one op: `{ok}` or `{error: {code, path, offset, isError, message}}`. */
export function runOp(api, op) {
  if (!FUNCTIONS.includes(op.fn)) throw new Error(`unknown function ${op.fn}`);
  const args = op.args.map(decodeArg);
  try {
    return { ok: api[op.fn](...args) };
  } catch (err) {
    const e = err !== null && (typeof err === "object" || typeof err === "function") ? err : {};
    return {
      error: {
        code: e.code,
        path: e.path,
        offset: e.offset,
        isError: err instanceof Error,
        message: typeof e.message === "string" ? e.message : String(err),
      },
    };
  }
}

/** Runs every op of a batch, in order. */
export function runOps(api, ops) {
  return ops.map((op) => runOp(api, op));
}

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
    const { code, path, offset, isError, message } = r.error;
    return { error: { code, path, offset, isError, message } };
  }
  return { ok: r.ok };
}
