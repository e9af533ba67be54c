#!/usr/bin/env node
// An independent check of every expectation in the contract, action, approval, budget,
// notice, gate, permit, quorum and delegation vectors: written apart from the Rust core, it
// parses with JSON.parse, canonicalizes with npm `canonicalize` and hashes with node:crypto,
// and re-derives what each expectation means: fingerprints, envelopes, records, budgets,
// approval requirements, the identifier rule, what a reader could misread in a value (from
// V8's Unicode tables), every permit verdict (outcome, reasons, drift, digests), and, from
// SPEC-25, every set's verdict with its quorum (who counted, what is missing), separation of
// duties, and delegation links and chains (DSSE and passkey proofs in node:crypto,
// model-proof.mjs; attenuation; scope). Each permit vector is also checked as a set of one,
// and the signed and passkey vectors of `check` through the model's proofs.
//
// What it takes from the vectors instead of re-deriving: argument-schema validation (the
// schema engine is checked by vectors/schema/, with hand-written expectations). An
// expectation that says the arguments are invalid is believed only when its code is a schema
// code and nothing this checker knows about failed first.
//
//   node conformance/tools/crosscheck-model.mjs
//
// Exits 1 on any disagreement, or when a vector directory is empty.

import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { APPROVAL_TYPE, DELEGATION_TYPE, ProofError, isEnvelope, reasonOf, readKeySet, verifyEnvelope, verifyPasskey } from './model-proof.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const canonicalize = createRequire(import.meta.url)('canonicalize')
const codes = JSON.parse(readFileSync(join(root, 'codes.json'), 'utf8'))

const fp = (value) => 'sha256:' + createHash('sha256').update(canonicalize(value), 'utf8').digest('hex')
const sha = (text) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex')

/** A failure of a document: the core's code and JSON Pointer. */
class Refused extends Error {
  constructor(code, path) {
    super(`${code} at ${path}`)
    this.code = code
    this.path = path
  }
}
const refuse = (code, path) => {
  throw new Refused(code, path)
}
const escape = (k) => k.replaceAll('~', '~0').replaceAll('/', '~1')
const under = (key, f) => {
  try {
    return f()
  } catch (e) {
    if (e instanceof Refused) refuse(e.code, `/${escape(key)}${e.path}`)
    throw e
  }
}
const attempt = (f) => {
  try {
    return { ok: f() }
  } catch (e) {
    if (e instanceof Refused) return { error: e.code, path: e.path }
    throw e
  }
}

// ----------------------------------------------------------------------- identifier rule
// RFC 8264 IdentifierClass PVALID, without CONTEXTJ/CONTEXTO, in NFC, not starting with a
// mark; written from the RFC and Unicode's property names, not from core. (Node's ICU has
// its own Unicode version; the vectors use characters whose properties are long settled.)
const refusedClasses = [
  /\p{Cc}/u, /\p{Bidi_Control}/u, /\p{Join_Control}/u, /\p{Cf}/u, /\p{Default_Ignorable_Code_Point}/u,
  /[\p{Zl}\p{Zp}\p{Zs}]/u, /\p{Noncharacter_Code_Point}/u, /\p{Cn}/u, /\p{Co}/u, /\p{Cs}/u,
]
const letterDigits = /^[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]$/u
const pvalidExceptions = new Set([0xdf, 0x3c2, 0x6fd, 0x6fe, 0xf0b, 0x3007])
const otherExceptions = (cp) =>
  [0xb7, 0x375, 0x5f3, 0x5f4, 0x30fb, 0x640, 0x7fa, 0x302e, 0x302f, 0x303b].includes(cp) ||
  (cp >= 0x660 && cp <= 0x669) || (cp >= 0x6f0 && cp <= 0x6f9) || (cp >= 0x3031 && cp <= 0x3035)
const conjoiningJamo = (cp) =>
  (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0xa960 && cp <= 0xa97f) || (cp >= 0xd7b0 && cp <= 0xd7ff)

function isIdentifier(s) {
  if (typeof s !== 'string' || s === '') return false
  for (const ch of s) {
    const cp = ch.codePointAt(0)
    if (cp < 0x80) {
      if (cp < 0x21 || cp > 0x7e) return false
      continue
    }
    if (refusedClasses.some((re) => re.test(ch))) return false
    if (pvalidExceptions.has(cp)) continue
    if (otherExceptions(cp) || conjoiningJamo(cp)) return false
    if (ch.normalize('NFKC') !== ch || !letterDigits.test(ch)) return false
  }
  return !/^\p{M}/u.test(s) && s.normalize('NFC') === s
}

// ----------------------------------------------------------------------- field reading
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k)

function fields(v, code, allowed) {
  if (!isObject(v)) refuse(code, '')
  const unknown = Object.keys(v).sort().find((k) => !allowed.includes(k))
  if (unknown !== undefined) refuse(code, `/${escape(unknown)}`)
  const required = (k) => (has(v, k) ? v[k] : refuse(code, `/${escape(k)}`))
  return {
    has: (k) => has(v, k),
    required,
    string: (k) => (typeof required(k) === 'string' ? v[k] : refuse(code, `/${k}`)),
    identity: (k) => (isIdentifier(required(k)) ? v[k] : refuse(code, `/${k}`)),
    integer: (k, min) => {
      const n = required(k)
      return typeof n === 'number' && Number.isSafeInteger(n) && n >= min ? n : refuse(code, `/${k}`)
    },
    boolean: (k) => (typeof required(k) === 'boolean' ? v[k] : refuse(code, `/${k}`)),
    digest: (k) => (/^sha256:[0-9a-f]{64}$/.test(required(k)) ? v[k] : refuse(code, `/${k}`)),
  }
}

// ----------------------------------------------------------------------- approval rules
function parsePointer(p) {
  if (p === '') return []
  if (!p.startsWith('/')) return null
  const tokens = []
  for (const raw of p.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) return null
    tokens.push(raw.replaceAll('~1', '/').replaceAll('~0', '~'))
  }
  return tokens
}

const OPS = ['gt', 'gte', 'lt', 'lte', 'eq', 'ne', 'in', 'not_in', 'contains', 'exists', 'absent']

function parseCondition(v, element) {
  const f = fields(v, 'invalid_contract', ['pointer', 'op', 'value', 'any', 'all'])
  const tokens = parsePointer(f.string('pointer'))
  if (tokens === null || (!element && tokens.length === 0)) refuse('invalid_contract', '/pointer')
  const [any, all] = [f.has('any'), f.has('all')]
  if (any && all) refuse('invalid_contract', '/all')
  if (any || all) {
    const key = any ? 'any' : 'all'
    for (const k of ['op', 'value']) if (f.has(k)) refuse('invalid_contract', `/${k}`)
    return { tokens, [key]: under(key, () => parseCondition(v[key], true)) }
  }
  const op = f.string('op')
  if (!OPS.includes(op)) refuse('invalid_contract', '/op')
  if (op === 'exists' || op === 'absent') {
    if (f.has('value')) refuse('invalid_contract', '/value')
    return { tokens, op }
  }
  const value = f.required('value')
  if (['gt', 'gte', 'lt', 'lte'].includes(op) && typeof value !== 'number') refuse('invalid_contract', '/value')
  if (['in', 'not_in'].includes(op) && !(Array.isArray(value) && value.length > 0)) {
    refuse('invalid_contract', '/value')
  }
  return { tokens, op, value }
}

// A contract's `approval`: when a person is needed, how many (SPEC-25 §1), and who may not
// approve. A contract without `quorum` is a quorum of one that any rejection vetoes.
const MAX_QUORUM = 16
const DUTIES = ['subject', 'proposer', 'amender']
function parseRule(v) {
  if (v === 'always' || v === 'never') return { when: v, quorum: null, duties: [] }
  if (!isObject(v)) refuse('invalid_contract', '')
  const f = fields(v, 'invalid_contract', ['when', 'quorum', 'separation'])
  const raw = f.required('when')
  const extended = f.has('quorum') || f.has('separation')
  let when
  if (raw === 'always' && extended) when = 'always'
  else if (!Array.isArray(raw) || raw.length === 0) refuse('invalid_contract', '/when')
  else when = raw.map((c, i) => under('when', () => under(String(i), () => parseCondition(c, false))))
  const quorum = f.has('quorum') ? under('quorum', () => parseQuorum(v.quorum)) : null
  const listed = f.has('separation') ? under('separation', () => parseSeparation(v.separation)) : null
  // Under a quorum the subject and the proposer never approve; the amender only when listed.
  const duties = DUTIES.filter((d) => (quorum && d !== 'amender') || (listed ?? []).includes(d))
  return { when, quorum, duties }
}

