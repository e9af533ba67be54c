// Writes samples/refund-batch.json: twenty refunds after an outage, proposed as one batch under
// the refund contract of samples/refund.json with a `batch` member (issue 28), and the batch
// fingerprint the agent's server claims for it. Every value is fixed, so a rerun writes the
// same bytes:
//
//   node examples/confirm-page/samples/make-batch.mjs   (after bindings-wasm/build.sh)

import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..', '..')
const actionseal = createRequire(import.meta.url)(join(repo, 'bindings-wasm', 'pkg', 'node', 'actionseal_wasm.js'))

const single = actionseal.parseJson(readFileSync(join(here, 'refund.json')))
const contract = {
  ...single.contract,
  // Up to 50 refunds per decision, at most 1,000.00 in all, each order once; three failed
  // payments within ten minutes stop the rest.
  batch: {
    max_items: 50,
    caps: {
      count: 50,
      sum: { pointer: '/args/amount_minor', max: 100000 },
      distinct: { pointer: '/args/order_id', max: 50 },
    },
    breaker: { max_failures: 3, window_ms: 600000, max_claims_per_minute: 120, close_after: 5 },
  },
}
const digest = new actionseal.Contract(contract).digest

// Mostly alike, as a bulk proposal is: the few that differ from the first (another currency,
// a reason or none, a reason with an invisible character) are what the reviewer must see.
const AMOUNTS = [2500, 1800, 3200, 2500, 4100, 1250, 2500, 3900, 2750, 1600, 2500, 3300, 2200, 2900, 1750, 2500, 3600, 2050, 2450, 3100]
const actions = AMOUNTS.map((amount, i) => {
  const n = i + 1
  const args = { amount_minor: amount, currency: n === 6 || n === 14 ? 'EUR' : 'USD', order_id: `order-${100 + n}` }
  if (n !== 9) args.reason = n === 17 ? 'outage\u200B 2026-12-03' : 'outage 2026-12-03'
  return {
    args,
    contract: digest,
    job_id: 'job-outage-1203',
    policy_version: 'refund-policy-2026-08-01',
    request_id: `req-${String(n).padStart(2, '0')}`,
    subject: 'user:alice',
    tenant: 'tenant-a',
    tool: 'refund_create',
  }
})
const batch = { contract, semantics: 'per_item', actions }
const out = { batch, batch_digest: batchDigest(batch) }
writeFileSync(join(here, 'refund-batch.json'), JSON.stringify(out, null, 2) + '\n')
console.log(`wrote samples/refund-batch.json (${actions.length} items, ${out.batch_digest})`)

/** The batch fingerprint the server claims: core's, from the wasm package. */
function batchDigest({ contract, semantics, actions }) {
  return actionseal.batchBuild(contract, semantics, actions, null).batch_digest
}
