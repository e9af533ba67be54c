// Host values for conformance.test.mjs: JavaScript expressions (source text, evaluated in the
// runtime under test) with what `fingerprint` and `canonicalize` must do with them. Every
// JavaScript runtime gives the same answers.
//
//   rejected: both throw an Error with this `code` (from conformance/codes.json) and `path`:
//             the JSON Pointer of the offending value. Where the problem belongs to a
//             container (a `toJSON` method, a symbol key, a key with a lone surrogate, a
//             hole) it is the container's path; for a cycle, the path at which a value
//             first contains itself; past the depth limit, the first container too deep.
//             The first problem in key order (keys as `Object.keys` lists them) is reported.
//   thrown:   an exception from the value itself (a getter, a Proxy trap) propagates
//             unchanged: the caller gets that very exception, with no `code`.
//   accepted: both succeed; the canonical text is `canonical`, or, for values too big to
//             write out, the canonical form of the JSON text the expression `json` builds.

const deep = (n, open = '[', close = ']') =>
  `(() => { let v = null; for (let i = 0; i < ${n}; i++) v = ${open}v${close}; return v })()`
const deepObject = (n) => `(() => { let v = null; for (let i = 0; i < ${n}; i++) v = { a: v }; return v })()`

export const rejected = [
  // Types with no JSON meaning.
  { name: 'undefined', js: 'undefined', code: 'unsupported_type', path: '' },
  { name: 'undefined member', js: '({ a: 1, b: undefined })', code: 'unsupported_type', path: '/b' },
  { name: 'undefined element', js: '[1, undefined]', code: 'unsupported_type', path: '/1' },
  { name: 'BigInt', js: '10n', code: 'unsupported_type', path: '' },
  { name: 'BigInt member', js: '({ amount_minor: 2500n })', code: 'unsupported_type', path: '/amount_minor' },
  { name: 'Symbol', js: 'Symbol("s")', code: 'unsupported_type', path: '' },
  { name: 'Symbol element', js: '[Symbol.iterator]', code: 'unsupported_type', path: '/0' },
  { name: 'function', js: '(() => 1)', code: 'unsupported_type', path: '' },
  { name: 'method', js: '({ a: { run() {} } })', code: 'unsupported_type', path: '/a/run' },
  { name: 'class', js: '(class A {})', code: 'unsupported_type', path: '' },
  { name: 'Date', js: 'new Date(0)', code: 'unsupported_type', path: '' },
  { name: 'Date member', js: '({ at: new Date(0) })', code: 'unsupported_type', path: '/at' },
  { name: 'Map', js: 'new Map([["a", 1]])', code: 'unsupported_type', path: '' },
  { name: 'Set', js: '[new Set([1])]', code: 'unsupported_type', path: '/0' },
  { name: 'WeakMap', js: 'new WeakMap()', code: 'unsupported_type', path: '' },
  { name: 'RegExp', js: '({ re: /a/g })', code: 'unsupported_type', path: '/re' },
  { name: 'Error', js: 'new Error("x")', code: 'unsupported_type', path: '' },
  { name: 'Promise', js: 'Promise.resolve(1)', code: 'unsupported_type', path: '' },
  { name: 'Uint8Array', js: 'new Uint8Array([1, 2])', code: 'unsupported_type', path: '' },
  { name: 'Float64Array member', js: '({ v: new Float64Array(2) })', code: 'unsupported_type', path: '/v' },
  { name: 'large typed array', js: 'new Uint8Array(1 << 24)', code: 'unsupported_type', path: '' },
  { name: 'ArrayBuffer', js: 'new ArrayBuffer(4)', code: 'unsupported_type', path: '' },
  { name: 'DataView', js: 'new DataView(new ArrayBuffer(4))', code: 'unsupported_type', path: '' },
  { name: 'boxed number', js: 'new Number(1)', code: 'unsupported_type', path: '' },
  { name: 'boxed string', js: '({ s: new String("a") })', code: 'unsupported_type', path: '/s' },
  { name: 'boxed boolean', js: '[new Boolean(false)]', code: 'unsupported_type', path: '/0' },
  { name: 'boxed BigInt', js: 'Object(1n)', code: 'unsupported_type', path: '' },
  { name: 'class instance', js: 'new (class Order { constructor() { this.id = 1 } })()', code: 'unsupported_type', path: '' },
  { name: 'class instance member', js: '({ o: new (class Order {})() })', code: 'unsupported_type', path: '/o' },
  { name: 'Array subclass', js: '(() => { class List extends Array {} return List.of(1, 2) })()', code: 'unsupported_type', path: '' },
  { name: 'inherits from a plain object', js: 'Object.create({ inherited: 1 })', code: 'unsupported_type', path: '' },
  { name: 'Object.create(Array.prototype)', js: 'Object.create(Array.prototype)', code: 'unsupported_type', path: '' },
  { name: 'globalThis', js: 'globalThis', code: 'unsupported_type', path: '' },
  // `JSON.stringify` would call toJSON instead of reading the data.
  { name: 'toJSON method', js: '({ a: 1, toJSON() { return 2 } })', code: 'unsupported_type', path: '' },
  { name: 'nested toJSON method', js: '({ x: [{ toJSON: () => "y" }] })', code: 'unsupported_type', path: '/x/0' },
  {
    name: 'non-enumerable toJSON',
    js: 'Object.defineProperty({ a: 1 }, "toJSON", { value: () => 1, enumerable: false })',
    code: 'unsupported_type',
    path: '',
  },
  { name: 'array with toJSON', js: 'Object.assign([1, 2], { toJSON() { return [] } })', code: 'unsupported_type', path: '' },
  { name: 'toJSON getter', js: '({ get toJSON() { return () => 1 } })', code: 'unsupported_type', path: '' },
  // Holes.
  { name: 'sparse array', js: '[1, , 3]', code: 'sparse_array', path: '' },
  { name: 'sparse member', js: '({ a: { b: [, 1] } })', code: 'sparse_array', path: '/a/b' },
  { name: 'new Array(3)', js: 'new Array(3)', code: 'sparse_array', path: '' },
  { name: 'huge sparse array', js: 'new Array(2 ** 32 - 1)', code: 'sparse_array', path: '' },
  { name: 'deleted element', js: '(() => { const a = [1, 2, 3]; delete a[1]; return a })()', code: 'sparse_array', path: '' },
  // Cycles: the path is where the value first contains itself.
  { name: 'self-referencing object', js: '(() => { const a = { x: 1 }; a.self = a; return a })()', code: 'cyclic_value', path: '/self' },
  { name: 'self-referencing array', js: '(() => { const a = [1]; a.push(a); return a })()', code: 'cyclic_value', path: '/1' },
  {
    name: 'indirect cycle',
    js: '(() => { const a = { b: { c: [] } }; a.b.c.push(a); return a })()',
    code: 'cyclic_value',
    path: '/b/c/0',
  },
  {
    name: 'cycle below the root',
    js: '(() => { const inner = { n: 1 }; inner.again = inner; return { list: [0, { inner }] } })()',
    code: 'cyclic_value',
    path: '/list/1/inner/again',
  },
  {
    name: 'long cycle',
    js: '(() => { const first = {}; let v = first; for (let i = 0; i < 50; i++) { v.next = {}; v = v.next } v.next = first; return first })()',
    code: 'cyclic_value',
    path: '/next'.repeat(51),
  },
  // Numbers JSON cannot hold.
  { name: 'NaN', js: 'NaN', code: 'non_finite_number', path: '' },
  { name: 'Infinity member', js: '({ amount: Infinity })', code: 'non_finite_number', path: '/amount' },
  { name: '-Infinity element', js: '[0, -Infinity]', code: 'non_finite_number', path: '/1' },
  // Strings that are not Unicode text.
  { name: 'lone high surrogate', js: '"\\ud800"', code: 'lone_surrogate', path: '' },
  { name: 'lone low surrogate member', js: '({ note: "a\\udc00b" })', code: 'lone_surrogate', path: '/note' },
  { name: 'reversed pair', js: '["\\ude00\\ud83d"]', code: 'lone_surrogate', path: '/0' },
  { name: 'halves in adjacent strings', js: '["x\\ud83d", "\\ude00y"]', code: 'lone_surrogate', path: '/0' },
  { name: 'halves in key and value', js: '({ "k\\ud83d": "\\ude00" })', code: 'lone_surrogate', path: '' },
  { name: 'lone surrogate in key', js: '({ ok: 1, inner: { "\\udfff": 1 } })', code: 'lone_surrogate', path: '/inner' },
  // Keys that are not strings.
  { name: 'symbol key', js: '({ [Symbol("k")]: 1 })', code: 'non_string_key', path: '' },
  { name: 'symbol key beside strings', js: '({ a: 1, inner: { b: 2, [Symbol.for("k")]: 3 } })', code: 'non_string_key', path: '/inner' },
  // Which problem is reported: the container's own before its members', then members in
  // property order (not canonical order).
  { name: 'first in property order', js: '({ b: undefined, a: NaN })', code: 'unsupported_type', path: '/b' },
  { name: 'container before members', js: '({ a: undefined, toJSON() {} })', code: 'unsupported_type', path: '' },
  { name: 'symbol key before members', js: '({ a: NaN, [Symbol("k")]: 1 })', code: 'non_string_key', path: '' },
  // Nesting.
  { name: '129 nested arrays', js: deep(129), code: 'depth_limit_exceeded', path: '/0'.repeat(128) },
  { name: '129 nested objects', js: deepObject(129), code: 'depth_limit_exceeded', path: '/a'.repeat(128) },
  { name: '100000 nested arrays', js: deep(100000), code: 'depth_limit_exceeded', path: '/0'.repeat(128) },
]

