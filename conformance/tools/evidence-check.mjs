#!/usr/bin/env node
// An independent check of evidence bundles (issue 26): written from the bundle's documented
// format (core/src/model/evidence/bundle.rs, trust.rs, timeline.rs), the C2SP signed-note,
// tlog-checkpoint and tlog-cosignature specifications, RFC 9162 §2.1 and RFC 8785, in
// node:crypto and npm `canonicalize`, sharing no code with the Rust core. DSSE envelopes of
// decisions are verified by model-proof.mjs (written from DSSE, apart from core).
//
// `verifyEvidence(bundle, trust)` answers `{ok: true, timeline}` or `{ok: false, code, path}`,
// the first failure in core's order (verify.rs): trust, bundle shape, checkpoint (note,
// witnesses' cosignatures and quorum, the ledger's signature by a key valid at the time the
// ledger does not choose, earlier witnessed checkpoints and their consistency proofs), each
// event's task, log order and inclusion proof, the export's completeness, the documents
// (contract and actions fingerprinted by the events, reasons), each decision's record and proof,
// and the contract's approval rules over them (whether the proposal needed a person, for a rule
// of "always" or "never"; separation of duties; each quorum_met event's round re-tallied from
// the records, with roles as the records name them; each claim before its approval expired).
//
// NOT re-derived (each result lists what it skipped in `notRederived`):
// - RFC 3161 tokens' signatures and certificate chains (checked by openssl and Python
//   elsewhere): a token's genTime and messageImprint are read (RFC 3161 §2.4.2, X.690 DER) and
//   the imprint held to the data it stamps (the checkpoint's text, a decision's RFC 8785
//   proof), but who signed it is not judged. A token this tool cannot read has a time the
//   caller may pass (`tokenTime`, the checkpoint's), else a verdict that depends on it is
//   `undecided`.
// - Passkey assertions of decisions: the record is read and compared with its event, the
//   assertion itself is not verified; a failure at `/decisions/<k>/passkey...` is not judged.
// - Part of a delegation's rules (a decision through a delegation): the links' digests are
//   compared with the event's, a proven decision's signed links are verified as its record
//   is (DSSE under the approval keys at the decision's time, signed for the delegator), and
//   the chain is held to the action at the event's time (core's `delegation_refused`: depth,
//   connection, no repeat, each link within its parent by tenant, tools and window, in force,
//   covering the action's tenant and tool); passkey-approved links, the links' documents' own
//   rules and their `when` conditions are not (crosscheck-model.mjs re-derives those for the
//   permit vectors).
// - The ledger's state machine (core's Replay, `audit_chain_broken`): the timeline copies each
//   step's kind, actor, state and outcome from its event; whether one event may follow another
//   is not judged.
// - The rules of a contract, an action and an approval record beyond what is compared here
//   (the contract, action and approval vectors check them): the contract is read as an object
//   with a tool and an argument schema and fingerprinted; an action for its eight members; a
//   record for the members its event names.
//
// Where this tool is stricter than core (a finding reported to the lead, see
// evidence-selftest.mjs's `n_bare_record_action_not_sealed`): a bare decision's record must be
// sealed (its action_digest the fingerprint of its action), as a proven one must, else
// `evidence_mismatch` at `/decisions/<k>/action`; core compares only its action_digest with the
// event's, so the action it carries could be another.
//
//   node conformance/tools/evidence-check.mjs [DIR]     (default conformance/vectors/evidence)
//
// Each vector is `<y_|n_>name.json`: {"bundle", "trust", "expected": {timeline} | {"code",
// "path"}}. Exits 1 on any disagreement, or when the directory holds no vector.

import { createHash, createPublicKey, verify } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { APPROVAL_TYPE, DELEGATION_TYPE, ProofError, readKeySet, verifyEnvelope } from './model-proof.mjs'

const canonicalize = createRequire(import.meta.url)('canonicalize')

// ---------------------------------------------------------------------------- failures
class Refused extends Error {
  constructor(code, path = '') {
    super(`${code} at ${path}`)
    this.code = code
    this.path = path
  }
}
/** A failure whose path is from the bundle's root already: `under` leaves it as it is. */
class Rooted extends Refused {}
/** A verdict that depends on something this tool does not re-derive. */
class Undecided extends Error {}
const refuse = (code, path = '') => {
  throw new Refused(code, path)
}
const esc = (k) => String(k).replaceAll('~', '~0').replaceAll('/', '~1')
const ptr = (...keys) => keys.map((k) => `/${esc(k)}`).join('')
/** Runs f, a failure's path put under `prefix` (a pointer). */
function under(prefix, f) {
  try {
    return f()
  } catch (e) {
    if (e instanceof Rooted) throw e
    if (e instanceof Refused || e instanceof ProofError) refuse(e.code, prefix + e.path)
    throw e
  }
}

// ---------------------------------------------------------------------------- bytes
const sha256 = (bytes) => createHash('sha256').update(bytes).digest()
const digestOf = (text) => 'sha256:' + sha256(Buffer.from(text, 'utf8')).toString('hex')
const fingerprint = (value) => digestOf(canonicalize(value))
/** Standard base64 with padding, in its one canonical spelling (RFC 4648 §4). */
function unb64(s, code, path = '') {
  if (typeof s !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) refuse(code, path)
  const bytes = Buffer.from(s, 'base64')
  if (bytes.toString('base64') !== s) refuse(code, path)
  return bytes
}
const edKey = (raw) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' })
const edVerify = (key, message, sig) => sig.length === 64 && verify(null, message, key, sig)

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)
const has = (o, k) => Object.hasOwn(o, k)
const isInt = (v, min) => Number.isSafeInteger(v) && v >= min
/** An object of `allowed` members: unknown ones refused at their key. */
function members(v, code, allowed) {
  if (!isObject(v)) refuse(code)
  for (const k of Object.keys(v)) if (!allowed.includes(k)) refuse(code, ptr(k))
  const required = (k) => (has(v, k) ? v[k] : refuse(code, ptr(k)))
  return {
    required,
    int: (k, min) => (isInt(required(k), min) ? v[k] : refuse(code, ptr(k))),
    string: (k) => (typeof required(k) === 'string' ? v[k] : refuse(code, ptr(k))),
    list: (k) => (Array.isArray(required(k)) ? v[k] : refuse(code, ptr(k))),
  }
}

// ---------------------------------------------------------------------------- C2SP signed note
const ED25519 = 0x01
const COSIGNATURE = 0x04
const keyId = (name, type, key) => sha256(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([type]), key])).readUInt32BE(0)
const badName = (name) => name === '' || /[\s+]/u.test(name)

/** A verifier key string `<name>+<8 hex>+<base64(type || key)>` (C2SP signed-note). */
function verifierKey(text, code) {
  if (typeof text !== 'string') refuse(code)
  const [name, id, material] = [text.split('+')[0], text.split('+')[1], text.split('+').slice(2).join('+')]
  if (id === undefined || badName(name) || !/^[0-9a-f]{8}$/.test(id)) refuse(code)
  const raw = unb64(material, code)
  if (raw.length !== 33 || ![ED25519, COSIGNATURE].includes(raw[0])) refuse(code)
  const key = raw.subarray(1)
  if (keyId(name, raw[0], key) !== parseInt(id, 16)) refuse(code)
  return { name, id: parseInt(id, 16), type: raw[0], key: edKey(key), text }
}

