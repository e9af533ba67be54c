#!/usr/bin/env node
// A self-test of evidence-check.mjs against the Rust core: synthetic evidence bundles built
// here (a Merkle tree of our own, RFC 9162 §2.1; a C2SP checkpoint signed with throwaway
// Ed25519 keys from node:crypto and cosigned by a throwaway witness; a task's proposed,
// decided (a DSSE-signed record, or a quorum's round of them and quorum_met), claimed, completed
// and evidence_exported events shaped as event.rs and the ledger write them), each good or
// mutated one judged by evidence-check, by `actionseal evidence verify` (the CLI built from
// this tree), and by what this file predicts.
// Catches a misreading of the format by either side before the ledger's vectors exist.
//
//   node conformance/tools/evidence-selftest.mjs [path to the actionseal binary] [--write DIR] [--mutate N]
//
// Exits 1 when the two verifiers or the prediction disagree.

import { execFileSync } from 'node:child_process'
import { createHash, generateKeyPairSync, sign } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { verifyEvidence } from './evidence-check.mjs'
import { envelope, labelledKey } from './proof-lib.mjs'

const canonicalize = createRequire(import.meta.url)('canonicalize')
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
// The RFC 3161 fixtures' root (core/tests/timestamp), for a trust that reads tokens.
const TSA_ROOT = readFileSync(join(root, 'core', 'tests', 'timestamp', 'root.der')).toString('base64')
const sha256 = (b) => createHash('sha256').update(b).digest()
const digest = (text) => 'sha256:' + sha256(Buffer.from(text, 'utf8')).toString('hex')
const fp = (v) => digest(canonicalize(v))
const derive = (prefix, parts) => prefix + sha256(Buffer.from(canonicalize(parts), 'utf8')).toString('hex').slice(0, 32)
// Through JSON: a bundle shares objects (a proof in its event and its decision), a mutation must not.
const clone = (v) => JSON.parse(JSON.stringify(v))

// ---------------------------------------------------------------------------- RFC 9162 tree
const leaf = (text) => sha256(Buffer.concat([Buffer.from([0]), Buffer.from(text, 'utf8')]))
const node = (l, r) => sha256(Buffer.concat([Buffer.from([1]), l, r]))
const split = (n) => 2 ** Math.floor(Math.log2(n - 1))
const mth = (d) => (d.length === 0 ? sha256(Buffer.alloc(0)) : d.length === 1 ? d[0] : node(mth(d.slice(0, split(d.length))), mth(d.slice(split(d.length)))))
/** §2.1.3.1 PATH(m, D), leaf first. */
function path(m, d) {
  if (d.length <= 1) return []
  const k = split(d.length)
  return m < k ? [...path(m, d.slice(0, k)), mth(d.slice(k))] : [...path(m - k, d.slice(k)), mth(d.slice(0, k))]
}
/** §2.1.4.1 SUBPROOF(m, D, b). */
function subproof(m, d, b) {
  if (m === d.length) return b ? [] : [mth(d)]
  const k = split(d.length)
  return m <= k ? [...subproof(m, d.slice(0, k), b), mth(d.slice(k))] : [...subproof(m - k, d.slice(k), false), mth(d.slice(0, k))]
}

// ---------------------------------------------------------------------------- C2SP notes
function noteKey(name, type) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url')
  const typed = Buffer.concat([Buffer.from([type]), raw])
  const id = sha256(Buffer.concat([Buffer.from(`${name}\n`), typed])).subarray(0, 4)
  return { name, id, privateKey, verifier: `${name}+${id.toString('hex')}+${typed.toString('base64')}` }
}
const line = (k, bytes) => `\u2014 ${k.name} ${Buffer.concat([k.id, bytes]).toString('base64')}\n`
const signLine = (k, text) => line(k, sign(null, Buffer.from(text), k.privateKey))
function cosignLine(k, text, seconds) {
  const ts = Buffer.alloc(8)
  ts.writeBigUInt64BE(BigInt(seconds))
  return line(k, Buffer.concat([ts, sign(null, Buffer.from(`cosignature/v1\ntime ${seconds}\n${text}`), k.privateKey)]))
}

// ---------------------------------------------------------------------------- the task
const T = 1764500000000
const ORIGIN = 'ledger.example/actionseal'
const ledgerKey = noteKey(ORIGIN, 0x01)
const otherLedgerKey = noteKey('other.example/log', 0x01)
const witness = noteKey('witness.example/w1', 0x04)
const witness2 = noteKey('witness.example/w2', 0x04)
const approver = labelledKey('evidence-selftest')

