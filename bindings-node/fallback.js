'use strict'
// What `require('actionseal')` serves when no native addon loads (./main.js): the same core
// compiled to WebAssembly (the actionseal-wasm package, same functions, same ActionsealError),
// and in place of what only the addon has (the ledger, its audit's verifier and the webhook
// signatures, which serve servers), stand-ins
// that throw an ActionsealError with the code native_binding_unavailable, naming this
// platform and the package to install.

const CODE = 'native_binding_unavailable'

/** napi-rs's platform name for this process: linux-x64-gnu, linux-arm64-musl, darwin-arm64... */
function platformName() {
  const name = `${process.platform}-${process.arch}`
  if (process.platform !== 'linux') return name
  // Node reports the glibc it runs on; a musl build of Node reports none.
  const report = process.report && process.report.getReport()
  return `${name}-${report && report.header.glibcVersionRuntime ? 'gnu' : 'musl'}`
}

/** What to tell the caller: which package would serve this platform, if one is built. */
function advice() {
  const { version, optionalDependencies } = require('./package.json')
  const platform = platformName()
  const wanted = `actionseal-${platform}`
  const where = `on ${platform} (Node ${process.version})`
  if (wanted in optionalDependencies) {
    return `the native addon did not load ${where}: install ${wanted}@${version} (npm installs this optional dependency of actionseal unless optional dependencies are omitted)`
  }
  const built = Object.keys(optionalDependencies).map((p) => p.slice('actionseal-'.length))
  return `no native addon is built for ${platform} (there are for ${built.join(', ')}; Node ${process.version}): run the ledger where one is, or from the Python package or the CLI`
}

/**
 * The exports of the WebAssembly build, plus the ledger's stand-ins. `nativeError` (why the
 * addon did not load) becomes the `cause` of their errors.
 */
function load(nativeError) {
  let wasm
  try {
    wasm = require('actionseal-wasm')
  } catch (wasmError) {
    throw new AggregateError([nativeError, wasmError], `actionseal: no native addon loaded on ${platformName()}, nor the WebAssembly build (actionseal-wasm, which needs Node.js 20.19 or later; this is ${process.version})`)
  }
  const unavailable = (what) => {
    const error = new wasm.ActionsealError(CODE, `${CODE}: ${what} needs actionseal's native addon, and ${advice()}`)
    error.cause = nativeError
    return error
  }
  // Only the addon has the ledger, whose storage engines (SQLite, PostgreSQL) are native
  // code, and the verifier of its audit exports.
  class Ledger {
    constructor() {
      throw unavailable('Ledger')
    }

    static open() {
      return Promise.reject(unavailable('Ledger.open'))
    }

    static taskId() {
      throw unavailable('Ledger.taskId')
    }
  }
  class ManualClock {
    constructor() {
      throw unavailable('ManualClock (a Ledger\'s clock)')
    }
  }
  const verifyAudit = () => {
    throw unavailable('verifyAudit')
  }
  const signWebhook = () => {
    throw unavailable('signWebhook')
  }
  const verifyWebhook = () => {
    throw unavailable('verifyWebhook')
  }
  return { ...wasm, Ledger, ManualClock, verifyAudit, signWebhook, verifyWebhook }
}

module.exports = { load }
