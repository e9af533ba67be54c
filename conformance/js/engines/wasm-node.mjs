// Conformance engine: the actionseal-wasm Node build (bindings-wasm/pkg/node), in this process.
// Build it first with bindings-wasm/build.sh.

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { runOps } from "../ops.mjs";

const entry = fileURLToPath(new URL("../../../bindings-wasm/pkg/node/index.js", import.meta.url));

/** Loads the module; fails with a hint when it has not been built. */
export async function open() {
  let api;
  try {
    api = createRequire(import.meta.url)(entry);
  } catch (err) {
    throw new Error(`cannot load ${entry} (run bindings-wasm/build.sh): ${err.message}`);
  }
  return {
    async run(ops) {
      return runOps(api, ops);
    },
    async close() {},
  };
}