/** A signed note: its text (with its final newline) and signature lines. */
function parseNote(note) {
  const invalid = () => refuse('checkpoint_invalid')
  if (typeof note !== 'string' || /[\u0000-\u0009\u000b-\u001f]/.test(note)) invalid()
  const split = note.lastIndexOf('\n\n')
  if (split < 0) invalid()
  const text = note.slice(0, split + 1)
  const rest = note.slice(split + 2)
  if (!rest.endsWith('\n')) invalid()
  const signatures = rest.slice(0, -1).split('\n').map((line) => {
    if (!line.startsWith('\u2014 ')) invalid()
    const body = line.slice(2)
    const space = body.indexOf(' ')
    if (space < 0) invalid()
    const name = body.slice(0, space)
    if (badName(name)) invalid()
    const bytes = unb64(body.slice(space + 1), 'checkpoint_invalid')
    if (bytes.length < 5) invalid()
    return { name, id: bytes.readUInt32BE(0), sig: bytes.subarray(4) }
  })
  if (signatures.length > 100) invalid()
  return { text, signatures }
}

/** Whether `sig` (after the key ID) is `key`'s over `text`; a cosignature's time (seconds). */
function checkSignature(key, text, sig) {
  if (key.type === ED25519) return edVerify(key.key, Buffer.from(text, 'utf8'), sig) ? { ok: true, time: null } : { ok: false }
  // C2SP tlog-cosignature: 8-byte big-endian timestamp || Ed25519 over the signed message.
  if (sig.length !== 72) return { ok: false }
  const time = sig.readBigUInt64BE(0)
  const message = Buffer.from(`cosignature/v1\ntime ${time}\n${text}`, 'utf8')
  return edVerify(key.key, message, sig.subarray(8)) ? { ok: true, time } : { ok: false }
}

/** The signatures by `keys` (matched by name and ID) that verify; one that does not is refused. */
function verifiedBy(note, keys) {
  const out = []
  note.signatures.forEach((s, i) => {
    const known = keys.filter((k) => k.name === s.name && k.id === s.id)
    if (known.length === 0) return
    for (const key of known) {
      const r = checkSignature(key, note.text, s.sig)
      if (r.ok) return void out.push({ key, time: r.time })
    }
    refuse('checkpoint_untrusted', ptr('signatures', i))
  })
  if (out.length === 0) refuse('checkpoint_untrusted')
  return out
}

/** C2SP tlog-checkpoint: origin, decimal size, base64 root, extension lines. */
function parseCheckpoint(text) {
  const invalid = () => refuse('checkpoint_invalid')
  const lines = text.slice(0, -1).split('\n')
  if (lines.some((l) => l === '') || lines.length < 3) invalid()
  const [origin, size, root] = lines
  if (!/^(0|[1-9][0-9]{0,18})$/.test(size) || BigInt(size) > BigInt(Number.MAX_SAFE_INTEGER)) invalid()
  const hash = unb64(root, 'checkpoint_invalid')
  if (hash.length !== 32) invalid()
  return { origin, size: Number(size), root: hash }
}

// ---------------------------------------------------------------------------- RFC 9162 §2.1
const leafHash = (text) => sha256(Buffer.concat([Buffer.from([0]), Buffer.from(text, 'utf8')]))
const nodeHash = (l, r) => sha256(Buffer.concat([Buffer.from([1]), l, r]))

/** RFC 9162 §2.1.3.2. */
function verifyInclusion(leaf, index, size, proof, root) {
  const bad = () => refuse('inclusion_proof_invalid')
  if (index >= size) bad()
  let fn = BigInt(index)
  let sn = BigInt(size - 1)
  let r = leaf
  for (const p of proof) {
    if (sn === 0n) bad()
    if (fn % 2n === 1n || fn === sn) {
      r = nodeHash(p, r)
      while (fn % 2n === 0n && fn !== 0n) {
        fn >>= 1n
        sn >>= 1n
      }
    } else {
      r = nodeHash(r, p)
    }
    fn >>= 1n
    sn >>= 1n
  }
  if (sn !== 0n || !r.equals(root)) bad()
}

/** RFC 9162 §2.1.4.2 (an empty old tree precedes every tree). */
function verifyConsistency(first, second, proof, firstRoot, secondRoot) {
  const bad = () => refuse('consistency_proof_invalid')
  if (first > second) bad()
  if (first === 0) return void (proof.length === 0 || bad())
  if (first === second) return void (proof.length === 0 && firstRoot.equals(secondRoot) ? 0 : bad())
  if (proof.length === 0) bad()
  let path = [...proof]
  if (Number.isInteger(Math.log2(first))) path = [firstRoot, ...path]
  let fn = BigInt(first - 1)
  let sn = BigInt(second - 1)
  while (fn % 2n === 1n) {
    fn >>= 1n
    sn >>= 1n
  }
  let fr = path[0]
  let sr = path[0]
  for (const c of path.slice(1)) {
    if (sn === 0n) bad()
    if (fn % 2n === 1n || fn === sn) {
      fr = nodeHash(c, fr)
      sr = nodeHash(c, sr)
      while (fn % 2n === 0n && fn !== 0n) {
        fn >>= 1n
        sn >>= 1n
      }
    } else {
      sr = nodeHash(sr, c)
    }
    fn >>= 1n
    sn >>= 1n
  }
  if (sn !== 0n || !fr.equals(firstRoot) || !sr.equals(secondRoot)) bad()
}

// ---------------------------------------------------------------------------- trust
function readTrust(v) {
  const code = 'invalid_evidence_trust'
  const f = members(v, code, ['ledger_keys', 'witnesses', 'tsa_roots', 'approval_keys'])
  const ledgerKeys = f.list('ledger_keys').map((k, i) => under(ptr('ledger_keys', i), () => {
    const g = members(k, code, ['key', 'valid_from', 'valid_until'])
    const key = under('/key', () => verifierKey(g.required('key'), code))
    if (key.type !== ED25519) refuse(code, '/key')
    const from = has(k, 'valid_from') ? g.int('valid_from', 0) : null
    const until = has(k, 'valid_until') ? g.int('valid_until', 0) : null
    if (from !== null && until !== null && until <= from) refuse(code, '/valid_until')
    return { key, from, until }
  }))
  if (ledgerKeys.length === 0) refuse(code, '/ledger_keys')
  let witnesses = []
  let quorum = 0
  if (has(v, 'witnesses')) {
    under('/witnesses', () => {
      const g = members(v.witnesses, code, ['keys', 'quorum'])
      witnesses = g.list('keys').map((k, i) => {
        const key = under(ptr('keys', i), () => verifierKey(k, code))
        if (key.type !== COSIGNATURE) refuse(code, ptr('keys', i))
        return key
      })
      // A witness is its key: the same key under two names would count one cosignature twice.
      const material = witnesses.map((w) => w.text.split('+').slice(2).join('+'))
      material.forEach((m, i) => { if (material.indexOf(m) < i) refuse(code, ptr('keys', i)) })
      quorum = g.int('quorum', 1)
      if (quorum > witnesses.length) refuse(code, '/quorum')
    })
  }
  if (has(v, 'tsa_roots')) {
    if (!Array.isArray(v.tsa_roots)) refuse(code, '/tsa_roots')
    v.tsa_roots.forEach((r, i) => unb64(r, code, ptr('tsa_roots', i)))
  }
  // The key set's own rules are core's (checked by the proof vectors); only its keys are used.
  const approvalKeys = has(v, 'approval_keys') ? under('/approval_keys', () => readKeySet(v.approval_keys)) : null
  const tsaRoots = has(v, 'tsa_roots') ? v.tsa_roots.length : 0
  return { ledgerKeys, witnesses, quorum, approvalKeys, tsaRoots }
}

// ---------------------------------------------------------------------------- bundle
const EVENT_FIELDS = ['chain', 'seq', 'at', 'tenant', 'task', 'kind', 'actor', 'action_digest', 'approved_digest', 'decision_id',
  'fence', 'outcome', 'reasons', 'drift', 'state', 'detail', 'prev']
