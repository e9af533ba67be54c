// Conformance tests of the approval model (contracts, actions, approvals, budgets, the permit
// check, argument schemas), shared by every JavaScript runtime of actionseal:
//
//   ACTIONSEAL_RUNTIME=node      node --test conformance/js/   (the napi addon, bindings-node/)
//   ACTIONSEAL_RUNTIME=wasm-node node --test conformance/js/   (the wasm build, run in Node)
//   ACTIONSEAL_RUNTIME=chromium  node --test conformance/js/   (the wasm build, in Chromium)
//
// The engines are those of conformance.test.mjs (./engines/<runtime>.mjs), and every engine
// runs its ops with `runOps(api, ops)` from ./ops.mjs, which describes the op forms used
// here: functions by name, "Contract#method" / "Contract.property" / "Schema#validate", and
// the argument forms {$json: text} (the runtime's parseJson), {$contract: doc} and
// {$schema: doc} (instances made inside the runtime), {$js: source} (host values JSON cannot
// carry). The vectors are conformance/vectors/{contract,action,approval,budget,permit,schema}
// (formats: conformance/README.md, vectors/schema/README.md); how Rust computes each `expect`
// is conformance/src/decisions.rs, which these tests follow step by step. Canonical forms of
// returned envelopes and records are computed here with the npm `canonicalize` package, so a
// runtime is not checked against itself.

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import canonicalizeNpm from 'canonicalize'
import { notAnActionsealError, openEngine, repo, run as runOn, runtime, sha256, vectors } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

// ---------------------------------------------------------------------------------------
// Helpers

/** Runs ops in batches; returns their results in order (codes and reasons checked). */
const run = (ops) => runOn(engine, ops)

const json = (text) => ({ $json: text })
const contractOf = (doc) => ({ $contract: doc })
const js = (source) => ({ $js: source })
const show = (v) => {
  const s = JSON.stringify(v)
  return s === undefined ? String(v) : s.length > 300 ? s.slice(0, 300) + '…' : s
}

/** `{error, path}` of a failed result, as the vectors write errors. */
const errorOf = (r) => ({ error: r.error.code, path: r.error.path })

/** The canonical form and fingerprint of returned data, computed here. */
const sealed = (key, value) => {
  const canonical = canonicalizeNpm(value)
  return { [key]: canonical, fingerprint: sha256(canonical) }
}

/** Collects mismatches so one run shows them all. */
class Check {
  constructor() {
    this.failures = []
    this.count = 0
  }

  /** `got` deep-equals `want` (both plain JSON data). */
  equal(label, got, want) {
    this.count++
    try {
      assert.deepStrictEqual(got, want)
    } catch {
      this.failures.push(`${label}: expected ${show(want)}; got ${show(got)}`)
    }
  }

  /** An op result is `{error: {code, path}}` from a coded Error with core's message. */
  error(label, got, code, path) {
    this.count++
    const e = got.error
    if (!e) return this.failures.push(`${label}: expected error ${code} at ${show(path)}; got ${show(got)}`)
    if (e.code !== code || e.path !== path) {
      return this.failures.push(`${label}: expected error ${code} at ${show(path)}; got ${e.code} at ${show(e.path)}: ${e.message}`)
    }
    const why = notAnActionsealError(e)
    if (why) this.failures.push(`${label}: ${why}; got ${show(e)}`)
  }

  done(minimum) {
    assert.ok(this.count >= minimum, `checked ${this.count} results, expected at least ${minimum}`)
    const shown = this.failures.slice(0, 25).join('\n')
    const more = this.failures.length > 25 ? `\n... and ${this.failures.length - 25} more` : ''
    assert.equal(this.failures.length, 0, `${this.failures.length} of ${this.count} results differ:\n${shown}${more}`)
  }
}

// The refund example: the scenario of the README and of examples/refund/.
const example = (name) => JSON.parse(readFileSync(join(repo, 'examples', 'refund', name), 'utf8'))
const REFUND = example('contract.json')
const ENVELOPE = example('action.json')
const RECORD = example('approval.json')
const CONTEXT = example('context.json')
const ARGS = ENVELOPE.args
const IDS = Object.fromEntries(['tenant', 'subject', 'job_id', 'request_id', 'policy_version'].map((k) => [k, ENVELOPE[k]]))
const DECISION = Object.fromEntries(
  ['approval_id', 'decision_id', 'decision', 'approver', 'decided_at', 'expires_at'].map((k) => [k, RECORD[k]]),
)

