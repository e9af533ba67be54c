// The ledger through the Node addon, on SQLite and on PostgreSQL: the shared scenarios (same
// steps, same codes, same audit bytes as Rust and Python), derived identities, exported
// audits verified anywhere, every method, a claim race between async callers, calls waiting
// inside PostgreSQL while the event loop runs on (and several of them at once), and bad input
// rejected with coded errors.
//
//   scripts/pg run node --test bindings-node/test/ledger.test.mjs

import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import {
  COMMON, Fresh, IDS, OPEN, Scenario, UNGUARD, api, approvalId, audits, engines, facts, junkFile, psql,
  rejection, scenarios, sqliteExec,
} from '../../conformance/js/ledger.mjs'

const { Ledger, ManualClock, ActionsealError, Contract } = api
const REFUND = COMMON.contracts.refund
const { tenant, subject, policy_version } = COMMON.ids

const refund = (job, amount = 2500, more = {}) =>
  api.action(REFUND, { order_id: 'order-17', amount_minor: amount, currency: 'USD' },
    { tenant, subject, job_id: job, request_id: 'req-1', policy_version, ...more })

const decision = (task, decisionId, now, ttl = 3_600_000) => ({
  approval_id: task.approval_id, decision_id: decisionId, job_id: task.job_id, request_id: task.request_id,
  action_digest: task.action_digest, decision: 'approved', approver: COMMON.approver, decided_at: now, expires_at: now + ttl,
})

/** The coded error a promise rejects with, checked to be an ActionsealError. */
async function coded(promise) {
  const e = await rejection(promise)
  assert.ok(e instanceof ActionsealError, `not an ActionsealError: ${e}`)
  assert.ok(e.message.startsWith(`${e.code}: `))
  return e
}

const fresh = new Map()
const freshFor = (engine) => {
  if (!fresh.has(engine)) fresh.set(engine, new Fresh(engine))
  return fresh.get(engine)
}
after(() => {
  for (const f of fresh.values()) f.close()
})

