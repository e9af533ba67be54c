// What only the wasm build has: Contract and Schema live in WebAssembly memory and are freed
// with free() (or Symbol.dispose), and a freed one fails loudly wherever it is used. The
// behaviour every runtime shares is tested by conformance/js/.
//
//   bindings-wasm/build.sh && node --test bindings-wasm/test/

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const api = createRequire(import.meta.url)('../pkg/node/index.js')
const example = (name) => JSON.parse(readFileSync(new URL(`../../examples/refund/${name}`, import.meta.url), 'utf8'))
const REFUND = example('contract.json')
const ENVELOPE = example('action.json')
const RECORD = example('approval.json')
const CONTEXT = example('context.json')

test('free() releases a Contract; using it afterwards throws, also inside check', () => {
  const contract = new api.Contract(REFUND)
  assert.equal(api.check(RECORD, ENVELOPE, { ...CONTEXT, contract }).outcome, 'permit')
  contract.free()
  assert.throws(() => contract.digest, Error)
  assert.throws(() => contract.requiresApproval(ENVELOPE.args), Error)
  for (const call of [
    () => api.check(RECORD, ENVELOPE, { ...CONTEXT, contract }),
    () => api.action(contract, ENVELOPE.args, {}),
    () => api.requiresApproval(contract, ENVELOPE.args),
  ]) {
    // wasm-bindgen's own error, passed on unchanged: not a coded error about the data.
    assert.throws(call, (err) => err instanceof Error && err.code === undefined)
  }
  // The module keeps working.
  const again = new api.Contract(REFUND)
  assert.equal(api.check(RECORD, ENVELOPE, { ...CONTEXT, contract: again }).outcome, 'permit')
  again.free()
})

test('Symbol.dispose frees, for `using` declarations', { skip: typeof Symbol.dispose !== 'symbol' && 'no Symbol.dispose in this Node' }, () => {
  const contract = new api.Contract(REFUND)
  const schema = new api.Schema(REFUND.args)
  schema.validate(ENVELOPE.args)
  contract[Symbol.dispose]()
  schema[Symbol.dispose]()
  assert.throws(() => contract.tool, Error)
  assert.throws(() => schema.validate(ENVELOPE.args), Error)
})

test('only a Contract is taken as one at context.contract; plain data is never asked', () => {
  const contract = new api.Contract(REFUND)
  try {
    class Impostor {
      __actionsealLend() {}
    }
    assert.throws(() => api.check(RECORD, ENVELOPE, { ...CONTEXT, contract: new Impostor() }), {
      code: 'unsupported_type',
      path: '/contract',
      message: 'unsupported_type: Impostor has no JSON representation (at /contract)',
    })
    // Only an instance is asked to lend itself: one that lends another's contract is not one.
    class Delegate {
      __actionsealLend() {
        contract.__actionsealLend()
      }
    }
    assert.throws(() => api.check(RECORD, ENVELOPE, { ...CONTEXT, contract: new Delegate() }), {
      code: 'unsupported_type',
      path: '/contract',
    })
    // A document's members are data: a function there is refused, not called.
    let called = false
    const document = { ...REFUND, __actionsealLend: () => (called = true) }
    assert.throws(() => api.check(RECORD, ENVELOPE, { ...CONTEXT, contract: document }), {
      code: 'unsupported_type',
      path: '/contract/__actionsealLend',
    })
    assert.equal(called, false)
  } finally {
    contract.free()
  }
})

test('many contracts made and freed in a loop', () => {
  for (let i = 0; i < 2000; i++) {
    const contract = new api.Contract({ ...REFUND, version: String(i) })
    assert.equal(contract.version, String(i))
    contract.free()
  }
})
