// The Vercel AI SDK adapter (actionseal/adapters/ai-sdk) in a real generateText loop driven by
// the SDK's own MockLanguageModelV3, on real ledger files: every case of issue 12's Tests section,
// and the SDK's bypasses without the adapter (so a framework change shows up here).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateText, simulateReadableStream, stepCountIs, streamText, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { contractOf, sealTool } from 'actionseal/adapters/ai-sdk'
import { FOUR_EYES, R, REFUND_RULE, amend, assertAmendedRun, auditValid, banner, counter, engines, freshLedger, kinds, review, sealFor, taskOf } from './common.mjs'

banner('ai')
const here = dirname(fileURLToPath(import.meta.url))
const JOB = 'chat-1'
const CTX = { job_id: JOB }

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const call = (name, input, id) => ({ type: 'tool-call', toolCallId: id, toolName: name, input: typeof input === 'string' ? input : JSON.stringify(input) })
const step = (...content) => ({
  content, finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [],
})
const model = (steps) => new MockLanguageModelV3({ doGenerate: async () => steps.shift() ?? step({ type: 'text', text: 'done' }) })

const refundSchema = z.object({ order_id: z.string().regex(/^order-[0-9]+$/), amount_minor: z.number().int().min(1), currency: z.enum(['USD', 'EUR', 'CNY']) })

function rawTools() {
  const refund = counter()
  const search = counter(() => 'order-17')
  return {
    refund, search,
    tools: {
      refund_create: tool({ description: 'Refund part or all of an order.', inputSchema: refundSchema, execute: refund.body }),
      order_search: tool({ description: 'Find orders.', inputSchema: z.object({ query: z.string() }), execute: search.body }),
    },
  }
}

async function setup(engine) {
  const { ledger, clock } = await freshLedger(engine)
  const seal = sealFor(ledger)
  const raw = rawTools()
  const tools = {
    refund_create: await sealTool(seal, 'refund_create', raw.tools.refund_create, { approval: REFUND_RULE }),
    order_search: await sealTool(seal, 'order_search', raw.tools.order_search, { approval: 'never', effect: 'read' }),
  }
  return { ledger, clock, tools, refund: raw.refund, search: raw.search }
}

const user = [{ role: 'user', content: 'refund order-17' }]
const approve = (approvalId, approved = true) => ({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved }] })
async function turn(tools, steps, messages = user) {
  const r = await generateText({ model: model(steps), tools, messages, stopWhen: stepCountIs(5), experimental_context: CTX })
  return { r, history: [...messages, ...r.response.messages], req: r.content.find((p) => p.type === 'tool-approval-request') }
}
// Tools approved in the history run before the first step: their results are in the response
// messages, not in the steps.
// A refusal is core's text (`actionseal: ` and canonical JSON), what the model reads; read
// back here as `{ actionseal: payload }`.
const told = (v) => (typeof v === 'string' && v.startsWith('actionseal: ') ? { actionseal: JSON.parse(v.slice(12)) } : v)
const results = (r) => r.response.messages.filter((m) => m.role === 'tool').flatMap((m) => m.content)
  .filter((p) => p.type === 'tool-result').map((p) => told(p.output.value))
const toolErrors = (r) => r.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error')
const editInput = (history, input) => {
  for (const m of history) if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool-call') p.input = input
}

