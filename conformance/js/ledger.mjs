// The ledger scenarios of conformance/vectors/ledger/ through the Node addon's Ledger (the
// ledger exists only there: the wasm build has none), with what the Node tests of the ledger
// share: fresh databases on both engines (PostgreSQL from `scripts/pg run`, which sets
// ACTIONSEAL_TEST_PG), another connection to PostgreSQL through `psql`, and SQL run on a
// SQLite file behind the ledger's back (through Python's sqlite3: Node 20 has no SQLite).
// The runner follows ledger/tests/vectors.rs step for step.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash, createPrivateKey, sign } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'

// Not ./common.mjs, which needs ACTIONSEAL_RUNTIME: the Node tests of the ledger use this too.
const conformance = join(dirname(fileURLToPath(import.meta.url)), '..')
const sha256 = (s) => 'sha256:' + createHash('sha256').update(s, 'utf8').digest('hex')

export const api = createRequire(import.meta.url)(join(conformance, '..', 'bindings-node'))
const dir = join(conformance, 'vectors', 'ledger')
const load = (name) => JSON.parse(readFileSync(join(dir, name), 'utf8'))
export const COMMON = load('common.json')
export const OPEN = load('open.json').cases

/** [name, scenario] of every scenario, in name order. */
export const scenarios = () =>
  readdirSync(join(dir, 'scenarios'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f.replace(/\.json$/, ''), load(join('scenarios', f))])

/** The audit vectors: [name, vector]. */
export const audits = () =>
  readdirSync(join(dir, 'audit'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f.replace(/\.json$/, ''), load(join('audit', f))])

export const IDS = load('ids.json').cases

/** The approval id of a task's `round`-th decision request, derived as core does. */
export const approvalId = (taskId, round) => 'apr_' + api.fingerprint(['actionseal/approval/v1', taskId, round]).slice(7, 39)

export const facts = (contract) => ({ ...COMMON.facts, contract })

/** ACTIONSEAL_TEST_PG, or null when it is `skip`; unset is an error, as in Rust. */
export function pgBase() {
  const url = process.env.ACTIONSEAL_TEST_PG
  if (url === undefined) {
    throw new Error('ACTIONSEAL_TEST_PG is not set: run these tests through bindings-node/test.sh (which starts PostgreSQL with scripts/pg) or set ACTIONSEAL_TEST_PG=skip to skip PostgreSQL')
  }
  return url === 'skip' ? null : url
}