const contract = { tool: 'refund_create', version: '3', effect: 'write', args: { type: 'object', properties: { amount_minor: { type: 'integer' } }, required: ['amount_minor'], additionalProperties: false }, approval: { when: [{ pointer: '/amount_minor', op: 'gt', value: 1000 }] }, cost_minor: 25 }
const action = { args: { amount_minor: 2500 }, contract: fp(contract), job_id: 'job-1', policy_version: 'p-1', request_id: 'req-1', subject: 'user:alice', tenant: 'tenant-a', tool: 'refund_create' }
const task = derive('task_', ['actionseal/task/v1', action.tenant, action.job_id, action.request_id])
const apr = derive('apr_', ['actionseal/approval/v1', task, 1])
const idem = derive('idem_', ['actionseal/idempotency/v1', action.tenant, action.job_id, action.request_id])
const actionDigest = fp(action)

const base = { chain: 7, tenant: 'tenant-a', task, action_digest: actionDigest, approved_digest: null, decision_id: null, fence: null, outcome: null, reasons: [], drift: [] }
function chainEvents(list) {
  let prev = null
  return list.map((e, i) => {
    const full = { ...base, ...e, seq: i + 1, prev }
    prev = digest(canonicalize(full))
    return full
  })
}
const amended = { ...action, args: { amount_minor: 2000 } }
const REASON = 'the customer asked for 20.00'
const reasonDigest = digest(canonicalize(REASON))
const recordOf = (a, extra = {}) => ({ action: a, action_digest: fp(a), approval_id: apr, approver: 'user:bob', decided_at: T + 1000, decision: 'approved', decision_id: 'dec-1', expires_at: T + 1800000, ...extra })
const proofDetail = (p) => ({ proof: p, signer: { keyid: approver.keyid, kind: 'service' }, verified_at: T + 1000 })
/** An event of another task, a leaf of the log like any other. */
const foreign = { ...base, task: derive('task_', ['actionseal/task/v1', 'tenant-a', 'job-2', 'req-1']), kind: 'proposed', at: T, actor: 'agent:refunds', state: 'approved', detail: {}, seq: 1, prev: null, chain: 9 }

/**
 * The task's events and its export: proposed, optionally amended, decided (signed, or bare),
 * claimed, completed. `decisionDetail` replaces the decided event's detail.
 */
function history({ amend = false, bare = false, decisionDetail, delegation } = {}) {
  const final = amend ? amended : action
  const digestNow = fp(final)
  // A decision by user:bob on behalf of user:carol through `delegation` (bare link documents).
  const acting = delegation ? { on_behalf_of: 'user:carol', delegation } : {}
  const proposed = { ...(amend ? { proposed_digest: actionDigest } : {}), ...acting }
  // A link's digest is its document's fingerprint, signed or not.
  const linkFp = (l) => fp(l.payloadType ? JSON.parse(Buffer.from(l.payload, 'base64url').toString('utf8')) : l)
  const named = delegation ? { on_behalf_of: 'user:carol', delegations: delegation.map(linkFp) } : {}
  const decision = bare ? {} : proofDetail(proofOf(recordOf(final, proposed)))
  const steps = [
    { kind: 'proposed', at: T, actor: 'agent:refunds', state: 'awaiting_approval', detail: { approval_id: apr, approval_required: true, contract: fp(contract), idempotency_key: idem, job_id: 'job-1', policy_version: 'p-1', request_id: 'req-1', subject: 'user:alice', tool: 'refund_create' } },
    ...(amend ? [{ kind: 'amended', at: T + 500, actor: 'user:bob', action_digest: digestNow, drift: ['/amount_minor'], state: 'awaiting_approval', detail: { amends: actionDigest, approval_id: apr, n: 1, proposed_digest: actionDigest, reason_digest: reasonDigest } }] : []),
    { kind: 'decided', at: T + 1000, actor: 'user:bob', action_digest: digestNow, approved_digest: digestNow, decision_id: 'dec-1', outcome: 'approved', state: 'approved',
      detail: decisionDetail ?? { approval_id: apr, approver: 'user:bob', decided_at: T + 1000, decision: 'approved', expires_at: T + 1800000, ...(amend ? { proposed_digest: actionDigest } : {}), ...named, ...decision } },
    { kind: 'claimed', at: T + 2000, actor: 'worker-1', action_digest: digestNow, approved_digest: digestNow, fence: 1, outcome: 'permit', state: 'claimed', detail: { budget: null, cost_minor: 0, executor: 'worker-1', idempotency_key: idem, lease_until: T + 62000 } },
    { kind: 'completed', at: T + 3000, actor: 'worker-1', action_digest: digestNow, fence: 1, outcome: 'succeeded', state: 'succeeded', detail: { reported: 'succeeded', result_digest: null } },
    { kind: 'evidence_exported', at: T + 4000, actor: 'auditor:carol', action_digest: digestNow, state: 'succeeded', detail: {} },
  ]
  const events = chainEvents(steps)
  const exported = events.pop()
  exported.detail = { events: events.map((e) => digest(canonicalize(e))) }
  const record = recordOf(final, proposed)
  return { events, exported, actions: amend ? [action, amended] : [action], reasons: amend ? [REASON] : [], decisions: [bare ? record : signedOf(record)] }
}
/**
 * The history of a task under `quorum` (the example contract's approval made `{when:
 * "always", quorum}`): each of `members` ({who, role?, decision?}) decides in turn, signed,
 * as a round's member; quorum_met then counts the members at the indices `counted`, whatever
 * the quorum's rules say; the task is claimed and completed.
 */
