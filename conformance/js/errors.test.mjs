// Error parity in a JavaScript runtime: the package exports the ActionsealError class that
// every function throws (`instanceof` works), its `code`, `path` and `offset` are what the
// TypeScript declarations (and the Python stub) say, and every code of conformance/codes.json
// is raised by some call of this package. The calls come from the vectors: the first one that
// raises each code.
//
//   ACTIONSEAL_RUNTIME=node|node-fallback|wasm-node|chromium node --test conformance/js/errors.test.mjs

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import canonicalizeNpm from 'canonicalize'
import { batchOps, redactionOps, codes, notAnActionsealError, openEngine, proofOp, quorumOps, run, runtime, show, vectors } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

/**
 * The codes only a ledger raises. The other amend_* codes are `amend`'s, which every runtime
 * has: they come from the amend vectors.
 */
const LEDGER_CODES = [
  'task_not_found', 'approval_not_found', 'budget_not_found', 'task_conflict', 'decision_conflict',
  'decision_mismatch', 'task_not_awaiting_decision', 'already_claimed', 'task_not_claimable',
  'task_not_claimed', 'task_not_in_doubt', 'stale_fence', 'lease_expired',
  'invalid_decision', 'invalid_ledger_url', 'ledger_unavailable', 'not_a_ledger',
  'ledger_schema_too_new', 'ledger_storage', 'audit_chain_broken', 'amend_conflict',
  'sign_count_not_increasing', 'proof_policy_weakened', 'ledger_value_out_of_range',
  'ledger_schema_invalid', 'ledger_unprotected', 'invalid_audit_heads', 'approver_already_decided',
  'delegation_refused', 'batch_all_or_nothing', 'batch_item', 'batch_not_found',
  'disclosures_shredded',
]

/**
 * Codes this package cannot raise, with the reason: the wasm build has no ledger (nor the
 * audit's verifier); only a PostgreSQL role that does not own a ledger meets
 * `ledger_unprotected`; only the npm package without its native addon (node-fallback) meets
 * `native_binding_unavailable`.
 */
const UNREACHABLE = {
  checkpoint_conflict: 'only a witness\'s rule raises it (C2SP tlog-witness 409), which has no binding',
  timestamp_unavailable: 'only a ledger with a time-stamping authority meets it, which the bindings do not configure yet',
  ledger_not_found: 'only a ledger opened to refuse a missing file meets it (the CLI); the bindings create one',
  ...(runtime === 'node'
    ? (process.env.ACTIONSEAL_TEST_PG === 'skip' ? { ledger_unprotected: 'only a PostgreSQL role that does not own the ledger\'s tables meets it, and PostgreSQL is skipped' } : {})
    : {
        ...Object.fromEntries(LEDGER_CODES.map((c) => [c, 'no ledger in wasm (the ledger is in the Node addon and the Python package)'])),
        webhook_unverified: 'no webhook functions in wasm: senders and receivers are servers (the Node addon and the Python package)'
      }),
  ...(runtime === 'node-fallback' ? {} : { native_binding_unavailable: 'only the npm package raises it, where its native addon does not load' }),
}

/**
 * [code, label, thunk] for the ledger's codes, raised through the Node addon's Ledger (its
 * scenarios, URLs and edited databases: ./ledger.mjs), and through the npm package's Ledger
 * where the addon does not load; none elsewhere. Loaded only for Node, so that the wasm runs
 * never load the addon.
 */
async function ledgerSources() {
  if (runtime === 'node-fallback') {
    return [['native_binding_unavailable', 'Ledger.open without the native addon', () => engine.api.Ledger.open('sqlite::memory:')]]
  }
  if (runtime !== 'node') return []
  const { errorSources, api } = await import('./ledger.mjs')
  const evidence = await import('./evidence.mjs')
  return [...errorSources(), ...await evidence.errorSources(), ...webhookSources(api)]
}

/** [code, label, thunk] for the webhook vectors that raise a code, through the Node addon. */
function webhookSources(api) {
  return vectors('webhook').filter(([, v]) => v.expect.error).map(([file, v]) => [v.expect.error, `webhook/${file}`, () =>
    v.op === 'sign'
      ? api.signWebhook(v.secret, v.id, v.at_ms, v.body)
      : api.verifyWebhook(v.secret, v.headers, v.body, v.now_ms, v.tolerance_ms)])
}