for (const engine of engines()) {
  describe(`ai-sdk adapter on ${engine}`, () => {
    it('pauses, then the approved call runs once with the frozen args', async () => {
      const { ledger, tools, refund } = await setup(engine)
      const { req, history } = await turn(tools, [step(call('refund_create', R(2500), 'call_1'))])
      const task = await taskOf(ledger, JOB, 'call_1')
      assert.ok(req, 'no tool-approval-request')
      assert.equal(req.toolCall.toolCallId, 'call_1')
      assert.deepEqual([task.state, task.action.args, refund.calls.length], ['awaiting_approval', R(2500), 0])
      await review(ledger, task.id)
      const { r } = await turn(tools, [], [...history, approve(req.approvalId)])
      assert.deepEqual(refund.calls, [R(2500)])
      assert.deepEqual(results(r), ['refunded 2500'])
      const done = await ledger.task(task.id)
      assert.deepEqual([done.state, done.result], ['succeeded', 'refunded 2500'])
      assert.deepEqual(await kinds(ledger, task.id), ['proposed', 'decided', 'propose_duplicate', 'propose_duplicate', 'claimed', 'completed'])
      await auditValid(ledger)
    })

    it('a reviewer\'s amendment on the ledger before the decision: the amended args run once, the audit shows both digests', async () => {
      const { ledger, tools, refund } = await setup(engine)
      const { req, history } = await turn(tools, [step(call('refund_create', R(2500), 'call_1'))])
      const task = await taskOf(ledger, JOB, 'call_1')
      await amend(ledger, task.id, R(2000), await contractOf('refund_create', rawTools().tools.refund_create, { approval: REFUND_RULE }))
      await review(ledger, task.id)
      // The client sends back the history it holds: the proposal, unchanged.
      const { r } = await turn(tools, [], [...history, approve(req.approvalId)])
      assert.deepEqual(refund.calls, [R(2000)])
      assert.deepEqual(results(r), ['refunded 2000'])
      const done = await ledger.task(task.id)
      assert.deepEqual([done.state, done.amendments, done.amended_pointers], ['succeeded', 1, ['/args/amount_minor']])
      await assertAmendedRun(ledger, task.id, task.action_digest)
      // Anything else than the proposal is still drift.
      const other = await setup(engine)
      const t2 = await turn(other.tools, [step(call('refund_create', R(2500), 'call_1'))])
      const id2 = (await taskOf(other.ledger, JOB, 'call_1')).id
      await amend(other.ledger, id2, R(2000), await contractOf('refund_create', rawTools().tools.refund_create, { approval: REFUND_RULE }))
      await review(other.ledger, id2)
      editInput(t2.history, R(2600))
      const { r: r2 } = await turn(other.tools, [], [...t2.history, approve(t2.req.approvalId)])
      assert.deepEqual([results(r2)[0].actionseal.error, results(r2)[0].actionseal.approved_args, other.refund.calls.length], ['tool_args_drift', R(2000), 0])
    })

    it('the idempotency key handed to the tool body is the task\'s', async () => {
      const { ledger } = await freshLedger(engine)
      const seen = []
      const t = await sealTool(sealFor(ledger), 'refund_create',
        tool({ inputSchema: refundSchema, execute: async (_a, o) => { seen.push(o.idempotencyKey); return 'ok' } }), { approval: 'never' })
      await turn({ refund_create: t }, [step(call('refund_create', R(5), 'c1'))])
      assert.deepEqual(seen, [(await taskOf(ledger, JOB, 'c1')).idempotency_key])
    })

    it('a client-written approval without a ledger decision runs nothing', async () => {
      const { ledger, tools, refund } = await setup(engine)
      const { req, history } = await turn(tools, [step(call('refund_create', R(90000), 'call_1'))])
      const { r } = await turn(tools, [], [...history, approve(req.approvalId)])
      assert.equal(refund.calls.length, 0)
      assert.equal(results(r)[0].actionseal.error, 'task_not_claimable')
      assert.equal(results(r)[0].actionseal.state, 'awaiting_approval')
      assert.equal((await taskOf(ledger, JOB, 'call_1')).state, 'awaiting_approval')
    })

    it('a partial quorum: the model reads that 1 more approval, of risk, is missing, and nothing runs', async () => {
      const { ledger } = await freshLedger(engine)
      const raw = rawTools()
      const tools = { refund_create: await sealTool(sealFor(ledger, { approvers: ['user:bob', 'user:erin'] }), 'refund_create', raw.tools.refund_create, { approval: FOUR_EYES }) }
      const { req, history } = await turn(tools, [step(call('refund_create', R(90000), 'call_1'))])
      const task = await taskOf(ledger, JOB, 'call_1')
      await review(ledger, task.id, { approver: 'user:bob', role: 'finance' })
      assert.equal((await ledger.task(task.id)).state, 'awaiting_approval', '1 of 2 is not approved')
      const { r } = await turn(tools, [], [...history, approve(req.approvalId)])
      const [said] = r.response.messages.filter((m) => m.role === 'tool').flatMap((m) => m.content).filter((p) => p.type === 'tool-result').map((p) => p.output.value)
      assert.equal(raw.refund.calls.length, 0)
      const payload = told(said).actionseal
      assert.equal(payload.message, 'refund_create is waiting for 1 more approval (awaiting_approval: 1 of 2 approvals given; roles still needed: risk); nothing ran.')
      assert.deepEqual(payload.quorum, { required: 2, given: 1, missing: 1, missing_roles: [{ role: 'risk', count: 1 }] })
      assert.ok(!said.includes('user:bob'), 'the model reads counts, not who approved')
    })

    it('input changed in the client-held history after the decision: tool_args_drift, approved args told, body count 0', async () => {
      const { ledger, tools, refund } = await setup(engine)
      const { req, history } = await turn(tools, [step(call('refund_create', R(2500), 'call_1'))])
      const task = await taskOf(ledger, JOB, 'call_1')
      await review(ledger, task.id)
      editInput(history, R(50))
      const { r } = await turn(tools, [], [...history, approve(req.approvalId)])
      const told = results(r)[0].actionseal
      assert.equal(refund.calls.length, 0)
      assert.deepEqual([told.error, told.approved_args, told.drift], ['tool_args_drift', R(2500), ['/args/amount_minor']])
      assert.match(told.message, /"amount_minor":2500/)
      assert.equal((await ledger.task(task.id)).state, 'approved', 'drift does not spend the approval')
      assert.ok((await kinds(ledger, task.id)).includes('tool_args_drift'))
      // The approved call itself still runs once afterwards.
      editInput(history, R(2500))
      await turn(tools, [], [...history, approve(req.approvalId)])
      assert.deepEqual(refund.calls, [R(2500)])
    })

    it('args regenerated by the model after approval: the same call id is drift, a new call id pauses as its own task', async () => {
      const { ledger, tools, refund } = await setup(engine)
      const { req, history } = await turn(tools, [step(call('refund_create', R(2500), 'call_1'))])
      await review(ledger, (await taskOf(ledger, JOB, 'call_1')).id)
      // A regenerated assistant message that reuses the id with other args.
      const regenerated = structuredClone(history)
      editInput(regenerated, R(2600))
      const { r } = await turn(tools, [], [...regenerated, approve(req.approvalId)])
      assert.equal(results(r)[0].actionseal.error, 'tool_args_drift')
      assert.equal(refund.calls.length, 0)
      // A regenerated call with a new id is another action: it pauses, nothing runs.
      const { r: r2 } = await turn(tools, [step(call('refund_create', R(2600), 'call_2'))], user)
      assert.ok(r2.content.some((p) => p.type === 'tool-approval-request' && p.toolCall.toolCallId === 'call_2'))
      assert.equal((await taskOf(ledger, JOB, 'call_2')).state, 'awaiting_approval')
      assert.equal(refund.calls.length, 0)
    })

    it('two racing resumes and a replay dispatch once', async () => {
      const { ledger, tools, refund } = await setup(engine)
      const { req, history } = await turn(tools, [step(call('refund_create', R(2500), 'call_1'))])
      await review(ledger, (await taskOf(ledger, JOB, 'call_1')).id)
      const msgs = [...history, approve(req.approvalId)]
      const raced = await Promise.all([turn(tools, [], msgs), turn(tools, [], msgs)])
      const { r } = await turn(tools, [], msgs)
      assert.equal(refund.calls.length, 1)
      const answers = [...raced.map((x) => results(x.r)[0]), results(r)[0]]
      assert.equal(answers.filter((a) => a === 'refunded 2500').length, 1)
      assert.deepEqual(answers.filter((a) => a !== 'refunded 2500').map((a) => a.actionseal.error), ['already_claimed', 'already_claimed'])
    })

    it('an approval that expires while paused goes back for approval as the same task; nothing runs', async () => {
      const { ledger, clock, tools, refund } = await setup(engine)
      const { req, history } = await turn(tools, [step(call('refund_create', R(2500), 'call_1'))])
      const task = await taskOf(ledger, JOB, 'call_1')
      await review(ledger, task.id, { ttlMs: 60_000 })
      clock.advance(120_000)
      const msgs = [...history, approve(req.approvalId)]
      const { r } = await turn(tools, [], msgs)
      const again = await ledger.task(task.id)
      assert.equal(refund.calls.length, 0)
      assert.equal(results(r)[0].actionseal.error, 'awaiting_reapproval')
      assert.deepEqual([again.id, again.state], [task.id, 'awaiting_reapproval'])
      assert.notEqual(again.approval_id, task.approval_id, 'a new approval round of the same task')
      // Re-approved on the ledger: the client's same approval history now dispatches once.
      await review(ledger, task.id)
      await turn(tools, [], msgs)
      await turn(tools, [], msgs)
      assert.deepEqual(refund.calls, [R(2500)])
    })

    it('the approver lost the right before dispatch (the server\'s fact, asked at the claim): nothing runs', async () => {
      const { ledger } = await freshLedger(engine)
      const raw = rawTools()
      const tools = { refund_create: await sealTool(sealFor(ledger, { approvers: [] }), 'refund_create', raw.tools.refund_create, { approval: REFUND_RULE }) }
      const { req, history } = await turn(tools, [step(call('refund_create', R(2500), 'call_1'))])
      await review(ledger, (await taskOf(ledger, JOB, 'call_1')).id)
      const { r } = await turn(tools, [], [...history, approve(req.approvalId)])
      const told = results(r)[0].actionseal
      assert.equal(raw.refund.calls.length, 0)
      assert.deepEqual([told.error, told.state, told.reasons], ['awaiting_reapproval', 'awaiting_reapproval', ['approver_unauthorized']])
    })

    it('streamText: the same sealed tool pauses, refuses an edited history and runs the approved call once', async () => {
      const { ledger, tools, refund } = await setup(engine)
      const streamed = (parts) => new MockLanguageModelV3({
        doStream: async () => ({ stream: simulateReadableStream({ chunks: [{ type: 'stream-start', warnings: [] }, ...parts, {
          type: 'finish', usage, finishReason: { unified: parts.length ? 'tool-calls' : 'stop', raw: undefined },
        }] }) }),
      })
      const stream = async (parts, messages) => {
        const r = streamText({ model: streamed(parts), tools, messages, stopWhen: stepCountIs(3), experimental_context: CTX })
        return { content: await r.content, messages: (await r.response).messages }
      }
      const first = await stream([call('refund_create', R(2500), 'call_1')], user)
      const req = first.content.find((p) => p.type === 'tool-approval-request')
      assert.ok(req)
      await review(ledger, (await taskOf(ledger, JOB, 'call_1')).id)
      const history = [...user, ...first.messages]
      const edited = structuredClone(history)
      editInput(edited, R(50))
      const toolResults = (r) => r.messages.filter((m) => m.role === 'tool').flatMap((m) => m.content).filter((p) => p.type === 'tool-result').map((p) => told(p.output.value))
      assert.equal(toolResults(await stream([], [...edited, approve(req.approvalId)]))[0].actionseal.error, 'tool_args_drift')
      assert.deepEqual(toolResults(await stream([], [...history, approve(req.approvalId)])), ['refunded 2500'])
      assert.deepEqual(refund.calls, [R(2500)])
    })

    it('a tool that needs no approval runs without a pause', async () => {
      const { ledger, tools, refund, search } = await setup(engine)
      const { r } = await turn(tools, [step(call('order_search', { query: 'x' }, 's1')), step(call('refund_create', R(500), 'c5'))])
      assert.ok(!r.content.some((p) => p.type === 'tool-approval-request'))
      assert.deepEqual([search.calls.length, refund.calls], [1, [R(500)]])
      assert.equal((await taskOf(ledger, JOB, 'c5')).state, 'succeeded')
    })

    it('"300" for an integer: type_mismatch to the model, nothing runs, nothing proposed', async () => {
      const { ledger, tools, refund } = await setup(engine)
      const { r, req } = await turn(tools, [step(call('refund_create', R('300'), 'c3'))])
      const errs = toolErrors(r)
      assert.equal(req, undefined)
      assert.equal(errs.length, 1)
      assert.match(String(errs[0].error), /type_mismatch/)
      assert.match(String(errs[0].error), /amount_minor/)
      assert.equal(refund.calls.length, 0)
      assert.deepEqual(await ledger.tasks(), [])
    })

    it('args that break the schema (an undeclared member, a bad pattern): clear errors, nothing runs', async () => {
      const { tools, refund } = await setup(engine)
      const { r } = await turn(tools, [step(call('refund_create', R(5, { note: 'x' }), 'c4')), step(call('refund_create', { ...R(5), order_id: 'x' }, 'c6'))])
      const errs = toolErrors(r).map((p) => String(p.error))
      assert.equal(errs.length, 2)
      assert.match(errs[0], /unknown_field/)
      assert.match(errs[1], /pattern_mismatch/)
      assert.equal(refund.calls.length, 0)
    })

    it('a body that outlives its lease: the answer still reaches the model, the task is in doubt', async () => {
      const { ledger, clock } = await freshLedger(engine)
      const seal = sealFor(ledger)
      const t = await sealTool(seal, 'refund_create',
        tool({ inputSchema: refundSchema, execute: async () => { clock.advance(seal.leaseMs + 1); return 'slow ok' } }), { approval: 'never' })
      const { r } = await turn({ refund_create: t }, [step(call('refund_create', R(5), 'c1'))])
      assert.equal(r.steps[0].content.find((p) => p.type === 'tool-result').output, 'slow ok')
      assert.equal((await taskOf(ledger, JOB, 'c1')).state, 'unknown')
    })

    it('a tool body that throws leaves the outcome in doubt, and it is never run again', async () => {
      const { ledger } = await freshLedger(engine)
      let runs = 0
      const t = await sealTool(sealFor(ledger), 'refund_create',
        tool({ inputSchema: refundSchema, execute: async () => { runs += 1; throw new Error('gateway timeout') } }), { approval: 'never' })
      const { r } = await turn({ refund_create: t }, [step(call('refund_create', R(5), 'c1'))])
      assert.match(String(toolErrors(r)[0].error), /gateway timeout/)
      assert.equal((await taskOf(ledger, JOB, 'c1')).state, 'unknown')
      // The model sends the same call again: spent, not retried.
      const { r: again } = await turn({ refund_create: t }, [step(call('refund_create', R(5), 'c1'))])
      const told2 = told(again.steps[0].content.find((p) => p.type === 'tool-result').output).actionseal
      assert.deepEqual([told2.error, told2.state, runs], ['already_claimed', 'unknown', 1])
    })
  })
}

