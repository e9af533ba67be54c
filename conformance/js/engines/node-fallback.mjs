// Conformance engine: the npm package `actionseal` where no native addon loads, so that it
// serves the WebAssembly build (bindings-node/main.js, fallback.js). ACTIONSEAL_NODE_PACKAGE
// is the directory of an installed `actionseal` without its platform package and .node file
// (bindings-node/test.sh installs one); the engine refuses to run on a package whose native
// addon loaded.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { runOps } from '../ops.mjs'

export async function open() {
  const dir = process.env.ACTIONSEAL_NODE_PACKAGE
  if (!dir) throw new Error('set ACTIONSEAL_NODE_PACKAGE to an installed actionseal package without its native addon (bindings-node/test.sh does)')
  const api = createRequire(import.meta.url)(dir)
  assert.throws(() => new api.Ledger(), { code: 'native_binding_unavailable' }, `${dir} loaded a native addon: this engine tests the fallback`)
  return {
    api,
    async run(ops) {
      return runOps(api, ops)
    },
    async close() {},
  }
}
