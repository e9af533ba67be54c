// The JavaScript half of actionseal's two JavaScript packages: the Node.js addon
// (bindings-node) and the WebAssembly build (bindings-wasm) both run this one file. It walks
// JavaScript values and writes down what it finds on a tape that one Rust decoder reads
// (bindings-js/src/tape.rs); core's host rulebook (core/src/host.rs) decides everything: what
// may be data, depth, cycles, type names, paths and every error. It also holds the error class
// both packages throw and export, builds `check`'s verdicts, and draws a new key's seed from
// the host's CSPRNG.
//
// It exists because reading a value through Node-API or wasm-bindgen costs a native call (or
// several) per property, more than the whole walk costs here, JIT-compiled.
//
// Loading: the WebAssembly build imports it as an ES module; the Node addon runs the
// expression after `export const host = ` as a script, whose value is the same object
// (bindings-js/src/lib.rs). So nothing but comments may come before that line, and it must
// stay the file's only export.
//
// Tape format (a Float64Array). Slot 0: slots used; 1: length of `text` in UTF-16 code units.
// Then the values, one after the other, each a record:
//   NULL | FALSE | TRUE
//   NUMBER value
//   STRING length                    the code units are appended to `text`
//   ARRAY proto flags length         then `length` records, or HOLE where one is missing
//   OBJECT proto flags count         then `count` times: key length (key appended), record
//   REPEAT depth                     a container that is the open container at `depth`
//   UNDEFINED | BIGINT | SYMBOL | FUNCTION
//   FOREIGN ref isArray <prototype facts>  an object or array with another prototype
//   HELD index nameLength            an object inheriting from `heldProto` (its constructor's
//                                    name appended)
// `proto`: 0 Object.prototype, 1 Array.prototype, 2 null (objects only), 3 + i for the i-th
// accepted prototype of another realm. Flags:
// 1 a `toJSON` method, 2 an own enumerable symbol-keyed property. Prototype facts: name length
// (-1 for none; the name is appended), own (1 when proto.constructor.prototype === proto), then
// for its prototype: -1 when that is null, else name length, own, root (1 when its prototype
// is null). `ref` indexes `refs`, where the prototype is kept.
//
// The walk stops after the first record the rulebook may refuse (anything but data, a
// container with flags, a container at the depth limit, a repeat, a hole): core reports the
// first problem met, and a huge sparse array or typed array is never walked element by
// element. A FOREIGN prototype that core accepts (another realm's Object.prototype) comes
// back, accepted, for a second walk.

