// The refund desk's page. After the reviewer signs in: the tenant's tasks from the approval
// server, and for one task what the reviewer decides on (review.mjs: why a person is asked,
// the resource, a summary, the cost and the side effects, from the frozen action and its
// contract; the model's own words set apart), every argument as the contract names it (the
// confirmation page's render.mjs), the server's fingerprint beside the one this page computes
// in WebAssembly, a correction of the amount (a ledger amendment, checked here first with
// core's `amend`), the decision, and the task's history (history.mjs). Values that hold
// characters a reader could miss or misread (core's `notices`) are flagged wherever they
// appear, and approving them needs an acknowledgement, which the server checks too. Under a
// quorum (issue 25) the task's approvals so far are drawn by the confirmation page's
// quorum.mjs, and a reviewer may decide for someone who delegated to them at this desk.
// Nothing here polls: the list and the open task are read again when the server's event stream
// (Server-Sent Events, /api/events) says a task changed, and once each time it (re)connects.

import init, { Contract, amend, fingerprint, notices, parseJson, passkeyChallenge, revealAction, shortFingerprint } from "/wasm/actionseal_wasm.js";
import { argumentRows, contractFacts, el, fact, showDigest, showString, useCore, valueAt } from "/confirm-page/render.mjs";
import { showQuorum } from "/confirm-page/quorum.mjs";
import { api, refusal, useSession } from "/page/api.mjs";
import { closeBatch, refreshBatches } from "/page/batches.mjs";
import { historyItems } from "/page/history.mjs";
import { showTasks } from "/page/list.mjs";
import { assert as passkeyAssert, register as passkeyRegister } from "/page/passkey.mjs";
import { flagBadge, flagsOf, oneLine, reviewFacts } from "/page/review.mjs";
import { markSensitiveRows, revealForReview, sensitivePlaces, showSensitive } from "/confirm-page/sensitive.mjs";

const $ = (id) => document.getElementById(id);
await init();
useCore({ notices });

const TTL_NAMES = { 3000: "3 seconds (to watch it expire)", 300000: "5 minutes", 3600000: "1 hour" };
const WAITING = new Set(["awaiting_approval", "awaiting_reapproval"]);
const STATE_TEXT = {
  awaiting_approval: "Waiting for your decision.",
  awaiting_reapproval: "Awaiting re-approval: the earlier approval no longer holds (expired or revoked). Nothing was paid.",
  approved: "Approved; the executor dispatches it once the agent hands it over.",
  claimed: "Claimed by an executor; payment in progress.",
  succeeded: "Paid.",
  failed: "The payment failed.",
  unknown: "Outcome in doubt: the executor asks the payment service (reconcile).",
  rejected: "Rejected: nothing will be paid.",
  rejected_pre_dispatch: "Rejected before dispatch: nothing was paid.",
};
const iso = (ms) => new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");

let selected = new URLSearchParams(location.search).get("task");
let shown = null; // the detail on screen: {task, events, handoffs, decisions, ...}
let contract = null; // its Contract (WebAssembly)
let flags = []; // its flagged values: [{pointer, notes}]
let checks = { valid: false, match: false };
let amountFor = ""; // the task and digest whose amount the input was last set from
let force = false; // redraw the detail at the next refresh
let events = null; // the server's event stream while signed in
let refreshing = null; // the refresh under way, if one is
let again = false; // something changed during it: refresh once more after it
const stated = new Map(); // task id -> the state last announced (or reached by the reviewer's own action)
const decisionIds = new Map(); // one decision_id per (approval round, digest): a double click is one decision

/** Says `text` in the status line, which screen readers announce (role="status"). */
function say(text, result) {
  $("decide-status").textContent = text;
  if (result !== undefined) $("decide-status").dataset.result = result;
}

// ---------------------------------------------------------------------------------------------
// Signing in

