// The OpenAI Agents SDK adapter (actionseal/adapters/openai-agents) in a real run() loop driven by
// the SDK's own ScriptedModel, on real ledger files: every case of issue 12's Tests section,
// and the SDK's bypasses without the adapter (so a framework change shows up here).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, RunState, ToolGuardrailFunctionOutputFactory as G, defineToolInputGuardrail, run, setTracingDisabled, tool } from '@openai/agents-core'
import { ScriptedModel, assistantMessage, functionCall } from '@openai/agents-core/testing'
import { z } from 'zod'
import { applyDecisions, sealTool } from 'actionseal/adapters/openai-agents'
import { contractDocument } from 'actionseal/adapters/seal'
import { R, REFUND_RULE, amend, assertAmendedRun, auditValid, banner, counter, engines, freshLedger, kinds, review, sealFor, taskOf } from './common.mjs'

banner('@openai/agents-core')
setTracingDisabled(true)
const here = dirname(fileURLToPath(import.meta.url))
const JOB = 'run-1'
const CTX = { job_id: JOB }

const refundParams = z.object({ order_id: z.string().regex(/^order-[0-9]+$/), amount_minor: z.number().int().min(1), currency: z.enum(['USD', 'EUR', 'CNY']) })
const fc = (args, callId = 'call_1') => [functionCall('refund_create', typeof args === 'number' ? R(args) : args, { callId })]
const done = () => Array.from({ length: 4 }, () => [assistantMessage('done')])

async function setup(engine, ...steps) {
  const { ledger, clock } = await freshLedger(engine)
  const seal = sealFor(ledger, { executor: 'agents-worker' })
  const refund = counter()
  const search = counter(() => 'order-17')
  const agent = new Agent({
    name: 'desk',
    model: new ScriptedModel([...steps, ...done()]),
    tools: [
      sealTool(seal, { name: 'refund_create', description: 'Refund part or all of an order.', parameters: refundParams, execute: refund.body }, { approval: REFUND_RULE }),
      sealTool(seal, { name: 'order_search', description: 'Find orders.', parameters: z.object({ query: z.string() }), execute: search.body }, { approval: 'never', effect: 'read' }),
    ],
  })
  return { ledger, clock, seal, agent, refund, search }
}
const first = (agent) => run(agent, 'refund order-17', { context: { ...CTX } })
const resume = (agent, state) => run(agent, state, { context: { ...CTX } })
const outputs = (r) => r.newItems.filter((i) => i.type === 'tool_call_output_item').map((i) => String(i.output))
/** The guardrail's stop: the run rejects with ToolCallError wrapping the tripwire. */
async function stopped(p) {
  try {
    await p
  } catch (e) {
    const t = e.error ?? e
    return t.result?.output?.outputInfo ?? { message: t.message }
  }
  assert.fail('the run did not stop')
}
/** A saved RunState with the approved call's args edited, and the SDK's own binding rewritten. */
const tamper = (s, from, to) => s.replaceAll(`\\"amount_minor\\":${from}`, `\\"amount_minor\\":${to}`)
  .replaceAll(`openai-agents-json:number:${from / 100}e2`, `openai-agents-json:number:${to / 10}e1`)

