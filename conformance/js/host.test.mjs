// The host-value vectors (conformance/vectors/host/) in a JavaScript runtime: what a
// JavaScript value may be, the error (code and path) for one that may not, the cycle policy
// and the policy for arguments of the wrong type. The Python tests run the same files
// (bindings-python/tests/test_host_vectors.py); a vector without a `js` expression is not for
// JavaScript.
//
//   ACTIONSEAL_RUNTIME=node|wasm-node|chromium node --test conformance/js/host.test.mjs
//
// A vector: {description, js?, python?, call?, profile?, expect}. `js` is the value, as a
// JavaScript expression evaluated in the runtime; `call` is the function it is given to
// (snake_case; default: both `fingerprint` and `canonicalize`), `profile` the profile option
// given with it. `expect` is one of
//   {error, path}       an ActionsealError with this code and JSON Pointer;
//   {thrown}            an exception from the value itself (a getter, a Proxy trap), passed on
//                       unchanged: no code, this message (or any, when null);
//   {canonical}         the canonical text (and its fingerprint);
//   {same_as_json}      the fingerprint of the JSON text the expression builds;
//   {result}            the function's return value (digest_equal).
// Names: y_* are accepted, n_<code>_* refused with that code, n_thrown_* thrown.

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { notAnActionsealError, openEngine, run, runtime, sha256, show, vectors } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

const FUNCTIONS = {
  fingerprint: 'fingerprint',
  canonicalize: 'canonicalize',
  fingerprint_json: 'fingerprintJson',
  canonicalize_json: 'canonicalizeJson',
  short_fingerprint: 'shortFingerprint',
  digest_equal: 'digestEqual',
  check: 'check',
  contract: 'new Contract',
  approval: 'new Approval',
}

/** The ops of one vector: [label, op, what the result must be]. */
function opsOf(file, v) {
  const value = { $js: v.js }
  const options = v.profile === undefined ? [] : [{ $js: `({ profile: ${v.profile.js} })` }]
  const calls = v.call === undefined ? ['fingerprint', 'canonicalize'] : [v.call]
  const out = []
  for (const call of calls) {
    const fn = FUNCTIONS[call]
    assert.ok(fn, `${file}: unknown call ${call}`)
    let args
    if (call === 'check') args = [value, null, null, ...options]
    else if (call === 'digest_equal') args = [value, value]
    else args = [value, ...options]
    out.push([`${file} (${call})`, { fn, args }, v.expect, call])
  }
  // A rejected value is rejected under either profile (only strict refuses inexact numbers).
  if (v.call === undefined && 'error' in v.expect && v.expect.error !== 'inexact_number') {
    out.push([`${file} (fingerprint, rfc8785)`, { fn: 'fingerprint', args: [value, { profile: 'rfc8785' }] }, v.expect, 'fingerprint'])
  }
  return out
}

/** Why result `r` of `call` is not what `expect` says; or null. */
function mismatch(r, expect, call) {
  if ('error' in expect) {
    if (!('error' in r)) return `expected ${expect.error} at ${show(expect.path)}`
    const e = r.error
    if (e.code !== expect.error || e.path !== expect.path) return `expected ${expect.error} at ${show(expect.path)}, got ${e.code} at ${show(e.path)}`
    if (e.offset !== null) return `expected no offset for a host value, got ${show(e.offset)}`
    return notAnActionsealError(e)
  }
  if ('thrown' in expect) {
    if (!('error' in r)) return 'expected the value\'s own exception'
    if (r.error.isError !== true || r.error.code !== undefined || r.error.isClass) return 'expected an uncoded Error, passed on unchanged'
    if (expect.thrown !== null && r.error.message !== expect.thrown) return `expected the message ${show(expect.thrown)}`
    return null
  }
  if (!('ok' in r)) return 'expected a result'
  if ('canonical' in expect) {
    const want = call === 'fingerprint' ? sha256(expect.canonical) : expect.canonical
    return r.ok === want ? null : `expected ${show(want)}`
  }
  if ('result' in expect) return r.ok === expect.result ? null : `expected ${show(expect.result)}`
  return null
}

describe(`host-value vectors (${runtime})`, () => {
  it('every vector for JavaScript gives its expected result', async () => {
    const cases = vectors('host').filter(([, v]) => 'js' in v)
    assert.ok(cases.length >= 90, `only ${cases.length} host vectors for JavaScript`)
    const plan = cases.flatMap(([file, v]) => opsOf(file, v))
    const same = []
    for (const [file, v] of cases) {
      if ('same_as_json' in v.expect) {
        same.push([file, plan.length])
        plan.push([`${file} (fingerprintJson)`, { fn: 'fingerprintJson', args: [{ $js: v.expect.same_as_json }] }, {}, 'fingerprint_json'])
      }
    }
    const got = await run(engine, plan.map(([, op]) => op))
    const failures = []
    got.forEach((r, i) => {
      const [label, , expect, call] = plan[i]
      const why = mismatch(r, expect, call)
      if (why) failures.push(`${label}: ${why}; got ${show(r)}`)
    })
    // `same_as_json`: fingerprint(value) is the fingerprint of the JSON text of it.
    for (const [file, j] of same) {
      const i = plan.findIndex(([label]) => label === `${file} (fingerprint)`)
      if (got[i].ok === undefined || got[i].ok !== got[j].ok) failures.push(`${file}: fingerprint(value) ${show(got[i])} is not fingerprintJson(text) ${show(got[j])}`)
    }
    assert.equal(failures.length, 0, `${failures.length} of ${plan.length} differ:\n${failures.slice(0, 30).join('\n')}`)
  })

  it('names: y_ accepted, n_<code>_ refused with that code, n_thrown_ thrown', () => {
    for (const [file, v] of vectors('host')) {
      const [kind, ...rest] = file.replace(/\.json$/, '').split('_')
      const tail = rest.join('_')
      if (kind === 'y') assert.ok(!('error' in v.expect) && !('thrown' in v.expect), file)
      else if (kind === 'n' && 'error' in v.expect) assert.ok(tail.startsWith(`${v.expect.error}_`), file)
      else assert.ok(kind === 'n' && 'thrown' in v.expect && tail.startsWith('thrown_'), file)
      assert.ok('js' in v || 'python' in v, `${file}: for no runtime`)
    }
  })
})
