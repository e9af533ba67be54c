// actionseal with the Vercel AI SDK (ai 6): a refund tool whose approval means exactly the call
// the reviewer saw. Runs offline: a scripted MockLanguageModelV3 stands in for the provider's
// model (pass your real model instead) and the ledger is a SQLite file in a temp dir.
//
//   npm install actionseal ai@6 zod && node ai-sdk.mjs
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateText, stepCountIs, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { Ledger, shortFingerprint } from 'actionseal'
import { Seal, sealTool } from 'actionseal/adapters/ai-sdk'

let bodyRuns = 0
const refund = tool({
  description: 'Refund part or all of an order.',
  inputSchema: z.object({ order_id: z.string(), amount_minor: z.number().int().min(1), currency: z.enum(['USD', 'EUR']) }),
  execute: async ({ order_id, amount_minor, currency }, { idempotencyKey }) => {
    bodyRuns += 1 // a real tool passes idempotencyKey to the payment provider
    return `refunded ${amount_minor} ${currency} on ${order_id}`
  },
})

const ledger = await Ledger.open(`sqlite:${join(mkdtempSync(join(tmpdir(), 'actionseal-example-')), 'ledger.db')}`)
// Everything trusted comes from the server's own session, never from the model or the client.
const seal = new Seal({
  ledger,
  context: (session) => ({ tenant: 'tenant-a', subject: session.user, job_id: session.chatId, policy_version: 'refund-policy-2026-08-01' }),
  mayApprove: (approver) => approver === 'user:bob',
  mayAct: (subject) => subject === 'user:alice',
})
const tools = { refund_create: await sealTool(seal, 'refund_create', refund, { approval: { when: [{ pointer: '/amount_minor', op: 'gt', value: 1000 }] } }) }
const session = { user: 'user:alice', chatId: 'chat-42' }

// The model asks for a refund of 2500: the SDK pauses with a tool-approval-request.
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const reply = (content) => ({ content, finishReason: { unified: content[0].type === 'tool-call' ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] })
const script = [reply([{ type: 'tool-call', toolCallId: 'call_1', toolName: 'refund_create', input: '{"order_id":"order-17","amount_minor":2500,"currency":"USD"}' }])]
const model = new MockLanguageModelV3({ doGenerate: async () => script.shift() ?? reply([{ type: 'text', text: 'Done.' }]) })
const ask = (messages) => generateText({ model, tools, messages, stopWhen: stepCountIs(3), experimental_context: session })

const first = await ask([{ role: 'user', content: 'Refund order-17, 25 dollars.' }])
const request = first.content.find((p) => p.type === 'tool-approval-request')
const task = await ledger.task(Ledger.taskId({ tenant: 'tenant-a', job_id: 'chat-42', request_id: request.toolCall.toolCallId }))
console.log(`paused: ${task.action.tool} ${JSON.stringify(task.action.args)}`)
console.log(`fingerprint ${task.action_digest} (short: ${shortFingerprint(task.action_digest)})`)

// The approval server (not the chat client) records Bob's decision on the ledger.
const now = ledger.now()
await ledger.decide({
  approval_id: task.approval_id, decision_id: 'dec-1', job_id: task.job_id, request_id: task.request_id,
  action_digest: task.action_digest, decision: 'approved', approver: 'user:bob', decided_at: now, expires_at: now + 15 * 60_000,
})

// The client sends back its history with the approval response. An edited history is refused…
const history = [{ role: 'user', content: 'Refund order-17, 25 dollars.' }, ...first.response.messages]
const approval = { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: true }] }
const edited = structuredClone(history)
edited[1].content.find((p) => p.type === 'tool-call').input.amount_minor = 50
const refused = await ask([...edited, approval])
// The model reads core's text: `actionseal: ` and canonical JSON.
const text = refused.response.messages.find((m) => m.role === 'tool').content.find((p) => p.type === 'tool-result').output.value
const told = JSON.parse(text.slice('actionseal: '.length))
console.log(`edited history refused: ${told.error}, approved args ${JSON.stringify(told.approved_args)}`)

// …and the history as approved runs the frozen call once.
const resumed = await ask([...history, approval])
const ran = resumed.response.messages.find((m) => m.role === 'tool').content.find((p) => p.type === 'tool-result').output.value
console.log(`ran: ${ran}`)
console.log(`refund body ran ${bodyRuns} time${bodyRuns === 1 ? '' : 's'}`)
await ledger.close()