function quorumHistory(quorum, members, counted, { claim = true, amendBefore = -1 } = {}) {
  const c = { ...contract, approval: { when: 'always', quorum } }
  const a0 = { ...action, contract: fp(c) }
  // `amendBefore`: a reviewer amends the action before that member decides, keeping the round.
  const a1 = { ...a0, args: { amount_minor: 2000 } }
  const about = (n) => (amendBefore >= 0 && n >= amendBefore ? a1 : a0)
  const a = about(members.length)
  const ad = fp(a)
  const at = (n) => T + 1000 * (n + 1)
  const proposal = (n) => (about(n) === a1 ? { proposed_digest: fp(a0) } : {})
  const records = members.map((m, n) => recordOf(about(n), {
    approver: m.who, decision: m.decision ?? 'approved', decision_id: `dec-${n}`, decided_at: at(n), ...(m.role ? { role: m.role } : {}), ...proposal(n),
  }))
  const decided = members.flatMap((m, n) => [
    ...(n === amendBefore ? [{ kind: 'amended', at: at(n) - 500, actor: 'user:erin', action_digest: fp(a1), drift: ['/amount_minor'], state: 'awaiting_approval', detail: { amends: fp(a0), approval_id: apr, n: 1, proposed_digest: fp(a0), reason_digest: reasonDigest } }] : []),
    {
      kind: 'decided', at: at(n), actor: m.who, action_digest: fp(about(n)), approved_digest: fp(about(n)), decision_id: `dec-${n}`, outcome: records[n].decision, state: 'awaiting_approval',
      detail: { approval_id: apr, approver: m.who, counted_as: m.who, decided_at: at(n), decision: records[n].decision, expires_at: T + 1800000, role: m.role ?? null, ...proposal(n), ...proofDetail(proofOf(records[n])), verified_at: at(n) },
    },
  ])
  const last = members.length
  const met = { required: quorum.approvers, counted: counted.map((n) => ({ approver: members[n].who, decision_id: `dec-${n}`, delegate: null, delegations: [], role: members[n].role ?? null })), missing: 0, missing_roles: [] }
  const steps = [
    { kind: 'proposed', at: T, actor: 'agent:refunds', action_digest: fp(a0), state: 'awaiting_approval', detail: { approval_id: apr, approval_required: true, contract: fp(c), idempotency_key: idem, job_id: 'job-1', policy_version: 'p-1', request_id: 'req-1', subject: 'user:alice', tool: 'refund_create' } },
    ...decided,
    { kind: 'quorum_met', at: at(last - 1), actor: members[last - 1].who, action_digest: ad, approved_digest: ad, decision_id: `dec-${last - 1}`, outcome: 'approved', state: 'approved', detail: { approval_id: apr, quorum: met } },
    ...(claim
      ? [
          { kind: 'claimed', at: at(last), actor: 'worker-1', action_digest: ad, approved_digest: ad, fence: 1, outcome: 'permit', state: 'claimed', detail: { budget: null, cost_minor: 0, executor: 'worker-1', idempotency_key: idem, lease_until: at(last) + 60000 } },
          { kind: 'completed', at: at(last + 1), actor: 'worker-1', action_digest: ad, fence: 1, outcome: 'succeeded', state: 'succeeded', detail: { reported: 'succeeded', result_digest: null } },
        ]
      : []),
    { kind: 'evidence_exported', at: at(last + 2), actor: 'auditor:carol', action_digest: ad, state: claim ? 'succeeded' : 'approved', detail: {} },
  ]
  const events = chainEvents(steps)
  const exported = events.pop()
  exported.detail = { events: events.map((e) => digest(canonicalize(e))) }
  const amended = amendBefore >= 0
  return { events, exported, contract: c, actions: amended ? [a0, a1] : [a0], reasons: amended ? [REASON] : [], decisions: records.map(signedOf) }
}
function signedOf(r) {
  return envelope(Buffer.from(canonicalize(r), 'utf8'), approver)
}
function proofOf(r) {
  const { payload: _, ...p } = signedOf(r)
  return p
}

