// Node-specific behaviour of the addon that the shared conformance test
// (conformance/js/conformance.test.mjs) cannot express: Buffers, other realms (vm contexts, as
// Jest uses), worker threads, calls made from inside getters, and the error objects' shape.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'
import { Worker } from 'node:worker_threads'

const here = dirname(fileURLToPath(import.meta.url))
const pkg = join(here, '..')
const require = createRequire(import.meta.url)
const as = require(pkg)
const sha256 = (s) => 'sha256:' + createHash('sha256').update(s, 'utf8').digest('hex')

/** The error `fn` throws. */
function thrownBy(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  assert.fail('expected a throw')
}

describe('errors', () => {
  it('are ActionsealErrors with code, path and core\'s message; offset only for text', () => {
    const host = thrownBy(() => as.fingerprint({ a: [1, 10n] }))
    assert.ok(host instanceof as.ActionsealError)
    assert.ok(host instanceof Error)
    assert.equal(host.name, 'ActionsealError')
    assert.equal(host.code, 'unsupported_type')
    assert.equal(host.path, '/a/1')
    assert.equal(host.offset, null)
    assert.match(host.message, /^unsupported_type: .+ \(at \/a\/1\)$/)

    const text = thrownBy(() => as.canonicalizeJson('{"a": 1, "a": 2}'))
    assert.equal(text.code, 'duplicate_key')
    assert.equal(text.path, '/a')
    assert.equal(typeof text.offset, 'number')
    assert.match(text.message, new RegExp(`^duplicate_key: .+ \\(at /a, byte ${text.offset}\\)$`))

    const option = thrownBy(() => as.fingerprint({}, { profile: 'loose' }))
    assert.equal(option.code, 'invalid_option')
    assert.equal(option.path, '')
  })

  it('index.d.ts lists exactly the codes and reasons of conformance/codes.json', () => {
    const dts = readFileSync(join(pkg, 'index.d.ts'), 'utf8')
    const union = (name) => {
      const body = dts.match(new RegExp(`export type ${name} =\\n(.*?)\\n\\n`, 's'))[1]
      return [...body.matchAll(/^  \| '([a-z_0-9]+)'$/gm)].map((m) => m[1])
    }
    const registry = JSON.parse(readFileSync(join(pkg, '..', 'conformance', 'codes.json'), 'utf8'))
    assert.deepEqual(union('ErrorCode'), Object.keys(registry.codes))
    assert.deepEqual(union('Reason'), Object.keys(registry.reasons))
  })
})

describe('JSON text input', () => {
  it('takes a Buffer, a Uint8Array view and SharedArrayBuffer memory', () => {
    const text = '{"b": [1.50, "é"], "a": null}'
    const want = '{"a":null,"b":[1.5,"é"]}'
    assert.equal(as.canonicalizeJson(Buffer.from(text)), want)
    const padded = Buffer.from(`xx${text}yy`)
    assert.equal(as.canonicalizeJson(padded.subarray(2, padded.length - 2)), want)
    const shared = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text)))
    shared.set(Buffer.from(text))
    assert.equal(as.canonicalizeJson(shared), want)
    assert.equal(as.fingerprintJson(shared), sha256(want))
  })

  it('refuses text over 16 MiB, as a string or as bytes', () => {
    const big = ' '.repeat(16 * 1024 * 1024 - 1) + '[]'
    for (const text of [big, Buffer.from(big)]) {
      const e = thrownBy(() => as.fingerprintJson(text))
      assert.equal(e.code, 'size_limit_exceeded')
    }
    assert.equal(as.canonicalizeJson(big.slice(2)), '[]')
  })

  it('reports byte offsets in the UTF-8 form of a string', () => {
    const e = thrownBy(() => as.canonicalizeJson('["é", 01]'))
    assert.equal(e.code, 'syntax_error')
    assert.equal(e.offset, Buffer.from('["é", 0').length)
  })
})

describe('other realms', () => {
  it('accepts plain objects and arrays made in a vm context (as Jest makes them)', () => {
    const foreign = vm.runInNewContext('({ b: [1, { c: "x" }], a: Object.create(null) })')
    assert.equal(as.canonicalize(foreign), '{"a":{},"b":[1,{"c":"x"}]}')
    const mixed = { local: [foreign.b], other: vm.runInNewContext('[[], {}]') }
    assert.equal(as.canonicalize(mixed), '{"local":[[1,{"c":"x"}]],"other":[[],{}]}')
    const two = [vm.runInNewContext('({ x: 1 })'), vm.runInNewContext('[2]')]
    assert.equal(as.canonicalize(two), '[{"x":1},[2]]')
  })

  it('still rejects what is not plain data there', () => {
    for (const [js, path] of [
      ['({ when: new Date(0) })', '/when'],
      ['[new Map()]', '/0'],
      ['new (class X {})()', ''],
      ['(() => { class L extends Array {} return { l: L.of(1) } })()', '/l'],
    ]) {
      const e = thrownBy(() => as.fingerprint(vm.runInNewContext(js)))
      assert.equal(e.code, 'unsupported_type', js)
      assert.equal(e.path, path, js)
    }
    const ctx = vm.createContext({})
    vm.runInContext('Object.prototype.toJSON = function () { return 1 }', ctx)
    const e = thrownBy(() => as.fingerprint({ inner: vm.runInContext('({ a: 1 })', ctx) }))
    assert.equal(e.code, 'unsupported_type')
    assert.equal(e.path, '/inner')
  })
})