const KINDS = ['proposed', 'propose_duplicate', 'propose_refused', 'decided', 'decision_duplicate', 'decision_refused', 'claimed',
  'claim_refused', 'tool_args_drift', 'sent_to_reapproval', 'rejected_pre_dispatch', 'completed', 'complete_refused', 'lease_expired',
  'reconciled', 'reconcile_refused', 'revoked', 'amended', 'amend_duplicate', 'amend_refused', 'proof_policy_changed',
  'append_only_restored', 'quorum_met', 'evidence_exported']
const isDigest = (v) => typeof v === 'string' && /^sha256:[0-9a-f]{64}$/.test(v)

const STATES = ['awaiting_approval', 'approved', 'claimed', 'succeeded', 'failed', 'unknown', 'awaiting_reapproval', 'rejected',
  'rejected_pre_dispatch']

/** An audit event (event.rs), its shape only, its members in core's order; its leaf is its RFC 8785 text. */
function readEvent(e) {
  const code = 'invalid_evidence'
  const f = members(e, code, EVENT_FIELDS)
  const nullable = (k, ok) => (f.required(k) === null || ok(e[k]) ? e[k] : refuse(code, ptr(k)))
  const strings = (k) => (Array.isArray(f.required(k)) && e[k].every((s) => typeof s === 'string') ? e[k] : refuse(code, ptr(k)))
  const text = (s) => typeof s === 'string'
  f.string('kind')
  nullable('state', (s) => STATES.includes(s))
  if (!isObject(f.required('detail'))) refuse(code, '/detail')
  if (f.int('chain', 0) >= 256) refuse(code, '/chain')
  f.int('seq', 1)
  f.int('at', 0)
  f.string('tenant')
  nullable('task', text)
  if (!KINDS.includes(e.kind)) refuse(code, '/kind')
  f.string('actor')
  for (const k of ['action_digest', 'approved_digest']) nullable(k, isDigest)
  nullable('decision_id', text)
  nullable('fence', (n) => isInt(n, 0))
  nullable('outcome', text)
  strings('reasons')
  strings('drift')
  nullable('prev', isDigest)
  return { event: e, text: canonicalize(e) }
}

function readEntry(v) {
  const code = 'invalid_evidence'
  const f = members(v, code, ['index', 'event', 'proof'])
  const index = f.int('index', 0)
  const given = f.required('event')
  const { event, text } = under('/event', () => readEvent(given))
  const proof = f.list('proof')
  if (proof.length > 64) refuse(code, '/proof')
  return { index, event, text, proof: proof.map((h, i) => hash(h, ptr('proof', i))) }
}
function hash(h, path) {
  const bytes = unb64(h, 'invalid_evidence', path)
  return bytes.length === 32 ? bytes : refuse('invalid_evidence', path)
}

function readBundle(v) {
  const code = 'invalid_evidence'
  const f = members(v, code, ['version', 'task', 'contract', 'actions', 'reasons', 'decisions', 'in_batch', 'events', 'export',
    'checkpoint', 'witnessed', 'keys'])
  if (f.int('version', 1) !== 1) refuse(code, '/version')
  const reasons = f.list('reasons').map((r, i) => (typeof r === 'string' ? r : refuse(code, ptr('reasons', i))))
  const events = f.list('events')
  if (events.length > 10_000) refuse(code, '/events')
  const entries = events.map((e, i) => under(ptr('events', i), () => readEntry(e)))
  const witnessed = f.list('witnessed').map((w, i) => under(ptr('witnessed', i), () => {
    const g = members(w, code, ['note', 'consistency'])
    const note = g.string('note')
    const c = g.list('consistency')
    if (c.length > 64) refuse(code, '/consistency')
    return { note, consistency: c.map((h, j) => hash(h, ptr('consistency', j))) }
  }))
  const task = f.string('task')
  const contract = f.required('contract')
  const actions = f.list('actions')
  const decisions = f.list('decisions')
  // Optional: for each decision, null or this task's inclusion proof in the batch it decided.
  const inBatch = has(v, 'in_batch')
    ? f.list('in_batch').map((p, i) => under(ptr('in_batch', i), () => (p === null ? null : readItemProof(p))))
    : []
  const entry = f.required('export')
  const exported = under('/export', () => readEntry(entry))
  const anchored = f.required('checkpoint')
  const checkpoint = under('/checkpoint', () => {
    const g = members(anchored, code, ['note', 'timestamp'])
    const token = g.required('timestamp')
    if (token !== null) unb64(token, code, '/timestamp')
    return { note: g.string('note'), timestamp: token }
  })
  f.required('keys')
  return { task, contract, actions, reasons, decisions, inBatch, events: entries, exported, checkpoint, witnessed }
}
/** `{"index", "path"}`: an item's RFC 9162 audit path in its batch's tree, hashes in base64. */
function readItemProof(p) {
  const g = members(p, 'invalid_evidence', ['index', 'path'])
  const index = g.int('index', 0)
  const path = g.list('path')
  if (path.length > 64) refuse('invalid_evidence', '/path')
  return { index, path: path.map((h, j) => hash(h, ptr('path', j))) }
}

// ---------------------------------------------------------------------------- the checkpoint
/** A note signed by a trusted ledger key valid at the independent time; anchor.rs's rule. */
function signedCheckpoint(noteText, token, trust, ctx) {
  const note = under('/note', () => parseNote(noteText))
  const checkpoint = under('/note', () => parseCheckpoint(note.text))
  let time = null
  let tokenUnknown = false
  // A verifier that trusts no TSA leaves a token unread (anchor.rs).
  if (token !== null && trust.tsaRoots > 0) {
    ctx.notRederived.push('rfc3161 token\'s signature and chain at /checkpoint/timestamp')
    const at = readableGenTime(Buffer.from(token, 'base64'), Buffer.from(note.text, 'utf8'))
    if (at !== null) time = { at, source: 'rfc3161' }
    else if (Number.isSafeInteger(ctx.tokenTime)) time = { at: ctx.tokenTime, source: 'rfc3161' }
    else tokenUnknown = true
  }
  const witnesses = []
  if (trust.witnesses.length > 0) {
    const cosigned = under('/note', () => verifiedBy(note, trust.witnesses))
    for (const c of cosigned) {
      if (!witnesses.includes(c.key.name)) witnesses.push(c.key.name)
      const ms = c.time * 1000n
      if (ms <= BigInt(Number.MAX_SAFE_INTEGER) && (time === null || Number(ms) < time.at)) time = { at: Number(ms), source: 'witness' }
    }
    if (witnesses.length < trust.quorum) refuse('checkpoint_untrusted', '/note')
  }
  const by = under('/note', () => verifiedBy(note, trust.ledgerKeys.map((k) => k.key)))
  const judged = (at) => by.filter((v) => v.key.name === checkpoint.origin).some((v) =>
    trust.ledgerKeys.filter((k) => k.key === v.key || k.key.text === v.key.text).some((k) =>
      at === null ? k.from === null && k.until === null : (k.from === null || k.from <= at) && (k.until === null || at < k.until)))
  if (tokenUnknown) {
    // The true time is the token's or an earlier witness's: decided only if both agree.
    const witnessAt = time && time.source === 'witness' ? time.at : null
    const anyWindow = trust.ledgerKeys.some((k) => k.from !== null || k.until !== null)
    if (anyWindow) throw new Undecided('the ledger key is judged at an RFC 3161 token\'s time')
    if (!judged(witnessAt)) refuse('checkpoint_untrusted', '/note')
    throw new Undecided('the checkpoint\'s time is an RFC 3161 token\'s')
  }
  if (!judged(time === null ? null : time.at)) refuse('checkpoint_untrusted', '/note')
  return { checkpoint, time, witnesses }
}

function anchor(b, trust, ctx) {
  const s = under('/checkpoint', () => signedCheckpoint(b.checkpoint.note, b.checkpoint.timestamp, trust, ctx))
  const cp = s.checkpoint
  b.witnessed.forEach((w, i) => under(ptr('witnessed', i), () => {
    const old = signedCheckpoint(w.note, null, trust, ctx).checkpoint
    if (old.origin !== cp.origin) refuse('consistency_proof_invalid', '/note')
    under('/consistency', () => verifyConsistency(old.size, cp.size, w.consistency, old.root, cp.root))
  }))
  return s
}