function parseQuorum(v) {
  const f = fields(v, 'invalid_contract', ['approvers', 'roles', 'order', 'veto'])
  const approvers = f.integer('approvers', 1)
  if (approvers > MAX_QUORUM) refuse('invalid_contract', '/approvers')
  let roles = []
  if (f.has('roles')) {
    if (!Array.isArray(v.roles) || v.roles.length === 0) refuse('invalid_contract', '/roles')
    // Each role in turn: its shape, that it is new, and that the counts so far fit `approvers`.
    let sum = 0
    v.roles.forEach((r, i) => under('roles', () => under(String(i), () => {
      const g = fields(r, 'invalid_contract', ['role', 'count'])
      const role = g.identity('role')
      if (roles.some((o) => o.role === role)) refuse('invalid_contract', '/role')
      const count = g.integer('count', 1)
      sum += count
      if (sum > approvers) refuse('invalid_contract', '/count')
      roles.push({ role, count })
    })))
  }
  const order = f.has('order') ? f.string('order') : 'any'
  if (!['any', 'as_listed'].includes(order) || (order === 'as_listed' && roles.length === 0)) refuse('invalid_contract', '/order')
  const veto = f.has('veto') ? f.string('veto') : 'any_rejection'
  if (!['any_rejection', 'none'].includes(veto)) refuse('invalid_contract', '/veto')
  return { approvers, roles, order, veto }
}

function parseSeparation(v) {
  if (!Array.isArray(v) || v.length === 0) refuse('invalid_contract', '')
  v.forEach((d, i) => {
    if (!DUTIES.includes(d) || v.indexOf(d) !== i) refuse('invalid_contract', `/${i}`)
  })
  return v
}

function resolve(value, tokens) {
  let v = value
  for (const t of tokens) {
    if (Array.isArray(v)) {
      if (!/^(0|[1-9][0-9]*)$/.test(t) || Number(t) >= v.length) return undefined
      v = v[Number(t)]
    } else if (isObject(v) && has(v, t)) {
      v = v[t]
    } else {
      return undefined
    }
  }
  return v
}

// Exact JSON equality: numbers by value (JSON.parse already made 1e3 and 1000 one number).
const same = (a, b) => isDeepStrictEqual(a, b) || (typeof a === 'number' && a === b)

function matches(c, args) {
  const arg = resolve(args, c.tokens)
  if (arg === undefined) return c.op !== 'exists'
  if (c.any) return !Array.isArray(arg) || arg.some((e) => matches(c.any, e))
  if (c.all) return !Array.isArray(arg) || arg.every((e) => matches(c.all, e))
  switch (c.op) {
    case 'exists': return true
    case 'absent': return false
    case 'eq': return same(arg, c.value)
    case 'ne': return !same(arg, c.value)
    case 'in': return c.value.some((x) => same(x, arg))
    case 'not_in': return !c.value.some((x) => same(x, arg))
    case 'contains':
      if (typeof arg === 'string') return typeof c.value === 'string' ? arg.includes(c.value) : true
      if (Array.isArray(arg)) return arg.some((x) => same(x, c.value))
      return true
    default: {
      if (typeof arg !== 'number') return true
      return { gt: arg > c.value, gte: arg >= c.value, lt: arg < c.value, lte: arg <= c.value }[c.op]
    }
  }
}

function requirement({ when }, args) {
  if (when === 'always' && typeof when === 'string') return { required: true, rule: '/approval' }
  if (when === 'never') return { required: false, rule: '/approval' }
  const i = when.findIndex((c) => matches(c, args))
  return i < 0 ? { required: false, rule: '/approval/when' } : { required: true, rule: `/approval/when/${i}` }
}

// ----------------------------------------------------------------------- documents
const CONTRACT_FIELDS = ['tool', 'version', 'effect', 'args', 'approval', 'cost_minor', 'max_approval_ms']
/** A contract's fields in the core's order, stopping before the argument schema is compiled. */
function contractHead(doc) {
  const f = fields(doc, 'invalid_contract', CONTRACT_FIELDS)
  const tool = f.identity('tool')
  f.identity('version')
  if (!['read', 'write'].includes(f.string('effect'))) refuse('invalid_contract', '/effect')
  const args = f.required('args')
  if (!(isObject(args) && args.type === 'object')) refuse('invalid_contract', '/args')
  return { f, tool }
}
/** The rest of a contract, after its schema (left to the core) compiled. */
function contractTail({ f, tool }, doc) {
  const rule = under('approval', () => parseRule(f.required('approval')))
  f.integer('cost_minor', 0)
  const cap = f.has('max_approval_ms') ? f.integer('max_approval_ms', 1) : null
  return { tool, rule, cap, digest: fp(doc) }
}
const loadContract = (doc) => contractTail(contractHead(doc), doc)

const ACTION_FIELDS = ['args', 'contract', 'job_id', 'policy_version', 'request_id', 'subject', 'tenant', 'tool']
function checkActionShape(v) {
  const f = fields(v, 'invalid_action', ACTION_FIELDS)
  for (const k of ['tenant', 'subject', 'tool', 'job_id', 'request_id', 'policy_version']) f.identity(k)
  f.digest('contract')
  if (!isObject(f.required('args'))) refuse('invalid_action', '/args')
}

const IDS = ['tenant', 'subject', 'job_id', 'request_id', 'policy_version']
const DECISION = ['approval_id', 'decision_id', 'decision', 'approver', 'decided_at', 'expires_at', 'proposed_digest']
function readDecision(v) {
  const f = fields(v, 'invalid_approval', DECISION)
  f.identity('approval_id')
  f.identity('decision_id')
  if (!['approved', 'rejected'].includes(f.string('decision'))) refuse('invalid_approval', '/decision')
  f.identity('approver')
  f.integer('decided_at', 0)
  f.integer('expires_at', 0)
  // Optional: the digest of the proposal a reviewer amended before this decision.
  if (has(v, 'proposed_digest')) f.digest('proposed_digest')
  return v
}

const RECORD_FIELDS = ['action', 'action_digest', 'approval_id', 'approver', 'decided_at', 'decision', 'decision_id', 'expires_at', 'proposed_digest',
  'role', 'on_behalf_of', 'delegation']
function readRecord(v) {
  const f = fields(v, 'invalid_approval', RECORD_FIELDS)
  for (const k of ['approval_id', 'decision_id', 'approver']) f.identity(k)
  if (!['approved', 'rejected'].includes(f.string('decision'))) refuse('invalid_approval', '/decision')
  const decided = f.integer('decided_at', 0)
  const expires = f.integer('expires_at', 0)
  if (expires <= decided) refuse('invalid_approval', '/expires_at')
  f.digest('action_digest')
  // "Not amended" has one spelling: no proposed_digest; present, it names another action.
  if (has(v, 'proposed_digest')) {
    f.digest('proposed_digest')
    if (v.proposed_digest === v.action_digest) refuse('invalid_approval', '/proposed_digest')
  }
  under('action', () => checkActionShape(f.required('action')))
  // SPEC-25 §2: a role, and a delegation chain with the root it counts under, together or not at all.
  if (has(v, 'role')) f.identity('role')
  if (has(v, 'on_behalf_of') !== has(v, 'delegation')) refuse('invalid_approval', has(v, 'delegation') ? '/delegation' : '/on_behalf_of')
  if (has(v, 'on_behalf_of')) {
    f.identity('on_behalf_of')
    if (!Array.isArray(v.delegation) || v.delegation.length === 0) refuse('invalid_approval', '/delegation')
  }
  return v
}

function readFact(ctx, key, who, flag, nullable) {
  if (!has(ctx, key)) refuse('invalid_context', `/${key}`)
  if (nullable && ctx[key] === null) return null
  return under(key, () => {
    const f = fields(ctx[key], 'invalid_context', [who, flag])
    return { about: f.identity(who), flag: f.boolean(flag) }
  })
}

