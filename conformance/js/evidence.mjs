// Evidence bundles from a real ledger through the Node addon (the wasm build has no ledger), as
// bindings-python/tests/evidence_support.py makes them: a refund proposed, decided, claimed and
// completed on a ledger signing its checkpoints with the signer key of Go's
// golang.org/x/mod/sumdb/note examples, then exported; the trust that verifies it; and the
// bundle broken one way each, with the code `verifyEvidence` throws for it (the time-stamp
// tokens are core's RFC 3161 fixtures, core/tests/timestamp/, about other data).

import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { COMMON, api, facts } from './ledger.mjs'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

export const LOG_KEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz'
export const LOG_VERIFIER = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'
// Another Ed25519 note key (seed 32 zero bytes), trusted by nobody who verifies these bundles.
const OTHER_VERIFIER = 'Other+1cfff151+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop'
export const TRUST = { ledger_keys: [{ key: LOG_VERIFIER }] }
const REFUND = COMMON.contracts.refund

/** Proposes, decides, claims and completes one refund, awaiting `midway()` after the proposal. */
export async function refundStory(ledger, midway = async () => {}) {
  const { tenant, subject, policy_version } = COMMON.ids
  const action = api.action(REFUND, { order_id: 'order-17', amount_minor: 2500, currency: 'USD' },
    { tenant, subject, job_id: 'job-e', request_id: 'req-1', policy_version })
  const task = await ledger.propose({ action, contract: new api.Contract(REFUND), proposer: 'agent' })
  await midway()
  const now = await ledger.now()
  await ledger.decide({
    approval_id: task.approval_id, decision_id: 'dec-e', job_id: task.job_id, request_id: task.request_id,
    action_digest: task.action_digest, decision: 'approved', approver: COMMON.approver, decided_at: now, expires_at: now + 3_600_000,
  })
  const out = await ledger.claim({ task_id: task.id, action, facts: facts(REFUND), executor: 'w1', lease_ms: 60_000 })
  await ledger.complete({ task_id: task.id, fence: out.claim.fence, outcome: 'succeeded', executor: 'w1' })
  return task
}

/** A bundle exported from a fresh ledger at `url`, and the note of a checkpoint made before it. */
export async function exported(url = 'sqlite::memory:') {
  const ledger = await api.Ledger.open(url, { clock: new api.ManualClock(COMMON.start), log_key: LOG_KEY })
  try {
    let earlier
    const task = await refundStory(ledger, async () => { earlier = (await ledger.checkpoint()).note })
    return [await ledger.evidence(task.id, 'auditor:carol'), earlier]
  } finally {
    await ledger.close()
  }
}

/** A file of core's RFC 3161 fixtures in base64, as a bundle and a trust carry them. */
const fixture = (name) => readFileSync(join(repo, 'core', 'tests', 'timestamp', name)).toString('base64')

/** [code, label, bundle, trust]: the bundle broken one way each, and what that throws. */
export function broken(bundle, earlier) {
  const edit = (f) => {
    const b = structuredClone(bundle)
    f(b)
    return b
  }
  const stamped = (token) => edit((b) => { b.checkpoint.timestamp = token })
  // A verifier that trusts no TSA leaves a token unread: each of these trusts a root.
  const withRoot = { ...TRUST, tsa_roots: [fixture('root.der')] }
  const otherRoot = { ...TRUST, tsa_roots: [fixture('other-root.der')] }
  return [
    ['invalid_evidence', 'a bundle without its version', edit((b) => { delete b.version }), TRUST],
    ['invalid_evidence_trust', 'a trust without ledger keys', bundle, { ledger_keys: [] }],
    ['inclusion_proof_invalid', 'an event edited', edit((b) => { b.events[0].event.actor = 'agent:2' }), TRUST],
    ['checkpoint_invalid', 'a checkpoint that is not a note', edit((b) => { b.checkpoint.note = 'not a signed note' }), TRUST],
    ['checkpoint_untrusted', 'a ledger key nobody trusts', bundle, { ledger_keys: [{ key: OTHER_VERIFIER }] }],
    ['evidence_other_task', 'another task named', edit((b) => { b.task = 'task_' + '0'.repeat(32) }), TRUST],
    ['evidence_incomplete', 'an event left out', edit((b) => { b.events.splice(1, 1) }), TRUST],
    ['evidence_mismatch', 'another contract', edit((b) => { b.contract = { ...b.contract, version: '2' } }), TRUST],
    ['consistency_proof_invalid', 'an earlier checkpoint without its consistency proof',
      edit((b) => { b.witnessed = [{ note: earlier, consistency: [] }] }), TRUST],
    ['timestamp_invalid', 'a time-stamp that is not a token', stamped('AAAA'), withRoot],
    ['timestamp_untrusted', 'a time-stamp from a TSA the verifier does not trust', stamped(fixture('p256.tsr')), otherRoot],
    ['timestamp_mismatch', 'a time-stamp of other data', stamped(fixture('p256.tsr')), withRoot],
  ]
}

/** [code, label, thunk] for errors.test.mjs: each broken bundle verified by the Node addon. */
export async function errorSources() {
  const [bundle, earlier] = await exported()
  return broken(bundle, earlier).map(([code, label, b, trust]) =>
    [code, `evidence: ${label}`, () => api.verifyEvidence(b, trust)])
}

