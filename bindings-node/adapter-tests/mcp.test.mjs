// The MCP gateway (actionseal/adapters/mcp): host <-> gateway <-> a real McpServer, all over the
// SDK's InMemoryTransport, on real ledger files: every case of issue 12's Tests section, and the
// protocol's bypasses without the gateway (so a framework change shows up here).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ElicitRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { Gateway, IDEMPOTENCY_META, TASK_META } from 'actionseal/adapters/mcp'
import { R, REFUND_RULE, amend, assertAmendedRun, auditValid, banner, engines, freshLedger, kinds, review, sealFor } from './common.mjs'

banner('@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/types.js')
const here = dirname(fileURLToPath(import.meta.url))

/** A real MCP server: a refund, a read-only search, a refund that confirms by elicitation. */
function billing({ lieReadOnly = false } = {}) {
  const effects = []
  const metas = []
  const server = new McpServer({ name: 'billing', version: '1.0.0' })
  const refund = server.registerTool('refund_create', {
    description: 'Refund part or all of an order.',
    inputSchema: { order_id: z.string().regex(/^order-[0-9]+$/), amount_minor: z.number().int().min(1), currency: z.enum(['USD', 'EUR', 'CNY']) },
    annotations: lieReadOnly ? { readOnlyHint: true } : { destructiveHint: true },
  }, async (args, extra) => {
    effects.push({ tool: 'refund_create', ...args })
    metas.push(extra._meta ?? {})
    return { content: [{ type: 'text', text: `refunded ${args.amount_minor} ${args.currency} on ${args.order_id}` }] }
  })
  server.registerTool('order_search', { description: 'Find orders.', inputSchema: { query: z.string() }, annotations: { readOnlyHint: true } },
    async ({ query }) => {
      effects.push({ tool: 'order_search', query })
      return { content: [{ type: 'text', text: 'order-17' }] }
    })
  server.registerTool('refund_with_confirmation', {
    description: 'Refund after asking for confirmation by elicitation.',
    inputSchema: { order_id: z.string(), amount_minor: z.number().int() },
  }, async (args) => {
    const answer = await server.server.elicitInput({
      mode: 'form', message: `Refund ${args.amount_minor} on ${args.order_id}?`,
      requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
    })
    if (answer.action !== 'accept' || answer.content?.approve !== true) return { isError: true, content: [{ type: 'text', text: 'declined' }] }
    effects.push({ tool: 'refund_with_confirmation', ...args })
    return { content: [{ type: 'text', text: 'refunded' }] }
  })
  server.registerTool('close_account', { description: 'Close a customer account.', inputSchema: { account_id: z.string() }, annotations: { destructiveHint: true } },
    async (args) => {
      effects.push({ tool: 'close_account', ...args })
      return { content: [{ type: 'text', text: `closed ${args.account_id}` }] }
    })
  server.registerTool('order_tag', { description: 'Tag an order.', inputSchema: { order_id: z.string(), tags: z.record(z.string(), z.string()) } },
    async (args) => {
      effects.push({ tool: 'order_tag', ...args })
      return { content: [{ type: 'text', text: 'tagged' }] }
    })
  return { server, effects, metas, refund }
}

async function connect(server, client) {
  const [a, b] = InMemoryTransport.createLinkedPair()
  await Promise.all([server.connect(a), client.connect(b)])
  return client
}

const RULES = {
  refund_create: { approval: REFUND_RULE },
  order_search: { approval: 'never', effect: 'read' },
  refund_with_confirmation: { approval: 'always' },
  order_tag: { approval: 'never' },
  close_account: { approval: 'always' },
}

async function setup(engine, { hostCaps = { elicitation: { url: {}, form: {} } }, session = { job_id: 'mcp-session-1' }, lieReadOnly = false } = {}) {
  const { ledger, clock } = await freshLedger(engine)
  const up = billing({ lieReadOnly })
  // The gateway's own client to the real server declares no elicitation: it never answers one.
  const upstream = await connect(up.server, new Client({ name: 'actionseal-gateway', version: '0' }))
  const seal = sealFor(ledger, { executor: 'mcp-gateway' })
  const gw = new Gateway({ upstream, seal, session, serverId: 'billing', rules: RULES, reviewUrl: (t) => `https://review.example/tasks/${t.id}` })
  const host = await connect(gw.server, new Client({ name: 'host', version: '1' }, { capabilities: hostCaps }))
  // A host (or agent) that accepts every form elicitation: the gateway must never rely on it.
  const elicited = []
  if (hostCaps.elicitation) {
    host.setRequestHandler(ElicitRequestSchema, async (req) => {
      elicited.push(req.params)
      return { action: 'accept', content: { approve: true } }
    })
  }
  return { ledger, clock, up, gw, host, elicited, seal }
}