/** Runs SQL on its own connection through psql; returns what it prints (unaligned, tuples only). */
export function psql(url, sql) {
  return execFileSync('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { encoding: 'utf8' }).trim()
}

let counter = 0

/** Fresh, empty ledger URLs on one engine (`sqlite` or `postgres`); `close` drops the databases. */
export class Fresh {
  constructor(engine) {
    this.engine = engine
    this.databases = []
    this.dir = mkdtempSync(join(tmpdir(), 'actionseal-ledger-'))
    if (engine === 'postgres') this.base = pgBase()
  }

  url() {
    counter += 1
    if (this.engine === 'sqlite') return `sqlite:${join(this.dir, `ledger-${counter}.db`)}`
    const name = `js_${process.pid}_${counter}`
    psql(this.base, `CREATE DATABASE ${name}`)
    this.databases.push(name)
    const u = new URL(this.base)
    u.pathname = `/${name}`
    return u.toString()
  }

  close() {
    for (const name of this.databases) {
      try {
        psql(this.base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } catch {}
    }
  }
}

/** The engines to run on: both, or SQLite alone when ACTIONSEAL_TEST_PG=skip. */
export function engines() {
  return pgBase() === null ? ['sqlite'] : ['sqlite', 'postgres']
}

/** SQL run on a SQLite ledger file behind the ledger's back. */
export function sqliteExec(path, sql) {
  execFileSync('python3', ['-c', 'import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.executescript(sys.argv[2])\nc.commit()', path, sql])
}

/** The triggers that keep the events append-only, dropped as an attacker would. */
export const UNGUARD = 'DROP TRIGGER ledger_events_no_update; DROP TRIGGER ledger_events_no_delete;'

/** The error a promise rejects with (it must reject). */
export async function rejection(promise) {
  try {
    await promise
  } catch (e) {
    return e
  }
  assert.fail('expected a rejection')
}

/** Runs the steps of one scenario on a ledger, as ledger/tests/vectors.rs does. */
export class Scenario {
  static async open(doc, url) {
    const s = new Scenario(doc)
    s.ledger = await api.Ledger.open(url, { clock: s.clock })
    return s
  }

  constructor(doc) {
    this.doc = doc
    this.clock = new api.ManualClock(COMMON.start)
    this.contract = COMMON.contracts[doc.contract ?? 'refund']
    this.facts = facts(this.contract)
    this.tasks = []
    this.actions = []
    this.sent = new Map()
  }

  build(job, args) {
    const { tenant, subject, request_id, policy_version } = COMMON.ids
    return api.action(this.contract, args, { tenant, subject, job_id: job, request_id, policy_version })
  }

  /** One step's result; rejects with the ledger's ActionsealError when it refuses. */
  async step(step) {
    const l = this.ledger
    if ('at' in step) this.clock.set(COMMON.start + step.at)
    const now = l.now()
    const ix = step.task
    const taskId = step.task_id ?? (ix === undefined ? undefined : this.tasks[ix].id)
    switch (step.op) {
      case 'propose': {
        const action = this.build(step.job, step.args)
        const t = await l.propose({ action, contract: this.contract, proposer: COMMON.proposer })
        if (!this.tasks.some((x) => x.id === t.id)) {
          this.tasks.push(t)
          this.actions.push(action)
        }
        return { state: t.state }
      }
      case 'amend': {
        // The whole envelope with the step's arguments, then its edits (pointer, value).
        const action = structuredClone(this.build(this.tasks[ix].job_id, step.args))
        for (const [pointer, value] of step.edit ?? []) {
          const keys = pointer.split('/').slice(1).map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
          const last = keys.pop()
          keys.reduce((o, k) => o[k], action)[last] = value
        }
        const amends = step.amends === 'proposal' ? this.tasks[ix].action_digest : (await l.task(taskId)).action_digest
        const r = await l.amend({
          task_id: taskId,
          amends,
          action,
          reviewer: step.reviewer ?? 'user:carol',
          reason: "a reviewer's correction",
          contract: this.contract,
        })
        return { state: r.task.state, duplicate: r.duplicate, amendments: r.task.amendments }
      }
      case 'decide': {
        let d
        if ('replay' in step) d = this.sent.get(step.replay)
        else {
          const t = await l.task(taskId)
          d = {
            approval_id: 'approval_round' in step ? approvalId(t.id, step.approval_round) : t.approval_id,
            decision_id: step.decision_id,
            job_id: t.job_id,
            request_id: t.request_id,
            action_digest: 'digest_of' in step ? this.tasks[step.digest_of].action_digest : t.action_digest,
            decision: step.decision,
            approver: step.approver ?? COMMON.approver,
            decided_at: 'decided_at' in step ? COMMON.start + step.decided_at : now,
            expires_at: now + step.ttl,
            ...step.through,
          }
          if (!this.sent.has(step.decision_id)) this.sent.set(step.decision_id, d)
        }
        const r = await l.decide(d)
        return { state: r.task.state, duplicate: r.duplicate }
      }
      case 'claim': {
        const action = 'args' in step ? this.build(this.tasks[ix].job_id, step.args) : this.actions[ix]
        const out = await l.claim({
          task_id: taskId,
          action,
          facts: this.facts,
          executor: step.executor,
          lease_ms: step.lease_ms ?? COMMON.lease_ms,
          budget: step.budget ?? null,
        })
        const got = { result: out.result, state: out.task.state }
        if (out.claimed) got.fence = out.claim.fence
        else Object.assign(got, { drift: out.verdict.drift, reasons: out.verdict.reasons })
        return got
      }
      case 'complete':
        return { state: (await l.complete({ task_id: taskId, fence: step.fence, outcome: step.outcome, executor: 'worker' })).state }
      case 'reconcile':
        return { state: (await l.reconcile({ task_id: taskId, observed: step.observed, actor: 'reconciler' })).state }
      case 'budget':
        return { limit: (await l.setBudget({ name: step.name, limit_minor: step.limit })).limit_minor }
      case 'revoke': {
        const approval_id = step.approval_id ?? (await l.task(taskId)).approval_id
        return { duplicate: (await l.revoke({ approval_id, actor: 'admin' })).duplicate }
      }
      case 'expire_leases':
        return { expired: (await l.expireLeases()).length }
      case 'task':
        return { state: (await l.task(taskId)).state }
      default:
        throw new Error(`unknown op ${step.op}`)
    }
  }

  /** Runs every step: { problems, kinds (each task's event kinds), digest (of the export) }. */
  async run() {
    const problems = []
    for (const [i, step] of this.doc.steps.entries()) {
      let got
      try {
        got = await this.step(step)
      } catch (e) {
        if (!(e instanceof api.ActionsealError)) throw e
        got = { error: e.code }
      }
      const want = step.expect ?? {}
      for (const [k, v] of Object.entries(want)) {
        if (!isDeepStrictEqual(got[k], v)) problems.push(`step ${i}: ${k} is ${JSON.stringify(got[k])}, expected ${JSON.stringify(v)}`)
      }
      if ('error' in got && !('error' in want)) problems.push(`step ${i}: unexpected ${JSON.stringify(got)}`)
    }
    const kinds = {}
    for (const [i, t] of this.tasks.entries()) kinds[i] = (await this.ledger.history(t.id)).events.map((e) => e.kind)
    const report = await this.ledger.auditVerify()
    assert.ok(report.valid, JSON.stringify(report))
    const digest = sha256(await this.ledger.auditExport())
    await this.ledger.close()
    return { problems, kinds, digest }
  }

  /** Runs the steps before step `n` (whatever they give), then step `n`, whose refusal rejects. */
  async raiseAt(n) {
    for (const step of this.doc.steps.slice(0, n)) {
      try {
        await this.step(step)
      } catch {}
    }
    try {
      return await this.step(this.doc.steps[n])
    } finally {
      await this.ledger.close()
    }
  }
}


/** A SQLite ledger with one task, edited with `sql` behind its back; resolves to [url, task]. */
export async function tampered(sql) {
  const path = join(mkdtempSync(join(tmpdir(), 'actionseal-ledger-')), 'ledger.db')
  const url = `sqlite:${path}`
  const l = await api.Ledger.open(url)
  const contract = COMMON.contracts.refund
  const { tenant, subject, request_id, policy_version } = COMMON.ids
  const action = api.action(contract, { order_id: 'order-17', amount_minor: 2500, currency: 'USD' }, { tenant, subject, job_id: 'job-1', request_id, policy_version })
  const task = await l.propose({ action, contract, proposer: 'agent' })
  await l.close()
  sqliteExec(path, UNGUARD + sql)
  return [url, task]
}

const b64u = (bytes) => Buffer.from(bytes).toString('base64url')
const PASSKEY = { rp: 'example.com', origin: 'https://example.com', credential: b64u(Buffer.alloc(16, 5)) }
// The test's EdDSA passkey, from a fixed seed (PKCS#8: the RFC 8410 prefix and the seed).
const passkeyKey = () => createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.alloc(32, 2)]), format: 'der', type: 'pkcs8',
})