// ---------------------------------------------------------------------------- events
function included(b, cp) {
  let last = null
  b.events.forEach((entry, i) => {
    if (entry.event.task !== b.task) refuse('evidence_other_task', ptr('events', i, 'event', 'task'))
    if (last !== null && entry.index <= last) refuse('evidence_incomplete', ptr('events', i, 'index'))
    last = entry.index
    under(ptr('events', i, 'proof'), () => verifyInclusion(leafHash(entry.text), entry.index, cp.size, entry.proof, cp.root))
  })
  const x = b.exported
  under('/export/proof', () => verifyInclusion(leafHash(x.text), x.index, cp.size, x.proof, cp.root))
  if (last !== null && x.index <= last) refuse('evidence_incomplete', '/export/index')
}

function complete(b) {
  const e = b.exported.event
  if (e.kind !== 'evidence_exported') refuse('invalid_evidence', '/export/event/kind')
  if (e.task !== b.task) refuse('evidence_other_task', '/export/event/task')
  const listed = e.detail.events
  if (!Array.isArray(listed)) refuse('invalid_evidence', '/export/event/detail/events')
  b.events.forEach((entry, i) => {
    if (listed[i] !== digestOf(entry.text)) refuse('evidence_incomplete', ptr('events', i))
  })
  if (listed.length !== b.events.length) refuse('evidence_incomplete', '/events')
}

// ---------------------------------------------------------------------------- documents
const ACTION_FIELDS = ['args', 'contract', 'job_id', 'policy_version', 'request_id', 'subject', 'tenant', 'tool']
function readAction(a) {
  const f = members(a, 'invalid_evidence', ACTION_FIELDS)
  for (const k of ACTION_FIELDS.filter((k) => k !== 'args')) f.string(k)
  if (!isDigest(a.contract)) refuse('invalid_evidence', '/contract')
  if (!isObject(a.args)) refuse('invalid_evidence', '/args')
  return a
}
const taskId = (tenant, job, request) =>
  'task_' + sha256(Buffer.from(canonicalize(['actionseal/task/v1', tenant, job, request]), 'utf8')).toString('hex').slice(0, 32)

function documents(b) {
  const c = b.contract
  // The contract's members as far as its fingerprint needs; its rules are core's (see header).
  under('/contract', () => {
    const f = members(c, 'invalid_evidence', ['tool', 'version', 'effect', 'args', 'approval', 'cost_minor', 'max_approval_ms',
      'batch'])
    f.string('tool')
    f.string('version')
    f.string('effect')
    if (!isObject(f.required('args'))) refuse('invalid_evidence', '/args')
    f.required('approval')
  })
  const contract = fingerprint(c)
  const actions = b.actions.map((a, i) => under(ptr('actions', i), () => {
    readAction(a)
    if (taskId(a.tenant, a.job_id, a.request_id) !== b.task) refuse('evidence_other_task')
    if (a.contract !== contract) refuse('evidence_mismatch', '/contract')
    return { action: a, digest: fingerprint(a) }
  }))
  const named = b.events.filter((e) => ['proposed', 'amended'].includes(e.event.kind))
  if (named.length !== actions.length) refuse('evidence_mismatch', '/actions')
  named.forEach((e, k) => {
    if (e.event.action_digest !== actions[k].digest) refuse('evidence_mismatch', ptr('actions', k))
  })
  const amended = b.events.filter((e) => e.event.kind === 'amended')
  if (amended.length !== b.reasons.length) refuse('evidence_mismatch', '/reasons')
  amended.forEach((e, k) => {
    if (e.event.detail.reason_digest !== digestOf(canonicalize(b.reasons[k]))) refuse('evidence_mismatch', ptr('reasons', k))
  })
  if (actions.length === 0) refuse('evidence_mismatch', '/actions')
  return { contract, proposal: actions[0].action, actions }
}

// ---------------------------------------------------------------------------- decisions
/** An approval record's shape, as far as comparing it with its event needs. */
function readRecord(r, code) {
  const f = members(r, code, ['action', 'action_digest', 'approval_id', 'approver', 'decided_at', 'decision', 'decision_id', 'expires_at',
    'proposed_digest', 'role', 'on_behalf_of', 'delegation'])
  for (const k of ['approval_id', 'decision_id', 'approver']) f.string(k)
  if (!['approved', 'rejected'].includes(f.string('decision'))) refuse(code, '/decision')
  const decided = f.int('decided_at', 0)
  if (f.int('expires_at', 0) <= decided) refuse(code, '/expires_at')
  if (!isDigest(f.required('action_digest'))) refuse(code, '/action_digest')
  if (has(r, 'proposed_digest') && !isDigest(r.proposed_digest)) refuse(code, '/proposed_digest')
  readAuthority(r, code)
  const action = f.required('action')
  under('/action', () => readAction(action))
  return r
}
/** `role`, and `on_behalf_of` with `delegation` (a non-empty array), present together or not. */
function readAuthority(r, code) {
  for (const k of ['role', 'on_behalf_of']) if (has(r, k) && (typeof r[k] !== 'string' || r[k] === '')) refuse(code, `/${k}`)
  if (has(r, 'delegation') && (!Array.isArray(r.delegation) || r.delegation.length === 0)) refuse(code, '/delegation')
  if (has(r, 'on_behalf_of') && !has(r, 'delegation')) refuse(code, '/on_behalf_of')
  if (has(r, 'delegation') && !has(r, 'on_behalf_of')) refuse(code, '/delegation')
}
/** A delegation link's digest: its document's fingerprint (chain.rs's rule). */
function linkDigest(link) {
  let doc
  try {
    doc = linkDocument(link)
  } catch {
    // A payload that cannot be read: the link is named by its own fingerprint.
    return fingerprint(link)
  }
  return fingerprint(doc)
}

/** A delegation link's document as stored: a DSSE payload, a record without `passkey`, or bare. */
function linkDocument(link) {
  if (isObject(link) && has(link, 'payloadType')) return JSON.parse(Buffer.from(link.payload, 'base64url').toString('utf8'))
  if (isObject(link) && has(link, 'passkey')) {
    const { passkey, ...doc } = link
    return doc
  }
  return link
}

/**
 * A decision through a delegation: its chain holds for `action` at `at`, the decided event's
 * time, as the ledger judged it when the decision arrived (SPEC-25 §6, steps 1 to 7; revocation
 * is a claim's fact). Any step that fails is `delegation_refused` at `where`.
 */
function chainHolds(record, action, at, where, ctx) {
  const links = record.delegation
  if (!Array.isArray(links) || typeof record.on_behalf_of !== 'string') return []
  const refused = () => { throw new Rooted('delegation_refused', where) }
  if (links.length === 0 || links.length > 4) refused()
  let docs
  try {
    docs = links.map(linkDocument)
  } catch {
    refused()
  }
  const id = (v) => typeof v === 'string' && v.length > 0
  const window = (d) => Number.isSafeInteger(d.not_before) && Number.isSafeInteger(d.not_after) && d.not_before < d.not_after
  if (!docs.every((d) => isObject(d) && id(d.delegator) && id(d.delegate) && id(d.tenant) && Array.isArray(d.tools) && window(d))) refused()
  if (docs.some((d) => Array.isArray(d.when))) ctx.notRederived.push(`delegation scope conditions at ${where}`)
  if (docs[0].delegator !== record.on_behalf_of || docs.at(-1).delegate !== record.approver) refused()
  if (docs.some((d, i) => i > 0 && docs[i - 1].delegate !== d.delegator)) refused()
  const ids = [record.on_behalf_of, ...docs.map((d) => d.delegate)]
  if (new Set(ids).size !== ids.length) refused()
  const within = (c, p) => c.tenant === p.tenant && c.tools.every((t) => p.tools.includes(t)) &&
    c.not_before >= p.not_before && c.not_after <= p.not_after
  if (docs.some((d, i) => i > 0 && !within(d, docs[i - 1]))) refused()
  if (docs.some((d) => at < d.not_before || at >= d.not_after || record.decided_at < d.not_before)) refused()
  if (!docs.every((d) => d.tenant === action.tenant && d.tools.includes(action.tool))) refused()
  return docs.map((d) => d.delegate)
}