for (const engine of engines()) {
  describe(`ledger on ${engine}`, () => {
    for (const [name, doc] of scenarios()) {
      it(`scenario ${name}`, async () => {
        const { problems, kinds, digest } = await (await Scenario.open(doc, freshFor(engine).url())).run()
        assert.deepEqual(problems, [])
        assert.deepEqual(kinds, doc.audit)
        assert.equal(digest, doc.audit_digest, 'the exported audit is not the bytes Rust writes')
      })
    }

    it('every method', async () => {
      const clock = new ManualClock(COMMON.start)
      const ledger = await Ledger.open(freshFor(engine).url(), { clock })
      assert.equal(ledger.backend, engine)
      assert.equal(ledger.now(), clock.now)
      const contract = new Contract(REFUND)
      const action = refund('job-1')
      const task = await ledger.propose({ action, contract, proposer: 'agent' })
      assert.equal((await ledger.propose({ action, contract: REFUND, proposer: 'agent' })).id, task.id)
      assert.equal(task.state, 'awaiting_approval')
      assert.deepEqual(task.action, action)
      const decided = await ledger.decide(decision(task, 'dec-1', ledger.now()))
      assert.deepEqual([decided.duplicate, decided.decision.decision_id], [false, 'dec-1'])
      assert.deepEqual(await ledger.setBudget({ name: 'refunds', limit_minor: 100 }),
        { name: 'refunds', limit_minor: 100, spent_minor: 0, reserved_minor: 0 })
      // Drift is an outcome, not an error: the approved action comes back to resume with.
      const base = { task_id: task.id, facts: facts(REFUND), executor: 'w1', lease_ms: 60_000 }
      let out = await ledger.claim({ ...base, action: refund('job-1', 2600) })
      assert.deepEqual([out.result, out.claimed, out.claim], ['tool_args_drift', false, null])
      assert.deepEqual(out.approved_action, action)
      assert.deepEqual(out.verdict.drift, ['/args/amount_minor'])
      out = await ledger.claim({ ...base, action, budget: 'refunds' })
      assert.deepEqual([out.result, out.claim.fence, out.claim.idempotency_key], ['claimed', 1, task.idempotency_key])
      assert.deepEqual(out.claim.action, action)
      assert.equal((await ledger.budget('refunds')).reserved_minor, REFUND.cost_minor)
      assert.deepEqual((await ledger.tasks({ state: 'claimed' })).map((t) => t.id), [task.id])
      assert.deepEqual(await ledger.tasks({ state: 'claimed', tenant: 'someone-else' }), [])
      assert.deepEqual((await ledger.tasks()).map((t) => t.id), [task.id])
      // An outcome in doubt is held, then reconciled.
      clock.advance(1000)
      assert.equal((await ledger.complete({ task_id: task.id, fence: 1, outcome: 'unknown', executor: 'w1' })).state, 'unknown')
      const done = await ledger.reconcile({ task_id: task.id, observed: 'succeeded', actor: 'ops', result: { refund: 're_1' } })
      assert.deepEqual([done.state, done.result], ['succeeded', { refund: 're_1' }])
      assert.equal((await ledger.budget('refunds')).spent_minor, REFUND.cost_minor)
      const history = await ledger.history(task.id)
      assert.deepEqual(history.task, done)
      assert.deepEqual(history.events.map((e) => e.kind),
        ['proposed', 'propose_duplicate', 'decided', 'tool_args_drift', 'claimed', 'completed', 'reconciled'])
      const revoked = await ledger.revoke({ approval_id: task.approval_id, actor: 'admin' })
      assert.deepEqual([revoked.task_id, revoked.duplicate], [task.id, false])
      assert.deepEqual(await ledger.expireLeases(), [])
      const exported = await ledger.auditExport()
      const report = await ledger.auditVerify()
      assert.ok(report.valid)
      assert.equal(report.events, exported.trim().split('\n').length)
      assert.deepEqual(api.verifyAudit(Buffer.from(exported), report.heads), report)
      await ledger.close()
      assert.equal((await coded(ledger.task(task.id))).code, 'ledger_unavailable')
    })

    it('the audit replays rows and checks heads exported earlier', async () => {
      const url = freshFor(engine).url()
      const ledger = await Ledger.open(url)
      const action = refund('job-1')
      const task = await ledger.propose({ action, contract: REFUND, proposer: 'agent' })
      await ledger.decide(decision(task, 'dec-1', ledger.now()))
      const out = await ledger.claim({ task_id: task.id, action, facts: facts(REFUND), executor: 'w1', lease_ms: 60_000 })
      await ledger.complete({ task_id: task.id, fence: out.claim.fence, outcome: 'succeeded', executor: 'w1' })
      const heads = await ledger.auditHeads()
      assert.deepEqual([heads.version, heads.heads.map((h) => h.seq)], [1, [4]])
      assert.ok((await ledger.auditVerify({ exported: heads })).valid)
      // An export cut short of the heads kept outside the database holds on its own.
      const lines = (await ledger.auditExport()).trim().split('\n')
      const cut = lines.slice(0, -1).join('\n')
      assert.ok(api.verifyAudit(cut).valid)
      const broken = api.verifyAudit(cut, null, heads).broken
      assert.deepEqual([broken.problem, broken.seq], ['truncated', 4])
      // A row rewound by hand is not what its events leave it at.
      const rewind = `UPDATE ledger_tasks SET state = 'approved' WHERE id = '${task.id}'`
      if (engine === 'sqlite') sqliteExec(url.slice('sqlite:'.length), rewind)
      else psql(url, rewind)
      const b = (await ledger.auditVerify()).broken
      assert.deepEqual([b.problem, b.task, b.field], ['row_mismatch', task.id, 'state'])
      assert.equal((await coded(ledger.auditHeads())).code, 'audit_chain_broken')
      const e = await coded(ledger.auditVerify({ exported: { ...heads, version: 2 } }))
      assert.deepEqual([e.code, e.path], ['invalid_audit_heads', '/exported/version'])
      await ledger.close()
    })

    it('proven decisions: recorded with their signer, forgeries refused, bare ones refused where required', async () => {
      const { SigningKey } = api
      const key = SigningKey.generate()
      const stranger = SigningKey.generate()
      const keys = { service_keys: { [key.keyid]: { key: key.publicJwk } } }
      const clock = new ManualClock(COMMON.start)
      const now = COMMON.start
      const ledger = await Ledger.open(freshFor(engine).url(), { clock, proof: { required: true, keys } })
      const task = await ledger.propose({ action: refund('job-1'), contract: REFUND, proposer: 'agent' })
      const bare = decision(task, 'dec-1', now)
      const input = { approval_id: task.approval_id, decision_id: 'dec-1', decision: 'approved',
        approver: bare.approver, decided_at: now, expires_at: bare.expires_at }
      const record = api.approve(task.action, input)
      const envelope = key.sign(record)
      assert.equal((await coded(ledger.decide(bare))).code, 'missing_proof')
      assert.equal((await coded(ledger.decide(stranger.sign(record)))).code, 'unknown_key')
      const other = await ledger.propose({ action: refund('job-2'), contract: REFUND, proposer: 'agent' })
      const e = await coded(ledger.decide(key.sign(api.approve(other.action, input))))
      assert.deepEqual([e.code, e.path], ['decision_mismatch', '/job_id'])
      const p = envelope.payload
      const flipped = { ...envelope, payload: p.slice(0, 10) + (p[10] === 'A' ? 'B' : 'A') + p.slice(11) }
      assert.equal((await coded(ledger.decide(flipped))).code, 'invalid_signature')
      assert.equal((await ledger.task(task.id)).state, 'awaiting_approval')

      const decided = await ledger.decide(envelope)
      assert.deepEqual([decided.duplicate, decided.signer], [false, { kind: 'service', keyid: key.keyid }])
      assert.deepEqual(decided.task.approval, record)
      assert.deepEqual(decided.decision, bare)
      assert.equal((await ledger.decide(envelope)).duplicate, true)
      const { events } = await ledger.history(task.id)
      const { detail } = events.find((ev) => ev.kind === 'decided')
      // The audit keeps the signature without the payload (the record, with the argument
      // values, which the task keeps): together they are the envelope again.
      const { payload, ...signatures } = envelope
      assert.deepEqual([detail.signer, detail.proof], [decided.signer, signatures])
      assert.deepEqual(api.verifyProof({ ...detail.proof, payload }, keys, detail.verified_at).approval, decided.task.approval)
      const out = await ledger.claim({ task_id: task.id, action: task.action, facts: facts(REFUND), executor: 'w1', lease_ms: 60_000 })
      assert.equal(out.result, 'claimed')
      // The claim carries what it checked: the record, and its proof whole again.
      assert.deepEqual(out.claim.approval, record)
      assert.deepEqual(out.claim.proof.proven, envelope)
      assert.equal(out.claim.proof.verified_at, decided.task.proof.verified_at)
      assert.deepEqual(api.verifyProof(out.claim.proof.proven, keys, out.claim.proof.verified_at).approval, record)
      assert.ok((await ledger.auditVerify()).valid)
      await ledger.close()

      // Without the option a bare decision is recorded (signer null) and no proof verifies.
      const plain = await Ledger.open(freshFor(engine).url(), { clock, proof: null })
      const t = await plain.propose({ action: refund('job-1'), contract: REFUND, proposer: 'agent' })
      assert.equal((await coded(plain.decide(envelope))).code, 'unknown_key')
      assert.equal((await plain.decide(decision(t, 'dec-1', now))).signer, null)
      await plain.close()
      const bad = await coded(Ledger.open('sqlite::memory:', { proof: { required: 'yes', keys } }))
      assert.deepEqual([bad.code, bad.path], ['invalid_context', '/proof/required'])
    })

    it('proof required binds every handle on the database (the red-team case)', async () => {
      const key = api.SigningKey.generate()
      const keys = { service_keys: { [key.keyid]: { key: key.publicJwk } } }
      const clock = new ManualClock(COMMON.start)
      const now = COMMON.start
      const url = freshFor(engine).url()
      const stale = await Ledger.open(url, { clock })
      const strict = await Ledger.open(url, { clock, proof: { required: true, keys } })
      assert.equal((await strict.policy()).proof, 'required')
      const task = await strict.propose({ action: refund('job-1'), contract: REFUND, proposer: 'agent' })
      const second = await Ledger.open(url, { clock })
      assert.equal((await coded(second.decide(decision(task, 'dec-1', now)))).code, 'missing_proof')
      const weaker = await coded(Ledger.open(url, { clock, proof: { required: false, keys } }))
      assert.equal(weaker.code, 'proof_policy_weakened')
      // A handle opened before the requirement records a bare decision; claims refuse it.
      await stale.decide(decision(task, 'dec-1', now))
      const claim = { task_id: task.id, action: task.action, facts: facts(REFUND), executor: 'w1', lease_ms: 60_000 }
      assert.equal((await coded(stale.claim({ ...claim, proof: 'required' }))).code, 'missing_proof')
      assert.equal((await coded(strict.claim(claim))).code, 'missing_proof')
      assert.equal((await strict.task(task.id)).state, 'approved')
      const changed = await second.setProofRequirement({ proof: 'optional', actor: 'admin', reason: 'pilot ended' })
      assert.deepEqual([changed.proof, changed.changed_by], ['optional', 'admin'])
      const lines = (await strict.auditExport()).split('\n').filter((l) => l.includes('proof_policy_changed'))
      assert.equal(lines.length, 2)
      assert.ok(lines[1].includes('pilot ended'))
      for (const l of [stale, strict, second]) await l.close()
    })

    it('a claim race between async callers: exactly one winner per task', async () => {
      const url = freshFor(engine).url() + (engine === 'sqlite' ? '?synchronous=normal' : '')
      const ledger = await Ledger.open(url)
      for (let t = 0; t < 12; t++) {
        const action = refund(`job-${t}`)
        const task = await ledger.propose({ action, contract: REFUND, proposer: 'agent' })
        await ledger.decide(decision(task, `dec-${t}`, ledger.now()))
        const contenders = Array.from({ length: 16 }, (_, i) =>
          ledger.claim({ task_id: task.id, action, facts: facts(REFUND), executor: `w${i}`, lease_ms: 60_000 })
            .then((o) => o.result, (e) => e.code))
        const got = (await Promise.all(contenders)).sort()
        assert.deepEqual(got, [...Array(15).fill('already_claimed'), 'claimed'], `task ${t}`)
        const kinds = (await ledger.history(task.id)).events.map((e) => e.kind)
        assert.equal(kinds.filter((k) => k === 'claimed').length, 1)
        assert.equal(kinds.filter((k) => k === 'claim_refused').length, 15)
      }
      await ledger.close()
    })
  })
}

