// OpenTelemetry spans and counters for the ledger and the adapters' gate, when the optional
// `@opentelemetry/api` is installed; without it every export hands back what it is given (or
// runs the function it is given) and the only cost is the `require` below, tried once.
//
// What is emitted is core's table (`Ledger.telemetrySchema()`), the same in Python: span names,
// which member of an operation's result each attribute comes from (by JSON Pointer), the event
// of a refused call and the counters. This file only walks the pointers and calls the API. No
// argument value is ever read: an error's message may quote one, so a refused call records its
// code only (the status description and the event), never the message or the exception.
'use strict'

let api = null
try {
  api = require('@opentelemetry/api')
} catch {
  // The optional dependency is absent: everything below is a no-op.
}

const TRACED = Symbol('actionseal.traced')

/** The ledger method of an operation of the table (`claim_item` -> `claimItem`). */
const methodOf = (op) => op.replace(/_([a-z])/g, (_, c) => c.toUpperCase())

/** The member at an RFC 6901 pointer of the table (plain names: no unescaping), or undefined. */
function at(value, pointer) {
  for (const token of pointer ? pointer.split('/').slice(1) : []) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
    value = value[token]
  }
  return value
}

/** The value as an attribute (string, boolean, number or an array of strings), or undefined. */
function attribute(v) {
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return [...v]
  return undefined
}

/** The attributes of `op`'s span from its result, as `schema` (core's table) maps them. */
function attributes(schema, op, result) {
  const out = { ...(schema.constants[op] ?? {}) }
  const rows = [[result, schema.result[op] ?? {}]]
  for (const of of ['task', 'batch']) {
    const pointer = schema.ops[op][of]
    if (pointer !== undefined) rows.unshift([at(result, pointer), schema[of]])
  }
  for (const [source, table] of rows) {
    for (const [name, pointer] of Object.entries(table)) {
      const v = attribute(at(source, pointer))
      if (v !== undefined) out[name] = v
    }
  }
  return out
}

// The counters of the global meter provider at the time of the call (the API's meters are not
// proxies: one taken before the app registers its provider would stay a no-op).
let meterSeen = null
let counters = null
function counter(schema, key) {
  const meter = api.metrics.getMeter(schema.scope)
  if (meter !== meterSeen) {
    meterSeen = meter
    counters = {}
    for (const [k, c] of Object.entries(schema.counters)) {
      counters[k] = meter.createCounter(c.name, { unit: c.unit, description: c.description })
    }
  }
  return counters[key]
}

/** What an operation's span records when its result or refusal is known. */
class Recorder {
  constructor(schema, op, span) {
    Object.assign(this, { schema, op, span })
  }

  result(result) {
    const { schema, op } = this
    const attrs = attributes(schema, op, result)
    this.span.setAttributes(attrs)
    const reasons = attrs[schema.refused.reasons] ?? []
    if (schema.ops[op].claims) {
      const tool = attrs['gen_ai.tool.name'] ?? ''
      const outcome = attrs['actionseal.outcome'] ?? ''
      counter(schema, 'claims').add(1, { 'actionseal.outcome': outcome, 'gen_ai.tool.name': tool })
      if (outcome === 'tool_args_drift') counter(schema, 'drift').add(1, { 'gen_ai.tool.name': tool })
      if (outcome !== 'claimed') this.refused(reasons)
    } else if (op === 'gate' && attrs['actionseal.outcome'] === 'refuse') {
      this.refused(reasons, false)
    }
  }

  /** The refusal event, and one count per reason (the gate's are counted by the ledger's spans
   * under it, or are bad arguments that never reach the ledger). */
  refused(reasons, count = true) {
    const r = this.schema.refused
    this.span.addEvent(r.event, { [r.reasons]: [...reasons], [r.operation]: this.op })
    if (count) {
      for (const reason of reasons) counter(this.schema, 'refusals').add(1, { 'actionseal.reason': reason, [r.operation]: this.op })
    }
  }

  /** A thrown call: its code (an ActionsealError's) or its name, never its message. */
  error(e) {
    const code = typeof e?.code === 'string' ? e.code : (e?.name ?? 'Error')
    if (typeof e?.code === 'string') this.refused([code])
    this.span.setStatus({ code: api.SpanStatusCode.ERROR, message: code })
  }
}

/** Runs `fn(recorder)` in the span of `op` (core's name unless `name`), current meanwhile. */
function span(schema, op, fn, name = schema.ops[op].span) {
  return api.trace.getTracer(schema.scope).startActiveSpan(name, async (s) => {
    const rec = new Recorder(schema, op, s)
    try {
      return await fn(rec)
    } catch (e) {
      rec.error(e)
      throw e
    } finally {
      s.end()
    }
  })
}

/** `ledger` with a span around each operation of core's table (but the gate), or `ledger`
 * itself without the API (or when it is traced already). Every other member is the ledger's
 * own. */
function instrumentLedger(ledger) {
  if (!api || ledger[TRACED]) return ledger
  const schema = Object.getPrototypeOf(ledger).constructor.telemetrySchema()
  // Each traced method's operation, found once: every property read goes through the proxy.
  const ops = new Map(Object.keys(schema.ops).filter((op) => op !== 'gate').map((op) => [methodOf(op), op]))
  return new Proxy(ledger, {
    get(target, prop) {
      if (prop === TRACED) return true
      const v = Reflect.get(target, prop, target)
      if (typeof v !== 'function') return v
      const op = ops.get(prop)
      if (op === undefined) return v.bind(target)
      return (...args) => span(schema, op, async (rec) => {
        const out = await v.apply(target, args)
        rec.result(out)
        return out
      })
    },
  })
}

/** The `Ledger` class whose `open` gives traced ledgers (a subclass: the native `open` is a
 * read-only property); the class itself without the API. The lead wires `index.js`'s `Ledger`
 * through this. A traced ledger is an instance of both. */
function instrumentClass(Ledger) {
  if (!api) return Ledger
  const Traced = class extends Ledger {
    static async open(...args) {
      return instrumentLedger(await Ledger.open(...args))
    }

    static [Symbol.hasInstance](value) {
      return value instanceof Ledger
    }
  }
  Object.defineProperty(Traced, 'name', { value: Ledger.name })
  return Traced
}

/**
 * Runs an adapter's gate, `fn()`, in an `execute_tool {tool}` span (the GenAI semantic
 * conventions), with the ledger's spans under it; `summary(decision)` gives the record core's
 * table maps: `{ task, tool, call_id, decision, reasons }`. Without the API: `fn()`.
 */
function gateSpan(schema, tool, fn, summary) {
  if (!api) return fn()
  return span(schema, 'gate', async (rec) => {
    const d = await fn()
    rec.result(summary(d))
    return d
  }, `${schema.ops.gate.span} ${tool}`)
}

// One assignment each, so that Node's ESM loader sees every name (import { gateSpan } from ...).
exports.enabled = api !== null
exports.methodOf = methodOf
exports.attributes = attributes
exports.instrumentLedger = instrumentLedger
exports.instrumentClass = instrumentClass
exports.gateSpan = gateSpan
