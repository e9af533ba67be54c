// Benchmark: actionseal's Node binding against the npm `canonicalize` package + node:crypto
// SHA-256, side by side in one process, on the payloads in bench/payloads/; and the permit
// check of the refund example (examples/refund/) against one fingerprint of its action.
//
//   node bench/node.mjs [--seconds 2]
//
// Nine interleaved rounds: in each, every function runs for the same CPU time, one after the
// other, and the round's ratio compares them. Prints each ratio's median and its spread (the
// lowest and highest round), never the best round alone. Calls are counted per second of
// process CPU time (user + system), so time spent waiting for a core on a shared machine is
// not counted; V8's helper threads (GC) count as cost.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ROUNDS, ops, ratio, rounds as timed, show } from './rounds.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const actionseal = require(join(root, 'bindings-node'))
const canonicalizeNpm = require('canonicalize')

const secondsArg = process.argv.indexOf('--seconds')
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 2
const rounds = (fns) => timed(fns, seconds)
const baseline = (value) => 'sha256:' + createHash('sha256').update(canonicalizeNpm(value)).digest('hex')

console.log(`node ${process.version}; calls per CPU-second, median of ${ROUNDS} interleaved rounds (lowest–highest round's ratio in brackets), ${seconds}s of CPU per function`)
console.log('')
console.log('| payload | npm canonicalize + node:crypto | `fingerprint(obj)` | vs baseline | `fingerprintJson(text)` | vs baseline |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
for (const name of ['refund.json', 'items150.json', '10k.json']) {
  const text = readFileSync(join(root, 'bench', 'payloads', name), 'utf8')
  const value = JSON.parse(text)
  if (baseline(value) !== actionseal.fingerprint(value)) throw new Error(`${name}: actionseal and the baseline disagree`)
  if (actionseal.fingerprintJson(text) !== actionseal.fingerprint(value)) throw new Error(`${name}: fingerprintJson and fingerprint disagree`)
  const [base, fp, fpJson] = rounds([() => baseline(value), () => actionseal.fingerprint(value), () => actionseal.fingerprintJson(text)])
  const bytes = Buffer.byteLength(canonicalizeNpm(value))
  console.log(`| ${name} (${bytes} B canonical) | ${ops(base)} | ${ops(fp)} | ${show(ratio(fp, base))} | ${ops(fpJson)} | ${show(ratio(fpJson, base))} |`)
}

// The permit check of the refund example: the approval, the presented action (the approved
// one, so the verdict is permit) and the executor's context, whose contract is a `Contract`
// loaded once (as a long-running executor holds it) or the plain contract document.
const refund = (name) => actionseal.parseJson(readFileSync(join(root, 'examples', 'refund', `${name}.json`)))
const [record, action, context] = ['approval', 'action', 'context'].map(refund)
const withContract = { ...context, contract: new actionseal.Contract(context.contract) }
const loaded = new actionseal.Approval(record)
const checks = [
  ['`check(Approval, action, context)`, contract a `Contract`', () => actionseal.check(loaded, action, withContract)],
  ['`check(record, action, context)`, contract a `Contract`', () => actionseal.check(record, action, withContract)],
  ['`check(record, action, context)`, contract a document', () => actionseal.check(record, action, context)],
]
for (const [label, fn] of checks) if (fn().outcome !== 'permit') throw new Error(`${label}: not permitted`)
const [fpAction, ...checked] = rounds([() => actionseal.fingerprint(action), ...checks.map(([, fn]) => fn)])
console.log('')
console.log('| refund example | calls/s | cost in fingerprints of the action |')
console.log('| --- | ---: | ---: |')
console.log(`| \`fingerprint(action)\` | ${ops(fpAction)} | 1 |`)
checks.forEach(([label], i) => console.log(`| ${label} | ${ops(checked[i])} | ${show(ratio(fpAction, checked[i]))} |`))
