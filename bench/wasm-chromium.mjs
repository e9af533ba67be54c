// Benchmark: actionseal-wasm in headless Chromium against npm `canonicalize` +
// `crypto.subtle.digest`, on bench/payloads/refund.json and 10k.json, in the same page; and
// the cost of the permit `check` of examples/refund in fingerprints of the same action; and
// `verifyEvidence` of the typical refund bundle (bench/payloads/evidence-refund.json, written
// by `cargo bench -p actionseal-bench --bench evidence -- --write-bundle PATH`; goal: at most
// 10 ms), against WebCrypto Ed25519 verifications of as many signatures; and `commitAction`
// of three sensitive values (bench/payloads/sensitive.json) against `action` without them
// (issue 29; goal: at most 1.5x), the same call over and over and distinct calls.
//
//   bindings-wasm/build.sh && node bench/wasm-chromium.mjs [--seconds 5] [--evidence | --sensitive]
//
// Prints a Markdown table of ops/s with the ratio to the baseline, and the size of the wasm;
// then the evidence table and the sensitive values' line (`--evidence`, `--sensitive`: that
// one alone).

import { readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { launch, serve } from "../testing/browser.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const secondsArg = process.argv.indexOf("--seconds");
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 5;
const payloads = ["refund.json", "items150.json", "10k.json"];
const evidenceOnly = process.argv.includes("--evidence");
const sensitiveOnly = process.argv.includes("--sensitive");

// The npm package is CommonJS; the page gets it as an ES module.
const npmFile = createRequire(import.meta.url).resolve("canonicalize");
const npmModule = `const module = { exports: {} };\n${await readFile(npmFile, "utf8")}\nexport default module.exports;\n`;

const wasmFile = here("../bindings-wasm/pkg/web/actionseal_wasm_bg.wasm");
const server = await serve(
  {
    "/": here("./wasm/"),
    "/pkg/": here("../bindings-wasm/pkg/web/"),
    "/payloads/": here("./payloads/"),
    "/refund/": here("../examples/refund/"),
  },
  { "/canonicalize.mjs": { type: "text/javascript", body: npmModule } },
);
let browser;
try {
  browser = await launch();
  const { page } = browser;
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => window.actionsealBench !== undefined);
  const version = await page.evaluate(() => navigator.userAgent.match(/Chrom(e|ium)\/[\d.]+/)?.[0]);
  const wasmBytes = (await stat(wasmFile)).size;
  const gzipBytes = (await import("node:zlib")).gzipSync(await readFile(wasmFile), { level: 9 }).length;
  console.log(`${version} headless; ${seconds}s per operation in 9 interleaved rounds`);
  console.log(`wasm: ${wasmBytes.toLocaleString("en")} bytes (${gzipBytes.toLocaleString("en")} gzipped)`);
  if (!evidenceOnly && !sensitiveOnly) {
    const rows = await page.evaluate(([p, s]) => window.actionsealBench.run(p, s), [payloads, seconds]);
    if (browser.errors.length > 0) throw new Error(browser.errors.join("\n"));
    console.log("ops/s: median over rounds; ratio: median over rounds of the ratio within a round (lowest–highest)");
    console.log("(refund check rows: the ratio is time per call over the time of one fingerprint(action))");
    console.log("| payload | operation | ops/s | ratio |");
    console.log("| --- | --- | ---: | ---: |");
    for (const r of rows) {
      const ratio = r.ratio === null ? "" : `${r.ratio.toFixed(2)}x (${r.spread[0].toFixed(2)}–${r.spread[1].toFixed(2)})`;
      console.log(`| ${r.payload} (${r.bytes} B) | ${r.op} | ${Math.round(r.ops).toLocaleString("en")} | ${ratio} |`);
    }
    console.log("");
  }
  const range = ([m, lo, hi], d) => `${m.toFixed(d)} (${lo.toFixed(d)}–${hi.toFixed(d)})`;
  if (!sensitiveOnly) {
    const e = await page.evaluate((s) => window.actionsealBench.evidence(s), seconds);
    if (browser.errors.length > 0) throw new Error(browser.errors.join("\n"));
    console.log("evidence: wall ms per call, median over rounds (lowest–highest round); ratio per round");
    console.log(`| bundle | wasm verifyEvidence ms | / ${e.signatures} WebCrypto Ed25519 verifications | goal |`);
    console.log("| --- | ---: | ---: | --- |");
    console.log(`| typical refund, witnessed (${e.bytes} B) | ${range(e.ms, 3)} | ${range(e.ratio, 2).replace(" ", "x ")} | at most 10 ms |`);
  }
  if (!evidenceOnly) {
    const s = await page.evaluate((s) => window.actionsealBench.sensitive(s), seconds);
    if (browser.errors.length > 0) throw new Error(browser.errors.join("\n"));
    const ops = (x) => Math.round(x).toLocaleString("en");
    const line = (what, r) => {
      const [m, lo, hi] = r.ratio.map((x) => x.toFixed(2));
      console.log(`sensitive values, ${what} (wall time): commitAction ${ops(r.ops[0])}/s, action ${ops(r.ops[1])}/s: **${m}x** (${lo}–${hi})`);
    };
    line("the same call", s);
    line("distinct calls", s.distinct);
  }
} catch (err) {
  console.error(err.message, ...(browser?.errors ?? []));
  process.exitCode = 1;
} finally {
  await browser?.close();
  await server.close();
}
