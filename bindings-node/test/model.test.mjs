// Node-specific behaviour of the approval model that the shared conformance tests
// (conformance/js/decisions.test.mjs) cannot express: one Contract reused across many calls,
// Contract instances where plain data is expected and plain documents where a Contract is,
// subclasses and look-alikes, other realms, calls made from getters while a check reads its
// arguments, garbage collection of Contract objects, and worker threads.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'
import { Worker } from 'node:worker_threads'

const here = dirname(fileURLToPath(import.meta.url))
const pkg = join(here, '..')
const require = createRequire(import.meta.url)
const as = require(pkg)

const example = (name) => JSON.parse(readFileSync(join(pkg, '..', 'examples', 'refund', `${name}.json`), 'utf8'))
const CONTRACT = example('contract')
const ACTION = example('action')
const APPROVAL = example('approval')
const CONTEXT = example('context')

/** The error `fn` throws. */
function thrownBy(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  assert.fail('expected a throw')
}

/** The action with another amount. */
const withAmount = (amount) => ({ ...ACTION, args: { ...ACTION.args, amount_minor: amount } })

/** Runs `source` (CommonJS) in a worker with `workerData.pkg` set; resolves with its message. */
function inWorker(source, data = {}) {
  return new Promise((resolve, reject) => {
    const w = new Worker(source, { eval: true, workerData: { pkg, ...data } })
    w.once('message', resolve)
    w.once('error', reject)
  })
}

describe('Contract reuse', () => {
  it('one Contract gives the same verdicts as the document, over many checks', () => {
    const refund = new as.Contract(CONTRACT)
    const withContract = { ...CONTEXT, contract: refund }
    const amounts = [1, 999, 1000, 1001, 2500, 9000, 0, -5, 2.5]
    for (let round = 0; round < 300; round++) {
      for (const amount of amounts) {
        const presented = withAmount(amount)
        const got = as.check(APPROVAL, presented, withContract)
        if (round === 0) assert.deepEqual(got, as.check(APPROVAL, presented, CONTEXT), `amount ${amount}`)
        assert.equal(got.outcome, amount === 2500 ? 'permit' : 'reject', `amount ${amount}`)
      }
    }
    // The instance is unchanged by its use.
    assert.deepEqual(refund.document, CONTRACT)
    assert.equal(refund.digest, as.fingerprint(CONTRACT))
  })

  it('its document is a fresh copy each time, and changing it changes nothing', () => {
    const refund = new as.Contract(CONTRACT)
    const doc = refund.document
    assert.notEqual(doc, refund.document)
    doc.approval = 'never'
    doc.args.properties.amount_minor.minimum = 100000
    assert.deepEqual(refund.document, CONTRACT)
    assert.deepEqual(refund.requiresApproval(ACTION.args), { required: true, rule: '/approval/when/0' })
  })

  it('keeps no reference to the document it was made from', () => {
    const doc = structuredClone(CONTRACT)
    const refund = new as.Contract(doc)
    doc.tool = 'something_else'
    doc.approval = 'never'
    assert.equal(refund.tool, 'refund_create')
    assert.equal(refund.requiresApproval(ACTION.args).required, true)
  })
})

