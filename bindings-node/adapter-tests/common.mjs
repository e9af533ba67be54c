// What the adapter tests share: fresh ledgers on real engines (SQLite files in a temp dir; a
// throwaway PostgreSQL database too when ACTIONSEAL_TEST_PG is a URL), the reviewer's side (a
// decision made on the ledger, never through the agent), the trusted context, and a banner that
// says which framework version is under test and whether it is the pinned one.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ledger, ManualClock } from 'actionseal'
import { Seal } from 'actionseal/adapters/seal'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

export const START = 1_764_500_000_000
export const TRUSTED = { tenant: 'tenant-a', subject: 'user:alice', policy_version: 'refund-policy-2026-08-01' }
export const APPROVER = 'user:bob'
export const REFUND_RULE = { when: [{ pointer: '/amount_minor', op: 'gt', value: 1000 }] }
/** Four eyes (issue 25): one approver from finance and one from risk. */
export const FOUR_EYES = {
  when: 'always',
  quorum: { approvers: 2, roles: [{ role: 'finance', count: 1 }, { role: 'risk', count: 1 }] },
  separation: ['subject', 'proposer'],
}

/**
 * Says which version of a framework package the tests run against. When it is not the pinned
 * one (ACTIONSEAL_ADAPTERS_LATEST=1), a failure may be the framework's change, not the adapter's.
 */
export function banner(pkg, entry = pkg) {
  const pinned = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies[pkg]
  const installed = versionOf(pkg, entry)
  const note = installed === pinned
    ? `${pkg} ${installed} (pinned)`
    : `${pkg} ${installed}, NOT the pinned ${pinned}: a failure below may be a change in ${pkg}, not an adapter bug`
  console.log(`# ${note}`)
  return { pinned, installed }
}

/** The installed version of a package (some export no ./package.json): walk up from its entry. */
function versionOf(pkg, entry) {
  let d = dirname(require.resolve(entry))
  for (;;) {
    try {
      const p = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8'))
      if (p.name === pkg) return p.version
    } catch {}
    if (d === dirname(d)) return 'unknown'
    d = dirname(d)
  }
}

let n = 0
const dir = mkdtempSync(join(tmpdir(), 'actionseal-adapters-'))

/** The engines to run on: SQLite always; PostgreSQL when ACTIONSEAL_TEST_PG is a URL. */
export function engines() {
  const pg = process.env.ACTIONSEAL_TEST_PG
  return pg && pg !== 'skip' ? ['sqlite', 'postgres'] : ['sqlite']
}

/** A fresh, empty ledger on `engine`, with a manual clock. */
export async function freshLedger(engine = 'sqlite') {
  n += 1
  let url = `sqlite:${join(dir, `ledger-${process.pid}-${n}.db`)}`
  if (engine === 'postgres') {
    const base = process.env.ACTIONSEAL_TEST_PG
    const name = `adapters_${process.pid}_${n}`
    execFileSync('psql', ['-X', '-q', '-d', base, '-c', `CREATE DATABASE ${name}`])
    const u = new URL(base)
    u.pathname = `/${name}`
    url = u.toString()
  }
  const clock = new ManualClock(START)
  return { ledger: await Ledger.open(url, { clock }), clock, url }
}

/** The application's seal: trusted ids from its own request context, who may approve. */
export function sealFor(ledger, { approvers = [APPROVER], executor = 'worker-1' } = {}) {
  return new Seal({
    ledger,
    context: (ctx) => ({ ...TRUSTED, job_id: ctx.job_id }),
    mayApprove: (approver) => approvers.includes(approver),
    mayAct: (subject) => subject === TRUSTED.subject,
    executor,
  })
}

/** The task of a call, by its identity. */
export const taskOf = (ledger, job, request) =>
  ledger.task(Ledger.taskId({ tenant: TRUSTED.tenant, job_id: job, request_id: request }))

let d = 0
/** The reviewer decides on the ledger, naming the digest they saw. */
export async function review(ledger, taskId, { decision = 'approved', ttlMs = 1_800_000, approver = APPROVER, role } = {}) {
  const t = await ledger.task(taskId)
  d += 1
  const now = ledger.now()
  return ledger.decide({
    approval_id: t.approval_id, decision_id: `dec-${process.pid}-${d}`, job_id: t.job_id, request_id: t.request_id,
    action_digest: t.action_digest, decision, approver, decided_at: now, expires_at: now + ttlMs,
    ...(role === undefined ? {} : { role }),
  })
}

/** A reviewer's correction on the ledger before the decision (the approval server's edit). */
export async function amend(ledger, taskId, args, contract) {
  const t = await ledger.task(taskId)
  return ledger.amend({ task_id: taskId, amends: t.action_digest, action: { ...t.action, args }, reviewer: APPROVER, reason: 'reviewer correction', contract })
}

/** The audit of an amended task that ran: the proposal's digest and the amended one, claimed. */
export async function assertAmendedRun(ledger, taskId, proposedDigest) {
  const t = await ledger.task(taskId)
  const events = (await ledger.history(taskId)).events
  const amended = events.find((e) => e.kind === 'amended')
  const claimed = events.find((e) => e.kind === 'claimed')
  assert.notEqual(t.action_digest, proposedDigest)
  assert.deepEqual([t.proposed_digest, amended.detail.proposed_digest, amended.action_digest, claimed.action_digest],
    [proposedDigest, proposedDigest, t.action_digest, t.action_digest])
}

/** The audit kinds of a task, in order. */
export const kinds = async (ledger, taskId) => (await ledger.history(taskId)).events.map((e) => e.kind)

/** A tool body that counts its calls and records the args it ran with. */
export function counter(result = (args) => `refunded ${args.amount_minor}`) {
  const calls = []
  const body = async (args, ...rest) => {
    calls.push(args)
    return result(args, ...rest)
  }
  return { calls, body }
}

export const R = (amount, extra = {}) => ({ order_id: 'order-17', amount_minor: amount, currency: 'USD', ...extra })

export async function auditValid(ledger) {
  const report = await ledger.auditVerify()
  assert.ok(report.valid, JSON.stringify(report.broken))
}