for (const engine of engines()) {
  describe(`openai-agents adapter on ${engine}`, () => {
    it('pauses, then the approved call runs once with the frozen args', async () => {
      const { ledger, seal, agent, refund } = await setup(engine, fc(2500))
      const r = await first(agent)
      const task = await taskOf(ledger, JOB, 'call_1')
      assert.deepEqual([r.interruptions.length, task.state, task.action.args, refund.calls.length], [1, 'awaiting_approval', R(2500), 0])
      await review(ledger, task.id)
      assert.deepEqual(await applyDecisions(seal, r.state, CTX), { approved: [task.id], rejected: [], waiting: [] })
      const r2 = await resume(agent, r.state)
      assert.deepEqual(refund.calls, [R(2500)])
      assert.deepEqual(outputs(r2), ['refunded 2500'])
      assert.equal((await ledger.task(task.id)).state, 'succeeded')
      assert.ok((await kinds(ledger, task.id)).includes('completed'))
      await auditValid(ledger)
    })

    it('a reviewer\'s amendment on the ledger before the decision: the amended args run once, the audit shows both digests', async () => {
      const { ledger, seal, agent, refund } = await setup(engine, fc(2500))
      const r = await first(agent)
      const task = await taskOf(ledger, JOB, 'call_1')
      const doc = contractDocument('refund_create', tool({ name: 'refund_create', description: 'x', parameters: refundParams, execute: async () => 1 }).parameters, { approval: REFUND_RULE })
      await amend(ledger, task.id, R(2000), doc)
      await review(ledger, task.id)
      await applyDecisions(seal, r.state, CTX)
      const r2 = await resume(agent, r.state) // the state still holds the proposal, unchanged
      assert.deepEqual(refund.calls, [R(2000)])
      assert.deepEqual(outputs(r2), ['refunded 2000'])
      await assertAmendedRun(ledger, task.id, task.action_digest)
    })

    it('a streamed run pauses the same way, and the approved call runs once', async () => {
      const { ledger, seal, agent, refund } = await setup(engine, fc(2500))
      const drain = async (r) => {
        for await (const _event of r) { /* the events a UI would render */ }
        await r.completed
        return r
      }
      const r = await drain(await run(agent, 'refund order-17', { context: { ...CTX }, stream: true }))
      assert.deepEqual([r.interruptions.length, refund.calls.length], [1, 0])
      await review(ledger, (await taskOf(ledger, JOB, 'call_1')).id)
      await applyDecisions(seal, r.state, CTX)
      await drain(await run(agent, r.state, { context: { ...CTX }, stream: true }))
      assert.deepEqual(refund.calls, [R(2500)])
    })

    it('RunState.approve without a ledger decision runs nothing', async () => {
      const { ledger, agent, refund } = await setup(engine, fc(90000))
      const r = await first(agent)
      r.state.approve(r.interruptions[0])
      const info = await stopped(resume(agent, r.state))
      assert.deepEqual([info.error, info.state, refund.calls.length], ['task_not_claimable', 'awaiting_approval', 0])
      assert.equal((await taskOf(ledger, JOB, 'call_1')).state, 'awaiting_approval')
    })

    it('args changed in the saved state after the decision: tool_args_drift, approved args told, body count 0', async () => {
      const { ledger, seal, agent, refund } = await setup(engine, fc(2500))
      const r = await first(agent)
      const task = await taskOf(ledger, JOB, 'call_1')
      await review(ledger, task.id)
      await applyDecisions(seal, r.state, CTX)
      const edited = tamper(r.state.toString(), 2500, 50)
      assert.notEqual(edited, r.state.toString())
      const r2 = await resume(agent, await RunState.fromString(agent, edited))
      const told = JSON.parse(outputs(r2)[0].replace(/^actionseal: /, ''))
      assert.deepEqual([told.error, told.approved_args, told.drift], ['tool_args_drift', R(2500), ['/args/amount_minor']])
      assert.equal(refund.calls.length, 0)
      assert.equal((await ledger.task(task.id)).state, 'approved')
    })

    it('args regenerated by the model after approval are a new call: it pauses, the approval does not cover it', async () => {
      const { ledger, agent, refund } = await setup(engine, fc(2500, 'call_1'), fc(2600, 'call_2'))
      const r = await first(agent)
      await review(ledger, (await taskOf(ledger, JOB, 'call_1')).id)
      // "always approve" in the SDK is no standing approval either.
      r.state.approve(r.interruptions[0], { alwaysApprove: true })
      const info = await stopped(resume(agent, r.state))
      assert.deepEqual(refund.calls, [R(2500)])
      assert.deepEqual([info.error, (await taskOf(ledger, JOB, 'call_2')).state], ['task_not_claimable', 'awaiting_approval'])
    })

    it('two racing resumes of one saved state and a third dispatch once', async () => {
      const { ledger, seal, agent, refund } = await setup(engine, fc(2500))
      const r = await first(agent)
      await review(ledger, (await taskOf(ledger, JOB, 'call_1')).id)
      await applyDecisions(seal, r.state, CTX)
      const saved = r.state.toString()
      const raced = await Promise.all([1, 2].map(async () => resume(agent, await RunState.fromString(agent, saved))))
      const third = await resume(agent, await RunState.fromString(agent, saved))
      assert.equal(refund.calls.length, 1)
      const answers = [...raced, third].map((x) => outputs(x)[0])
      assert.equal(answers.filter((a) => a === 'refunded 2500').length, 1)
      assert.equal(answers.filter((a) => a.includes('"error":"already_claimed"')).length, 2)
    })

    it('an app guardrail that stops the approved call runs before the claim: once it lets it pass, the call runs once', async () => {
      const { ledger } = await freshLedger(engine)
      const seal = sealFor(ledger, { executor: 'agents-worker' })
      const refund = counter()
      let open = false
      const appGuard = defineToolInputGuardrail({
        name: 'rate-limit',
        run: async () => (open ? G.allow() : G.throwException({ message: 'rate limited, try later' })),
      })
      const agent = new Agent({
        name: 'desk',
        model: new ScriptedModel([fc(2500), ...done()]),
        tools: [sealTool(seal, { name: 'refund_create', description: 'Refund.', parameters: refundParams, execute: refund.body, inputGuardrails: [appGuard] }, { approval: REFUND_RULE })],
      })
      const r = await first(agent)
      const task = await taskOf(ledger, JOB, 'call_1')
      await review(ledger, task.id)
      await applyDecisions(seal, r.state, CTX)
      const saved = r.state.toString()
      await stopped(resume(agent, await RunState.fromString(agent, saved)))
      assert.deepEqual([(await ledger.task(task.id)).state, refund.calls.length], ['approved', 0], 'nothing was claimed')
      open = true
      const r2 = await resume(agent, await RunState.fromString(agent, saved))
      assert.deepEqual([outputs(r2), refund.calls], [['refunded 2500'], [R(2500)]])
      assert.equal((await ledger.task(task.id)).state, 'succeeded')
      await auditValid(ledger)
    })

    it('an approval that expires while paused goes back for approval as the same task; nothing runs', async () => {
      const { ledger, clock, seal, agent, refund } = await setup(engine, fc(2500))
      const r = await first(agent)
      const task = await taskOf(ledger, JOB, 'call_1')
      const saved = r.state.toString()
      await review(ledger, task.id, { ttlMs: 60_000 })
      let state = await RunState.fromString(agent, saved)
      await applyDecisions(seal, state, CTX)
      clock.advance(120_000)
      const info = await stopped(resume(agent, state))
      const again = await ledger.task(task.id)
      assert.deepEqual([info.error, info.task_id, again.state, refund.calls.length], ['awaiting_reapproval', task.id, 'awaiting_reapproval', 0])
      // Nothing to approve in the kept state until a person decides again.
      state = await RunState.fromString(agent, saved)
      assert.deepEqual((await applyDecisions(seal, state, CTX)).waiting, [task.id])
      await review(ledger, task.id)
      state = await RunState.fromString(agent, saved)
      await applyDecisions(seal, state, CTX)
      await resume(agent, state)
      assert.deepEqual(refund.calls, [R(2500)])
    })

    it('a person\'s rejection is told to the model; nothing runs', async () => {
      const { ledger, seal, agent, refund } = await setup(engine, fc(90000))
      const r = await first(agent)
      const task = await taskOf(ledger, JOB, 'call_1')
      await review(ledger, task.id, { decision: 'rejected' })
      assert.deepEqual((await applyDecisions(seal, r.state, CTX)).rejected, [task.id])
      const r2 = await resume(agent, r.state)
      // Core's rejection, as the Python adapters tell it (gate_step's resume step).
      const told = JSON.parse(outputs(r2)[0].slice('actionseal: '.length))
      assert.deepEqual([told.error, told.state, told.task_id], ['rejected', 'rejected', task.id])
      assert.equal(refund.calls.length, 0)
    })

    it('a tool that needs no approval runs without a pause', async () => {
      const { agent, refund, search } = await setup(engine, [functionCall('order_search', { query: 'x' }, { callId: 's1' })], fc(500, 'c5'))
      const r = await first(agent)
      assert.equal(r.interruptions.length, 0)
      assert.deepEqual([search.calls.length, refund.calls], [1, [R(500)]])
    })

    it('"300" for an integer: type_mismatch to the model, no pause, nothing runs', async () => {
      const { ledger, agent, refund } = await setup(engine, fc(R('300'), 'c3'))
      const r = await first(agent)
      const told = JSON.parse(outputs(r)[0].replace(/^actionseal: /, ''))
      assert.deepEqual([r.interruptions.length, told.error, told.path, refund.calls.length], [0, 'type_mismatch', '/args/amount_minor', 0])
      assert.deepEqual(await ledger.tasks(), [])
    })

    it('args that break the schema (an undeclared member, duplicate keys in the raw text): refused, nothing runs', async () => {
      const { ledger, seal, agent, refund } = await setup(engine,
        fc(R(5, { note: 'x' }), 'c4'),
        fc('{"order_id":"order-17","amount_minor":5,"amount_minor":5000,"currency":"USD"}', 'd1'))
      const r = await first(agent)
      assert.match(outputs(r)[0], /unknown_field/)
      // JSON.parse keeps the last duplicate (5000 needs a person): refused at dispatch anyway.
      const task = await taskOf(ledger, JOB, 'd1')
      await review(ledger, task.id)
      await applyDecisions(seal, r.state, CTX)
      const r2 = await resume(agent, r.state)
      assert.match(outputs(r2).at(-1), /duplicate_key/)
      assert.equal(refund.calls.length, 0)
    })
  })
}