describe('ai-sdk adapter: contracts', () => {
  it('the contract is the schema the SDK sends to the model, unchanged', async () => {
    const { ledger } = await freshLedger()
    const seen = []
    const raw = rawTools().tools.refund_create
    const sealed = await sealTool(sealFor(ledger), 'refund_create', raw, { approval: REFUND_RULE })
    const m = new MockLanguageModelV3({ doGenerate: async (o) => { seen.push(o.tools); return step({ type: 'text', text: 'x' }) } })
    await generateText({ model: m, tools: { refund_create: raw }, prompt: 'x' })
    await generateText({ model: m, tools: { refund_create: sealed }, prompt: 'x' })
    assert.deepEqual(seen[1][0].inputSchema, seen[0][0].inputSchema)
  })

  it('schemas outside the subset fail when the tool is sealed, with a clear error', async () => {
    const { ledger } = await freshLedger()
    const seal = sealFor(ledger)
    for (const [what, schema, code] of [
      ['z.record', z.object({ tags: z.record(z.string(), z.string()) }), 'unsupported_schema'],
      ['z.tuple', z.object({ point: z.tuple([z.number(), z.number()]) }), 'unsupported_schema'],
    ]) {
      const t = tool({ inputSchema: schema, execute: async () => 'x' })
      await assert.rejects(sealTool(seal, 'odd_tool', t, { approval: 'always' }), (e) => {
        assert.equal(e.code, code, what)
        assert.match(e.message, /argument schema of tool odd_tool/)
        assert.ok(e.path, `${what}: no path`)
        return true
      })
    }
    await assert.rejects(sealTool(seal, 'x', tool({ inputSchema: refundSchema, execute: async () => 1 }), {}), /needs an approval rule/)
  })
})