describe('the event loop while the database waits', () => {
  const base = process.env.ACTIONSEAL_TEST_PG
  const skip = base === 'skip' ? 'ACTIONSEAL_TEST_PG=skip' : false

  /** Another connection (psql) holding ACCESS EXCLUSIVE on `table` until `release`;
   * PostgreSQL ends its transaction itself after 30 s idle, so a test gone wrong fails rather
   * than hangs. */
  async function lockHolder(url, table) {
    const p = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url], { stdio: ['pipe', 'pipe', 'inherit'] })
    p.stdin.write(`SET idle_in_transaction_session_timeout = '30s';\nBEGIN;\nLOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE;\n\\echo locked\n`)
    await new Promise((resolve, reject) => {
      let out = ''
      p.stdout.on('data', (d) => {
        out += d
        if (out.includes('locked')) resolve()
      })
      p.on('exit', () => reject(new Error('psql exited')))
    })
    return {
      release: () => new Promise((resolve) => {
        p.on('exit', resolve)
        p.stdin.end('COMMIT;\n')
      }),
    }
  }

  const waiting = async (url, table) => {
    const { stdout } = await promisify(execFile)('psql', ['-X', '-q', '-A', '-t', '-d', url, '-c',
      `SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = '${table}'::regclass`])
    return Number(stdout.trim())
  }

  it('timers fire and four calls wait inside PostgreSQL at once', { skip }, async () => {
    // Four: libuv's pool size by default (UV_THREADPOOL_SIZE), which bounds the calls in
    // flight at once.
    const url = freshFor('postgres').url()
    const ledger = await Ledger.open(url)
    const ids = []
    for (let i = 0; i < 4; i++) ids.push((await ledger.propose({ action: refund(`job-${i}`), contract: REFUND, proposer: 'agent' })).id)
    const holder = await lockHolder(url, 'ledger_tasks')
    let settled = 0
    const calls = ids.map((id) => ledger.task(id).finally(() => { settled += 1 }))
    // The loop runs on: a timer fires, and the main flow watches PostgreSQL (with child
    // processes the loop drives) until all four calls wait on the lock together. A call that
    // blocked the loop would stop all of this until the lock went away.
    let ticks = 0
    const timer = setInterval(() => { ticks += 1 }, 5)
    let seen = 0
    const deadline = Date.now() + 30_000
    while (seen < ids.length && Date.now() < deadline) seen = Math.max(seen, await waiting(url, 'ledger_tasks'))
    await new Promise((resolve) => setTimeout(resolve, 20))
    clearInterval(timer)
    assert.equal(settled, 0, 'a call settled while the lock was held')
    await holder.release()
    const states = await Promise.all(calls)
    assert.equal(seen, ids.length, `at most ${seen} calls waited at once`)
    assert.ok(ticks > 0, 'the timer never fired while the calls waited')
    assert.deepEqual(states.map((t) => t.state), Array(4).fill('awaiting_approval'))
    await ledger.close()
  })
})