describe('a Contract where data is expected, and data where a Contract is', () => {
  const refund = new as.Contract(CONTRACT)

  it('a Contract is not JSON data: refused by every conversion with its path', () => {
    for (const [fn, path] of [
      [() => as.fingerprint(refund), ''],
      [() => as.canonicalize({ contract: refund }), '/contract'],
    ]) {
      const e = thrownBy(fn)
      assert.equal(e.code, 'unsupported_type')
      assert.equal(e.path, path)
      assert.match(e.message, /^unsupported_type: Contract has no JSON representation/)
    }
    const e = thrownBy(() => new as.Contract(refund))
    assert.equal(e.code, 'unsupported_type')
    assert.equal(thrownBy(() => as.approve(ACTION, { contract: refund })).path, '/contract')
    assert.equal(thrownBy(() => as.check({ ...APPROVAL, action: refund }, ACTION, CONTEXT)).path, '/action')
    assert.equal(thrownBy(() => as.charge({ limit_minor: 1, spent_minor: refund }, 1)).path, '/spent_minor')
  })

  it('a Contract is accepted only as the context\'s contract, not deeper or elsewhere', () => {
    const nested = { ...CONTEXT, contract: { ...CONTRACT, args: refund } }
    assert.equal(thrownBy(() => as.check(APPROVAL, ACTION, nested)).path, '/contract/args')
    const inArray = { ...CONTEXT, contract: [refund] }
    assert.equal(thrownBy(() => as.check(APPROVAL, ACTION, inArray)).path, '/contract/0')
    assert.equal(thrownBy(() => as.check(APPROVAL, { ...ACTION, tool: refund }, CONTEXT)).path, '/tool')
  })

  it('a plain document is accepted wherever a Contract is', () => {
    const ids = Object.fromEntries(['tenant', 'subject', 'job_id', 'request_id', 'policy_version'].map((k) => [k, ACTION[k]]))
    assert.deepEqual(as.action(CONTRACT, ACTION.args, ids), as.action(refund, ACTION.args, ids))
    assert.deepEqual(as.requiresApproval(CONTRACT, ACTION.args), refund.requiresApproval(ACTION.args))
    assert.deepEqual(as.check(APPROVAL, ACTION, CONTEXT), as.check(APPROVAL, ACTION, { ...CONTEXT, contract: refund }))
    // A document in a null-prototype object, and one made in another realm, are documents too.
    const bare = Object.assign(Object.create(null), CONTRACT)
    assert.equal(as.requiresApproval(bare, ACTION.args).rule, '/approval/when/0')
    const foreign = vm.runInNewContext(`(${JSON.stringify(CONTRACT)})`)
    assert.equal(new as.Contract(foreign).digest, refund.digest)
  })

  it('a subclass instance counts as a Contract; a look-alike or a Schema does not', () => {
    class Audited extends as.Contract {
      note() {
        return `audited ${this.tool}`
      }
    }
    const audited = new Audited(CONTRACT)
    assert.equal(audited.note(), 'audited refund_create')
    assert.equal(as.check(APPROVAL, ACTION, { ...CONTEXT, contract: audited }).outcome, 'permit')
    assert.equal(as.requiresApproval(audited, ACTION.args).required, true)

    const fake = Object.create(as.Contract.prototype)
    let e = thrownBy(() => as.check(APPROVAL, ACTION, { ...CONTEXT, contract: fake }))
    assert.equal(e.code, 'unsupported_type')
    assert.equal(e.path, '/contract')
    e = thrownBy(() => as.requiresApproval(fake, ACTION.args))
    assert.equal(e.code, 'unsupported_type')
    assert.equal(e.path, '')
    const schema = new as.Schema(CONTRACT.args)
    e = thrownBy(() => as.check(APPROVAL, ACTION, { ...CONTEXT, contract: schema }))
    assert.equal(e.code, 'unsupported_type')
    assert.match(e.message, /Schema has no JSON representation/)
    // A Proxy of a Contract is neither data nor the instance.
    e = thrownBy(() => as.check(APPROVAL, ACTION, { ...CONTEXT, contract: new Proxy(audited, {}) }))
    assert.equal(e.code, 'unsupported_type')
    assert.equal(e.path, '/contract')
  })

  it('a context from another realm (a vm context) may hold a Contract', () => {
    const refundHere = new as.Contract(CONTRACT)
    const make = vm.runInNewContext('(text, contract) => ({ ...JSON.parse(text), contract })')
    const context = make(JSON.stringify(CONTEXT), refundHere)
    assert.equal(Object.getPrototypeOf(context) === Object.prototype, false)
    assert.equal(as.check(APPROVAL, ACTION, context).outcome, 'permit')
  })

  it('an undefined approval is none; any other non-data approval is refused', () => {
    const withContract = { ...CONTEXT, contract: refund }
    assert.deepEqual(as.check(undefined, ACTION, withContract), as.check(null, ACTION, withContract))
    assert.equal(as.check(undefined, ACTION, withContract).reasons[0], 'no_approval')
    const e = thrownBy(() => as.check(refund, ACTION, withContract))
    assert.equal(e.code, 'unsupported_type')
    assert.equal(e.path, '')
  })
})

