'use strict'
// The package's entry: the native addon for this platform, through napi-rs's generated loader
// (./index.js: a .node file beside it, else the optional dependency actionseal-<platform>);
// where none loads, the same functions from the WebAssembly build (./fallback.js), whose
// Ledger throws ActionsealError native_binding_unavailable.
let binding
try {
  binding = require('./index.js')
} catch (nativeError) {
  binding = require('./fallback.js').load(nativeError)
}
if (binding.__napiBindingTarget !== undefined) {
  // Native: with @opentelemetry/api installed, every ledger opened here is traced (core's table).
  binding.Ledger = require('./telemetry.js').instrumentClass(binding.Ledger)
}
module.exports = binding
// Never runs: Node's `import { name } from 'actionseal'` takes the names that cjs-module-lexer
// finds without running the code, and this line points it at the loader's list (esbuild's
// annotation of CommonJS exports); it does not look into the try block above.
0 && (module.exports = require('./index.js'))