describe('JavaScript running during a call', () => {
  it('a getter may call the addon itself', () => {
    let inner
    const outer = {
      b: [1, 2, 3],
      get a() {
        inner = as.fingerprint({ x: [1, { y: 'z' }], get n() { return as.canonicalize([2, 1]) } })
        return 'A'
      },
      c: { d: 'e' },
    }
    assert.equal(as.canonicalize(outer), '{"a":"A","b":[1,2,3],"c":{"d":"e"}}')
    assert.equal(inner, sha256('{"n":"[2,1]","x":[1,{"y":"z"}]}'))
  })

  it('a getter that mutates the object being read cannot crash the call', () => {
    const o = { a: 1, get b() { delete this.c; this.z = 1; return 2 }, c: 3 }
    const e = thrownBy(() => as.canonicalize(o))
    assert.equal(e.code, 'unsupported_type')
    assert.equal(e.path, '/c')
    const grow = { get a() { for (let i = 0; i < 1000; i++) this['k' + i] = i; return 1 } }
    assert.equal(as.canonicalize(grow), '{"a":1}')
  })

  it('an inherited toJSON on Object.prototype is seen; replacing Object.keys later is not', () => {
    Object.prototype.toJSON = function () {
      return 'x'
    }
    try {
      assert.equal(thrownBy(() => as.fingerprint({ a: 1 })).code, 'unsupported_type')
    } finally {
      delete Object.prototype.toJSON
    }
    const keys = Object.keys
    Object.keys = () => []
    try {
      assert.equal(as.canonicalize({ b: 1, a: 2 }), '{"a":2,"b":1}')
    } finally {
      Object.keys = keys
    }
  })
})

describe('size', () => {
  it('handles a million values, and small calls after it', () => {
    const big = Array.from({ length: 1_000_000 }, (_, i) => i % 7)
    assert.equal(as.fingerprint(big), as.fingerprintJson(JSON.stringify(big)))
    assert.equal(as.canonicalize({ b: 1, a: 2 }), '{"a":2,"b":1}')
    const wide = Object.fromEntries(Array.from({ length: 10000 }, (_, i) => [`k${i}`, 'é'.repeat(i % 5)]))
    assert.equal(as.fingerprint(wide), as.fingerprintJson(JSON.stringify(wide)))
  })
})

describe('worker threads', () => {
  it('each thread loads the addon and gets the same results', async () => {
    const source = `
      const { parentPort, workerData } = require('node:worker_threads')
      const as = require(workerData.pkg)
      const out = []
      for (let i = 0; i < 200; i++) out.push(as.fingerprint({ i, s: 'é'.repeat(i % 3), a: [i, null] }))
      let code
      try { as.fingerprint({ bad: undefined }) } catch (e) { code = e.code + ' ' + e.path }
      parentPort.postMessage({ out, code })
    `
    const runs = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise((resolve, reject) => {
            const w = new Worker(source, { eval: true, workerData: { pkg } })
            w.once('message', resolve)
            w.once('error', reject)
          }),
      ),
    )
    const want = Array.from({ length: 200 }, (_, i) => as.fingerprint({ i, s: 'é'.repeat(i % 3), a: [i, null] }))
    for (const r of runs) {
      assert.deepEqual(r.out, want)
      assert.equal(r.code, 'unsupported_type /bad')
    }
  })
})

describe('calls made from inside a walk', () => {
  it('a nested call whose tape grows does not disturb the outer call', async () => {
    // In a fresh thread, so that the environment's tape starts small and the nested call is
    // the one that grows it (and keeps the grown tape for later calls).
    const source = `
      const { parentPort, workerData } = require('node:worker_threads')
      const as = require(workerData.pkg)
      const big = Array.from({ length: 2000 }, (_, i) => ({ i, s: 'x' + i }))
      const results = []
      for (let round = 0; round < 3; round++) {
        let inner
        const outer = {
          a: 'first',
          get b() {
            inner = as.fingerprint(big)
            return [1, 2, 3]
          },
          c: { d: 'é'.repeat(10) },
        }
        results.push([as.canonicalize(outer), inner])
      }
      parentPort.postMessage({ results, want: as.fingerprintJson(JSON.stringify(big)) })
    `
    const { results, want } = await new Promise((resolve, reject) => {
      const w = new Worker(source, { eval: true, workerData: { pkg } })
      w.once('message', resolve)
      w.once('error', reject)
    })
    for (const [outer, inner] of results) {
      assert.equal(outer, `{"a":"first","b":[1,2,3],"c":{"d":"${'é'.repeat(10)}"}}`)
      assert.equal(inner, want)
    }
  })
})
