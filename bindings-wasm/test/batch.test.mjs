// The batch functions from the wasm build: a batch built, deselected, decided and checked
// item by item, and its breaker stepped. The rules are core's and are tested by the batch
// vectors in every runtime (conformance/js/batch.test.mjs); this shows the binding walks
// each argument to core and maps each result and error back.
//
//   bindings-wasm/build.sh && node --test bindings-wasm/test/

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const api = createRequire(import.meta.url)('../pkg/node/index.js')
const example = (name) => JSON.parse(readFileSync(new URL(`../../examples/refund/${name}`, import.meta.url), 'utf8'))
const BASE = example('contract.json')
const CONTRACT = {
  ...BASE,
  batch: {
    max_items: 4,
    caps: { sum: { pointer: '/args/amount_minor', max: 10000 } },
    breaker: { max_failures: 2, window_ms: 60000, close_after: 1 },
  },
}
const IDS = { tenant: 't', subject: 's', job_id: 'j', policy_version: 'p' }
const refund = (n, amount) =>
  api.action(CONTRACT, { order_id: `order-${n}`, amount_minor: amount, currency: 'USD' }, { ...IDS, request_id: `r${n}` })
const ACTIONS = [refund(1, 2000), refund(2, 3000), refund(3, 4000)]
const DECISION = { approval_id: 'a', decision_id: 'd', decision: 'approved', approver: 'b', decided_at: 0, expires_at: 10 }
const CONTEXT = {
  now: 5, tenant: 't', policy_version: 'p', contract: CONTRACT,
  approver_authorized: { approver: 'b', authorized: true },
  subject_authorized: { subject: 's', authorized: true },
  revoked: { approval_id: 'a', revoked: false },
}

test('build, decide, and check each item; a Contract stands for its document', () => {
  const contract = new api.Contract(CONTRACT)
  try {
    const batch = api.batchBuild(contract, 'per_item', ACTIONS)
    assert.equal(batch.batch_digest, api.fingerprint(batch.header))
    assert.deepEqual(api.batchBuild(CONTRACT, 'per_item', ACTIONS, null), batch)
    assert.deepEqual(batch.totals, { count: 3, sum: 9000 })
    const record = api.batchDecide(batch.header, DECISION)
    assert.equal(record.batch_digest, batch.batch_digest)
    const items = batch.items.map((it, i) => ({ action: ACTIONS[i], proof: it.proof }))
    for (const [i, item] of items.entries()) {
      assert.deepEqual(api.batchVerifyItem(batch.header, item),
        { action_digest: batch.items[i].action_digest, batch_digest: batch.batch_digest, index: i })
      assert.equal(api.checkItem([record], item, ACTIONS[i], { ...CONTEXT, contract }).outcome, 'permit')
    }
    // The second item presented with another amount: it alone drifts.
    const drifted = structuredClone(ACTIONS)
    drifted[1].args.amount_minor = 3001
    const verdict = api.checkBatch([record], items, drifted, CONTEXT)
    assert.deepEqual(verdict.claimable, [0, 2])
    assert.deepEqual(verdict.verdicts.map((v) => v.outcome), ['permit', 'reject', 'permit'])
    assert.equal(api.checkItem([record], items[0], ACTIONS[0], { ...CONTEXT, breaker: 'open' }).outcome, 'reapprove')
  } finally {
    contract.free()
  }
})

test('deselection: a new fingerprint, the proposed one kept', () => {
  const whole = api.batchBuild(CONTRACT, 'all_or_nothing', ACTIONS)
  const kept = api.batchDeselect(CONTRACT, 'all_or_nothing', ACTIONS, [1])
  assert.equal(kept.proposed_digest, whole.batch_digest)
  assert.equal(kept.batch_digest, api.batchBuild(CONTRACT, 'all_or_nothing', [ACTIONS[0], ACTIONS[2]]).batch_digest)
  // An item of the whole batch is not in the remainder.
  assert.throws(() => api.batchVerifyItem(kept.header, { action: ACTIONS[1], proof: whole.items[1].proof }),
    { code: 'not_in_batch' })
})

test("core's codes, with their paths", () => {
  assert.throws(() => api.batchBuild(BASE, 'per_item', ACTIONS), { code: 'batch_not_allowed' })
  assert.throws(() => api.batchBuild(CONTRACT, 'per_item', [...ACTIONS, refund(4, 1), refund(5, 1)]), { code: 'batch_too_large' })
  assert.throws(() => api.batchBuild(CONTRACT, 'per_item', [...ACTIONS, refund(4, 1001)]), { code: 'batch_cap_exceeded' })
  assert.throws(() => api.batchBuild(CONTRACT, 'some', ACTIONS), { code: 'invalid_batch' })
  assert.throws(() => api.batchBuild(CONTRACT, 'per_item', [() => 1]), { code: 'unsupported_type', path: '/0' })
  assert.throws(() => api.checkItem({}, {}, ACTIONS[0], CONTEXT), { code: 'invalid_approval' })
  assert.throws(() => api.checkBatch([], [], [ACTIONS[0]], CONTEXT), { code: 'invalid_request' })
  assert.throws(() => api.checkItem([], {}, ACTIONS[0], { ...CONTEXT, breaker: 'ajar' }), { code: 'invalid_context', path: '/breaker' })
})

test('a signed batch decision verifies; the breaker trips, half-opens and closes', () => {
  const key = api.SigningKey.generate()
  const batch = api.batchBuild(CONTRACT, 'per_item', ACTIONS)
  const signed = key.sign(api.batchDecide(batch.header, DECISION))
  const keys = { service_keys: { [key.publicJwk.kid]: { key: key.publicJwk } } }
  assert.equal(api.batchVerifyDecision(signed, keys, 0).approval.batch_digest, batch.batch_digest)
  assert.throws(() => api.batchVerifyDecision(api.batchDecide(batch.header, DECISION), keys, 0), { code: 'missing_proof' })
  key.free()

  const policy = CONTRACT.batch.breaker
  let step = api.breakerStep(policy, null, { kind: 'outcome', outcome: 'failed', at: 1 })
  assert.equal(step.transition, 'none')
  step = api.breakerStep(policy, step.breaker, { kind: 'outcome', outcome: 'unknown', at: 2 })
  assert.deepEqual([step.transition, step.trip, step.breaker.state], ['tripped', 'failures', 'open'])
  assert.throws(() => api.breakerStep(policy, step.breaker, { kind: 'claim', at: 3 }), { code: 'breaker_open' })
  step = api.breakerStep(policy, step.breaker, { kind: 'redecided' })
  assert.equal(step.transition, 'half_opened')
  step = api.breakerStep(policy, step.breaker, { kind: 'outcome', outcome: 'succeeded', at: 4 })
  assert.deepEqual([step.transition, step.breaker.state], ['closed', 'closed'])
})
