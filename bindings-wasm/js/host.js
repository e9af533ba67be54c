// Facts about JavaScript values, for the Rust walker in src/host.rs; and two transports for
// the approval model: `lendContract` (a Contract instance hands its contract to Rust) and
// `verdict` (builds check's result from core's strings).
//
// Nothing here decides whether a value is acceptable: these functions report what values
// are (their typeof, their UTF-8 text, whether an array element exists, what an object's
// prototype is) and Rust applies every rule and writes every message. They exist because a
// call from wasm into JavaScript costs far more than the work per value: one call here
// encodes all members of an object, or all elements of an array, as a tape of records that
// Rust reads, instead of several calls and an allocation per value.
//
// A record is a little-endian i32 tag, then a payload:
//   tag >= 0   a string: `tag` bytes of UTF-8 follow. A lone surrogate is written as its
//              three-byte generalized UTF-8 form, which is not UTF-8, so Rust sees it.
//   NUMBER     an f64 follows.
//   OBJECT     typeof "object" and not null: the value is the next entry of the `children`
//              array the encoding call returns.
//   others     no payload.
// An object's tape is the number of members (an i32), then key record, value record, ... in
// `Object.keys` order; an array's is its length, then one record per element, ending at the
// first missing element (HOLE).
const NUMBER = -1;
const FALSE = -2;
const TRUE = -3;
const NULL = -4;
const OBJECT = -5;
const UNDEFINED = -6;
const BIGINT = -7;
const SYMBOL = -8;
const FUNCTION = -9;
const HOLE = -10;

// Bits returned by `shape` (THREW, below, when it caught an exception).
const ARRAY = 1; // Array.isArray (which sees through a Proxy)
const PROTO_NULL = 2; // the prototype is null
const PROTO_OBJECT = 4; // the prototype is this realm's Object.prototype
const PROTO_ARRAY = 8; // the prototype is this realm's Array.prototype
const PROTO_OTHER_OBJECT = 16; // another realm's Object.prototype (an iframe, a vm context)
const PROTO_OTHER_ARRAY = 32; // another realm's Array.prototype
const TO_JSON = 64; // `value.toJSON` is a function (own or inherited, enumerable or not)
const SYMBOL_KEY = 128; // an own enumerable symbol-keyed property (not looked for on arrays)

// Strings at least this long go through TextEncoder, faster than the loop below once its
// fixed cost (about a microsecond) is paid.
const ENCODER_MIN = 512;
const encoder = new TextEncoder();
const hasOwn = Object.prototype.hasOwnProperty;

// A tape being written: `bytes[0..end]`, copied into wasm memory when done.
class Tape {
  constructor(size) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
    this.end = 0;
  }

  reserve(n) {
    if (this.end + n > this.bytes.length) {
      let size = this.bytes.length * 2;
      while (size < this.end + n) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.bytes.subarray(0, this.end));
      this.bytes = next;
      this.view = new DataView(next.buffer);
    }
  }

  tag(t) {
    this.reserve(4);
    this.view.setInt32(this.end, t, true);
    this.end += 4;
  }

  string(s) {
    const n = s.length;
    // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
    this.reserve(4 + 3 * n);
    const start = this.end + 4;
    let at = start;
    // TextEncoder would replace a lone surrogate with U+FFFD: only for well-formed strings.
    if (n >= ENCODER_MIN && typeof s.isWellFormed === "function" && s.isWellFormed()) {
      at += encoder.encodeInto(s, this.bytes.subarray(start)).written;
    } else {
      const b = this.bytes;
      for (let i = 0; i < n; i++) {
        let c = s.charCodeAt(i);
        if (c < 0x80) {
          b[at++] = c;
        } else if (c < 0x800) {
          b[at++] = 0xc0 | (c >> 6);
          b[at++] = 0x80 | (c & 0x3f);
        } else {
          if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
            const d = s.charCodeAt(i + 1);
            if (d >= 0xdc00 && d < 0xe000) {
              c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
              i++;
              b[at++] = 0xf0 | (c >> 18);
              b[at++] = 0x80 | ((c >> 12) & 0x3f);
              b[at++] = 0x80 | ((c >> 6) & 0x3f);
              b[at++] = 0x80 | (c & 0x3f);
              continue;
            }
          }
          b[at++] = 0xe0 | (c >> 12);
          b[at++] = 0x80 | ((c >> 6) & 0x3f);
          b[at++] = 0x80 | (c & 0x3f);
        }
      }
    }
    this.view.setInt32(this.end, at - start, true);
    this.end = at;
  }

  // Appends one record; an object goes to `children`, returned (created when needed).
  value(value, children) {
    switch (typeof value) {
      case "string":
        this.string(value);
        return children;
      case "number":
        this.reserve(12);
        this.view.setInt32(this.end, NUMBER, true);
        this.view.setFloat64(this.end + 4, value, true);
        this.end += 12;
        return children;
      case "boolean":
        this.tag(value ? TRUE : FALSE);
        return children;
      case "object":
        if (value === null) {
          this.tag(NULL);
          return children;
        }
        this.tag(OBJECT);
        if (children === null) children = [];
        children.push(value);
        return children;
      case "undefined":
        this.tag(UNDEFINED);
        return children;
      case "bigint":
        this.tag(BIGINT);
        return children;
      case "symbol":
        this.tag(SYMBOL);
        return children;
      default:
        this.tag(FUNCTION);
        return children;
    }
  }
}