/** JavaScript source of `value` (plain JSON data) with `replacement` (source) at args.amount_minor. */
const withAmount = (value, replacement, at = (v) => v.args) => {
  const copy = structuredClone(value)
  at(copy).amount_minor = '@AMOUNT@'
  return JSON.stringify(copy).replace('"@AMOUNT@"', replacement)
}

// ---------------------------------------------------------------------------------------

describe(`actionseal approval model (${runtime})`, () => {
  it('contract vectors: load, requiresApproval, validateAction (as a Contract and as a document)', async () => {
    const cases = vectors('contract')
    const ops = []
    const plan = []
    for (const [file, v] of cases) {
      const contract = contractOf(json(v.contract))
      const at = { digest: ops.length, requirement: [], action: null }
      ops.push({ fn: 'Contract.digest', args: [contract] })
      if ('args' in v) {
        // The method, and the function with an instance and with the document: all alike.
        at.requirement = [ops.length, ops.length + 1, ops.length + 2]
        ops.push(
          { fn: 'Contract#requiresApproval', args: [contract, json(v.args)] },
          { fn: 'requiresApproval', args: [contract, json(v.args)] },
          { fn: 'requiresApproval', args: [json(v.contract), json(v.args)] },
        )
      }
      if ('action' in v) {
        at.action = ops.length
        ops.push({ fn: 'Contract#validateAction', args: [contract, json(v.action)] })
      }
      plan.push([file, v, at])
    }
    const got = await run(ops)
    const check = new Check()
    for (const [file, v, at] of plan) {
      // Rust's order: the contract, then the arguments, then the action; the first error wins.
      for (const [n, requirement] of (at.requirement.length ? at.requirement : [null]).entries()) {
        const steps = [['digest', at.digest], ['requirement', requirement], ['action_valid', at.action]]
        const result = {}
        for (const [key, i] of steps.filter(([, i]) => i !== null)) {
          const r = got[i]
          if ('error' in r) {
            Object.assign(result, errorOf(r))
            for (const k of ['digest', 'requirement', 'action_valid']) delete result[k]
            break
          }
          result[key] = key === 'action_valid' ? r.ok === null : r.ok
        }
        check.equal(`contract/${file}${requirement === null ? '' : ` (requiresApproval form ${n + 1})`}`, result, v.expect)
      }
    }
    check.done(cases.length)
  })

  it('action vectors: the envelope and its fingerprint (contract as a Contract and as a document)', async () => {
    const cases = vectors('action')
    const ops = cases.flatMap(([, v]) => [
      { fn: 'action', args: [contractOf(json(v.contract)), json(v.args), v.ids] },
      { fn: 'action', args: [json(v.contract), json(v.args), v.ids] },
    ])
    const got = await run(ops)
    const check = new Check()
    got.forEach((r, i) => {
      const [file, v] = cases[i >> 1]
      const result = 'error' in r ? errorOf(r) : sealed('action', r.ok)
      check.equal(`action/${file} (${i % 2 ? 'document' : 'Contract'})`, result, v.expect)
    })
    check.done(cases.length * 2)
  })

  it('approval vectors: the record and its fingerprint', async () => {
    const cases = vectors('approval')
    const got = await run(cases.map(([, v]) => ({ fn: 'approve', args: [json(v.action), v.decision] })))
    const check = new Check()
    got.forEach((r, i) => {
      const [file, v] = cases[i]
      check.equal(`approval/${file}`, 'error' in r ? errorOf(r) : sealed('approval', r.ok), v.expect)
    })
    check.done(cases.length)
  })

  it('gate vectors: what an adapter does after each ledger step, and the exact text the model reads', async () => {
    const cases = vectors('gate')
    assert.ok(cases.length >= 30, `only ${cases.length} gate vectors`)
    const got = await run(cases.map(([, v]) => ({ fn: 'gateStep', args: [json(v.input)] })))
    const check = new Check()
    got.forEach((r, i) => {
      const [file, v] = cases[i]
      check.equal(`gate/${file}`, 'error' in r ? errorOf(r) : r.ok, v.expect)
      // The model's text is the prefix and the refusal's canonical bytes, computed here with npm
      // canonicalize (an elicitation's message is the person's, not the model's).
      if ('ok' in r && 'refusal' in r.ok) check.equal(`gate/${file} message`, r.ok.message, 'actionseal: ' + canonicalizeNpm(r.ok.refusal))
    })
    const [defaults, options] = await run([{ fn: 'gateDefaults', args: [] }, { fn: 'gateStep', args: [{ step: 'invoke', tool: 'x' }, { profile: 'rfc8785' }] }])
    check.equal('gateDefaults', defaults.ok, { lease_ms: 300000, executor: 'actionseal-adapter', proposer: 'agent' })
    check.error('gateStep takes no options', options, 'invalid_option', '')
    check.done(cases.length + 2)
  })

  it('notice vectors: what a reader could miss or misread, where, and why', async () => {
    const cases = vectors('notice')
    assert.ok(cases.length >= 12, `only ${cases.length} notice vectors`)
    const got = await run(cases.map(([, v]) => ({ fn: 'notices', args: [json(v.value)] })))
    const check = new Check()
    got.forEach((r, i) => {
      const [file, v] = cases[i]
      check.equal(`notice/${file}`, 'error' in r ? errorOf(r) : { notices: r.ok }, v.expect)
    })
    const [options] = await run([{ fn: 'notices', args: ['x', { profile: 'rfc8785' }] }])
    check.error('notices takes no options', options, 'invalid_option', '')
    check.done(cases.length + 1)
  })

  it('budget vectors: each cost charged in turn', async () => {
    const cases = vectors('budget')
    // One round per cost: each charge starts from the budget the previous one returned.
    const state = cases.map(([file, v]) => ({ file, v, budget: json(v.budget), result: null }))
    for (let round = 0; state.some((s) => s.result === null); round++) {
      const active = state.filter((s) => s.result === null)
      const got = await run(active.map((s) => ({ fn: 'charge', args: [s.budget, json(s.v.costs[round])] })))
      got.forEach((r, i) => {
        const s = active[i]
        if ('error' in r) s.result = { ...errorOf(r), at: round }
        else if (round + 1 === s.v.costs.length) s.result = { budget: canonicalizeNpm(r.ok) }
        else s.budget = r.ok
      })
    }
    const check = new Check()
    for (const s of state) check.equal(`budget/${s.file}`, s.result, s.v.expect)
    check.done(cases.length)
  })

  it('permit vectors: the verdict, with the context contract as a document and as a Contract', async () => {
    const cases = vectors('permit')
    const ops = []
    const labels = []
    let instances = 0
    for (const [file, v] of cases) {
      const approval = v.approval === null ? null : json(v.approval)
      ops.push({ fn: 'check', args: [approval, json(v.action), json(v.context)] })
      labels.push([`permit/${file}`, v.expect])
      const context = JSON.parse(v.context)
      if (context !== null && typeof context === 'object' && context.contract != null) {
        // The contract loaded once, as an executor does: the same verdict or error (a contract
        // error then belongs to the constructor, so its path is inside the contract).
        ops.push({ fn: 'check', args: [approval, json(v.action), { ...context, contract: contractOf(context.contract) }] })
        const want = 'error' in v.expect && v.expect.path.startsWith('/contract')
          ? { ...v.expect, path: v.expect.path.slice('/contract'.length) }
          : v.expect
        labels.push([`permit/${file} (Contract)`, want])
        instances++
      }
    }
    const got = await run(ops)
    const check = new Check()
    got.forEach((r, i) => {
      const [label, want] = labels[i]
      check.equal(label, 'error' in r ? errorOf(r) : r.ok, want)
    })
    check.done(cases.length + instances)
    assert.ok(instances >= cases.length - 10, `only ${instances} of ${cases.length} contexts have a contract`)
  })

  it('permit vectors with the approval loaded once (Approval): the same verdict, twice', async () => {
    const cases = vectors('permit').filter(([, v]) => v.approval !== null)
    const ops = []
    for (const [, v] of cases) {
      // Whether the record loads, then two checks with it loaded (the second reuses what the
      // first kept).
      const loaded = { $approval: json(v.approval) }
      ops.push({ fn: 'new Approval', args: [json(v.approval)] })
      for (let i = 0; i < 2; i++) ops.push({ fn: 'check', args: [loaded, json(v.action), json(v.context)] })
    }
    const got = await run(ops)
    const check = new Check()
    let loads = 0
    cases.forEach(([file, v], k) => {
      const [made, first, second] = got.slice(3 * k, 3 * k + 3)
      if ('error' in made) {
        // A record that cannot be loaded is one that check calls invalid.
        check.equal(`permit/${file}: a record that does not load`, made.error.code === 'invalid_approval' || made.error.path.startsWith('/action'), true)
        return
      }
      loads++
      for (const r of [first, second]) check.equal(`permit/${file} (Approval)`, 'error' in r ? errorOf(r) : r.ok, v.expect)
    })
    check.done(cases.length)
    assert.ok(loads >= 25, `only ${loads} records load`)
  })

  it('schema vectors: compile errors, and each value accepted or refused with code and path', async () => {
    const cases = vectors('schema')
    const ops = cases.map(([, v]) => ({
      fn: 'Schema#validate',
      // A schema that must not compile never gets to validate the null.
      args: [{ $schema: json(v.schema) }, 'value' in v ? json(v.value) : null],
    }))
    const got = await run(ops)
    const check = new Check()
    got.forEach((r, i) => {
      const [file, v] = cases[i]
      const label = `schema/${file}`
      if ('schema_error' in v.expect) check.error(label, r, v.expect.schema_error, v.expect.path)
      else if ('error' in v.expect) check.error(label, r, v.expect.error, v.expect.path)
      else check.equal(label, r, { ok: null })
    })
    check.done(cases.length)
  })

  it('Contract and Schema: properties, methods and the functions that take either form', async () => {
    const refund = contractOf(REFUND)
    const digest = sha256(canonicalizeNpm(REFUND))
    const cases = [
      [{ fn: 'Contract.digest', args: [refund] }, digest],
      [{ fn: 'Contract.tool', args: [refund] }, 'refund_create'],
      [{ fn: 'Contract.version', args: [refund] }, '3'],
      [{ fn: 'Contract.effect', args: [refund] }, 'write'],
      [{ fn: 'Contract.costMinor', args: [refund] }, 25],
      [{ fn: 'Contract.document', args: [refund] }, REFUND],
      [{ fn: 'Contract#validateArgs', args: [refund, ARGS] }, null],
      [{ fn: 'Contract#validateAction', args: [refund, ENVELOPE] }, null],
      [{ fn: 'Contract#requiresApproval', args: [refund, ARGS] }, { required: true, rule: '/approval/when/0' }],
      [{ fn: 'requiresApproval', args: [REFUND, { ...ARGS, amount_minor: 500 }] }, { required: false, rule: '/approval/when' }],
      [{ fn: 'action', args: [refund, ARGS, IDS] }, ENVELOPE],
      [{ fn: 'action', args: [REFUND, ARGS, IDS] }, ENVELOPE],
      [{ fn: 'approve', args: [ENVELOPE, DECISION] }, RECORD],
      [{ fn: 'fingerprint', args: [ENVELOPE] }, RECORD.action_digest],
      [{ fn: 'charge', args: [{ limit_minor: 100, spent_minor: 40 }, 60] }, { limit_minor: 100, spent_minor: 100 }],
      [{ fn: 'shortFingerprint', args: [RECORD.action_digest] }, 'f31c 54dd 3e07 a4eb'],
      [{ fn: 'Schema#validate', args: [{ $schema: REFUND.args }, ARGS] }, null],
    ]
    const permit = {
      outcome: 'permit',
      reasons: [],
      drift: [],
      action_digest: RECORD.action_digest,
      approved_digest: RECORD.action_digest,
      action_error: null,
    }
    for (const [name, context] of [['document', CONTEXT], ['Contract', { ...CONTEXT, contract: refund }]]) {
      cases.push(
        [{ fn: 'check', args: [RECORD, ENVELOPE, context] }, permit, name],
        [{ fn: 'check', args: [RECORD, { ...ENVELOPE, args: { ...ARGS, amount_minor: 9000 } }, context] }, {
          ...permit,
          outcome: 'reject',
          reasons: ['action_drift'],
          drift: ['/args/amount_minor'],
          action_digest: sha256(canonicalizeNpm({ ...ENVELOPE, args: { ...ARGS, amount_minor: 9000 } })),
        }, name],
      )
      // No approval presented: null and undefined alike.
      for (const none of [null, js('undefined')]) {
        cases.push([{ fn: 'check', args: [none, ENVELOPE, context] }, {
          ...permit,
          outcome: 'reapprove',
          reasons: ['no_approval'],
          approved_digest: null,
        }, name])
      }
    }
    const got = await run(cases.map(([op]) => op))
    const check = new Check()
    got.forEach((r, i) => {
      const [op, want, note] = cases[i]
      check.equal(`${op.fn}(${show(op.args).slice(0, 80)})${note ? ` [${note}]` : ''}`, r, { ok: want })
    })
    check.done(cases.length)
  })

  it('parseJson and shortFingerprint', async () => {
    const cases = [
      [{ fn: 'parseJson', args: ['{"b": [1.0, 2.50, "x"], "a": null}'] }, { ok: { a: null, b: [1, 2.5, 'x'] } }],
      [{ fn: 'parseJson', args: [{ $bytes: [91, 49, 93] }] }, { ok: [1] }],
      [{ fn: 'parseJson', args: ['9007199254740993', { profile: 'rfc8785' }] }, { ok: 9007199254740992 }],
      // "__proto__" is an own member, so the value is the object with that key, not {}.
      [{ fn: 'fingerprint', args: [json('{"__proto__": {"x": 1}}')] }, { ok: sha256('{"__proto__":{"x":1}}') }],
      [{ fn: 'parseJson', args: ['{"a": 1, "a": 2}'] }, { error: ['duplicate_key', '/a'] }],
      [{ fn: 'parseJson', args: ['[1e400]'] }, { error: ['number_overflow', '/0'] }],
      [{ fn: 'parseJson', args: ['9007199254740993'] }, { error: ['inexact_number', ''] }],
      [{ fn: 'parseJson', args: ['{"a": NaN}'] }, { error: ['non_finite_number', '/a'] }],
      [{ fn: 'parseJson', args: ['{"a": [tru]}'] }, { error: ['syntax_error', '/a/0'] }],
      // A lone surrogate in the text itself is found while decoding it, before any value.
      [{ fn: 'parseJson', args: [js('"[\\"\\ud800\\"]"')] }, { error: ['lone_surrogate', ''] }],
      [{ fn: 'parseJson', args: ['["\\ud800"]'] }, { error: ['lone_surrogate', '/0'] }],
      [{ fn: 'parseJson', args: ['1', { profile: 'bogus' }] }, { error: ['invalid_option', ''] }],
      [{ fn: 'parseJson', args: [js('5')] }, { error: ['unsupported_type', ''] }],
      [{ fn: 'shortFingerprint', args: [sha256('abc')] }, { ok: 'ba78 16bf 8f01 cfea' }],
      [{ fn: 'shortFingerprint', args: ['sha256:xyz'] }, { error: ['invalid_digest', ''] }],
      [{ fn: 'shortFingerprint', args: [RECORD.action_digest.toUpperCase()] }, { error: ['invalid_digest', ''] }],
      [{ fn: 'shortFingerprint', args: [RECORD.action_digest.slice(7)] }, { error: ['invalid_digest', ''] }],
    ]
    const got = await run(cases.map(([op]) => op))
    const check = new Check()
    got.forEach((r, i) => {
      const [op, want] = cases[i]
      const label = `${op.fn}(${show(op.args)})`
      if ('error' in want) check.error(label, r, ...want.error)
      else check.equal(label, r, want)
    })
    check.done(cases.length)
  })

  it('host values in the approval-model functions: JSON the contract refuses, and values that are not JSON', async () => {
    const refund = contractOf(REFUND)
    const check = new Check()
    const ops = []
    const wants = []
    const expectError = (label, op, code, path) => {
      ops.push(op)
      wants.push((r) => check.error(label, r, code, path))
    }
    const expectOk = (label, op, test) => {
      ops.push(op)
      wants.push((r) => {
        check.count++
        if (!('ok' in r)) return check.failures.push(`${label}: expected a result; got ${show(r)}`)
        const why = test(r.ok)
        if (why) check.failures.push(`${label}: ${why}; got ${show(r.ok)}`)
      })
    }

    // Amounts: [JavaScript source, code, whether it is JSON (then the contract decides and
    // check gives a verdict) or not (then the conversion refuses it everywhere)].
    const amounts = [
      ['true', 'type_mismatch', true],
      ['"300"', 'type_mismatch', true],
      ['2.5', 'type_mismatch', true],
      ['9007199254740992', 'unsafe_integer', true],
      ['undefined', 'unsupported_type', false],
      ['2500n', 'unsupported_type', false],
      ['new Date(2500)', 'unsupported_type', false],
      ['new Number(2500)', 'unsupported_type', false],
      ['NaN', 'non_finite_number', false],
      ['Infinity', 'non_finite_number', false],
      ['[, 1]', 'sparse_array', false],
    ]
    const context = { ...CONTEXT, contract: refund }
    for (const [source, code, isJson] of amounts) {
      const argsOnly = js(`(${withAmount({ args: ARGS }, source)}).args`)
      for (const op of [
        { fn: 'Contract#requiresApproval', args: [refund, argsOnly] },
        { fn: 'Contract#validateArgs', args: [refund, argsOnly] },
        { fn: 'requiresApproval', args: [REFUND, argsOnly] },
        { fn: 'requiresApproval', args: [refund, argsOnly] },
      ]) {
        expectError(`${op.fn}(amount ${source})`, op, code, '/amount_minor')
      }
      expectError(`Schema#validate(amount ${source})`, { fn: 'Schema#validate', args: [{ $schema: REFUND.args }, argsOnly] }, code, '/amount_minor')
      expectError(`action(amount ${source})`, { fn: 'action', args: [refund, argsOnly, IDS] }, code, '/args/amount_minor')
      expectError(`Contract#validateAction(amount ${source})`, {
        fn: 'Contract#validateAction',
        args: [refund, js(withAmount(ENVELOPE, source))],
      }, code, '/args/amount_minor')
      const presented = js(withAmount(ENVELOPE, source))
      if (isJson) {
        // JSON that breaks the contract: a verdict, never an exception.
        for (const ctx of [context, CONTEXT]) {
          expectOk(`check(presented amount ${source})`, { fn: 'check', args: [RECORD, presented, ctx] }, (v) =>
            v.outcome !== 'reject'
              ? 'expected reject'
              : v.reasons[0] !== 'invalid_action'
                ? 'expected invalid_action first'
                : JSON.stringify(v.action_error) !== JSON.stringify({ code, path: '/args/amount_minor' })
                  ? `expected action_error ${code} at /args/amount_minor`
                  : null)
        }
        expectOk(`approve(amount ${source})`, { fn: 'approve', args: [presented, DECISION] }, (v) =>
          v.action.args.amount_minor === undefined ? 'expected the frozen amount' : null)
      } else {
        // Not JSON: refused as fingerprint refuses it, with its path in that argument.
        expectError(`check(presented amount ${source})`, { fn: 'check', args: [RECORD, presented, context] }, code, '/args/amount_minor')
        expectError(`check(approved amount ${source})`, {
          fn: 'check',
          args: [js(withAmount(RECORD, source, (r) => r.action.args)), ENVELOPE, context],
        }, code, '/action/args/amount_minor')
        expectError(`approve(amount ${source})`, { fn: 'approve', args: [presented, DECISION] }, code, '/args/amount_minor')
      }
    }

    // Identities and decisions.
    const idsWith = (key, source) => js(JSON.stringify(IDS).replace(`"${key}":"${IDS[key]}"`, `"${key}":${source}`))
    for (const [key, source, code] of [
      ['tenant', 'undefined', 'unsupported_type'],
      ['tenant', '7', 'invalid_action'],
      ['subject', '" user:alice"', 'invalid_action'],
      ['job_id', '""', 'invalid_action'],
      ['request_id', '"req\\u0000"', 'invalid_action'],
      ['policy_version', '1n', 'unsupported_type'],
      ['tenant', '"t\\ud800"', 'lone_surrogate'],
    ]) {
      expectError(`action(ids.${key} = ${source})`, { fn: 'action', args: [refund, ARGS, idsWith(key, source)] }, code, `/${key}`)
    }
    expectError('action(ids with an unknown id)', { fn: 'action', args: [refund, ARGS, { ...IDS, priority: 'high' }] }, 'invalid_action', '/priority')
    const decisionWith = (key, source) =>
      js(JSON.stringify(DECISION).replace(new RegExp(`"${key}":[^,}]*`), `"${key}":${source}`))
    for (const [key, source, code] of [
      ['decided_at', 'true', 'invalid_approval'],
      ['decided_at', '"1764500000000"', 'invalid_approval'],
      ['decided_at', '1.5', 'invalid_approval'],
      ['decided_at', '-1', 'invalid_approval'],
      ['expires_at', '1764500000000', 'invalid_approval'],
      ['expires_at', 'undefined', 'unsupported_type'],
      ['decided_at', '1764500000000n', 'unsupported_type'],
      ['decided_at', 'new Date(1764500000000)', 'unsupported_type'],
      ['approver', '" user:bob"', 'invalid_approval'],
      ['decision', '"Approved"', 'invalid_approval'],
      ['decision', 'true', 'invalid_approval'],
    ]) {
      expectError(`approve(decision.${key} = ${source})`, { fn: 'approve', args: [ENVELOPE, decisionWith(key, source)] }, code, `/${key}`)
    }
    expectError('approve(decision without approver)', {
      fn: 'approve',
      args: [ENVELOPE, Object.fromEntries(Object.entries(DECISION).filter(([k]) => k !== 'approver'))],
    }, 'invalid_approval', '/approver')
    expectError('approve(envelope with an extra field)', { fn: 'approve', args: [{ ...ENVELOPE, priority: 'high' }, DECISION] }, 'invalid_action', '/priority')

    // Costs and budgets.
    const budget = { limit_minor: 100, spent_minor: 0 }
    for (const [source, code] of [
      ['true', 'invalid_budget'],
      ['"300"', 'invalid_budget'],
      ['2.5', 'invalid_budget'],
      ['-1', 'invalid_budget'],
      ['null', 'invalid_budget'],
      ['101', 'budget_exceeded'],
      ['NaN', 'non_finite_number'],
      ['10n', 'unsupported_type'],
      ['undefined', 'unsupported_type'],
      ['new Number(1)', 'unsupported_type'],
    ]) {
      expectError(`charge(cost ${source})`, { fn: 'charge', args: [budget, js(source)] }, code, '')
    }
    for (const [source, code, path] of [
      ['({ limit_minor: 100, spent_minor: true })', 'invalid_budget', '/spent_minor'],
      ['({ limit_minor: "100", spent_minor: 0 })', 'invalid_budget', '/limit_minor'],
      ['({ limit_minor: 100 })', 'invalid_budget', '/spent_minor'],
      ['({ limit_minor: 100, spent_minor: Infinity })', 'non_finite_number', '/spent_minor'],
      ['({ limit_minor: 100, spent_minor: 0n })', 'unsupported_type', '/spent_minor'],
      ['new Map()', 'unsupported_type', ''],
    ]) {
      expectError(`charge(budget ${source})`, { fn: 'charge', args: [js(source), 1] }, code, path)
    }

    // Contexts: the Contract belongs at "contract" only.
    for (const [label, ctx, code, path] of [
      ['now as a string', { ...CONTEXT, now: String(CONTEXT.now) }, 'invalid_context', '/now'],
      ['now as a BigInt', js(`({ ...${JSON.stringify(CONTEXT)}, now: ${CONTEXT.now}n })`), 'unsupported_type', '/now'],
      ['revoked as 0', { ...CONTEXT, revoked: 0 }, 'invalid_context', '/revoked'],
      ['an extra field', { ...CONTEXT, extra: 1 }, 'invalid_context', '/extra'],
      ['an array', [CONTEXT], 'invalid_context', ''],
      ['a Contract at now', { ...CONTEXT, contract: refund, now: refund }, 'unsupported_type', '/now'],
      ['a Contract at now, contract a document', { ...CONTEXT, now: refund }, 'unsupported_type', '/now'],
      ['a Contract in an array', [refund], 'unsupported_type', '/0'],
      ['a Contract inside the contract', { ...CONTEXT, contract: { ...REFUND, args: refund } }, 'unsupported_type', '/contract/args'],
      ['a Date as the contract', js(`({ ...${JSON.stringify(CONTEXT)}, contract: new Date(0) })`), 'unsupported_type', '/contract'],
      ['undefined as the contract', js(`({ ...${JSON.stringify(CONTEXT)}, contract: undefined })`), 'unsupported_type', '/contract'],
      ['a contract document that is not one', { ...CONTEXT, contract: { ...REFUND, effect: 'delete' } }, 'invalid_contract', '/contract/effect'],
      ['a class instance', js('new (class Context {})()'), 'unsupported_type', ''],
    ]) {
      expectError(`check(context: ${label})`, { fn: 'check', args: [RECORD, ENVELOPE, ctx] }, code, path)
    }
    // A Contract where a document or plain data is expected elsewhere is not JSON either.
    expectError('action(args: a Contract)', { fn: 'action', args: [refund, refund, IDS] }, 'unsupported_type', '/args')
    expectError('fingerprint(a Contract)', { fn: 'fingerprint', args: [refund] }, 'unsupported_type', '')
    expectError('requiresApproval(a Date as the contract)', { fn: 'requiresApproval', args: [js('new Date(0)'), ARGS] }, 'unsupported_type', '')
    expectError('requiresApproval(a contract document that is not one)', {
      fn: 'requiresApproval',
      args: [{ ...REFUND, cost_minor: -1 }, ARGS],
    }, 'invalid_contract', '/cost_minor')
    expectError('new Contract(a Date)', { fn: 'Contract.digest', args: [{ $contract: js('new Date(0)') }] }, 'unsupported_type', '')
    expectError('new Contract(BigInt cost)', { fn: 'Contract.digest', args: [{ $contract: js(`({ ...${JSON.stringify(REFUND)}, cost_minor: 25n })`) }] }, 'unsupported_type', '/cost_minor')
    expectError('new Schema(undefined keyword value)', { fn: 'Schema#validate', args: [{ $schema: js('({ type: undefined })') }, 1] }, 'unsupported_type', '/type')

    // An exception from a getter propagates unchanged, in every argument.
    const getter = '({ get now() { throw new Error("from a getter") } })'
    ops.push({ fn: 'check', args: [RECORD, ENVELOPE, js(getter)] })
    wants.push((r) => {
      check.count++
      if (r.error?.message !== 'from a getter' || r.error.code !== undefined || r.error.isError !== true) {
        check.failures.push(`check(context with a throwing getter): expected that very Error; got ${show(r)}`)
      }
    })

    const got = await run(ops)
    got.forEach((r, i) => wants[i](r))
    check.done(ops.length)
  })

  it('check: the approval\'s frozen action object itself as the action gives the same verdict as a copy', async () => {
    // The first argument stores the record in a global, the second reads its action back:
    // one object in both places, as when an executor resumes with the frozen action.
    const same = (record) => [js(`(globalThis.__actionsealRecord = ${JSON.stringify(record)})`), js('globalThis.__actionsealRecord.action')]
    const refund = contractOf(REFUND)
    const records = [
      ['the approved record', RECORD],
      ['a record whose action was edited after approval', { ...RECORD, action: { ...ENVELOPE, args: { ...ARGS, amount_minor: 9000 } } }],
      ['a rejection', { ...RECORD, decision: 'rejected' }],
      ['a record whose action breaks the contract', { ...RECORD, action: { ...ENVELOPE, args: { ...ARGS, amount_minor: '2500' } } }],
      ['a record whose action is not an envelope', { ...RECORD, action: { ...ENVELOPE, priority: 'high' } }],
      ['a record that is not one', { ...RECORD, decided_at: 'yesterday' }],
    ]
    const ops = []
    for (const [, record] of records) {
      for (const context of [CONTEXT, { ...CONTEXT, contract: refund }]) {
        ops.push({ fn: 'check', args: [...same(record), context] }, { fn: 'check', args: [record, record.action, context] })
      }
    }
    const got = await run(ops)
    const check = new Check()
    for (let i = 0; i < got.length; i += 2) {
      check.equal(`check(${records[i >> 2][0]}, its own action${(i >> 1) % 2 ? ', Contract' : ''})`, got[i], got[i + 1])
    }
    check.done(records.length * 2)
    assert.equal(got[0].ok?.outcome, 'permit', show(got[0]))
    assert.deepEqual(got[4].ok?.reasons, ['invalid_approval'], show(got[4]))
  })
})