/** A bundle: the task's events among others' leaves, a checkpoint at its size, witnessed ones. */
function build({ witnessedAt = [5], cosignAt = T / 1000 + 10, witnesses = [witness], history: h = history(), withForeign = false, times = [] } = {}) {
  const { events, exported } = h
  const layout = ['other-0', canonicalize(foreign)]
  const at = []
  events.forEach((e, k) => {
    at.push(layout.length)
    layout.push(canonicalize(e))
    if (k % 2 === 0) layout.push(`other-${k + 2}`)
  })
  const exportAt = layout.length
  layout.push(canonicalize(exported), 'other-last')
  const leaves = layout.map(leaf)
  const body = (n) => `${ORIGIN}\n${n}\n${mth(leaves.slice(0, n)).toString('base64')}\n`
  const note = (n) => `${body(n)}\n${signLine(ledgerKey, body(n))}${witnesses.map((w, i) => cosignLine(w, body(n), times[i] ?? cosignAt)).join('')}`
  const entry = (i, event) => ({ index: i, event, proof: path(i, leaves).map((h) => h.toString('base64')) })
  return {
    version: 1, task, contract: h.contract ?? contract, actions: h.actions, reasons: h.reasons, decisions: h.decisions,
    // The other task's event (leaf 1), first among the task's when asked for.
    events: [...(withForeign ? [entry(1, foreign)] : []), ...events.map((e, k) => entry(at[k], e))],
    export: entry(exportAt, exported),
    checkpoint: { note: note(leaves.length), timestamp: null },
    witnessed: witnessedAt.map((n) => ({ note: note(n), consistency: subproof(n, leaves, true).map((h) => h.toString('base64')) })),
    keys: {},
  }
}

const trust = {
  ledger_keys: [{ key: ledgerKey.verifier, valid_from: T - 1000000, valid_until: T + 1000000000 }],
  witnesses: { keys: [witness.verifier], quorum: 1 },
  approval_keys: { service_keys: { [approver.keyid]: { key: approver.publicJwk } } },
}

