// A model step's parallel tool calls as one batch (issue 28) through the Vercel AI SDK adapter:
// sealTurns proposes the step's calls as a turn before the SDK asks needsApproval of each, a
// person reviews the batch once, and each call's execute claims its own item once, with its own
// drift check. Without sealTurns (a per-call adapter) the same step asks for one review per call.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { sealTool, sealTurns, turnOf } from 'actionseal/adapters/ai-sdk'
import { APPROVER, R, REFUND_RULE, banner, counter, engines, freshLedger, kinds, sealFor, taskOf } from './common.mjs'

banner('ai')
const JOB = 'chat-batch'
const CTX = { job_id: JOB }
// Up to 3 refunds over 1000 are reviewed as one batch, under a sum cap.
const BATCH = { max_items: 3, caps: { count: 3, sum: { pointer: '/args/amount_minor', max: 50000 } } }

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const call = (input, id) => ({ type: 'tool-call', toolCallId: id, toolName: 'refund_create', input: JSON.stringify(input) })
const step = (...content) => ({
  content, finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [],
})
const refundSchema = z.object({ order_id: z.string(), amount_minor: z.number().int().min(1), currency: z.enum(['USD', 'EUR', 'CNY']) })
const calls = (...amounts) => amounts.map((a, i) => call(R(a, { order_id: `order-${i}` }), `call_${i}`))

async function setup(engine, { batch = BATCH } = {}) {
  const { ledger } = await freshLedger(engine)
  const seal = sealFor(ledger)
  const refund = counter()
  const tools = {
    refund_create: await sealTool(seal, 'refund_create', tool({ inputSchema: refundSchema, execute: refund.body }), { approval: REFUND_RULE, batch }),
  }
  return { ledger, seal, tools, refund }
}

/** One generateText over `steps`, through sealTurns unless `perCall`. */
async function run({ seal, tools }, steps, messages, { perCall = false } = {}) {
  const mock = new MockLanguageModelV3({ doGenerate: async () => steps.shift() ?? step({ type: 'text', text: 'done' }) })
  const model = perCall ? mock : wrapLanguageModel({ model: mock, middleware: sealTurns(seal, tools, CTX) })
  const r = await generateText({ model, tools, messages, stopWhen: stepCountIs(5), experimental_context: CTX })
  return { r, history: [...messages, ...r.response.messages], reqs: r.content.filter((p) => p.type === 'tool-approval-request') }
}

const user = [{ role: 'user', content: 'refund the outage' }]
const approveAll = (reqs) => ({ role: 'tool', content: reqs.map((q) => ({ type: 'tool-approval-response', approvalId: q.approvalId, approved: true })) })
const told = (v) => (typeof v === 'string' && v.startsWith('actionseal: ') ? JSON.parse(v.slice(12)) : v)
const results = (r) => Object.fromEntries(r.response.messages.filter((m) => m.role === 'tool').flatMap((m) => m.content)
  .filter((p) => p.type === 'tool-result').map((p) => [p.toolCallId, told(p.output.value)]))

let d = 0
/** The approval server: one decision over the batch as the reviewer saw it. */
async function decideBatch(ledger, batchId) {
  const b = await ledger.batch(batchId)
  d += 1
  const now = ledger.now()
  return ledger.decideBatch({
    approval_id: b.approval_id, decision_id: `batch-dec-${process.pid}-${d}`, batch_id: batchId, batch_digest: b.digest,
    decision: 'approved', approver: APPROVER, decided_at: now, expires_at: now + 1_800_000,
  })
}