describe('derived identities and exported audits', () => {
  it('task ids, idempotency keys and approval ids are the vectors\'', async () => {
    const ledger = await Ledger.open('sqlite::memory:')
    for (const c of IDS) {
      const identity = { tenant: c.tenant, job_id: c.job_id, request_id: c.request_id }
      if (c.job_id.includes(' ')) {
        // Derivable in core, but no action can carry it: refused up front.
        const e = (() => { try { Ledger.taskId(identity) } catch (e) { return e } })()
        assert.deepEqual([e.code, e.path], ['invalid_request', '/job_id'])
        continue
      }
      assert.equal(Ledger.taskId(identity), c.expect.task_id)
      const action = api.action(REFUND, { order_id: 'order-17', amount_minor: 2500, currency: 'USD' },
        { tenant: c.tenant, subject, job_id: c.job_id, request_id: c.request_id, policy_version })
      const task = await ledger.propose({ action, contract: REFUND, proposer: 'agent' })
      assert.deepEqual([task.id, task.idempotency_key, task.approval_id], [c.expect.task_id, c.expect.idempotency_key, c.expect.approval_ids[0]])
      assert.deepEqual([1, 2].map((n) => approvalId(task.id, n)), c.expect.approval_ids)
    }
    await ledger.close()
  })

  for (const [name, v] of audits()) {
    it(`audit ${name}`, () => {
      const text = 'input' in v ? v.input : Buffer.from(v.input_hex, 'hex')
      const report = api.verifyAudit(text, v.heads, v.exported)
      for (const [k, want] of Object.entries(v.expect)) assert.deepEqual(report[k], want, k)
      assert.equal(report.valid, name.startsWith('y_'))
    })
  }

  it('heads that are not heads are a coded error', () => {
    const e = (() => { try { api.verifyAudit('', [{ chain: 0, seq: 0, digest: 'x' }]) } catch (e) { return e } })()
    assert.deepEqual([e.code, e.path], ['invalid_request', '/heads/0/seq'])
  })
})

