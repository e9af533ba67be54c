// Quorums and delegation in every JavaScript runtime: every vector of
// conformance/vectors/{quorum,delegation}/ (`op` per file: check_set, verify_delegation,
// delegation_digest; computed in Rust by `regen`), the same verdicts, values, codes and paths
// everywhere, each check_set also with the contract loaded once and, for a set of at most one,
// through `check`; and what checkSet refuses (delegation.test.mjs holds the rest of the
// delegation functions' surface).
//
//   ACTIONSEAL_RUNTIME=node|wasm-node|chromium node --test conformance/js/quorum.test.mjs

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { notAnActionsealError, openEngine, quorumOps, repo, run as runOn, runtime, show, vectors } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

const run = (ops) => runOn(engine, ops)
const failed = (r) => ({ error: r.error.code, path: r.error.path })

/** A result as a vector's `expect` says it: the value, or `{error, path}`. */
const result = (v, r) => {
  if ('error' in r) return failed(r)
  return v.op === 'delegation_digest' ? { digest: r.ok } : r.ok
}

async function runVectors(kind) {
  const cases = vectors(kind)
  const ops = []
  const checks = []
  for (const [file, v] of cases) {
    const [op, also] = quorumOps(v)
    ops.push(op)
    checks.push([`${kind}/${file}`, v])
    for (const [label, other] of also) {
      ops.push(other)
      checks.push([`${kind}/${file} (${label})`, v])
    }
  }
  const got = await run(ops)
  const failures = []
  got.forEach((r, i) => {
    const [label, v] = checks[i]
    const have = result(v, r)
    try {
      assert.deepStrictEqual(have, v.expect)
    } catch {
      failures.push(`${label}: expected ${show(v.expect)}; got ${show(have)}${r.error ? ` (${r.error.message})` : ''}`)
    }
    if (r.error) {
      const why = notAnActionsealError(r.error)
      if (why) failures.push(`${label}: ${why}`)
    }
  })
  assert.equal(failures.length, 0, `${failures.length} of ${got.length} results differ:\n${failures.join('\n')}`)
}

describe(`quorum and delegation (${runtime})`, () => {
  it('quorum vectors: every verdict, with the contract as a document and as a Contract', async () => {
    await runVectors('quorum')
  })

  it('delegation vectors: verified links, digests, codes and paths', async () => {
    await runVectors('delegation')
  })

  it('a set is an array; its members are data; a set of one is check of one', async () => {
    const example = (name) => JSON.parse(readFileSync(join(repo, 'examples', 'refund', name), 'utf8'))
    const [record, action, context] = ['approval.json', 'action.json', 'context.json'].map(example)
    const got = await run([
      { fn: 'checkSet', args: [record, action, context] },
      { fn: 'checkSet', args: [{ $js: 'undefined' }, action, context] },
      { fn: 'checkSet', args: [[{ $js: 'new Map()' }], action, context] },
      { fn: 'checkSet', args: [[{ $approval: record }], action, context] },
      { fn: 'checkSet', args: [[], action, { now: 0 }] },
      { fn: 'checkSet', args: [[record], action, context] },
      { fn: 'check', args: [record, action, context] },
    ])
    const refused = got.slice(0, 5).map((r) => ('error' in r ? [r.error.code, r.error.path] : r))
    assert.deepEqual(refused, [
      ['invalid_approval', ''],
      ['unsupported_type', ''],
      ['unsupported_type', '/0'],
      ['unsupported_type', '/0'],
      ['invalid_context', refused[4][1]],
    ])
    assert.deepEqual(got[5].ok, got[6].ok)
    assert.equal(got[5].ok.outcome, 'permit')
  })

  it('a runner refuses a vector whose op it does not know', () => {
    assert.throws(() => quorumOps({ op: 'check_sets' }), /unknown op "check_sets"/)
  })
})
