// actionseal as an MCP gateway: the host talks to the gateway, the gateway to the real server,
// and a governed tools/call reaches the server only as the exact call a person approved, once.
// Runs offline over the SDK's in-memory transports; the ledger is a SQLite file in a temp dir.
//
//   npm install actionseal @modelcontextprotocol/sdk zod && node mcp.mjs
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { z } from 'zod'
import { Ledger } from 'actionseal'
import { Gateway, Seal, TASK_META } from 'actionseal/adapters/mcp'

// The real server (normally another process: connect the gateway's Client over stdio or HTTP).
let upstreamRuns = 0
const billing = new McpServer({ name: 'billing', version: '1.0.0' })
billing.registerTool('refund_create', {
  description: 'Refund part or all of an order.',
  inputSchema: { order_id: z.string(), amount_minor: z.number().int().min(1), currency: z.enum(['USD', 'EUR']) },
}, async ({ order_id, amount_minor, currency }) => {
  upstreamRuns += 1
  return { content: [{ type: 'text', text: `refunded ${amount_minor} ${currency} on ${order_id}` }] }
})
async function link(server, client) {
  const [a, b] = InMemoryTransport.createLinkedPair()
  await Promise.all([server.connect(a), client.connect(b)])
  return client
}
const upstream = await link(billing, new Client({ name: 'actionseal-gateway', version: '1.0.0' }))

// The gateway: its rules and the trusted session come from its own configuration and auth.
const ledger = await Ledger.open(`sqlite:${join(mkdtempSync(join(tmpdir(), 'actionseal-example-')), 'ledger.db')}`)
const seal = new Seal({
  ledger,
  context: (session) => ({ tenant: 'tenant-a', subject: session.user, job_id: session.id, policy_version: 'refund-policy-2026-08-01' }),
  mayApprove: (approver) => approver === 'user:bob',
  mayAct: (subject) => subject === 'user:alice',
  executor: 'mcp-gateway',
})
const gateway = new Gateway({
  upstream, seal, session: { user: 'user:alice', id: 'mcp-session-7' }, serverId: 'billing',
  rules: { refund_create: { approval: { when: [{ pointer: '/amount_minor', op: 'gt', value: 1000 }] } } },
  reviewUrl: (task) => `https://review.example.com/tasks/${task.id}`,
})

// The host (an agent's MCP client) supports URL elicitation.
const host = await link(gateway.server, new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } }))
const args = { order_id: 'order-17', amount_minor: 2500, currency: 'USD' }
let taskId
try {
  await host.callTool({ name: 'refund_create', arguments: args })
} catch (e) { // -32042: URL elicitation required
  const [el] = e.data.elicitations
  taskId = el.elicitationId
  const task = await ledger.task(taskId)
  console.log(`approval required: refund_create ${JSON.stringify(task.action.args)}, fingerprint ${task.action_digest}`)
  console.log(`review at ${el.url}`)
}

// The review page records Bob's decision on the ledger (never an elicitation answer).
const task = await ledger.task(taskId)
const now = ledger.now()
await ledger.decide({
  approval_id: task.approval_id, decision_id: 'dec-1', job_id: task.job_id, request_id: task.request_id,
  action_digest: task.action_digest, decision: 'approved', approver: 'user:bob', decided_at: now, expires_at: now + 15 * 60_000,
})

// The host retries with the task id in _meta. Other args are refused; the approved ones run once.
const changed = await host.callTool({ name: 'refund_create', arguments: { ...args, amount_minor: 9000 }, _meta: { [TASK_META]: taskId } })
console.log(`changed args refused: ${changed.structuredContent.actionseal.error}`)
const done = await host.callTool({ name: 'refund_create', arguments: args, _meta: { [TASK_META]: taskId } })
console.log(`forwarded: ${done.content[0].text}`)
await host.callTool({ name: 'refund_create', arguments: args, _meta: { [TASK_META]: taskId } }) // a replay: the recorded answer
console.log(`upstream ran ${upstreamRuns} time${upstreamRuns === 1 ? '' : 's'}`)
await ledger.close()
