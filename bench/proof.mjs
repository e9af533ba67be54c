// Benchmark: the cost of proof at dispatch in Node. `check` of the refund example's record as
// a service-signed envelope (context requiring proof, with its key set as data: the envelope
// is decoded, the signature verified over PAE, the payload parsed once and compared with its
// canonical form as it is written, then checked as a bare record is), beside `check` of the
// bare record, and `verifyEnvelope` alone; against one Ed25519 verification by OpenSSL of the
// same PAE bytes, measured in the same rounds (node:crypto's `verify`, which is OpenSSL) and by
// `openssl speed -seconds 2 ed25519` before, between and after the rounds. Goal (issue 11): the
// extra cost of proof (signed - bare) is at most 1.5x one OpenSSL verification.
//
//   node bench/proof.mjs [--seconds 4]
//
// Interleaved rounds of CPU time (./rounds.mjs); every figure is the median over the rounds,
// with the lowest and highest round. A measurement, not a test: nothing here fails.
import { execFileSync } from 'node:child_process'
import { createPublicKey, verify } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, rounds } from './rounds.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const actionseal = createRequire(import.meta.url)(join(root, 'bindings-node'))
const secondsArg = process.argv.indexOf('--seconds')
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 4
const ROUNDS = 16

const refund = (name) => actionseal.parseJson(readFileSync(join(root, 'examples', 'refund', `${name}.json`)))
const [record, action, context] = ['approval', 'action', 'context'].map(refund)
const key = new actionseal.SigningKey('KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio') // 32 bytes of '*'
const envelope = key.sign(record)
const keys = { service_keys: { [key.keyid]: { key: key.publicJwk } } }
const plain = { ...context, contract: new actionseal.Contract(context.contract) }
const signed = { ...plain, proof: { required: true, keys } }

// What OpenSSL verifies: the envelope's signature over the same PAE bytes.
const pae = Buffer.from(actionseal.pae('application/vnd.actionseal.approval+json', envelope.payload), 'base64url')
const sig = Buffer.from(envelope.signatures[0].sig, 'base64url')
const opensslKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.publicJwk.x }, format: 'jwk' })

// Same answers before timing anything.
if (actionseal.check(record, action, plain).outcome !== 'permit') throw new Error('bare record not permitted')
if (actionseal.check(envelope, action, signed).outcome !== 'permit') throw new Error('signed envelope not permitted')
if (actionseal.check(record, action, signed).reasons[0] !== 'proof_missing') throw new Error('proof not required')
if (!verify(null, pae, opensslKey, sig)) throw new Error('OpenSSL does not verify the envelope')

/** OpenSSL's Ed25519 verifications per user-CPU second, from `openssl speed`, or null. */
function opensslSpeed() {
  try {
    const out = execFileSync('openssl', ['speed', '-seconds', '2', 'ed25519'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    const line = out.split('\n').find((l) => l.includes('(Ed25519)'))
    return Number(line.trim().split(/\s+/).pop())
  } catch {
    return null
  }
}

const contenders = [
  ['`check(record)`, no proof', () => actionseal.check(record, action, plain)],
  ['`check(envelope)`, proof required', () => actionseal.check(envelope, action, signed)],
  ['`verifyEnvelope(envelope, keys, at)` alone', () => actionseal.verifyEnvelope(envelope, keys, signed.now)],
  ['node:crypto `verify` (OpenSSL Ed25519), same PAE', () => verify(null, pae, opensslKey, sig)],
]
const speed = []
const halves = []
for (let half = 0; half < 2; half++) {
  const s = opensslSpeed()
  if (s !== null) speed.push(s)
  halves.push(rounds(contenders.map(([, fn]) => fn), seconds / 2, ROUNDS >> 1))
}
const s = opensslSpeed()
if (s !== null) speed.push(s)
// Microseconds per call, per round.
const us = contenders.map((_, k) => halves.flatMap((h) => h[k]).map((perSecond) => 1e6 / perSecond))
const [bare, proven, , openssl] = us
const extra = proven.map((x, i) => x - bare[i])
const range = (xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`
const row = (label, xs) => console.log(`| ${label} | ${median(xs).toFixed(2)} | ${range(xs)} |`)

console.log(`node ${process.version}, ${process.versions.openssl === undefined ? '' : `OpenSSL ${process.versions.openssl}, `}payload ${Buffer.from(envelope.payload, 'base64url').length} bytes (PAE ${pae.length}); µs of CPU per call, median of ${us[0].length} interleaved rounds`)
console.log('')
console.log('| what | µs/call (median) | range |')
console.log('| --- | ---: | ---: |')
contenders.forEach(([label], k) => row(label, us[k]))
row('**extra cost of proof** (signed - bare, per round)', extra)
const perRound = extra.map((x, i) => x / openssl[i])
console.log('')
console.log(`extra cost / one OpenSSL verification (node:crypto, same rounds): **${median(perRound).toFixed(2)}x** (${range(perRound)})`)
if (speed.length > 0) {
  const opensslUs = 1e6 / median(speed)
  console.log(`openssl speed: ${speed.map((v) => Math.round(v).toLocaleString('en')).join(', ')} verify/s, median ${opensslUs.toFixed(2)} µs; extra cost / that: **${(median(extra) / opensslUs).toFixed(2)}x**`)
}
console.log('goal: at most 1.5x')
