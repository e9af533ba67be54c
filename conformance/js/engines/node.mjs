// Conformance engine for the Node.js addon (bindings-node/), driven by ../conformance.test.mjs
// and ../decisions.test.mjs. The addon runs in this process; ops are decoded and run by the
// module every engine shares (../ops.mjs), so `{$contract}` and `{$schema}` make napi class
// instances here, which the garbage collector frees.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runOps } from '../ops.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

export async function open() {
  const addon = require(join(here, '..', '..', '..', 'bindings-node'))
  return {
    name: 'node',
    async run(ops) {
      return runOps(addon, ops)
    },
    async close() {},
  }
}