describe('JavaScript running while a check reads its arguments', () => {
  it('a getter may call check (with a Contract) itself', () => {
    const refund = new as.Contract(CONTRACT)
    let inner
    const context = {
      ...CONTEXT,
      contract: refund,
      get now() {
        inner = as.check(null, withAmount(500), { ...CONTEXT, contract: refund })
        return CONTEXT.now
      },
    }
    const outer = as.check(APPROVAL, ACTION, context)
    assert.equal(outer.outcome, 'permit')
    assert.deepEqual(inner.reasons, [])
    assert.equal(inner.outcome, 'permit')
  })

  it('the first argument that cannot be read decides the error, in argument order', () => {
    const badApproval = { ...APPROVAL, decided_at: 10n }
    const badAction = { ...ACTION, tenant: undefined }
    const badContext = { ...CONTEXT, now: Symbol('now') }
    assert.equal(thrownBy(() => as.check(badApproval, badAction, badContext)).path, '/decided_at')
    assert.equal(thrownBy(() => as.check(APPROVAL, badAction, badContext)).path, '/tenant')
    assert.equal(thrownBy(() => as.check(APPROVAL, ACTION, badContext)).path, '/now')
    // Getters of later arguments do not run once an earlier one is refused.
    let ran = false
    const watched = { ...CONTEXT, get revoked() { ran = true; return false } }
    thrownBy(() => as.check(badApproval, ACTION, watched))
    assert.equal(ran, false)
  })
})

