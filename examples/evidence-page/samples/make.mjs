// Writes the page's failing samples from the good one, each changing exactly one thing:
//
//   refund-edited-event.bundle.json    the decision event's actor is user:mallory, not user:bob
//   refund-removed-event.bundle.json   the claim event is taken out
//   refund-altered-amount.bundle.json  the proposed action refunds 250000, not 2500
//   other-ledger.trust.json            the refund's trust with another key for the ledger's name
//
// The good sample (refund.bundle.json, refund.trust.json, refund.timeline.json) is a signed,
// witnessed refund the ledger exported; see ../README.md. The other ledger key comes from a
// fixed seed, so reruns write the same bytes:  node examples/evidence-page/samples/make.mjs

import { createHash, createPrivateKey, createPublicKey } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const read = (name) => JSON.parse(readFileSync(join(here, name), 'utf8'))
const write = (name, value) => writeFileSync(join(here, name), `${JSON.stringify(value)}\n`)

const bundle = read('refund.bundle.json')
const trust = read('refund.trust.json')
const copy = () => structuredClone(bundle)

/** The one event of `kind` (the samples change a known event, never a guessed index). */
function eventOf(b, kind) {
  const found = b.events.findIndex((e) => e.event.kind === kind)
  if (found < 0 || b.events.filter((e) => e.event.kind === kind).length !== 1) {
    throw new Error(`refund.bundle.json must hold exactly one ${kind} event`)
  }
  return found
}

const edited = copy()
const decided = edited.events[eventOf(edited, 'decided')].event
if (decided.actor !== 'user:bob') throw new Error(`the decision is by ${decided.actor}, not user:bob`)
decided.actor = 'user:mallory'
write('refund-edited-event.bundle.json', edited)

const removed = copy()
removed.events.splice(eventOf(removed, 'claimed'), 1)
write('refund-removed-event.bundle.json', removed)

const altered = copy()
if (altered.actions[0].args.amount_minor !== 2500) throw new Error('the proposal does not refund 2500')
altered.actions[0].args.amount_minor = 250000
write('refund-altered-amount.bundle.json', altered)

// C2SP signed-note verifier key "<name>+<hex key hash>+<base64(0x01 || public key)>", key
// hash = SHA-256(name || "\n" || 0x01 || public key)[:4], for an Ed25519 key from a fixed seed.
const [name] = trust.ledger_keys[0].key.split('+')
const seed = createHash('sha256').update('actionseal evidence-page: another ledger').digest()
const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed])
const jwk = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' })
const typed = Buffer.concat([Buffer.from([0x01]), Buffer.from(jwk.x, 'base64url')])
const keyHash = createHash('sha256').update(Buffer.concat([Buffer.from(`${name}\n`), typed])).digest().subarray(0, 4)
const other = `${name}+${keyHash.toString('hex')}+${typed.toString('base64')}`
if (other === trust.ledger_keys[0].key) throw new Error('the other key is the ledger key')
write('other-ledger.trust.json', { ...trust, ledger_keys: [{ key: other }] })
