// Loads actionseal-wasm for a page of examples/ and hands its `notices` to render.mjs. A page
// that cannot load it says why in `status`, and how to build and serve it (`guide`: the
// page's README).

import { useCore } from "./render.mjs";

// The web build of actionseal-wasm, as bindings-wasm/build.sh writes it into the repository
// (relative to this file, which sits beside each page in examples/).
const WASM = "../../bindings-wasm/pkg/web/actionseal_wasm.js";

/** The initialised module; on failure, `status` says why and the error is rethrown. */
export async function loadCore(status, guide) {
  try {
    const api = await import(WASM);
    await api.default();
    useCore(api);
    return api;
  } catch (err) {
    document.body.dataset.state = "error";
    status.className = "status problem";
    status.textContent =
      `actionseal could not be loaded (${err.message}). Build it with bindings-wasm/build.sh and serve the ` +
      `repository root over HTTP, as ${guide} explains.`;
    throw err;
  }
}
