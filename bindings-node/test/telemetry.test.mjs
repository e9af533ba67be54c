// OpenTelemetry through the Node addon (telemetry.js), on SQLite and on PostgreSQL, with the
// SDK's in-memory span exporter and metric reader: the spans of propose, amend, decide, claim,
// complete and reconcile, of a batch's (proposeBatch, amendBatch, decideBatch, claimItem,
// completeItem, claimBatch) and of shredding's (setRetention, redact, retentionRun) carry the
// attributes core's table (`Ledger.telemetrySchema()`, the one Python reads) maps, and no
// others; a refused call has its event and an error status with its code; the counters count
// claims, refusals by reason and drift; the adapters' gate is an `execute_tool` span over the
// ledger's; no argument value reaches any of it; and without `@opentelemetry/api` nothing is
// wrapped.
//
//   scripts/pg run node --test bindings-node/test/telemetry.test.mjs

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { context, metrics, trace, SpanStatusCode } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { COMMON, Fresh, api, engines, facts, rejection } from '../../conformance/js/ledger.mjs'

const require = createRequire(import.meta.url)
const telemetry = require('../telemetry.js')
const { Seal } = await import('../adapters/seal.mjs')

const Ledger = telemetry.instrumentClass(api.Ledger)
const SCHEMA = api.Ledger.telemetrySchema()
const REFUND = COMMON.contracts.refund
const { tenant, subject, policy_version } = COMMON.ids
const ARGS = { order_id: 'order-17', amount_minor: 2500, currency: 'USD', reason: 'damaged parcel' }
const RESULT = { refund: 're_secret_991' }
// Every value of the calls' arguments and business results.
const VALUES = ['order-17', '2500', '2600', '2400', 'USD', 'damaged parcel', 're_secret_991', 'amend-note']

const spans = new InMemorySpanExporter()
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.DELTA)
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 })
before(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }))
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
})

/** The counters' points since the last read: { name: { JSON of sorted attributes: value } }. */
async function counts() {
  await reader.forceFlush()
  const out = {}
  for (const rm of metricExporter.getMetrics()) {
    for (const sm of rm.scopeMetrics) {
      for (const m of sm.metrics) {
        for (const p of m.dataPoints) {
          const key = JSON.stringify(Object.entries(p.attributes).sort())
          out[m.descriptor.name] ??= {}
          out[m.descriptor.name][key] = (out[m.descriptor.name][key] ?? 0) + p.value
        }
      }
    }
  }
  metricExporter.reset()
  return out
}
const key = (attrs) => JSON.stringify(Object.entries(attrs).sort())

/** The attributes core's table maps from `result`, walked here independently. */
function expected(op, result) {
  const at = (v, p) => (p ? p.split('/').slice(1) : []).reduce((x, t) => (x && typeof x === 'object' ? x[t] : undefined), v)
  const out = { ...(SCHEMA.constants[op] ?? {}) }
  const rows = [[result, SCHEMA.result[op] ?? {}]]
  if ('batch' in SCHEMA.ops[op]) rows.unshift([at(result, SCHEMA.ops[op].batch), SCHEMA.batch])
  if ('task' in SCHEMA.ops[op]) rows.unshift([at(result, SCHEMA.ops[op].task), SCHEMA.task])
  for (const [src, table] of rows) {
    for (const [name, p] of Object.entries(table)) {
      const v = at(src, p)
      if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) out[name] = v
    }
  }
  return out
}

/**
 * Every name, attribute value, event and status text of the spans and counter points, for the
 * checks that no argument value leaks: runs of 16 or more hex digits (digests, derived ids)
 * masked, since a value's digits occur in a digest of salted commitments by chance.
 */
const emitted = (finished, points = {}) => JSON.stringify([
  finished.map((s) => [s.name, s.attributes, s.status, s.events.map((e) => [e.name, e.attributes])]),
  points,
]).replace(/[0-9a-f]{16,}/g, '#')