export const host = (() => {
  'use strict'
  const NULL = 0, FALSE = 1, TRUE = 2, NUMBER = 3, STRING = 4, ARRAY = 5, OBJECT = 6
  const REPEAT = 7, HOLE = 8, UNDEFINED = 9, BIGINT = 10, SYMBOL = 11, FUNCTION = 12
  const FOREIGN = 13, HELD = 14
  const TO_JSON = 1, SYMBOL_KEY = 2
  const HEADER = 2

  // Captured now, so that later changes to the globals cannot change what is recorded.
  const ObjectPrototype = Object.prototype
  const ArrayPrototype = Array.prototype
  const { getPrototypeOf, keys: ownKeys, getOwnPropertySymbols, freeze } = Object
  const { isArray } = Array
  const call = Function.prototype.call
  const isEnumerable = call.bind(ObjectPrototype.propertyIsEnumerable)
  const isPrototypeOf = call.bind(ObjectPrototype.isPrototypeOf)
  const push = call.bind(ArrayPrototype.push)
  const F64 = Float64Array
  const U16 = Uint16Array
  const set = call.bind(getPrototypeOf(F64.prototype).set)
  const charCodeAt = call.bind(String.prototype.charCodeAt)
  const isWellFormed = typeof String.prototype.isWellFormed === 'function' ? call.bind(String.prototype.isWellFormed) : null
  const parse = JSON.parse

  // The walk in progress. A call made from a getter while a walk runs (re-entry) saves and
  // restores it, and records on a tape of its own.
  let busy = false
  let tape, n, text, refs, held, limit, acceptedObjects, acceptedArrays, heldProto, stop, used
  let stack = []

  function room(k) {
    if (n + k > tape.length) {
      const bigger = new F64(Math.max(tape.length * 2, n + k))
      set(bigger, tape)
      tape = bigger
    }
  }

  // The name of a prototype's constructor, or undefined; never throws.
  function nameOf(proto) {
    try {
      const ctor = proto.constructor
      if (typeof ctor !== 'function') return [undefined, false]
      const name = ctor.name
      return [typeof name === 'string' ? name : undefined, ctor.prototype === proto]
    } catch {
      return [undefined, false]
    }
  }

  // nameOf(proto)[0] without the pair (a held object is named on every check).
  function constructorName(proto) {
    try {
      const ctor = proto.constructor
      if (typeof ctor !== 'function') return undefined
      const name = ctor.name
      return typeof name === 'string' ? name : undefined
    } catch {
      return undefined
    }
  }

  function appendName(name) {
    if (name === undefined) {
      tape[n++] = -1
      return
    }
    tape[n++] = name.length
    text += name
  }

  // What a prototype that is not this realm's Object.prototype, Array.prototype or null is.
  function foreign(v, proto, array) {
    room(9)
    tape[n++] = FOREIGN
    tape[n++] = refs === null ? 0 : refs.length
    tape[n++] = array ? 1 : 0
    if (refs === null) refs = []
    push(refs, proto)
    if (proto === null) {
      // An array without a prototype.
      appendName(undefined)
      tape[n++] = 0
      tape[n++] = -1
      return
    }
    const [name, own] = nameOf(proto)
    appendName(name)
    tape[n++] = own ? 1 : 0
    const up = getPrototypeOf(proto)
    if (up === null) {
      tape[n++] = -1
      return
    }
    const [upName, upOwn] = nameOf(up)
    appendName(upName)
    tape[n++] = upOwn ? 1 : 0
    tape[n++] = getPrototypeOf(up) === null ? 1 : 0
  }

  function protoIndex(p, array) {
    if (array) {
      if (p === ArrayPrototype) return 1
    } else if (p === ObjectPrototype) {
      return 0
    } else if (p === null) {
      return 2
    }
    const list = array ? acceptedArrays : acceptedObjects
    if (list !== null) {
      for (let i = 0; i < list.length; i++) if (list[i] === p) return 3 + i
    }
    return -1
  }

  function walk(v, depth) {
    room(5)
    switch (typeof v) {
      case 'string':
        tape[n++] = STRING
        tape[n++] = v.length
        text += v
        return
      case 'number':
        tape[n++] = NUMBER
        tape[n++] = v
        return
      case 'boolean':
        tape[n++] = v ? TRUE : FALSE
        return
      case 'object':
        if (v === null) {
          tape[n++] = NULL
          return
        }
        break
      case 'undefined':
        tape[n++] = UNDEFINED
        stop = true
        return
      case 'bigint':
        tape[n++] = BIGINT
        stop = true
        return
      case 'symbol':
        tape[n++] = SYMBOL
        stop = true
        return
      default:
        tape[n++] = FUNCTION
        stop = true
        return
    }
    for (let i = 0; i < depth; i++) {
      if (stack[i] === v) {
        tape[n++] = REPEAT
        tape[n++] = i
        stop = true
        return
      }
    }
    const array = isArray(v)
    const proto = getPrototypeOf(v)
    // `proto === heldProto` first, the usual case: one prototype lookup fewer.
    if (
      heldProto !== null &&
      !array &&
      proto !== ObjectPrototype &&
      proto !== null &&
      (proto === heldProto || isPrototypeOf(heldProto, v))
    ) {
      tape[n++] = HELD
      tape[n++] = held.length
      push(held, v)
      appendName(constructorName(proto))
      return
    }
    const pi = protoIndex(proto, array)
    if (pi < 0) {
      foreign(v, proto, array)
      stop = true
      return
    }
    let flags = typeof v.toJSON === 'function' ? TO_JSON : 0
    if (!array) {
      const symbols = getOwnPropertySymbols(v)
      for (let i = 0; i < symbols.length; i++) {
        if (isEnumerable(v, symbols[i])) {
          flags |= SYMBOL_KEY
          break
        }
      }
    }
    if (array) {
      const length = v.length
      tape[n++] = ARRAY
      tape[n++] = pi
      tape[n++] = flags
      tape[n++] = length
      if (flags !== 0 || depth >= limit) {
        stop = true
        return
      }
      stack[depth] = v
      if (depth >= used) used = depth + 1
      // The text grows in a local while the members are recorded here, and is stored back
      // before any call that reads it: storing each new string in `text`, which lives as
      // long as the walker, costs a write barrier every time.
      let t = text
      for (let i = 0; i < length && !stop; i++) {
        const item = v[i]
        // Strings and numbers, most of the data, are recorded here rather than by a call.
        if (n + 3 > tape.length) room(3)
        if (typeof item === 'string') {
          tape[n++] = STRING
          tape[n++] = item.length
          t += item
        } else if (typeof item === 'number') {
          tape[n++] = NUMBER
          tape[n++] = item
        } else if (item === undefined && !(i in v)) {
          tape[n++] = HOLE
          stop = true
          break
        } else {
          text = t
          walk(item, depth + 1)
          t = text
        }
      }
      text = t
      return
    }
    const names = ownKeys(v)
    tape[n++] = OBJECT
    tape[n++] = pi
    tape[n++] = flags
    tape[n++] = names.length
    if (flags !== 0 || depth >= limit) {
      stop = true
      return
    }
    stack[depth] = v
    if (depth >= used) used = depth + 1
    // As for arrays: the text in a local, stored back before a call.
    let t = text
    for (let i = 0; i < names.length && !stop; i++) {
      const name = names[i]
      const item = v[name]
      if (n + 4 > tape.length) room(4)
      tape[n++] = name.length
      if (typeof item === 'string') {
        tape[n++] = STRING
        tape[n++] = item.length
        t += name + item
      } else if (typeof item === 'number') {
        tape[n++] = NUMBER
        tape[n++] = item
        t += name
      } else {
        text = t + name
        walk(item, depth + 1)
        t = text
      }
    }
    text = t
  }

  /**
   * Records up to three values (`count` of v0, v1, v2: the arguments of one call) on one
   * tape, entering at most `maxDepth` levels of containers, treating as plain the objects and
   * arrays whose prototypes are in `objectProtos` and `arrayProtos` (other realms', which core
   * accepted; or null), and recording as HELD, not entering, the objects that inherit from
   * `heldPrototype` (or null), such as a Contract in check's context; `undefined` is null. Writes on `given` when it fits
   * and no walk is running; returns `text` alone when that happened and nothing else is
   * needed, else [text, tape (null when it is `given`), refs, held].
   */
  function gather(given, maxDepth, objectProtos, arrayProtos, heldPrototype, count, v0, v1, v2) {
    const nested = busy
    const saved = nested
      ? { tape, n, text, refs, held, limit, acceptedObjects, acceptedArrays, heldProto, stop, used, stack }
      : null
    busy = true
    tape = nested || given === null ? new F64(256) : given
    n = HEADER
    text = ''
    refs = null
    limit = maxDepth
    acceptedObjects = objectProtos ?? null
    acceptedArrays = arrayProtos ?? null
    heldProto = heldPrototype ?? null
    held = heldProto === null ? null : []
    stop = false
    used = 0
    if (nested) stack = []
    try {
      if (count > 0) walk(v0, 0)
      if (count > 1 && !stop) walk(v1, 0)
      if (count > 2 && !stop) walk(v2, 0)
      tape[0] = n
      tape[1] = text.length
      const plain = tape === given && refs === null && (held === null || held.length === 0)
      return plain ? text : [text, tape === given ? null : tape, refs, held]
    } finally {
      // Drop the references to the caller's containers (cheaper than setting `length`).
      for (let i = 0; i < used; i++) stack[i] = undefined
      if (nested) {
        ;({ tape, n, text, refs, held, limit, acceptedObjects, acceptedArrays, heldProto, stop, used, stack } = saved)
      } else {
        busy = false
        tape = refs = held = acceptedObjects = acceptedArrays = heldProto = null
        text = ''
      }
    }
  }

  /** Whether a string has no lone surrogate (so that its UTF-8 is lossless). */
  function wellFormed(s) {
    if (isWellFormed !== null) return isWellFormed(s)
    for (let i = 0; i < s.length; i++) {
      const c = charCodeAt(s, i)
      if (c >= 0xd800 && c < 0xdc00) {
        const d = charCodeAt(s, i + 1)
        if (!(d >= 0xdc00 && d < 0xe000)) return false
        i++
      } else if (c >= 0xdc00 && c < 0xe000) {
        return false
      }
    }
    return true
  }

  /** The UTF-16 code units of a string, lone surrogates included. */
  function units(s) {
    const out = new U16(s.length)
    for (let i = 0; i < s.length; i++) out[i] = charCodeAt(s, i)
    return out
  }

  /**
   * What a value given where JSON text, a digest or options belong is, for core to name:
   * `typeof`, except "null" for null and "object:<constructor name>" for other objects.
   */
  function describe(v) {
    if (v === null) return 'null'
    const t = typeof v
    if (t !== 'object') return t
    let name = ''
    try {
      const ctor = getPrototypeOf(v)?.constructor
      if (typeof ctor === 'function' && typeof ctor.name === 'string') name = ctor.name
    } catch {
      // The name only decorates a message.
    }
    return 'object:' + name
  }

  /**
   * Whether `v` is an instance of the class with prototype `proto` that lent itself: calls
   * `v.__actionsealLend()`, with which a WebAssembly class instance hands its Rust value over
   * (bindings-wasm). Plain data is never asked. Throws what a getter or Proxy trap throws.
   */
  function lend(v, proto) {
    if (v === null || typeof v !== 'object' || isArray(v) || !isPrototypeOf(proto, v)) return false
    const method = v.__actionsealLend
    if (typeof method !== 'function') return false
    call.call(method, v)
    return true
  }

  /** What every function of both packages throws for input it refuses. */
  class ActionsealError extends Error {
    constructor(code, message, path = '', offset = null) {
      super(message)
      this.code = code
      this.path = path
      this.offset = offset
    }
  }
  Object.defineProperty(ActionsealError.prototype, 'name', {
    value: 'ActionsealError',
    writable: true,
    configurable: true,
  })

  /** A new ActionsealError; `offset` is -1 when there is none. */
  function fail(code, message, path, offset) {
    return new ActionsealError(code, message, path, offset < 0 ? null : offset)
  }

  /**
   * `check`'s verdict as a plain object, with the members of core's `Verdict::to_value`:
   * `pool` holds core's strings one after another and `lengths` their lengths in UTF-16 code
   * units, in this order: outcome, action_digest, approved_digest (-1: null; -2: the same as
   * action_digest), action_error's code and path (-1: null), then the number of reasons and
   * each reason, then the drift pointers as one JSON text (-1: none), then the quorum's state
   * as one JSON text (-1: the contract has no quorum, and the verdict no `quorum` member).
   * Cheaper than JSON.parse of the whole verdict.
   */
  function verdict(pool, lengths) {
    let at = 0
    let i = 0
    const next = () => {
      const len = lengths[i++]
      if (len < 0) return null
      const s = pool.slice(at, at + len)
      at += len
      return s
    }
    const outcome = next()
    const actionDigest = next()
    const approvedDigest = lengths[i] === -2 ? (i++, actionDigest) : next()
    const code = next()
    const path = code === null ? null : next()
    const reasonCount = lengths[i++]
    const reasons = []
    for (let k = 0; k < reasonCount; k++) push(reasons, next())
    const drift = next()
    const quorum = next()
    if (quorum === null) {
      return {
        action_digest: actionDigest,
        action_error: code === null ? null : { code, path },
        approved_digest: approvedDigest,
        drift: drift === null ? [] : parse(drift),
        outcome,
        reasons,
      }
    }
    return {
      action_digest: actionDigest,
      action_error: code === null ? null : { code, path },
      approved_digest: approvedDigest,
      drift: drift === null ? [] : parse(drift),
      outcome,
      quorum: parse(quorum),
      reasons,
    }
  }

  /**
   * The Node addon's most frequent calls as JavaScript functions that walk first and then make
   * one native call with what the walk recorded, instead of a native call that calls back into
   * JavaScript to walk (and, for `check`, again to build the verdict): a call from native code
   * into JavaScript costs more than a call the other way. Whatever is not the common case (options
   * given, a call from inside a walk, no `Approval` for `check`) goes to the native function
   * unchanged. `n` holds the native functions and facts:
   *   fingerprint, canonicalize, check    the native functions, which do everything themselves
   *   digestWalk(result, tape, value)     the fingerprint of `value`, whose walk `gather` wrote
   *                                       on `tape` and returned `result`
   *   digest(text, tape, value)           the same, when `gather` returned the text alone
   *   canonicalWalk, canonical            its canonical text, likewise
   *   checkLoaded(approval, result, tape, action, context, held, same)  `check` of an
   *                                       `Approval` instance, whose action and context were
   *                                       walked (context's Contract held); core's verdict
   *                                       strings, their lengths written on `lengths`. `same`
   *                                       1: `approval` is the last successful check's, 2: so
   *                                       is the one held object, 4: `held` is given
   *                                       (`result` is then the text alone)
   *   maxDepth, lengths, approvalProto, contractProto
   * A native `digest`, `canonical` or `checkLoaded` does the whole call again itself when the
   * walk is not what it can use (another realm's prototype, an object that only looks like an
   * `Approval`).
   */
  function front(n) {
    const { maxDepth, lengths, approvalProto, contractProto } = n
    const slowFingerprint = n.fingerprint
    const slowCanonicalize = n.canonicalize
    const slowCheck = n.check
    const { digest, digestWalk, canonical, canonicalWalk } = n
    const checkLoaded = n.checkLoaded
    // A tape of the front's own, kept bigger once a walk needed more (up to a limit).
    let own = new F64(1024)
    const keep = (r) => {
      if (typeof r !== 'string' && r[1] !== null && r[1].length <= 65536) own = r[1]
    }
    function fingerprint(value, options) {
      if ((options !== undefined && options !== null) || busy) return slowFingerprint(value, options)
      const t = own
      const r = gather(t, maxDepth, null, null, null, 1, value)
      const out = typeof r === 'string' ? digest(r, t, value) : digestWalk(r, t, value)
      keep(r)
      return out
    }
    function canonicalize(value, options) {
      if ((options !== undefined && options !== null) || busy) return slowCanonicalize(value, options)
      const t = own
      const r = gather(t, maxDepth, null, null, null, 1, value)
      const out = typeof r === 'string' ? canonical(r, t, value) : canonicalWalk(r, t, value)
      keep(r)
      return out
    }
    // The approval and the contract of the last check that succeeded here (see checkLoaded):
    // each is marked, when it becomes the last one, with a number no other gets, in maps that
    // do not keep it alive (a WeakRef's deref costs more).
    const approvalMarks = new WeakMap()
    const contractMarks = new WeakMap()
    let approvalMark = 0
    let contractMark = 0
    let marks = 0
    function check(approval, action, context, options) {
      if (
        (options !== undefined && options !== null) ||
        busy ||
        approval === null ||
        typeof approval !== 'object' ||
        !isPrototypeOf(approvalProto, approval)
      ) {
        return slowCheck(approval, action, context, options)
      }
      const t = own
      const r = gather(t, maxDepth, null, null, contractProto, 2, action, context)
      let result = r
      let held
      let same = 0
      if (typeof r !== 'string' && r[1] === null && r[2] === null) {
        // The given tape, with held objects only: the text and the objects, passed as they are.
        result = r[0]
        held = r[3]
        same = 4
        if (held.length === 1 && contractMark !== 0 && contractMarks.get(held[0]) === contractMark) same |= 2
      }
      if (approvalMark !== 0 && approvalMarks.get(approval) === approvalMark) same |= 1
      const pool = checkLoaded(approval, result, t, action, context, held, same)
      keep(r)
      if (typeof pool !== 'string') return pool
      // Succeeded: the native half now remembers the approval, and the contract when it was
      // passed as the one held object, as this does. A contract it found another way (a walk
      // that needed a bigger tape) is not marked here, so none is: the next check reads it.
      if ((same & 1) === 0) approvalMarks.set(approval, (approvalMark = ++marks))
      if (held === undefined || held.length !== 1) contractMark = 0
      else if ((same & 2) === 0) contractMarks.set(held[0], (contractMark = ++marks))
      return verdict(pool, lengths)
    }
    return { fingerprint, canonicalize, check }
  }

  // The host's CSPRNG, captured now like the other globals: Web Crypto's getRandomValues,
  // which browsers, Deno and Node (>= 19; backed by the OpenSSL CSPRNG of crypto.randomBytes)
  // all have. Core draws no randomness of its own.
  const webCrypto = globalThis.crypto
  const getRandomValues = typeof webCrypto?.getRandomValues === 'function' ? call.bind(webCrypto.getRandomValues) : null

  /** 32 bytes from the host's CSPRNG: the seed of a new signing key. */
  function seed() {
    if (getRandomValues === null) throw new Error('actionseal: this environment has no crypto.getRandomValues to make a key with')
    return getRandomValues(webCrypto, new Uint8Array(32))
  }

  return freeze({ gather, wellFormed, units, describe, lend, fail, verdict, seed, front, ActionsealError })
})()
