// The desk's batch review (page/batch.mjs) in headless Chromium, on twenty refunds of one
// batch: every item is a row, the values that differ from the first item are highlighted, the
// totals stand beside the caps, the fingerprint the page computes in WebAssembly is the server's;
// two rows deselected with the keyboard give another fingerprint, the one Node computes for the
// remainder, and Approve hands over exactly that one with the proposed one beside it. A claimed
// fingerprint that is not the page's refuses the batch, and so does a batch over a cap (core's
// `batch_cap_exceeded`): nothing can be approved. (batch-review.png is the desk's real flow: headless.mjs.)
//
//   node --test examples/refund-desk/batch-review.test.mjs   (after bindings-wasm/build.sh)

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { launch, serve } from "../../testing/browser.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const wasm = createRequire(import.meta.url)(join(repo, "bindings-wasm", "pkg", "node", "actionseal_wasm.js"));

// The desk's refund contract with a batch policy (desk/refunds.py's refund_create, by hand).
const CONTRACT = {
  tool: "refund_create", version: "1", effect: "write", cost_minor: 25,
  args: {
    type: "object",
    properties: {
      order_id: { type: "string" },
      amount_minor: { type: "integer", minimum: 1 },
      currency: { type: "string", enum: ["USD", "EUR", "CNY"] },
    },
    required: ["order_id", "amount_minor", "currency"],
    additionalProperties: false,
  },
  approval: { when: [{ pointer: "/amount_minor", op: "gt", value: 1000 }] },
  batch: {
    max_items: 50,
    caps: { count: 50, sum: { pointer: "/args/amount_minor", max: 100000 }, distinct: { pointer: "/args/order_id", max: 50 } },
    breaker: { max_failures: 3, window_ms: 600000, close_after: 5 },
  },
};
const digest = new wasm.Contract(CONTRACT).digest;
// Twenty refunds after an outage: mostly 2500 USD; item 8 is 9900, item 15 is in EUR.
const ACTIONS = Array.from({ length: 20 }, (_, i) => ({
  tenant: "tenant-a", subject: "user:alice", tool: "refund_create", contract: digest,
  args: { order_id: `order-${101 + i}`, amount_minor: i === 7 ? 9900 : 2500, currency: i === 14 ? "EUR" : "USD" },
  job_id: "outage-2026-12-04", request_id: `refund-${i + 1}`, policy_version: "refund-policy-2026-08-01",
}));
const SUM = ACTIONS.reduce((s, a) => s + a.args.amount_minor, 0);

// The harness: the desk's page modules as the server mounts them, and a page that draws one
// request (named by its URL's query) and keeps what Approve and Reject hand over.
const HARNESS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>batch review</title>
<link rel="stylesheet" href="/page/desk.css"></head><body><main style="display:block">
<section id="batch" aria-labelledby="b-title"></section></main>
<script type="module">
import init, { batchBuild, batchDeselect, notices } from "/wasm/actionseal_wasm.js";
import { useCore } from "/confirm-page/render.mjs";
import { showBatch } from "/page/batch.mjs";
await init();
useCore({ notices });
window.decisions = [];
const request = await (await fetch("/request/" + new URLSearchParams(location.search).get("r"))).json();
showBatch(document.getElementById("batch"), request, { batchBuild, batchDeselect }, { onDecide: (d) => window.decisions.push(d) });
document.body.dataset.ready = "1";
</script></body></html>`;

const requests = {
  proposed: { contract: CONTRACT, semantics: "per_item", actions: ACTIONS, claimed: wasm.batchBuild(CONTRACT, "per_item", ACTIONS, null).batch_digest },
  tampered: { contract: CONTRACT, semantics: "per_item", actions: ACTIONS, claimed: wasm.batchBuild(CONTRACT, "per_item", ACTIONS.slice(1), null).batch_digest },
  // The desk's own policy narrows the sum below these twenty refunds' total.
  "over-cap": { contract: CONTRACT, semantics: "per_item", actions: ACTIONS, server: { max_items: 50, caps: { sum: { pointer: "/args/amount_minor", max: SUM - 1 } } } },
};
const json = (v) => ({ type: "application/json", body: JSON.stringify(v) });

let site;
let browser;
before(async () => {
  site = await serve(
    { "/page/": join(here, "page"), "/confirm-page/": join(repo, "examples", "confirm-page"), "/wasm/": join(repo, "bindings-wasm", "pkg", "web") },
    { "/": { type: "text/html; charset=utf-8", body: HARNESS }, ...Object.fromEntries(Object.entries(requests).map(([k, v]) => [`/request/${k}`, json(v)])) },
  );
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

async function open(name) {
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${site.origin}/?r=${name}`);
  await page.waitForSelector("body[data-ready='1']");
  return page;
}