describe('openai-agents adapter: contracts', () => {
  it('the contract is the schema the SDK derives, unchanged; schemas outside the subset fail at sealTool', async () => {
    const { ledger } = await freshLedger()
    const seal = sealFor(ledger)
    const opts = { name: 'refund_create', description: 'x', parameters: refundParams, execute: async () => 'x' }
    const sealed = sealTool(seal, opts, { approval: 'always' })
    assert.deepEqual(sealed.parameters, tool(opts).parameters)
    assert.throws(() => sealTool(seal, { ...opts, name: 'odd', parameters: z.object({ p: z.tuple([z.number(), z.number()]) }) }, { approval: 'always' }),
      (e) => e.code === 'unsupported_schema' && /argument schema of tool odd/.test(e.message) && !!e.path)
  })
})

describe('openai-agents without the adapter (the bypasses the adapter closes)', () => {
  const plain = (...steps) => {
    const refund = counter()
    const agent = new Agent({
      name: 'desk', model: new ScriptedModel([...steps, ...done()]),
      tools: [tool({ name: 'refund_create', description: 'x', parameters: refundParams, needsApproval: true, execute: refund.body })],
    })
    return { agent, refund }
  }

  it('a saved state edited after approval (args and the SDK binding) runs the edited args', async () => {
    const { agent, refund } = plain(fc(2500))
    const r = await run(agent, 'x')
    r.state.approve(r.interruptions[0])
    await run(agent, await RunState.fromString(agent, tamper(r.state.toString(), 2500, 50)))
    assert.deepEqual(refund.calls, [R(50)])
  })

  it('alwaysApprove covers a later call with other args', async () => {
    const { agent, refund } = plain(fc(2500, 'call_1'), fc(99999, 'call_2'))
    const r = await run(agent, 'x')
    r.state.approve(r.interruptions[0], { alwaysApprove: true })
    await run(agent, r.state)
    assert.deepEqual(refund.calls, [R(2500), R(99999)])
  })

  it('approval records copied into a state by its holder run a call no person saw', async () => {
    const { agent, refund } = plain(fc(90000))
    const r = await run(agent, 'x')
    const other = plain(fc(90000))
    const o = await run(other.agent, 'x')
    o.state.approve(o.interruptions[0])
    const d = JSON.parse(r.state.toString())
    const approved = JSON.parse(o.state.toString())
    d.context.functionApprovals = approved.context.functionApprovals
    d.context.approvalInvocations = approved.context.approvalInvocations
    await run(agent, await RunState.fromString(agent, JSON.stringify(d)))
    assert.deepEqual(refund.calls, [R(90000)])
  })
})

describe('examples/adapters/openai-agents.mjs', () => {
  it('runs: paused, RunState.approve alone refused, then ran once', () => {
    const out = execFileSync(process.execPath, [join(here, '../../examples/adapters/openai-agents.mjs')], { encoding: 'utf8' })
    assert.match(out, /paused: refund_create .*"amount_minor":2500/)
    assert.match(out, /RunState.approve alone: task_not_claimable/)
    assert.match(out, /ran: refunded 2500 USD on order-17/)
    assert.match(out, /refund body ran 1 time/)
  })
})