const json = (text) => ({ $json: text })
const bytes = (hex) => ({ $bytes: Array.from(Buffer.from(hex, 'hex')) })

/** [code, label, op] for every vector that raises a code, in a fixed order. */
function sources() {
  const out = []
  for (const [file, v] of vectors('canon')) {
    const e = v.strict.error
    if (!e) continue
    const input = 'input_repeat' in v
      ? v.input_repeat.map(([t, n]) => t.repeat(n)).join('')
      : 'input' in v ? (v.input.isWellFormed() ? v.input : { $js: JSON.stringify(v.input) }) : bytes(v.input_hex)
    out.push([e, `canon/${file}`, { fn: 'canonicalizeJson', args: [input] }])
  }
  for (const [file, v] of vectors('schema')) {
    const e = v.expect.error ?? v.expect.schema_error
    if (e) out.push([e, `schema/${file}`, { fn: 'Schema#validate', args: [{ $schema: json(v.schema) }, 'value' in v ? json(v.value) : null] }])
  }
  for (const [file, v] of vectors('contract')) {
    // Contracts that do not load (later steps' errors come from other vectors).
    if (v.expect.error === 'invalid_contract' && v.expect.path !== undefined && !('args' in v) && !('action' in v)) {
      out.push([v.expect.error, `contract/${file}`, { fn: 'Contract.digest', args: [{ $contract: json(v.contract) }] }])
    }
  }
  for (const [file, v] of vectors('action')) {
    if (v.expect.error) out.push([v.expect.error, `action/${file}`, { fn: 'action', args: [json(v.contract), json(v.args), v.ids] }])
  }
  for (const [file, v] of vectors('approval')) {
    if (v.expect.error) out.push([v.expect.error, `approval/${file}`, { fn: 'approve', args: [json(v.action), v.decision] }])
  }
  for (const [file, v] of vectors('amend')) {
    if (v.expect.error) out.push([v.expect.error, `amend/${file}`, { fn: 'amend', args: [json(v.current), json(v.replacement), json(v.contract)] }])
  }
  for (const [file, v] of vectors('budget')) {
    // The first charge, from the budget as given.
    if (v.expect.error && v.expect.at === 0) out.push([v.expect.error, `budget/${file}`, { fn: 'charge', args: [json(v.budget), json(v.costs[0])] }])
  }
  for (const [file, v] of vectors('permit')) {
    if (v.expect.error) out.push([v.expect.error, `permit/${file}`, { fn: 'check', args: [v.approval === null ? null : json(v.approval), json(v.action), json(v.context)] }])
  }
  for (const kind of ['signed', 'passkey']) {
    for (const [file, v] of vectors(kind)) {
      if (v.expect.error) out.push([v.expect.error, `${kind}/${file}`, proofOp(v, canonicalizeNpm)[0]])
    }
  }
  for (const kind of ['quorum', 'delegation']) {
    for (const [file, v] of vectors(kind)) {
      if (v.expect.error) out.push([v.expect.error, `${kind}/${file}`, quorumOps(v)[0]])
    }
  }
  for (const [file, v] of vectors('batch')) {
    // A vector's error, or its first breaker step's.
    const [[, ops]] = batchOps(v)
    const results = v.op === 'breaker' ? v.expect : [v.expect]
    const i = results.findIndex((r) => r.error)
    if (i >= 0) out.push([results[i].error, `batch/${file}`, ops[i]])
  }
  for (const [file, v] of vectors('redaction')) {
    if (v.expect.error) out.push([v.expect.error, `redaction/${file}`, redactionOps(v)[0][1]])
  }
  for (const [file, v] of vectors('evidence')) {
    const e = v.expected.error?.code
    if (e) out.push([e, `evidence/${file}`, { fn: 'verifyEvidence', args: [v.bundle, v.trust] }])
  }
  const functions = { fingerprint: 'fingerprint', fingerprint_json: 'fingerprintJson', canonicalize: 'canonicalize', canonicalize_json: 'canonicalizeJson', short_fingerprint: 'shortFingerprint' }
  for (const [file, v] of vectors('host')) {
    const fn = functions[v.call ?? 'fingerprint']
    if (!v.expect.error || !('js' in v) || fn === undefined) continue
    const options = v.profile === undefined ? [] : [{ $js: `({ profile: ${v.profile.js} })` }]
    out.push([v.expect.error, `host/${file}`, { fn, args: [{ $js: v.js }, ...options] }])
  }
  // Input over the 16 MiB limit, refused before it is read.
  out.push(['size_limit_exceeded', 'text over 16 MiB', { fn: 'canonicalizeJson', args: [{ $js: '" ".repeat(16 * 1024 * 1024 + 1)' }] }])
  out.push(['invalid_approval', 'new Approval({})', { fn: 'new Approval', args: [{}] }])
  return out
}