// One tape serves every call; a getter that calls into actionseal while a tape is being
// written (re-entry) gets a fresh one, so the outer tape stays intact.
const shared = new Tape(1 << 14);
let busy = false;
// The tape of the last finished call, for `take`.
let last = shared;

// A tape larger than this is not kept for the next call (a huge string would stay in memory).
const KEEP_MAX = 1 << 20;

function begin() {
  if (busy) return new Tape(256);
  busy = true;
  if (shared.bytes.length > KEEP_MAX) {
    shared.bytes = new Uint8Array(1 << 14);
    shared.view = new DataView(shared.bytes.buffer);
  }
  shared.end = 0;
  return shared;
}

function release(tape) {
  if (tape === shared) busy = false;
}

let memory = null;
let wasmBytes = new Uint8Array(0);
let wasmFloats = new Float64Array(0);

/** Gives this module the wasm memory it copies tapes into. */
export function attach(mem) {
  memory = mem;
  wasmBytes = new Uint8Array(0);
}

// Growing wasm memory detaches the old buffer, whose views then have length 0.
function views() {
  if (wasmBytes.byteLength === 0) {
    wasmBytes = new Uint8Array(memory.buffer);
    wasmFloats = new Float64Array(memory.buffer);
  }
}

// Puts the tape's length in the f64 at `slot` and copies the tape to `ptr` if it fits in
// `cap` bytes; otherwise the caller makes room and calls `take`.
function finish(tape, ptr, cap, slot, children) {
  views();
  const n = tape.end;
  wasmFloats[slot >>> 3] = n;
  if (n <= cap) {
    const src = tape.bytes;
    // A loop beats making a subarray for the short tapes of most objects.
    if (n <= 64) for (let i = 0; i < n; i++) wasmBytes[ptr + i] = src[i];
    else wasmBytes.set(src.subarray(0, n), ptr);
  }
  last = tape;
  return children;
}

// An exception from user code (a getter, a Proxy trap), kept for `takeThrown`. Catching it
// here rather than in the wasm-bindgen glue saves a wrapper per call; the f64 at `slot` (or
// the THREW bit of `shape`) tells Rust to fetch it.
let thrown;
const THREW = 1 << 30;

function threw(e, slot) {
  thrown = e;
  views();
  wasmFloats[slot >>> 3] = -1;
  return null;
}

/** The exception the last failed call caught. */
export function takeThrown() {
  const e = thrown;
  thrown = undefined;
  return e;
}

/** Copies the last tape to `ptr`, after `finish` found no room for it. */
export function take(ptr) {
  wasmBytes = new Uint8Array(memory.buffer);
  wasmFloats = new Float64Array(memory.buffer);
  wasmBytes.set(last.bytes.subarray(0, last.end), ptr);
}

/** The tape of one value. Returns `children` (or null). */
export function encodeValue(value, ptr, cap, slot) {
  const tape = begin();
  try {
    return finish(tape, ptr, cap, slot, tape.value(value, null));
  } catch (e) {
    // Only running out of memory for a huge string gets here.
    return threw(e, slot);
  } finally {
    release(tape);
  }
}

/** The tape of an object's own enumerable string-keyed members. Runs getters. */
export function encodeMembers(object, ptr, cap, slot) {
  const tape = begin();
  try {
    let children = null;
    const keys = Object.keys(object);
    tape.tag(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const value = object[key];
      tape.string(key);
      children = tape.value(value, children);
    }
    return finish(tape, ptr, cap, slot, children);
  } catch (e) {
    return threw(e, slot);
  } finally {
    release(tape);
  }
}

