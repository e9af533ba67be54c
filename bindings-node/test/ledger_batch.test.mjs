// The ledger's batch methods (issue 28) through the Node addon, on SQLite and PostgreSQL: a
// batch proposed, two items left out, decided once, claimed item by item; two failures trip
// the breaker and the tripped batch names the batch its remainder went to, which a new
// decision half-opens; an all-or-nothing batch claimed whole after a drift claimed nothing;
// the audit verifies. And the refusals, with core's codes and paths reaching JavaScript.
//
//   scripts/pg run node --test bindings-node/test/ledger_batch.test.mjs

import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { COMMON, Fresh, api, engines, facts, rejection } from '../../conformance/js/ledger.mjs'

const { Ledger, ManualClock, ActionsealError, Contract } = api
const { tenant, subject, policy_version } = COMMON.ids
const HOUR = 3_600_000
const BATCH = {
  ...COMMON.contracts.refund,
  batch: {
    max_items: 10,
    caps: { sum: { pointer: '/args/amount_minor', max: 20000 } },
    breaker: { max_failures: 2, window_ms: 600_000, close_after: 2 },
  },
}

const refunds = (job, n, amount = 2500) => Array.from({ length: n }, (_, i) =>
  api.action(BATCH, { order_id: `order-${i}`, amount_minor: amount, currency: 'USD' },
    { tenant, subject, job_id: job, request_id: `refund-${i}`, policy_version }))

const decision = (batch, decisionId, now) => ({
  approval_id: batch.approval_id, decision_id: decisionId, batch_id: batch.id, batch_digest: batch.digest,
  decision: 'approved', approver: COMMON.approver, decided_at: now, expires_at: now + HOUR,
})

/** The coded error a promise rejects with, checked to be an ActionsealError. */
async function coded(promise) {
  const e = await rejection(promise)
  assert.ok(e instanceof ActionsealError, `not an ActionsealError: ${e}`)
  return e
}

const fresh = []
after(() => fresh.forEach((f) => f.close()))
const open = async (engine) => {
  const f = new Fresh(engine)
  fresh.push(f)
  return Ledger.open(f.url(), { clock: new ManualClock(COMMON.start) })
}