// ---------------------------------------------------------------------------- cases
const cases = []
/** `finding`: core is expected to disagree (reported, not failed). */
const add = (name, bundle, t, expected, finding) => cases.push({ name, bundle, trust: t ?? trust, expected, finding })
const good = build()
add('y_good', good, trust, 'ok')
{
  // A decision through a delegation whose chain the ledger should have refused on arrival:
  // the link's tenant is another, or it ran out before the decided event.
  const link = (change = {}) => ({ delegation_id: 'dlg-bob', delegator: 'user:carol', delegate: 'user:bob', tenant: 'tenant-a', tools: ['refund_create'], not_before: T - 1000, not_after: T + 100000, ...change })
  const through = (l) => build({ history: history({ delegation: [l] }) })
  add('y_delegated', through(link()), trust, 'ok')
  add('n_delegation_other_tenant', through(link({ tenant: 'tenant-b' })), trust, ['delegation_refused', '/decisions/0/delegation'])
  add('n_delegation_ran_out_before_recorded', through(link({ not_after: T + 1000 })), trust, ['delegation_refused', '/decisions/0/delegation'])
  add('n_delegation_not_from_whom_it_counts_for', through(link({ delegator: 'user:dave' })), trust, ['delegation_refused', '/decisions/0/delegation'])
  // Recorded bare: the record's own copy of the action is not what the chain is held to.
  const bare = build({ history: history({ delegation: [link()], bare: true }) })
  add('y_delegated_bare', bare, trust, 'ok')
  // Signed links, verified with the proven decision that carries them (the same keys, judged
  // at the same time); a bare decision's recorded links are read, as the ledger kept them.
  const signedLink = (l, alter = false, by = approver) => {
    const env = envelope(Buffer.from(canonicalize(l), 'utf8'), by, { type: 'application/vnd.actionseal.delegation+json' })
    if (alter) {
      const sig = Buffer.from(env.signatures[0].sig, 'base64url')
      sig[0] ^= 1
      env.signatures[0].sig = sig.toString('base64url')
    }
    return env
  }
  add('y_delegated_signed_link', through(signedLink(link())), trust, 'ok')
  add('n_delegated_link_signature_altered', through(signedLink(link(), true)), trust, ['invalid_signature', '/decisions/0/delegation/0/signatures/0/sig'])
  // The link's own key (carol's), retired before the decision was verified.
  const carolKey = labelledKey('evidence-selftest-carol')
  const keys = (carolUntil) => ({ ...trust, approval_keys: { service_keys: { [approver.keyid]: { key: approver.publicJwk }, [carolKey.keyid]: { key: carolKey.publicJwk, valid_until: carolUntil } } } })
  add('y_delegated_link_by_its_own_key', through(signedLink(link(), false, carolKey)), keys(T + 2000), 'ok')
  add('n_delegated_link_key_retired', through(signedLink(link(), false, carolKey)), keys(T + 1000), ['key_outside_window', '/decisions/0/delegation/0'])
  add('y_delegated_bare_decision_signed_link_read', build({ history: history({ delegation: [signedLink(link(), true)], bare: true }) }), trust, 'ok')
  const altered = clone(bare)
  altered.decisions[0].action.tenant = 'tenant-b'
  add('n_delegated_bare_record_action_altered', altered, trust, ['evidence_mismatch', '/decisions/0/action'])
}
{
  // A task under a quorum of two: each member's decided event (signed, counted as its
  // approver, in its role), quorum_met counting `counted`, the claim and the outcome. The n_
  // cases are what only a ledger that broke the quorum's rules records.
  const roles = [{ role: 'finance', count: 1 }, { role: 'risk', count: 1 }]
  const quorumCase = (quorum, members, counted, options) => build({ history: quorumHistory(quorum, members, counted, options) })
  const bob = { who: 'user:bob', role: 'finance' }
  const dave = { who: 'user:dave', role: 'risk' }
  add('y_quorum_roles_in_order', quorumCase({ approvers: 2, roles, order: 'as_listed' }, [bob, dave], [0, 1]), trust, 'ok')
  // Out of the listed order the ledger meets the round, and the claim's check refuses it.
  add('y_quorum_met_out_of_order_unclaimed', quorumCase({ approvers: 2, roles, order: 'as_listed' }, [dave, bob], [0, 1], { claim: false }), trust, 'ok')
  add('n_quorum_claimed_out_of_order', quorumCase({ approvers: 2, roles, order: 'as_listed' }, [dave, bob], [0, 1]), trust, ['quorum_not_met', '/events/4/event'])
  // An amendment starts a new round under a quorum: kept, the approval before it would count.
  add('n_quorum_counts_a_decision_before_an_amendment', quorumCase({ approvers: 2 }, [{ who: 'user:bob' }, { who: 'user:dave' }], [0, 1], { amendBefore: 1 }), trust, ['quorum_not_met', '/events/4/event'])
  add('n_quorum_role_missing', quorumCase({ approvers: 2, roles }, [bob, { ...dave, role: 'finance' }], [0, 1]), trust, ['quorum_not_met', '/events/3/event'])
  add('n_quorum_one_person_twice', quorumCase({ approvers: 2 }, [{ who: 'user:bob' }, { who: 'user:bob' }], [0, 1]), trust, ['quorum_not_met', '/events/2/event/detail/counted_as'])
  // Under veto "none" a rejection counts for nothing; its author still decided once.
  add('n_quorum_rejects_then_approves', quorumCase({ approvers: 2, veto: 'none' }, [{ who: 'user:bob', decision: 'rejected' }, { who: 'user:bob' }, { who: 'user:dave' }], [1, 2]), trust, ['quorum_not_met', '/events/2/event/detail/counted_as'])
  const carol = { who: 'user:carol', decision: 'rejected' }
  add('y_quorum_rejection_without_veto', quorumCase({ approvers: 2, veto: 'none' }, [carol, { who: 'user:bob' }, { who: 'user:dave' }], [1, 2]), trust, 'ok')
  add('n_quorum_veto_ignored', quorumCase({ approvers: 2 }, [carol, { who: 'user:bob' }, { who: 'user:dave' }], [1, 2]), trust, ['quorum_not_met', '/events/1/event/state'])
  add('n_quorum_counts_another', quorumCase({ approvers: 2 }, [{ who: 'user:bob' }, { who: 'user:dave' }], [0, 0]), trust, ['quorum_not_met', '/events/3/event/detail/quorum'])
  add('n_separation_subject_approves', quorumCase({ approvers: 2 }, [{ who: 'user:alice' }, { who: 'user:dave' }], [0, 1]), trust, ['approver_not_separate', '/decisions/0/approver'])
}
add('y_power_of_two_witnessed', build({ witnessedAt: [4, 8] }), trust, 'ok')
add('y_no_witness_unwindowed_key', build({ witnesses: [] }), { ledger_keys: [{ key: ledgerKey.verifier }], approval_keys: trust.approval_keys }, 'ok')
{
  const b = clone(good)
  b.events[1].event.actor = 'user:mallory'
  add('n_event_altered', b, trust, ['inclusion_proof_invalid', '/events/1/proof'])
}
{
  const b = clone(good)
  b.events.splice(2, 1)
  add('n_event_removed', b, trust, ['evidence_incomplete', '/events/2'])
}
{
  const b = clone(good)
  ;[b.events[1], b.events[2]] = [b.events[2], b.events[1]]
  add('n_events_swapped', b, trust, ['evidence_incomplete', '/events/2/index'])
}
add('n_key_retired_before_cosignature', good, { ...trust, ledger_keys: [{ key: ledgerKey.verifier, valid_until: T }] }, ['checkpoint_untrusted', '/checkpoint/note'])
add('n_windowed_key_no_independent_time', build({ witnesses: [] }), { ledger_keys: trust.ledger_keys, approval_keys: trust.approval_keys }, ['checkpoint_untrusted', '/checkpoint/note'])
add('n_untrusted_origin_key', good, { ...trust, ledger_keys: [{ key: otherLedgerKey.verifier }] }, ['checkpoint_untrusted', '/checkpoint/note'])
{
  const b = clone(good)
  b.checkpoint.note = b.checkpoint.note.replace('\n10\n', '\n11\n')
  add('n_checkpoint_size_altered', b, trust, ['checkpoint_untrusted', '/checkpoint/note/signatures/1'])
}
add('n_witness_quorum_not_met', good, { ...trust, witnesses: { keys: [witness.verifier, witness2.verifier], quorum: 2 } }, ['checkpoint_untrusted', '/checkpoint/note'])
{
  const b = clone(good)
  b.checkpoint.note = b.checkpoint.note.replace('\n\n', '\n')
  add('n_note_without_blank_line', b, trust, ['checkpoint_invalid', '/checkpoint/note'])
}
{
  const b = clone(good)
  b.witnessed[0].consistency.reverse()
  add('n_consistency_altered', b, trust, ['consistency_proof_invalid', '/witnessed/0/consistency'])
}
{
  const b = clone(good)
  b.actions[0].args.amount_minor = 25
  add('n_action_altered', b, trust, ['evidence_mismatch', '/actions/0'])
}
{
  const b = clone(good)
  b.contract.cost_minor = 0
  add('n_contract_altered', b, trust, ['evidence_mismatch', '/actions/0/contract'])
}
{
  const b = clone(good)
  const sig = Buffer.from(b.decisions[0].signatures[0].sig, 'base64url')
  sig[0] ^= 1
  b.decisions[0].signatures[0].sig = sig.toString('base64url')
  add('n_decision_signature_altered', b, trust, ['invalid_signature', '/decisions/0/signatures/0/sig'])
}
add('n_approval_key_untrusted', good, { ledger_keys: trust.ledger_keys, witnesses: trust.witnesses }, ['unknown_key', '/decisions/0/signatures/0/keyid'])
add('n_approval_key_retired_before_arrival', good, { ...trust, approval_keys: { service_keys: { [approver.keyid]: { key: approver.publicJwk, valid_until: T + 1000 } } } }, ['key_outside_window', '/decisions/0'])
{
  const b = clone(good)
  b.task = 'task_00000000000000000000000000000000'
  add('n_other_task', b, trust, ['evidence_other_task', '/events/0/event/task'])
}
{
  const b = clone(good)
  b.decisions = []
  add('n_decision_missing', b, trust, ['evidence_mismatch', '/decisions'])
}
{
  const b = clone(good)
  b.extra = 1
  add('n_unknown_member', b, trust, ['invalid_evidence', '/extra'])
}
{
  // A decision whose event names another expiry than its signed record: consistent log, the
  // record disagrees with its event.
  const h = history({ decisionDetail: { approval_id: apr, approver: 'user:bob', decided_at: T + 1000, decision: 'approved', expires_at: T + 900000, ...proofDetail(proofOf(recordOf(action))) } })
  add('n_record_expiry_differs', build({ history: h }), trust, ['evidence_mismatch', '/decisions/0/expires_at'])
}
add('n_foreign_event', build({ withForeign: true }), trust, ['evidence_other_task', '/events/0/event/task'])
const amendedBare = build({ history: history({ amend: true, bare: true }) })
add('y_amended_bare_decision', amendedBare, trust, 'ok')
add('y_amended_signed_decision', build({ history: history({ amend: true }) }), trust, 'ok')
{
  const b = clone(amendedBare)
  b.reasons[0] = 'another reason'
  add('n_reason_altered', b, trust, ['evidence_mismatch', '/reasons/0'])
}
{
  const b = clone(amendedBare)
  b.actions.pop()
  add('n_amended_action_missing', b, trust, ['evidence_mismatch', '/actions'])
}
{
  const b = clone(amendedBare)
  b.actions.reverse()
  add('n_actions_out_of_order', b, trust, ['evidence_mismatch', '/actions/0'])
}
{
  const b = clone(good)
  b.decisions = [recordOf(action)]
  add('n_proven_decision_given_bare', b, trust, ['evidence_mismatch', '/decisions/0'])
}
{
  const b = clone(amendedBare)
  b.decisions = [signedOf(b.decisions[0])]
  add('n_bare_decision_given_signed', b, trust, ['evidence_mismatch', '/decisions/0'])
}
{
  // Found by this tool: a bare decision's record must be held to its own action too (its
  // action_digest matches the event, the action it carries is another).
  const b = clone(amendedBare)
  b.decisions[0].action.args.amount_minor = 999999
  add('n_bare_record_action_not_sealed', b, trust, ['evidence_mismatch', '/decisions/0/action'])
}
// The key is judged at the earliest trusted cosignature (ms = seconds * 1000), valid_until excluded.
const window = (from, until) => ({ ...trust, ledger_keys: [{ key: ledgerKey.verifier, valid_from: from, valid_until: until }] })
add('y_key_window_holds_at_cosignature', good, window(T + 10000, T + 10001), 'ok')
add('n_key_window_ends_at_cosignature', good, window(T, T + 10000), ['checkpoint_untrusted', '/checkpoint/note'])
add('n_key_window_starts_after_cosignature', good, window(T + 10001, T + 20000), ['checkpoint_untrusted', '/checkpoint/note'])
const twoWitnesses = { ...trust, witnesses: { keys: [witness.verifier, witness2.verifier], quorum: 2 } }
const cosignedTwice = build({ witnesses: [witness, witness2], times: [T / 1000 + 30, T / 1000 + 20] })
add('y_earliest_cosignature_is_the_time', cosignedTwice, { ...twoWitnesses, ledger_keys: window(T + 20000, T + 20001).ledger_keys }, 'ok')
add('n_later_cosignature_is_not_the_time', cosignedTwice, { ...twoWitnesses, ledger_keys: window(T + 30000, T + 30001).ledger_keys }, ['checkpoint_untrusted', '/checkpoint/note'])
{
  const b = clone(good)
  b.events[1].index = 100
  add('n_index_beyond_size', b, trust, ['inclusion_proof_invalid', '/events/1/proof'])
}
{
  const b = clone(good)
  b.events[0].proof[0] = 'AAAA'
  add('n_proof_hash_short', b, trust, ['invalid_evidence', '/events/0/proof/0'])
}
{
  const b = clone(good)
  b.events[0].event.extra = true
  add('n_event_unknown_member', b, trust, ['invalid_evidence', '/events/0/event/extra'])
}
{
  const b = clone(good)
  b.version = 2
  add('n_version', b, trust, ['invalid_evidence', '/version'])
}
add('n_trust_witness_key_of_ledger_type', good, { ...trust, witnesses: { keys: [ledgerKey.verifier], quorum: 1 } }, ['invalid_evidence_trust', '/witnesses/keys/0'])
{
  const h = history()
  h.exported.detail.events.push(digest('an event the bundle does not hold'))
  add('n_export_lists_more', build({ history: h }), trust, ['evidence_incomplete', '/events'])
}
add('n_trust_no_ledger_key', good, { ...trust, ledger_keys: [] }, ['invalid_evidence_trust', '/ledger_keys'])
{
  // A verifier that trusts no TSA leaves a token unread; one that trusts a root reads it.
  const b = clone(good)
  b.checkpoint.timestamp = 'AAAA'
  add('y_token_unread_without_tsa_roots', b, trust, 'ok')
  add('n_timestamp_not_a_token', b, { ...trust, tsa_roots: [TSA_ROOT] }, 'undecided')
  // Core refuses it as invalid_evidence_trust at /tsa_roots/0; X.509 is not re-derived here.
  add('n_trust_root_not_a_certificate', b, { ...trust, tsa_roots: ['AAAA'] }, 'undecided')
}
{
  const b = clone(good)
  b.witnessed[0].note = b.witnessed[0].note.replace(ORIGIN, 'other.example/log')
  add('n_witnessed_other_log', b, trust, ['checkpoint_untrusted', '/witnessed/0/note/signatures/1'])
}

