// `tasks` filters and `tasksPage` / `auditExportPage` pages through the Node addon, on SQLite
// and on PostgreSQL: tenant, state, since/until by the ledger's clock, a limit and the cursor
// of the next page; pages joined are the whole read, a cursor of another read is refused.
//
//   scripts/pg run node --test bindings-node/test/paging.test.mjs

import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { COMMON, Fresh, api, engines, rejection } from '../../conformance/js/ledger.mjs'

const { Ledger, ManualClock } = api
const REFUND = COMMON.contracts.refund
const { subject, policy_version } = COMMON.ids
const START = 1_800_000_000_000

const propose = (ledger, tenant, job) => ledger.propose({
  action: api.action(REFUND, { order_id: 'order-17', amount_minor: 2500, currency: 'USD' },
    { tenant, subject, job_id: job, request_id: 'req-1', policy_version }),
  contract: REFUND,
  proposer: 'agent',
})

async function allPages(read, query) {
  const out = []
  let after = null
  let pages = 0
  for (;;) {
    const page = await read({ ...query, after })
    pages += 1
    out.push(...(page.tasks ?? page.lines))
    after = page.next
    if (after === null) return [out, pages]
  }
}

const fresh = new Map()
after(() => {
  for (const f of fresh.values()) f.close()
})

for (const engine of engines()) {
  fresh.set(engine, new Fresh(engine))
  describe(`paging on ${engine}`, () => {
    it('filters tasks and reads them and the audit a page at a time', async () => {
      const clock = new ManualClock(START)
      const ledger = await Ledger.open(fresh.get(engine).url(), { clock })
      const ids = []
      for (let i = 0; i < 5; i++) {
        ids.push((await propose(ledger, i % 2 === 0 ? 'tenant-a' : 'tenant-b', `job-${i}`)).id)
        clock.advance(1000)
      }
      const idsOf = (tasks) => tasks.map((t) => t.id)
      assert.deepEqual(idsOf(await ledger.tasks({ tenant: 'tenant-a' })), [ids[0], ids[2], ids[4]])
      assert.deepEqual(idsOf(await ledger.tasks({ since: START + 1000, until: START + 3000 })), ids.slice(1, 3))
      const tasksPage = (q) => ledger.tasksPage(q)
      let [got, pages] = await allPages(tasksPage, { tenant: 'tenant-a', limit: 2 })
      assert.deepEqual([idsOf(got), pages], [[ids[0], ids[2], ids[4]], 2]);
      [got, pages] = await allPages(tasksPage, { limit: 1 })
      assert.deepEqual([idsOf(got), pages], [ids, 5])
      // A row written between two pages neither repeats nor shifts the next one.
      const first = await ledger.tasksPage({ limit: 2 })
      await propose(ledger, 'tenant-a', 'job-late')
      const second = await ledger.tasksPage({ limit: 2, after: first.next })
      assert.deepEqual(idsOf(second.tasks), ids.slice(2, 4))
      const last = await ledger.tasksPage({ since: START + 4000, until: START + 5000, limit: 5 })
      assert.deepEqual([idsOf(last.tasks), last.next], [[ids[4]], null])
      // The audit a page at a time: its lines joined are the export.
      const [lines, auditPages] = await allPages((q) => ledger.auditExportPage(q), { limit: 2 })
      assert.equal(lines.map((l) => l + '\n').join(''), await ledger.auditExport())
      assert.ok(auditPages >= 3)
      // Refusals, with their field.
      assert.equal((await rejection(ledger.tasksPage({ limit: 0 }))).path, '/limit')
      const cursor = (await ledger.auditExportPage({ limit: 1 })).next
      const e = await rejection(ledger.tasksPage({ after: cursor }))
      assert.deepEqual([e.code, e.path], ['invalid_request', '/after'])
      assert.equal((await rejection(ledger.tasks({ since: START, until: START }))).path, '/until')
      assert.equal((await rejection(ledger.tasks({ page: 1 }))).code, 'invalid_request')
      await ledger.close()
    })
  })
}