async function call(host, args, meta, name = 'refund_create') {
  try {
    return { result: await host.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }) }
  } catch (error) {
    return { error }
  }
}
const pending = (r) => r.error?.data?.elicitations?.[0]
const refusal = (r) => r.result?.structuredContent?.actionseal

for (const engine of engines()) {
  describe(`mcp gateway on ${engine}`, () => {
    it('approval required with the fingerprint and a reviewer URL; once approved, the frozen call is forwarded once', async () => {
      const { ledger, up, host, elicited } = await setup(engine)
      const first = await call(host, R(2500))
      assert.ok(first.error instanceof McpError)
      assert.equal(first.error.code, ErrorCode.UrlElicitationRequired)
      const el = pending(first)
      const task = await ledger.task(el.elicitationId)
      assert.equal(el.mode, 'url')
      assert.equal(el.url, `https://review.example/tasks/${task.id}`)
      assert.ok(el.message.includes(task.action_digest), el.message)
      assert.deepEqual([task.state, task.action.tool, task.action.args], ['awaiting_approval', 'billing.refund_create', R(2500)])
      assert.equal(up.effects.length, 0)
      // The same call again without the token is the same task, still waiting.
      assert.equal(pending(await call(host, R(2500))).elicitationId, task.id)
      // The token alone (no ledger decision) forwards nothing.
      assert.equal(pending(await call(host, R(2500), { [TASK_META]: task.id })).elicitationId, task.id)
      assert.equal(up.effects.length, 0)
      await review(ledger, task.id)
      const ok = await call(host, R(2500), { [TASK_META]: task.id })
      assert.equal(ok.result.isError, undefined)
      assert.deepEqual(up.effects, [{ tool: 'refund_create', ...R(2500) }])
      assert.equal(up.metas[0][IDEMPOTENCY_META], task.idempotency_key)
      // A replay gets the recorded answer; nothing is forwarded again.
      const replay = await call(host, R(2500), { [TASK_META]: task.id })
      assert.deepEqual(replay.result.content, ok.result.content)
      assert.equal(up.effects.length, 1)
      assert.equal(elicited.length, 0, 'the gateway asked the host a form question')
      assert.equal((await ledger.task(task.id)).state, 'succeeded')
      await auditValid(ledger)
    })

    it('a reviewer\'s amendment on the ledger before the decision: the amended call is forwarded once, the audit shows both digests', async () => {
      const { ledger, up, host, gw } = await setup(engine)
      const id = pending(await call(host, R(2500))).elicitationId
      const proposed = (await ledger.task(id)).action_digest
      await amend(ledger, id, R(2000), await gw.contractFor('refund_create'))
      await review(ledger, id)
      const ok = await call(host, R(2500), { [TASK_META]: id }) // the host retries its own call
      assert.equal(ok.result.content[0].text, 'refunded 2000 USD on order-17')
      assert.deepEqual(up.effects, [{ tool: 'refund_create', ...R(2000) }])
      await assertAmendedRun(ledger, id, proposed)
    })

    it('hosts without URL elicitation get an isError result with the same fields', async () => {
      const { ledger, up, host } = await setup(engine, { hostCaps: {} })
      const r = await call(host, R(2500))
      const a = refusal(r)
      const task = await ledger.task(a.task_id)
      assert.equal(r.result.isError, true)
      assert.deepEqual([a.error, a.fingerprint, a.url, a.args], ['approval_required', task.action_digest, `https://review.example/tasks/${task.id}`, R(2500)])
      assert.match(r.result.content[0].text, /approval_required/)
      await review(ledger, task.id)
      await call(host, R(2500), { [TASK_META]: task.id })
      assert.equal(up.effects.length, 1)
    })

    it('args changed after approval: tool_args_drift with the approved args, nothing forwarded', async () => {
      const { ledger, up, host } = await setup(engine)
      const id = pending(await call(host, R(2500))).elicitationId
      await review(ledger, id)
      const r = await call(host, R(2600), { [TASK_META]: id })
      const a = refusal(r)
      assert.deepEqual([a.error, a.approved_args, a.drift], ['tool_args_drift', R(2500), ['/args/amount_minor']])
      assert.equal(up.effects.length, 0)
      assert.ok((await kinds(ledger, id)).includes('tool_args_drift'))
      // Without the token, other args are another call: it waits for its own approval.
      const other = pending(await call(host, R(2600)))
      assert.notEqual(other.elicitationId, id)
      assert.equal(up.effects.length, 0)
    })

    it('the tool\'s inputSchema changed upstream after approval: refused, nothing forwarded', async () => {
      const { ledger, up, host } = await setup(engine)
      const id = pending(await call(host, R(2500))).elicitationId
      await review(ledger, id)
      up.refund.update({ paramsSchema: { order_id: z.string(), amount_minor: z.number().int(), currency: z.string() } })
      const a = refusal(await call(host, R(2500), { [TASK_META]: id }))
      assert.equal(a.error, 'tool_args_drift')
      assert.ok(a.drift.includes('/contract'), JSON.stringify(a.drift))
      assert.equal(up.effects.length, 0)
    })

    it('two racing approved calls forward once', async () => {
      const { ledger, up, host } = await setup(engine)
      const id = pending(await call(host, R(2500))).elicitationId
      await review(ledger, id)
      const rs = await Promise.all([1, 2, 3].map(() => call(host, R(2500), { [TASK_META]: id })))
      assert.equal(up.effects.length, 1)
      assert.ok(rs.some((r) => r.result && !r.result.isError))
      for (const r of rs.filter((x) => x.result?.isError)) assert.equal(refusal(r).error, 'already_claimed')
    })

    it('an approval that expires while paused: approval required again for the same task, nothing forwarded', async () => {
      const { ledger, clock, up, host } = await setup(engine)
      const id = pending(await call(host, R(2500))).elicitationId
      await review(ledger, id, { ttlMs: 60_000 })
      clock.advance(120_000)
      const late = await call(host, R(2500), { [TASK_META]: id })
      assert.equal(pending(late).elicitationId, id)
      assert.equal((await ledger.task(id)).state, 'awaiting_reapproval')
      assert.equal(up.effects.length, 0)
      await review(ledger, id)
      await call(host, R(2500), { [TASK_META]: id })
      await call(host, R(2500), { [TASK_META]: id })
      assert.equal(up.effects.length, 1)
    })

    it('a tool that needs no approval is forwarded at once', async () => {
      const { up, host } = await setup(engine)
      const s = await call(host, { query: 'x' }, null, 'order_search')
      const small = await call(host, R(500))
      assert.equal(s.result.content[0].text, 'order-17')
      assert.equal(small.result.content[0].text, 'refunded 500 USD on order-17')
      assert.equal(up.effects.length, 2)
    })

    it('"300" for an integer, an undeclared member, a bad pattern: clear errors, nothing forwarded', async () => {
      const { ledger, up, host } = await setup(engine)
      const bad = refusal(await call(host, R('300')))
      const extra = refusal(await call(host, R(5, { note: 'x' })))
      const pattern = refusal(await call(host, { ...R(5), order_id: 'x' }))
      assert.deepEqual([bad.error, bad.path], ['type_mismatch', '/args/amount_minor'])
      assert.match(bad.message, /nothing ran/)
      assert.equal(extra.error, 'unknown_field')
      assert.equal(pattern.error, 'pattern_mismatch')
      assert.equal(up.effects.length, 0)
      assert.deepEqual(await ledger.tasks(), [])
    })

    it('an upstream schema outside the subset (z.record): a clear error, nothing forwarded', async () => {
      const { up, host } = await setup(engine)
      const a = refusal(await call(host, { order_id: 'order-17', tags: { a: 'b' } }, null, 'order_tag'))
      assert.equal(a.error, 'unsupported_schema')
      assert.match(a.message, /argument schema of billing's tool order_tag/)
      assert.ok(a.path)
      assert.equal(up.effects.length, 0)
    })

    it('annotations decide nothing: a refund annotated readOnlyHint still needs approval', async () => {
      const { up, host } = await setup(engine, { lieReadOnly: true })
      const tools = (await host.listTools()).tools
      assert.equal(tools.find((t) => t.name === 'refund_create').annotations.readOnlyHint, true)
      assert.ok(pending(await call(host, R(90000))))
      assert.equal(up.effects.length, 0)
    })

    it('an elicitation answer is never a decision: a confirming tool runs only after a ledger approval, and its own form question is not answered', async () => {
      const { ledger, up, host, elicited } = await setup(engine)
      const args = { order_id: 'order-17', amount_minor: 90000 }
      const id = pending(await call(host, args, null, 'refund_with_confirmation')).elicitationId
      assert.equal(up.effects.length, 0)
      await review(ledger, id)
      const r = await call(host, args, { [TASK_META]: id }, 'refund_with_confirmation')
      // Forwarded once; the server's form question reached nobody who could say yes for a person.
      assert.equal(r.result.isError, true)
      assert.deepEqual([up.effects.length, elicited.length], [0, 0])
      assert.equal((await ledger.task(id)).state, 'failed')
      // Sent again: the recorded failure is the upstream's answer, given again (core's replay).
      const again = await call(host, args, { [TASK_META]: id }, 'refund_with_confirmation')
      assert.deepEqual([again.result.isError, again.result.content], [true, r.result.content])
      assert.equal(elicited.length, 0)
    })

    it('a token names a call of one tool: close_account carrying a refund\'s token is refused, before and after the refund ran', async () => {
      const { ledger, up, host } = await setup(engine)
      const id = pending(await call(host, R(2500))).elicitationId
      await review(ledger, id)
      const close = () => call(host, { account_id: 'acct-9' }, { [TASK_META]: id }, 'close_account')
      // Approved, not yet run: the refund's approved args are not shown, no drift is recorded on it.
      const early = refusal(await close())
      assert.deepEqual([early.error, early.approved_args], ['task_not_found', undefined])
      const ok = await call(host, R(2500), { [TASK_META]: id })
      // Run: the refund's recorded result is not the answer to another tool's call.
      const late = await close()
      assert.equal(refusal(late)?.error, 'task_not_found')
      assert.notDeepEqual(late.result.content, ok.result.content)
      assert.deepEqual(up.effects, [{ tool: 'refund_create', ...R(2500) }])
      assert.deepEqual((await ledger.tasks()).map((t) => t.id), [id])
      assert.ok(!(await kinds(ledger, id)).includes('tool_args_drift'))
    })

    it('tools without a rule are neither listed nor called; a token from another session is not honoured', async () => {
      const { ledger, up, host, gw } = await setup(engine)
      gw.rules = { refund_create: RULES.refund_create }
      assert.deepEqual((await host.listTools()).tools.map((t) => t.name), ['refund_create'])
      assert.equal(refusal(await call(host, { query: 'x' }, null, 'order_search')).error, 'unknown_tool')
      const id = pending(await call(host, R(2500))).elicitationId
      await review(ledger, id)
      const other = await setup(engine, { session: { job_id: 'mcp-session-2' } })
      const stolen = refusal(await call(other.host, R(2500), { [TASK_META]: id }))
      assert.equal(stolen.error, 'task_not_found')
      assert.equal(up.effects.length + other.up.effects.length, 0)
    })
  })
}

describe('mcp without the gateway (the bypasses the gateway closes)', () => {
  it('a host that answers elicitation itself runs a refund no person saw', async () => {
    const up = billing()
    const c = await connect(up.server, new Client({ name: 'host', version: '1' }, { capabilities: { elicitation: { form: {} } } }))
    c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }))
    await c.callTool({ name: 'refund_with_confirmation', arguments: { order_id: 'order-17', amount_minor: 90000 } })
    assert.equal(up.effects.length, 1)
  })

  it('annotations are the server\'s word, _meta is unchecked, the same call twice runs twice', async () => {
    const up = billing({ lieReadOnly: true })
    const c = await connect(up.server, new Client({ name: 'host', version: '1' }))
    const { tools } = await c.listTools()
    assert.equal(tools.find((t) => t.name === 'refund_create').annotations.readOnlyHint, true)
    const req = { name: 'refund_create', arguments: R(2500), _meta: { [TASK_META]: 'anything' } }
    await Promise.all([c.callTool(req), c.callTool(req)])
    assert.equal(up.effects.length, 2)
  })

  it('zod strips an undeclared member and runs', async () => {
    const up = billing()
    const c = await connect(up.server, new Client({ name: 'host', version: '1' }))
    await c.callTool({ name: 'refund_create', arguments: R(5, { note: 'x' }) })
    assert.deepEqual(up.effects, [{ tool: 'refund_create', ...R(5) }])
  })
})

describe('examples/adapters/mcp.mjs', () => {
  it('runs: approval required, then forwarded once', () => {
    const out = execFileSync(process.execPath, [join(here, '../../examples/adapters/mcp.mjs')], { encoding: 'utf8' })
    assert.match(out, /approval required: refund_create .*"amount_minor":2500/)
    assert.match(out, /review at https:\/\/review\.example\.com\/tasks\/task_[0-9a-f]+/)
    assert.match(out, /forwarded: refunded 2500 USD on order-17/)
    assert.match(out, /changed args refused: tool_args_drift/)
    assert.match(out, /upstream ran 1 time/)
  })
})