/** The tape of an array's elements, up to the first missing one. Runs getters. */
export function encodeElements(array, ptr, cap, slot) {
  const tape = begin();
  try {
    let children = null;
    const n = array.length;
    tape.tag(Math.min(n, 0x7fffffff) | 0); // a capacity hint for Rust, not the loop bound
    for (let i = 0; i < n; i++) {
      if (!hasOwn.call(array, i)) {
        tape.tag(HOLE);
        break;
      }
      children = tape.value(array[i], children);
    }
    return finish(tape, ptr, cap, slot, children);
  } catch (e) {
    return threw(e, slot);
  } finally {
    release(tape);
  }
}

/** What kind of object `value` is (bits above), or THREW. Runs Proxy traps and getters. */
export function shape(value) {
  try {
    return shapeOf(value);
  } catch (e) {
    thrown = e;
    return THREW;
  }
}

function shapeOf(value) {
  const array = Array.isArray(value);
  const proto = Object.getPrototypeOf(value);
  let bits = array ? ARRAY : 0;
  if (proto === null) bits |= PROTO_NULL;
  else if (proto === Object.prototype) bits |= PROTO_OBJECT;
  else if (proto === Array.prototype) bits |= PROTO_ARRAY;
  else if (isBuiltinPrototype(proto, "Object") && Object.getPrototypeOf(proto) === null) {
    bits |= PROTO_OTHER_OBJECT;
  } else if (isBuiltinPrototype(proto, "Array")) {
    const up = Object.getPrototypeOf(proto);
    if (isBuiltinPrototype(up, "Object") && Object.getPrototypeOf(up) === null) {
      bits |= PROTO_OTHER_ARRAY;
    }
  }
  if (typeof value.toJSON === "function") bits |= TO_JSON;
  if (!array) {
    const symbols = Object.getOwnPropertySymbols(value);
    for (let i = 0; i < symbols.length; i++) {
      if (Object.prototype.propertyIsEnumerable.call(value, symbols[i])) bits |= SYMBOL_KEY;
    }
  }
  return bits;
}

// Whether `proto` is the `prototype` of a function named `name` (another realm's built-in).
function isBuiltinPrototype(proto, name) {
  const ctor = proto === null ? undefined : proto.constructor;
  return typeof ctor === "function" && ctor.prototype === proto && ctor.name === name;
}

/** The name of the class of `value`, for messages; "" when it has none. */
export function className(value) {
  try {
    const name = Object.getPrototypeOf(value)?.constructor?.name;
    return typeof name === "string" ? name : "";
  } catch {
    return "";
  }
}

/** Has `value` hand over its contract by calling its `__actionsealLend` method, as a
 * `Contract` instance does (see src/contract.rs). Returns 1 when it was called, 0 when
 * there is no such method, and THREW when the call (or reading the method) threw. */
export function lendContract(value) {
  try {
    const lend = value.__actionsealLend;
    if (typeof lend !== "function") return 0;
    lend.call(value);
    return 1;
  } catch (e) {
    thrown = e;
    return THREW;
  }
}

// Marks an absent string in `verdict`'s lengths (approved_digest, action_error).
const NONE = 0xffffffff;

/** A verdict as a plain object: `pool` holds core's strings one after another, `lengths`
 * their lengths in UTF-16 code units, in this order: outcome; the number of reasons, then
 * each; the number of drift pointers, then each; action_digest; approved_digest or NONE;
 * action_error's code and path, or NONE. The members are those of core's
 * `Verdict::to_value`, in its (canonical) order. Cheaper than JSON.parse of the same text,
 * which would be a third of the cost of a check. */
export function verdict(pool, lengths) {
  let at = 0;
  let i = 0;
  const next = () => pool.slice(at, (at += lengths[i++]));
  const outcome = next();
  const reasons = [];
  for (let n = lengths[i++]; n > 0; n--) reasons.push(next());
  const drift = [];
  for (let n = lengths[i++]; n > 0; n--) drift.push(next());
  const actionDigest = next();
  const approvedDigest = lengths[i] === NONE ? (i++, null) : next();
  const actionError = lengths[i] === NONE ? null : { code: next(), path: next() };
  return {
    action_digest: actionDigest,
    action_error: actionError,
    approved_digest: approvedDigest,
    drift,
    outcome,
    reasons,
  };
}
