// actionseal with the OpenAI Agents SDK (JS): a refund tool whose approval means exactly the call
// the reviewer saw. Runs offline: the SDK's ScriptedModel stands in for the model (use your real
// agent's model instead) and the ledger is a SQLite file in a temp dir.
//
//   npm install actionseal @openai/agents zod && node openai-agents.mjs
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, RunState, run, setTracingDisabled } from '@openai/agents-core'
import { ScriptedModel, assistantMessage, functionCall } from '@openai/agents-core/testing'
import { z } from 'zod'
import { Ledger } from 'actionseal'
import { Seal, applyDecisions, sealTool } from 'actionseal/adapters/openai-agents'

setTracingDisabled(true)
let bodyRuns = 0
const ledger = await Ledger.open(`sqlite:${join(mkdtempSync(join(tmpdir(), 'actionseal-example-')), 'ledger.db')}`)
// Everything trusted comes from the server's own run context, never from the model.
const seal = new Seal({
  ledger,
  context: (ctx) => ({ tenant: 'tenant-a', subject: ctx.user, job_id: ctx.runId, policy_version: 'refund-policy-2026-08-01' }),
  mayApprove: (approver) => approver === 'user:bob',
  mayAct: (subject) => subject === 'user:alice',
})
const refund = sealTool(seal, {
  name: 'refund_create',
  description: 'Refund part or all of an order.',
  parameters: z.object({ order_id: z.string(), amount_minor: z.number().int().min(1), currency: z.enum(['USD', 'EUR']) }),
  execute: async ({ order_id, amount_minor, currency }) => {
    bodyRuns += 1
    return `refunded ${amount_minor} ${currency} on ${order_id}`
  },
}, { approval: { when: [{ pointer: '/amount_minor', op: 'gt', value: 1000 }] } })

const model = new ScriptedModel([
  [functionCall('refund_create', { order_id: 'order-17', amount_minor: 2500, currency: 'USD' }, { callId: 'call_1' })],
  [assistantMessage('Refunded.')], [assistantMessage('Refunded.')], [assistantMessage('Refunded.')],
])
const agent = new Agent({ name: 'support-desk', model, tools: [refund] })
const context = { user: 'user:alice', runId: 'run-42' }

// The run pauses on the refund; the app keeps the state (its own storage).
const first = await run(agent, 'Refund order-17, 25 dollars.', { context })
const saved = first.state.toString()
const task = await ledger.task(Ledger.taskId({ tenant: 'tenant-a', job_id: 'run-42', request_id: first.interruptions[0].rawItem.callId }))
console.log(`paused: ${task.action.tool} ${JSON.stringify(task.action.args)}, fingerprint ${task.action_digest}`)

// RunState.approve alone is not an approval: the guardrail stops the run, nothing runs.
const forged = await RunState.fromString(agent, saved)
forged.approve(forged.getInterruptions()[0])
try {
  await run(agent, forged, { context })
} catch (e) {
  console.log(`RunState.approve alone: ${(e.error ?? e).result.output.outputInfo.error}`)
}

// The approval server records Bob's decision on the ledger; the app then approves exactly that call.
const now = ledger.now()
await ledger.decide({
  approval_id: task.approval_id, decision_id: 'dec-1', job_id: task.job_id, request_id: task.request_id,
  action_digest: task.action_digest, decision: 'approved', approver: 'user:bob', decided_at: now, expires_at: now + 15 * 60_000,
})
const state = await RunState.fromString(agent, saved)
await applyDecisions(seal, state, context)
const resumed = await run(agent, state, { context })
console.log(`ran: ${resumed.newItems.find((i) => i.type === 'tool_call_output_item').output}`)
console.log(`refund body ran ${bodyRuns} time${bodyRuns === 1 ? '' : 's'}`)
await ledger.close()
