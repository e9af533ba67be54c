// A reviewer's edit, checked without a ledger (`amend`), in every JavaScript runtime:
//
//   ACTIONSEAL_RUNTIME=node|wasm-node|chromium node --test conformance/js/amend.test.mjs
//
// Every vector of conformance/vectors/amend/ (computed in Rust by conformance/src/decisions.rs,
// `amend_result`) runs with the contract as a document and as a `Contract` made in the
// runtime; the amended action's canonical form and fingerprint are computed here with the npm
// `canonicalize` package, so a runtime is not checked against itself. Then the decision that
// follows an amendment: the record names the amended digest and the proposal's, `check`
// permits the amended action and finds the proposal drifted.

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import canonicalizeNpm from 'canonicalize'
import { notAnActionsealError, openEngine, repo, run, runtime, sha256, show, vectors } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

const json = (text) => ({ $json: text })
const example = (name) => JSON.parse(readFileSync(join(repo, 'examples', 'refund', name), 'utf8'))

/** A result as the vectors write it, checking what a vector cannot say along the way. */
function asVector(r, v) {
  if ('error' in r) {
    const why = notAnActionsealError(r.error)
    assert.equal(why, null, `${why}: ${show(r.error)}`)
    return { error: r.error.code, path: r.error.path }
  }
  const a = r.ok
  assert.deepEqual(Object.keys(a).sort(), ['action', 'action_digest', 'amended_pointers', 'proposed_digest'])
  const canonical = canonicalizeNpm(a.action)
  assert.equal(a.action_digest, sha256(canonical), 'action_digest is the amended action\'s fingerprint')
  assert.equal(a.proposed_digest, sha256(canonicalizeNpm(JSON.parse(v.current))), 'proposed_digest is the current action\'s fingerprint')
  return { action: canonical, fingerprint: a.action_digest, proposed_digest: a.proposed_digest, pointers: a.amended_pointers }
}

describe(`amend (${runtime})`, () => {
  it('every amend vector, with the contract as a document and as a Contract', async () => {
    const all = vectors('amend')
    assert.ok(all.length >= 12, `only ${all.length} amend vectors`)
    const ops = all.flatMap(([, v]) => [
      { fn: 'amend', args: [json(v.current), json(v.replacement), json(v.contract)] },
      { fn: 'amend', args: [json(v.current), json(v.replacement), { $contract: json(v.contract) }] },
    ])
    const got = await run(engine, ops)
    const failures = []
    all.forEach(([file, v], i) => {
      for (const [k, how] of [[0, 'document'], [1, 'Contract']]) {
        const actual = asVector(got[2 * i + k], v)
        try {
          assert.deepEqual(actual, v.expect)
        } catch {
          failures.push(`${file} (${how}): expected ${show(v.expect)}; got ${show(actual)}`)
        }
      }
      // y_ files are amendments; n_<code>... files are refused with that code.
      if (file.startsWith('y_')) assert.ok(!('error' in v.expect), file)
      else assert.ok(file.slice(2).startsWith(v.expect.error), file)
    })
    assert.equal(failures.length, 0, failures.join('\n'))
  })

  it('the decision after an amendment binds the amended action and records the proposal', async () => {
    const proposed = example('action.json')
    const context = example('context.json')
    const record = example('approval.json')
    const decision = Object.fromEntries(['approval_id', 'decision_id', 'decision', 'approver', 'decided_at', 'expires_at'].map((k) => [k, record[k]]))
    const edited = structuredClone(proposed)
    edited.args.amount_minor = 2000
    const [amended] = await run(engine, [{ fn: 'amend', args: [proposed, edited, context.contract] }])
    assert.ok('ok' in amended, show(amended))
    const { action, action_digest: digest, proposed_digest: proposal, amended_pointers: pointers } = amended.ok
    assert.deepEqual(pointers, ['/args/amount_minor'])
    assert.equal(proposal, sha256(canonicalizeNpm(proposed)))
    assert.equal(digest, sha256(canonicalizeNpm(edited)))
    const [approved, same] = await run(engine, [
      { fn: 'approve', args: [action, { ...decision, proposed_digest: proposal }] },
      // "Not amended" has one spelling: no proposed_digest.
      { fn: 'approve', args: [action, { ...decision, proposed_digest: digest }] },
    ])
    assert.deepEqual([approved.ok?.action_digest, approved.ok?.proposed_digest], [digest, proposal], show(approved))
    assert.deepEqual([same.error?.code, same.error?.path], ['invalid_approval', '/proposed_digest'])
    const [permitted, drifted] = await run(engine, [
      { fn: 'check', args: [approved.ok, action, context] },
      { fn: 'check', args: [approved.ok, proposed, context] },
    ])
    assert.deepEqual([permitted.ok.outcome, permitted.ok.approved_digest], ['permit', digest])
    assert.deepEqual([drifted.ok.outcome, drifted.ok.reasons, drifted.ok.drift], ['reject', ['action_drift'], ['/args/amount_minor']])
  })

  it('an edit the contract refuses keeps its code and path; amend takes no options', async () => {
    const proposed = example('action.json')
    const { contract } = example('context.json')
    const withAmount = (v) => ({ ...proposed, args: { ...proposed.args, amount_minor: v } })
    const got = await run(engine, [
      { fn: 'amend', args: [proposed, withAmount('2000'), contract] },
      { fn: 'amend', args: [proposed, withAmount(0), contract] },
      { fn: 'amend', args: [proposed, withAmount(true), contract] },
      { fn: 'amend', args: [proposed, { ...proposed, tool: 'wire_transfer' }, contract] },
      { fn: 'amend', args: [proposed, proposed, contract, { profile: 'rfc8785' }] },
    ])
    assert.deepEqual(got.map((r) => [r.error?.code, r.error?.path]), [
      ['type_mismatch', '/args/amount_minor'],
      ['out_of_range', '/args/amount_minor'],
      ['type_mismatch', '/args/amount_minor'],
      ['amend_tool_changed', '/tool'],
      ['invalid_option', ''],
    ])
  })
})
