// Writes samples/refund-signed.json: the refund request of samples/refund.json with a decision
// about it signed by a service key, and the key set the executor's server would hand the page.
// The key's seed is fixed (SHA-256 of a label), so a rerun writes the same bytes:
//
//   node examples/confirm-page/samples/make-signed.mjs   (after bindings-node is built)

import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..', '..')
const actionseal = createRequire(import.meta.url)(join(repo, 'bindings-node'))
const read = (path) => actionseal.parseJson(readFileSync(join(repo, path)))

const request = read('examples/confirm-page/samples/refund.json')
const record = read('examples/refund/approval.json')
const seed = createHash('sha256').update('actionseal confirm-page sample service key').digest('base64url')
const key = new actionseal.SigningKey(seed)
const keys = {
  service_keys: {
    [key.keyid]: {
      key: key.publicJwk,
      // In service from November 2025 until it is retired (its window is judged at the
      // verifier's clock, never at the record's decided_at), for this approver only.
      valid_from: Date.UTC(2025, 10, 1),
      valid_until: Date.UTC(2100, 0, 1),
      approvers: [record.approver],
    },
  },
}
const out = { ...request, signed: key.sign(record), keys }
writeFileSync(join(here, 'refund-signed.json'), JSON.stringify(out, null, 2) + '\n')
console.log(`wrote samples/refund-signed.json (keyid ${key.keyid})`)
