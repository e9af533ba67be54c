// Delegation in every JavaScript runtime: signDelegation, verifyDelegation and
// delegationDigest, the same envelopes, values, codes and paths everywhere.
//
//   ACTIONSEAL_RUNTIME=node|wasm-node|chromium node --test conformance/js/delegation.test.mjs

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { notAnActionsealError, openEngine, run as runOn, runtime, show } from './common.mjs'

let engine
before(async () => {
  engine = await openEngine()
})
after(async () => {
  await engine?.close()
})

const run = (ops) => runOn(engine, ops)
const failed = (r) => ('error' in r ? { error: r.error.code, path: r.error.path } : r)

const DOCUMENT = {
  delegation_id: 'dlg-1',
  delegator: 'user:carol',
  delegate: 'user:dave',
  tenant: 'tenant-a',
  tools: ['refund_create'],
  when: [{ pointer: '/args/amount_minor', op: 'lte', value: 50000 }],
  not_before: 1764500000000,
  not_after: 1765000000000,
}
const AT = 1764500600000

describe(`delegation (${runtime})`, () => {
  it('a signed delegation verifies against its key set; its digest is the document\'s', async () => {
    const [jwk] = await run([{ fn: 'SigningKey#toJwk', args: [{ $generatedKey: true }] }])
    const key = jwk.ok
    const pub = { crv: key.crv, kid: key.kid, kty: key.kty, x: key.x }
    const keys = { service_keys: { [key.kid]: { key: pub, approvers: ['user:carol'] } } }
    const other = { service_keys: { [key.kid]: { key: pub, approvers: ['user:erin'] } } }
    const [byInstance, byJwk, bySeed, digest, fingerprint] = await run([
      { fn: 'signDelegation', args: [DOCUMENT, { $signingKey: key }] },
      { fn: 'signDelegation', args: [DOCUMENT, key] },
      { fn: 'signDelegation', args: [DOCUMENT, key.d] },
      { fn: 'delegationDigest', args: [DOCUMENT] },
      { fn: 'fingerprint', args: [DOCUMENT] },
    ])
    for (const r of [byInstance, byJwk, bySeed, digest]) assert.ok('ok' in r, show(r))
    const envelope = byInstance.ok
    assert.equal(envelope.payloadType, 'application/vnd.actionseal.delegation+json')
    assert.deepEqual(byJwk.ok, envelope, 'deterministic, from an instance or its JWK')
    assert.deepEqual(bySeed.ok, envelope, 'or its seed')
    assert.equal(digest.ok, fingerprint.ok)
    const [verified, refused] = await run([
      { fn: 'verifyDelegation', args: [envelope, keys, AT] },
      { fn: 'verifyDelegation', args: [envelope, other, AT] },
    ])
    assert.deepEqual(verified.ok, { delegation: DOCUMENT, digest: digest.ok, signer: { keyid: key.kid, kind: 'service' } })
    assert.deepEqual(failed(refused), { error: 'signer_not_allowed', path: '' })
  })

  it('a malformed document is refused by every function, at its member', async () => {
    const self = { ...DOCUMENT, delegate: 'user:carol' }
    const got = await run([
      { fn: 'delegationDigest', args: [self] },
      { fn: 'signDelegation', args: [self, { $generatedKey: true }] },
    ])
    for (const r of got) assert.deepEqual(failed(r), { error: 'invalid_delegation', path: '/delegate' })
  })

  it('arguments of the wrong type are coded errors, never a TypeError', async () => {
    const js = (source) => ({ $js: source })
    const cases = [
      [{ fn: 'verifyDelegation', args: [DOCUMENT, {}, -1] }, 'invalid_request'],
      [{ fn: 'verifyDelegation', args: [DOCUMENT, {}, '0'] }, 'invalid_request'],
      [{ fn: 'verifyDelegation', args: [DOCUMENT, {}] }, 'unsupported_type'],
      [{ fn: 'verifyDelegation', args: [DOCUMENT, 7, 0] }, 'invalid_key_set'],
      [{ fn: 'signDelegation', args: [DOCUMENT, 7] }, 'invalid_key'],
      [{ fn: 'signDelegation', args: [DOCUMENT, js('new Map()')] }, 'unsupported_type'],
      [{ fn: 'signDelegation', args: [DOCUMENT] }, 'unsupported_type'],
      [{ fn: 'delegationDigest', args: [js('undefined')] }, 'unsupported_type'],
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