function signedIn(session) {
  useSession(session.csrf);
  $("reviewer").textContent = session.reviewer;
  $("who").hidden = false;
  $("sign-in").hidden = true;
  $("main").hidden = false;
  document.body.dataset.session = "in";
  showDelegations();
  listen();
}

/**
 * Opens the event stream: `ready` when it (re)connects (the browser reconnects by itself and
 * sends the last event's id, the ledger's cursor, so the server resumes after it), `change`
 * for a change of a task in the ledger, `desk` for a record the desk filed about one.
 */
function listen() {
  events?.close();
  events = new EventSource("/api/events");
  for (const type of ["ready", "change", "desk"]) events.addEventListener(type, refresh);
  events.addEventListener("error", () => {
    // A closed stream is not retried (the session ended, say): ask once, which signs out on 401.
    if (events?.readyState === EventSource.CLOSED) refresh();
  });
}

/** Reads the list and the open task again; changes during a refresh cause one more. */
async function refresh() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      again = false;
      try {
        await refreshList();
        await refreshDetail();
        await refreshBatches({ onOpen: batchOpened });
      } catch (err) {
        $("load-status").textContent = `The server did not answer: ${err.message}`;
      }
    } while (again && events);
  })();
  await refreshing;
  refreshing = null;
}

function signedOut() {
  events?.close();
  events = null;
  useSession("");
  shown = null;
  $("who").hidden = true;
  $("main").hidden = true;
  $("sign-in").hidden = false;
  document.body.dataset.session = "out";
  document.body.dataset.state = "signed-out";
  $("secret").focus();
}

$("sign-in-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const { status, body } = await api("/api/session", { secret: $("secret").value });
  if (status !== 200) {
    $("sign-in-status").hidden = false;
    $("sign-in-status").textContent = `Not signed in: ${refusal(body)}`;
    $("secret").setAttribute("aria-invalid", "true");
    $("secret").focus();
    return;
  }
  $("secret").value = "";
  $("secret").removeAttribute("aria-invalid");
  $("sign-in-status").hidden = true;
  signedIn(body);
});
$("sign-out").addEventListener("click", async () => {
  await api("/api/session/end", {});
  signedOut();
});

// ---------------------------------------------------------------------------------------------
// Tasks

function open(id) {
  closeBatch();
  selected = id;
  shown = null;
  history.replaceState(null, "", `?task=${encodeURIComponent(id)}`);
  refreshDetail({ focus: true }).then(refreshList);
}

/** A batch opened in place of the task. */
function batchOpened() {
  selected = null;
  shown = null;
  $("detail").hidden = true;
  history.replaceState(null, "", location.pathname);
}

async function refreshList() {
  const { status, body } = await api("/api/tasks");
  if (status === 401) return signedOut();
  $("load-status").textContent = body.tasks.length ? "" : "No tasks yet: start the agent.";
  showTasks($("tasks"), body.tasks, selected, { notices, open });
}

function digestCode(node, digest) {
  node.replaceChildren(showDigest(digest));
  node.dataset.digest = digest;
}

/** The resource's value in the heading, flagged when core notices something in the action. */
function heading(t, review) {
  const resource = review ? valueAt(t.action.args, review.resource) : undefined;
  return [`${t.action.tool}`, ...(typeof resource === "string" ? [": ", showString(resource).node] : []),
    ...(flags.length ? [" ", flagBadge(flags)] : [])];
}

function decidedFacts(d) {
  const t = d.task;
  const a = t.approval;
  if (!a) return [];
  const desk = d.decisions.find((x) => x.decision_id === a.decision_id);
  const who = [showString(a.approver).node, ` at ${iso(a.decided_at)}`];
  if (a.decision === "rejected") {
    return [
      ...fact("Decision", el("span", "tag rejected", "rejected"), " by ", ...who),
      ...fact("Reason", desk?.reason ? showString(desk.reason, { quotes: false }).node : el("span", "missing", "not recorded by this desk")),
    ];
  }
  return [
    ...fact("Decision", el("span", "tag ok", "approved"), " by ", ...who),
    ...fact("Valid until", iso(a.expires_at)),
    ...(desk?.acknowledged.length ? fact("Acknowledged", `the flagged values at ${desk.acknowledged.join(", ")}`) : []),
    ...(d.proof ? fact("Proof", d.proof === "passkey" ? "the reviewer's passkey" : "signed by the approval server") : []),
  ];
}

