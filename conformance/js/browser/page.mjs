// The conformance page: loads the web build of actionseal-wasm (served under /pkg/) and
// exposes `window.actionsealConformance.runJson(opsJson)` for the chromium engine.

import init, * as api from "/pkg/index.js";
import { asciiJson, runOps } from "./runner.mjs";

window.actionsealConformance = {
  /** Resolves once the module is instantiated; rejects with the reason if it cannot be. */
  ready: init().then(() => true),
  /** Runs a batch given and returned as ASCII-only JSON (see runner.mjs). */
  runJson(opsJson) {
    return asciiJson(runOps(api, JSON.parse(opsJson)));
  },
};
