// Type-checked against the packed package and the pinned frameworks by adapters-test.sh (tsc
// --noEmit --strict): the adapters' declarations describe the API the README shows.
import { Ledger } from 'actionseal'
import { Seal, type Refusal } from 'actionseal/adapters/seal'
import { sealTool as sealAiTool, sealTurns, turnOf, type Sealed, type TurnPlan } from 'actionseal/adapters/ai-sdk'
import { applyDecisions, sealTool as sealAgentsTool } from 'actionseal/adapters/openai-agents'
import { Gateway, TASK_META } from 'actionseal/adapters/mcp'
import { tool, wrapLanguageModel } from 'ai'
import { Agent, run } from '@openai/agents-core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { z } from 'zod'

interface Session { user: string, chat: string }

export async function check(): Promise<void> {
  const ledger = await Ledger.open('sqlite::memory:')
  const seal = new Seal<Session>({
    ledger,
    context: (s) => ({ tenant: 't', subject: s.user, job_id: s.chat, policy_version: 'p' }),
    mayApprove: (approver) => approver === 'user:bob',
    mayAct: async () => true,
    leaseMs: 30_000,
  })
  const refund = tool({ inputSchema: z.object({ amount_minor: z.number().int() }), execute: async ({ amount_minor }) => `refunded ${amount_minor}` })
  const sealed = await sealAiTool(seal, 'refund_create', refund, { approval: { when: [{ pointer: '/amount_minor', op: 'gt', value: 1000 }] } })
  const out: string | Sealed | undefined = await sealed.execute?.({ amount_minor: 5 }, { toolCallId: 'c1', messages: [] }) as string | Sealed
  if (typeof out === 'string' && out.startsWith('actionseal: ')) {
    const r = JSON.parse(out.slice(12)) as Refusal
    console.log(r.error, r.approved_args, r.short_fingerprint)
  }
  // A turn's parallel calls as a batch: the middleware proposes them, the plan names the batch.
  const batched = await sealAiTool(seal, 'refund_create', refund, { approval: 'always', batch: { max_items: 20 } })
  const tools = { refund_create: batched }
  const session0: Session = { user: 'user:alice', chat: 'run-0' }
  const middleware: Parameters<typeof wrapLanguageModel>[0]['middleware'] = sealTurns(seal, tools, session0)
  const plan: TurnPlan = seal.plan(turnOf(tools, [{ type: 'tool-call', toolCallId: 'c1', toolName: 'refund_create', input: '{"amount_minor":5}' }]), session0)
  console.log(middleware, plan.batches.map((b) => [b.batch_id, b.batch_digest, b.calls]))

  const agentTool = sealAgentsTool(seal, { name: 'refund_create', description: 'x', parameters: z.object({ amount_minor: z.number() }), execute: async (a: { amount_minor: number }) => a.amount_minor }, { approval: 'always', costMinor: 25 })
  const agent = new Agent<Session>({ name: 'desk', tools: [agentTool] })
  const session: Session = { user: 'user:alice', chat: 'run-1' }
  const r = await run(agent, 'x', { context: session })
  const { approved, waiting }: { approved: string[], waiting: string[] } = await applyDecisions(seal, r.state, session)
  console.log(approved, waiting)

  const gw = new Gateway({ upstream: new Client({ name: 'gw', version: '1' }), seal, session, serverId: 'billing', rules: { refund_create: { approval: 'always' } }, reviewUrl: (t) => `https://review/${t.id}` })
  const res = await gw.call({ name: 'refund_create', arguments: { amount_minor: 5 }, _meta: { [TASK_META]: 'task_x' } })
  console.log(res.isError, gw.server)
}