test("every item is a row, what differs from item 1 is highlighted, the fingerprints agree", async () => {
  const page = await open("proposed");
  assert.equal(await page.locator("table.items tbody tr").count(), 20);
  // Item 1 varies from itself in nothing; every other in its order id, item 8 also in its amount, item 15 in its currency.
  const changed = await page.$$eval("table.items tbody tr", (rows) => rows.map((r) => [...r.querySelectorAll("td.changed")].map((td) => td.cellIndex)));
  const headings = await page.$$eval("table.items thead th", (ths) => ths.map((th) => th.textContent));
  const named = changed.map((cells) => cells.map((i) => headings[i]));
  assert.deepEqual(named[0], []);
  assert.deepEqual(named[1], ["order_id"]);
  assert.deepEqual(named[7], ["order_id", "amount_minor"]);
  assert.deepEqual(named[14], ["order_id", "currency"]);
  assert.match(await page.locator("table.items tbody tr").nth(7).innerText(), /differs from item 1/);
  // Shown once above the table: what every item shares.
  assert.match(await page.locator("#batch dl.facts").first().innerText(), /tenant \(every item\)\s+tenant-a\s/);
  const caps = await page.$$eval("table.caps tbody tr", (rows) => rows.map((r) => r.innerText.split("\t")));
  assert.deepEqual(caps, [["items", "20", "50"], ["sum of /args/amount_minor", String(SUM), "100000"], ["distinct /args/order_id", "20", "50"]]);
  const digests = await page.$$eval("#batch dl.fps code.digest", (codes) => codes.map((c) => c.dataset.digest));
  assert.deepEqual(digests, [requests.proposed.claimed, requests.proposed.claimed]);
  assert.equal(await page.locator("#batch .tag.ok").innerText(), "match");
});

test("two rows deselected with the keyboard: another batch, Approve binds the remainder", async () => {
  const page = await open("proposed");
  for (const n of [3, 8]) {
    await page.getByRole("checkbox", { name: `Include item ${n}`, exact: true }).focus();
    await page.keyboard.press("Space");
  }
  const remainder = wasm.batchDeselect(CONTRACT, "per_item", ACTIONS, [2, 7], null);
  assert.notEqual(remainder.batch_digest, requests.proposed.claimed);
  assert.equal(remainder.proposed_digest, requests.proposed.claimed);
  const digests = await page.$$eval("#batch dl.fps code.digest", (codes) => codes.map((c) => c.dataset.digest));
  assert.deepEqual(digests, [requests.proposed.claimed, requests.proposed.claimed, remainder.batch_digest]);
  assert.match(await page.locator("#batch dl.fps").innerText(), /What you decide \(18 of 20\)/);
  assert.match(await page.getByRole("status").innerText(), /Item 8 left out\. You decide on 18 items/);
  const caps = await page.$$eval("table.caps tbody tr", (rows) => rows.map((r) => r.innerText.split("\t")[1]));
  assert.deepEqual(caps, ["18", String(SUM - 2500 - 9900), "18"]);
  await page.getByRole("button", { name: "Approve the batch" }).click();
  assert.deepEqual(await page.evaluate(() => window.decisions), [
    { decision: "approved", batch_digest: remainder.batch_digest, proposed_digest: requests.proposed.claimed, deselected: [2, 7] },
  ]);
  // Included again: the proposed batch once more.
  await page.getByRole("checkbox", { name: "Include item 3", exact: true }).check();
  await page.getByRole("checkbox", { name: "Include item 8", exact: true }).check();
  assert.equal(await page.locator("#batch").getAttribute("data-digest"), requests.proposed.claimed);
  await page.getByRole("button", { name: "Reject the batch" }).click();
  assert.deepEqual((await page.evaluate(() => window.decisions))[1],
    { decision: "rejected", batch_digest: requests.proposed.claimed, proposed_digest: requests.proposed.claimed, deselected: [] });
});

test("a claimed fingerprint that is not the page's refuses the batch", async () => {
  const page = await open("tampered");
  assert.match(await page.getByRole("alert").innerText(), /not the one this page computes/);
  assert.equal(await page.locator("#batch .tag.bad").innerText(), "mismatch");
  assert.ok(await page.getByRole("button", { name: "Approve the batch" }).isDisabled());
  assert.ok(await page.getByRole("checkbox", { name: "Include item 1", exact: true }).isDisabled());
});

test("a batch over a cap is refused with core's code, nothing approvable", async () => {
  const page = await open("over-cap");
  assert.match(await page.getByRole("alert").innerText(), /batch_cap_exceeded/);
  assert.ok(await page.getByRole("button", { name: "Approve the batch" }).isDisabled());
  assert.equal(await page.locator("table.caps tbody tr").count(), 0);
  assert.deepEqual(browser.errors, []);
});