const action = (args, request = 'call-1') => api.action(REFUND, args, { tenant, subject, job_id: 'job-1', request_id: request, policy_version })
const decision = (task, id, now) => ({
  approval_id: task.approval_id, decision_id: id, job_id: task.job_id, request_id: task.request_id,
  action_digest: task.action_digest, decision: 'approved', approver: COMMON.approver, decided_at: now, expires_at: now + 3_600_000,
})

const fresh = new Map()
const freshFor = (engine) => {
  if (!fresh.has(engine)) fresh.set(engine, new Fresh(engine))
  return fresh.get(engine)
}
after(() => {
  for (const f of fresh.values()) f.close()
})

describe('telemetry', () => {
  it('the table is core\'s, the same the Python binding reads', () => {
    assert.ok(telemetry.enabled)
    // Every operation of the table but the gate is a method of the ledger, by its camelCase.
    for (const op of Object.keys(SCHEMA.ops).filter((op) => op !== 'gate')) {
      const method = op.replace(/_([a-z])/g, (_, c) => c.toUpperCase())
      assert.equal(telemetry.methodOf(op), method)
      assert.equal(typeof api.Ledger.prototype[method], 'function', method)
    }
    const python = process.env.ACTIONSEAL_PYTHON
    if (python) {
      const out = execFileSync(python, ['-c', 'import actionseal, json; print(json.dumps(actionseal.Ledger.telemetry_schema()))'], { encoding: 'utf8' })
      assert.deepEqual(JSON.parse(out), SCHEMA)
    }
  })

  for (const engine of engines()) {
    it(`spans, attributes, events and counters of a refund on ${engine}`, async () => {
      spans.reset()
      await counts()
      const ledger = await Ledger.open(freshFor(engine).url())
      assert.ok(ledger instanceof api.Ledger && ledger instanceof Ledger)
      const act = action(ARGS)
      const proposed = await ledger.propose({ action: act, contract: REFUND, proposer: 'agent' })
      let task = proposed
      const amendedAct = action({ ...ARGS, amount_minor: 2400 })
      const amended = await ledger.amend({ task_id: task.id, action: amendedAct, contract: REFUND, amends: task.action_digest, reviewer: 'user:carol', reason: 'amend-note' })
      task = amended.task
      const decided = await ledger.decide(decision(task, 'd1', ledger.now()))
      const drift = await ledger.claim({ task_id: task.id, action: action({ ...ARGS, amount_minor: 2600 }), facts: facts(REFUND), executor: 'w1', lease_ms: 60_000 })
      const won = await ledger.claim({ task_id: task.id, action: amendedAct, facts: facts(REFUND), executor: 'w1', lease_ms: 60_000 })
      const refused = await rejection(ledger.claim({ task_id: task.id, action: amendedAct, facts: facts(REFUND), executor: 'w2', lease_ms: 60_000 }))
      const done = await ledger.complete({ task_id: task.id, fence: won.claim.fence, outcome: 'unknown', executor: 'w1', result: RESULT })
      const settled = await ledger.reconcile({ task_id: task.id, observed: 'succeeded', actor: 'ops', result: RESULT })
      ledger.close()
      const finished = spans.getFinishedSpans()
      const byOp = [['propose', proposed], ['amend', amended], ['decide', decided], ['claim', drift], ['claim', won], ['claim', null], ['complete', done], ['reconcile', settled]]
      assert.deepEqual(finished.map((s) => s.name), byOp.map(([op]) => SCHEMA.ops[op].span))
      byOp.forEach(([op, result], i) => {
        if (result) assert.deepEqual({ ...finished[i].attributes }, expected(op, result), op)
      })
      const [propose, amend, decide, driftSpan, wonSpan, refusedSpan, complete, reconcile] = finished
      assert.deepEqual(
        [propose.attributes['gen_ai.tool.name'], propose.attributes['gen_ai.tool.call.id'], propose.attributes['actionseal.task.id']],
        ['refund_create', 'call-1', task.id])
      assert.deepEqual(amend.attributes['actionseal.amended.pointers'], ['/args/amount_minor'])
      assert.equal(decide.attributes['actionseal.approver'], COMMON.approver)
      assert.deepEqual([driftSpan.attributes['actionseal.outcome'], driftSpan.attributes['actionseal.drift.pointers']], ['tool_args_drift', ['/args/amount_minor']])
      assert.deepEqual(driftSpan.events.map((e) => [e.name, e.attributes['actionseal.reasons']]), [[SCHEMA.refused.event, drift.verdict.reasons]])
      assert.deepEqual(wonSpan.events, [])
      assert.equal(driftSpan.status.code, SpanStatusCode.UNSET)
      assert.deepEqual([refusedSpan.status.code, refusedSpan.status.message], [SpanStatusCode.ERROR, refused.code])
      assert.deepEqual(refusedSpan.events.map((e) => [e.name, e.attributes['actionseal.reasons']]), [[SCHEMA.refused.event, [refused.code]]])
      assert.equal(complete.attributes['actionseal.outcome'], 'unknown')
      assert.equal(reconcile.attributes['actionseal.outcome'], 'succeeded')
      const names = new Set([...Object.keys(SCHEMA.task), ...Object.keys(SCHEMA.batch), ...Object.values(SCHEMA.result).flatMap(Object.keys)])
      for (const s of finished) for (const n of Object.keys(s.attributes)) assert.ok(names.has(n), n)
      const got = await counts()
      const c = (k) => SCHEMA.counters[k].name
      assert.deepEqual(got[c('claims')], {
        [key({ 'actionseal.outcome': 'tool_args_drift', 'gen_ai.tool.name': 'refund_create' })]: 1,
        [key({ 'actionseal.outcome': 'claimed', 'gen_ai.tool.name': 'refund_create' })]: 1,
      })
      assert.deepEqual(got[c('drift')], { [key({ 'gen_ai.tool.name': 'refund_create' })]: 1 })
      assert.deepEqual(got[c('refusals')], Object.fromEntries([...drift.verdict.reasons, refused.code].map((r) => [key({ 'actionseal.reason': r, 'actionseal.operation': 'claim' }), 1])))
      const text = emitted(finished, got)
      for (const v of VALUES) assert.ok(!text.includes(v), v)
      assert.ok(JSON.stringify(won).includes('order-17'), 'the check above would see a value that leaked')
    })

    it(`spans of a batch, its items claimed and completed, on ${engine}`, async () => {
      const contract = { ...REFUND, batch: { max_items: 3 } }
      const actions = [0, 1, 2].map((i) => api.action(contract, { ...ARGS, order_id: `order-1${i}` },
        { tenant, subject, job_id: 'outage-1', request_id: `refund-${i}`, policy_version }))
      spans.reset()
      await counts()
      const ledger = await Ledger.open(freshFor(engine).url())
      const proposed = await ledger.proposeBatch({ actions, contract: new api.Contract(contract), semantics: 'per_item', proposer: 'agent' })
      const amended = await ledger.amendBatch({ batch_id: proposed.id, amends: proposed.digest, deselect: [2], reviewer: 'user:carol', reason: 'amend-note' })
      const now = ledger.now()
      const decided = await ledger.decideBatch({ approval_id: amended.approval_id, decision_id: 'bd1', batch_id: amended.id,
        batch_digest: amended.digest, decision: 'approved', approver: COMMON.approver, decided_at: now, expires_at: now + 3_600_000 })
      const base = { facts: facts(contract), executor: 'w1', lease_ms: 60_000 }
      const item = proposed.items[0].task_id
      const won = await ledger.claimItem({ ...base, task_id: item, action: actions[0] })
      const done = await ledger.completeItem({ task_id: item, fence: won.claim.fence, outcome: 'succeeded', executor: 'w1', result: RESULT })
      ledger.close()
      const finished = spans.getFinishedSpans()
      const byOp = [['propose_batch', proposed], ['amend_batch', amended], ['decide_batch', decided], ['claim_item', won], ['complete_item', done]]
      assert.deepEqual(finished.map((s) => s.name), byOp.map(([op]) => SCHEMA.ops[op].span))
      byOp.forEach(([op, result], i) => assert.deepEqual({ ...finished[i].attributes }, expected(op, result), op))
      const [proposeSpan, amendSpan, decideSpan, claimSpan, completeSpan] = finished
      assert.deepEqual([proposeSpan.attributes['actionseal.batch.id'], proposeSpan.attributes['actionseal.batch.state']], [proposed.id, 'awaiting_approval'])
      assert.deepEqual([amendSpan.attributes['actionseal.batch.digest'], amendSpan.attributes['actionseal.batch.proposed_digest']], [amended.digest, proposed.digest])
      assert.deepEqual([decideSpan.attributes['actionseal.outcome'], decideSpan.attributes['actionseal.approver']], ['approved', COMMON.approver])
      assert.deepEqual([claimSpan.attributes['actionseal.outcome'], claimSpan.attributes['actionseal.task.id']], ['claimed', item])
      assert.equal(completeSpan.attributes['actionseal.outcome'], 'succeeded')
      const got = await counts()
      assert.deepEqual(got[SCHEMA.counters.claims.name], { [key({ 'actionseal.outcome': 'claimed', 'gen_ai.tool.name': 'refund_create' })]: 1 })
      const text = emitted(finished, got)
      for (const v of [...VALUES, 'order-10', 'order-11']) assert.ok(!text.includes(v), v)
    })

    it(`the span of an all-or-nothing batch claimed whole on ${engine}`, async () => {
      const contract = { ...REFUND, batch: { max_items: 2 } }
      const actions = [0, 1].map((i) => api.action(contract, { ...ARGS, order_id: `order-2${i}` },
        { tenant, subject, job_id: 'outage-2', request_id: `refund-${i}`, policy_version }))
      const ledger = await Ledger.open(freshFor(engine).url())
      const batch = await ledger.proposeBatch({ actions, contract: new api.Contract(contract), semantics: 'all_or_nothing', proposer: 'agent' })
      const now = ledger.now()
      await ledger.decideBatch({ approval_id: batch.approval_id, decision_id: 'bd2', batch_id: batch.id,
        batch_digest: batch.digest, decision: 'approved', approver: COMMON.approver, decided_at: now, expires_at: now + 3_600_000 })
      spans.reset()
      const base = { batch_id: batch.id, facts: facts(contract), executor: 'w1', lease_ms: 60_000 }
      const drifted = await ledger.claimBatch({ ...base, actions: [actions[0], { ...actions[1], args: { ...actions[1].args, amount_minor: 2600 } }] })
      const whole = await ledger.claimBatch({ ...base, actions })
      ledger.close()
      const finished = spans.getFinishedSpans()
      assert.deepEqual(finished.map((s) => s.name), [SCHEMA.ops.claim_batch.span, SCHEMA.ops.claim_batch.span])
      assert.deepEqual(finished.map((s) => ({ ...s.attributes })), [expected('claim_batch', drifted), expected('claim_batch', whole)])
      assert.deepEqual(finished.map((s) => s.attributes['actionseal.outcome']), ['tool_args_drift', 'claimed'])
      const text = emitted(finished)
      for (const v of [...VALUES, 'order-20', 'order-21']) assert.ok(!text.includes(v), v)
    })

    it(`spans of a redaction, a retention policy and a retention run on ${engine}`, async () => {
      // The reason a customer wrote, marked sensitive (issue 29).
      const contract = { ...REFUND, sensitive: { '/args/reason': 'pii' } }
      const proposed = (request) => ({ action: api.action(contract, ARGS, { tenant, subject, job_id: 'job-s', request_id: request, policy_version }), contract, proposer: 'agent' })
      spans.reset()
      const ledger = await Ledger.open(freshFor(engine).url())
      const policy = await ledger.setRetention({ tenant, class: 'pii', keep_ms: 0, at_finish: 'keep', actor: 'ops' })
      const a = await ledger.propose(proposed('call-s1'))
      await ledger.propose(proposed('call-s2'))
      const redacted = await ledger.redact({ task_id: a.id, actor: 'ops' })
      const ran = await ledger.retentionRun('ops')
      const again = await rejection(ledger.redact({ task_id: 'no-such-task', actor: 'ops' }))
      ledger.close()
      const finished = spans.getFinishedSpans()
      const byOp = [['set_retention', policy], ['propose', a], ['propose', null], ['redact', redacted], ['retention_run', ran], ['redact', null]]
      assert.deepEqual(finished.map((s) => s.name), byOp.map(([op]) => SCHEMA.ops[op].span))
      byOp.forEach(([op, result], i) => {
        if (result) assert.deepEqual({ ...finished[i].attributes }, expected(op, result), op)
      })
      const [setSpan, , , redactSpan, runSpan, refusedSpan] = finished
      assert.deepEqual(
        ['actionseal.tenant', 'actionseal.retention.class', 'actionseal.retention.at_finish', 'actionseal.actor'].map((k) => setSpan.attributes[k]),
        [tenant, 'pii', 'keep', 'ops'])
      assert.equal(redactSpan.attributes['actionseal.task.id'], a.id)
      assert.deepEqual({ ...runSpan.attributes }, {})
      assert.deepEqual([refusedSpan.status.code, refusedSpan.status.message], [SpanStatusCode.ERROR, again.code])
      const text = emitted(finished)
      for (const v of VALUES) assert.ok(!text.includes(v), v)
    })

    it(`the adapters' gate is an execute_tool span over the ledger's on ${engine}`, async () => {
      const ledger = await api.Ledger.open(freshFor(engine).url()) // raw: the Seal traces it
      const seal = new Seal({
        ledger,
        context: () => ({ tenant, subject, job_id: 'job-9', policy_version }),
        mayApprove: () => true,
        mayAct: () => true,
      })
      const contract = new api.Contract(REFUND)
      const ids = seal.ids(null, 'call-9')
      const paused = await seal.gate(contract, ARGS, ids)
      assert.equal(paused.decision, 'pause')
      await ledger.decide(decision(paused.task, 'd9', ledger.now()))
      spans.reset()
      const ran = await seal.gate(contract, ARGS, ids)
      assert.equal(ran.decision, 'run')
      const bad = await seal.gate(contract, { ...ARGS, amount_minor: '2500' }, seal.ids(null, 'call-10'))
      assert.equal(bad.decision, 'refuse')
      ledger.close()
      const finished = spans.getFinishedSpans()
      const [outer, refusedGate] = finished.filter((s) => s.name === 'execute_tool refund_create')
      assert.deepEqual(
        ['gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.tool.call.id', 'actionseal.outcome', 'actionseal.task.id'].map((k) => outer.attributes[k]),
        ['execute_tool', 'refund_create', 'call-9', 'run', paused.task.id])
      const inner = finished.filter((s) => s.parentSpanContext?.spanId === outer.spanContext().spanId).map((s) => s.name)
      assert.deepEqual(inner, ['actionseal.propose', 'actionseal.claim'])
      assert.deepEqual(refusedGate.events.map((e) => e.attributes['actionseal.reasons']), [[bad.code]])
      const text = emitted(finished)
      for (const v of VALUES) assert.ok(!text.includes(v), v)
    })
  }

  it('without @opentelemetry/api nothing is wrapped', () => {
    const code = `
      const Module = require('node:module')
      const load = Module._load
      Module._load = function (request, ...rest) {
        if (request === '@opentelemetry/api') throw Object.assign(new Error('absent'), { code: 'MODULE_NOT_FOUND' })
        return load.call(this, request, ...rest)
      }
      const t = require(${JSON.stringify(require.resolve('../telemetry.js'))})
      const { Ledger } = require(${JSON.stringify(require.resolve('../index.js'))})
      const ledger = {}
      console.log(JSON.stringify([t.enabled, t.instrumentClass(Ledger) === Ledger, t.instrumentLedger(ledger) === ledger]))
    `
    const out = execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' })
    assert.deepEqual(JSON.parse(out), [false, true, true])
  })
})
