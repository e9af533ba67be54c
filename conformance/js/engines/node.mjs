// Conformance engine for the Node.js addon (bindings-node/), driven by ../conformance.test.mjs.
// The interface every engine implements is described at the top of that file.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

const FUNCTIONS = ['canonicalize', 'canonicalizeJson', 'fingerprint', 'fingerprintJson', 'digestEqual']

/** Turns one op argument into the value it stands for (see the test file for the forms). */
export function decodeArg(arg) {
  if (arg !== null && typeof arg === 'object' && !Array.isArray(arg)) {
    const keys = Object.keys(arg)
    if (keys.length === 1 && keys[0] === '$bytes') return Uint8Array.from(arg.$bytes)
    // Indirect eval: the expression is evaluated in global scope.
    if (keys.length === 1 && keys[0] === '$js') return (0, eval)(`(${arg.$js})`)
  }
  return arg
}

/** Runs ops against an API object with the five functions, one result per op. */
export function runOps(api, ops) {
  return ops.map(({ fn, args }) => {
    if (!FUNCTIONS.includes(fn)) throw new Error(`unknown function ${fn}`)
    try {
      return { ok: api[fn](...args.map(decodeArg)) }
    } catch (err) {
      return {
        error: {
          code: err?.code,
          path: err?.path,
          offset: err?.offset,
          isError: err instanceof Error,
          message: String(err?.message ?? err),
        },
      }
    }
  })
}

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