describe('check of a loaded Approval (walked in JavaScript first, objects remembered by identity)', () => {
  it('alternating Approvals and Contracts, and failed checks between them, give each its own verdict', () => {
    const other = as.approve(withAmount(900), {
      approval_id: 'apr-2', decision_id: 'dec-2', approver: APPROVAL.approver, decision: 'approved',
      decided_at: APPROVAL.decided_at, expires_at: APPROVAL.expires_at,
    })
    const approvals = [new as.Approval(APPROVAL), new as.Approval(other), new as.Approval(APPROVAL)]
    const records = [APPROVAL, other, APPROVAL]
    // A second Contract of the same document, and a stricter one of the same tool (its
    // schema refuses the amount, so its verdicts differ).
    const strict = { ...CONTRACT, args: { ...CONTRACT.args, properties: { ...CONTRACT.args.properties, amount_minor: { type: 'integer', maximum: 100 } } } }
    const contracts = [new as.Contract(CONTRACT), new as.Contract(strict), new as.Contract(CONTRACT), CONTRACT]
    const documents = [CONTRACT, strict, CONTRACT, CONTRACT]
    const presented = [ACTION, withAmount(900)]
    const outcomes = new Set()
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < approvals.length; i++) {
        for (let k = 0; k < contracts.length; k++) {
          for (const action of presented) {
            const got = as.check(approvals[i], action, { ...CONTEXT, contract: contracts[k] })
            const want = as.check(records[i], action, { ...CONTEXT, contract: documents[k] })
            assert.deepEqual(got, want, `approval ${i}, contract ${k}, amount ${action.args.amount_minor}`)
            outcomes.add(got.outcome + ' ' + got.reasons.join(','))
            // A check that throws after the approval and the contract were read changes
            // nothing that the next check remembers.
            const bad = { ...CONTEXT, contract: contracts[(k + 1) % contracts.length], tenant: 7 }
            assert.equal(thrownBy(() => as.check(approvals[(i + 1) % approvals.length], action, bad)).code, 'invalid_context')
          }
        }
      }
    }
    assert.ok(outcomes.size >= 3, [...outcomes].join('; '))
  })

  it('a check whose walk needs a bigger tape in between does not leave its Contract behind', () => {
    const loaded = new as.Approval(APPROVAL)
    const refund = { ...CONTEXT, contract: new as.Contract(CONTRACT) }
    const strict = { ...CONTRACT, args: { ...CONTRACT.args, properties: { ...CONTRACT.args.properties, amount_minor: { type: 'integer', maximum: 100 } } } }
    const strictContext = { ...CONTEXT, contract: new as.Contract(strict) }
    // An action with 40,000 values: its walk always outgrows the tape the front keeps.
    const big = { ...ACTION, args: { ...ACTION.args, lines: Array.from({ length: 40000 }, (_, i) => i) } }
    for (let round = 0; round < 3; round++) {
      assert.equal(as.check(loaded, ACTION, refund).outcome, 'permit')
      assert.deepEqual(as.check(loaded, big, strictContext), as.check(APPROVAL, big, { ...CONTEXT, contract: strict }))
      assert.equal(as.check(loaded, ACTION, refund).outcome, 'permit')
      assert.deepEqual(as.check(loaded, ACTION, strictContext), as.check(APPROVAL, ACTION, { ...CONTEXT, contract: strict }))
    }
  })

  it('the presented action is compared with the held frozen one, which is checked in its place only when they are the same', () => {
    const loaded = new as.Approval(APPROVAL)
    const context = { ...CONTEXT, contract: new as.Contract(CONTRACT) }
    const reversed = Object.fromEntries(Object.entries(ACTION).reverse())
    const same = [ACTION, reversed, { ...ACTION, args: { ...ACTION.args } }]
    const { currency, ...noCurrency } = ACTION.args
    const { job_id, ...noJob } = ACTION
    const differ = [
      withAmount(ACTION.args.amount_minor + 1),
      { ...ACTION, args: { ...ACTION.args, note: null } },
      { ...ACTION, args: noCurrency },
      { ...ACTION, tenant: 'tenant-b' },
      noJob,
      { ...ACTION, args: [ACTION.args] },
      { ...ACTION, args: { ...ACTION.args, amount_minor: -0 } },
    ]
    for (const action of [...same, ...differ]) {
      assert.deepEqual(as.check(loaded, action, context), as.check(APPROVAL, action, CONTEXT))
    }
    for (const action of same) assert.equal(as.check(loaded, action, context).outcome, 'permit')
    for (const action of differ) assert.notEqual(as.check(loaded, action, context).outcome, 'permit')
    // What is not data is refused with the same error as without the approval loaded.
    for (const bad of [{ ...ACTION, args: { ...ACTION.args, at: new Date(0) } }, { ...ACTION, tenant: undefined }]) {
      const got = thrownBy(() => as.check(loaded, bad, context))
      const want = thrownBy(() => as.check(APPROVAL, bad, CONTEXT))
      assert.deepEqual([got.code, got.path, got.message], [want.code, want.path, want.message])
    }
  })

  it('a look-alike of an Approval is not one, even right after a real one was checked', () => {
    const loaded = new as.Approval(APPROVAL)
    const context = { ...CONTEXT, contract: new as.Contract(CONTRACT) }
    assert.equal(as.check(loaded, ACTION, context).outcome, 'permit')
    const fake = Object.create(as.Approval.prototype)
    assert.equal(thrownBy(() => as.check(fake, ACTION, context)).code, 'unsupported_type')
    assert.equal(as.check(loaded, ACTION, context).outcome, 'permit')
  })

  it('the same verdicts through a second copy of the module loaded in the same process', () => {
    const path = require.resolve(pkg)
    const saved = { ...require.cache }
    for (const key of Object.keys(require.cache)) delete require.cache[key]
    let again
    try {
      again = require(path)
    } finally {
      Object.assign(require.cache, saved)
    }
    assert.notEqual(again.check, as.check)
    const ours = [new as.Approval(APPROVAL), { ...CONTEXT, contract: new as.Contract(CONTRACT) }]
    const theirs = [new again.Approval(APPROVAL), { ...CONTEXT, contract: new again.Contract(CONTRACT) }]
    for (let i = 0; i < 4; i++) {
      for (const action of [ACTION, withAmount(900)]) {
        const want = as.check(APPROVAL, action, CONTEXT)
        assert.deepEqual(as.check(ours[0], action, ours[1]), want)
        assert.deepEqual(again.check(theirs[0], action, theirs[1]), want)
      }
    }
  })
})