const CONTEXT_FIELDS = ['now', 'tenant', 'policy_version', 'contract', 'approver_authorized', 'subject_authorized', 'revoked',
  'proof', 'approver_roles', 'proposer', 'amended_by', 'delegations_revoked']
function readContext(v) {
  const f = fields(v, 'invalid_context', CONTEXT_FIELDS)
  const doc = f.required('contract')
  const contract = doc === null ? null : under('contract', () => loadContract(doc))
  const ctx = { now: f.integer('now', 0), tenant: f.identity('tenant'), policy: f.identity('policy_version'), contract }
  // One fact, or (SPEC-25 §3) an array of facts, one per identity.
  if (Array.isArray(v.approver_authorized)) {
    ctx.approver = null
    ctx.authorized = new Map()
    v.approver_authorized.forEach((fact, i) => under('approver_authorized', () => under(String(i), () => {
      const g = fields(fact, 'invalid_context', ['approver', 'authorized'])
      const who = g.identity('approver')
      if (ctx.authorized.has(who)) refuse('invalid_context', '/approver')
      ctx.authorized.set(who, g.boolean('authorized'))
    })))
  } else {
    ctx.approver = readFact(v, 'approver_authorized', 'approver', 'authorized', true)
    ctx.authorized = new Map(ctx.approver ? [[ctx.approver.about, ctx.approver.flag]] : [])
  }
  ctx.subject = readFact(v, 'subject_authorized', 'subject', 'authorized', false)
  if (ctx.subject === null) refuse('invalid_context', '/subject_authorized')
  if (Array.isArray(v.revoked)) {
    ctx.revoked = null
    ctx.revocations = v.revoked.map((fact, i) => under('revoked', () => under(String(i), () => {
      const named = isObject(fact) && has(fact, 'decision_id') ? 'decision_id' : 'approval_id'
      const g = fields(fact, 'invalid_context', [named, 'revoked'])
      return { kind: named, about: g.identity(named), flag: g.boolean('revoked') }
    })))
  } else {
    ctx.revoked = readFact(v, 'revoked', 'approval_id', 'revoked', true)
    ctx.revocations = ctx.revoked ? [{ kind: 'approval_id', ...ctx.revoked }] : []
  }
  ctx.roles = (f.has('approver_roles') ? v.approver_roles : []).map((fact, i) => under('approver_roles', () => under(String(i), () => {
    const g = fields(fact, 'invalid_context', ['approver', 'role', 'holds'])
    return { approver: g.identity('approver'), role: g.identity('role'), holds: g.boolean('holds') }
  })))
  // Absent (undefined) is a missing fact; null says "nobody" (not amended, no proposer).
  for (const [key, name] of [['proposer', 'proposer'], ['amended_by', 'amendedBy']]) {
    if (f.has(key) && v[key] !== null) f.identity(key)
    ctx[name] = f.has(key) ? v[key] : undefined
  }
  ctx.linkFacts = (f.has('delegations_revoked') ? v.delegations_revoked : []).map((fact, i) => under('delegations_revoked', () => under(String(i), () => {
    const g = fields(fact, 'invalid_context', ['delegation', 'revoked'])
    return { digest: g.digest('delegation'), flag: g.boolean('revoked') }
  })))
  const proof = f.has('proof') ? v.proof : null
  ctx.proofRequired = proof?.required === true
  ctx.keys = proof?.keys ? under('proof', () => under('keys', () => readKeySet(proof.keys))) : null
  return ctx
}

// ----------------------------------------------------------------------- the check
const REASONS = Object.keys(codes.reasons)
const OUTCOME = Object.fromEntries(REASONS.map((r) => [r, codes.reasons[r].outcome]))
const SCHEMA_CODES = ['unknown_field', 'missing_field', 'type_mismatch', 'unsafe_integer', 'enum_mismatch',
  'out_of_range', 'length_out_of_range', 'pattern_mismatch', 'format_mismatch', 'duplicate_items', 'no_matching_alternative']

function diff(a, b, path, out) {
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(utf16)
    for (const k of keys) {
      const p = `${path}/${escape(k)}`
      if (has(a, k) && has(b, k)) diff(a[k], b[k], p, out)
      else out.push(p)
    }
  } else if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => diff(x, b[i], `${path}/${i}`, out))
  } else if (!same(a, b)) {
    out.push(path)
  }
}
const utf16 = (x, y) => (x < y ? -1 : x > y ? 1 : 0) // JS strings compare by UTF-16 code units

/** The verdict, with the schema's judgement of the arguments taken from `expected`. */
function verdict(approvalText, actionText, contextText, expected) {
  const ctx = readContext(JSON.parse(contextText))
  const action = JSON.parse(actionText)
  const actionDigest = fp(action)
  let record = null
  let presented = false
  let sameAsFrozen = false
  if (approvalText !== null) {
    presented = true
    const parsed = attempt(() => readRecord(JSON.parse(approvalText)))
    if (parsed.ok) {
      const r = parsed.ok
      sameAsFrozen = isDeepStrictEqual(r.action, action)
      const sealed = r.action_digest === fp(r.action)
      const capped = ctx.contract?.cap == null || r.expires_at - r.decided_at <= ctx.contract.cap
      if (sealed && capped) record = r
    }
  }
  let actionError = sameAsFrozen ? null : attempt(() => checkActionShape(action))
  actionError = actionError && actionError.error ? { code: actionError.error, path: actionError.path } : null
  const validShape = actionError === null
  const c = ctx.contract
  const knownTool = c !== null && (!validShape || action.tool === c.tool)
  let required = null
  if (validShape && c && knownTool) {
    const schema = expected.action_error
    if (schema && schema.path.startsWith('/args')) {
      if (!SCHEMA_CODES.includes(schema.code)) throw new Error(`argument error ${schema.code} is not a schema code`)
      actionError = schema // the schema's judgement, believed (see the top of this file)
    } else {
      required = requirement(c.rule, action.args).required
    }
  }
  const envelopes = [...(record ? [record.action] : []), ...(actionError === null ? [action] : [])]
  const differs = (k, want) => envelopes.some((e) => e[k] !== want)
  const reasons = []
  const drift = []
  if (!presented && required !== false) reasons.push('no_approval')
  if (presented && record === null) reasons.push('invalid_approval')
  if (actionError) reasons.push('invalid_action')
  if (!knownTool) reasons.push('unknown_tool')
  if (record?.decision === 'rejected') reasons.push('decision_rejected')
  if (record && ctx.now < record.decided_at) reasons.push('decided_in_future')
  if (differs('tenant', ctx.tenant)) reasons.push('tenant_mismatch')
  if (record && record.action_digest !== actionDigest) {
    diff(record.action, action, '', drift)
    reasons.push('action_drift')
  }
  if (record && ctx.now >= record.expires_at) reasons.push('expired')
  if (record && !(ctx.approver && ctx.approver.about === record.approver && ctx.approver.flag)) {
    reasons.push('approver_unauthorized')
  }
  if (!ctx.subject.flag || differs('subject', ctx.subject.about)) reasons.push('subject_unauthorized')
  if (differs('policy_version', ctx.policy)) reasons.push('policy_drift')
  if (c && differs('contract', c.digest)) reasons.push('contract_drift')
  if (record && !(ctx.revoked && ctx.revoked.about === record.approval_id && !ctx.revoked.flag)) reasons.push('revoked')
  const rank = { permit: 0, reapprove: 1, reject: 2 }
  const outcome = reasons.map((r) => OUTCOME[r]).reduce((a, b) => (rank[b] > rank[a] ? b : a), 'permit')
  return {
    action_digest: actionDigest,
    action_error: actionError,
    approved_digest: record ? record.action_digest : null,
    drift,
    outcome,
    reasons,
  }
}