/**
 * A proven decision's signed delegation links, verified as its record was: DSSE under the
 * trusted approval keys, each key judged at the decision's time, signed for the delegator
 * (core reads a recorded chain's links back unverified only where the decision was bare). A
 * passkey-approved link is not re-derived.
 */
function linksVerified(record, trust, at, ctx, where) {
  if (!Array.isArray(record.delegation)) return
  record.delegation.forEach((link, j) => {
    if (isObject(link) && has(link, 'payloadType')) {
      under(ptr('delegation', j), () => verifyEnvelope(link, DELEGATION_TYPE, trust.approvalKeys, at, (d) => d.delegator))
    } else if (isObject(link) && has(link, 'passkey')) {
      ctx.notRederived.push(`a passkey-approved delegation link at ${where}/delegation/${j}`)
    }
  })
}

/** A batch decision record (docs/CONTRACTS.md, "Batches"): a header in place of an action. */
function readBatchRecord(r, code) {
  const f = members(r, code, ['batch', 'batch_digest', 'approval_id', 'approver', 'decided_at', 'decision', 'decision_id', 'expires_at',
    'proposed_digest', 'role', 'on_behalf_of', 'delegation'])
  for (const k of ['approval_id', 'decision_id', 'approver']) f.string(k)
  if (!['approved', 'rejected'].includes(f.string('decision'))) refuse(code, '/decision')
  const decided = f.int('decided_at', 0)
  if (f.int('expires_at', 0) <= decided) refuse(code, '/expires_at')
  if (!isDigest(f.required('batch_digest'))) refuse(code, '/batch_digest')
  readAuthority(r, code)
  const batch = f.required('batch')
  under('/batch', () => {
    const h = members(batch, code, ['contract', 'root', 'semantics', 'size', 'tenant'])
    if (!isDigest(h.required('contract'))) refuse(code, '/contract')
    hash(h.string('root'), '/root')
    if (!['all_or_nothing', 'per_item'].includes(h.string('semantics'))) refuse(code, '/semantics')
    h.int('size', 1)
    h.string('tenant')
  })
  return r
}

/** Item `proof.index` of the batch `header` describes is the action fingerprinted `digest`. */
function inBatch(header, action, digest, proof) {
  if (action.contract !== header.contract || action.tenant !== header.tenant) refuse('not_in_batch')
  const leaf = sha256(Buffer.concat([Buffer.from([0]), Buffer.from(digest.slice('sha256:'.length), 'hex')]))
  try {
    verifyInclusion(leaf, proof.index, header.size, proof.path, Buffer.from(header.root, 'base64'))
  } catch (e) {
    if (e instanceof Refused) refuse('not_in_batch')
    throw e
  }
}

function holds(r, e, batch = false) {
  const d = e.detail
  const text = (k) => (typeof d[k] === 'string' ? d[k] : null)
  const int = (k) => (Number.isSafeInteger(d[k]) ? d[k] : null)
  const rec = (k) => (typeof r[k] === 'string' ? r[k] : null)
  const links = (r.delegation ?? []).map(linkDigest)
  const named = Array.isArray(d.delegations) ? d.delegations.filter((x) => typeof x === 'string') : []
  const subject = batch
    ? ['batch_digest', e.approved_digest !== null && e.approved_digest === r.batch_digest && text('batch_digest') === r.batch_digest]
    : ['action_digest', e.action_digest !== null && e.action_digest === r.action_digest]
  const checks = [
    ['approval_id', rec('approval_id') === text(batch ? 'batch_approval_id' : 'approval_id')],
    ['decision_id', rec('decision_id') === e.decision_id],
    ['decision', r.decision === text('decision')],
    ['approver', rec('approver') === text('approver')],
    ['decided_at', r.decided_at === int('decided_at')],
    ['expires_at', r.expires_at === int('expires_at')],
    subject,
    ['proposed_digest', rec('proposed_digest') === text('proposed_digest')],
    ['on_behalf_of', rec('on_behalf_of') === text('on_behalf_of')],
    ['delegation', canonicalize(links) === canonicalize(named)],
    // A round's member counts for whom its record decided, in the role the record names.
    ['counted_as', !has(d, 'counted_as') || d.counted_as === (rec('on_behalf_of') ?? rec('approver'))],
    ['role', !has(d, 'counted_as') || rec('role') === text('role')],
  ]
  const failed = checks.find(([, ok]) => !ok)
  if (failed) refuse('evidence_mismatch', ptr(failed[0]))
}