describe('values returned', () => {
  it('are fresh plain objects; a "__proto__" key is an own property, as JSON.parse makes it', () => {
    for (const text of ['{"__proto__": {"polluted": true}, "a": [1, {"__proto__": null}]}', '[{"__proto__": 1}]', '{"a": {"b": {"__proto__": []}}}']) {
      const got = as.parseJson(text)
      assert.deepEqual(got, JSON.parse(text))
      assert.equal(as.canonicalize(got), as.canonicalizeJson(text))
    }
    const got = as.parseJson('{"__proto__": {"polluted": true}}')
    assert.equal(Object.getPrototypeOf(got), Object.prototype)
    assert.deepEqual(Object.keys(got), ['__proto__'])
    assert.equal({}.polluted, undefined)
    const verdict = as.check(APPROVAL, ACTION, CONTEXT)
    assert.equal(Object.getPrototypeOf(verdict), Object.prototype)
    assert.notEqual(verdict, as.check(APPROVAL, ACTION, CONTEXT))
  })

  it('a verdict with drift carries the pointers exactly, whatever they hold', () => {
    const odd = { type: 'object', additionalProperties: true }
    const contract = { ...CONTRACT, args: odd, approval: 'always' }
    const ids = Object.fromEntries(['tenant', 'subject', 'job_id', 'request_id', 'policy_version'].map((k) => [k, ACTION[k]]))
    const args = { 'a b': 1, 'c,d': 2, 'e/f': 3, 'g~h': 4, 'é "x"': 5, '': 6 }
    const approved = as.action(contract, args, ids)
    const record = as.approve(approved, { approval_id: 'a', decision_id: 'd', decision: 'approved', approver: 'bob', decided_at: 1, expires_at: 2e12 })
    const changed = Object.fromEntries(Object.keys(args).map((k) => [k, 0]))
    const presented = as.action(contract, changed, ids)
    const verdict = as.check(record, presented, {
      ...CONTEXT,
      contract: new as.Contract(contract),
      approver_authorized: { approver: 'bob', authorized: true },
      revoked: { approval_id: 'a', revoked: false },
    })
    assert.deepEqual(verdict.reasons, ['action_drift'])
    assert.deepEqual(verdict.drift, ['/args/', '/args/a b', '/args/c,d', '/args/e~1f', '/args/g~0h', '/args/é "x"'])
  })
})

