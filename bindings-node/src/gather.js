// Records a JavaScript value on a flat tape for the Rust side of the binding, in one call.
//
// This script is compiled once per Node environment by src/gather.rs; its value is the
// `gather` function. It decides nothing: it writes down what it finds (JS types,
// prototypes, own enumerable keys, a `toJSON` method, holes) and Rust applies every rule and
// raises every error (src/tape.rs). It exists because reading a value through Node-API
// costs several native calls per property, which made the binding slower than plain
// JavaScript; here the walk runs JIT-compiled and Rust reads the result with a few calls.
//
// It stops recording at the first value Rust cannot accept as data (anything but a string,
// number, boolean, null, or an object or array with a listed prototype), so that, say, a
// huge sparse array or a Buffer is not walked element by element. At most one such value is
// recorded, so `refs` holds only what Rust needs to describe it.
//
// Several values (the arguments of one call) may be recorded on one tape, one after the
// other; the walk stops at the first value Rust cannot accept in any of them.
//
// Tape format (a Float64Array; tags are also defined in src/tape.rs):
//   slot 0: number of slots used; slot 1: length of `text` in UTF-16 code units; then each
//   value:
//   NULL | FALSE | TRUE
//   NUMBER value
//   STRING length                  (the code units are appended to `text`)
//   OTHER                          (refs = [v]: undefined, a BigInt, Symbol or function)
//   DEEP                           (refs = the enclosing containers, outermost first, then v:
//                                   an object at the depth limit, not entered)
//   FOREIGN proto isArray          (refs = [v]: an object or array with an unlisted prototype)
//   HELD index                     (heldList[index] = v: an object that inherits from `heldProto`,
//                                   not entered; Rust decides whether it may be there)
//   ARRAY proto flags length       then the elements, or HOLE where one is missing
//   OBJECT proto flags count       then `count` times: key length (key appended to `text`), value
// `proto` indexes `protos`: 0 Object.prototype, 1 Array.prototype, 2 null, then others in
// the order met. Flags: 1 = has a `toJSON` method, 2 = has an own enumerable symbol-keyed
// property.
//
// `heldProto` (optional, with `heldList`) is a prototype whose instances are handed to Rust
// as they are, appended to `heldList`, such as a `Contract` inside `check`'s context.
//
// Returns `text` alone when it used the tape it was given and `refs` and `protos` are not
// needed (the common case); else [text, tape, refs, protos].
'use strict';
(() => {
  const NULL = 0, FALSE = 1, TRUE = 2, NUMBER = 3, STRING = 4, ARRAY = 5, OBJECT = 6
  const OTHER = 7, HOLE = 8, DEEP = 9, FOREIGN = 10, HELD = 11
  const TO_JSON = 1, SYMBOL_KEY = 2

  // Captured now, so that later changes to the globals cannot change what is recorded.
  const ObjectPrototype = Object.prototype
  const ArrayPrototype = Array.prototype
  const { getPrototypeOf, keys: ownKeys, getOwnPropertySymbols } = Object
  const { isArray } = Array
  const call = Function.prototype.call
  const isEnumerable = call.bind(ObjectPrototype.propertyIsEnumerable)
  const isPrototypeOf = call.bind(ObjectPrototype.isPrototypeOf)
  const includes = call.bind(ArrayPrototype.includes)
  const push = call.bind(ArrayPrototype.push)
  const slice = call.bind(ArrayPrototype.slice)
  const F64 = Float64Array
  const set = call.bind(getPrototypeOf(F64.prototype).set)

  // The state of the walk in progress. A call made from inside a getter while a walk is
  // running saves and restores it, and records on a tape of its own.
  let busy = false
  let tape, n, text, refs, protos, lastProto, lastIndex, limit, objectProtos, arrayProtos, stop, stack, used
  let heldProto, held

  function room(k) {
    if (n + k > tape.length) {
      const bigger = new F64(Math.max(tape.length * 2, n + k))
      set(bigger, tape)
      tape = bigger
    }
  }

  function protoIndex(p) {
    if (p === lastProto) return lastIndex
    let i = p === ObjectPrototype ? 0 : p === ArrayPrototype ? 1 : p === null ? 2 : -1
    if (i < 0) {
      if (protos === null) protos = [ObjectPrototype, ArrayPrototype, null]
      for (i = 3; i < protos.length && protos[i] !== p; i++);
      if (i === protos.length) push(protos, p)
    }
    lastProto = p
    lastIndex = i
    return i
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
      default:
        tape[n++] = OTHER
        refs = [v]
        stop = true
        return
    }
    if (depth >= limit) {
      tape[n++] = DEEP
      refs = slice(stack, 0, depth)
      push(refs, v)
      stop = true
      return
    }
    stack[depth] = v
    if (depth >= used) used = depth + 1
    const array = isArray(v)
    const proto = getPrototypeOf(v)
    if (heldProto !== null && proto !== ObjectPrototype && proto !== null && !array && isPrototypeOf(heldProto, v)) {
      tape[n++] = HELD
      tape[n++] = held.length
      push(held, v)
      return
    }
    const pi = protoIndex(proto)
    const listed = array
      ? pi === 1 || includes(arrayProtos, proto)
      : pi === 0 || pi === 2 || includes(objectProtos, proto)
    if (!listed) {
      if (protos === null) protos = [ObjectPrototype, ArrayPrototype, null]
      tape[n++] = FOREIGN
      tape[n++] = pi
      tape[n++] = array ? 1 : 0
      refs = [v]
      stop = true
      return
    }
    let flags = typeof v.toJSON === 'function' ? TO_JSON : 0
    if (array) {
      const length = v.length
      tape[n++] = ARRAY
      tape[n++] = pi
      tape[n++] = flags
      tape[n++] = length
      if (flags) {
        stop = true
        return
      }
      for (let i = 0; i < length && !stop; i++) {
        const item = v[i]
        if (item === undefined && !(i in v)) {
          room(1)
          tape[n++] = HOLE
          stop = true
          return
        }
        walk(item, depth + 1)
      }
      return
    }
    const symbols = getOwnPropertySymbols(v)
    for (let i = 0; i < symbols.length; i++) {
      if (isEnumerable(v, symbols[i])) {
        flags |= SYMBOL_KEY
        break
      }
    }
    const names = ownKeys(v)
    tape[n++] = OBJECT
    tape[n++] = pi
    tape[n++] = flags
    tape[n++] = names.length
    if (flags) {
      stop = true
      return
    }
    for (let i = 0; i < names.length && !stop; i++) {
      const name = names[i]
      room(1)
      tape[n++] = name.length
      text += name
      walk(v[name], depth + 1)
    }
  }

  return function gather(maxDepth, given, extraObjectProtos, extraArrayProtos, heldPrototype, heldList, ...values) {
    const nested = busy
    const saved = nested
      ? { tape, n, text, refs, protos, lastProto, lastIndex, limit, objectProtos, arrayProtos, stop, stack, used, heldProto, held }
      : null
    busy = true
    tape = nested || !given ? new F64(1024) : given
    n = 2
    text = ''
    refs = null
    protos = null
    lastProto = ObjectPrototype
    lastIndex = 0
    limit = maxDepth
    objectProtos = extraObjectProtos || []
    arrayProtos = extraArrayProtos || []
    heldProto = heldPrototype && heldList ? heldPrototype : null
    held = heldList || null
    stop = false
    if (nested || stack === undefined) stack = []
    used = 0
    try {
      for (let i = 0; i < values.length && !stop; i++) walk(values[i], 0)
      tape[0] = n
      tape[1] = text.length
      return tape === given && refs === null && protos === null ? text : [text, tape, refs, protos]
    } finally {
      if (nested) {
        tape = saved.tape
        n = saved.n
        text = saved.text
        refs = saved.refs
        protos = saved.protos
        lastProto = saved.lastProto
        lastIndex = saved.lastIndex
        limit = saved.limit
        objectProtos = saved.objectProtos
        arrayProtos = saved.arrayProtos
        stop = saved.stop
        stack = saved.stack
        used = saved.used
        heldProto = saved.heldProto
        held = saved.held
      } else {
        busy = false
        tape = refs = protos = objectProtos = arrayProtos = heldProto = held = null
        text = ''
        lastProto = ObjectPrototype
        // Drop the references to the caller's containers (cheaper than setting `length`).
        for (let i = 0; i < used; i++) stack[i] = undefined
      }
    }
  }
})()
