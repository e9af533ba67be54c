// Benchmark: actionseal's Node binding against the npm `canonicalize` package + node:crypto
// SHA-256, side by side in one process, on the payloads in bench/payloads/; and the permit
// check of the refund example (examples/refund/) against one fingerprint of its action.
//
//   node bench/node.mjs [--seconds 1]
//
// Prints calls per CPU-second for each function and payload, and the ratio to the baseline
// (for `check`: how many fingerprints of the action one check costs; the goal is at most 2).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const actionseal = require(join(root, 'bindings-node'))
const canonicalizeNpm = require('canonicalize')

const secondsArg = process.argv.indexOf('--seconds')
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 2

/**
 * Measures several functions in interleaved rounds and returns, for each, the best rate it
 * reached in any round, in calls per second of process CPU time (user + system). CPU time,
 * unlike wall time, does not count the time the process waits while other processes use
 * the cores, so shared or loaded machines give stable ratios; on an idle machine the two
 * agree (apart from V8's helper threads, whose GC work is counted as cost).
 */
function measureAll(fns) {
  let sink = 0
  for (const fn of fns) for (let i = 0; i < 2000; i++) sink ^= fn().length // warm up
  const best = fns.map(() => 0)
  const rounds = 10
  const perRound = (seconds / rounds) * 1e6 // microseconds of CPU time
  for (let round = 0; round < rounds; round++) {
    fns.forEach((fn, k) => {
      let n = 0
      const start = process.cpuUsage()
      let used = 0
      while (used < perRound) {
        for (let i = 0; i < 50; i++) sink ^= fn().length
        n += 50
        const d = process.cpuUsage(start)
        used = d.user + d.system
      }
      best[k] = Math.max(best[k], n / (used / 1e6))
    })
  }
  if (sink === 0.5) console.log('') // keeps the results alive
  return best
}

const baseline = (value) => 'sha256:' + createHash('sha256').update(canonicalizeNpm(value)).digest('hex')

const rows = []
for (const name of ['refund.json', '10k.json']) {
  const text = readFileSync(join(root, 'bench', 'payloads', name), 'utf8')
  const value = JSON.parse(text)
  if (baseline(value) !== actionseal.fingerprint(value)) {
    throw new Error(`${name}: actionseal and the baseline disagree`)
  }
  if (actionseal.fingerprintJson(text) !== actionseal.fingerprint(value)) {
    throw new Error(`${name}: fingerprintJson and fingerprint disagree`)
  }
  const [base, fp, fpJson, canonNpm, canon] = measureAll([
    () => baseline(value),
    () => actionseal.fingerprint(value),
    () => actionseal.fingerprintJson(text),
    () => canonicalizeNpm(value),
    () => actionseal.canonicalize(value),
  ])
  const bytes = Buffer.byteLength(text)
  rows.push(
    { payload: name, bytes, op: 'npm canonicalize + node:crypto sha256 (baseline)', ops: base, ratio: 1 },
    { payload: name, bytes, op: 'fingerprint(obj)', ops: fp, ratio: fp / base },
    { payload: name, bytes, op: 'fingerprintJson(text)', ops: fpJson, ratio: fpJson / base },
    { payload: name, bytes, op: 'npm canonicalize(obj) alone', ops: canonNpm, ratio: null },
    { payload: name, bytes, op: 'canonicalize(obj), vs npm canonicalize alone', ops: canon, ratio: canon / canonNpm },
  )
}

// The permit check of the refund example: the approval, the presented action (the approved
// one, so the verdict is permit) and the executor's context, whose contract is a `Contract`
// loaded once (as a long-running executor holds it) or the plain contract document (loaded
// and compiled on every call).
const refund = (name) => actionseal.parseJson(readFileSync(join(root, 'examples', 'refund', `${name}.json`)))
const [approval, action, context] = ['approval', 'action', 'context'].map(refund)
const withContract = { ...context, contract: new actionseal.Contract(context.contract) }
for (const ctx of [context, withContract]) {
  const verdict = actionseal.check(approval, action, ctx)
  if (verdict.outcome !== 'permit') throw new Error(`refund example: expected permit, got ${JSON.stringify(verdict)}`)
}
// measureAll counts `.length` of what each function returns: a verdict has none, so count its reasons.
const [fpAction, checkContract, checkPlain] = measureAll([
  () => actionseal.fingerprint(action),
  () => actionseal.check(approval, action, withContract).reasons,
  () => actionseal.check(approval, action, context).reasons,
])
const checkRows = [
  { op: 'fingerprint(action)', ops: fpAction, ratio: 1 },
  { op: 'check(approval, action, context), context.contract a Contract', ops: checkContract, ratio: fpAction / checkContract },
  { op: 'check(approval, action, context), context.contract a plain document', ops: checkPlain, ratio: fpAction / checkPlain },
]

console.log(`node ${process.version}; calls per CPU-second, best of 10 interleaved rounds, ${seconds}s of CPU per function`)
console.log('| payload | operation | ops/s | vs baseline |')
console.log('| --- | --- | ---: | ---: |')
for (const r of rows) {
  const ratio = r.ratio === null ? '' : `${r.ratio.toFixed(2)}x`
  console.log(`| ${r.payload} (${r.bytes} B) | ${r.op} | ${Math.round(r.ops).toLocaleString('en')} | ${ratio} |`)
}
console.log('')
console.log('| refund example | ops/s | cost in fingerprints of the action |')
console.log('| --- | ---: | ---: |')
for (const r of checkRows) {
  console.log(`| ${r.op} | ${Math.round(r.ops).toLocaleString('en')} | ${r.ratio.toFixed(2)} |`)
}