// ----------------------------------------------------------------------- delegation
// SPEC-25 §6, from the spec: a document, its three forms, attenuation (sound, not complete)
// and the chain's checks in their order.
const DELEGATION_FIELDS = ['delegation_id', 'delegator', 'delegate', 'tenant', 'tools', 'when', 'not_before', 'not_after']
const MAX_LINKS = 4
function readDelegation(v) {
  const f = fields(v, 'invalid_delegation', DELEGATION_FIELDS)
  f.identity('delegation_id')
  const delegator = f.identity('delegator')
  const delegate = f.identity('delegate')
  f.identity('tenant')
  const tools = f.required('tools')
  if (!Array.isArray(tools) || tools.length === 0) refuse('invalid_delegation', '/tools')
  tools.forEach((t, i) => {
    if (!isIdentifier(t) || tools.indexOf(t) !== i) refuse('invalid_delegation', `/tools/${i}`)
  })
  let when = []
  if (f.has('when')) {
    if (!Array.isArray(v.when) || v.when.length === 0) refuse('invalid_delegation', '/when')
    when = v.when.map((c, i) => {
      const parsed = attempt(() => parseCondition(c, false))
      return parsed.error ? refuse('invalid_delegation', `/when/${i}${parsed.path}`) : { ...parsed.ok, raw: c }
    })
  }
  const notBefore = f.integer('not_before', 0)
  const notAfter = f.integer('not_after', 0)
  if (notAfter <= notBefore) refuse('invalid_delegation', '/not_after')
  if (delegator === delegate) refuse('invalid_delegation', '/delegate')
  return { delegator, delegate, tenant: v.tenant, tools, when, notBefore, notAfter, digest: fp(v) }
}

/** A scope condition holds only when its pointer resolves and its test is true. */
function holds(c, value) {
  const arg = resolve(value, c.tokens)
  if (c.op === 'absent') return arg === undefined
  if (arg === undefined) return false
  if (c.any) return Array.isArray(arg) && arg.some((e) => holds(c.any, e))
  if (c.all) return Array.isArray(arg) && arg.every((e) => holds(c.all, e))
  switch (c.op) {
    case 'exists': return true
    case 'eq': return same(arg, c.value)
    case 'ne': return !same(arg, c.value)
    case 'in': return c.value.some((x) => same(x, arg))
    case 'not_in': return !c.value.some((x) => same(x, arg))
    case 'contains':
      if (typeof arg === 'string') return typeof c.value === 'string' && arg.includes(c.value)
      return Array.isArray(arg) && arg.some((x) => same(x, c.value))
    default:
      if (typeof arg !== 'number') return false
      return { gt: arg > c.value, gte: arg >= c.value, lt: arg < c.value, lte: arg <= c.value }[c.op]
  }
}

const UPPER = ['lt', 'lte']
const LOWER = ['gt', 'gte']
/** Whether child condition `c` implies parent condition `p`: the spec's list, nothing more. */
function implies(c, p) {
  if (canonicalize(c.raw) === canonicalize(p.raw)) return true
  if (c.any || c.all || p.any || p.all || !isDeepStrictEqual(c.tokens, p.tokens)) return false
  const bound = (dir) => {
    if (!dir.includes(c.op) || !dir.includes(p.op)) return null
    const tighter = dir === UPPER ? c.value < p.value : c.value > p.value
    // A strict parent bound needs a strict child at or inside it, or an inclusive one strictly inside.
    return c.value === p.value ? !(p.op.length === 2 && c.op.length === 3) : tighter
  }
  for (const dir of [UPPER, LOWER]) {
    const b = bound(dir)
    if (b !== null) return b
  }
  if (c.op === 'eq' && ['lte', 'lt', 'gte', 'gt', 'in', 'eq'].includes(p.op)) {
    if (['lte', 'lt', 'gte', 'gt'].includes(p.op) && typeof c.value !== 'number') return false
    return holds({ tokens: [], op: p.op, value: p.value }, c.value)
  }
  if (c.op === 'in' && p.op === 'in') return c.value.every((x) => p.value.some((y) => same(x, y)))
  return false
}

function within(child, parent) {
  return child.tenant === parent.tenant &&
    child.tools.every((t) => parent.tools.includes(t)) &&
    child.notBefore >= parent.notBefore && child.notAfter <= parent.notAfter &&
    parent.when.every((p) => child.when.some((c) => implies(c, p)))
}

/** A link in one of its three forms: the document, or a failure's code and path. */
function linkDocument(link, keys, at, proofRequired) {
  if (isEnvelope(link)) return verifyEnvelope(link, DELEGATION_TYPE, keys, at, (d) => d.delegator, readDelegation)
  if (isObject(link) && has(link, 'passkey')) return verifyPasskey(link, keys, at, (d) => d.delegator, readDelegation)
  if (proofRequired) throw new ProofError('missing_proof', '')
  return { document: link, signer: null }
}

/** The chain's reason (the first check that fails), or its root, link digests and delegates. */
function verifyChain(r, action, ctx) {
  const links = r.delegation
  if (links.length > MAX_LINKS) return { reason: 'delegation_too_deep' }
  const docs = []
  for (const link of links) {
    try {
      docs.push(readDelegation(linkDocument(link, ctx.keys, ctx.now, ctx.proofRequired).document))
    } catch (e) {
      if (e instanceof ProofError || e instanceof Refused) return { reason: 'delegation_invalid' }
      throw e
    }
  }
  const connected = docs[0].delegator === r.on_behalf_of && docs.at(-1).delegate === r.approver &&
    docs.every((d, i) => i === 0 || docs[i - 1].delegate === d.delegator)
  if (!connected) return { reason: 'delegation_invalid' }
  const ids = [docs[0].delegator, ...docs.map((d) => d.delegate)]
  if (new Set(ids).size !== ids.length) return { reason: 'delegation_cycle' }
  if (docs.some((d, i) => i > 0 && !within(d, docs[i - 1]))) return { reason: 'delegation_widens' }
  if (docs.some((d) => ctx.now < d.notBefore || ctx.now >= d.notAfter || r.decided_at < d.notBefore)) return { reason: 'delegation_expired' }
  const inScope = (d) => d.tenant === action.tenant && d.tools.includes(action.tool) && d.when.every((c) => holds(c, action))
  if (!docs.every(inScope)) return { reason: 'delegation_out_of_scope' }
  if (!docs.every((d) => ctx.linkFacts.some((x) => x.digest === d.digest && !x.flag))) return { reason: 'delegation_revoked' }
  return { root: docs[0].delegator, digests: docs.map((d) => d.digest), delegates: docs.map((d) => d.delegate) }
}

// ----------------------------------------------------------------------- sets (check_set)
// SPEC-25 §4-§5: every member checked as a single approval is; the set's own reasons; who
// counted and what is missing.
const MAX_SET = 32
const ORDER = Object.fromEntries(REASONS.map((r, i) => [r, i]))

/** A presented member: its record once its proof holds, or the reason it has none. */
function presented(value, ctx) {
  let raw = value
  try {
    if (isEnvelope(value)) raw = verifyEnvelope(value, APPROVAL_TYPE, ctx.keys, ctx.now, (d) => d.approver).document
    else if (isObject(value) && has(value, 'passkey')) raw = verifyPasskey(value, ctx.keys, ctx.now, (d) => d.approver).document
    else if (ctx.proofRequired) return { reason: 'proof_missing' }
  } catch (e) {
    if (e instanceof ProofError) return { reason: reasonOf(e.code) }
    throw e
  }
  const parsed = attempt(() => readRecord(raw))
  if (parsed.error) return { reason: 'invalid_approval' }
  const r = parsed.ok
  const sealed = r.action_digest === fp(r.action)
  const capped = ctx.contract?.cap == null || r.expires_at - r.decided_at <= ctx.contract.cap
  return sealed && capped ? { record: r } : { reason: 'invalid_approval' }
}

