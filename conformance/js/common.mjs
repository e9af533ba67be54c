// What the JavaScript conformance tests share: the engine under test, running batches of ops
// on it, and comparing results. Each test file opens its own engine (`ACTIONSEAL_RUNTIME`:
// node, node-fallback, wasm-node or chromium; ./engines/<runtime>.mjs) and checks everything
// it runs inside the test that ran it, so a test's outcome never depends on which other tests
// ran before.

import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
export const conformance = join(here, '..')
export const repo = join(conformance, '..')
export const RUNTIMES = ['node', 'node-fallback', 'wasm-node', 'chromium']
const BATCH = 2000

export const runtime = process.env.ACTIONSEAL_RUNTIME
if (!RUNTIMES.includes(runtime)) {
  throw new Error(`set ACTIONSEAL_RUNTIME to one of ${RUNTIMES.join(', ')} (got ${JSON.stringify(runtime)})`)
}

export const registry = JSON.parse(readFileSync(join(conformance, 'codes.json'), 'utf8'))
export const codes = new Set(Object.keys(registry.codes))
export const reasons = new Set(Object.keys(registry.reasons))

/** Opens the engine of ACTIONSEAL_RUNTIME. */
export async function openEngine() {
  const { open } = await import(`./engines/${runtime}.mjs`)
  return open()
}

/**
 * Runs ops in batches and returns their results in order. Every error code, verdict reason
 * and action_error code in them must be one conformance/codes.json lists (checked here, in
 * the calling test).
 */
export async function run(engine, ops) {
  const results = []
  for (let i = 0; i < ops.length; i += BATCH) {
    const batch = ops.slice(i, i + BATCH)
    const got = await engine.run(batch)
    assert.equal(got.length, batch.length, 'engine returned a result per op')
    results.push(...got)
  }
  for (const [i, r] of results.entries()) {
    const code = r.error?.code
    if (code != null) assert.ok(codes.has(code), `op ${i} (${ops[i].fn}): code ${code} is not in codes.json`)
    const v = r.ok
    if (v !== null && typeof v === 'object' && Array.isArray(v.reasons)) {
      for (const reason of v.reasons) assert.ok(reasons.has(reason), `reason ${reason} is not in codes.json`)
      const c = v.action_error?.code
      if (c != null) assert.ok(codes.has(c), `action_error code ${c} is not in codes.json`)
    }
  }
  return results
}

export const sha256 = (s) => 'sha256:' + createHash('sha256').update(s, 'utf8').digest('hex')