function decisions(b, trust, ctx, actions) {
  // Each with its index in the bundle's events, for a failure in the event itself.
  const decided = b.events.map((entry, i) => ({ entry, i })).filter(({ entry }) => entry.event.kind === 'decided')
  if (decided.length !== b.decisions.length) refuse('evidence_mismatch', '/decisions')
  if (b.inBatch.length > 0 && b.inBatch.length !== b.decisions.length) refuse('evidence_mismatch', '/in_batch')
  // Only an item is decided by its batch: a task proposed alone is not one.
  const proposedInBatch = has(b.events.find(({ event }) => event.kind === 'proposed')?.event.detail ?? {}, 'batch_id')
  return decided.map(({ entry, i }, k) => under(ptr('decisions', k), () => {
    const e = entry.event
    const given = b.decisions[k]
    const item = b.inBatch[k] ?? null
    if (has(e.detail, 'batch_id') !== (item !== null)) throw new Rooted('evidence_mismatch', ptr('in_batch', k))
    if (item !== null && !proposedInBatch) throw new Rooted('evidence_mismatch', ptr('in_batch', k))
    if (item !== null) {
      // A batch's decision speaks about this task through the item's inclusion proof.
      let record = given
      let proof = null
      if (has(e.detail, 'proof') !== (has(given, 'payloadType') || has(given, 'passkey'))) refuse('evidence_mismatch')
      if (has(e.detail, 'proof')) {
        if (has(given, 'passkey')) throw new Undecided('a passkey-approved batch decision')
        if (!Number.isSafeInteger(e.detail.verified_at)) refuse('evidence_mismatch')
        if (e.detail.verified_at > e.at) throw new Rooted('evidence_mismatch', ptr('events', i, 'event', 'detail', 'verified_at'))
        const { at, by } = decisionTime(entry, i, trust, ctx)
        const sealed = (doc) => {
          readBatchRecord(doc, 'invalid_approval')
          if (fingerprint(doc.batch) !== doc.batch_digest) refuse('invalid_approval', '/batch_digest')
        }
        const v = verifyEnvelope(given, APPROVAL_TYPE, trust.approvalKeys, at, (doc) => doc.approver, sealed)
        linksVerified(v.document, trust, at, ctx, ptr('decisions', k))
        const { payload, ...detached } = given
        if (canonicalize(e.detail.proof) !== canonicalize(detached)) refuse('evidence_mismatch')
        record = v.document
        proof = { signer: v.signer, at, by }
      } else {
        readBatchRecord(given, 'invalid_evidence')
      }
      holds(record, e, true)
      if (fingerprint(record.batch) !== record.batch_digest) refuse('evidence_mismatch', '/batch')
      const action = actions.find((a) => a.digest === e.action_digest)
      if (!action) refuse('evidence_mismatch')
      try {
        inBatch(record.batch, action.action, action.digest, item)
      } catch (err) {
        if (err instanceof Refused && !(err instanceof Rooted)) throw new Rooted(err.code, ptr('in_batch', k) + err.path)
        throw err
      }
      const delegates = chainHolds(record, action.action, e.at, ptr('decisions', k, 'delegation'), ctx)
      return { proof, record, delegates, i }
    }
    const envelope = isObject(given) && has(given, 'payloadType')
    const passkey = isObject(given) && has(given, 'passkey')
    const proven = has(e.detail, 'proof')
    if (proven !== (envelope || passkey)) refuse('evidence_mismatch')
    let record = given
    let proof = null
    if (proven) {
      if (!Number.isSafeInteger(e.detail.verified_at)) refuse('evidence_mismatch')
      // A ledger verifies a decision as it arrives, then records it.
      if (e.detail.verified_at > e.at) throw new Rooted('evidence_mismatch', ptr('events', i, 'event', 'detail', 'verified_at'))
      // With a token and trusted TSA roots the key is judged at the token's time (stamp.rs).
      const { at, by } = decisionTime(entry, i, trust, ctx)
      if (envelope) {
        const sealed = (doc) => {
          readRecord(doc, 'invalid_approval')
          if (fingerprint(doc.action) !== doc.action_digest) refuse('invalid_approval', '/action_digest')
        }
        const v = verifyEnvelope(given, APPROVAL_TYPE, trust.approvalKeys, at, (doc) => doc.approver, sealed)
        linksVerified(v.document, trust, at, ctx, ptr('decisions', k))
        const { payload, ...detached } = given
        if (canonicalize(e.detail.proof) !== canonicalize(detached)) refuse('evidence_mismatch')
        record = v.document
        proof = { signer: v.signer, at, by }
      } else {
        ctx.notRederived.push(`passkey assertion at ${ptr('decisions', k)}`)
        const { passkey: assertion, ...doc } = given
        if (Array.isArray(doc.delegation) && doc.delegation.some((l) => isObject(l) && (has(l, 'payloadType') || has(l, 'passkey')))) {
          ctx.notRederived.push(`delegation links' proofs at ${ptr('decisions', k, 'delegation')} (a passkey-approved decision)`)
        }
        if (canonicalize(e.detail.proof) !== canonicalize(assertion)) refuse('evidence_mismatch')
        record = readRecord(doc, 'invalid_approval')
        const entryKey = trust.approvalKeys?.passkeys.get(assertion?.credential_id)
        if (!entryKey) throw new Undecided('a passkey of no trusted credential')
        proof = { signer: { algorithm: entryKey.alg, credential_id: assertion.credential_id, kind: 'passkey' }, at, by }
      }
    } else {
      readRecord(given, 'invalid_evidence')
    }
    holds(record, e)
    // A bare record held to its own action as a proven one is (core does not: see the header).
    if (!proven && fingerprint(record.action) !== record.action_digest) refuse('evidence_mismatch', '/action')
    // The chain against the bundle's action the event names, not the record's own copy.
    const action = actions.find((a) => a.digest === e.action_digest)
    if (!action) refuse('evidence_mismatch')
    const delegates = chainHolds(record, action.action, e.at, ptr('decisions', k, 'delegation'), ctx)
    return { proof, record, delegates, i }
  }))
}

// ---------------------------------------------------------------------------- approval rules
// Written from the contract's documented `approval` (docs/CONTRACTS.md, quorum and separation
// of duties), not from core: a ledger refuses a decision that breaks them as it arrives, so
// only a dishonest ledger's bundle reaches these refusals.

/**
 * The proposed event says the action needed a person whenever the contract's rule says so:
 * `always` does, `never` does not (a ledger may ask where the rule does not). A rule of
 * conditions is core's rule language and is not re-derived here, nor any rule under a
 * contract that marks values sensitive (it may read a committed value).
 */
function required(b, ctx) {
  const i = b.events.findIndex(({ event }) => event.kind === 'proposed')
  if (i < 0 || has(b.contract, 'sensitive')) return
  const at = ptr('events', i, 'event', 'detail', 'approval_required')
  const approval = b.contract.approval
  const rule = isObject(approval) ? approval.when : approval
  if (rule !== 'always' && rule !== 'never') {
    ctx.notRederived.push(`approval rule's conditions at ${at}`)
    return
  }
  if (rule === 'always' && b.events[i].event.detail.approval_required !== true) refuse('evidence_mismatch', at)
}

/**
 * Every claim was made while its approval held (the claim's check refuses `expired`): before
 * the expiry of the decision that approved the task, or under a quorum the first expiry
 * among the members quorum_met counts; a re-approval or an amendment starts over.
 */
function claimedInTime(b, judged) {
  const byId = (id) => judged.find((j) => j.record.decision_id === id)?.record.expires_at
  let until = null
  b.events.forEach(({ event }, i) => {
    if (event.kind === 'decided' && !has(event.detail, 'counted_as')) {
      until = judged.find((j) => j.i === i)?.record.expires_at ?? null
    } else if (event.kind === 'quorum_met') {
      const counted = Array.isArray(event.detail.quorum?.counted) ? event.detail.quorum.counted : []
      const expiries = counted.map((m) => byId(m.decision_id)).filter((x) => Number.isSafeInteger(x))
      until = expiries.length ? Math.min(...expiries) : null
    } else if (event.kind === 'sent_to_reapproval' || event.kind === 'amended') {
      until = null
    } else if (event.kind === 'claimed' && until !== null && event.at >= until) {
      refuse('evidence_mismatch', ptr('events', i, 'event'))
    }
  })
}

/** Whom a record counts for: `on_behalf_of` through a delegation, else its approver. */
const countsFor = (r) => (typeof r.on_behalf_of === 'string' ? r.on_behalf_of : r.approver)

/**
 * No decision by a duty's holder: subject and proposer under a quorum whether listed or not,
 * amender when listed; each judged on whom the record counts for and every delegate.
 */
function separated(b, judged, actions) {
  const approval = isObject(b.contract.approval) ? b.contract.approval : {}
  const listed = Array.isArray(approval.separation) ? approval.separation : []
  const quorum = isObject(approval.quorum)
  const duties = ['subject', 'proposer', 'amender'].filter((d) => listed.includes(d) || (quorum && d !== 'amender'))
  const proposed = b.events.find(({ event }) => event.kind === 'proposed')
  judged.forEach(({ record, delegates, i }, k) => {
    const e = b.events[i].event
    const who = [countsFor(record), ...delegates]
    for (const duty of duties) {
      const holders = {
        subject: () => [actions.find((a) => a.digest === e.action_digest)?.action.subject],
        proposer: () => (proposed ? [proposed.event.actor] : []),
        amender: () => b.events.slice(0, i).filter(({ event }) => event.kind === 'amended').map(({ event }) => event.actor),
      }[duty]()
      if (who.some((w) => holders.includes(w))) refuse('approver_not_separate', ptr('decisions', k, 'approver'))
    }
  })
}

/** Counts approving members, one per person (whom it counts for, or its delegate), by role. */
function tally(q, members) {
  const ids = (m) => [m.approver, m.delegate].filter((x) => x !== null)
  const counted = []
  for (const m of members) {
    if (m.decision === 'approved' && !counted.some((c) => ids(c).some((x) => ids(m).includes(x)))) counted.push(m)
  }
  const roles = Array.isArray(q.roles) ? q.roles : []
  const missingRoles = roles
    .map((r) => ({ role: r.role, count: r.count - counted.filter((c) => c.role === r.role).length }))
    .filter((r) => r.count > 0)
  const missing = Math.max(q.approvers - counted.length, missingRoles.reduce((n, r) => n + r.count, 0), 0)
  const rank = (m) => roles.findIndex((r) => r.role === m.role)
  const outOfOrder = q.order === 'as_listed' && counted.some((early) => counted.some((late) =>
    rank(early) >= 0 && rank(late) >= 0 && rank(early) < rank(late) && late.decided_at < early.decided_at))
  return {
    outOfOrder,
    state: {
      required: q.approvers,
      counted: counted.map(({ approver, role, decision_id, delegate, delegations }) => ({ approver, role, decision_id, delegate, delegations })),
      missing,
      missing_roles: missingRoles,
    },
  }
}