/** A key set that trusts the test's passkey for `approver`. */
export function passkeyKeys(approver) {
  const x = Buffer.from(passkeyKey().export({ format: 'jwk' }).x, 'base64url')
  const cose = Buffer.concat([Buffer.from('a4010103272006215820', 'hex'), x])
  return { passkeys: { [PASSKEY.credential]: { public_key: b64u(cose), approver } }, webauthn: { rp_id: PASSKEY.rp, origins: [PASSKEY.origin] } }
}

/** `record` approved with the test's passkey, its signature counter at `count`. */
export function passkeyApproved(record, count) {
  const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: api.passkeyChallenge(record), origin: PASSKEY.origin }))
  const counter = Buffer.alloc(4)
  counter.writeUInt32BE(count)
  const authData = Buffer.concat([createHash('sha256').update(PASSKEY.rp).digest(), Buffer.from([0x05]), counter])
  const signature = sign(null, Buffer.concat([authData, createHash('sha256').update(clientData).digest()]), passkeyKey())
  return { ...record, passkey: { credential_id: PASSKEY.credential, authenticator_data: b64u(authData), client_data_json: b64u(clientData), signature: b64u(signature) } }
}

/** Two decisions approved with one passkey whose counter did not move: a clone. */
async function passkeyCounterReused() {
  const clock = new api.ManualClock(COMMON.start)
  const l = await api.Ledger.open('sqlite::memory:', { clock, proof: { required: true, keys: passkeyKeys(COMMON.approver) } })
  const contract = COMMON.contracts.refund
  const { tenant, subject, request_id, policy_version } = COMMON.ids
  for (const job_id of ['job-1', 'job-2']) {
    const action = api.action(contract, { order_id: 'order-17', amount_minor: 2500, currency: 'USD' }, { tenant, subject, job_id, request_id, policy_version })
    const task = await l.propose({ action, contract, proposer: 'agent' })
    const now = clock.now
    const record = api.approve(task.action, { approval_id: task.approval_id, decision_id: `d-${job_id}`, decision: 'approved', approver: COMMON.approver, decided_at: now, expires_at: now + 3_600_000 })
    await l.decide(passkeyApproved(record, 7))
  }
}