export const thrown = [
  {
    name: 'getter that throws',
    js: '({ a: 1, get b() { throw new RangeError("getter failed") } })',
    message: 'getter failed',
  },
  {
    name: 'Proxy get trap that throws',
    js: 'new Proxy({ a: 1 }, { get() { throw new TypeError("trap failed") } })',
    message: 'trap failed',
  },
  {
    name: 'Proxy ownKeys trap that throws',
    js: 'new Proxy({}, { ownKeys() { throw new Error("keys failed") } })',
    message: 'keys failed',
  },
  {
    name: 'revoked Proxy',
    js: '(() => { const p = Proxy.revocable({}, {}); p.revoke(); return { p: p.proxy } })()',
    message: null,
  },
]

export const accepted = [
  { name: 'minus zero', js: '[-0, 0, { z: -0 }]', canonical: '[0,0,{"z":0}]' },
  { name: 'keys sorted by UTF-16', js: '({ "\\ue000": 1, "\\ud83d\\ude00": 2, b: 3, a: 4, "": 5 })', canonical: '{"":5,"a":4,"b":3,"😀":2,"\ue000":1}' },
  { name: 'integer-like keys', js: '({ b: 1, 10: 2, 2: 3 })', canonical: '{"10":2,"2":3,"b":1}' },
  { name: '__proto__ own key', js: 'JSON.parse(\'{"__proto__": {"x": 1}, "a": 2}\')', canonical: '{"__proto__":{"x":1},"a":2}' },
  { name: 'null prototype', js: 'Object.assign(Object.create(null), { b: 1, a: [true, null] })', canonical: '{"a":[true,null],"b":1}' },
  { name: 'getter', js: '({ get total() { return 2500 }, currency: "USD" })', canonical: '{"currency":"USD","total":2500}' },
  { name: 'non-enumerable property ignored', js: 'Object.defineProperty({ a: 1 }, "hidden", { value: 2, enumerable: false })', canonical: '{"a":1}' },
  { name: 'non-enumerable symbol ignored', js: 'Object.defineProperty({ a: 1 }, Symbol("s"), { value: 2, enumerable: false })', canonical: '{"a":1}' },
  { name: 'toJSON data member', js: 'JSON.parse(\'{"toJSON": "just data"}\')', canonical: '{"toJSON":"just data"}' },
  { name: 'Proxy of an object', js: 'new Proxy({ b: 1, a: 2 }, {})', canonical: '{"a":2,"b":1}' },
  { name: 'Proxy of an array', js: 'new Proxy([3, 1, 2], {})', canonical: '[3,1,2]' },
  { name: 'Proxy with get trap', js: 'new Proxy({ a: 1, b: 2 }, { get: (t, k) => (typeof k === "string" ? t[k] * 10 : t[k]) })', canonical: '{"a":10,"b":20}' },
  { name: 'frozen', js: 'Object.freeze({ a: Object.freeze([1]) })', canonical: '{"a":[1]}' },
  { name: 'shared (not cyclic) reference', js: '(() => { const s = { v: 1 }; return { a: s, b: [s, s] } })()', canonical: '{"a":{"v":1},"b":[{"v":1},{"v":1}]}' },
  { name: 'surrogate pair', js: '["x\\ud83d\\ude00y"]', canonical: '["x😀y"]' },
  { name: 'U+FFFD is data', js: '["\\ufffd"]', canonical: '["\ufffd"]' },
  { name: 'large integers and exponents', js: '[2 ** 53, 2 ** 53 + 2, 1e21, 1e-7, 0.1 + 0.2, -5e-324]', canonical: '[9007199254740992,9007199254740994,1e+21,1e-7,0.30000000000000004,-5e-324]' },
  { name: 'escapes', js: '["\\u0000\\b\\t\\n\\f\\r\\"\\\\/\\u007f\\u2028"]', canonical: '["\\u0000\\b\\t\\n\\f\\r\\"\\\\/\u007f\u2028"]' },
  { name: '128 nested arrays', js: deep(128), canonical: '['.repeat(128) + 'null' + ']'.repeat(128) },
  { name: '128 nested objects', js: deepObject(128), canonical: '{"a":'.repeat(128) + 'null' + '}'.repeat(128) },
  {
    name: '100000 keys',
    js: '(() => { const o = {}; for (let i = 0; i < 100000; i++) o["k" + ((i * 7919) % 100000)] = i; return o })()',
    json: '(() => { const o = {}; for (let i = 0; i < 100000; i++) o["k" + ((i * 7919) % 100000)] = i; return JSON.stringify(o) })()',
  },
  {
    name: '100000 elements',
    js: 'Array.from({ length: 100000 }, (_, i) => ({ i, s: "é" + i, f: i / 3 }))',
    json: 'JSON.stringify(Array.from({ length: 100000 }, (_, i) => ({ i, s: "é" + i, f: i / 3 })))',
  },
  {
    name: 'long strings',
    js: '({ a: "x".repeat(100000), b: "é😀".repeat(30000) })',
    json: 'JSON.stringify({ a: "x".repeat(100000), b: "é😀".repeat(30000) })',
  },
]
