// Waking on the ledger through the Node addon, on SQLite and on PostgreSQL: `wait` resolves
// when another caller approves (the event loop runs on meanwhile) and times out as an
// outcome; `changes` reads task changes after a cursor, and waits for one.
//
//   scripts/pg run node --test bindings-node/test/wait.test.mjs

import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { COMMON, Fresh, api, engines, rejection } from '../../conformance/js/ledger.mjs'

const { Ledger, ActionsealError } = api
const REFUND = COMMON.contracts.refund
const { tenant, subject, policy_version } = COMMON.ids
const TIMEOUT_MS = 10_000

const awaiting = (ledger, job) => ledger.propose({
  action: api.action(REFUND, { order_id: 'order-17', amount_minor: 2500, currency: 'USD' },
    { tenant, subject, job_id: job, request_id: 'req-1', policy_version }),
  contract: REFUND,
  proposer: 'agent',
})

const approve = (ledger, task, decisionId) => {
  const now = ledger.now()
  return ledger.decide({
    approval_id: task.approval_id, decision_id: decisionId, job_id: task.job_id, request_id: task.request_id,
    action_digest: task.action_digest, decision: 'approved', approver: COMMON.approver, decided_at: now,
    expires_at: now + 3_600_000,
  })
}

async function code(promise) {
  const e = await rejection(promise)
  assert.ok(e instanceof ActionsealError, `not an ActionsealError: ${e}`)
  return e.code
}

const fresh = new Map()
after(() => {
  for (const f of fresh.values()) f.close()
})

for (const engine of engines()) {
  fresh.set(engine, new Fresh(engine))
  describe(`waking on ${engine}`, () => {
    it('wait resolves on an approval and times out otherwise', async () => {
      const ledger = await Ledger.open(fresh.get(engine).url())
      const task = await awaiting(ledger, 'job-1')
      let out = await ledger.wait({ task_id: task.id, states: ['approved'], timeout_ms: 300 })
      assert.deepEqual([out.outcome, out.task.state], ['timed_out', 'awaiting_approval'])
      const started = Date.now()
      const waiting = ledger.wait({ task_id: task.id, states: ['approved', 'rejected'], timeout_ms: TIMEOUT_MS })
      await sleep(200)
      await approve(ledger, task, 'd1')
      out = await waiting
      assert.ok(Date.now() - started < TIMEOUT_MS, 'woke before the timeout')
      assert.deepEqual([out.outcome, out.task.state], ['reached', 'approved'])
      assert.equal(await code(ledger.wait({ task_id: task.id, states: [], timeout_ms: 0 })), 'invalid_request')
      assert.equal(await code(ledger.wait({ task_id: `task_${'0'.repeat(32)}`, states: ['approved'], timeout_ms: 0 })),
        'task_not_found')
      await ledger.close()
    })

    it('changes reads after a cursor and waits for one', async () => {
      const ledger = await Ledger.open(fresh.get(engine).url())
      const task = await awaiting(ledger, 'job-1')
      const first = await ledger.changes({ limit: 1 })
      assert.deepEqual(first.changes.map((c) => [c.task_id, c.kind, c.state]),
        [[task.id, 'proposed', 'awaiting_approval']])
      assert.deepEqual(Object.keys(first.changes[0]).sort(), ['at', 'event_id', 'kind', 'state', 'task_id'])
      const { cursor } = first
      assert.deepEqual(await ledger.changes({ after: cursor }), { changes: [], cursor })
      assert.deepEqual(await ledger.changes({ after: cursor, timeout_ms: 300 }), { changes: [], cursor })
      const reading = ledger.changes({ after: cursor, timeout_ms: TIMEOUT_MS })
      await sleep(200)
      await approve(ledger, task, 'd1')
      const read = await reading
      assert.deepEqual(read.changes.map((c) => [c.kind, c.state]), [['decided', 'approved']])
      assert.equal(await code(ledger.changes({ after: 'not a cursor' })), 'invalid_request')
      assert.equal(await code(ledger.changes({ limit: 0 })), 'invalid_request')
      await ledger.close()
    })
  })
}
