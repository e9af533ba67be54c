// The same refund (conformance/adapters/refund.json) through one adapter per language: the Node
// AI SDK adapter here, the Python LangGraph adapter in bindings-python/adapter-tests/
// cross_refund.py (run with the Python adapters' environment, which
// bindings-python/adapters-test.sh builds). What the model reads must be the same bytes: core
// writes it (gateStep), never the adapters. The span attributes each runtime maps from the same
// ledger results must be the same too: core's table, walked by each binding.
//
// ACTIONSEAL_PYTHON_ADAPTERS names that environment's python (adapters-test.sh passes
// <repo>/target/python/adapters/venv/bin/python); ACTIONSEAL_REPO the repository. Without the
// environment the test says so and is skipped, unless ACTIONSEAL_REQUIRE_CROSS=1 (the test
// command sets it) makes that a failure.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { Seal, sealTool, sealTurns, turnOf } from 'actionseal/adapters/ai-sdk'
import { Contract, Ledger, action as freeze } from 'actionseal'
import { attributes } from 'actionseal/telemetry'
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

  it('proposes the same turn as the same batch, with the same fingerprint (LangGraph in Python, the AI SDK in Node)', async () => {
    const specPath = join(repo, 'conformance', 'adapters', 'refund.json')
    const spec = JSON.parse(readFileSync(specPath, 'utf8'))
    const turn = {
      batch: { max_items: 10 },
      calls: [
        { call_id: 'call_a', args: spec.approved },
        { call_id: 'call_b', args: { ...spec.approved, amount_minor: 4000 } },
        { call_id: 'call_c', args: { ...spec.approved, order_id: 'order-18', amount_minor: 9000 } },
      ],
    }
    const where = mkdtempSync(join(tmpdir(), 'actionseal-cross-turn-'))
    writeFileSync(join(where, 'turn.json'), JSON.stringify(turn))
    const { ledger } = await freshLedger('sqlite')
    const seal = new Seal({
      ledger,
      context: (ctx) => ({ tenant: spec.tenant, subject: spec.subject, job_id: ctx.job_id, policy_version: spec.policy_version }),
      mayApprove: (approver) => approver === spec.approver,
      mayAct: (subject) => subject === spec.subject,
    })
    const tools = {
      refund_create: await sealTool(seal, 'refund_create',
        tool({ inputSchema: jsonSchema(spec.schema), execute: async (a) => `refunded ${a.amount_minor}` }), { approval: spec.rule, batch: turn.batch }),
    }
    const ctx = { job_id: spec.job_id }
    const content = turn.calls.map((c) => ({ type: 'tool-call', toolCallId: c.call_id, toolName: 'refund_create', input: JSON.stringify(c.args) }))
    const mock = model([step(...content)])
    const r = await generateText({
      model: wrapLanguageModel({ model: mock, middleware: sealTurns(seal, tools, ctx) }),
      tools, messages: [{ role: 'user', content: 'refund' }], stopWhen: stepCountIs(3), experimental_context: ctx,
    })
    assert.equal(r.content.filter((p) => p.type === 'tool-approval-request').length, 3)
    const [b] = seal.plan(turnOf(tools, content), ctx).batches
    assert.equal((await ledger.batch(b.batch_id)).digest, b.batch_digest)
    const py = JSON.parse(execFileSync(python, [join(repo, 'bindings-python', 'adapter-tests', 'cross_turn.py'), specPath, where, join(where, 'turn.json')], { encoding: 'utf8' }))
    assert.deepEqual([py.id, py.digest, py.interrupts], [b.batch_id, b.batch_digest, 3])
  })

  it('maps the same ledger results to the same span attributes (core\'s telemetry table)', async () => {
    const spec = JSON.parse(readFileSync(join(repo, 'conformance', 'adapters', 'refund.json'), 'utf8'))
    const { ledger } = await freshLedger('sqlite')
    const ids = { tenant: spec.tenant, subject: spec.subject, job_id: 'job-t', request_id: 'call-t', policy_version: spec.policy_version }
    const contract = new Contract({ tool: 'refund_create', version: '1', effect: 'write', args: spec.schema, approval: spec.rule, cost_minor: 0 })
    const action = freeze(contract, spec.approved, ids)
    const task = await ledger.propose({ action, contract, proposer: 'agent' })
    const now = ledger.now()
    const decided = await ledger.decide({
      approval_id: task.approval_id, decision_id: 'dec-t', job_id: task.job_id, request_id: task.request_id,
      action_digest: task.action_digest, decision: 'approved', approver: spec.approver, decided_at: now, expires_at: now + 3_600_000,
    })
    const facts = {
      tenant: spec.tenant, policy_version: spec.policy_version, contract: contract.document,
      approver_authorized: { approver: spec.approver, authorized: true }, subject_authorized: { subject: spec.subject, authorized: true },
    }
    const drifted = freeze(contract, spec.cases[0].presented, ids)
    const drift = await ledger.claim({ task_id: task.id, action: drifted, facts, executor: 'w', lease_ms: 60_000 })
    const won = await ledger.claim({ task_id: task.id, action, facts, executor: 'w', lease_ms: 60_000 })
    const done = await ledger.complete({ task_id: task.id, fence: won.claim.fence, outcome: 'succeeded', executor: 'w', result: { ok: true } })
    const gate = { task, tool: 'refund_create', call_id: 'call-t', decision: 'refuse', reasons: ['tool_args_drift'] }
    const results = [['propose', task], ['decide', decided], ['claim', drift], ['claim', won], ['complete', done], ['gate', gate]]
    const schema = Ledger.telemetrySchema()
    const node = results.map(([op, r]) => attributes(schema, op, r))
    const code = 'import json, sys\nimport actionseal\nfrom actionseal import _telemetry as t\n' +
      'assert t.SCHEMA == actionseal.Ledger.telemetry_schema()\n' +
      'print(json.dumps({"schema": t.SCHEMA, "attributes": [t.attributes(op, r) for op, r in json.load(sys.stdin)]}))'
    const py = JSON.parse(execFileSync(python, ['-c', code], { input: JSON.stringify(results), encoding: 'utf8' }))
    assert.deepEqual(py.schema, schema)
    assert.deepEqual(py.attributes, node)
    assert.equal(node[2]['actionseal.outcome'], 'tool_args_drift')
    assert.ok(node.every((a) => a['gen_ai.tool.name'] === 'refund_create'))
  })
})