describe(`errors (${runtime})`, () => {
  it('every code of codes.json is raised, as an ActionsealError with typed fields', async () => {
    const all = sources()
    const ledger = await ledgerSources()
    const chosen = []
    const direct = []
    const missing = []
    for (const code of codes) {
      if (code in UNREACHABLE) {
        assert.ok(!all.some(([c]) => c === code), `${code} is listed as unreachable but a vector raises it`)
        continue
      }
      const found = all.find(([c]) => c === code)
      if (found) chosen.push(found)
      else {
        const l = ledger.find(([c]) => c === code)
        if (l) direct.push(l)
        else missing.push(code)
      }
    }
    const got = await run(engine, chosen.map(([, , op]) => op))
    const failures = []
    got.forEach((r, i) => {
      const [code, label] = chosen[i]
      if (!('error' in r)) return failures.push(`${code} (${label}): no error; got ${show(r)}`)
      if (r.error.code !== code) return failures.push(`${code} (${label}): got ${show(r.error)}`)
      const why = notAnActionsealError(r.error)
      if (why) failures.push(`${code} (${label}): ${why}`)
    })
    // The ledger's codes: rejections of the Node Ledger's Promises, described as ops.mjs
    // describes a thrown error.
    const { api } = runtime === 'node-fallback' ? engine : direct.length ? await import('./ledger.mjs') : {}
    for (const [code, label, thunk] of direct) {
      let e
      try {
        await thunk()
      } catch (err) {
        e = err
      }
      if (e === undefined) {
        failures.push(`${code} (${label}): no error`)
        continue
      }
      const described = { code: e.code, path: e.path, offset: e.offset, isError: e instanceof Error, isClass: e instanceof api.ActionsealError, name: e.name, message: e.message }
      if (described.code !== code) failures.push(`${code} (${label}): got ${show(described)}`)
      const why = notAnActionsealError(described)
      if (why) failures.push(`${code} (${label}): ${why}`)
    }
    assert.equal(failures.length, 0, failures.join('\n'))
    // Every missing code at once, so that one run says what is left.
    assert.deepEqual(missing, [], `no vector raises ${missing.join(', ')}: add one (or list it in UNREACHABLE with the reason)`)
    assert.equal(chosen.length + direct.length + Object.keys(UNREACHABLE).length, codes.size)
    for (const code of Object.keys(UNREACHABLE)) assert.ok(codes.has(code), `${code} is not in codes.json`)
  })

  it('the class is exported, is an Error, and can be told apart from other errors', async () => {
    const [own, other] = await run(engine, [
      { fn: 'canonicalizeJson', args: ['{"a": 1, "a": 2}'] },
      { fn: 'fingerprint', args: [{ $js: '({ get x() { throw new RangeError("mine") } })' }] },
    ])
    assert.deepEqual([own.error.code, own.error.path, own.error.offset], ['duplicate_key', '/a', 9])
    assert.equal(notAnActionsealError(own.error), null)
    // An exception of the caller's own (a getter's) is passed on: not an ActionsealError.
    assert.equal(other.error.isClass, false)
    assert.equal(other.error.name, 'RangeError')
    assert.equal(other.error.message, 'mine')
  })
})
