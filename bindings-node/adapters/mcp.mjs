// actionseal for MCP (TypeScript SDK 1.x): a gateway between an MCP client (the host) and a
// real MCP server that gates tools/call.
//
//   const gw = new Gateway({ upstream: client, seal, session, serverId: 'billing', rules, reviewUrl })
//   await gw.server.connect(hostTransport)
//
// - tools/list: the upstream tools that have a rule in the gateway's config, schemas unchanged.
//   A tool without a rule is neither listed nor called. Annotations (readOnlyHint, ...) are
//   the server's hints and never decide anything.
// - tools/call: freezes the server (in the tool name `<serverId>.<tool>`), the tool, the args
//   and the upstream inputSchema as it is now (the contract's digest), proposes it, and while
//   no person has approved answers "approval required" with the fingerprint and the reviewer's
//   URL: a URL elicitation (-32042) when the host supports it, else an isError result with the
//   same fields. Nothing is forwarded.
// - The host retries with `_meta["io.actionseal/task"]` = the task id: a pointer, never a
//   credential (it must be this session's task of the tool called; the authority is the
//   ledger's decision). The gateway claims with the args presented and forwards exactly the
//   frozen args, once, with the task's idempotency key in `_meta["io.actionseal/idempotency_key"]`;
//   a replay gets the recorded result; other args are refused as tool_args_drift with the
//   approved args.
// - The gateway never asks for or reads elicitation answers: a form answer may come from the
//   agent itself and is never a person's decision.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js'
import { Seal, compileContract, contractDocument, fingerprint, gateStep, say, shortFingerprint, outcome, unrouted, unserved } from './seal.mjs'

export { Seal }

export const TASK_META = 'io.actionseal/task'
export const REQUEST_META = 'io.actionseal/request'
export const IDEMPOTENCY_META = 'io.actionseal/idempotency_key'

// What the model reads is core's text (canonical JSON); a refusal of the gateway's own is
// written the same way.
const answer = (text, obj) => ({ isError: true, content: [{ type: 'text', text }], structuredContent: { actionseal: obj } })
const refused = (obj) => answer(say(obj), obj)
const answered = (d) => answer(d.message, d.refusal)

export class Gateway {
  constructor({ upstream, seal, session, serverId, rules, reviewUrl, info = { name: 'actionseal-gateway', version: '0.1.0' } }) {
    if (!(seal instanceof Seal)) throw new TypeError('actionseal: Gateway needs a Seal')
    for (const [k, v] of Object.entries({ upstream, serverId, rules, reviewUrl })) {
      if (!v) throw new TypeError(`actionseal: Gateway needs ${k}`)
    }
    Object.assign(this, { upstream, seal, session, serverId, rules, reviewUrl })
    this.server = new Server(info, { capabilities: { tools: {} } })
    this.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await this.#upstreamTools()).filter((t) => t.name in this.rules) }))
    this.server.setRequestHandler(CallToolRequestSchema, (req) => this.call(req.params))
  }

  async #upstreamTools() {
    const tools = []
    let cursor
    do {
      const page = await this.upstream.listTools(cursor ? { cursor } : {})
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor)
    return tools
  }

  /** The contract of a governed tool as the upstream describes it now, or null. */
  async contractFor(name) {
    if (!Object.hasOwn(this.rules, name)) return null
    const t = (await this.#upstreamTools()).find((x) => x.name === name)
    if (!t) return null
    return contractDocument(`${this.serverId}.${name}`, t.inputSchema, this.rules[name])
  }

  /** Handles one tools/call (the host's request params). */
  async call({ name, arguments: args = {}, _meta = {} }) {
    const doc = await this.contractFor(name)
    if (!doc) return answered(unrouted(name, 'tool'))
    let contract
    try {
      contract = compileContract(doc, `${this.serverId}'s tool ${name}`)
    } catch (e) {
      return answered(unserved(name, e))
    }
    const ids = this.seal.context(this.session)
    const token = _meta?.[TASK_META]
    let task = null
    if (token !== undefined) {
      task = await this.#sessionTask(token, ids, `${this.serverId}.${name}`)
      if (!task) return answered(unrouted(name, 'task'))
    }
    const requestId = task?.request_id ?? _meta?.[REQUEST_META] ?? `call-${fingerprint({ tool: name, args }).slice(7, 39)}`
    const g = await this.seal.gate(contract, args, this.seal.ids(this.session, requestId), task)
    if (g.decision === 'pause') return this.#approvalRequired(g.task)
    if (g.decision === 'refuse') {
      // A replay of a finished call: the recorded answer, no second effect.
      if (g.replay !== undefined) return g.replay
      return answered(g)
    }
    return this.seal.dispatch(
      g.claim,
      (frozenArgs) => this.upstream.callTool({ name, arguments: frozenArgs, _meta: { [IDEMPOTENCY_META]: g.claim.idempotency_key } }),
      // An error the upstream reports is its answer: core records it as failed, with the answer.
      (result) => outcome(result.isError ? 'reported_error' : 'returned'),
      g.unit,
    )
  }

  /**
   * The task a token names, if it is this session's call of `tool`; null otherwise (no
   * oracle). Another tool's task would answer this call with its approved args or its
   * recorded result.
   */
  async #sessionTask(token, ids, tool) {
    if (typeof token !== 'string') return null
    try {
      const t = await this.seal.ledger.task(token)
      return t.tenant === ids.tenant && t.job_id === ids.job_id && t.action.tool === tool ? t : null
    } catch (e) {
      if (e?.code === 'task_not_found' || e?.code === 'invalid_request') return null
      throw e
    }
  }

  #approvalRequired(task) {
    const tool = task.action.tool.slice(this.serverId.length + 1)
    const short = shortFingerprint(task.action_digest)
    const { url, message } = gateStep({ step: 'elicit', task, url: this.reviewUrl(task) })
    if (this.server.getClientCapabilities()?.elicitation?.url) {
      throw new UrlElicitationRequiredError([{ mode: 'url', elicitationId: task.id, url, message }], `approval required: ${task.id}`)
    }
    return refused({
      error: 'approval_required', task_id: task.id, state: task.state, tool, args: task.action.args,
      fingerprint: task.action_digest, short, url, message,
    })
  }
}
