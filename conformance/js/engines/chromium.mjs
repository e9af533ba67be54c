// Conformance engine: the actionseal-wasm web build (bindings-wasm/pkg/web) in headless
// Debian Chromium, driven by playwright-core. Build it first with bindings-wasm/build.sh.
//
// Ops go into the page and results come back as ASCII-only JSON, so strings with lone
// surrogates, U+2028 or anything else cross the CDP boundary unchanged; {$js} arguments are
// evaluated inside the page.

import { access } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { launch, serve } from "../../../testing/browser.mjs";
import { asciiJson, restoreResult } from "../browser/runner.mjs";

// The page is browser/index.html; its runner imports ../ops.mjs, so the whole of
// conformance/js/ is served.
const jsDir = fileURLToPath(new URL("../", import.meta.url));
const webDir = fileURLToPath(new URL("../../../bindings-wasm/pkg/web/", import.meta.url));

/** Serves the page and the web build, starts Chromium and waits for the module to load. */
export async function open() {
  try {
    await access(`${webDir}actionseal_wasm_bg.wasm`);
  } catch {
    throw new Error(`no web build in ${webDir} (run bindings-wasm/build.sh)`);
  }
  const server = await serve({ "/": jsDir, "/pkg/": webDir });
  let browser;
  try {
    browser = await launch();
    await browser.page.goto(`${server.origin}/browser/index.html`);
    await browser.page.waitForFunction(() => window.actionsealConformance !== undefined);
    await browser.page.evaluate(() => window.actionsealConformance.ready);
  } catch (err) {
    const detail = browser?.errors.join("\n") ?? "";
    await browser?.close();
    await server.close();
    throw new Error(`chromium engine did not start: ${err.message}\n${detail}`);
  }
  const { page, errors } = browser;
  return {
    async run(ops) {
      let out;
      try {
        out = await page.evaluate((json) => window.actionsealConformance.runJson(json), asciiJson(ops));
      } catch (err) {
        throw new Error(`${err.message}\n${errors.join("\n")}`);
      }
      return JSON.parse(out).map(restoreResult);
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
