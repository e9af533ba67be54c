// The same refund (conformance/adapters/refund.json) through one adapter per language: the Node
// AI SDK adapter here, the Python LangGraph adapter in bindings-python/adapter-tests/
// cross_refund.py (run with the Python adapters' environment, which
// bindings-python/adapters-test.sh builds). What the model reads must be the same bytes: core
// writes it (gateStep), never the adapters.
//
// ACTIONSEAL_PYTHON_ADAPTERS names that environment's python (adapters-test.sh passes
// <repo>/target/python/adapters/venv/bin/python); ACTIONSEAL_REPO the repository. Without the
// environment the test says so and is skipped, unless ACTIONSEAL_REQUIRE_CROSS=1 (the test
// command sets it) makes that a failure.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateText, jsonSchema, stepCountIs, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { Seal, sealTool } from 'actionseal/adapters/ai-sdk'
import { freshLedger } from './common.mjs'

const repo = process.env.ACTIONSEAL_REPO
const python = process.env.ACTIONSEAL_PYTHON_ADAPTERS
const ready = repo && python && existsSync(python)
if (!ready) {
  const why = `the Python adapters' environment (${python ?? 'ACTIONSEAL_PYTHON_ADAPTERS unset'}) or ACTIONSEAL_REPO is missing: run bindings-python/adapters-test.sh first`
  if (process.env.ACTIONSEAL_REQUIRE_CROSS === '1') throw new Error(`cross-language adapter test: ${why}`)
  console.log(`NOTE: cross-language adapter test SKIPPED: ${why}`)
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const step = (...content) => ({
  content, finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [],
})
const model = (steps) => new MockLanguageModelV3({ doGenerate: async () => steps.shift() ?? step({ type: 'text', text: 'done' }) })

/** What the Node AI SDK adapter gives the model for each case of the refund. */
async function nodeTexts(spec) {
  const { ledger } = await freshLedger('sqlite')
  const seal = new Seal({
    ledger,
    context: (ctx) => ({ tenant: spec.tenant, subject: spec.subject, job_id: ctx.job_id, policy_version: spec.policy_version }),
    mayApprove: (approver) => approver === spec.approver,
    mayAct: (subject) => subject === spec.subject,
  })
  const tools = {
    refund_create: await sealTool(seal, 'refund_create',
      tool({ inputSchema: jsonSchema(spec.schema), execute: async (a) => `refunded ${a.amount_minor}` }), { approval: spec.rule }),
  }
  const out = []
  for (const [n, c] of spec.cases.entries()) {
    const call = { type: 'tool-call', toolCallId: c.call_id, toolName: 'refund_create', input: JSON.stringify(spec.approved) }
    const messages = [{ role: 'user', content: 'refund' }]
    const first = await generateText({ model: model([step(call)]), tools, messages, stopWhen: stepCountIs(3), experimental_context: { job_id: spec.job_id } })
    const req = first.content.find((p) => p.type === 'tool-approval-request')
    assert.ok(req, `${c.case}: no approval was asked`)
    const task = await seal.find(seal.ids({ job_id: spec.job_id }, c.call_id))
    const now = ledger.now()
    await ledger.decide({
      approval_id: task.approval_id, decision_id: `dec-${n}`, job_id: task.job_id, request_id: task.request_id,
      action_digest: task.action_digest, decision: c.decision, approver: spec.approver, decided_at: now, expires_at: now + 3_600_000,
    })
    const history = [...messages, ...first.response.messages]
    if (c.presented) {
      for (const m of history) if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool-call') p.input = c.presented
    }
    const approval = { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: req.approvalId, approved: true }] }
    const r = await generateText({ model: model([]), tools, messages: [...history, approval], stopWhen: stepCountIs(3), experimental_context: { job_id: spec.job_id } })
    const results = r.response.messages.filter((m) => m.role === 'tool').flatMap((m) => m.content).filter((p) => p.type === 'tool-result')
    out.push({ case: c.case, text: results.at(-1).output.value })
  }
  return out
}

describe('the same refund through the Python and the Node adapters', { skip: !ready }, () => {
  it('gives the model byte-identical refusals (LangGraph in Python, the AI SDK in Node)', async () => {
    const specPath = join(repo, 'conformance', 'adapters', 'refund.json')
    const spec = JSON.parse(readFileSync(specPath, 'utf8'))
    const node = await nodeTexts(spec)
    const where = mkdtempSync(join(tmpdir(), 'actionseal-cross-'))
    const printed = execFileSync(python, [join(repo, 'bindings-python', 'adapter-tests', 'cross_refund.py'), specPath, where], { encoding: 'utf8' })
    const py = printed.trim().split('\n').map((l) => JSON.parse(l))
    assert.deepEqual(py.map((x) => x.case), spec.cases.map((c) => c.case))
    for (const [i, c] of spec.cases.entries()) {
      assert.ok(node[i].text.startsWith('actionseal: {'), `${c.case}: ${node[i].text}`)
      assert.equal(Buffer.from(node[i].text, 'utf8').toString('hex'), Buffer.from(py[i].text, 'utf8').toString('hex'),
        `${c.case}: the model reads different bytes\n  node:   ${node[i].text}\n  python: ${py[i].text}`)
    }
    const drift = JSON.parse(node[0].text.slice('actionseal: '.length))
    assert.deepEqual([drift.error, drift.approved_args], ['tool_args_drift', spec.approved])
  })
})