describe('garbage collection', () => {
  it('Contract and Schema objects are collected without harm, also while in use elsewhere', () => {
    // In a child process, so that the garbage collector can be driven (--expose-gc). Nothing
    // here waits for time to pass: the collector is run until every instance dropped is
    // finalized, which each full collection moves forward.
    const source = `
      const as = require(${JSON.stringify(pkg)})
      const contract = ${JSON.stringify(CONTRACT)}
      const approval = ${JSON.stringify(APPROVAL)}
      const action = ${JSON.stringify(ACTION)}
      const context = ${JSON.stringify(CONTEXT)}
      const made = 4000
      let finalized = 0
      const registry = new FinalizationRegistry(() => { finalized++ })
      const kept = new as.Contract(contract)
      ;(function churn() {
        for (let i = 0; i < made / 2; i++) {
          const c = new as.Contract(contract)
          registry.register(c, i)
          const s = new as.Schema(contract.args)
          registry.register(s, i)
          if (i % 100 === 0) {
            s.validate(action.args)
            if (as.check(approval, action, { ...context, contract: c }).outcome !== 'permit') throw new Error('verdict')
          }
        }
      })()
      const turn = () => new Promise((r) => setImmediate(r))
      ;(async () => {
        let collections = 0
        while (finalized < made && collections < 1000) {
          await turn()
          globalThis.gc()
          collections++
        }
        // A check whose context is the only holder of a Contract made on the spot.
        for (let i = 0; i < 2000; i++) as.check(approval, action, { ...context, contract: new as.Contract(contract) })
        globalThis.gc()
        const verdict = as.check(approval, action, { ...context, contract: kept })
        console.log(JSON.stringify({ made, finalized, outcome: verdict.outcome, digest: kept.digest }))
      })()
    `
    const r = spawnSync(process.execPath, ['--expose-gc', '-e', source], { encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    const out = JSON.parse(r.stdout.trim())
    assert.equal(out.finalized, out.made, `${out.finalized} of ${out.made} dropped instances were finalized`)
    assert.equal(out.outcome, 'permit')
    assert.equal(out.digest, as.fingerprint(CONTRACT))
  })
})

describe('worker threads', () => {
  it('each thread makes its own Contracts and gets the same verdicts', async () => {
    const source = `
      const { parentPort, workerData } = require('node:worker_threads')
      const as = require(workerData.pkg)
      const refund = new as.Contract(workerData.contract)
      const out = []
      for (let amount = 0; amount < 3000; amount += 7) {
        const action = { ...workerData.action, args: { ...workerData.action.args, amount_minor: amount } }
        out.push(as.check(workerData.approval, action, { ...workerData.context, contract: refund }))
      }
      parentPort.postMessage({ out, digest: refund.digest })
    `
    const data = { contract: CONTRACT, action: ACTION, approval: APPROVAL, context: CONTEXT }
    const runs = await Promise.all([0, 1, 2].map(() => inWorker(source, data)))
    const refund = new as.Contract(CONTRACT)
    const want = []
    for (let amount = 0; amount < 3000; amount += 7) {
      want.push(as.check(APPROVAL, withAmount(amount), { ...CONTEXT, contract: refund }))
    }
    for (const r of runs) {
      assert.equal(r.digest, refund.digest)
      assert.deepEqual(r.out, want)
    }
  })

  it('a Contract sent to another thread arrives as plain data, not as a Contract', async () => {
    const refund = new as.Contract(CONTRACT)
    const source = `
      const { parentPort, workerData } = require('node:worker_threads')
      const as = require(workerData.pkg)
      let error
      try { as.check(null, workerData.action, { ...workerData.context, contract: workerData.refund }) } catch (e) { error = [e.code, e.path] }
      parentPort.postMessage({ error, isContract: workerData.refund instanceof as.Contract })
    `
    const r = await inWorker(source, { refund, action: ACTION, context: CONTEXT })
    assert.equal(r.isContract, false)
    assert.deepEqual(r.error, ['invalid_contract', '/contract/tool'])
  })

  it('a worker that ends, or is terminated, while holding Contracts ends cleanly', async () => {
    // `stay` keeps the worker busy (a timer) until it is terminated; else it exits by itself.
    const source = `
      const { parentPort, workerData } = require('node:worker_threads')
      const as = require(workerData.pkg)
      globalThis.kept = Array.from({ length: 500 }, () => new as.Contract(workerData.contract))
      if (workerData.stay) setInterval(() => {}, 1000)
      parentPort.postMessage(globalThis.kept.length)
    `
    for (const stay of [false, true, false, true]) {
      const w = new Worker(source, { eval: true, workerData: { pkg, contract: CONTRACT, stay } })
      const exited = new Promise((resolve) => w.once('exit', resolve))
      const n = await new Promise((resolve, reject) => {
        w.once('message', resolve)
        w.once('error', reject)
      })
      assert.equal(n, 500)
      if (stay) await w.terminate()
      // 0: it ended by itself; 1: terminated (Node's code for that).
      assert.equal(await exited, stay ? 1 : 0)
    }
    assert.equal(as.check(APPROVAL, ACTION, CONTEXT).outcome, 'permit')
  })
})

describe('commitAction salts', () => {
  const payload = JSON.parse(readFileSync(join(pkg, '..', 'bench', 'payloads', 'sensitive.json'), 'utf8'))
  const salt = (d) => JSON.parse(Buffer.from(d, 'base64url'))[0]

  it('a getRandomValues that commits too, while a block of salts is drawn, gets other salts', () => {
    const marked = new as.Contract(payload.marked)
    const commit = () => as.commitAction(marked, payload.args, payload.ids).disclosures.map(salt)
    const webCrypto = globalThis.crypto
    const inner = []
    let drawn = 0
    // An own property over Crypto.prototype's method; deleted while it commits, so that the
    // inner call draws from the real one.
    const replaced = function (array) {
      drawn++
      delete webCrypto.getRandomValues
      try {
        inner.push(...commit())
      } finally {
        webCrypto.getRandomValues = replaced
      }
      return Object.getPrototypeOf(webCrypto).getRandomValues.call(this, array)
    }
    webCrypto.getRandomValues = replaced
    const outer = []
    try {
      // A block serves 85 commits of three values: a new one is drawn within 86.
      for (let i = 0; i < 90 && drawn === 0; i++) outer.push(commit())
    } finally {
      delete webCrypto.getRandomValues
    }
    assert.equal(drawn, 1)
    assert.equal(inner.length, 3)
    const all = [...outer.flat(), ...inner]
    assert.equal(new Set(all).size, all.length)
  })
})