function setVerdict(approvalTexts, actionText, contextText, expected) {
  const ctx = readContext(JSON.parse(contextText))
  const action = JSON.parse(actionText)
  const actionDigest = fp(action)
  // More than MAX_SET members is one invalid approval: none of them is opened.
  const members = approvalTexts.length > MAX_SET
    ? [{ reason: 'invalid_approval' }]
    : approvalTexts.map((t) => presented(JSON.parse(t), ctx))
  const records = members.filter((m) => m.record).map((m) => m.record)
  const first = records[0] ?? null
  let actionError = records.some((r) => isDeepStrictEqual(r.action, action)) ? null : attempt(() => checkActionShape(action))
  actionError = actionError && actionError.error ? { code: actionError.error, path: actionError.path } : null
  const c = ctx.contract
  const knownTool = c !== null && (actionError !== null || action.tool === c.tool)
  let required = null
  if (actionError === null && c && knownTool) {
    const schema = expected.action_error
    if (schema && schema.path.startsWith('/args')) {
      if (!SCHEMA_CODES.includes(schema.code)) throw new Error(`argument error ${schema.code} is not a schema code`)
      actionError = schema
    } else {
      required = requirement(c.rule, action.args).required
    }
  }
  const quorum = c?.rule.quorum ?? null
  const veto = quorum?.veto ?? 'any_rejection'
  const duties = c?.rule.duties ?? []
  const reasons = new Set()
  const drift = []
  if (members.length === 0 && required !== false) reasons.add('no_approval')
  for (const m of members) if (m.reason) reasons.add(m.reason)
  if (actionError) reasons.add('invalid_action')
  if (!knownTool) reasons.add('unknown_tool')
  // The presented action against the context; each record's frozen action below.
  const shown = actionError === null ? action : null
  if (shown && shown.tenant !== ctx.tenant) reasons.add('tenant_mismatch')
  if (!ctx.subject.flag || (shown && shown.subject !== ctx.subject.about)) reasons.add('subject_unauthorized')
  if (shown && shown.policy_version !== ctx.policy) reasons.add('policy_drift')
  if (c && shown && shown.contract !== c.digest) reasons.add('contract_drift')

  // Each record: its own reasons (any of them keeps it from counting), then the set's rules,
  // which compare it with the records before it.
  const seenIds = []
  const approving = []
  const counted = []
  for (const r of records) {
    const rejects = r.decision === 'rejected'
    if (rejects && veto === 'none') continue // neither counts nor gives a reason
    const own = []
    if (rejects) own.push('decision_rejected')
    if (ctx.now < r.decided_at) own.push('decided_in_future')
    if (r.action.tenant !== ctx.tenant) own.push('tenant_mismatch')
    if (r.action_digest !== actionDigest) {
      own.push('action_drift')
      const found = []
      diff(r.action, action, '', found)
      for (const p of found) if (!drift.includes(p)) drift.push(p)
    }
    if (ctx.now >= r.expires_at) own.push('expired')
    const delegated = has(r, 'on_behalf_of')
    const identity = delegated ? r.on_behalf_of : r.approver
    const delegate = delegated ? r.approver : null
    if (ctx.authorized.get(identity) !== true) own.push('approver_unauthorized')
    if (r.action.subject !== ctx.subject.about) own.push('subject_unauthorized')
    if (r.action.policy_version !== ctx.policy) own.push('policy_drift')
    if (c && r.action.contract !== c.digest) own.push('contract_drift')
    const roundFact = ctx.revocations.find((x) => x.kind === 'approval_id' && x.about === r.approval_id)
    const withdrawn = ctx.revocations.some((x) => x.kind === 'decision_id' && x.about === r.decision_id && x.flag)
    if (!roundFact || roundFact.flag || withdrawn) own.push('revoked')
    if (has(r, 'role') && !ctx.roles.some((x) => x.approver === identity && x.role === r.role && x.holds)) own.push('role_not_held')
    let delegations = []
    let along = []
    if (delegated) {
      const chain = verifyChain(r, action, ctx)
      if (chain.reason) own.push(chain.reason)
      else ({ digests: delegations, delegates: along } = chain)
    }
    // Duties bind the counting identity and every delegate along a chain that holds.
    const is = (who) => who === identity || (delegate !== null && who === delegate) || along.includes(who)
    if (duties.includes('subject') && (is(r.action.subject) || is(action.subject))) own.push('approver_is_subject')
    if (duties.includes('proposer') && (ctx.proposer === undefined || is(ctx.proposer))) own.push('approver_is_proposer')
    if (duties.includes('amender') && has(r, 'proposed_digest') && (ctx.amendedBy === undefined || is(ctx.amendedBy))) own.push('approver_amended')
    // One decision once; one round and one action; one person once (an alias through
    // delegation is the same person), among the approving records before it.
    const repeated = seenIds.includes(r.decision_id)
    if (repeated) own.push('duplicate_decision')
    seenIds.push(r.decision_id)
    if (r.approval_id !== first.approval_id || r.action_digest !== first.action_digest) own.push('other_round')
    const people = [identity, delegate].filter((x) => x !== null)
    if (!rejects && !repeated) {
      if (approving.some((p) => p.some((x) => people.includes(x)))) own.push('approver_counted_twice')
      approving.push(people)
    }
    own.forEach((x) => reasons.add(x))
    if (own.length === 0 && !rejects && !counted.some((k) => k.people.some((x) => people.includes(x)))) {
      counted.push({ r, identity, delegate, delegations, people })
    }
  }

  let state = null
  if (quorum) {
    const missingRoles = quorum.roles
      .map(({ role, count }) => ({ role, count: count - counted.filter((k) => k.r.role === role).length }))
      .filter((x) => x.count > 0)
    const missing = Math.max(quorum.approvers - counted.length, missingRoles.reduce((n, x) => n + x.count, 0))
    if (quorum.order === 'as_listed') {
      const rank = (k) => quorum.roles.findIndex((x) => x.role === k.r.role)
      const ranked = counted.filter((k) => rank(k) >= 0)
      if (ranked.some((a) => ranked.some((b) => rank(b) > rank(a) && b.r.decided_at < a.r.decided_at))) reasons.add('quorum_out_of_order')
    }
    // An empty set already says no_approval.
    if (missing > 0 && members.length > 0 && required !== false) reasons.add('quorum_short')
    state = {
      counted: counted.map((k) => ({
        approver: k.identity, decision_id: k.r.decision_id, delegate: k.delegate, delegations: k.delegations, role: k.r.role ?? null,
      })),
      missing,
      missing_roles: missingRoles,
      required: quorum.approvers,
    }
  }
  const sorted = [...reasons].sort((a, b) => ORDER[a] - ORDER[b])
  const rank = { permit: 0, reapprove: 1, reject: 2 }
  const outcome = sorted.map((r) => OUTCOME[r]).reduce((a, b) => (rank[b] > rank[a] ? b : a), 'permit')
  const out = {
    action_digest: actionDigest,
    action_error: actionError,
    approved_digest: first ? first.action_digest : null,
    drift,
    outcome,
    reasons: sorted,
  }
  if (state) out.quorum = state
  return out
}

function checkSetExpect(v) {
  const r = attempt(() => setVerdict(v.approvals, v.action, v.context, v.expect))
  return r.error ? r : r.ok
}

function verifyDelegationExpect(v) {
  try {
    const keys = readKeySet(JSON.parse(v.keys))
    // A bare document verifies as itself (signer null): requiring proof is the chain's rule.
    const { document, signer } = linkDocument(JSON.parse(v.link), keys, v.at, false)
    const doc = readDelegation(document)
    return { delegation: document, digest: doc.digest, signer }
  } catch (e) {
    if (e instanceof ProofError || e instanceof Refused) return { error: e.code, path: e.path }
    throw e
  }
}

function delegationDigestExpect(v) {
  const r = attempt(() => readDelegation(JSON.parse(v.document)).digest)
  return r.error ? r : { digest: r.ok }
}

const setOps = { check_set: checkSetExpect, verify_delegation: verifyDelegationExpect, delegation_digest: delegationDigestExpect }
function setsExpect(v) {
  const derive = setOps[v.op]
  if (!derive) throw new Error(`unknown op ${v.op}`)
  return derive(v)
}