async function refreshDetail({ focus = false } = {}) {
  if (!selected) return;
  const { status, body: d } = await api(`/api/tasks/${encodeURIComponent(selected)}`);
  if (status === 401) return signedOut();
  if (status !== 200) {
    say(`Task ${selected}: ${refusal(d)}`);
    return;
  }
  const t = d.task;
  const same = shown && shown.task.id === t.id && shown.task.updated_at === t.updated_at &&
    shown.events.length === d.events.length && shown.handoffs.length === d.handoffs.length &&
    shown.decisions.length === d.decisions.length && shown.rationale?.at === d.rationale?.at;
  if (same && !force) return;
  const before = shown;
  force = false;
  shown = d;
  contract?.free();
  contract = new Contract(d.contract);
  flags = flagsOf(notices(t.action));
  const review = d.review;

  $("detail").hidden = false;
  $("detail").dataset.state = t.state;
  $("detail").dataset.taskId = t.id;
  $("detail").dataset.flagged = String(flags.length > 0);
  $("d-heading").replaceChildren(...heading(t, review));
  $("d-state").textContent = t.state.replaceAll("_", " ");
  $("d-state").className = `tag ${t.state}`;
  $("d-state-text").textContent = STATE_TEXT[t.state] ?? "";
  if (before && before.task.id === t.id && stated.get(t.id) !== t.state) {
    say(`${t.action.tool} ${t.id}: ${STATE_TEXT[t.state] ?? t.state}`);
  }
  stated.set(t.id, t.state);

  const waiting = WAITING.has(t.state);
  $("d-review-title").textContent = waiting ? "What you are asked to decide" : "What was decided";
  $("d-flags").hidden = flags.length === 0;
  $("d-flags").replaceChildren(
    el("p", "", el("strong", "", "⚠ Check these values character by character."),
      " They hold characters you may not see, or may take for others; the executor pays exactly what is there.",
      waiting ? " Approving them needs your acknowledgement." : ""),
    el("ul", "", ...flags.map((f) => el("li", "", el("code", "", f.pointer), ": ", f.notes.join(", ")))),
  );

  // Sensitive values (issue 29): the frozen action holds commitments; the values the server
  // discloses are checked here against them before they are shown.
  const opened = revealForReview(revealAction, contract, t.action, d.disclosures ?? []);
  const places = sensitivePlaces(d.contract, t.action, opened.action);
  showSensitive($("d-sensitive"), $("d-sensitive-list"), places, opened.error, d.shredded);
  // What a correction edits: the action in the clear, once every value is disclosed and
  // checked (the ledger amends a sensitive action sent in the clear).
  d.clear = opened.error || places.some((p) => !p.disclosed) ? null : opened.action;

  // The contract decides whether this action may be approved at all, and why it needs a person.
  // A value still committed is held back (core's reviewAction): the ledger validated it in the
  // clear when it was proposed; every other value is validated as it is.
  let requirement = null;
  try {
    if (opened.error) throw opened.error;
    requirement = contract.reviewAction(opened.action);
    $("d-contract-error").hidden = true;
  } catch (err) {
    $("d-contract-error").hidden = false;
    $("d-contract-error").textContent = `${err.code} at ${err.path}: ${err.message}`;
  }
  $("d-review").replaceChildren(...(requirement ? reviewFacts(opened.action, contract, review, requirement) : []));
  $("d-rationale").hidden = !d.rationale;
  if (d.rationale) $("d-rationale-text").replaceChildren(showString(d.rationale.text, { quotes: false }).node);
  // The quorum value is the ledger's; the page draws it only when it agrees with the contract.
  showQuorum($("quorum"), t.quorum == null ? {} : { quorum: t.quorum }, contract);
  $("d-decided").hidden = !t.approval || t.quorum != null;
  $("d-decided").replaceChildren(...decidedFacts(d));
  $("d-decided").dataset.decision = t.approval?.decision ?? "";

  $("d-args").replaceChildren(...argumentRows(opened.action.args));
  markSensitiveRows($("d-args"), places);
  $("d-contract").replaceChildren(...contractFacts(contract));
  $("d-ids").replaceChildren(
    ...fact("tenant · subject", showString(t.action.tenant).node, " · ", showString(t.action.subject).node),
    ...fact("policy", showString(t.action.policy_version).node),
    ...fact("job · request", el("code", "", `${t.job_id} · ${t.request_id}`)),
    ...fact("idempotency key", el("code", "", t.idempotency_key)),
  );

  const mine = fingerprint(t.action);
  digestCode($("fp-server"), t.action_digest);
  digestCode($("fp-page"), mine);
  $("fp-short").textContent = shortFingerprint(mine);
  const match = mine === t.action_digest;
  $("fp-match").textContent = match ? "same as the server's" : "DIFFERENT from the server's";
  $("fp-match").className = `tag ${match ? "ok" : "bad"}`;
  $("fp-match").dataset.match = String(match);
  checks = { valid: requirement !== null, match };
  const amended = t.proposed_digest !== t.action_digest;
  $("amended").hidden = !amended;
  if (amended) {
    const proposedFlags = flagsOf(notices(t.proposed_action));
    digestCode($("fp-proposed"), fingerprint(t.proposed_action));
    digestCode($("fp-amended"), mine);
    $("proposed-args").replaceChildren(...oneLine(t.proposed_action, review), ...(proposedFlags.length ? [" ", flagBadge(proposedFlags)] : []));
    $("amended-args").replaceChildren(...oneLine(t.action, review), ...(flags.length ? [" ", flagBadge(flags)] : []));
  }

  $("decide").hidden = !waiting;
  // A correction needs every value in the clear: the ledger amends a sensitive action sent so.
  $("correction").hidden = d.clear === null;
  $("approver").textContent = d.reviewer;
  $("approver-roles").textContent = d.roles.length ? `(${d.roles.join(", ")})` : "(no role)";
  // Whom this reviewer may decide for: delegations the desk recorded (its fact, not the page's).
  const behalf = [["", `as yourself${d.roles.length ? ` (${d.roles.join(", ")})` : ""}`],
    ...d.on_behalf.map((who) => [who, `for ${who}, by you (${who}'s delegation)`])];
  $("behalf-row").hidden = d.on_behalf.length === 0;
  const options = behalf.map(([value, text]) => { const o = el("option", "", text); o.value = value; return o; });
  if ([...$("behalf").options].map((o) => o.value).join("|") !== behalf.map(([v]) => v).join("|")) {
    $("behalf").replaceChildren(...options);
  }
  if (waiting) {
    const key = `${t.id}|${t.action_digest}`;
    if (amountFor !== key) {
      // A new task or a new action: the field and the acknowledgement start over.
      amountFor = key;
      $("amount").value = String(t.action.args.amount_minor);
      showAmountError(null);
      $("ack").checked = false;
    }
    if ($("ttl").options.length === 0) {
      $("ttl").replaceChildren(...d.ttls_ms.map((ms) => { const o = el("option", "", TTL_NAMES[ms] ?? `${ms} ms`); o.value = String(ms); return o; }));
      $("ttl").value = String(d.ttls_ms[d.ttls_ms.length - 1]);
    }
    $("ack-row").hidden = flags.length === 0;
    $("ack-list").replaceChildren(...flags.flatMap((f, i) => [i ? ", " : "", el("code", "", f.pointer)]));
    updateButtons();
  }
  $("history").replaceChildren(...historyItems(d, { short: shortFingerprint, notices, review }));
  $("evidence").href = `/api/tasks/${encodeURIComponent(t.id)}/evidence`;
  document.body.dataset.state = "ready";
  if (focus) $("d-title").focus();
}

