// The desk's executor (Node, the native addon). It wakes on the ledger's change feed (woken by
// commits, never by polling) for approved refunds the agent handed over, verifies the
// decision's proof against the key set in its OWN config (the approval server is only where
// the proof is fetched from, never why it is trusted), claims only a proven decision, verifies again exactly what it claimed (the ledger hands the claimed
// record and its proof over with the claim), pays through the payment service with the task's
// idempotency key, and completes. A payment that times out is `unknown`, a declined one (402) is
// `failed`; tasks in doubt are reconciled by asking the payment service.
// An item of a batch the reviewer decided (issue 28) is claimed with `claimItem` under the
// batch's caps and breaker, and completed with `completeItem` (dispatchItem).
//
//   node executor.mjs --config RUN_DIR/executor.json --name executor-1 [--crash-after claim|pay]
//
// --crash-after is for the test: the process SIGKILLs itself right after winning the claim, or
// after the payment answered, before completing.
//
// What wakes it: a change that leaves a task approved (dispatch it) or unknown (reconcile it),
// and the end of the earliest claim's lease (another executor died holding it: expire it). The
// feed's reads block until one of those, or FEED_WAIT_MS of quiet.

import { readFileSync, existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
// What the log shows of an action's arguments: no value its contract marks sensitive (issue 29).
import { masked } from '../confirm-page/sensitive.mjs'

const here = dirname(new URL(import.meta.url).pathname)
const { Ledger, verifyProof, verifyDelegation, batchVerifyDecision, batchVerifyItem, canonicalize, fingerprint, shortFingerprint, revealAction } =
  createRequire(import.meta.url)(join(here, '../../bindings-node/index.js'))

const { values: opt } = parseArgs({ options: { config: { type: 'string' }, name: { type: 'string' }, 'crash-after': { type: 'string' } } })
const config = JSON.parse(readFileSync(opt.config, 'utf8'))
const name = opt.name ?? 'executor-1'
const crashAfter = opt['crash-after']

/** One machine-readable line per event (`EXECUTOR {json}`), for people and the test. */
const log = (event, fields = {}) => console.log(`EXECUTOR ${JSON.stringify({ executor: name, event, ...fields })}`)

/** The trusted keys: the config's, plus the passkeys filed next to it by the approval server's enrolment. */
function keySet() {
  const passkeys = join(dirname(opt.config), 'passkeys.json')
  if (!existsSync(passkeys)) return config.keys
  return { ...config.keys, ...JSON.parse(readFileSync(passkeys, 'utf8')) }
}

/** A GET from the approval server, with the executors' token (it may read hand-offs and proofs). */
async function getJson(url) {
  const r = await fetch(url, { headers: { authorization: `Bearer ${config.server_token}` } })
  return { status: r.status, body: await r.json() }
}

class Refused extends Error {
  constructor(code, message) { super(message ?? code); this.code = code }
}

/** The verified record of the task's decision, or Refused with why not. */
async function verifiedDecision(task) {
  const { status, body } = await getJson(`${config.server}/api/proofs/${task.approval.approval_id}`)
  if (status === 404) throw new Refused('proof_missing', 'no signed or passkey proof for this decision')
  // Keys are judged when the ledger recorded the decision (its clock, never the signer's).
  return verifiedAs(body.proof, task.proof?.verified_at ?? Date.now(), task.approval)
}

/** `proven` verified against this executor's keys at `at`, about exactly `record`; or Refused. */
function verifiedAs(proven, at, record) {
  let verified
  try {
    verified = verifyProof(proven, keySet(), at)
  } catch (e) {
    throw new Refused(e.code ?? 'proof_invalid', e.message)
  }
  // The proof must be about the very record the ledger holds, byte for byte.
  if (canonicalize(verified.approval) !== canonicalize(record)) {
    throw new Refused('proof_not_for_this_decision', 'the proof signs another record than the ledger holds')
  }
  return verified
}

/** How many delegation links the claimed records decided through (a quorum's round, else the one decision), each verified at `at`; or Refused. */
function verifiedLinks(approvals, at) {
  const links = approvals.flatMap((a) => a.delegation ?? [])
  for (const link of links) {
    try {
      verifyDelegation(link, keySet(), at)
    } catch (e) {
      throw new Refused(e.code ?? 'delegation_invalid', e.message)
    }
  }
  return links.length
}

function facts(task) {
  const approver = task.approval?.approver
  const base = {
    tenant: config.tenant,
    policy_version: config.policy_version,
    contract: config.contracts[task.action.tool] ?? null,
    approver_authorized: approver ? { approver, authorized: config.approvers.includes(approver) } : null,
    subject_authorized: { subject: config.subject, authorized: true },
  }
  if (!task.quorum) return base
  // Under a quorum (issue 25) the claim re-checks every member: each counting identity's
  // authorization and roles are this executor's facts (its config), as is each delegation
  // link's revocation (the desk revokes none).
  const counted = task.quorum.counted
  const who = [...new Set(counted.map((c) => c.approver))]
  return {
    ...base,
    approver_authorized: who.map((a) => ({ approver: a, authorized: config.approvers.includes(a) })),
    approver_roles: who.flatMap((a) => (config.roles[a] ?? []).map((role) => ({ approver: a, role, holds: true }))),
    delegations_revoked: [...new Set(counted.flatMap((c) => c.delegations))].map((d) => ({ delegation: d, revoked: false })),
  }
}

async function claim(task, action) {
  try {
    // Only a proven decision is claimed: one recorded bare (by a handle opened before proof was
    // required, say) is refused by the ledger, whatever was verified above.
    return await ledger.claim({ task_id: task.id, action, facts: facts(task), executor: name, lease_ms: config.lease_ms, proof: 'required' })
  } catch (e) {
    if (e.code === 'already_claimed' || e.code === 'task_not_claimable') return null // another executor won
    throw e
  }
}

async function pay(claim) {
  // Under a contract that marks values sensitive (refund_receipt's e-mail, issue 29) the claimed
  // action holds commitments; `revealed` holds the values, each checked against its commitment
  // by the ledger: the address goes to the payment service (which keeps it, outside the ledger).
  const { order_id, amount_minor, currency, customer_email } = (claim.revealed ?? claim.action).args
  const receipt = customer_email === undefined ? {} : { receipt_to: customer_email }
  const r = await fetch(`${config.payment}/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ idempotency_key: claim.idempotency_key, order_id, amount_minor, currency, ...receipt }),
    signal: AbortSignal.timeout(config.payment_timeout_ms),
  })
  // 402 is the provider's certain "no" (no effect): a failed outcome, not one in doubt.
  if (r.status === 402) return { declined: (await r.json()).error }
  if (!r.ok) throw new Error(`payment service answered ${r.status}`)
  return (await r.json()).payment
}

/**
 * An amended task's proposal and action as the agent's hand-off spells them: as held, or, under
 * a contract that marks values sensitive (issue 29), revealed with the task's disclosures,
 * each checked against its commitment in core. The proposal is `null` when it cannot be
 * revealed: a sensitive value the reviewer changed took its disclosure with it.
 */
async function inTheClear(task) {
  const contract = config.contracts[task.action.tool]
  if (!contract?.sensitive) return [task.proposed_action, task.action]
  const disclosures = await ledger.disclosures(task.id)
  const reveal = (action) => revealAction(contract, action, disclosures, 'every')
  let proposal = null
  try {
    proposal = reveal(task.proposed_action)
  } catch (e) {
    if (!e.code?.startsWith('disclosure_')) throw e
  }
  return [proposal, reveal(task.action)]
}

/** How long to wait for the agent's hand-off of a task that was just approved (it hands the call over once it sees the approval). */
const HANDOFF_WAIT_MS = 10_000
/** How long one read of the change feed blocks when nothing happens. */
const FEED_WAIT_MS = 10_000

async function dispatch(task, fresh) {
  if (!['refund_create', 'refund_large', 'refund_receipt'].includes(task.action.tool)) return // the tools this executor dispatches
  if (task.approval?.batch_digest !== undefined) return dispatchItem(task)
  // A task approved just now: the server answers once the agent has handed it over.
  const handoff = await getJson(`${config.server}/api/handoffs/${task.id}?wait_ms=${fresh ? HANDOFF_WAIT_MS : 0}`)
  if (handoff.status === 404) return // the agent has not handed the call over yet
  let verified
  try {
    verified = await verifiedDecision(task)
  } catch (e) {
    if (!(e instanceof Refused)) throw e
    log('refused_decision', { task_id: task.id, code: e.code, message: e.message, approval_id: task.approval.approval_id })
    // Not this executor's to approve again: the decision is revoked and the next claim sends the
    // same task back to the page.
    await ledger.revoke({ approval_id: task.approval.approval_id, actor: name })
    const out = await claim(task, task.action)
    if (out) log('sent_back', { task_id: task.id, result: out.result })
    return
  }
  let presented = handoff.body.action
  // The reviewer amended the proposal before deciding; the agent presents the model's proposal
  // unchanged: what was approved is the amendment. Anything else is drift.
  if (task.amendments > 0 && task.proposed_digest !== task.action_digest) {
    const [proposal, amended] = await inTheClear(task)
    if (proposal !== null && fingerprint(presented) === fingerprint(proposal)) presented = amended
  }
  const checked = fingerprint(presented)
  log('checked', { task_id: task.id, fingerprint: checked, short: shortFingerprint(checked), approved: verified.approval.action_digest, signer: verified.signer })
  let out = await claim(task, presented)
  if (out === null) return
  if (out.result === 'tool_args_drift') {
    log('drift_refused', { task_id: task.id, presented: checked, args: masked(config.contracts[task.action.tool], presented.args), approved: out.approved_action.args, drift: out.verdict.drift })
    // The approved action is the one that may run: resume with it.
    out = await claim(task, out.approved_action)
    if (out === null) return
  }
  if (out.result !== 'claimed') {
    log('not_claimed', { task_id: task.id, result: out.result, reasons: out.verdict?.reasons ?? [] })
    return
  }
  const c = out.claim
  let delegations
  try {
    // What runs is what was claimed: its record and proof, as the ledger holds them now, and
    // every delegation link a member of its round decided through, against this executor's keys.
    verifiedAs(c.proof.proven, c.proof.verified_at, c.approval)
    delegations = verifiedLinks(c.approvals ?? [c.approval], c.proof.verified_at)
  } catch (e) {
    if (!(e instanceof Refused)) throw e
    log('refused_claim', { task_id: task.id, code: e.code, message: e.message })
    await complete(c, 'failed', { refused: e.code }) // nothing was dispatched
    return
  }
  log('claimed', { task_id: task.id, fence: c.fence, fingerprint: fingerprint(c.action), idempotency_key: c.idempotency_key, delegations })
  await run(c)
}

/**
 * An item of a batch the reviewer decided at the desk (issue 28). The agent handed the batch
 * over whole, so the action is the one the batch froze: no hand-off to compare. Claimed under
 * the batch's caps and breaker, with proof required; what was claimed is verified as a task's
 * is (the batch's record, proven with this executor's keys) and the item shown to be in it.
 */
async function dispatchItem(task) {
  let out
  try {
    out = await ledger.claimItem({ task_id: task.id, action: task.action, facts: { ...facts(task), contract: config.bulk_contract }, executor: name, lease_ms: config.lease_ms, proof: 'required' })
  } catch (e) {
    if (e.code === 'already_claimed' || e.code === 'task_not_claimable') return // another executor won, or the breaker sent it back
    throw e
  }
  if (out.result !== 'claimed') {
    log('not_claimed', { task_id: task.id, result: out.result, reasons: out.verdict?.reasons ?? [] })
    return
  }
  const c = out.claim
  try {
    verifiedItem(c)
  } catch (e) {
    if (!(e instanceof Refused)) throw e
    log('refused_claim', { task_id: task.id, code: e.code, message: e.message })
    await complete(c, 'failed', { refused: e.code }) // nothing was dispatched
    return
  }
  log('claimed', { task_id: task.id, fence: c.fence, fingerprint: fingerprint(c.action), idempotency_key: c.idempotency_key, batch_digest: c.approval.batch_digest })
  await run(c)
}

/** Checks a claimed item: its batch's record proven with this executor's keys, as the ledger holds it, and the item in that batch; or Refused. */
function verifiedItem(c) {
  let verified, item
  try {
    verified = batchVerifyDecision(c.proof.proven, keySet(), c.proof.verified_at)
    item = batchVerifyItem(c.approval.batch, c.item)
  } catch (e) {
    throw new Refused(e.code ?? 'proof_invalid', e.message)
  }
  if (canonicalize(verified.approval) !== canonicalize(c.approval)) {
    throw new Refused('proof_not_for_this_decision', 'the proof signs another record than the ledger holds')
  }
  if (item.action_digest !== fingerprint(c.action)) throw new Refused('not_in_batch', 'the claimed action is not the item the batch holds')
}

/** Pays what was claimed, with its idempotency key, and completes it. */
async function run(c) {
  const digest = fingerprint(c.action)
  if (crashAfter === 'claim') process.kill(process.pid, 'SIGKILL')
  let payment
  try {
    payment = await pay(c)
  } catch (e) {
    // A timeout or a broken connection: the refund may or may not have been paid.
    log('outcome_unknown', { task_id: c.task_id, error: String(e.name ?? e) })
    await complete(c, 'unknown')
    return
  }
  if (crashAfter === 'pay') process.kill(process.pid, 'SIGKILL')
  if (payment.declined) {
    log('declined', { task_id: c.task_id, code: payment.declined })
    await complete(c, 'failed', { declined: payment.declined })
    return
  }
  if (!(await complete(c, 'succeeded', payment))) return
  log('dispatched', { task_id: c.task_id, fingerprint: digest, args: c.action.args, payment_id: payment.payment_id })
}

/** Reports a claim's outcome; false when the lease ran out first (the task is in doubt now). */
async function complete(c, outcome, result) {
  try {
    const request = { task_id: c.task_id, fence: c.fence, outcome, executor: name }
    // A batch's item reports to its batch too: its outcome feeds the breaker.
    const report = c.item ? ledger.completeItem.bind(ledger) : ledger.complete.bind(ledger)
    await report(result === undefined ? request : { ...request, result })
    return true
  } catch (e) {
    if (!['lease_expired', 'stale_fence', 'task_not_claimed'].includes(e.code)) throw e
    log('late', { task_id: c.task_id, code: e.code })
    return false
  }
}

async function reconcile(task) {
  const r = await fetch(`${config.payment}/payments/${encodeURIComponent(task.idempotency_key)}`)
  const observed = r.status === 200 ? 'succeeded' : 'not_executed'
  const body = await r.json()
  try {
    const request = { task_id: task.id, observed, actor: name, result: body.payment ?? null }
    await (task.approval?.batch_digest !== undefined ? ledger.reconcileItem(request) : ledger.reconcile(request))
    log('reconciled', { task_id: task.id, observed })
  } catch (e) {
    if (e.code !== 'task_not_in_doubt') throw e // another executor reconciled it first
  }
}

/** The feed's cursor after every change so far. */
async function endCursor() {
  let cursor = ''
  for (;;) {
    const read = await ledger.changes({ after: cursor, limit: 1000 })
    if (read.changes.length === 0) return read.cursor
    cursor = read.cursor
  }
}

/** Expires run-out leases, reconciles tasks in doubt, dispatches approved tasks (`fresh`: the ids approved just now). */
async function sweep(fresh = new Set()) {
  await ledger.expireLeases()
  for (const t of await ledger.tasks({ state: 'unknown', tenant: config.tenant })) await reconcile(t)
  for (const t of await ledger.tasks({ state: 'approved', tenant: config.tenant })) await dispatch(t, fresh.has(t.id))
}

/** When the earliest lease of a claimed task runs out, or null. */
async function nextLeaseEnd() {
  const ends = (await ledger.tasks({ state: 'claimed', tenant: config.tenant })).map((t) => t.lease_until).filter((t) => t !== null)
  return ends.length ? Math.min(...ends) : null
}

const ledger = await Ledger.open(config.db)
let stopping = false
let idle = false // blocked in a read of the feed: nothing to finish before stopping
const stop = () => {
  stopping = true
  if (idle) {
    log('stopped')
    process.exit(0)
  }
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
log('started', { db: config.db.replace(/\/\/[^@]*@/, '//'), keys: Object.keys(config.keys.service_keys ?? {}) })
let cursor = await endCursor()
let wake = { sweep: true, fresh: new Set() } // what was there before this executor started
while (!stopping) {
  try {
    if (wake.sweep) await sweep(wake.fresh)
    const leaseEnd = await nextLeaseEnd()
    // A dead executor's lease runs out without a commit: wake then to expire it.
    const timeout = leaseEnd === null ? FEED_WAIT_MS : Math.min(FEED_WAIT_MS, Math.max(0, leaseEnd - ledger.now() + 1))
    idle = true
    const read = await ledger.changes({ after: cursor, limit: 100, timeout_ms: timeout })
    idle = false
    cursor = read.cursor
    const approved = read.changes.filter((c) => c.state === 'approved').map((c) => c.task_id)
    wake = {
      sweep: approved.length > 0 || read.changes.some((c) => c.state === 'unknown') || (leaseEnd !== null && ledger.now() >= leaseEnd),
      fresh: new Set(approved),
    }
  } catch (e) {
    idle = false
    log('error', { code: e.code ?? null, message: String(e.message ?? e) })
    wake = { sweep: true, fresh: new Set() }
    await new Promise((r) => setTimeout(r, 500)) // the database or the server failed: try again shortly
  }
}
await ledger.close()
log('stopped')