/**
 * Every decision was made inside its round, as the ledger takes one: its record's decided_at no
 * earlier than the last proposed, amended or sent_to_reapproval event, and no later than its
 * own decided event.
 */
function decidedInRound(b, judged) {
  let began = null
  b.events.forEach(({ event }, i) => {
    if (['proposed', 'amended', 'sent_to_reapproval'].includes(event.kind)) began = event.at
    if (event.kind !== 'decided') return
    const k = judged.findIndex((j) => j.i === i)
    if (k < 0) return
    const at = judged[k].record.decided_at
    if ((began !== null && at < began) || at > event.at) refuse('decided_outside_round', ptr('decisions', k, 'decided_at'))
  })
}

/**
 * A batch's decisions answer the one round of its items it was proposed for: a batch
 * (`batch_approval_id`) appears under one of the task's approval ids, and an approval id holds
 * decisions of one batch; else the later round could be answered with an earlier batch's
 * records, which name the batch's round, not the item's.
 */
function oneBatchARound(b) {
  const seen = []
  b.events.forEach(({ event }, i) => {
    const batch = event.detail?.batch_approval_id
    if (event.kind !== 'decided' || typeof batch !== 'string') return
    const round = event.detail.approval_id ?? null
    if (seen.some(([r, x]) => (x === batch) !== (r === round))) {
      refuse('evidence_mismatch', ptr('events', i, 'event', 'detail', 'batch_approval_id'))
    }
    seen.push([round, batch])
  })
}

/**
 * Under a quorum every decision about this task (alone, or as an item of the batch decided:
 * its events record each member of the batch's round) is a member of a round (`counted_as`)
 * that leaves the task awaiting (approval or re-approval), or rejected by a veto; each
 * quorum_met event's round (the counted decisions before it with its approval_id, each about
 * the action it approves) meets the quorum, with no veto before it, counted as the event says;
 * a round met out of the roles' listed order may be recorded, but no claim follows it.
 * Without a quorum nothing counts.
 */
function tallied(b, judged) {
  const approval = isObject(b.contract.approval) ? b.contract.approval : {}
  const q = isObject(approval.quorum) ? { order: 'any', veto: 'any_rejection', ...approval.quorum } : null
  const counted = (i) => has(b.events[i].event.detail, 'counted_as')
  // Each identity decides once a round.
  const seen = new Set()
  for (const { record, i } of judged) {
    const e = b.events[i].event
    if (counted(i)) {
      const member = JSON.stringify([e.detail.approval_id ?? null, countsFor(record)])
      if (seen.has(member)) refuse('quorum_not_met', ptr('events', i, 'event', 'detail', 'counted_as'))
      seen.add(member)
    }
    if (!q && counted(i)) refuse('quorum_not_met', ptr('events', i, 'event', 'detail', 'counted_as'))
    if (q && !counted(i)) refuse('quorum_not_met', ptr('events', i, 'event', 'detail'))
    if (q) {
      const vetoes = record.decision === 'rejected' && q.veto === 'any_rejection'
      const left = vetoes ? e.state === 'rejected' : ['awaiting_approval', 'awaiting_reapproval'].includes(e.state)
      if (!left) refuse('quorum_not_met', ptr('events', i, 'event', 'state'))
    }
  }
  let met = null
  b.events.forEach(({ event }, i) => {
    if (event.kind === 'quorum_met') {
      if (!q) refuse('quorum_not_met', ptr('events', i, 'event', 'kind'))
      met = roundMet(b, i, q, judged, counted)
    } else if (event.kind === 'claimed' && q && met !== null && met.outOfOrder) {
      refuse('quorum_not_met', ptr('events', i, 'event'))
    } else if (event.kind === 'sent_to_reapproval' || event.kind === 'amended') {
      met = null
    }
  })
}

/** The quorum_met event `i`'s round re-tallied from the bundle's records: {state, outOfOrder}. */
function roundMet(b, i, q, judged, counted) {
  const event = b.events[i].event
  const round = judged.filter((j) => j.i < i && counted(j.i) && b.events[j.i].event.detail.approval_id === event.detail.approval_id)
  if (round.some((j) => b.events[j.i].event.action_digest !== event.action_digest)) refuse('quorum_not_met', ptr('events', i, 'event'))
  // A batch item's round is its batch's: every member decided that one batch.
  const batchOf = (j) => b.events[j.i].event.detail.batch_digest ?? null
  if (round.some((j) => batchOf(j) !== batchOf(round[0]))) refuse('quorum_not_met', ptr('events', i, 'event'))
  const members = round.map(({ record }) => ({
    approver: countsFor(record),
    role: typeof record.role === 'string' ? record.role : null,
    decision: record.decision,
    decided_at: record.decided_at,
    decision_id: record.decision_id,
    delegate: typeof record.on_behalf_of === 'string' ? record.approver : null,
    delegations: (record.delegation ?? []).map(linkDigest),
  }))
  const tallied = tally(q, members)
  const vetoed = q.veto === 'any_rejection' && members.some((m) => m.decision === 'rejected')
  if (vetoed || tallied.state.missing > 0) refuse('quorum_not_met', ptr('events', i, 'event'))
  if (canonicalize(event.detail.quorum) !== canonicalize(tallied.state)) refuse('quorum_not_met', ptr('events', i, 'event', 'detail', 'quorum'))
  return tallied
}

// ---------------------------------------------------------------------------- RFC 3161 time
/** One DER TLV at `at` (X.690 §8.1; definite lengths only): {tag, body, whole, end}. */
function tlv(der, at) {
  if (at + 2 > der.length) throw new Undecided('a token that is not DER')
  const tag = der[at]
  let len = der[at + 1]
  let start = at + 2
  if (len & 0x80) {
    const n = len & 0x7f
    if (n === 0 || n > 4 || start + n > der.length) throw new Undecided('a token that is not DER')
    len = der.readUIntBE(start, n)
    start += n
  }
  if (start + len > der.length) throw new Undecided('a token that is not DER')
  return { tag, body: der.subarray(start, start + len), whole: der.subarray(at, start + len), end: start + len }
}
/** The TLVs of a constructed body, in order. */
function children(body) {
  const out = []
  for (let at = 0; at < body.length;) {
    const t = tlv(body, at)
    out.push(t)
    at = t.end
  }
  return out
}
// id-sha256, id-sha384, id-sha512 (RFC 5754 §2), in DER.
const IMPRINT_HASHES = new Map([
  ['608648016503040201', 'sha256'], ['608648016503040202', 'sha384'], ['608648016503040203', 'sha512'],
])
/**
 * The genTime (ms) of an RFC 3161 TimeStampToken (RFC 3161 §2.4.2: a CMS ContentInfo of
 * SignedData whose content is a TSTInfo), after its messageImprint is held to `data`. Its
 * signature and certificate chain are not re-derived.
 */