/** A file that is not SQLite. */
export function junkFile() {
  const path = join(mkdtempSync(join(tmpdir(), 'actionseal-ledger-')), 'junk.db')
  writeFileSync(path, Buffer.alloc(8192, 'x'))
  return path
}

/**
 * [code, label, thunk] for every way the vectors and the bad-input cases raise a ledger code
 * through the Node Ledger: each scenario step that expects an error (run on a fresh in-memory
 * ledger up to that step), each URL of open.json, and databases edited behind its back.
 */
/** The first item of a decided two-item batch with `semantics`, claimed with `method`. */
async function batchItemClaimed(semantics, method) {
  const contract = { ...COMMON.contracts.refund, batch: { max_items: 2 } }
  const { tenant, subject, policy_version } = COMMON.ids
  const actions = [0, 1].map((i) => api.action(contract, { order_id: `order-${i}`, amount_minor: 100, currency: 'USD' },
    { tenant, subject, job_id: 'batch-1', request_id: `req-${i}`, policy_version }))
  const ledger = await api.Ledger.open('sqlite::memory:')
  const b = await ledger.proposeBatch({ actions, contract, semantics, proposer: COMMON.proposer })
  const now = ledger.now()
  await ledger.decideBatch({ approval_id: b.approval_id, decision_id: 'd1', batch_id: b.id, batch_digest: b.digest,
    decision: 'approved', approver: COMMON.approver, decided_at: now, expires_at: now + 3_600_000 })
  return ledger[method]({ task_id: b.items[0].task_id, action: actions[0], facts: facts(contract), executor: 'w', lease_ms: 1000 })
}

