// Batches in every JavaScript runtime: every vector of conformance/vectors/batch/ (`op` per
// file: build, deselect, verify_item, check_item, check_batch, check, breaker; computed in
// Rust by `regen`), the same batches, verdicts, breaker states, codes and paths everywhere,
// with the contract as a document and loaded once; and what the batch functions refuse.
//
//   ACTIONSEAL_RUNTIME=node|node-fallback|wasm-node|chromium node --test conformance/js/batch.test.mjs

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { batchOps, notAnActionsealError, openEngine, run as runOn, runtime, show, vectors } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

const run = (ops) => runOn(engine, ops)

describe(`batches (${runtime})`, () => {
  it('batch vectors: every result, with the contract as a document and as a Contract', async () => {
    const cases = vectors('batch')
    const ops = []
    const checks = []
    for (const [file, v] of cases) {
      for (const [label, list, result] of batchOps(v)) {
        checks.push([`batch/${file}${label}`, v, ops.length, list.length, result])
        ops.push(...list)
      }
    }
    const got = await run(ops)
    const failures = []
    for (const [label, v, at, n, result] of checks) {
      const rs = got.slice(at, at + n)
      const have = result(rs)
      try {
        assert.deepStrictEqual(have, v.expect)
      } catch {
        failures.push(`${label}: expected ${show(v.expect)}; got ${show(have)}`)
      }
      for (const r of rs.filter((r) => r.error)) {
        const why = notAnActionsealError(r.error)
        if (why) failures.push(`${label}: ${why} (${r.error.message})`)
      }
    }
    assert.ok(checks.length > cases.length, 'some vectors also ran with the contract loaded')
    assert.equal(failures.length, 0, `${failures.length} of ${checks.length} results differ:\n${failures.join('\n')}`)
  })

  it('arguments are data; a Contract stands for its document; the server policy may be left out', async () => {
    const [, v] = vectors('batch').find(([f]) => f === 'y_build_three_refunds.json')
    const contract = JSON.parse(v.contract)
    const actions = JSON.parse(v.actions)
    const got = await run([
      { fn: 'batchBuild', args: [contract, 'per_item', actions] },
      { fn: 'batchBuild', args: [{ $contract: contract }, 'per_item', actions, null] },
      { fn: 'batchBuild', args: [contract, 'per_item', [{ $js: 'new Map()' }]] },
      { fn: 'batchBuild', args: [contract, 'per_item', { $js: 'undefined' }] },
      { fn: 'checkItem', args: [{}, {}, actions[0], { now: 0 }] },
      { fn: 'checkBatch', args: [[], [], [actions[0]], { now: 0 }] },
      { fn: 'breakerStep', args: [null, null, { kind: 'ajar', at: 1 }] },
    ])
    assert.deepEqual(got[0].ok, v.expect)
    assert.deepEqual(got[1].ok, v.expect)
    const refused = got.slice(2).map((r) => ('error' in r ? [r.error.code, r.error.path] : r))
    assert.deepEqual(refused, [
      ['unsupported_type', '/0'],
      ['unsupported_type', ''],
      ['invalid_context', refused[2][1]],
      ['invalid_context', refused[3][1]],
      ['invalid_request', '/kind'],
    ])
  })

  it('a runner refuses a vector whose op it does not know', () => {
    assert.throws(() => batchOps({ op: 'build_batch' }), /unknown op "build_batch"/)
  })
})
