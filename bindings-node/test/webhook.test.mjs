// Webhook signatures (Standard Webhooks) through the Node addon: every vector of
// conformance/vectors/webhook (derived with Python's hmac), a signature recomputed here with
// node:crypto, and what a receiver refuses: another body, another secret, an old delivery by
// its own clock.
//
//   node --test bindings-node/test/webhook.test.mjs

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { api } from '../../conformance/js/ledger.mjs'

const { signWebhook, verifyWebhook, ActionsealError } = api
const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'conformance', 'vectors', 'webhook')
const VECTORS = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i))
const SECRET = `whsec_${KEY.toString('base64')}`

function result(v) {
  try {
    if (v.op === 'sign') return { ...signWebhook(v.secret, v.id, v.at_ms, v.body) }
    return { id: verifyWebhook(v.secret, v.headers, Buffer.from(v.body), v.now_ms, v.tolerance_ms) }
  } catch (e) {
    assert.ok(e instanceof ActionsealError, String(e))
    return { error: e.code, path: e.path }
  }
}

function refused(f) {
  try {
    f()
  } catch (e) {
    assert.ok(e instanceof ActionsealError, String(e))
    return [e.code, e.path]
  }
  assert.fail('no error')
}

describe('webhook signatures', () => {
  it('gives every vector its recorded result', () => {
    assert.ok(VECTORS.length >= 15)
    for (const f of VECTORS) {
      const v = JSON.parse(readFileSync(join(dir, f), 'utf8'))
      assert.deepEqual(result(v), v.expect, f)
    }
  })

  it('signs HMAC-SHA256 over id.timestamp.body', () => {
    const body = '{"task_id":"task_1"}'
    const h = signWebhook(SECRET, 'msg_1', 1_700_000_000_999, body)
    assert.equal(h['webhook-timestamp'], '1700000000')
    const mac = createHmac('sha256', KEY).update(`msg_1.1700000000.${body}`).digest('base64')
    assert.equal(h['webhook-signature'], `v1,${mac}`)
    assert.deepEqual(signWebhook(SECRET, 'msg_1', 1_700_000_000_999, Buffer.from(body)), h)
  })

  it('refuses a tampered, foreign or old delivery', () => {
    const body = Buffer.from('{"task_id":"task_1"}')
    const h = signWebhook(SECRET, 'msg_1', 1_700_000_000_000, body)
    const now = 1_700_000_010_000
    assert.equal(verifyWebhook(SECRET, h, body, now), 'msg_1')
    assert.deepEqual(refused(() => verifyWebhook(SECRET, h, '{"task_id":"task_2"}', now)), ['webhook_unverified', '/webhook-signature'])
    const other = `whsec_${Buffer.from(KEY.map((b) => b + 1)).toString('base64')}`
    assert.deepEqual(refused(() => verifyWebhook(other, h, body, now)), ['webhook_unverified', '/webhook-signature'])
    assert.deepEqual(refused(() => verifyWebhook(SECRET, h, body, now + 600_000)), ['webhook_unverified', '/webhook-timestamp'])
    assert.equal(verifyWebhook(SECRET, h, body, now + 600_000, 900_000), 'msg_1')
    assert.equal(refused(() => verifyWebhook('nope', h, body, now))[0], 'invalid_key')
  })
})
