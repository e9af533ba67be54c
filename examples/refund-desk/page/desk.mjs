// The refund desk's page: the pending tasks from the approval server, one task's frozen action
// as the contract names its fields, the server's fingerprint beside the one this page computes
// in WebAssembly, the reviewer's correction (a ledger amendment) and decision, and the task's
// history from the ledger's audit. Display helpers come from the confirmation page.

import init, { Contract, fingerprint, parseJson, passkeyChallenge, shortFingerprint } from "/wasm/actionseal_wasm.js";
import { argumentRows, el, showDigest } from "/confirm/render.mjs";
import { assert as passkeyAssert, register as passkeyRegister } from "/page/passkey.mjs";

const $ = (id) => document.getElementById(id);
await init();

const TTL_NAMES = { 3000: "3 seconds (to watch it expire)", 300000: "5 minutes", 3600000: "1 hour" };
const WAITING = new Set(["awaiting_approval", "awaiting_reapproval"]);
const STATE_TEXT = {
  awaiting_approval: "Waiting for your decision.",
  awaiting_reapproval: "Awaiting re-approval: the earlier approval no longer holds (expired or revoked). Nothing was paid.",
  approved: "Approved; the executor dispatches it once the agent hands it over.",
  claimed: "Claimed by an executor; payment in progress.",
  succeeded: "Paid.",
  unknown: "Outcome in doubt: the executor asks the payment service (reconcile).",
  rejected: "Rejected.",
};

/** The server's JSON, read with actionseal's strict parser (one meaning only). */
async function api(path, body) {
  const r = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  return { status: r.status, body: parseJson(await r.text()) };
}

let selected = new URLSearchParams(location.search).get("task");
let shown = null; // the detail on screen: {task, events, handoffs, ...}
let force = false; // redraw the detail at the next refresh
const decisionIds = new Map(); // one decision_id per (approval round, digest): a double click is one decision

function digestCode(node, digest) {
  node.replaceChildren(showDigest(digest));
  node.dataset.digest = digest;
}

async function refreshList() {
  const { body } = await api("/api/tasks");
  $("reviewer").textContent = body.reviewer;
  $("load-status").textContent = body.tasks.length ? "" : "No tasks yet: start the agent.";
  const waiting = body.tasks.filter((t) => WAITING.has(t.state));
  const rest = body.tasks.filter((t) => !WAITING.has(t.state));
  $("tasks").replaceChildren(...[...waiting, ...rest].map((t) => {
    const b = el("button", t.id === selected ? "selected" : "",
      el("span", `tag ${t.state}`, t.state.replaceAll("_", " ")), " ",
      `${t.args.order_id} · ${t.args.amount_minor} ${t.args.currency}`, el("br"),
      el("code", "hint", t.short), " ", el("span", "hint", t.job_id));
    b.type = "button";
    b.dataset.taskId = t.id;
    b.dataset.state = t.state;
    b.addEventListener("click", () => { selected = t.id; shown = null; refreshDetail(); refreshList(); });
    return el("li", "", b);
  }));
}

function fact(term, value) {
  return [el("dt", "", term), el("dd", "", el("code", "", value))];
}

function historyItems(d) {
  const items = d.events.map((e) => ({ at: e.at, n: 0, e }));
  d.handoffs.forEach((h, i) => items.push({ at: h.at, n: 1, h, i }));
  items.sort((a, b) => a.at - b.at || a.n - b.n);
  return items.map(({ e, h }) => {
    if (h) {
      const li = el("li", "handoff", `${new Date(h.at).toISOString().slice(11, 19)} the agent handed over ${h.action.args.amount_minor} ${h.action.args.currency} · ${shortFingerprint(h.digest)}`);
      li.dataset.kind = "handoff";
      li.dataset.amount = String(h.action.args.amount_minor);
      li.dataset.digest = h.digest;
      return li;
    }
    const parts = [`${new Date(e.at).toISOString().slice(11, 19)} ${e.kind.replaceAll("_", " ")} by ${e.actor}`];
    if (e.action_digest) parts.push(` · ${shortFingerprint(e.action_digest)}`);
    if (e.kind === "tool_args_drift") parts.push(` refused, drift at ${e.drift.join(", ")}; approved ${shortFingerprint(e.approved_digest)}`);
    if (e.outcome) parts.push(` · ${e.outcome}`);
    if (e.reasons?.length) parts.push(` (${e.reasons.join(", ")})`);
    const li = el("li", e.kind === "tool_args_drift" ? "drift" : "", parts.join(""));
    li.dataset.kind = e.kind;
    if (e.action_digest) li.dataset.digest = e.action_digest;
    return li;
  });
}

