// The npm package where no native addon loads: it serves the WebAssembly build under the same
// names, its Ledger throws native_binding_unavailable, and ES module imports see every name.
// ACTIONSEAL_NODE_PACKAGE is an installed `actionseal` without its platform package
// (bindings-node/test.sh installs one); the shared conformance suite runs on it too
// (ACTIONSEAL_RUNTIME=node-fallback).
//
//   ACTIONSEAL_NODE_PACKAGE=<app>/node_modules/actionseal node --test bindings-node/fallback-test/

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const dir = process.env.ACTIONSEAL_NODE_PACKAGE
if (!dir) throw new Error('set ACTIONSEAL_NODE_PACKAGE to an installed actionseal package without its native addon')
const require = createRequire(import.meta.url)
const fallback = require(dir)
// The repository's build, whose addon loads here: the names and errors to match.
const native = require(join(dirname(fileURLToPath(import.meta.url)), '..', 'index.js'))
const { version } = require(join(dir, 'package.json'))

/** The error `fn` throws, or the reason of the Promise it returns. */
async function thrown(fn) {
  try {
    await fn()
  } catch (e) {
    return e
  }
  assert.fail('no error')
}

function assertUnavailable(e, what) {
  assert.ok(e instanceof fallback.ActionsealError, `${what}: not the package's ActionsealError`)
  assert.ok(e instanceof Error)
  assert.equal(e.name, 'ActionsealError')
  assert.equal(e.code, 'native_binding_unavailable')
  assert.equal(e.path, '')
  assert.equal(e.offset, null)
  assert.ok(e.message.startsWith(`native_binding_unavailable: ${what} needs actionseal's native addon`), e.message)
  // This machine is x86_64 Linux with glibc: the package that would serve it.
  assert.match(e.message, new RegExp(`on linux-x64-gnu \\(Node ${process.version.replaceAll('.', '\\.')}\\): install actionseal-linux-x64-gnu@${version.replaceAll('.', '\\.')}`))
  // Why the addon did not load, for whoever debugs it: napi-rs's loader's error.
  assert.ok(e.cause instanceof Error)
  assert.match(e.cause.message, /native binding/)
}

describe('actionseal without its native addon', () => {
  it('exports what the native package exports, from the wasm build', () => {
    const names = (m) => Object.keys(m).filter((k) => k !== '__napiBindingTarget').sort()
    assert.deepEqual(names(fallback), names(native))
    const wasm = createRequire(join(dir, 'package.json'))('actionseal-wasm')
    assert.equal(fallback.fingerprint, wasm.fingerprint)
    assert.equal(fallback.ActionsealError, wasm.ActionsealError)
    assert.notEqual(fallback.Ledger, native.Ledger)
  })

  it('throws native_binding_unavailable from the ledger, naming the platform and the package', async () => {
    assertUnavailable(await thrown(() => new fallback.Ledger()), 'Ledger')
    assertUnavailable(await thrown(() => fallback.Ledger.open('sqlite::memory:')), 'Ledger.open')
    assertUnavailable(await thrown(() => fallback.Ledger.taskId({ tenant: 't', job_id: 'j', request_id: 'r', tool: 'x' })), 'Ledger.taskId')
    assertUnavailable(await thrown(() => new fallback.ManualClock(0)), 'ManualClock (a Ledger\'s clock)')
    assertUnavailable(await thrown(() => fallback.verifyAudit('')), 'verifyAudit')
    assertUnavailable(await thrown(() => fallback.signWebhook('', '', 0, '')), 'signWebhook')
    assertUnavailable(await thrown(() => fallback.verifyWebhook('', {}, '', 0)), 'verifyWebhook')
    // A Promise, as the addon's: a caller's `.catch` sees the error.
    assert.ok(fallback.Ledger.open('sqlite::memory:').catch(() => {}) instanceof Promise)
  })

  it('throws the same errors as the addon, of its own ActionsealError class', async () => {
    for (const call of [
      (a) => a.fingerprint({ amount: 10n }),
      (a) => a.canonicalizeJson('{"a": 1, "a": 2}'),
      (a) => new a.Contract({}),
    ]) {
      const [w, n] = [await thrown(() => call(fallback)), await thrown(() => call(native))]
      assert.ok(w instanceof fallback.ActionsealError)
      assert.deepEqual([w.name, w.code, w.path, w.offset, w.message], [n.name, n.code, n.path, n.offset, n.message])
    }
  })

  it('serves named ES module imports', async () => {
    const m = await import(pathToFileURL(join(dir, 'main.js')).href)
    for (const name of Object.keys(native)) assert.ok(name in m, `import { ${name} } is missing`)
    assert.equal(m.fingerprint, fallback.fingerprint)
    assert.equal(m.Ledger, fallback.Ledger)
    assert.ok(m.digestEqual(m.fingerprint({ b: 1, a: [1.0] }), native.fingerprint({ a: [1], b: 1 })))
  })

  it('says when no package is built for the platform', () => {
    // A process that believes it runs on macOS: napi-rs's loader finds no addon for it.
    const script = `Object.defineProperty(process, 'platform', { value: 'darwin' })
      const { Ledger } = require(${JSON.stringify(dir)})
      try { new Ledger() } catch (e) { console.log(e.code + ' ' + e.message) }`
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })
    assert.match(out, new RegExp(`^native_binding_unavailable native_binding_unavailable: Ledger needs actionseal's native addon, and no native addon is built for darwin-${process.arch} \\(there are for linux-x64-gnu, linux-x64-musl, linux-arm64-gnu, linux-arm64-musl; `))
  })
})