describe('bad input', () => {
  for (const c of OPEN) {
    it(`the URL ${JSON.stringify(c.url)}`, async () => {
      assert.equal((await coded(Ledger.open(c.url))).code, c.error)
    })
  }

  it('a file that is not SQLite is left as it was', async () => {
    const path = junkFile()
    assert.equal((await coded(Ledger.open(`sqlite:${path}`))).code, 'not_a_ledger')
    assert.deepEqual(readFileSync(path), Buffer.alloc(8192, 'x'))
  })

  it('an unreachable PostgreSQL', async () => {
    const e = await coded(Ledger.open('postgres://postgres@127.0.0.1:1/postgres?connect_timeout=5'))
    assert.equal(e.code, 'ledger_unavailable')
    assert.match(e.message, /cannot reach PostgreSQL/)
  })

  it('a manual clock never moves past 2^53 - 1 ms, which no ledger could read back', () => {
    const clock = new ManualClock(2 ** 53 - 10)
    assert.throws(() => clock.advance(11), (e) =>
      e instanceof ActionsealError && e.code === 'invalid_request' && e.path === '/ms')
    assert.equal(clock.now, 2 ** 53 - 10)
    clock.advance(9)
    assert.equal(clock.now, Number.MAX_SAFE_INTEGER)
  })

  it('wrong types reject with coded errors (never a synchronous throw) and change nothing', async () => {
    const ledger = await Ledger.open('sqlite::memory:')
    const action = refund('job-1')
    const task = await ledger.propose({ action, contract: REFUND, proposer: 'agent' })
    await ledger.decide(decision(task, 'dec-1', ledger.now()))
    const before = await ledger.auditExport()
    const claim = { task_id: task.id, action, facts: facts(REFUND), executor: 'w', lease_ms: 1 }
    const cases = [
      [() => Ledger.open(5), 'invalid_request', '/url'],
      [() => Ledger.open('sqlite::memory:', { clock: new Date() }), 'unsupported_type', '/clock'],
      [() => Ledger.open('sqlite::memory:', { clock: 5 }), 'invalid_request', '/clock'],
      [() => ledger.task(7), 'invalid_request', '/task_id'],
      [() => ledger.task(undefined), 'unsupported_type', '/task_id'],
      [() => ledger.propose({ action, contract: REFUND }), 'invalid_request', '/proposer'],
      [() => ledger.propose({ action, contract: REFUND, proposer: 'a', extra: 1 }), 'invalid_request', '/extra'],
      [() => ledger.propose({ action: { ...action, args: { n: 1n } }, contract: REFUND, proposer: 'a' }), 'unsupported_type', '/action/args/n'],
      [() => ledger.propose({ action, contract: {}, proposer: 'agent' }), 'invalid_contract', '/contract/tool'],
      [() => ledger.claim({ ...claim, lease_ms: true }), 'invalid_request', '/lease_ms'],
      [() => ledger.claim({ ...claim, lease_ms: '60000' }), 'invalid_request', '/lease_ms'],
      [() => ledger.claim({ ...claim, facts: { ...facts(REFUND), now: 1 } }), 'invalid_context', '/now'],
      [() => ledger.complete({ task_id: task.id, fence: 1, outcome: 'done', executor: 'w' }), 'invalid_request', '/outcome'],
      [() => ledger.reconcile({ task_id: task.id, observed: 'succeeded', actor: ' r' }), 'invalid_request', '/actor'],
      [() => ledger.decide({ decision: 'approved' }), 'invalid_decision', '/decided_at'],
      [() => ledger.tasks({ state: 'done' }), 'invalid_request', '/state'],
      [() => ledger.setBudget({ name: 'b', limit_minor: 2.5 }), 'invalid_request', '/limit_minor'],
    ]
    for (const [fn, code, path] of cases) {
      let promise
      assert.doesNotThrow(() => { promise = fn() }, `${code} ${path}: thrown synchronously`)
      const e = await coded(promise)
      assert.deepEqual([e.code, e.path], [code, path], e.message)
    }
    assert.equal(await ledger.auditExport(), before)
    assert.equal((await ledger.task(task.id)).state, 'approved')
    await ledger.close()
  })

  it('rows edited behind the ledger\'s back are coded errors', async () => {
    const f = freshFor('sqlite')
    const url = f.url()
    const path = url.slice('sqlite:'.length)
    const ledger = await Ledger.open(url)
    const task = await ledger.propose({ action: refund('job-1'), contract: REFUND, proposer: 'agent' })
    sqliteExec(path, UNGUARD + "UPDATE ledger_events SET body = '{}'")
    assert.equal((await coded(ledger.history(task.id))).code, 'audit_chain_broken')
    assert.equal((await ledger.auditVerify()).broken.problem, 'malformed')
    sqliteExec(path, "UPDATE ledger_tasks SET action = '{'")
    assert.equal((await coded(ledger.task(task.id))).code, 'ledger_storage')
    await ledger.close()
    sqliteExec(path, 'UPDATE ledger_schema SET version = 99')
    assert.equal((await coded(Ledger.open(url))).code, 'ledger_schema_too_new')
  })

  it('an integer outside ±(2^53 − 1) in a row is ledger_value_out_of_range, never null nor rounded', async () => {
    const f = freshFor('sqlite')
    const url = f.url()
    const path = url.slice('sqlite:'.length)
    const ledger = await Ledger.open(url)
    const task = await ledger.propose({ action: refund('job-1'), contract: REFUND, proposer: 'agent' })
    await ledger.setBudget({ name: 'team', limit_minor: 100 })
    const read = { ledger_tasks: () => ledger.task(task.id), ledger_budgets: () => ledger.budget('team') }
    // SQL text, so that no JavaScript number rounds the values on the way in.
    for (const [table, column, value] of [
      ['ledger_tasks', 'fence', '1152921504606846976'], ['ledger_tasks', 'fence', '9007199254740993'],
      ['ledger_tasks', 'reserved', '-9007199254740992'], ['ledger_tasks', 'created_at', '9223372036854775807'],
      ['ledger_budgets', 'spent_minor', '1152921504606846976'],
    ]) {
      sqliteExec(path, `UPDATE ${table} SET ${column} = ${value}`)
      const e = await coded(read[table]())
      assert.equal(e.code, 'ledger_value_out_of_range', `${column} = ${value}`)
      assert.match(e.message, /2\^53/)
      if (table === 'ledger_tasks') assert.equal((await coded(ledger.tasks())).code, 'ledger_value_out_of_range')
      sqliteExec(path, `UPDATE ${table} SET ${column} = 9007199254740991`)
      const field = column === 'reserved' ? 'reserved_minor' : column
      assert.equal((await read[table]())[field], Number.MAX_SAFE_INTEGER, column)
    }
    await ledger.close()
  })
})
