// Runs batches of conformance ops against an actionseal JavaScript API: the napi addon
// (bindings-node), the wasm build in Node, or the wasm build inside Chromium's page. Every
// engine calls `runOps(api, ops)` with its module, so all of them decode arguments, call
// functions and report results alike. Plain JavaScript, no imports: it runs in Node and in
// the browser as it is.
//
// An op is {fn, args}:
//   fn  "canonicalize", "check", ... : that exported function, called with the args;
//       "new Contract", "new Approval" : that class constructed with the args (the result is
//                                        null: the instance is freed at once);
//       "Contract#validateAction"     : that method of the first argument, called with the rest;
//       "Contract.digest"             : that property of the first argument ("Schema#"/"Schema." too).
//   args are decoded recursively (inside arrays and plain objects too):
//       {$bytes: [..]}      a Uint8Array with these bytes
//       {$js: "<source>"}   the value of a JavaScript expression, evaluated in global scope
//                           (host values JSON cannot carry: undefined, BigInt, Date, cycles, ...)
//       {$json: "<text>"}   api.parseJson(text): the runtime's own strict parse of a JSON text
//       {$contract: <doc>}  new api.Contract(doc), so handles never cross an engine boundary
//       {$schema: <doc>}    new api.Schema(doc)
//       {$approval: <rec>}  new api.Approval(rec)
//       {$signingKey: <k>}  new api.SigningKey(k)
//       {$generatedKey: true}  api.SigningKey.generate()
//     An object with one of these keys as its only key is always such a form.
// A result is {ok: <return value>} (`undefined`, from a void method, is reported as null) or
// {error: {code, path, offset, isError, isClass, name, message}} with what the thrown value
// carries (`isClass`: an instance of the package's ActionsealError). An exception while
// decoding (a parse or a constructor that throws) is that op's error.
// Every Contract, Schema, Approval and SigningKey an op made is freed when the op ends (where the runtime
// has `free`; napi classes are collected by the garbage collector).

/** The functions an op may call by name. */
export const FUNCTIONS = [
  "canonicalize",
  "canonicalizeJson",
  "fingerprint",
  "fingerprintJson",
  "digestEqual",
  "requiresApproval",
  "action",
  "amend",
  "approve",
  "check",
  "checkSet",
  "checkItem",
  "checkBatch",
  "batchBuild",
  "batchDeselect",
  "batchVerifyItem",
  "batchDecide",
  "batchVerifyDecision",
  "breakerStep",
  "commitAction",
  "revealAction",
  "charge",
  "notices",
  "gateStep",
  "gateDefaults",
  "parseJson",
  "shortFingerprint",
  "publicKey",
  "verifyEnvelope",
  "verifyPasskey",
  "verifyProof",
  "passkeyChallenge",
  "verifyRegistration",
  "ed25519Verify",
  "pae",
  "signDelegation",
  "verifyDelegation",
  "delegationDigest",
  "verifyEvidence",
];

/** The classes whose methods ("Class#name") and properties ("Class.name") an op may use. */
export const CLASSES = ["Contract", "Schema", "Approval", "SigningKey"];

/** The classes an op may construct ("new Class"). */
export const CONSTRUCTORS = ["Contract", "Approval", "SigningKey"];

const FORMS = ["$bytes", "$js", "$json", "$contract", "$schema", "$approval", "$signingKey", "$generatedKey"];

/** A malformed op: a bug in the test, which fails the whole batch rather than one result. */
class HarnessError extends Error {}

/** Turns one encoded argument into the host value it stands for; handles made go to `made`. */
export function decodeArg(api, arg, made = []) {
  if (Array.isArray(arg)) return arg.map((a) => decodeArg(api, a, made));
  if (arg === null || typeof arg !== "object") return arg;
  const keys = Object.keys(arg);
  if (keys.length === 1 && FORMS.includes(keys[0])) {
    const inner = arg[keys[0]];
    switch (keys[0]) {
      case "$bytes":
        return Uint8Array.from(inner);
      case "$js":
        // Indirect eval: global scope, and the parentheses let `{...}` be an object literal.
        return (0, eval)(`(${inner}\n)`);
      case "$json":
        return api.parseJson(inner);
      case "$contract":
        return keep(new api.Contract(decodeArg(api, inner, made)), made);
      case "$approval":
        return keep(new api.Approval(decodeArg(api, inner, made)), made);
      case "$signingKey":
        return keep(new api.SigningKey(decodeArg(api, inner, made)), made);
      case "$generatedKey":
        if (inner !== true) throw new HarnessError("$generatedKey takes true");
        return keep(api.SigningKey.generate(), made);
      default:
        return keep(new api.Schema(decodeArg(api, inner, made)), made);
    }
  }
  // Built with fromEntries, so that a "__proto__" key stays an own property.
  return Object.fromEntries(keys.map((k) => [k, decodeArg(api, arg[k], made)]));
}

function keep(handle, made) {
  made.push(handle);
  return handle;
}

/** Calls what `fn` names; a name it does not know is a HarnessError. */
function call(api, fn, args, made) {
  const construct = /^new (\w+)$/.exec(fn);
  if (construct !== null) {
    if (!CONSTRUCTORS.includes(construct[1])) throw new HarnessError(`unknown class in op ${fn}`);
    keep(new api[construct[1]](...args), made);
    return null;
  }
  const member = /^(\w+)([#.])(\w+)$/.exec(fn);
  if (member !== null) {
    const [, cls, kind, name] = member;
    if (!CLASSES.includes(cls)) throw new HarnessError(`unknown class in op ${fn}`);
    const [self, ...rest] = args;
    if (!(self instanceof api[cls])) throw new TypeError(`op ${fn}: the first argument is not a ${cls}`);
    return kind === "." ? self[name] : self[name](...rest);
  }
  if (!FUNCTIONS.includes(fn)) throw new HarnessError(`unknown function ${fn}`);
  return api[fn](...args);
}

/** The result of one op: `{ok}` or `{error: {code, path, offset, isError, message}}`. */
export function runOp(api, op) {
  const made = [];
  try {
    let args;
    try {
      args = op.args.map((a) => decodeArg(api, a, made));
    } catch (err) {
      return failure(api, err);
    }
    let result;
    try {
      result = call(api, op.fn, args, made);
    } catch (err) {
      if (err instanceof HarnessError) throw err;
      return failure(api, err);
    }
    return { ok: result === undefined ? null : result };
  } finally {
    for (const handle of made) if (typeof handle.free === "function") handle.free();
  }
}

function failure(api, err) {
  const e = err !== null && (typeof err === "object" || typeof err === "function") ? err : {};
  return {
    error: {
      code: e.code,
      path: e.path,
      offset: e.offset,
      isError: err instanceof Error,
      isClass: typeof api.ActionsealError === "function" && err instanceof api.ActionsealError,
      name: typeof e.name === "string" ? e.name : undefined,
      message: typeof e.message === "string" ? e.message : String(err),
    },
  };
}

/** Runs every op of a batch, in order. */
export function runOps(api, ops) {
  return ops.map((op) => runOp(api, op));
}
