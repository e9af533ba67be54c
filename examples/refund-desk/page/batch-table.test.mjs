// The batch review's table model (batch-table.mjs), in Node: `node --test examples/refund-desk/page/`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { batchTable, capRows, leaves } from "./batch-table.mjs";

const refund = (i, args, extra = {}) => ({
  tenant: "tenant-a", subject: "user:alice", tool: "refund_create", contract: "sha256:c0",
  args: { order_id: `order-${i}`, amount_minor: 2500, currency: "USD", ...args },
  job_id: "job-1", request_id: `r-${i}`, policy_version: "p1", ...extra,
});

test("leaves are addressed by RFC 6901 pointers", () => {
  assert.deepEqual([...leaves({ "a/b": { "c~d": [1, {}] }, e: null })],
    [["/a~1b/c~0d/0", 1], ["/a~1b/c~0d/1", {}], ["/e", null]]);
});

test("an item's values that differ from the first item's are marked, identity never", () => {
  const t = batchTable([refund(1, {}), refund(2, { amount_minor: 2500 }), refund(3, { amount_minor: 250000 }),
    refund(4, { currency: "EUR" }, { subject: "user:mallory" })]);
  assert.deepEqual(t.columns, ["/args/order_id", "/args/amount_minor", "/args/currency", "/subject", "/job_id", "/request_id"]);
  assert.deepEqual(t.common.map(([p]) => p), ["/tenant", "/tool", "/contract", "/policy_version"]);
  assert.deepEqual(t.rows.map((r) => [...r.changed]), [
    [], ["/args/order_id"], ["/args/order_id", "/args/amount_minor"],
    ["/args/order_id", "/args/currency", "/subject"],
  ]);
  assert.equal(t.rows[2].cells.get("/args/amount_minor"), 250000);
});

test("a missing value, a value of another type and null are changes", () => {
  const a = refund(1, {});
  const missing = refund(2, {}); delete missing.args.currency;
  const typed = refund(3, { amount_minor: "2500" });
  const nulled = refund(4, { currency: null });
  const t = batchTable([a, missing, typed, nulled]);
  assert.ok(t.rows[1].changed.has("/args/currency"));
  assert.equal(t.rows[1].cells.get("/args/currency"), undefined);
  assert.ok(t.rows[2].changed.has("/args/amount_minor"));
  assert.ok(t.rows[3].changed.has("/args/currency"));
});

test("an array and an object with the same leaves are a change, and a key with / is its own column", () => {
  // ["admin"] and {"0": "admin"} both have the leaf /args/tags/0 = "admin".
  const t = batchTable([refund(1, { tags: ["admin"], limits: { max: 10 } }),
    refund(2, { tags: { 0: "admin" }, "limits/max": 5000 })]);
  assert.ok(t.rows[1].changed.has("/args/tags/0"), "the container's kind changed");
  assert.ok(!t.rows[0].changed.has("/args/tags/0"));
  assert.ok(t.columns.includes("/args/limits/max") && t.columns.includes("/args/limits~1max"));
  assert.ok(t.rows[1].changed.has("/args/limits~1max") && t.rows[1].changed.has("/args/limits/max"));
});

test("an argument only a later item has is a column, changed there", () => {
  const t = batchTable([refund(1, {}), refund(2, { note: "x" })]);
  assert.ok(t.columns.includes("/args/note"));
  assert.ok(t.rows[1].changed.has("/args/note"));
});

test("the caps' rows come from core's result, only the caps the contract sets", () => {
  const built = { caps: { count: 50, sum: { pointer: "/args/amount_minor", max: 500000 } }, totals: { count: 20, sum: 50000 } };
  assert.deepEqual(capRows(built), [
    { cap: "count", words: "items", total: 20, max: 50 },
    { cap: "sum", words: "sum of /args/amount_minor", total: 50000, max: 500000 },
  ]);
  assert.deepEqual(capRows({ caps: {}, totals: { count: 3 } }), []);
});
