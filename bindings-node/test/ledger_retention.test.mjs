// Sensitive values in the ledger (issue 29) through the Node addon, on SQLite and PostgreSQL:
// a task frozen committed, claimed with its values revealed, a retention policy run by class,
// a redaction, and the claim of a shredded task rejected with core's code.
//
//   scripts/pg run node --test bindings-node/test/ledger_retention.test.mjs

import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { COMMON, Fresh, api, engines, facts, rejection } from '../../conformance/js/ledger.mjs'

const { Ledger, ManualClock, ActionsealError } = api
const { tenant, subject, policy_version } = COMMON.ids
const HOUR = 3_600_000
const CONTRACT = { ...COMMON.contracts.refund, sensitive: { '/args/reason': 'pii' } }
const NOTE = 'a note only the reviewer and the payer may read'

const refund = (request, reason = NOTE) =>
  api.action(CONTRACT, { order_id: 'order-17', amount_minor: 100, currency: 'USD', reason },
    { tenant, subject, job_id: 'job-1', request_id: request, policy_version })

const fresh = []
after(() => fresh.forEach((f) => f.close()))

for (const engine of engines()) {
  describe(`ledger sensitive values on ${engine}`, () => {
    it('commits, reveals to the claim, shreds by class and refuses a shredded claim', async () => {
      const f = new Fresh(engine)
      fresh.push(f)
      const clock = new ManualClock(COMMON.start)
      const ledger = await Ledger.open(f.url(), { clock })
      const policy = await ledger.setRetention({ tenant, class: 'pii', keep_ms: HOUR, at_finish: 'keep', actor: 'dpo' })
      assert.deepEqual([policy.keep_ms, policy.at_finish, policy.changed_by], [HOUR, 'keep', 'dpo'])
      assert.deepEqual(await ledger.retention(), [policy])

      const first = refund('req-1')
      const t1 = await ledger.propose({ action: first, contract: CONTRACT, proposer: 'agent' })
      assert.ok(!JSON.stringify(t1).includes(NOTE), 'the task holds a commitment')
      const claim = await ledger.claim({ task_id: t1.id, action: first, facts: facts(CONTRACT), executor: 'w', lease_ms: 1000 })
      assert.equal(claim.result, 'claimed')
      assert.deepEqual(claim.claim.revealed, first)

      clock.advance(2 * HOUR)
      const second = refund('req-2', `${NOTE} (2)`)
      const t2 = await ledger.propose({ action: second, contract: CONTRACT, proposer: 'agent' })
      const run = await ledger.retentionRun('retention')
      assert.deepEqual(run, [{ task_id: t1.id, places: [{ pointer: '/args/reason', class: 'pii' }] }])

      // The reviewer's read: the disclosures open the frozen commitments; none once shredded.
      const read = await ledger.disclosures(t2.id)
      assert.equal(read.length, 1)
      assert.deepEqual(api.revealAction(CONTRACT, t2.action, read, 'every'), second)
      const redacted = await ledger.redact({ task_id: t2.id, actor: 'dpo' })
      assert.equal(redacted.places.length, 1)
      const shredded = await rejection(ledger.disclosures(t2.id))
      assert.equal(shredded.code, 'disclosures_shredded')
      const e = await rejection(ledger.claim({ task_id: t2.id, action: second, facts: facts(CONTRACT), executor: 'w', lease_ms: 1000 }))
      assert.ok(e instanceof ActionsealError)
      assert.equal(e.code, 'disclosures_shredded')
      assert.ok(!e.message.includes(NOTE))
      assert.ok((await ledger.auditVerify()).valid)
    })
  })
}
