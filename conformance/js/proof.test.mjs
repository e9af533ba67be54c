// Proof of who decided in every JavaScript runtime: the signed-decision and passkey vectors
// (conformance/vectors/{signed,passkey}/, computed in Rust by conformance/src/proof.rs), the
// same codes and paths everywhere, and the proof functions' surface (SigningKey, publicKey,
// verifyEnvelope, verifyPasskey, verifyProof, passkeyChallenge, verifyRegistration,
// ed25519Verify, pae, and check with proofs).
//
//   ACTIONSEAL_RUNTIME=node|wasm-node|chromium node --test conformance/js/proof.test.mjs
//
// Canonical forms of returned records and envelopes are computed here with npm `canonicalize`,
// so a runtime is not checked against itself.

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import canonicalizeNpm from 'canonicalize'
import { notAnActionsealError, openEngine, proofOp, repo, run as runOn, runtime, show, vectors } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

const run = (ops) => runOn(engine, ops)
const json = (text) => ({ $json: text })
const example = (name) => JSON.parse(readFileSync(join(repo, 'examples', 'refund', name), 'utf8'))
const RECORD = example('approval.json')
const ACTION = example('action.json')
const CONTEXT = example('context.json')
const failed = (r) => ('error' in r ? { error: r.error.code, path: r.error.path } : r)

/** Runs every vector of `kind` and, for some, the same case another way; all must agree. */
async function runVectors(kind, also) {
  const cases = vectors(kind)
  const ops = []
  const checks = []
  for (const [file, v] of cases) {
    const [op, result] = proofOp(v, canonicalizeNpm)
    ops.push(op)
    checks.push([`${kind}/${file}`, result, v.expect])
    for (const [label, other] of also(v)) {
      ops.push(other)
      checks.push([`${kind}/${file} (${label})`, result, v.expect])
    }
  }
  const got = await run(ops)
  const failures = []
  got.forEach((r, i) => {
    const [label, result, want] = checks[i]
    const have = result(r)
    try {
      assert.deepStrictEqual(have, want)
    } catch {
      failures.push(`${label}: expected ${show(want)}; got ${show(have)}${r.error ? ` (${r.error.message})` : ''}`)
    }
    if (r.error) {
      const why = notAnActionsealError(r.error)
      if (why) failures.push(`${label}: ${why}`)
    }
  })
  assert.ok(cases.length >= 30, `${kind}: only ${cases.length} vectors`)
  assert.equal(failures.length, 0, `${failures.length} of ${got.length} results differ:\n${failures.join('\n')}`)
}

/** A check with the context's contract preloaded gives the same verdict. */
const preloaded = (v) => {
  if (v.op !== 'check') return []
  const context = JSON.parse(v.context)
  return [['contract preloaded', { fn: 'check', args: [json(v.approval), json(v.action), { ...context, contract: { $contract: context.contract } }] }]]
}

