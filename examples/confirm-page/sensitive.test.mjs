// The page's view of sensitive values (sensitive.mjs), in Node with the addon's Contract,
// commitAction and revealAction (the pages use the wasm package's, the same core):
// `node --test examples/confirm-page/sensitive.test.mjs`.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { masked, revealForReview, sensitivePlaces } from "./sensitive.mjs";

const repo = join(fileURLToPath(import.meta.url), "..", "..", "..");
const { Contract, commitAction, revealAction } = createRequire(import.meta.url)(join(repo, "bindings-node", "index.js"));

const DOC = {
  tool: "refund_receipt", version: "1", effect: "write", cost_minor: 25,
  approval: { when: [{ pointer: "/amount_minor", op: "gt", value: 1000 }] },
  args: {
    type: "object", additionalProperties: false, required: ["order_id", "amount_minor", "customer_email"],
    properties: {
      order_id: { type: "string" }, amount_minor: { type: "integer", minimum: 1 },
      customer_email: { type: "string", minLength: 3 },
      cc: { type: "array", items: { type: "object", properties: { email: { type: "string" } } } },
    },
  },
  sensitive: { "/args/customer_email": "pii", "/args/cc/*/email": "pii" },
};
const SD = (c) => ({ _sd: `sha256:${c.repeat(64)}` });
const action = (args) => ({ tool: "refund_receipt", args });

test("each committed place is found, with its class and commitment; an array's by index", () => {
  const committed = action({ order_id: "order-17", amount_minor: 2500, customer_email: SD("a"), cc: [{ email: SD("b") }, { email: SD("c") }] });
  assert.deepEqual(sensitivePlaces(DOC, committed).map((p) => [p.pointer, p.class, p.commitment, p.disclosed]), [
    ["/args/customer_email", "pii", `sha256:${"a".repeat(64)}`, false],
    ["/args/cc/0/email", "pii", `sha256:${"b".repeat(64)}`, false],
    ["/args/cc/1/email", "pii", `sha256:${"c".repeat(64)}`, false],
  ]);
  // Disclosed at one place: its value, the others still committed.
  const revealed = action({ ...committed.args, cc: [{ email: "bob@example.com" }, { email: SD("c") }] });
  assert.deepEqual(sensitivePlaces(DOC, committed, revealed).map((p) => [p.pointer, p.disclosed, p.value]), [
    ["/args/customer_email", false, undefined], ["/args/cc/0/email", true, "bob@example.com"], ["/args/cc/1/email", false, undefined],
  ]);
});

test("the page's judge (core's reviewAction) holds a commitment back, never anything else; the rule still reads the rest", () => {
  const contract = new Contract(DOC);
  const ids = { tenant: "tenant-a", subject: "user:alice", job_id: "job-1", request_id: "call_refund", policy_version: "p1" };
  const frozen = commitAction(contract, { order_id: "order-17", amount_minor: 2500, customer_email: "alice@example.com", cc: [{ email: "bob@example.com" }] }, ids).action;
  const at = (args) => ({ ...frozen, args: { ...frozen.args, ...args } });
  assert.throws(() => contract.validateAction(frozen), (e) => e.code === "type_mismatch", "a proposal's validation refuses it");
  assert.deepEqual(contract.reviewAction(frozen), { required: true, rule: "/approval/when/0" });
  contract.reviewAction(at({ customer_email: "alice@example.com" })); // disclosed: the value's own schema
  for (const bad of [{ _sd: "sha256:00" }, { _sd: `sha256:${"a".repeat(64)}`, x: 1 }, "ab", 7]) {
    assert.throws(() => contract.reviewAction(at({ customer_email: bad })), (e) => e.path === "/args/customer_email");
  }
  assert.throws(() => contract.reviewAction(at({ amount_minor: 0 })), (e) => e.code === "out_of_range");
  assert.throws(() => contract.reviewAction(at({ order_id: SD("a") })), (e) => e.path === "/args/order_id", "not a sensitive place");
});

test("a disclosure that does not open its commitment is an error, and nothing is revealed", () => {
  const committed = action({ customer_email: SD("a") });
  const refuse = () => { throw Object.assign(new Error("no"), { code: "disclosure_mismatch", path: "/0" }); };
  assert.deepEqual(revealForReview(refuse, null, committed, ["x"]), {
    action: committed, error: { code: "disclosure_mismatch", path: "/0", message: "no" },
  });
  const open = (_c, a, d, coverage) => ({ ...a, args: { customer_email: `${coverage}:${d[0]}` } });
  assert.deepEqual(revealForReview(open, null, committed, ["d"]).action.args, { customer_email: "given:d" });
  assert.equal(revealForReview(refuse, null, committed, []).action, committed, "no disclosure: nothing to check");
});

test("disclosures from the ledger's commit open their commitments; another task's is an error and shows nothing", () => {
  const contract = new Contract(DOC);
  const ids = { tenant: "tenant-a", subject: "user:alice", job_id: "job-1", request_id: "call_refund", policy_version: "p1" };
  const args = { order_id: "order-17", amount_minor: 2500, customer_email: "alice@example.com", cc: [{ email: "bob@example.com" }] };
  const mine = commitAction(contract, args, ids);
  const other = commitAction(contract, args, { ...ids, job_id: "job-2" });
  assert.equal(mine.disclosures.length, 2);
  const opened = revealForReview(revealAction, contract, mine.action, mine.disclosures);
  assert.equal(opened.error, null);
  assert.deepEqual(opened.action.args, args);
  assert.deepEqual(sensitivePlaces(DOC, mine.action, opened.action).map((p) => [p.pointer, p.disclosed, p.value]), [
    ["/args/customer_email", true, "alice@example.com"], ["/args/cc/0/email", true, "bob@example.com"],
  ]);
  // One given: the other place stays committed ("given" coverage).
  const of = (c, pointer) => c.disclosures.filter((d) => JSON.parse(Buffer.from(d, "base64url"))[1] === pointer);
  const one = revealForReview(revealAction, contract, mine.action, of(mine, "/args/customer_email"));
  assert.deepEqual(sensitivePlaces(DOC, mine.action, one.action).map((p) => p.disclosed), [true, false]);
  // The same value in another task has another salt: its disclosure does not open this commitment.
  const wrong = revealForReview(revealAction, contract, mine.action, of(other, "/args/customer_email"));
  assert.equal(wrong.error.code, "disclosure_mismatch");
  assert.equal(wrong.action, mine.action, "nothing revealed");
  assert.ok(!JSON.stringify(wrong.error).includes("alice"), "no value in the error");
});

test("a log's copy of the arguments masks every sensitive place, an array's each element too", () => {
  const args = { order_id: "o-1", amount_minor: 2500, customer_email: "erin@example.com", cc: [{ email: "a@example.com" }, {}] };
  assert.deepEqual(masked(DOC, args), {
    order_id: "o-1", amount_minor: 2500, customer_email: "(sensitive)", cc: [{ email: "(sensitive)" }, {}],
  });
  assert.equal(args.customer_email, "erin@example.com", "the arguments themselves are left alone");
  assert.deepEqual(masked({ ...DOC, sensitive: undefined }, args), args);
});