async function refreshDetail() {
  if (!selected) return;
  const { status, body: d } = await api(`/api/tasks/${selected}`);
  if (status !== 200) return;
  const t = d.task;
  const same = shown && shown.task.updated_at === t.updated_at && shown.events.length === d.events.length &&
    shown.handoffs.length === d.handoffs.length;
  if (same && !force) return;
  force = false;
  shown = d;
  $("detail").hidden = false;
  $("d-tool").textContent = `${t.action.tool}: ${t.action.args.order_id}`;
  $("d-state").textContent = t.state.replaceAll("_", " ");
  $("d-state").className = `tag ${t.state}`;
  $("detail").dataset.state = t.state;
  $("detail").dataset.taskId = t.id;
  $("d-state-text").textContent = STATE_TEXT[t.state] ?? "";
  $("d-ids").replaceChildren(
    ...fact("tenant", t.action.tenant), ...fact("subject", t.action.subject), ...fact("policy", t.action.policy_version),
    ...fact("job · request", `${t.job_id} · ${t.request_id}`), ...fact("idempotency key", t.idempotency_key),
    ...(t.approval ? fact("approved by · until", `${t.approval.approver} · ${new Date(t.approval.expires_at).toISOString()}`) : []),
    ...(d.proof ? fact("proof", d.proof === "passkey" ? "the reviewer's passkey" : "signed by the approval server") : []),
  );
  $("d-args").replaceChildren(...argumentRows(t.action.args));
  // The contract decides whether this action may be approved at all.
  let valid = true;
  try {
    new Contract(d.contract).validateAction(t.action);
    $("d-contract-error").hidden = true;
  } catch (err) {
    valid = false;
    $("d-contract-error").hidden = false;
    $("d-contract-error").textContent = `${err.code} at ${err.path}: ${err.message}`;
  }
  const mine = fingerprint(t.action);
  digestCode($("fp-server"), t.action_digest);
  digestCode($("fp-page"), mine);
  $("fp-short").textContent = shortFingerprint(mine);
  const match = mine === t.action_digest;
  $("fp-match").textContent = match ? "same as the server's" : "DIFFERENT from the server's";
  $("fp-match").className = `tag ${match ? "ok" : "bad"}`;
  $("fp-match").dataset.match = String(match);
  const amended = t.proposed_digest !== t.action_digest;
  $("amended").hidden = !amended;
  if (amended) {
    digestCode($("fp-proposed"), fingerprint(t.proposed_action));
    digestCode($("fp-amended"), mine);
    $("proposed-args").textContent = `amount ${t.proposed_action.args.amount_minor}`;
    $("amended-args").textContent = `amount ${t.action.args.amount_minor}`;
  }
  const waiting = WAITING.has(t.state);
  $("decide").hidden = !waiting;
  $("approver").textContent = d.reviewer;
  if (waiting) {
    if (document.activeElement !== $("amount")) $("amount").value = String(t.action.args.amount_minor);
    if ($("ttl").options.length === 0) {
      $("ttl").replaceChildren(...d.ttls_ms.map((ms) => { const o = el("option", "", TTL_NAMES[ms] ?? `${ms} ms`); o.value = String(ms); return o; }));
      $("ttl").value = String(d.ttls_ms[d.ttls_ms.length - 1]);
    }
    $("approve").disabled = $("reject").disabled = !(valid && match);
    $("approve-passkey").disabled = !(valid && match && localStorage.getItem("desk-passkey"));
  }
  $("history").replaceChildren(...historyItems(d));
  document.body.dataset.state = "ready";
}

async function decide(decision, { passkey = false } = {}) {
  const t = shown.task;
  const digest = fingerprint(t.action); // what this page showed, recomputed here
  const round = `${t.approval_id}|${digest}`;
  if (!decisionIds.has(round)) decisionIds.set(round, crypto.randomUUID());
  const request = { decision_id: decisionIds.get(round), action_digest: digest, decision, ttl_ms: Number($("ttl").value) };
  if (passkey) {
    // The server drafts the record (its clock, its approval round); the page checks that it is
    // about the action shown, and the passkey signs the record's fingerprint.
    const draft = await api(`/api/tasks/${t.id}/draft`, request);
    if (draft.status !== 200) {
      $("decide-status").textContent = `refused: ${draft.body.error}`;
      return;
    }
    const record = draft.body.record;
    if (fingerprint(record.action) !== digest || record.action_digest !== digest) {
      $("decide-status").textContent = "refused: the server's draft is about another action";
      return;
    }
    request.passkey_record = await passkeyAssert(record, localStorage.getItem("desk-passkey"), passkeyChallenge);
  }
  const { status, body } = await api(`/api/tasks/${t.id}/decision`, request);
  $("decide-status").textContent = status === 200
    ? `${decision}${body.duplicate ? " (already recorded)" : ""}: ${shortFingerprint(digest)}`
    : `refused: ${body.error}`;
  $("decide-status").dataset.result = status === 200 ? decision : body.error;
  force = true;
  await refreshDetail();
  await refreshList();
}

$("approve").addEventListener("click", () => decide("approved"));
$("approve-passkey").addEventListener("click", () => decide("approved", { passkey: true }).catch((err) => {
  $("decide-status").textContent = `passkey approval failed: ${err.message}`;
}));
$("register-passkey").addEventListener("click", async () => {
  try {
    const cred = await passkeyRegister(api);
    localStorage.setItem("desk-passkey", cred.credential_id);
    $("passkey-status").textContent = `passkey ${cred.credential_id.slice(0, 12)}… (${cred.algorithm}) enrolled for ${cred.approver}`;
    $("passkey-status").dataset.registered = cred.credential_id;
    force = true;
    await refreshDetail();
  } catch (err) {
    $("passkey-status").textContent = `registration failed: ${err.message}`;
  }
});
if (localStorage.getItem("desk-passkey")) $("passkey-status").textContent = "a passkey is enrolled for this reviewer";
$("reject").addEventListener("click", () => decide("rejected"));
$("save-correction").addEventListener("click", async () => {
  const t = shown.task;
  const amount = Number($("amount").value);
  const { status, body } = await api(`/api/tasks/${t.id}/amend`, {
    amends: t.action_digest, args: { ...t.action.args, amount_minor: amount }, reason: "the reviewer corrected the amount",
  });
  $("decide-status").textContent = status === 200 ? `corrected to ${amount}` : `correction refused: ${body.error}`;
  $("decide-status").dataset.result = status === 200 ? "amended" : body.error;
  force = true;
  $("amount").blur();
  await refreshDetail();
  await refreshList();
});

async function tick() {
  try {
    await refreshList();
    await refreshDetail();
  } catch (err) {
    $("load-status").textContent = `The server did not answer: ${err.message}`;
  }
  setTimeout(tick, 500);
}
tick();
