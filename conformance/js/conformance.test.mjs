// Conformance tests shared by every JavaScript runtime of actionseal:
//
//   ACTIONSEAL_RUNTIME=node      node --test conformance/js/   (the napi addon, bindings-node/)
//   ACTIONSEAL_RUNTIME=node-fallback ACTIONSEAL_NODE_PACKAGE=DIR node --test conformance/js/
//                                  (the npm package without its addon: the wasm build)
//   ACTIONSEAL_RUNTIME=wasm-node node --test conformance/js/   (the wasm build, run in Node)
//   ACTIONSEAL_RUNTIME=chromium  node --test conformance/js/   (the wasm build, in Chromium)
//
// The test itself always runs in Node; it reads the vectors, sends batches of operations to
// an engine, and compares the results. Public RFC 8785 data is read from the directory in
// $ACTIONSEAL_JCS_DIR (default: <repo>/../shared/vectors/jcs); when it is absent, its tests
// are skipped with one line that says so, unless ACTIONSEAL_REQUIRE_PUBLIC_DATA=1 (CI), which
// makes its absence a failure. Host values are in host.test.mjs.
//
// Engine interface, implemented by ./engines/<runtime>.mjs:
//
//   export async function open() -> engine
//   engine.run(ops) -> Promise<results>
//     ops: Array<{fn, args}>, fn one of "canonicalize", "canonicalizeJson", "fingerprint",
//     "fingerprintJson", "digestEqual"; each arg is either
//       - plain JSON data (passed as is),
//       - {$bytes: [..numbers..]}: a Uint8Array with these bytes, or
//       - {$js: "<JavaScript expression source>"}: the value of the expression, evaluated in
//         the runtime's global scope (for host values JSON cannot carry: undefined, BigInt,
//         cycles, sparse arrays, Map, lone-surrogate strings, ...).
//     results: one per op, in order: {ok: <return value>} or
//       {error: {code, path, offset, isError: err instanceof Error, message}}
//       (`code`, `path`, `offset` as found on the thrown value, undefined when absent).
//   engine.close() -> Promise<void>
//
// Ops are sent in batches of a few thousand so that a browser engine makes few round trips.

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  codes,
  conformance,
  notAnActionsealError,
  openEngine,
  publicData,
  run as runOn,
  runtime,
  sha256,
  show,
} from './common.mjs'

const PROFILES = ['strict', 'rfc8785']
const jcsDir = publicData()
if (jcsDir === null) {
  console.log(`NOTE: public RFC 8785 data not found (set ACTIONSEAL_JCS_DIR); its tests are skipped`)
}

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

// ---------------------------------------------------------------------------------------
// Helpers

/** Runs ops in batches; returns their results in order (codes checked against codes.json). */
const run = (ops) => runOn(engine, ops)

/** A string argument; one JSON cannot carry (a lone surrogate) goes as a JS literal. */
const str = (s) => (s.isWellFormed() ? s : { $js: JSON.stringify(s) })
const bytes = (u8) => ({ $bytes: Array.from(u8) })
const utf8 = (s) => new TextEncoder().encode(s)
const opts = (profile) => ({ profile })

/**
 * Compares results with expectations, collecting every mismatch so that one run shows them
 * all. `want` is {ok: value} or {error: {code, path[, offset]}}; offset is compared only when
 * the expectation has the key `offset` (use undefined for "no offset").
 */
class Check {
  constructor() {
    this.failures = []
    this.count = 0
  }

  result(label, got, want) {
    this.count++
    const fail = (why) => this.failures.push(`${label}: ${why}; got ${show(got)}`)
    if ('ok' in want) {
      if (!('ok' in got)) return fail(`expected ${show(want.ok)}`)
      if (got.ok !== want.ok) return fail(`expected ${show(want.ok)}`)
      return
    }
    if (!('error' in got)) return fail(`expected error ${want.error.code} at ${show(want.error.path)}`)
    const e = got.error
    if (e.code !== want.error.code) return fail(`expected code ${want.error.code}`)
    if (e.path !== want.error.path) return fail(`expected path ${show(want.error.path)}`)
    if ('offset' in want.error && (e.offset ?? undefined) !== want.error.offset) {
      return fail(`expected offset ${want.error.offset}`)
    }
    const why = notAnActionsealError(e)
    if (why) return fail(why)
  }

