// Benchmark: `verifyEvidence(bundle, trust)` of the typical refund bundle in Node (issue 26),
// against node:crypto's Ed25519 `verify` (OpenSSL) of as many signatures as the bundle holds
// (the ledger's on its checkpoint, the witness's cosignature, the service's on the decision):
// the least a verifier of the bundle does. The bundle is bench/payloads/evidence-refund.json,
// written by `cargo bench -p actionseal-bench --bench evidence -- --write-bundle PATH`.
//
//   node bench/evidence.mjs [--seconds 2]
//
// Interleaved rounds of CPU time (./rounds.mjs); µs per call, median over the rounds with the
// lowest and highest round. A measurement, not a test: nothing here fails on a slow machine.
import { generateKeyPairSync, sign, verify } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ROUNDS, median, ratio, rounds, show } from './rounds.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const actionseal = createRequire(import.meta.url)(join(root, 'bindings-node'))
const secondsArg = process.argv.indexOf('--seconds')
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 2

const { bundle, trust } = JSON.parse(readFileSync(join(root, 'bench', 'payloads', 'evidence-refund.json'), 'utf8'))
const SIGNATURES = 3
const { publicKey, privateKey } = generateKeyPairSync('ed25519')
const message = Buffer.from(bundle.checkpoint.note)
const sig = sign(null, message, privateKey)
const ed25519 = () => {
  let ok = true
  for (let i = 0; i < SIGNATURES; i++) ok &&= verify(null, message, publicKey, sig)
  return ok
}
if (actionseal.verifyEvidence(bundle, trust).task !== bundle.task || !ed25519()) throw new Error('the bundle does not verify')

const [verified, reference] = rounds([() => actionseal.verifyEvidence(bundle, trust), ed25519], seconds)
const us = (xs) => xs.map((perSecond) => 1e6 / perSecond)
const range = (xs) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`
console.log(`node ${process.version}; µs of CPU per call, median of ${ROUNDS} interleaved rounds (lowest–highest round)`)
console.log('')
console.log(`| bundle | \`verifyEvidence\` µs | ${SIGNATURES} node:crypto Ed25519 verifications µs | ratio |`)
console.log('| --- | ---: | ---: | ---: |')
console.log(`| typical refund, witnessed (${Buffer.byteLength(JSON.stringify(bundle))} B) | ${range(us(verified))} | ${range(us(reference))} | ${show(ratio(reference, verified))} |`)