for (const engine of engines()) {
  describe(`ledger batches on ${engine}`, () => {
    it('a per-item batch: deselected, decided once, claimed item by item, tripped, its remainder followed', async () => {
      const ledger = await open(engine)
      const actions = refunds('outage-1', 6)
      const batch = await ledger.proposeBatch({ actions, contract: new Contract(BATCH), semantics: 'per_item', proposer: 'agent' })
      assert.deepEqual(await ledger.batch(batch.id), batch)
      assert.deepEqual([batch.state, batch.digest, batch.successor], ['awaiting_approval', batch.proposed_digest, null])
      assert.equal(batch.digest, api.fingerprint(batch.header))
      const tasks = batch.items.map((i) => i.task_id)
      assert.deepEqual(tasks, actions.map((a) => Ledger.taskId({ tenant, job_id: a.job_id, request_id: a.request_id })))

      // The reviewer leaves items 2 and 5 out: another digest, the proposal's kept.
      const amended = await ledger.amendBatch({ batch_id: batch.id, amends: batch.digest, deselect: [1, 4],
        reviewer: 'user:bob', reason: 'already refunded' })
      assert.notEqual(amended.digest, batch.digest)
      assert.equal(amended.proposed_digest, batch.digest)
      const stale = await coded(ledger.decideBatch(decision(batch, 'd-old', ledger.now())))
      assert.equal(stale.code, 'decision_mismatch')
      const approved = decision(amended, 'd1', ledger.now())
      const decided = await ledger.decideBatch(approved)
      assert.deepEqual([decided.duplicate, decided.signer, decided.batch.state], [false, null, 'approved'])
      assert.equal((await ledger.decideBatch(approved)).duplicate, true)
      const states = async () => Promise.all(tasks.map(async (t) => (await ledger.task(t)).state))
      assert.deepEqual(await states(), ['approved', 'rejected', 'approved', 'approved', 'rejected', 'approved'])

      // Claimed one at a time, each once; a plain claim of an item is refused; drift is an outcome.
      const base = { facts: facts(BATCH), executor: 'w1', lease_ms: 60_000 }
      const first = await ledger.claimItem({ ...base, task_id: tasks[0], action: actions[0] })
      assert.deepEqual([first.result, first.claimed], ['claimed', true])
      assert.deepEqual(first.claim.item.action, actions[0])
      assert.equal(first.claim.approval.batch_digest, amended.digest)
      assert.equal((await coded(ledger.claimItem({ ...base, task_id: tasks[0], action: actions[0] }))).code, 'already_claimed')
      assert.equal((await coded(ledger.claim({ ...base, task_id: tasks[2], action: actions[2] }))).code, 'batch_item')
      const drifted = { ...actions[5], args: { ...actions[5].args, amount_minor: 2600 } }
      const drift = await ledger.claimItem({ ...base, task_id: tasks[5], action: drifted })
      assert.deepEqual([drift.result, drift.approved_action], ['tool_args_drift', actions[5]])
      const second = await ledger.claimItem({ ...base, task_id: tasks[2], action: actions[2] })

      // Two failures trip the breaker: the items not yet claimed go back, over the successor.
      const failed = await ledger.completeItem({ task_id: tasks[0], fence: first.claim.fence, outcome: 'failed', executor: 'w1' })
      assert.equal(failed.state, 'failed')
      assert.deepEqual([(await ledger.batch(batch.id)).breaker.state, (await ledger.batch(batch.id)).successor], ['closed', null])
      await ledger.completeItem({ task_id: tasks[2], fence: second.claim.fence, outcome: 'failed', executor: 'w1' })
      const tripped = await ledger.batch(batch.id)
      assert.deepEqual([tripped.breaker.state, tripped.breaker.trips, tripped.current], ['open', 1, false])
      assert.deepEqual(await states(), ['failed', 'rejected', 'failed', 'awaiting_reapproval', 'rejected', 'awaiting_reapproval'])
      assert.equal((await coded(ledger.claimItem({ ...base, task_id: tasks[3], action: actions[3] }))).code, 'task_not_claimable')
      const remainder = await ledger.batch(tripped.successor)
      assert.deepEqual([remainder.lineage, remainder.current, remainder.successor], [batch.lineage, true, null])
      assert.deepEqual(remainder.items.map((i) => i.task_id), [tasks[3], tasks[5]])

      // A new decision over the remainder half-opens it; its items are claimed and succeed.
      const redecided = await ledger.decideBatch(decision(remainder, 'd2', ledger.now()))
      assert.equal(redecided.batch.breaker.state, 'half_open')
      for (const i of [3, 5]) {
        const won = await ledger.claimItem({ ...base, task_id: tasks[i], action: actions[i] })
        const unknown = await ledger.completeItem({ task_id: tasks[i], fence: won.claim.fence, outcome: i === 3 ? 'succeeded' : 'unknown', executor: 'w1' })
        assert.equal(unknown.state, i === 3 ? 'succeeded' : 'unknown')
      }
      const reconciled = await ledger.reconcileItem({ task_id: tasks[5], observed: 'succeeded', actor: 'ops' })
      assert.equal(reconciled.state, 'succeeded')
      assert.equal((await ledger.auditVerify()).valid, true)
      await ledger.close()
    })

    it('an all-or-nothing batch is claimed whole, or not at all', async () => {
      const ledger = await open(engine)
      const actions = refunds('outage-2', 3)
      let batch = await ledger.proposeBatch({ actions, contract: BATCH, semantics: 'all_or_nothing', proposer: 'agent' })
      batch = (await ledger.decideBatch(decision(batch, 'd1', ledger.now()))).batch
      const tasks = batch.items.map((i) => i.task_id)
      const base = { batch_id: batch.id, facts: facts(BATCH), executor: 'w1', lease_ms: 60_000 }
      const member = await coded(ledger.claimItem({ ...base, task_id: tasks[0], action: actions[0] }))
      assert.deepEqual([member.code, member.path], ['invalid_request', '/batch_id']) // no member of an item's claim
      const { batch_id: _, ...claim } = base
      assert.equal((await coded(ledger.claimItem({ ...claim, task_id: tasks[0], action: actions[0] }))).code, 'batch_all_or_nothing')
      const drifted = [actions[0], { ...actions[1], args: { ...actions[1].args, amount_minor: 1 } }, actions[2]]
      const drift = await ledger.claimBatch({ ...base, actions: drifted })
      assert.deepEqual([drift.result, drift.claimed, drift.items.length], ['tool_args_drift', false, 1])
      assert.deepEqual([drift.items[0].task.id, drift.items[0].verdict.drift], [tasks[1], ['/args/amount_minor']])
      assert.deepEqual((await Promise.all(tasks.map((t) => ledger.task(t)))).map((t) => t.state), ['approved', 'approved', 'approved'])
      const whole = await ledger.claimBatch({ ...base, actions })
      assert.deepEqual([whole.result, whole.claimed], ['claimed', true])
      assert.deepEqual(whole.items.map((c) => c.task_id), tasks)
      assert.deepEqual(whole.items.map((c) => c.action), actions)
      assert.equal((await ledger.auditVerify()).valid, true)
      await ledger.close()
    })

    it('refusals keep core\'s codes and paths', async () => {
      const ledger = await open(engine)
      const propose = (actions, more = {}) => coded(ledger.proposeBatch({ actions, contract: BATCH, semantics: 'per_item', proposer: 'agent', ...more }))
      assert.equal((await propose(refunds('x', 9))).code, 'batch_cap_exceeded') // 9 x 2500 > 20000
      assert.equal((await propose(refunds('x', 11, 10))).code, 'batch_too_large')
      assert.equal((await propose(refunds('x', 2), { contract: COMMON.contracts.refund })).code, 'batch_not_allowed')
      const semantics = await propose(refunds('x', 2), { semantics: 'sometimes' })
      assert.deepEqual([semantics.code, semantics.path], ['invalid_batch', '/semantics'])
      const notList = await propose({ not: 'a list' })
      assert.deepEqual([notList.code, notList.path], ['invalid_batch', '/actions'])
      const extra = await propose(refunds('x', 2), { reviewer: 'user:bob' })
      assert.deepEqual([extra.code, extra.path], ['invalid_request', '/reviewer'])
      assert.equal((await coded(ledger.batch(`batch_${'0'.repeat(32)}`))).code, 'batch_not_found')
      const batch = await ledger.proposeBatch({ actions: refunds('y', 2), contract: BATCH, semantics: 'per_item', proposer: 'agent' })
      const positions = await coded(ledger.amendBatch({ batch_id: batch.id, amends: batch.digest, deselect: ['1'], reviewer: 'user:bob', reason: 'r' }))
      assert.deepEqual([positions.code, positions.path], ['invalid_request', '/deselect'])
      const moved = await coded(ledger.amendBatch({ batch_id: batch.id, amends: `sha256:${'0'.repeat(64)}`, deselect: [0], reviewer: 'user:bob', reason: 'r' }))
      assert.equal(moved.code, 'amend_conflict')
      const lease = await coded(ledger.claimBatch({ batch_id: batch.id, actions: [], facts: facts(BATCH), executor: 'w', lease_ms: 0 }))
      assert.deepEqual([lease.code, lease.path], ['invalid_request', '/lease_ms'])
      await ledger.close()
    })
  })
}