describe('ai-sdk without the adapter (the bypasses the adapter closes)', () => {
  it('input edited in the client-held history after approval runs the edited args', async () => {
    const { tools, refund } = rawTools()
    const t = { refund_create: tool({ ...tools.refund_create, needsApproval: true }) }
    const { req, history } = await turn(t, [step(call('refund_create', R(2500), 'call_1'))])
    editInput(history, R(50))
    await turn(t, [], [...history, approve(req.approvalId)])
    assert.deepEqual(refund.calls, [R(50)], 'ai no longer runs edited history: update docs/ADAPTERS.md')
  })

  it('the approval is a boolean anyone holding the history writes, and the same history runs twice', async () => {
    const { tools, refund } = rawTools()
    const t = { refund_create: tool({ ...tools.refund_create, needsApproval: true }) }
    const { req, history } = await turn(t, [step(call('refund_create', R(90000), 'call_1'))])
    const msgs = [...history, approve(req.approvalId)]
    await turn(t, [], msgs)
    await turn(t, [], msgs)
    assert.deepEqual(refund.calls, [R(90000), R(90000)])
  })

  it('zod strips an undeclared member and runs', async () => {
    const { tools, refund } = rawTools()
    await turn(tools, [step(call('refund_create', R(5, { note: 'x' }), 'c1'))])
    assert.deepEqual(refund.calls, [R(5)])
  })
})

describe('examples/adapters/ai-sdk.mjs', () => {
  it('runs and prints the approved refund once', () => {
    const out = execFileSync(process.execPath, [join(here, '../../examples/adapters/ai-sdk.mjs')], { encoding: 'utf8' })
    assert.match(out, /paused: refund_create .*"amount_minor":2500/)
    assert.match(out, /fingerprint sha256:[0-9a-f]{64}/)
    assert.match(out, /ran: refunded 2500 USD on order-17/)
    assert.match(out, /edited history refused: tool_args_drift/)
    assert.match(out, /refund body ran 1 time/)
  })
})