// ---------------------------------------------------------------------------------------------
// Correcting and deciding

/** What the amount field holds: the task's amount, a valid correction, or why it is not one. */
function amountEdit() {
  const held = shown.clear;
  const text = $("amount").value.trim();
  if (text === String(held.args.amount_minor)) return { kind: "same" };
  if (text === "") return { kind: "invalid", message: "Enter an amount: an empty field is not 0." };
  let value;
  try {
    value = parseJson(text);
  } catch (err) {
    return { kind: "invalid", message: `“${text}” is not a number (${err.code}: ${err.message}).` };
  }
  try {
    // Exactly the check the ledger's amend will make: only the arguments, within the contract.
    const amended = amend(held, { ...held, args: { ...held.args, amount_minor: value } }, contract);
    return amended.amended_pointers.length ? { kind: "changed", value, amended } : { kind: "same" };
  } catch (err) {
    return { kind: "invalid", message: `${err.code} at ${err.path}: ${err.message}` };
  }
}

function showAmountError(message) {
  $("amount-error").hidden = message === null;
  $("amount-error").textContent = message ?? "";
  if (message === null) $("amount").removeAttribute("aria-invalid");
  else $("amount").setAttribute("aria-invalid", "true");
}

function updateButtons() {
  if (!shown || !WAITING.has(shown.task.state)) return;
  const edit = amountEdit();
  const acknowledged = flags.length === 0 || $("ack").checked;
  const decidable = checks.valid && checks.match;
  const approvable = decidable && edit.kind === "same" && acknowledged;
  $("approve").disabled = !approvable;
  $("reject").disabled = !decidable;
  $("approve-passkey").disabled = !(approvable && localStorage.getItem("desk-passkey"));
  $("approve-hint").textContent = !decidable ? "this action cannot be approved (see above)"
    : edit.kind !== "same" ? "save or undo your correction of the amount first"
      : !acknowledged ? "acknowledge the flagged values first"
        : "the server signs with its key";
}