function tokenGenTime(der, data) {
  const contentInfo = children(tlv(der, 0).body)
  const signedData = children(tlv(contentInfo[1]?.body ?? Buffer.alloc(0), 0).body)
  const encap = children(signedData[2]?.body ?? Buffer.alloc(0))
  const tstInfo = tlv(tlv(encap[1]?.body ?? Buffer.alloc(0), 0).body, 0)
  const [, , imprint, , genTime] = children(tstInfo.body)
  if (!imprint || genTime?.tag !== 0x18) throw new Undecided('a token without a TSTInfo')
  const [algorithm, hashed] = children(imprint.body)
  const hash = IMPRINT_HASHES.get(Buffer.from(children(algorithm.body)[0].body).toString('hex'))
  if (!hash) throw new Undecided('a token of an imprint hash this tool does not know')
  if (!createHash(hash).update(data).digest().equals(hashed.body)) refuse('timestamp_mismatch', '/message_imprint')
  // GeneralizedTime, UTC (RFC 5280 §4.1.2.5.2 as RFC 3161 §2.4.2 asks): YYYYMMDDHHMMSS[.f+]Z.
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d+))?Z$/.exec(genTime.body.toString('latin1'))
  if (!m) throw new Undecided('a genTime this tool does not read')
  const ms = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) + ms
}

/**
 * The genTime of a token, or of the token a TimeStampResp grants (RFC 3161 §2.4.2: a status,
 * then the token), as `tokenGenTime` reads it; `null` when this tool cannot read it.
 */
function readableGenTime(der, data) {
  try {
    const top = children(tlv(der, 0).body)
    // A ContentInfo starts with its content type (an OID); a TimeStampResp with its status.
    const token = top[0]?.tag === 0x30 ? top[1]?.whole : der
    if (!token) return null
    return under('/timestamp', () => tokenGenTime(token, data))
  } catch (e) {
    if (e instanceof Undecided) return null
    throw e
  }
}

/**
 * The time the key of decided event `i` is judged at (stamp.rs's rule): its token's genTime when it
 * carries one (`detail.timestamp`, base64url DER over the RFC 8785 text of `detail.proof`) and
 * the verifier trusts TSA roots, else `verified_at`; with its source.
 */
function decisionTime(entry, i, trust, ctx) {
  const d = entry.event.detail
  if (!has(d, 'timestamp') || trust.tsaRoots === 0) return { at: d.verified_at, by: 'ledger' }
  const path = ptr('events', i, 'event', 'detail', 'timestamp')
  ctx.notRederived.push(`rfc3161 token's signature and chain at ${path}`)
  try {
    const token = d.timestamp
    if (typeof token !== 'string' || !/^[A-Za-z0-9_-]*$/.test(token)) refuse('timestamp_invalid')
    return { at: tokenGenTime(Buffer.from(token, 'base64url'), Buffer.from(canonicalize(d.proof), 'utf8')), by: 'rfc3161' }
  } catch (e) {
    if (e instanceof Refused) throw new Rooted(e.code, path + e.path)
    throw e
  }
}

// ---------------------------------------------------------------------------- the timeline
function timeline(b, contract, proposal, proofs, s) {
  const byDecision = [...proofs]
  const steps = b.events.map(({ index, event: e }) => {
    const proof = e.kind === 'decided' ? byDecision.shift() : null
    return {
      index, at: e.at, kind: e.kind, actor: e.actor, state: e.state, outcome: e.outcome, action_digest: e.action_digest,
      signer: proof ? proof.signer : null, verified_at: proof ? proof.at : null, verified_by: proof ? proof.by : null,
      on_behalf_of: typeof e.detail.on_behalf_of === 'string' ? e.detail.on_behalf_of : null,
      drift: e.drift, fence: e.fence,
    }
  })
  const last = b.events.at(-1)
  return {
    task: b.task, tenant: proposal.tenant, tool: proposal.tool, subject: proposal.subject, contract,
    state: last ? last.event.state : null,
    steps,
    log: {
      origin: s.checkpoint.origin, size: s.checkpoint.size, root: s.checkpoint.root.toString('base64'),
      time: s.time ? s.time.at : null, time_source: s.time ? s.time.source : null, witnesses: s.witnesses,
    },
    exported_at: b.exported.event.at, exported_by: b.exported.event.actor,
  }
}

/**
 * Verifies `bundle` against `trust`: `{ok: true, timeline}`, `{ok: false, code, path}`, or
 * `{undecided: why}` when the verdict hangs on what this tool does not re-derive; each with
 * `notRederived`, the parts it did not check. `tokenTime`: an RFC 3161 token's time, when the
 * caller knows it.
 */
export function verifyEvidence(bundle, trust, { tokenTime } = {}) {
  const ctx = { notRederived: [], tokenTime }
  try {
    const t = readTrust(trust)
    const b = readBundle(bundle)
    const s = anchor(b, t, ctx)
    included(b, s.checkpoint)
    complete(b)
    const { contract, proposal, actions } = documents(b)
    const judged = decisions(b, t, ctx, actions)
    required(b, ctx)
    oneBatchARound(b)
    decidedInRound(b, judged)
    separated(b, judged, actions)
    tallied(b, judged)
    claimedInTime(b, judged)
    const proofs = judged.map((j) => j.proof)
    return { ok: true, timeline: timeline(b, contract, proposal, proofs, s), notRederived: ctx.notRederived }
  } catch (e) {
    if (e instanceof Refused || e instanceof ProofError) return { ok: false, code: e.code, path: e.path, notRederived: ctx.notRederived }
    if (e instanceof Undecided) return { undecided: e.message, notRederived: ctx.notRederived }
    throw e
  }
}

// ---------------------------------------------------------------------------- the CLI
/** Whether a disagreement with `expected` lies in what this tool does not re-derive. */
function unjudged(expected, got) {
  if (got.undecided) return got.undecided
  if (expected.code === 'audit_chain_broken') return 'the ledger\'s transition rules'
  if (/^timestamp_/.test(expected.code ?? '')) return 'the RFC 3161 token'
  const skipped = got.notRederived.find((n) => (n.startsWith('passkey') || n.startsWith('approval rule')) && expected.path?.startsWith(n.split(' at ')[1]))
  return skipped ?? null
}

function runVectors(dir) {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => /^[yn]_.*\.json$/.test(f)).sort() : []
  if (files.length === 0) {
    console.log(`no evidence vector in ${dir}`)
    return false
  }
  let failed = 0
  let skipped = 0
  for (const file of files) {
    const vector = JSON.parse(readFileSync(join(dir, file), 'utf8'))
    const { bundle, trust } = vector
    // A refusal is {"error": {"code", "path"}} (vectors/evidence/README.md).
    const expected = has(vector.expected, 'error') ? vector.expected.error : vector.expected
    const story = has(expected, 'timeline') ? expected.timeline : expected
    // A token's time, from a verified expectation: its own, or (a witness's being earlier) a later one.
    const tokenTime = !bundle?.checkpoint?.timestamp || !story.log ? undefined
      : story.log.time_source === 'rfc3161' ? story.log.time : Number.MAX_SAFE_INTEGER
    const got = verifyEvidence(bundle, trust, { tokenTime })
    const want = has(expected, 'code') ? { ok: false, code: expected.code, path: expected.path } : { ok: true, timeline: story }
    const same = got.ok === want.ok && (got.ok ? canonicalize(got.timeline) === canonicalize(want.timeline)
      : got.code === want.code && got.path === want.path)
    const notes = got.notRederived?.length ? ` (not re-derived: ${[...new Set(got.notRederived)].join('; ')})` : ''
    if (same) {
      console.log(`ok   ${file}${notes}`)
      continue
    }
    const why = unjudged(expected, got)
    if (why) {
      skipped++
      console.log(`skip ${file}: decided by ${why}, not re-derived`)
      continue
    }
    failed++
    const shown = (r) => (r.ok ? 'a timeline' : r.code ? `${r.code} at ${r.path}` : JSON.stringify(r))
    console.log(`FAIL ${file}: expected ${shown(want)}, got ${shown(got)}`)
    if (got.ok && want.ok) console.log(`  expected ${canonicalize(want.timeline)}\n  got      ${canonicalize(got.timeline)}`)
  }
  console.log(`${files.length - failed - skipped} agree, ${skipped} not judged, ${failed} disagree`)
  return failed === 0
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'evidence')
  process.exit(runVectors(dir) ? 0 : 1)
}
