// Sensitive values in every JavaScript runtime: every vector of conformance/vectors/redaction/
// (`op` per file: commit, reveal, check, review; computed in Rust by `regen`, re-derived by
// conformance/tools/redaction-check.py), the same commitments, revealed actions, verdicts,
// codes and paths everywhere, with the contract as a document and loaded once; no secret in
// an error's message or a verdict; and salts drawn from the runtime's CSPRNG.
//
//   ACTIONSEAL_RUNTIME=node|node-fallback|wasm-node|chromium node --test conformance/js/redaction.test.mjs

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { notAnActionsealError, openEngine, redactionOps, run as runOn, runtime, show, vectors } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

const run = (ops) => runOn(engine, ops)
const json = (text) => ({ $json: text })

describe(`redaction (${runtime})`, () => {
  it('redaction vectors: every result, with the contract as a document and as a Contract', async () => {
    const cases = vectors('redaction')
    const checks = []
    const ops = []
    for (const [file, v] of cases) {
      for (const [label, op, result] of redactionOps(v)) {
        checks.push([`redaction/${file}${label}`, v, result])
        ops.push(op)
      }
    }
    const got = await run(ops)
    const failures = []
    for (const [i, [label, v, result]] of checks.entries()) {
      const r = got[i]
      const have = result(r)
      try {
        assert.deepStrictEqual(have, v.expect)
      } catch {
        failures.push(`${label}: expected ${show(v.expect)}; got ${show(have)}`)
      }
      const shown = r.error ? r.error.message : v.op === 'check' ? JSON.stringify(r.ok) : ''
      for (const s of v.secrets) if (shown.includes(s)) failures.push(`${label}: ${s} in ${shown}`)
      if (r.error) {
        const why = notAnActionsealError(r.error)
        if (why) failures.push(`${label}: ${why} (${r.error.message})`)
      }
    }
    assert.ok(cases.length >= 20, `only ${cases.length} redaction vectors`)
    assert.equal(failures.length, 0, `${failures.length} of ${checks.length} results differ:\n${failures.join('\n')}`)
  })

  it('salts come from the CSPRNG: the same values, other commitments, revealed again', async () => {
    const [, v] = vectors('redaction').find(([f]) => f === 'y_commit_three_fields_two_in_an_array.json')
    const commit = { fn: 'commitAction', args: [json(v.contract), json(v.args), json(v.ids)] }
    const [a, b, clear] = await run([commit, { ...commit, args: [...commit.args, null] },
      { fn: 'action', args: [json(v.contract), json(v.args), json(v.ids)] }])
    assert.equal(a.ok.disclosures.length, 4)
    assert.notEqual(a.ok.action_digest, b.ok.action_digest)
    assert.ok(!JSON.stringify(a.ok.action).includes('4111111111111111'))
    const [revealed, given] = await run([
      { fn: 'revealAction', args: [json(v.contract), a.ok.action, a.ok.disclosures, 'every'] },
      { fn: 'revealAction', args: [json(v.contract), a.ok.action, b.ok.disclosures.slice(0, 1), 'given'] },
    ])
    assert.deepEqual(revealed.ok, clear.ok)
    assert.deepEqual([given.error.code, given.error.path], ['disclosure_mismatch', '/0'])
  })

  it('salts drawn ahead in blocks are each handed out once', async () => {
    // 100 commits of 4 values: 400 salts, more than a block of 256 (bindings-js/src/salts.rs).
    const [, v] = vectors('redaction').find(([f]) => f === 'y_commit_three_fields_two_in_an_array.json')
    const commit = { fn: 'commitAction', args: [json(v.contract), json(v.args), json(v.ids)] }
    const got = await run(Array.from({ length: 100 }, () => commit))
    const salts = got.flatMap((r) => r.ok.disclosures.map((d) => JSON.parse(Buffer.from(d, 'base64url'))[0]))
    assert.equal(salts.length, 400)
    assert.equal(new Set(salts).size, 400)
    assert.ok(salts.every((s) => Buffer.from(s, 'base64url').length === 16))
  })
})