$("amount").addEventListener("input", () => {
  const edit = amountEdit();
  showAmountError(edit.kind === "invalid" ? edit.message : null);
  updateButtons();
});
$("ack").addEventListener("change", updateButtons);

async function decide(decision, { passkey = false, reason } = {}) {
  const t = shown.task;
  const digest = fingerprint(t.action); // what this page showed, recomputed here
  const round = `${t.approval_id}|${digest}`;
  if (!decisionIds.has(round)) decisionIds.set(round, crypto.randomUUID());
  const request = {
    decision_id: decisionIds.get(round), action_digest: digest, decision, ttl_ms: Number($("ttl").value),
    acknowledged: decision === "approved" && $("ack").checked ? flags.map((f) => f.pointer) : [],
    ...(reason === undefined ? {} : { reason }),
    ...($("behalf").value ? { on_behalf_of: $("behalf").value } : {}),
  };
  if (passkey) {
    // The server drafts the record (its clock, its approval round); the page checks that it is
    // about the action shown, and the passkey signs the record's fingerprint.
    const draft = await api(`/api/tasks/${t.id}/draft`, request);
    if (draft.status !== 200) return say(`Refused: ${refusal(draft.body)}`, draft.body.error);
    const record = draft.body.record;
    if (fingerprint(record.action) !== digest || record.action_digest !== digest) {
      return say("Refused: the server's draft is about another action", "draft_mismatch");
    }
    request.passkey_record = await passkeyAssert(record, localStorage.getItem("desk-passkey"), passkeyChallenge);
  }
  const { status, body } = await api(`/api/tasks/${t.id}/decision`, request);
  const what = oneLine(t.action, shown.review).map((p) => (typeof p === "string" ? p : p.textContent)).join("");
  if (status === 200) {
    stated.set(t.id, body.task.state);
    const verb = decision === "approved" ? "Approved" : "Rejected";
    say(`${verb}${body.duplicate ? " (already recorded)" : ""}: ${what} · ${shortFingerprint(digest)}`, decision);
  } else {
    say(`${decision === "approved" ? "Approval" : "Rejection"} refused: ${refusal(body)}`, body.error);
  }
  force = true;
  await refreshDetail();
  await refreshList();
  if (!WAITING.has(shown.task.state)) $("d-title").focus();
}