for (const engine of engines()) {
  describe(`ai-sdk adapter, a turn as a batch, on ${engine}`, () => {
    it('three parallel calls make one review, and each runs once with its frozen args', async () => {
      const s = await setup(engine)
      const first = await run(s, [step(...calls(2500, 3000, 4000))], user)
      assert.equal(first.reqs.length, 3)
      assert.equal(s.refund.calls.length, 0)
      const [plan] = s.seal.plan(turnOf(s.tools, calls(2500, 3000, 4000)), CTX).batches
      assert.deepEqual(plan.calls, [0, 1, 2])
      const batch = await s.ledger.batch(plan.batch_id)
      assert.equal(batch.digest, plan.batch_digest)
      await decideBatch(s.ledger, plan.batch_id) // the one review
      const { r } = await run(s, [], [...first.history, approveAll(first.reqs)])
      assert.deepEqual(s.refund.calls.map((a) => a.amount_minor).sort(), [2500, 3000, 4000])
      assert.deepEqual(Object.values(results(r)).sort(), ['refunded 2500', 'refunded 3000', 'refunded 4000'])
      for (let i = 0; i < 3; i += 1) {
        const t = await taskOf(s.ledger, JOB, `call_${i}`)
        assert.equal(t.state, 'succeeded')
        assert.equal((await kinds(s.ledger, t.id)).filter((k) => k === 'claimed').length, 1)
      }
      // Claimed and completed as items: the lineage counted them under its caps.
      assert.equal((await s.ledger.batch(plan.batch_id)).totals.count, 3)
      // Sent again, the same approved history runs nothing more.
      await run(s, [], [...first.history, approveAll(first.reqs)])
      assert.equal(s.refund.calls.length, 3)
    })

    it('a waiting item\'s pause names its batch; after a trip, the batch it was sent back in', async () => {
      // One claim a minute: the second claim trips the breaker and sends the rest back.
      const rate = { ...BATCH, breaker: { max_failures: 5, window_ms: 600_000, max_claims_per_minute: 1, close_after: 1 } }
      const s = await setup(engine, { batch: rate })
      const first = await run(s, [step(...calls(2500, 3000, 4000))], user)
      const turnCalls = turnOf(s.tools, calls(2500, 3000, 4000))
      const batchId = s.seal.batchOf(turnCalls, CTX, 'call_2')
      const gate = (i) => s.seal.gate(turnCalls[i].contract, turnCalls[i].args, s.seal.ids(CTX, `call_${i}`), null, batchId)
      const waiting = await gate(2)
      assert.deepEqual([waiting.decision, waiting.request.batch.id, waiting.request.batch.size], ['pause', batchId, 3])
      await decideBatch(s.ledger, batchId)
      await run(s, [], [...first.history, approveAll(first.reqs)])
      assert.equal(s.refund.calls.length, 1)
      const { successor } = await s.ledger.batch(batchId)
      assert.ok(successor && successor !== batchId)
      const left = [0, 1, 2].filter((i) => !s.refund.calls.some((a) => a.order_id === `order-${i}`))
      assert.equal(left.length, 2)
      for (const i of left) {
        const sent = await gate(i)
        assert.deepEqual([sent.decision, sent.request.batch.id, sent.request.batch.size], ['pause', successor, 2])
      }
    })

    it('a per-call adapter (no sealTurns) asks for one review per call', async () => {
      const s = await setup(engine)
      const first = await run(s, [step(...calls(2500, 3000, 4000))], user, { perCall: true })
      const tasks = await Promise.all([0, 1, 2].map((i) => taskOf(s.ledger, JOB, `call_${i}`)))
      assert.equal(new Set(tasks.map((t) => t.approval_id)).size, 3)
      const [plan] = s.seal.plan(turnOf(s.tools, calls(2500, 3000, 4000)), CTX).batches
      await assert.rejects(s.ledger.batch(plan.batch_id), (e) => e.code === 'batch_not_found')
      assert.equal(first.reqs.length, 3)
    })

    it('a call edited in the client-held history after the decision is drift; the others run', async () => {
      const s = await setup(engine)
      const first = await run(s, [step(...calls(2500, 3000, 4000))], user)
      const [plan] = s.seal.plan(turnOf(s.tools, calls(2500, 3000, 4000)), CTX).batches
      await decideBatch(s.ledger, plan.batch_id)
      for (const m of first.history) {
        if (m.role !== 'assistant') continue
        for (const p of m.content) if (p.type === 'tool-call' && p.toolCallId === 'call_1') p.input = R(30000, { order_id: 'order-1' })
      }
      const { r } = await run(s, [], [...first.history, approveAll(first.reqs)])
      assert.deepEqual(s.refund.calls.map((a) => a.amount_minor).sort(), [2500, 4000])
      const refusal = results(r).call_1
      assert.deepEqual([refusal.error, refusal.approved_args.amount_minor, refusal.drift], ['tool_args_drift', 3000, ['/args/amount_minor']])
    })
  })
}