export function errorSources() {
  const out = []
  for (const [name, doc] of scenarios()) {
    doc.steps.forEach((step, n) => {
      const code = step.expect?.error
      if (code) out.push([code, `ledger/scenarios/${name} step ${n}`, async () => (await Scenario.open(doc, 'sqlite::memory:')).raiseAt(n)])
    })
  }
  for (const c of OPEN) out.push([c.error, `ledger/open.json ${JSON.stringify(c.url)}`, () => api.Ledger.open(c.url)])
  out.push(['amend_contract_changed', 'an amendment under a contract the task was not proposed under', async () => {
    const s = await Scenario.open({ steps: [] }, 'sqlite::memory:')
    const args = { order_id: 'order-17', amount_minor: 2500, currency: 'USD' }
    const t = await s.ledger.propose({ action: s.build('job-1', args), contract: s.contract, proposer: COMMON.proposer })
    const action = s.build('job-1', { ...args, amount_minor: 2000 })
    const contract = { ...s.contract, version: `${s.contract.version}-next` }
    return s.ledger.amend({ task_id: t.id, amends: t.action_digest, action, reviewer: 'user:carol', reason: 'r', contract })
  }])
  out.push(['not_a_ledger', 'a file that is not SQLite', () => api.Ledger.open(`sqlite:${junkFile()}`)])
  out.push(['batch_not_found', 'a batch no one proposed', async () => (await api.Ledger.open('sqlite::memory:')).batch(`batch_${'0'.repeat(32)}`)])
  out.push(['batch_item', 'a plain claim of a batch\'s item', () => batchItemClaimed('per_item', 'claim')])
  out.push(['batch_all_or_nothing', 'one item of an all-or-nothing batch claimed alone', () => batchItemClaimed('all_or_nothing', 'claimItem')])
  out.push(['disclosures_shredded', 'a claim of a task whose sensitive value was redacted', async () => {
    const contract = { ...COMMON.contracts.refund, sensitive: { '/args/reason': 'pii' } }
    const { tenant, subject, policy_version } = COMMON.ids
    const args = { order_id: 'order-1', amount_minor: 100, currency: 'USD', reason: 'a customer\'s note' }
    const action = api.action(contract, args, { tenant, subject, job_id: 'shred-1', request_id: 'req-1', policy_version })
    const ledger = await api.Ledger.open('sqlite::memory:')
    const t = await ledger.propose({ action, contract, proposer: COMMON.proposer })
    const shredded = await ledger.redact({ task_id: t.id, actor: 'dpo' })
    if (shredded.places.length !== 1) throw new Error(`shredded ${JSON.stringify(shredded)}`)
    return ledger.claim({ task_id: t.id, action, facts: facts(contract), executor: 'w', lease_ms: 1000 })
  }])
  out.push(['ledger_schema_too_new', 'a schema from the future', async () => {
    const [url] = await tampered('UPDATE ledger_schema SET version = 99')
    return api.Ledger.open(url)
  }])
  out.push(['ledger_storage', 'a stored action that does not parse', async () => {
    const [url, task] = await tampered("UPDATE ledger_tasks SET action = '{'")
    return (await api.Ledger.open(url)).task(task.id)
  }])
  out.push(['ledger_value_out_of_range', 'an amendment count at the end of the range', async () => {
    const [url, task] = await tampered('UPDATE ledger_tasks SET amendments = 9223372036854775807')
    const action = structuredClone(task.action)
    action.args.amount_minor = 2000
    return (await api.Ledger.open(url)).amend({ task_id: task.id, amends: task.action_digest, action, reviewer: 'user:carol', reason: 'r', contract: COMMON.contracts.refund })
  }])
  out.push(['proof_policy_weakened', 'a handle that does not require the proof its ledger does', async () => {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'actionseal-ledger-')), 'ledger.db')}`
    await (await api.Ledger.open(url, { proof: { required: true, keys: {} } })).close()
    return api.Ledger.open(url, { proof: { required: false, keys: {} } })
  }])
  out.push(['sign_count_not_increasing', 'a passkey whose counter did not move', passkeyCounterReused])
  out.push(['audit_chain_broken', 'an event that is not an event', async () => {
    const [url, task] = await tampered("UPDATE ledger_events SET body = '{}'")
    return (await api.Ledger.open(url)).history(task.id)
  }])
  out.push(['ledger_schema_invalid', 'a schema version no actionseal wrote', async () => {
    const [url] = await tampered('UPDATE ledger_schema SET version = -1')
    return api.Ledger.open(url)
  }])
  out.push(['invalid_audit_heads', 'a heads file of another version', async () =>
    api.verifyAudit('', null, { version: 2, at: 0, heads: [] })])
  if (pgBase() !== null) out.push(['ledger_unprotected', 'unprotected events, opened by a role that does not own them', unprotected])
  return out
}

/**
 * A PostgreSQL ledger whose append-only triggers its owner disabled, opened by a role that
 * does not own its tables (and so cannot restore them).
 */
async function unprotected() {
  const base = pgBase()
  const name = `js_${process.pid}_unprotected_${Date.now()}`
  psql(base, `CREATE DATABASE ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  try {
    await (await api.Ledger.open(url.href)).close()
    const role = `js_app_${process.pid}`
    psql(url.href, `DO $$ BEGIN CREATE ROLE ${role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$; ` +
      `GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO ${role}; ` +
      `GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}; ALTER TABLE ledger_events DISABLE TRIGGER USER`)
    url.username = role
    return await api.Ledger.open(url.href)
  } finally {
    url.username = new URL(base).username
    psql(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
}