describe(`proof (${runtime})`, () => {
  it('signed vectors: RFC 8032, the DSSE PAE, keys and keyids, signing, envelopes, checks', async () => {
    await runVectors('signed', (v) => {
      if (v.op === 'verify' && 'payloadType' in JSON.parse(v.approval)) {
        return [['verifyEnvelope', { fn: 'verifyEnvelope', args: [json(v.approval), json(v.keys), v.at] }]]
      }
      return preloaded(v)
    })
  })

  it('passkey vectors: registrations, challenges, assertions, checks', async () => {
    await runVectors('passkey', (v) => {
      if (v.op === 'verify') return [['verifyPasskey', { fn: 'verifyPasskey', args: [json(v.approval), json(v.keys), v.at] }]]
      return preloaded(v)
    })
  })

  it('the seeds of the RFC 8032 vectors give their public keys', async () => {
    const seeded = vectors('signed').filter(([, v]) => v.op === 'ed25519' && v.seed_hex && !v.expect.error)
    assert.ok(seeded.length >= 3)
    const b64u = (hex) => Buffer.from(hex, 'hex').toString('base64url')
    const got = await run(seeded.map(([, v]) => ({ fn: 'SigningKey.publicJwk', args: [{ $signingKey: b64u(v.seed_hex) }] })))
    got.forEach((r, i) => assert.equal(r.ok?.x, b64u(seeded[i][1].public_key_hex), `${seeded[i][0]}: ${show(r)}`))
  })

  it('a generated key: its own seed each time, loaded back from its JWK, signing what its key set verifies', async () => {
    // The keys only live for one op: each is made and read in the same op.
    const [a, b, publicA] = await run([
      { fn: 'SigningKey#toJwk', args: [{ $generatedKey: true }] },
      { fn: 'SigningKey#toJwk', args: [{ $generatedKey: true }] },
      { fn: 'SigningKey.publicJwk', args: [{ $generatedKey: true }] },
    ])
    for (const r of [a, b, publicA]) assert.ok('ok' in r, show(r))
    assert.deepEqual(Object.keys(a.ok).sort(), ['crv', 'd', 'kid', 'kty', 'x'])
    assert.deepEqual(Object.keys(publicA.ok).sort(), ['crv', 'kid', 'kty', 'x'])
    assert.notEqual(a.ok.d, b.ok.d, 'each key has its own seed from the host\'s CSPRNG')
    assert.equal(Buffer.from(a.ok.d, 'base64url').length, 32)

    const key = a.ok
    const jwk = { crv: key.crv, kid: key.kid, kty: key.kty, x: key.x }
    const keys = { service_keys: { [key.kid]: { key: jwk, approvers: [RECORD.approver] } } }
    const proof = { required: true, keys }
    const [kid, pub, fromSeed, envelope, again, forged, loadedPublic] = await run([
      { fn: 'SigningKey.keyid', args: [{ $signingKey: key }] },
      { fn: 'SigningKey.publicJwk', args: [{ $signingKey: key }] },
      { fn: 'SigningKey.keyid', args: [{ $signingKey: key.d }] },
      { fn: 'SigningKey#sign', args: [{ $signingKey: key }, RECORD] },
      { fn: 'SigningKey#sign', args: [{ $signingKey: key.d }, RECORD] },
      { fn: 'SigningKey#sign', args: [{ $signingKey: b.ok }, RECORD] },
      { fn: 'publicKey', args: [jwk] },
    ])
    assert.equal(kid.ok, key.kid)
    assert.equal(fromSeed.ok, key.kid)
    assert.deepEqual(pub.ok, jwk)
    assert.deepEqual(loadedPublic.ok, jwk)
    assert.deepEqual(again.ok, envelope.ok, 'Ed25519 is deterministic')
    assert.equal(envelope.ok.signatures[0].keyid, key.kid)
    assert.equal(Buffer.from(envelope.ok.payload, 'base64url').toString('utf8'), canonicalizeNpm(RECORD))

    const [verified, either, permit, bare, untrusted, unknown] = await run([
      { fn: 'verifyEnvelope', args: [envelope.ok, keys, CONTEXT.now] },
      { fn: 'verifyProof', args: [envelope.ok, keys, CONTEXT.now] },
      { fn: 'check', args: [envelope.ok, ACTION, { ...CONTEXT, proof }] },
      { fn: 'check', args: [RECORD, ACTION, { ...CONTEXT, proof }] },
      { fn: 'check', args: [forged.ok, ACTION, { ...CONTEXT, proof }] },
      { fn: 'verifyEnvelope', args: [forged.ok, keys, CONTEXT.now] },
    ])
    assert.deepEqual(verified.ok, { approval: RECORD, signer: { keyid: key.kid, kind: 'service' } })
    assert.deepEqual(either.ok, verified.ok)
    assert.equal(permit.ok.outcome, 'permit', show(permit))
    assert.deepEqual(bare.ok.reasons, ['proof_missing'])
    assert.deepEqual(untrusted.ok.reasons, ['key_untrusted'])
    assert.deepEqual(failed(unknown), { error: 'unknown_key', path: '/signatures/0/keyid' })
  })

  it('arguments of the wrong type are coded errors, never a TypeError', async () => {
    const js = (source) => ({ $js: source })
    const cases = [
      [{ fn: 'publicKey', args: [7] }, 'invalid_key'],
      [{ fn: 'publicKey', args: [js('new Map()')] }, 'unsupported_type'],
      [{ fn: 'publicKey', args: [js('undefined')] }, 'unsupported_type'],
      [{ fn: 'new SigningKey', args: [7] }, 'invalid_key'],
      [{ fn: 'new SigningKey', args: [js('new Uint8Array(32)')] }, 'unsupported_type'],
      [{ fn: 'verifyProof', args: [RECORD, 7, 0] }, 'invalid_key_set'],
      [{ fn: 'verifyProof', args: [RECORD, js('({ service_keys: 1n })'), 0] }, 'unsupported_type'],
      [{ fn: 'verifyEnvelope', args: [RECORD, {}, 0] }, 'invalid_envelope'],
      [{ fn: 'verifyPasskey', args: [RECORD, {}, 0] }, 'missing_proof'],
      // The time a key is judged at: required, a non-negative integer of ms.
      [{ fn: 'verifyProof', args: [RECORD, {}] }, 'unsupported_type'],
      [{ fn: 'verifyProof', args: [RECORD, {}, -1] }, 'invalid_request'],
      [{ fn: 'verifyProof', args: [RECORD, {}, 1.5] }, 'invalid_request'],
      [{ fn: 'verifyProof', args: [RECORD, {}, '0'] }, 'invalid_request'],
      [{ fn: 'verifyRegistration', args: [{}, 7, {}] }, 'invalid_base64'],
      [{ fn: 'verifyRegistration', args: [{}, 'AAAA', {}] }, 'invalid_key_set'],
      [{ fn: 'ed25519Verify', args: ['x'.repeat(43), js('new Uint8Array(1)'), 'AA'] }, 'unsupported_type'],
      [{ fn: 'pae', args: [1, ''] }, 'invalid_envelope'],
      [{ fn: 'pae', args: ['t', 'AA=='] }, 'invalid_base64'],
      [{ fn: 'passkeyChallenge', args: [js('undefined')] }, 'unsupported_type'],
    ]
    const got = await run(cases.map(([op]) => op))
    const failures = []
    got.forEach((r, i) => {
      const [op, code] = cases[i]
      if (r.error?.code !== code) failures.push(`${op.fn}(${show(op.args)}): expected ${code}; got ${show(r)}`)
      else if (notAnActionsealError(r.error)) failures.push(`${op.fn}: ${notAnActionsealError(r.error)}`)
    })
    assert.equal(failures.length, 0, failures.join('\n'))
  })
})
