// Benchmark: committing an action's three sensitive fields in JavaScript (`commitAction`: the
// arguments validated, the envelope built, three salts from `crypto.getRandomValues`, three
// disclosures, committed, fingerprinted) against building the same action under the contract
// without `sensitive` (`action`), on bench/payloads/sensitive.json. Goal: at most 1.5x.
//
//   node bench/sensitive.mjs [--runtime node|wasm] [--seconds 2]
//
// `node`: the addon (bindings-node); `wasm`: bindings-wasm/pkg/node (bindings-wasm/build.sh),
// in this Node. Nine interleaved rounds of CPU time (bench/rounds.mjs); prints calls per
// CPU-second of each (median) and the median and spread of the per-round ratio.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ops, ratio, rounds, show } from './rounds.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : fallback
}
const runtime = arg('--runtime', 'node')
const seconds = Number(arg('--seconds', 2))
const api = require(join(root, runtime === 'wasm' ? 'bindings-wasm/pkg/node' : 'bindings-node'))
const payload = JSON.parse(readFileSync(join(root, 'bench', 'payloads', 'sensitive.json'), 'utf8'))
const [marked, plain] = [new api.Contract(payload.marked), new api.Contract(payload.plain)]
const { args, ids } = payload
if (api.commitAction(marked, args, ids).disclosures.length !== 3) throw new Error('three sensitive fields')
const [committed, built] = rounds([() => api.commitAction(marked, args, ids), () => api.action(plain, args, ids)], seconds)
console.log(`${runtime}: commitAction ${ops(committed)}/s, action ${ops(built)}/s: ${show(ratio(built, committed))}`)