// ----------------------------------------------------------------------- per kind
const COMPILE_CODES = ['unsupported_schema', 'invalid_schema']
function contractExpect(v) {
  const doc = JSON.parse(v.contract)
  const e = v.expect
  const head = attempt(() => contractHead(doc))
  if (head.error) return head
  if (COMPILE_CODES.includes(e.error) && e.path.startsWith('/args')) return e // the schema compiler's
  const loaded = attempt(() => contractTail(head.ok, doc))
  if (loaded.error) return loaded
  const out = { digest: loaded.ok.digest }
  if (has(v, 'args')) {
    if (SCHEMA_CODES.includes(e.error)) return e // the arguments break the schema
    out.requirement = requirement(loaded.ok.rule, JSON.parse(v.args))
  }
  if (has(v, 'action')) {
    const action = JSON.parse(v.action)
    const shape = attempt(() => {
      checkActionShape(action)
      if (action.tool !== loaded.ok.tool) refuse('invalid_action', '/tool')
      if (action.contract !== loaded.ok.digest) refuse('invalid_action', '/contract')
    })
    if (shape.error) return shape
    if (SCHEMA_CODES.includes(e.error) && e.path.startsWith('/args')) return e
    out.action_valid = true
  }
  return out
}

function actionExpect(v) {
  const contract = attempt(() => loadContract(JSON.parse(v.contract)))
  if (contract.error) return contract
  const ids = attempt(() => {
    const f = fields(v.ids, 'invalid_action', IDS)
    for (const k of IDS) f.identity(k)
  })
  if (ids.error) return ids
  if (SCHEMA_CODES.includes(v.expect.error) && v.expect.path.startsWith('/args')) return v.expect // the schema's
  const envelope = { ...v.ids, args: JSON.parse(v.args), contract: contract.ok.digest, tool: contract.ok.tool }
  const text = canonicalize(envelope)
  return { action: text, fingerprint: sha(text) }
}

function approvalExpect(v) {
  const action = JSON.parse(v.action)
  const shape = attempt(() => checkActionShape(action))
  if (shape.error) return shape
  const d = attempt(() => readDecision(v.decision))
  if (d.error) return d
  if (v.decision.expires_at <= v.decision.decided_at) return { error: 'invalid_approval', path: '/expires_at' }
  const record = { ...v.decision, action, action_digest: fp(action) }
  if (record.proposed_digest === record.action_digest) return { error: 'invalid_approval', path: '/proposed_digest' }
  const text = canonicalize(record)
  return { approval: text, fingerprint: sha(text) }
}

function budgetExpect(v) {
  let budget = JSON.parse(v.budget)
  for (const [i, text] of v.costs.entries()) {
    const cost = JSON.parse(text)
    const step = attempt(() => {
      const f = fields(budget, 'invalid_budget', ['limit_minor', 'spent_minor'])
      const limit = f.integer('limit_minor', 0)
      const spent = f.integer('spent_minor', 0)
      if (!(typeof cost === 'number' && Number.isSafeInteger(cost) && cost >= 0)) refuse('invalid_budget', '')
      if (spent + cost > limit) refuse('budget_exceeded', '')
      return { limit_minor: limit, spent_minor: spent + cost }
    })
    if (step.error) return { ...step, at: i }
    budget = step.ok
  }
  return { budget: canonicalize(budget) }
}

function permitExpect(v) {
  const r = attempt(() => verdict(v.approval, v.action, v.context, v.expect))
  // `check` is `check_set` of zero or one member (SPEC-25 §5): both derivations must agree.
  const set = attempt(() => setVerdict(v.approval === null ? [] : [v.approval], v.action, v.context, v.expect))
  if (!isDeepStrictEqual(set, r)) return { check: r.error ? r : r.ok, check_set_of_one: set.error ? set : set.ok }
  return r.error ? r : r.ok
}