// ---------------------------------------------------------------------------- run
const cli = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : join(root, 'target', 'debug', 'actionseal')
const dir = mkdtempSync(join(tmpdir(), 'evidence-selftest-'))
function core(bundle, t) {
  writeFileSync(join(dir, 'b.json'), JSON.stringify(bundle))
  writeFileSync(join(dir, 't.json'), JSON.stringify(t))
  try {
    return { ok: true, timeline: JSON.parse(execFileSync(cli, ['evidence', 'verify', '--trust', join(dir, 't.json'), join(dir, 'b.json')], { stdio: 'pipe' })) }
  } catch (e) {
    const err = String(e.stderr)
    const m = /^error: ([a-z0-9_]+): [\s\S]*?(?:\(at ([^),]*)[^)]*\))?\s*$/.exec(err)
    return m ? { ok: false, code: m[1], path: m[2] ?? '' } : { ok: false, code: `? ${err.trim()}`, path: '' }
  }
}
const shown = (r) => (r.ok ? 'ok' : r.undecided ? 'undecided' : r.code ? `${r.code} at ${r.path}` : JSON.stringify(r))
// `--write DIR`: also write each case as an evidence vector with core's verdict as expected
// (the shape evidence-check.mjs reads), to exercise its runner.
const writeTo = process.argv.includes('--write') ? process.argv[process.argv.indexOf('--write') + 1] : null
let failures = 0
const tally = { ok: 0, skip: 0, FIND: 0, FAIL: 0 }
for (const c of cases) {
  const mine = verifyEvidence(c.bundle, c.trust)
  const theirs = core(c.bundle, c.trust)
  const want = c.expected === 'ok' || c.expected === 'undecided' ? c.expected : `${c.expected[0]} at ${c.expected[1]}`
  const agree = shown(mine) === shown(theirs) && (!mine.ok || canonicalize(mine.timeline) === canonicalize(theirs.timeline))
  const predicted = shown(mine) === want
  const verdict = mine.undecided ? (predicted ? 'skip' : 'FAIL') : c.finding ? (predicted && !agree ? 'FIND' : 'FAIL') : predicted && agree ? 'ok  ' : 'FAIL'
  if (verdict === 'FAIL') failures++
  tally[verdict.trim()]++
  if (writeTo) {
    const expected = theirs.ok ? theirs.timeline : { code: theirs.code, path: theirs.path }
    writeFileSync(join(writeTo, `${c.name}.json`), JSON.stringify({ bundle: c.bundle, trust: c.trust, expected }, null, 2) + '\n')
  }
  console.log(`${verdict} ${c.name}: predicted ${want}; evidence-check ${shown(mine)}; core ${shown(theirs)}`)
  if (mine.ok && theirs.ok && !agree) console.log(`  evidence-check ${canonicalize(mine.timeline)}\n  core           ${canonicalize(theirs.timeline)}`)
}
// `--mutate N`: N seeded random one-member mutations of the good bundles (a string's character,
// a number, a removed member), each judged by both; a disagreement is a failure.
const mutateArg = process.argv.indexOf('--mutate')
if (mutateArg > 0) {
  let seed = Number(process.env.SEED ?? 26)
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed % n
  }
  const leaves = (v, at = []) => (typeof v === 'object' && v !== null ? Object.entries(v).flatMap(([k, x]) => [[...at, k], ...leaves(x, [...at, k])]) : [])
  const goods = cases.filter((c) => c.expected === 'ok')
  const n = Number(process.argv[mutateArg + 1])
  let differ = 0
  let unjudgedCount = 0
  let refused = 0
  for (let i = 0; i < n; i++) {
    const c = goods[random(goods.length)]
    const b = clone(c.bundle)
    const all = leaves(b)
    const where = all[random(all.length)]
    const parent = where.slice(0, -1).reduce((o, k) => o[k], b)
    const key = where.at(-1)
    const v = parent[key]
    if (typeof v === 'string' && v.length > 0) {
      const at = random(v.length)
      parent[key] = v.slice(0, at) + String.fromCharCode(v.charCodeAt(at) ^ 1) + v.slice(at + 1)
    } else if (typeof v === 'number') parent[key] = v + 1
    else if (Array.isArray(parent)) parent.splice(Number(key), 1)
    else delete parent[key]
    const mine = verifyEvidence(b, c.trust)
    const theirs = core(b, c.trust)
    // Not judged: what evidence-check does not re-derive (the contract's rules, the replay).
    const unjudged = (!theirs.ok && /^\/contract\//.test(theirs.path)) || theirs.code === 'audit_chain_broken'
    if (!theirs.ok) refused++
    else if (process.env.SHOW_ACCEPTED) console.log(`ACCEPTED ${c.name} /${where.join('/')}: evidence-check ${shown(mine)}`)
    if (mine.undecided || unjudged) unjudgedCount++
    if (mine.undecided || unjudged || shown(mine) === shown(theirs)) continue
    differ++
    console.log(`DIFF ${c.name} /${where.join('/')}: evidence-check ${shown(mine)}; core ${shown(theirs)}`)
  }
  console.log(`${n} mutations (${refused} refused by core, ${unjudgedCount} decided by what is not re-derived), ${differ} verdicts differ`)
  if (differ > 0) failures++
}
rmSync(dir, { recursive: true })
console.log(`${tally.ok} agree, ${tally.skip} not judged (not re-derived), ${tally.FIND} findings, ${tally.FAIL} fail`)
process.exit(failures === 0 ? 0 : 1)
