// Evidence bundles in every JavaScript runtime: every vector of conformance/vectors/evidence/
// (bundles a real ledger exported, with a verifier's trust; computed in Rust by `regen`)
// through verifyEvidence, as plain objects and as the runtime's own parse of their text: the
// same timeline (compared as canonical JSON, npm `canonicalize`) or the same code and path.
//
//   ACTIONSEAL_RUNTIME=node|wasm-node|chromium node --test conformance/js/evidence.test.mjs

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import canonicalize from 'canonicalize'
import { notAnActionsealError, openEngine, run as runOn, runtime, show, vectors } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

/** A result as a vector's `expected` says it, the timeline canonical. */
const result = (r) => ('error' in r
  ? { error: { code: r.error.code, path: r.error.path } }
  : { timeline: canonicalize(r.ok) })

describe(`evidence bundles (${runtime})`, () => {
  it('every evidence vector: the timeline, or the code and path', async () => {
    const cases = vectors('evidence')
    assert.ok(cases.length >= 25, `only ${cases.length} evidence vectors`)
    const ops = []
    const checks = []
    for (const [file, v] of cases) {
      assert.deepEqual(Object.keys(v).sort(), ['bundle', 'description', 'expected', 'trust'], file)
      const want = 'timeline' in v.expected ? { timeline: canonicalize(v.expected.timeline) } : v.expected
      ops.push({ fn: 'verifyEvidence', args: [v.bundle, v.trust] })
      checks.push([`${file} (objects)`, want])
      ops.push({ fn: 'verifyEvidence', args: [{ $json: JSON.stringify(v.bundle) }, { $json: JSON.stringify(v.trust) }] })
      checks.push([`${file} (parsed text)`, want])
    }
    const got = await runOn(engine, ops)
    const failures = []
    got.forEach((r, i) => {
      const [label, want] = checks[i]
      const have = result(r)
      try {
        assert.deepStrictEqual(have, want)
      } catch {
        failures.push(`${label}: expected ${show(want)}; got ${show(have)}${r.error ? ` (${r.error.message})` : ''}`)
      }
      if (r.error) {
        const why = notAnActionsealError(r.error)
        if (why) failures.push(`${label}: ${why}`)
      }
    })
    assert.equal(failures.length, 0, `${failures.length} of ${got.length} results differ:\n${failures.join('\n')}`)
  })
})