// What a reader could miss or misread (core/src/model/notice.rs), from V8's own Unicode
// property tables rather than ICU4X's.
const INVISIBLE = /^(?:[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]|\s)$/u
function noticeExpect(v) {
  const out = []
  const scan = (s, pointer, within) => {
    const chars = Array.from(s)
    let lead = 0
    while (lead < chars.length && chars[lead] === ' ') lead++
    let trail = chars.length
    while (trail > lead && chars[trail - 1] === ' ') trail--
    const marks = []
    chars.forEach((c, at) => {
      const cp = c.codePointAt(0)
      let kind = null
      if (c === ' ') kind = at < lead ? 'leading_space' : at >= trail ? 'trailing_space' : null
      else if (cp > 0x7e || cp < 0x20) kind = INVISIBLE.test(c) ? 'invisible' : 'non_ascii'
      if (kind) marks.push({ at, code_point: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`, kind })
    })
    if (marks.length) out.push({ count: marks.length, marks: marks.slice(0, 64), pointer, within })
  }
  const walk = (value, pointer) => {
    if (typeof value === 'string') scan(value, pointer, 'value')
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${pointer}/${i}`))
    else if (isObject(value)) {
      for (const key of Object.keys(value).sort(utf16)) {
        scan(key, `${pointer}/${escape(key)}`, 'key')
        walk(value[key], `${pointer}/${escape(key)}`)
      }
    }
  }
  walk(JSON.parse(v.value), '')
  return { notices: out }
}

// What a framework adapter does after a ledger step (core/src/model/ledger/gate.rs), from the
// decisions written in docs/ADAPTERS.md: which states wait, which claim errors are refusals,
// which completions are late, and the text the model reads.
const WAITS = ['awaiting_approval', 'awaiting_reapproval']
const CLAIM_REFUSALS = ['task_not_claimable', 'already_claimed', 'budget_exceeded', 'missing_proof', 'breaker_open', 'batch_cap_exceeded']
// propose_batch's refusals of a turn's batch as a batch: its calls are then proposed one by one.
const ALONE = ['batch_not_allowed', 'batch_too_large', 'batch_cap_exceeded', 'invalid_batch']
const LATE = ['lease_expired', 'stale_fence', 'task_not_claimed']
const ARG_CODES = [
  'syntax_error', 'trailing_content', 'byte_order_mark', 'duplicate_key', 'lone_surrogate', 'non_finite_number',
  'number_overflow', 'inexact_number', 'depth_limit_exceeded', 'size_limit_exceeded', 'unsupported_type', 'non_string_key',
  'cyclic_value', 'sparse_array', 'unknown_field', 'missing_field', 'type_mismatch', 'unsafe_integer', 'enum_mismatch',
  'out_of_range', 'length_out_of_range', 'pattern_mismatch', 'pattern_input_too_long', 'format_mismatch', 'duplicate_items',
  'no_matching_alternative',
]
const STEP_MEMBERS = ['step', 'task', 'presented', 'outcome', 'error', 'tool', 'unknown', 'body', 'url', 'calls', 'batch']
const said = (payload) => 'actionseal: ' + canonicalize(payload)
const short = (digest) => [0, 1, 2, 3].map((i) => digest.slice(7 + 4 * i, 11 + 4 * i)).join(' ')

function gateExpect(v) {
  const r = attempt(() => gateDecision(JSON.parse(v.input)))
  return r.error ? r : r.ok
}

// A model turn's batches (core/src/model/ledger/gate/turn.rs, docs/ADAPTERS.md): the calls that
// need a person, grouped by contract and tenant in the order of their first call, cut into
// batches of at most max_items; a cut of one, or one over the contract's caps, stays single.
function turnPlan(calls) {
  if (!Array.isArray(calls)) refuse('invalid_request', '/calls')
  const read = calls.map((c, i) => under('calls', () => under(String(i), () => {
    const f = fields(c, 'invalid_request', ['action', 'contract'])
    const doc = f.required('contract')
    const action = f.required('action')
    const rule = under('contract', () => under('approval', () => parseRule(doc.approval)))
    const joins = requirement(rule, action.args).required && isObject(doc.batch)
    return { doc, action, joins, key: fp(doc) + '\u0000' + action.tenant }
  })))
  const groups = new Map()
  read.forEach((c, i) => { if (c.joins) groups.set(c.key, [...(groups.get(c.key) ?? []), i]) })
  const batches = []
  for (const at of groups.values()) {
    const { doc } = read[at[0]]
    const max = doc.batch.max_items
    for (let k = 0; k < at.length; k += max) {
      const cut = at.slice(k, k + max)
      const actions = cut.map((i) => read[i].action)
      if (cut.length < 2 || overCaps(actions, doc.batch.caps ?? {})) continue
      const digest = batchDigest(doc, 'per_item', actions)
      const id = 'batch_' + fp(['actionseal/batch/v1', actions[0].tenant, digest]).slice(7, 39)
      batches.push({ batch_digest: digest, batch_id: id, calls: cut, semantics: 'per_item' })
    }
  }
  return batches
}
const overCaps = (actions, caps) => {
  const at = (a, p) => resolve(a, parsePointer(p))
  if (caps.count !== undefined && actions.length > caps.count) return true
  if (caps.sum && actions.reduce((t, a) => t + at(a, caps.sum.pointer), 0) > caps.sum.max) return true
  return Boolean(caps.distinct && new Set(actions.map((a) => canonicalize(at(a, caps.distinct.pointer)))).size > caps.distinct.max)
}
// The batch fingerprint: its header's, whose root is RFC 9162's Merkle tree hash over the items'
// fingerprints (leaf 0x00 || digest, node 0x01 || left || right).
function batchDigest(contract, semantics, actions) {
  const h = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest()
  const mth = (leaves) => {
    if (leaves.length === 1) return leaves[0]
    let k = 1
    while (k * 2 < leaves.length) k *= 2
    return h(Buffer.from([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k)))
  }
  const leaves = actions.map((a) => h(Buffer.from([0]), Buffer.from(fp(a).slice(7), 'hex')))
  const header = { contract: fp(contract), root: mth(leaves).toString('base64'), semantics, size: actions.length, tenant: actions[0].tenant }
  return fp(header)
}

function gateDecision(input) {
  const bad = (path) => refuse('invalid_request', path)
  if (!isObject(input)) bad('')
  for (const k of Object.keys(input)) if (!STEP_MEMBERS.includes(k)) bad(`/${escape(k)}`)
  const has = (k) => Object.hasOwn(input, k)
  const text = (o, k, at) => (typeof o[k] === 'string' ? o[k] : bad(at))
  const step = text(input, 'step', '/step')
  const allowed = {
    propose: has('error') ? ['step', 'tool', 'error'] : ['step', 'task', 'presented', 'batch'],
    claim: has('error') ? ['step', 'task', 'error', 'batch'] : ['step', 'outcome'],
    complete: ['step', 'error'],
    invoke: has('task') ? ['step', 'tool', 'task'] : ['step', 'tool'],
    resume: ['step', 'task'],
    route: has('error') ? ['step', 'tool', 'error'] : ['step', 'tool', 'unknown'],
    ran: ['step', 'body'],
    elicit: ['step', 'task', 'url'],
    turn: has('error') ? ['step', 'error'] : ['step', 'calls'],
  }[step]
  if (!allowed) bad('/step')
  const stray = STEP_MEMBERS.find((k) => has(k) && !allowed.includes(k))
  if (stray) bad(`/${stray}`)
  if (step === 'complete' && !has('error')) bad('/error')
  const need = (k) => (has(k) ? input[k] : bad(`/${k}`))
  const caught = () => {
    const e = need('error')
    if (!isObject(e)) bad('/error')
    for (const k of Object.keys(e)) if (!['code', 'path', 'message'].includes(k)) bad(`/error/${escape(k)}`)
    return { code: text(e, 'code', '/error/code'), path: text(e, 'path', '/error/path'), message: text(e, 'message', '/error/message') }
  }
  const known = (code) => Object.hasOwn(codes.codes, code)
  const taskOf = (t, at) => {
    const s = (p) => (typeof p === 'string' ? p : bad(at))
    if (!isObject(t) || !isObject(t.action)) bad(at)
    const task = { t, id: s(t.id), state: s(t.state), tool: s(t.action.tool), digest: s(t.action_digest) }
    if (!/^sha256:[0-9a-f]{64}$/.test(task.digest)) bad(`${at}/action_digest`)
    task.needed = neededOf(t.quorum, `${at}/quorum`)
    if (task.needed && !(WAITS.includes(task.state) && task.needed.missing > 0)) task.needed = null
    return task
  }
  // A task's quorum (issue 25): what the model reads of it is counts, never guessed.
  const neededOf = (q, at) => {
    if (q === undefined || q === null) return null
    const count = (n, min) => (Number.isSafeInteger(n) && n >= min ? n : bad(at))
    if (!isObject(q) || !Array.isArray(q.counted) || !Array.isArray(q.missing_roles)) bad(at)
    const required = count(q.required, 1)
    const missing = count(q.missing, 0)
    if (missing > required) bad(at)
    const roles = q.missing_roles.map((r) => (isObject(r) && typeof r.role === 'string' ? { role: r.role, count: count(r.count, 1) } : bad(at)))
    return { required, given: q.counted.length, missing, roles }
  }
  const neededText = (n) => {
    const roles = n.roles.map((r) => (r.count === 1 ? r.role : `${r.role} (${r.count})`)).join(', ')
    return `${n.given} of ${n.required} approvals given` + (n.roles.length ? `; roles still needed: ${roles}` : '')
  }
  const refusalOf = (task, code, extra = {}) => {
    let message
    if (extra.drift) {
      message = `These arguments are not the approved ones (they differ at ${extra.drift.join(', ')}); nothing ran. The approved call is ${task.tool} with ${canonicalize(extra.approved_args)}: call it with exactly these arguments, or propose a new call.`
    } else if (code === 'already_claimed') {
      message = `This approved call was already dispatched (state ${task.state}); it does not run again.`
    } else if (WAITS.includes(task.state) && task.needed) {
      message = `${task.tool} is waiting for ${task.needed.missing} more approval${task.needed.missing === 1 ? '' : 's'} (${task.state}: ${neededText(task.needed)}); nothing ran.`
    } else if (WAITS.includes(task.state)) {
      message = `${task.tool} is waiting for a person's approval (${task.state}); nothing ran.`
    } else {
      message = `${task.tool} may not run (${code}, state ${task.state}); nothing ran.`
    }
    const r = { error: code, task_id: task.id, state: task.state, tool: task.tool, fingerprint: task.digest, short_fingerprint: short(task.digest), message, ...extra }
    if (task.needed && !extra.drift) {
      const { required, given, missing, roles } = task.needed
      r.quorum = { required, given, missing, missing_roles: roles }
    }
    if (code === 'already_claimed' && ['succeeded', 'failed'].includes(task.state)) r.result = task.t.result ?? null
    return r
  }
  const refused = (payload, badArgs = false) => {
    const d = { bad_args: badArgs, code: payload.error, decision: 'refuse', message: said(payload), refusal: payload }
    // A finished call's recorded answer is given again, whether it succeeded or failed.
    if (payload.result != null) d.replay = payload.result
    return d
  }
  // An item of a decided batch carries its batch's record (batch_digest, not action_digest).
  const unitOf = (task) => (typeof task.t.approval?.batch_digest === 'string' ? 'item' : 'task')
  // What a reviewer needs of the ledger's view of a batch to find and decide it.
  const batchOf = () => {
    const b = input.batch
    if (b === undefined || b === null) return null
    const s = (p) => (isObject(b) && typeof b[p] === 'string' ? b[p] : bad('/batch'))
    const digest = s('digest')
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) bad('/batch/digest')
    if (!Array.isArray(b.items)) bad('/batch')
    return { id: s('id'), approval_id: s('approval_id'), digest, short_fingerprint: short(digest), state: s('state'), size: b.items.length }
  }
  const paused = (task, code, extra) => {
    const refusal = refusalOf(task, code, extra)
    const request = {
      type: 'actionseal_approval', task_id: task.id, state: task.state, approval_id: task.t.approval_id ?? null,
      tool: task.tool, action: task.t.action, fingerprint: task.digest, short_fingerprint: short(task.digest),
    }
    if (task.needed) request.quorum = task.t.quorum
    const batch = extra === undefined ? batchOf() : null
    if (batch) request.batch = batch
    return { decision: 'pause', message: said(refusal), refusal, request, task_id: task.id }
  }
  const oneOf = (k, choices) => (choices.includes(need(k)) ? input[k] : bad(`/${k}`))
  if (step === 'turn') {
    if (has('error')) return ALONE.includes(caught().code) ? { decision: 'alone' } : { decision: 'raise' }
    return { batches: turnPlan(need('calls')), decision: 'turn' }
  }
  if (step === 'resume') {
    const task = taskOf(need('task'), '/task')
    if (task.state === 'approved') {
      const proposal = task.t.proposed_digest
      const amended = typeof proposal === 'string' && proposal !== task.digest
      return { args: amended ? task.t.action.args : null, decision: 'approve' }
    }
    if (['rejected', 'rejected_pre_dispatch'].includes(task.state)) return refused(refusalOf(task, 'rejected'))
    return { decision: 'wait' }
  }
  if (step === 'elicit') {
    const task = taskOf(need('task'), '/task')
    const url = text(input, 'url', '/url')
    const message = `Approval required: ${task.tool} ${canonicalize(task.t.action.args)} (fingerprint ${short(task.digest)}, ${task.digest}, ${task.state}${task.needed ? `; ${neededText(task.needed)}` : ''}). ` +
      `A person decides at ${url}; then call again with _meta {"io.actionseal/task": "${task.id}"}.`
    return { decision: 'elicit', message, task_id: task.id, url }
  }
  if (step === 'route') {
    const tool = text(input, 'tool', '/tool')
    if (has('error')) {
      // An upstream schema outside core's subset: its compile error, one payload everywhere.
      const e = caught()
      if (!known(e.code)) return { decision: 'raise' }
      return refused({ error: e.code, path: e.path, tool, message: `${tool}'s schema upstream is not one actionseal can hold (${e.message}); nothing ran.` })
    }
    const unknown = oneOf('unknown', ['tool', 'task', 'job'])
    if (unknown === 'tool') {
      return refused({ error: 'unknown_tool', tool, message: `${tool} is not a tool this gateway governs; nothing ran.` })
    }
    if (unknown === 'job') {
      return refused({ error: 'invalid_request', path: '/job_id', tool, message: `${tool} is governed, so its call needs a job: a checkpointer and a thread_id; nothing ran.` })
    }
    return refused({ error: 'task_not_found', tool, message: `The task named for this call of ${tool} is not one of this session's; nothing ran.` })
  }
  if (step === 'ran') {
    const outcome = { returned: 'succeeded', reported_error: 'failed', raised: 'unknown' }[oneOf('body', ['returned', 'reported_error', 'raised'])]
    return { decision: 'record', outcome }
  }
  if (step === 'invoke' && has('task')) {
    text(input, 'tool', '/tool')
    const task = taskOf(need('task'), '/task')
    const approvedArgs = task.t.action.args ?? bad('/task')
    return refused(refusalOf(task, 'tool_args_drift', { approved_args: approvedArgs, drift: ['/tool'] }))
  }
  if (step === 'propose' && !has('error')) {
    const task = taskOf(need('task'), '/task')
    const presented = need('presented')
    if (WAITS.includes(task.state)) return paused(task, 'task_not_claimable')
    const proposal = task.t.proposed_digest
    const amended = typeof proposal === 'string' && proposal !== task.digest && proposal === fp(presented)
    return { action: amended ? task.t.action : presented, decision: 'claim', unit: unitOf(task) }
  }
  if (step === 'propose') {
    const tool = text(input, 'tool', '/tool')
    const e = caught()
    if (!ARG_CODES.includes(e.code)) return { decision: 'raise' }
    return refused({ error: e.code, path: e.path, tool, message: `The arguments do not match ${tool}'s schema: ${e.message}; nothing ran.` }, true)
  }
  if (step === 'claim' && has('error')) {
    const task = taskOf(need('task'), '/task')
    const e = caught()
    if (!known(e.code) || !CLAIM_REFUSALS.includes(e.code)) return { decision: 'raise' }
    if (['task_not_claimable', 'breaker_open'].includes(e.code) && WAITS.includes(task.state)) return paused(task, e.code)
    return refused(refusalOf(task, e.code))
  }
  if (step === 'claim') {
    const out = need('outcome')
    const results = ['claimed', 'tool_args_drift', 'awaiting_reapproval', 'rejected_pre_dispatch']
    if (!isObject(out) || !results.includes(out.result)) bad(isObject(out) ? '/outcome/result' : '/outcome')
    const at = (k) => (out[k] !== undefined ? out[k] : bad('/outcome'))
    if (out.result === 'claimed') {
      const claim = at('claim')
      const unit = claim?.item === undefined || claim.item === null ? 'task' : 'item'
      return { args: claim?.action?.args ?? null, claim, decision: 'run', unit }
    }
    const task = taskOf(at('task'), '/outcome/task')
    const reasons = at('verdict')?.reasons ?? bad('/outcome')
    if (out.result === 'tool_args_drift') {
      const drift = Array.isArray(out.verdict.drift) ? out.verdict.drift.filter((p) => typeof p === 'string') : bad('/outcome')
      const approvedArgs = out.approved_action?.args ?? bad('/outcome')
      return refused(refusalOf(task, 'tool_args_drift', { approved_args: approvedArgs, drift }))
    }
    if (out.result === 'awaiting_reapproval') return paused(task, 'awaiting_reapproval', { reasons })
    return refused(refusalOf(task, 'rejected_pre_dispatch', { reasons }))
  }
  if (step === 'complete') return LATE.includes(caught().code) ? { decision: 'keep' } : { decision: 'raise' }
  const tool = text(input, 'tool', '/tool')
  return refused({ error: 'task_not_claimed', tool, message: `No claim was won for this call of ${tool}; nothing ran.` })
}

// ----------------------------------------------------------------------- naming and driver
function nameProblem(kind, name, expect) {
  const [prefix, ...rest] = name.split('_')
  const tail = rest.join('_')
  if (expect.error !== undefined && !(expect.error in codes.codes)) return `unknown code ${expect.error}`
  if (['permit', 'quorum', 'delegation'].includes(kind) && expect.outcome !== undefined) {
    if (prefix === 'y') return expect.outcome === 'permit' ? null : 'y_ vector does not permit'
    return tail.startsWith(expect.outcome) && expect.outcome !== 'permit' ? null : 'n_ name does not match the outcome'
  }
  if (prefix === 'y') return expect.error === undefined ? null : 'y_ vector is refused'
  if (prefix === 'n') return expect.error !== undefined && tail.startsWith(expect.error) ? null : 'n_ name does not match the code'
  return 'names start with y_ or n_'
}

const kinds = {
  contract: contractExpect,
  action: actionExpect,
  approval: approvalExpect,
  budget: budgetExpect,
  notice: noticeExpect,
  gate: gateExpect,
  permit: permitExpect,
  quorum: setsExpect,
  delegation: setsExpect,
}
let failures = 0
for (const [kind, derive] of Object.entries(kinds)) {
  const dir = join(root, 'vectors', kind)
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : []
  if (files.length === 0) {
    console.error(`FAIL ${kind}: no vectors in ${dir}`)
    failures++
    continue
  }
  let agreed = 0
  for (const file of files) {
    const v = JSON.parse(readFileSync(join(dir, file), 'utf8'))
    const name = file.replace(/\.json$/, '')
    let problem = nameProblem(kind, name, v.expect)
    if (!problem) {
      try {
        const mine = derive(v)
        if (!isDeepStrictEqual(mine, v.expect)) {
          problem = `expected ${JSON.stringify(v.expect)}\n      independently derived ${JSON.stringify(mine)}`
        }
      } catch (e) {
        problem = `cannot derive: ${e.stack}`
      }
    }
    if (problem) {
      console.error(`FAIL ${kind}/${name}: ${problem}`)
      failures++
    } else {
      agreed++
    }
  }
  console.log(`${kind}: ${agreed} of ${files.length} vectors independently re-derived`)
}
// The signed and passkey vectors of `check`: the model's proofs (model-proof.mjs) through a set of one.
for (const kind of ['signed', 'passkey']) {
  const dir = join(root, 'vectors', kind)
  const checks = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(dir, f), 'utf8'))]).filter(([, v]) => v.op === 'check')
  let agreed = 0
  for (const [name, v] of checks) {
    const mine = attempt(() => setVerdict([v.approval], v.action, v.context, v.expect))
    if (isDeepStrictEqual(mine.error ? mine : mine.ok, v.expect)) agreed++
    else {
      console.error(`FAIL ${kind}/${name}: expected ${JSON.stringify(v.expect)}\n      independently derived ${JSON.stringify(mine)}`)
      failures++
    }
  }
  console.log(`${kind}: ${agreed} of ${checks.length} check vectors independently re-derived`)
}
if (failures) {
  console.error(`${failures} disagreement(s)`)
  process.exit(1)
}