  done(minimum = 1) {
    assert.ok(this.count >= minimum, `checked ${this.count} results, expected at least ${minimum}`)
    const shown = this.failures.slice(0, 25).join('\n')
    const more = this.failures.length > 25 ? `\n... and ${this.failures.length - 25} more` : ''
    assert.equal(this.failures.length, 0, `${this.failures.length} of ${this.count} results differ:\n${shown}${more}`)
  }
}

/** Expectation from a vector's per-profile result ({canonical, fingerprint} or {error, path, offset}). */
function expect(res, key, withOffset) {
  if ('error' in res) {
    const error = { code: res.error, path: res.path }
    if (withOffset) error.offset = res.offset
    return { error }
  }
  return { ok: res[key] }
}

function readJsonl(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
}

/** An expression for the double with these 16 hex digits of IEEE 754 bits. */
const double = (bits) => `new Float64Array(new BigUint64Array([0x${bits}n]).buffer)[0]`

// ---------------------------------------------------------------------------------------

describe(`actionseal conformance (${runtime})`, () => {
  it('canonicalization vectors, as text and as UTF-8 bytes, under both profiles', async () => {
    const dir = join(conformance, 'vectors', 'canon')
    const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    const ops = []
    const wants = []
    for (const file of files) {
      const v = JSON.parse(readFileSync(join(dir, file), 'utf8'))
      const forms = ['input', 'input_hex', 'input_repeat'].filter((f) => f in v)
      assert.equal(forms.length, 1, `${file}: exactly one of input, input_hex, input_repeat`)
      const inputs = []
      if ('input_repeat' in v) {
        // Input too large for the file: [text, count] pairs, each text repeated count times,
        // expanded inside the runtime rather than sent to it.
        const text = `${JSON.stringify(v.input_repeat)}.map(([t, n]) => t.repeat(n)).join('')`
        inputs.push(['text', { $js: text }, false], ['bytes', { $js: `new TextEncoder().encode(${text})` }, true])
      } else if ('input' in v) {
        inputs.push(['text', str(v.input), false], ['bytes', bytes(utf8(v.input)), true])
      } else {
        inputs.push(['bytes', bytes(Buffer.from(v.input_hex, 'hex')), true])
      }
      for (const profile of PROFILES) {
        assert.ok(v[profile], `${file}: no ${profile} result`)
        for (const [form, arg, withOffset] of inputs) {
          for (const [fn, key] of [['canonicalizeJson', 'canonical'], ['fingerprintJson', 'fingerprint']]) {
            ops.push({ fn, args: [arg, opts(profile)] })
            wants.push([`${file} ${profile} ${form} ${fn}`, expect(v[profile], key, withOffset)])
          }
        }
      }
      // The default profile is strict.
      if ('input' in v) {
        ops.push({ fn: 'fingerprintJson', args: [str(v.input)] })
        wants.push([`${file} default profile`, expect(v.strict, 'fingerprint', false)])
      }
      // parseJson reads the same value (its canonical form) or refuses with the same error.
      if ('input' in v && v.input.isWellFormed()) {
        ops.push({ fn: 'canonicalize', args: [{ $json: v.input }] })
        wants.push([`${file} canonicalize(parseJson(text))`, expect(v.strict, 'canonical', false)])
      }
      // The engine's JSON.parse keeps the text's member order (parseJson's objects are already
      // sorted): the walk then puts every object in order itself.
      if ('input' in v && v.input.isWellFormed() && file.startsWith('y_')) {
        ops.push({ fn: 'canonicalize', args: [{ $js: `JSON.parse(${JSON.stringify(v.input)})` }] })
        wants.push([`${file} canonicalize(JSON.parse(text))`, expect(v.strict, 'canonical', false)])
      }
    }
    const got = await run(ops)
    const check = new Check()
    got.forEach((g, i) => check.result(wants[i][0], g, wants[i][1]))
    check.done(files.length * 4)
  })

  it('numbers format as ECMAScript String(x) and read back exactly', async () => {
    const cases = readJsonl(join(conformance, 'vectors', 'numbers', 'es6_random.jsonl'))
    assert.ok(cases.length >= 10000, 'es6_random.jsonl has at least 10000 numbers')
    const ops = []
    const wants = []
    for (const { bits, text } of cases) {
      const arr = `[${text}]`
      ops.push({ fn: 'canonicalize', args: [{ $js: `[${double(bits)}]` }] })
      wants.push([`canonicalize([${bits}])`, { ok: arr }])
      ops.push({ fn: 'fingerprint', args: [{ $js: `[${double(bits)}]` }] })
      wants.push([`fingerprint([${bits}])`, { ok: sha256(arr) }])
      ops.push({ fn: 'canonicalizeJson', args: [arr] })
      wants.push([`canonicalizeJson(${arr})`, { ok: arr }])
    }
    const got = await run(ops)
    const check = new Check()
    got.forEach((g, i) => check.result(wants[i][0], g, wants[i][1]))
    check.done(cases.length * 3)
  })

  it('generated corpus: JSON text as string and bytes, and host values from JSON.parse', async () => {
    const lines = readJsonl(join(conformance, 'generated', 'corpus.jsonl'))
    assert.ok(lines.length > 0, 'corpus.jsonl is not empty')
    const ops = []
    const wants = []
    let hosts = 0
    for (const c of lines) {
      for (const profile of PROFILES) {
        for (const [form, arg] of [['text', str(c.text)], ['bytes', bytes(utf8(c.text))]]) {
          for (const [fn, key] of [['canonicalizeJson', 'canonical'], ['fingerprintJson', 'fingerprint']]) {
            ops.push({ fn, args: [arg, opts(profile)] })
            wants.push([`corpus ${c.id} ${profile} ${form} ${fn}`, expect(c[profile], key, false)])
          }
        }
      }
      if (c.host) {
        hosts++
        assert.ok('canonical' in c.strict, `corpus ${c.id}: a host case is accepted`)
        const value = { $js: `JSON.parse(${JSON.stringify(c.text)})` }
        ops.push({ fn: 'fingerprint', args: [value] })
        wants.push([`corpus ${c.id} fingerprint(JSON.parse(text))`, { ok: c.strict.fingerprint }])
        ops.push({ fn: 'canonicalize', args: [value] })
        wants.push([`corpus ${c.id} canonicalize(JSON.parse(text))`, { ok: c.strict.canonical }])
      }
    }
    assert.ok(hosts > 0, 'corpus has host cases')
    const got = await run(ops)
    const check = new Check()
    got.forEach((g, i) => check.result(wants[i][0], g, wants[i][1]))
    check.done(lines.length * 8)
  })

  describe('public RFC 8785 data', { skip: jcsDir === null && 'public RFC 8785 data not found' }, () => {
    if (jcsDir === null) return
    const exclusions = JSON.parse(readFileSync(join(conformance, 'jcs-strict-exclusions.json'), 'utf8')).excluded
    const excluded = (name) => exclusions.find((x) => x.name === name)

    /** Ops and expectations for one named input under both profiles. */
    function namedCase(name, input, want, ops, wants) {
      for (const profile of PROFILES) {
        const x = profile === 'strict' ? excluded(name) : undefined
        const forms = [['bytes', bytes(input)]]
        const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
        try {
          forms.push(['text', str(text.decode(input))])
        } catch {
          // Not UTF-8: bytes only.
        }
        for (const [form, arg] of forms) {
          ops.push({ fn: 'canonicalizeJson', args: [arg, opts(profile)] })
          ops.push({ fn: 'fingerprintJson', args: [arg, opts(profile)] })
          const label = `${name} ${profile} ${form}`
          if (x) {
            wants.push([label, { code: x.code }], [label, { code: x.code }])
          } else if (want === null) {
            wants.push([label, { reject: true }], [label, { reject: true }])
          } else {
            wants.push([label, { ok: want }], [label, { ok: sha256(want) }])
          }
        }
      }
    }

    async function runNamed(ops, wants, minimum) {
      const got = await run(ops)
      const check = new Check()
      got.forEach((g, i) => {
        const [label, want] = wants[i]
        if ('code' in want) {
          check.count++
          if (g.error?.code !== want.code) check.failures.push(`${label}: expected strict exclusion ${want.code}; got ${show(g)}`)
        } else if ('reject' in want) {
          check.count++
          if (!(g.error && codes.has(g.error.code))) check.failures.push(`${label}: expected a coded error; got ${show(g)}`)
        } else {
          check.result(label, g, want)
        }
      })
      check.done(minimum)
    }

    it('public_vectors.jsonl', async () => {
      const lines = readFileSync(join(jcsDir, 'public_vectors.jsonl'), 'utf8').split('\n')
      const ops = []
      const wants = []
      let n = 0
      lines.forEach((line, i) => {
        if (line.trim() === '') return
        const c = JSON.parse(line)
        const name = `public_vectors.jsonl:${i + 1}`
        const x = excluded(name)
        if (x) assert.equal(x.input, c.input, `${name}: the exclusion names another input`)
        if ('canonical' in c) assert.equal(sha256(c.canonical), `sha256:${c.sha256}`, `${name}: sha256 of canonical`)
        namedCase(name, utf8(c.input), 'canonical' in c ? c.canonical : null, ops, wants)
        n++
      })
      assert.ok(n > 0)
      await runNamed(ops, wants, n * 4)
    })

    it('input and output files', async () => {
      const ops = []
      const wants = []
      const pairs = []
      for (const dir of ['cyberphone', 'erdtman_canonicalize']) {
        for (const file of readdirSync(join(jcsDir, dir, 'input')).sort()) {
          pairs.push([`${dir}/input/${file}`, `${dir}/output/${file}`])
        }
      }
      for (const i of [1, 2, 3]) pairs.push([`serde_jcs/ex.${i}.input.json`, `serde_jcs/ex.${i}.output.json`])
      for (const f of ['rfc_example', 'rfc_sorting']) pairs.push([`rfc8785/${f}.input.json`, `rfc8785/${f}.expected.json`])
      for (const [input, output] of pairs) {
        // Some output files end with an editor newline that is not canonical.
        const want = readFileSync(join(jcsDir, output), 'utf8').replace(/\n+$/, '')
        namedCase(input, readFileSync(join(jcsDir, input)), want, ops, wants)
      }
      // cyberphone's outhex files hold the expected bytes in hex.
      for (const file of readdirSync(join(jcsDir, 'cyberphone', 'outhex')).sort()) {
        const hex = readFileSync(join(jcsDir, 'cyberphone', 'outhex', file), 'utf8').replace(/\s+/g, '')
        const input = readFileSync(join(jcsDir, 'cyberphone', 'input', file.replace(/\.txt$/, '.json')))
        ops.push({ fn: 'canonicalizeJson', args: [bytes(input), opts('rfc8785')] })
        wants.push([`cyberphone/outhex/${file}`, { ok: Buffer.from(hex, 'hex').toString('utf8') }])
      }
      assert.equal(pairs.length, 13)
      await runNamed(ops, wants, pairs.length * 8)
    })

    it('Appendix B numbers and the ES6 static number sequence', async () => {
      const ops = []
      const wants = []
      const csv = readFileSync(join(jcsDir, 'rfc8785', 'appendix_b_numbers.csv'), 'utf8').trim().split('\n').slice(1)
      assert.equal(csv.length, 26)
      for (const row of csv) {
        const [hex, want] = row.split(',')
        ops.push({ fn: 'canonicalize', args: [{ $js: `[${double(hex)}]` }] })
        wants.push([
          `Appendix B ${hex}`,
          want === 'ERROR' ? { error: { code: 'non_finite_number', path: '/0' } } : { ok: `[${want}]` },
        ])
      }
      // Node is the reference for ECMAScript number formatting (conformance/README.md).
      const seq = readFileSync(join(jcsDir, 'es6numbers', 'es6_static_u64.txt'), 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '')
      assert.ok(seq.length >= 100)
      for (const hex of seq) {
        const x = new Float64Array(new BigUint64Array([BigInt(`0x${hex}`)]).buffer)[0]
        ops.push({ fn: 'canonicalize', args: [{ $js: `[${double(hex)}]` }] })
        wants.push([`es6 static ${hex}`, { ok: `[${String(x)}]` }])
        ops.push({ fn: 'canonicalizeJson', args: [`[${String(x)}]`] })
        wants.push([`es6 static ${hex} read back`, { ok: `[${String(x)}]` }])
      }
      const got = await run(ops)
      const check = new Check()
      got.forEach((g, i) => check.result(wants[i][0], g, wants[i][1]))
      check.done(csv.length + seq.length * 2)
    })
  })

  it('digestEqual: equal digests only; anything malformed or not a string is false', async () => {
    const a = sha256('{"a":1}')
    const b = sha256('{"a":2}')
    const cases = [
      [[a, a], true],
      [[a, { $js: JSON.stringify(a) }], true],
      [[a, b], false],
      [[b, a], false],
      [[a, a.toUpperCase()], false],
      [[a.replace('sha256:', 'SHA256:'), a.replace('sha256:', 'SHA256:')], false],
      [[a.slice(7), a.slice(7)], false],
      [[a + '0', a + '0'], false],
      [[a.slice(0, -1), a.slice(0, -1)], false],
      [[a.slice(0, -1) + 'g', a.slice(0, -1) + 'g'], false],
      [['', ''], false],
      [['sha256:', 'sha256:'], false],
      [[{ $js: JSON.stringify(a.slice(0, -1) + '\ud800') }, { $js: JSON.stringify(a.slice(0, -1) + '\ud800') }], false],
      [[a, null], false],
      [[null, null], false],
      [[{ $js: 'undefined' }, { $js: 'undefined' }], false],
      [[1, 1], false],
      [[{ $js: `new String(${JSON.stringify(a)})` }, a], false],
      [[{ $js: `[${JSON.stringify(a)}]` }, a], false],
      [[{ $js: `({ toString: () => ${JSON.stringify(a)} })` }, a], false],
      [[{ $js: `${JSON.stringify(a)}` }, { $js: `${JSON.stringify(a)}` }], true],
    ]
    const got = await run(cases.map(([args]) => ({ fn: 'digestEqual', args })))
    const check = new Check()
    got.forEach((g, i) => check.result(`digestEqual(${show(cases[i][0])})`, g, { ok: cases[i][1] }))
    check.done(cases.length)
  })

  it('options: profile names, defaults, and invalid_option for anything else', async () => {
    const value = { $js: '({ n: 1 })' }
    const text = '9007199254740993'
    const cases = [
      [{ fn: 'canonicalizeJson', args: [text] }, { error: { code: 'inexact_number', path: '' } }],
      [{ fn: 'canonicalizeJson', args: [text, null] }, { error: { code: 'inexact_number', path: '' } }],
      [{ fn: 'canonicalizeJson', args: [text, {}] }, { error: { code: 'inexact_number', path: '' } }],
      [{ fn: 'canonicalizeJson', args: [text, { $js: 'undefined' }] }, { error: { code: 'inexact_number', path: '' } }],
      [{ fn: 'canonicalizeJson', args: [text, opts('strict')] }, { error: { code: 'inexact_number', path: '' } }],
      [{ fn: 'canonicalizeJson', args: [text, opts('rfc8785')] }, { ok: '9007199254740992' }],
      [{ fn: 'canonicalize', args: [value, opts('rfc8785')] }, { ok: '{"n":1}' }],
      [{ fn: 'fingerprint', args: [value, opts('strict')] }, { ok: sha256('{"n":1}') }],
    ]
    for (const fn of ['canonicalize', 'fingerprint', 'canonicalizeJson', 'fingerprintJson']) {
      const arg = fn.endsWith('Json') ? '{"n":1}' : value
      for (const bad of [opts('bogus'), opts('STRICT'), opts(''), { profile: 1 }, { profile: null }]) {
        cases.push([{ fn, args: [arg, bad] }, { error: { code: 'invalid_option', path: '' } }])
      }
    }
    const got = await run(cases.map(([op]) => op))
    const check = new Check()
    got.forEach((g, i) => check.result(`${cases[i][0].fn}(${show(cases[i][0].args)})`, g, cases[i][1]))
    check.done(cases.length)
  })

  it('JSON text functions take a string or a Uint8Array and reject anything else with a code', async () => {
    const ok = [
      [{ fn: 'canonicalizeJson', args: [{ $js: 'new Uint8Array([91, 49, 93])' }] }, '[1]'],
      [{ fn: 'canonicalizeJson', args: [{ $js: 'new Uint8Array([0, 91, 49, 93, 0]).subarray(1, 4)' }] }, '[1]'],
      [{ fn: 'canonicalizeJson', args: [{ $js: 'new Uint8Array(0)' }] }, null],
    ]
    const bad = ['5', 'undefined', 'null', '({})', '["[1]"]', 'new Uint16Array(2)', 'new ArrayBuffer(2)', 'new String("[1]")']
    const ops = [
      ...ok.map(([op]) => op),
      ...bad.flatMap((js) => ['canonicalizeJson', 'fingerprintJson'].map((fn) => ({ fn, args: [{ $js: js }] }))),
    ]
    const got = await run(ops)
    assert.deepEqual(got[0], { ok: '[1]' })
    assert.deepEqual(got[1], { ok: '[1]' })
    assert.equal(got[2].error?.code, 'syntax_error', `empty input: ${show(got[2])}`)
    got.slice(ok.length).forEach((g, i) => {
      const label = `${ops[ok.length + i].fn}(${bad[Math.floor(i / 2)]})`
      assert.ok(g.error, `${label} throws; got ${show(g)}`)
      assert.equal(g.error.isError, true, label)
      assert.ok(codes.has(g.error.code), `${label}: code ${g.error.code} is in codes.json`)
    })
  })

  it('a string with a lone surrogate is lone_surrogate, with its UTF-8 offset, not U+FFFD', async () => {
    // Offsets are compared only for bytes (conformance/README.md), so not here.
    const cases = [
      ['["a\ud800"]', ''],
      ['{"k": "\udc00"}', ''],
      ['["\ud83d", "\ude00"]', ''],
      ['["ok", "\ud83d\ude00"]', null],
    ]
    const ops = cases.flatMap(([text]) => ['canonicalizeJson', 'fingerprintJson'].map((fn) => ({ fn, args: [str(text)] })))
    const got = await run(ops)
    const check = new Check()
    got.forEach((g, i) => {
      const [text, path] = cases[Math.floor(i / 2)]
      const want = path === null
        ? { ok: i % 2 === 0 ? '["ok","😀"]' : sha256('["ok","😀"]') }
        : { error: { code: 'lone_surrogate', path } }
      check.result(`${ops[i].fn}(${JSON.stringify(text)})`, g, want)
    })
    check.done(cases.length * 2)
  })
})