$("approve").addEventListener("click", () => decide("approved"));
$("approve-passkey").addEventListener("click", () => decide("approved", { passkey: true }).catch((err) => {
  say(`Passkey approval failed: ${err.message}`, "passkey_failed");
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

// Reject: a confirmation that takes the reason, kept by the server with the decision.
$("reject").addEventListener("click", () => {
  $("reject-reason").value = "";
  $("reject-error").hidden = true;
  $("reject-dialog").showModal();
  $("reject-reason").focus();
});
$("reject-cancel").addEventListener("click", () => $("reject-dialog").close());
$("reject-dialog").addEventListener("close", () => {
  if (!$("decide").hidden) $("reject").focus();
});
$("reject-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const reason = $("reject-reason").value.trim();
  if (!reason) {
    $("reject-error").hidden = false;
    $("reject-error").textContent = "Say why: the reason is kept with the decision.";
    $("reject-reason").setAttribute("aria-invalid", "true");
    $("reject-reason").focus();
    return;
  }
  $("reject-reason").removeAttribute("aria-invalid");
  $("reject-dialog").close();
  await decide("rejected", { reason });
});

$("save-correction").addEventListener("click", async () => {
  const t = shown.task;
  const edit = amountEdit();
  if (edit.kind === "same") return say("Nothing to correct: the amount is the task's.", "unchanged");
  if (edit.kind === "invalid") {
    showAmountError(edit.message);
    say(`Correction not saved: ${edit.message}`, "invalid_amount");
    $("amount").focus();
    return;
  }
  const { status, body } = await api(`/api/tasks/${t.id}/amend`, {
    amends: t.action_digest, args: edit.amended.action.args, reason: "the reviewer corrected the amount",
  });
  if (status === 200) {
    say(`Corrected to ${edit.value}: you now decide about ${shortFingerprint(body.task.action_digest)}`, "amended");
  } else {
    say(`Correction refused: ${refusal(body)}`, body.error);
  }
  force = true;
  await refreshDetail();
  await refreshList();
});

// ---------------------------------------------------------------------------------------------

const session = await api("/api/session");
if (session.body.signed_in) signedIn(session.body);
else signedOut();

// ---------------------------------------------------------------------------------------------
// Delegating while away (issue 25): the server signs the delegation for the signed-in reviewer.

async function showDelegations() {
  const { status, body } = await api("/api/delegations");
  if (status !== 200) return;
  $("delegations").replaceChildren(...body.delegations.map((g) => el("li", "",
    g.delegator === $("reviewer").textContent ? `to ${g.delegate}` : `from ${g.delegator}`, ` until ${iso(g.not_after)}`)));
}

$("delegation").addEventListener("submit", async (event) => {
  event.preventDefault();
  const { status, body } = await api("/api/delegations", { delegate: $("delegate-to").value });
  $("delegation-status").textContent = status === 200
    ? `Delegated to ${body.delegation.delegate} until ${iso(body.delegation.not_after)} (${body.digest.slice(0, 19)}…).`
    : `Refused: ${refusal(body)}`;
  await showDelegations();
});