export const show = (v) => {
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}n` : x))
  return s === undefined ? String(v) : s.length > 200 ? s.slice(0, 200) + '…' : s
}

/** Why a coded error is not the package's ActionsealError as every runtime throws it; or null. */
export function notAnActionsealError(e) {
  if (e.isError !== true) return 'expected an Error instance'
  if (e.isClass !== true) return 'expected an instance of the package\'s ActionsealError'
  if (e.name !== 'ActionsealError') return `expected the name ActionsealError, got ${show(e.name)}`
  if (typeof e.path !== 'string') return 'expected a string path'
  if (!(e.offset === null || (Number.isSafeInteger(e.offset) && e.offset >= 0))) return `expected an offset that is null or a byte offset, got ${show(e.offset)}`
  if (typeof e.message !== 'string' || !e.message.startsWith(`${e.code}: `)) return 'expected core\'s message ("<code>: ...")'
  return null
}

/**
 * The public RFC 8785 data: $ACTIONSEAL_JCS_DIR, else <repo>/../shared/vectors/jcs. `null`
 * when it is absent, after saying so in one visible line; absent with
 * ACTIONSEAL_REQUIRE_PUBLIC_DATA=1 (CI) is a failure.
 */
export function publicData() {
  const dir = process.env.ACTIONSEAL_JCS_DIR || join(repo, '..', 'shared', 'vectors', 'jcs')
  if (existsSync(join(dir, 'public_vectors.jsonl'))) return dir
  if (process.env.ACTIONSEAL_REQUIRE_PUBLIC_DATA === '1') {
    throw new Error(`public RFC 8785 data not found at ${dir} and ACTIONSEAL_REQUIRE_PUBLIC_DATA=1`)
  }
  return null
}

/** The vectors of one directory of conformance/vectors: [file name, parsed vector]. */
export function vectors(kind) {
  const dir = join(conformance, 'vectors', kind)
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
  assert.ok(files.length > 0, `no vectors in ${dir}`)
  return files.map((f) => [f, JSON.parse(readFileSync(join(dir, f), 'utf8'))])
}

const b64u = (hex) => Buffer.from(hex, 'hex').toString('base64url')

/** A signed or passkey vector's text `key`, or `<key>_repeat` expanded ([text, count] pairs). */
export const proofText = (v, key) => {
  const parts = v[`${key}_repeat`]
  return parts ? parts.map(([text, count]) => text.repeat(count)).join('') : v[key]
}

/**
 * The op that runs a signed or passkey vector (conformance/vectors/{signed,passkey}/, whose
 * `op` names the operation; conformance/src/proof.rs computes each in Rust), and how to turn
 * its result into the vector's `expect`: `[op, result(r)]`. `canonical` is an independent
 * canonicalizer (npm `canonicalize`), so a runtime's returned data is not checked against
 * itself.
 */
export function proofOp(v, canonical) {
  const json = (key) => ({ $json: proofText(v, key) })
  const failed = (r) => ({ error: r.error.code, path: r.error.path })
  const ok = (f) => (r) => ('error' in r ? failed(r) : f(r.ok))
  switch (v.op) {
    case 'ed25519':
      return [{ fn: 'ed25519Verify', args: [b64u(v.public_key_hex), b64u(v.message_hex), b64u(v.signature_hex)] },
        ok((x) => (x === null ? { valid: true } : { unexpected: x }))]
    case 'pae':
      return [{ fn: 'pae', args: [v.payload_type, b64u(v.payload_hex)] },
        ok((x) => ({ pae_hex: Buffer.from(x, 'base64url').toString('hex') }))]
    case 'key':
      return [{ fn: 'publicKey', args: [json('key')] }, ok((jwk) => ({ keyid: jwk.kid, jwk: canonical(jwk) }))]
    case 'sign':
      return [{ fn: 'SigningKey#sign', args: [{ $signingKey: json('key') }, json('approval')] },
        ok((envelope) => ({ envelope: canonical(envelope) }))]
    case 'verify':
      return [{ fn: 'verifyProof', args: [json('approval'), json('keys'), v.at] },
        ok((x) => ({ approval: canonical(x.approval), signer: x.signer }))]
    case 'register':
      return [{ fn: 'verifyRegistration', args: [json('registration'), v.challenge, json('webauthn')] }, ok((x) => x)]
    case 'challenge':
      return [{ fn: 'passkeyChallenge', args: [json('approval')] }, ok((challenge) => ({ challenge }))]
    case 'check':
      return [{ fn: 'check', args: [json('approval'), json('action'), json('context')] }, ok((x) => x)]
    default:
      throw new Error(`unknown op ${v.op}`)
  }
}

/**
 * The ops that run a batch vector (conformance/vectors/batch/, `op` per file; computed in
 * Rust by conformance/src/batch.rs) and how their results make the vector's `expect`:
 * `[[label, ops, result(rs)]...]`, the first the vector as it is, the others the same with
 * the contract loaded once. A breaker vector is one op per step. An op this runner does not
 * know fails the test.
 */
export function batchOps(v) {
  const json = (text) => ({ $json: text })
  const failed = (r) => ({ error: r.error.code, path: r.error.path })
  const one = (r) => ('error' in r ? failed(r) : r.ok)
  const single = (op) => [[op], ([r]) => one(r)]
  // The context with its contract loaded once, when it has one.
  const preloaded = (text) => {
    const context = JSON.parse(text)
    return context?.contract != null ? { ...context, contract: { $contract: context.contract } } : null
  }
  const variants = (make, context) => {
    const out = [['', ...single(make(json(context)))]]
    const loaded = preloaded(context)
    if (loaded) out.push([' (contract preloaded)', ...single(make(loaded))])
    return out
  }
  const approvals = () => v.approvals.map(json)
  switch (v.op) {
    case 'build':
    case 'deselect': {
      const fn = v.op === 'build' ? 'batchBuild' : 'batchDeselect'
      const rest = v.op === 'build' ? [json(v.server)] : [json(v.indices), json(v.server)]
      const make = (contract) => ({ fn, args: [contract, json(v.semantics), json(v.actions), ...rest] })
      const out = [['', ...single(make(json(v.contract)))]]
      if (JSON.parse(v.contract)?.batch != null) out.push([' (contract preloaded)', ...single(make({ $contract: JSON.parse(v.contract) }))])
      return out
    }
    case 'verify_item':
      return [['', ...single({ fn: 'batchVerifyItem', args: [json(v.header), json(v.item)] })]]
    case 'check_item':
      return variants((context) => ({ fn: 'checkItem', args: [approvals(), json(v.item), json(v.action), context] }), v.context)
    case 'check_batch':
      return variants((context) => ({ fn: 'checkBatch', args: [approvals(), json(v.items), json(v.actions), context] }), v.context)
    case 'check':
      return variants((context) => ({ fn: 'check', args: [json(v.approval), json(v.action), context] }), v.context)
    case 'breaker': {
      const ops = v.steps.map((s) => ({ fn: 'breakerStep', args: [json(v.policy), json(s.breaker), json(s.event)] }))
      return [['', ops, (rs) => rs.map(one)]]
    }
    default:
      throw new Error(`unknown op ${JSON.stringify(v.op)}`)
  }
}

/**
 * The ways to run a redaction vector (`op`: commit, reveal, check), each
 * `[label, op, result]`: with the contract as a document, then loaded once. `result` maps the
 * op's result to the vector's `expect` (a refusal as `{error, path}`).
 */
export function redactionOps(v) {
  const json = (text) => ({ $json: text })
  const result = (r) => ('error' in r ? { error: r.error.code, path: r.error.path } : r.ok)
  const contract = JSON.parse(v.contract ?? 'null')
  switch (v.op) {
    case 'commit': {
      const make = (c) => ({ fn: 'commitAction', args: [c, json(v.args), json(v.ids), json(v.salts)] })
      return [['', make(json(v.contract)), result], [' (contract preloaded)', make({ $contract: contract }), result]]
    }
    case 'reveal': {
      const make = (c) => ({ fn: 'revealAction', args: [c, json(v.action), json(v.disclosures), json(v.coverage)] })
      return [['', make(json(v.contract)), result], [' (contract preloaded)', make({ $contract: contract }), result]]
    }
    case 'check': {
      const context = JSON.parse(v.context)
      const make = (c) => ({ fn: 'check', args: [json(v.approval), json(v.action), c] })
      return [['', make(json(v.context)), result], [' (contract preloaded)', make({ ...context, contract: { $contract: context.contract } }), result]]
    }
    case 'review':
      // A method of a loaded contract only: a page reviews with the contract it holds.
      return [['', { fn: 'Contract#reviewAction', args: [{ $contract: contract }, json(v.action)] }, result]]
    default:
      throw new Error(`unknown op ${JSON.stringify(v.op)}`)
  }
}

/**
 * The op that runs a quorum or delegation vector, and other ops that must give the same
 * result: `[op, [label, op]...]`. An op this runner does not know fails the test.
 */
export function quorumOps(v) {
  const json = (text) => ({ $json: text })
  switch (v.op) {
    case 'check_set': {
      const approvals = v.approvals.map(json)
      const op = { fn: 'checkSet', args: [approvals, json(v.action), json(v.context)] }
      const context = JSON.parse(v.context)
      const also = []
      if (context !== null && typeof context === 'object' && context.contract != null) {
        also.push(['contract preloaded', { fn: 'checkSet', args: [approvals, json(v.action), { ...context, contract: { $contract: context.contract } }] }])
      }
      // `check` is `checkSet` of zero or one member.
      if (approvals.length <= 1) {
        also.push(['check', { fn: 'check', args: [approvals[0] ?? null, json(v.action), json(v.context)] }])
      }
      return [op, also]
    }
    case 'verify_delegation':
      return [{ fn: 'verifyDelegation', args: [json(v.link), json(v.keys), v.at] }, []]
    case 'delegation_digest':
      return [{ fn: 'delegationDigest', args: [json(v.document)] }, []]
    default:
      throw new Error(`unknown op ${JSON.stringify(v.op)}`)
  }
}
