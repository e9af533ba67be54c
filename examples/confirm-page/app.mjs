// The confirmation page: loads a pending request {"action", "contract"}, shows everything that
// decides what the action does, checks the action against its contract, and turns the
// reviewer's decision into an approval record bound to the action's fingerprint. Every rule
// (strict JSON, the contract, the record, signatures and passkeys) is actionseal's, run here
// in WebAssembly. A request may also carry a signed decision and its key set (signature.mjs);
// a reviewer may approve with a passkey (passkey.mjs), and correct an argument before
// deciding (amend.mjs): the approval is then about the amended action. Under a quorum, the
// request may carry the approvals so far (quorum.mjs). A batch request (batch.mjs) shows every
// item of the batch, and the decision is about the batch fingerprint shown.

import * as amendments from "./amend.mjs";
import * as batches from "./batch.mjs";
import * as passkeys from "./passkey.mjs";
import { loadCore } from "./core.mjs";
import { argumentRows, contractFacts, download, el, errorDetails, fact, ruleText, showDigest, showScalar, showString } from "./render.mjs";
import { markSensitiveRows, revealForReview, sensitivePlaces, showSensitive } from "./sensitive.mjs";
import { showQuorum } from "./quorum.mjs";
import { showSigned } from "./signature.mjs";

const $ = (id) => document.getElementById(id);
const setState = (state) => {
  document.body.dataset.state = state;
};

const api = await loadCore($("load-status"), "examples/confirm-page/README.md");

/**
 * What is on screen: the action as loaded, its contract (a Contract or null), its fingerprint;
 * or a batch review (`kind: "batch"`, batch.mjs).
 */
let current = null;
const form = $("decision-form");
const passkeyPanel = passkeys.panel(api, {
  approver: $("approver"),
  registerButton: $("register-passkey"),
  approveButton: $("approve-passkey"),
  status: $("passkey-status"),
  entry: $("passkey-entry"),
  keys: $("passkey-keys"),
  problem: $("decision-problem"),
  // No approval while the reviewer's edit (or selection) is one the executor would refuse.
  blocked: () => (current?.kind === "batch" ? batchPanel : amendPanel).state().kind === "invalid",
});
const amendPanel = amendments.panel(api, {
  toggle: $("edit-args"),
  table: $("args"),
  panel: $("amendment"),
  status: $("amendment-status"),
  proposedShort: $("proposed-short"),
  proposedFull: $("proposed-fingerprint"),
  amendedShort: $("amended-short"),
  amendedFull: $("amended-fingerprint"),
  changes: $("amendment-changes"),
  pointers: $("amended-pointers"),
  error: $("amendment-error"),
}, (state) => {
  $("approve").disabled = state.kind === "invalid";
  passkeyPanel.refresh();
});
const batchPanel = batches.panel(api, {
  tool: $("batch-tool"),
  facts: $("batch-facts"),
  short: $("batch-short"),
  full: $("batch-fingerprint"),
  claimed: $("batch-claimed"),
  claimedShort: $("claimed-short"),
  claimedFull: $("claimed-fingerprint"),
  claimedStatus: $("claimed-status"),
  count: $("items-count"),
  head: $("items-head"),
  items: $("items"),
  totalsHead: $("totals-head"),
  totals: $("totals"),
  selection: $("selection"),
  selectionStatus: $("selection-status"),
  selectionError: $("selection-error"),
  proposedShort: $("proposed-batch-short"),
  proposedFull: $("proposed-batch-fingerprint"),
  selectedShort: $("selected-short"),
  selectedFull: $("selected-fingerprint"),
  leftOut: $("left-out"),
  includeAll: $("include-all"),
  contract: $("batch-contract"),
}, (state) => {
  // No approval of a selection core refuses (every item left out).
  $("approve").disabled = state.kind === "invalid";
  passkeyPanel.refresh();
  showScope();
});

// ---------------------------------------------------------------------------------------
// Loading

$("request-file").addEventListener("change", async (event) => {
  const file = event.target.files?.[0];
  if (file) load(new Uint8Array(await file.arrayBuffer()), file.name);
});

$("load-text").addEventListener("click", () => load($("request-text").value, "the pasted request"));

/** Loads a request file of this page's own origin (the only place the page may read). */
async function loadFromUrl(param) {
  const url = new URL(param, location.href);
  if (url.origin !== location.origin) {
    return problem(`The request must come from this page's own origin, not ${url.origin}.`);
  }
  setState("loading");
  try {
    const response = await fetch(url, { cache: "no-store", credentials: "same-origin" });
    if (!response.ok) return problem(`Could not read ${url.pathname}: HTTP ${response.status}.`);
    load(new Uint8Array(await response.arrayBuffer()), url.pathname.split("/").pop());
  } catch (err) {
    problem(`Could not read ${url.pathname}: ${err.message}.`);
  }
}

/** A problem with the request itself: shown where requests are loaded, nothing to review. */
function problem(message) {
  reset();
  setState("error");
  const status = $("load-status");
  status.className = "status problem";
  status.textContent = message;
}

function reset() {
  amendPanel.stop();
  batchPanel.stop();
  current?.contract?.free();
  current = null;
  $("review").hidden = true;
  $("result").hidden = true;
  $("load-status").className = "status";
  $("load-status").textContent = "";
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Reads a request (JSON text or bytes) strictly and shows it. */
function load(input, source) {
  reset();
  let request;
  try {
    // actionseal's parser: a duplicate key, a lone surrogate or an inexact number is an
    // error here, so what is shown is the one meaning the text has.
    request = api.parseJson(input);
  } catch (err) {
    return problem(`Could not load ${source}: it is not strict JSON (${err.message}).`);
  }
  if (isObject(request) && "batch" in request) return loadBatch(request, source);
  if (!isObject(request) || !("action" in request) || !("contract" in request)) {
    return problem(`Could not load ${source}: a pending request is {"action": …, "contract": …} or {"batch": …}.`);
  }
  const extra = Object.keys(request).find((k) => !["action", "contract", "disclosures", "signed", "keys", "quorum"].includes(k));
  if (extra !== undefined) {
    return problem(`Could not load ${source}: it has a member "${extra}" besides "action", "contract", "disclosures", "signed", "keys" and "quorum".`);
  }
  const disclosures = request.disclosures ?? [];
  if (!Array.isArray(disclosures) || !disclosures.every((d) => typeof d === "string")) {
    return problem(`Could not load ${source}: "disclosures" is a list of the disclosures' texts.`);
  }

  const { action } = request;
  let contract = null;
  let error = null;
  let need = null;
  let shown = action;
  let places = [];
  try {
    contract = new api.Contract(request.contract);
  } catch (err) {
    error = { where: "contract", err };
  }
  if (contract !== null) {
    try {
      // The action as the ledger froze it: a sensitive value's commitment is held back (core
      // validated the value when it was proposed); everything else is validated as it is.
      need = contract.reviewAction(action);
    } catch (err) {
      error = { where: "action", err };
    }
  }
  if (error === null) {
    // Each disclosure given is checked against the commitment at its place before its value
    // is shown. One that does not open its commitment shows no value at all, and the action
    // cannot be approved here. The rule is then judged with the values disclosed.
    const opened = revealForReview(api.revealAction, contract, action, disclosures);
    places = sensitivePlaces(contract.document, action, opened.action);
    if (opened.error !== null) {
      error = { where: "disclosures", err: opened.error };
    } else if (opened.action !== action) {
      // A disclosed value is validated in the clear too: a commitment to a value the contract
      // refuses is refused here, whoever made it.
      shown = opened.action;
      try {
        need = contract.reviewAction(shown);
      } catch (err) {
        error = { where: "action", err };
      }
    }
  }
  current = { request, action, shown, places, contract, need, fingerprint: api.fingerprint(action), error };
  $("load-status").textContent = `Loaded ${source}.`;
  show(current);
}

/** A batch request: every item built, checked and shown by batch.mjs. */
function loadBatch(request, source) {
  const extra = Object.keys(request).find((k) => !batches.MEMBERS.includes(k));
  if (extra !== undefined) {
    return problem(`Could not load ${source}: it has a member "${extra}" besides "batch", "server" and "batch_digest".`);
  }
  try {
    current = batches.read(api, request);
  } catch (err) {
    return problem(`Could not load ${source}: ${err.message}.`);
  }
  $("load-status").textContent = `Loaded ${source}.`;
  showBatch(current);
}

// ---------------------------------------------------------------------------------------
// Showing

/** Which of the two reviews is on screen (a batch's decision also says what it covers). */
function showKind(kind) {
  $("single").hidden = kind !== "single";
  $("batch").hidden = kind !== "batch";
  $("decision-scope").hidden = kind !== "batch";
}

function show(c) {
  showKind("single");
  const { action, contract, fingerprint, error } = c;
  const envelope = isObject(action) ? action : {};

  // The action and who it is for.
  $("tool").replaceChildren(field(envelope, "tool"));
  const named = typeof envelope.contract === "string" && /^sha256:[0-9a-f]{64}$/.test(envelope.contract) ? envelope.contract : null;
  const matches = contract !== null && named !== null && api.digestEqual(named, contract.digest);
  $("identity").replaceChildren(
    ...fact("Tenant", field(envelope, "tenant")),
    ...fact("Subject", field(envelope, "subject")),
    ...fact("Policy version", field(envelope, "policy_version")),
    ...fact("Job", field(envelope, "job_id")),
    ...fact("Request", field(envelope, "request_id")),
    ...fact("Contract", named === null ? field(envelope, "contract") : el("span", "", el("code", "digest", showDigest(named, { highlight: 0 })),
      el("span", matches ? "tag ok" : "tag bad", matches ? "is this contract" : "is not this contract"))),
  );

  $("short-fingerprint").textContent = api.shortFingerprint(fingerprint);
  $("fingerprint").replaceChildren(showDigest(fingerprint));

  // The arguments with the values this page opened; the fingerprint is the frozen action's.
  const args = isObject(envelope.args) ? c.shown.args : null;
  const rows = args === null ? [] : argumentRows(args);
  $("args").replaceChildren(
    ...(rows.length > 0 ? rows : [el("tr", "", cell(args === null ? "The action has no argument object." : "No arguments."))]),
  );
  markSensitiveRows($("args"), c.places);
  showSensitive($("sensitive"), $("sensitive-list"), c.places, error?.where === "disclosures" ? error.err : null);

  showContract(contract, error?.where === "contract" ? error.err : null);
  showSigned(api, $("signed"), c.request, fingerprint);
  showQuorum($("quorum"), c.request, contract);
  showVerdict(c);
  $("review").hidden = false;
}

function cell(text) {
  const td = el("td", "empty-row", text);
  td.colSpan = 3;
  return td;
}

/** A member of the envelope as it must be read: strings escaped, anything else as JSON. */
function field(envelope, key) {
  if (!(key in envelope)) return el("span", "missing", "missing");
  return showScalar(envelope[key]).node;
}

function showContract(contract, err) {
  $("contract").replaceChildren(...(contract === null ? fact("Problem", errorDetails(err)) : contractFacts(contract)));
}

/** Marks the argument an action error points at (or the nearest row above it). */
function markOffendingArgument({ where, err }) {
  if (where !== "action" || typeof err?.path !== "string" || !err.path.startsWith("/args/")) return;
  const rows = [...$("args").querySelectorAll("tr[data-pointer]")];
  let pointer = err.path.slice("/args".length);
  for (;;) {
    const row = rows.find((r) => r.dataset.pointer === pointer);
    if (row !== undefined) {
      row.classList.add("offending");
      row.querySelector("td.value").append(el("span", "offence", `✕ ${err.message}`));
      return;
    }
    // A missing member's path names it; mark its parent instead.
    if (!pointer.includes("/", 1)) return;
    pointer = pointer.slice(0, pointer.lastIndexOf("/"));
  }
}

/** Shows a batch review (batch.mjs), and the decision form only when it may be decided. */
function showBatch(c) {
  showKind("batch");
  $("review").hidden = false;
  batchPanel.start(c);
  const banner = $("banner");
  const decision = $("decision-error");
  if (!batches.decidable(c)) {
    setState("invalid");
    banner.className = "banner bad";
    banner.replaceChildren(el("strong", "", `✕ ${batches.refusal(c)}.`), " It cannot be approved; the executor would refuse it too.");
    decision.hidden = false;
    decision.replaceChildren(
      el("p", "problem-title", "This batch cannot be decided"),
      ...(c.error === null
        ? [el("p", "", "The request claims another batch fingerprint than the one this page computed from the items shown: what you would approve is not what was sent.")]
        : [errorDetails(c.error.err)]),
      el("p", "hint", "Send it back to whoever proposed it; a corrected batch gets a new fingerprint."),
    );
    form.remove();
    return;
  }
  setState("ready");
  banner.className = "banner ok";
  banner.replaceChildren(
    el("strong", "", `✓ Every item satisfies its contract, and the batch is within its caps.`),
    ` One decision covers all ${c.batch.actions.length} items: check every row before you decide, and uncheck any you would not approve.`,
  );
  decision.hidden = true;
  $("decision").append(form);
  form.hidden = false;
  for (const control of form.elements) control.disabled = false;
  $("decision-problem").hidden = true;
  $("approver").removeAttribute("aria-invalid");
  passkeyPanel.refresh();
  showScope();
}

/** What an approval of the batch would be about, in words beside the buttons. */
function showScope() {
  if (current?.kind !== "batch" || current.built === null) return;
  const state = batchPanel.state();
  const target = batchPanel.target("approved");
  const size = current.batch.actions.length - (state.kind === "deselected" ? state.indices.length : 0);
  $("decision-scope").textContent = state.kind === "invalid"
    ? "Include at least one item to approve; Reject is about the whole batch as proposed."
    : `Approve covers ${size} of ${current.batch.actions.length} items, the batch ${api.shortFingerprint(target.batch_digest)}; Reject is about the batch as proposed.`;
}

function showVerdict(c) {
  const banner = $("banner");
  const decision = $("decision-error");
  if (c.error !== null) {
    setState("invalid");
    const what = {
      contract: "The contract in this request is not valid",
      disclosures: "A sensitive value's disclosure does not open its commitment",
    }[c.error.where] ?? "This action does not satisfy its contract";
    banner.className = "banner bad";
    banner.replaceChildren(el("strong", "", `✕ ${what}.`), " It cannot be approved; the executor would refuse it too.");
    decision.hidden = false;
    decision.replaceChildren(
      el("p", "problem-title", "This action cannot be approved"),
      errorDetails(c.error.err),
      el("p", "hint", "Send it back to whoever proposed it; a corrected request gets a new fingerprint."),
    );
    markOffendingArgument(c.error);
    // Not merely hidden: no Approve button exists for an invalid action.
    form.remove();
    return;
  }
  setState("ready");
  const { need } = c;
  const doc = c.contract.document;
  banner.className = "banner ok";
  banner.replaceChildren(
    el("strong", "", "✓ The action satisfies its contract."),
    need.required
      ? ` Approval is required: ${ruleText(doc, need.rule)}. Check every value before you decide.`
      : ` The contract does not require approval for this call (${ruleText(doc, need.rule)}); you may still decide.`,
  );
  decision.hidden = true;
  $("decision").append(form);
  form.hidden = false;
  for (const control of form.elements) control.disabled = false;
  $("decision-problem").hidden = true;
  $("approver").removeAttribute("aria-invalid");
  amendPanel.start(c);
}

// ---------------------------------------------------------------------------------------
// Deciding

form.noValidate = true;
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (current === null) return;
  const withPasskey = event.submitter?.value === "passkey";
  const decision = event.submitter?.value === "rejected" ? "rejected" : "approved";
  const record = current.kind === "batch" ? batchRecord(decision) : actionRecord(decision);
  if (record === null) return;
  const edits = current.kind === "batch" ? batchPanel : amendPanel;
  for (const control of form.elements) control.disabled = true;
  edits.lock();
  if (!withPasskey) return showRecord(record);
  try {
    const signed = await passkeys.approve(api, record, passkeyPanel.current());
    showRecord(signed.record, signed.verified.signer);
  } catch (err) {
    for (const control of form.elements) control.disabled = false;
    edits.unlock();
    const shown = $("decision-problem");
    shown.hidden = false;
    shown.textContent = `The passkey did not sign: ${err.message}`;
  }
});

/** The record of a decision about the action on screen (null when core refused to make it). */
function actionRecord(decision) {
  if (current.error !== null) return null;
  // An approval is about the action as amended, when the reviewer changed it; a rejection
  // is about what the agent proposed. An edit the contract refuses is never approved.
  const amendment = amendPanel.state();
  if (decision === "approved" && amendment.kind === "invalid") return null;
  const amended = decision === "approved" && amendment.kind === "amended" ? amendment.amended : null;
  const decidedAt = Date.now();
  const validity = Number($("validity").value);
  let record;
  try {
    record = api.approve(amended?.action ?? current.action, {
      approval_id: crypto.randomUUID(),
      decision_id: crypto.randomUUID(),
      decision,
      approver: $("approver").value,
      decided_at: decidedAt,
      expires_at: decidedAt + validity,
      ...(amended === null ? {} : { proposed_digest: amended.proposed_digest }),
    });
  } catch (err) {
    approverProblem(err);
    return null;
  }
  if (!api.digestEqual(record.action_digest, amended?.action_digest ?? current.fingerprint)) {
    throw new Error("the record is not bound to the fingerprint shown");
  }
  return record;
}

/**
 * The record of a decision about the batch on screen: core's `batchDecide` over the
 * selection shown (approved) or the proposal (rejected); null when core refused to make it.
 */
function batchRecord(decision) {
  if (!batches.decidable(current)) return null;
  if (decision === "approved" && batchPanel.state().kind === "invalid") return null;
  const target = batchPanel.target(decision);
  const decidedAt = Date.now();
  let record;
  try {
    record = api.batchDecide(target.header, {
      approval_id: crypto.randomUUID(),
      decision_id: crypto.randomUUID(),
      decision,
      approver: $("approver").value,
      decided_at: decidedAt,
      expires_at: decidedAt + Number($("validity").value),
      ...(target.proposed_digest === undefined ? {} : { proposed_digest: target.proposed_digest }),
    });
  } catch (err) {
    approverProblem(err);
    return null;
  }
  if (!api.digestEqual(record.batch_digest, target.batch_digest)) {
    throw new Error("the record is not bound to the batch fingerprint shown");
  }
  return record;
}

/** A decision core refused (a blank approver, ...): said beside the buttons. */
function approverProblem(err) {
  const shown = $("decision-problem");
  shown.hidden = false;
  shown.textContent = err.path === "/approver" ? `Approver: ${err.message}` : err.message;
  if (err.path === "/approver") {
    $("approver").setAttribute("aria-invalid", "true");
    $("approver").focus();
  }
}

function showRecord(record, signer = null) {
  setState("decided");
  const when = (ms) => new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  const verb = record.decision === "approved" ? "Approved" : "Rejected";
  const summary = $("result-summary");
  summary.className = `result-summary ${record.decision}`;
  summary.replaceChildren(
    el("strong", "", `${verb} by `), showString(record.approver).node,
    ` on ${when(record.decided_at)}, valid until ${when(record.expires_at)} (${$("validity").selectedOptions[0].text}). `,
  );
  if (record.batch_digest !== undefined) {
    summary.append("Bound to the batch fingerprint ", el("code", "mono", api.shortFingerprint(record.batch_digest)),
      ` (${record.batch.size} item${record.batch.size === 1 ? "" : "s"}).`);
  } else {
    summary.append("Bound to the action fingerprint ", el("code", "mono", api.shortFingerprint(record.action_digest)), ".");
  }
  if (record.proposed_digest !== undefined) {
    const how = record.batch_digest === undefined ? "Amended by you" : "Items left out by you";
    summary.append(` ${how} from the proposal `, el("code", "mono", api.shortFingerprint(record.proposed_digest)),
      " (its fingerprint is recorded as proposed_digest).");
  }
  if (signer !== null) {
    // The passkey signed the fingerprint of the record without its assertion.
    const { passkey: _, ...decided } = record;
    summary.append(
      ` Signed with passkey ${signer.credential_id.slice(0, 12)}… (${signer.algorithm}) over the decision's fingerprint `,
      el("code", "mono", api.shortFingerprint(api.fingerprint(decided))),
      "; verified in this page.",
    );
    summary.dataset.passkey = signer.credential_id;
  } else {
    delete summary.dataset.passkey;
  }
  const text = `${JSON.stringify(record, null, 2)}\n`;
  $("decision-json").textContent = text;
  $("result").className = `card result ${record.decision}`;
  $("result").hidden = false;
  $("result-title").focus();
  $("copy").onclick = () => copy(text);
  $("download").onclick = () => download(text, `approval-${record.approval_id}.json`);
}

async function copy(text) {
  const status = $("copy-status");
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = "Copied.";
  } catch {
    // No clipboard permission: select the text so that the reviewer can copy it.
    getSelection().selectAllChildren($("decision-json"));
    status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
  }
}

$("again").addEventListener("click", () => {
  reset();
  setState("empty");
  $("request-file").value = "";
  $("request-text").value = "";
  window.scrollTo({ top: 0 });
  $("request-file").focus();
});

// A request named in the address (?request=samples/refund.json), once everything is defined.
const requested = new URLSearchParams(location.search).get("request");
if (requested !== null) {
  await loadFromUrl(requested);
} else {
  setState("empty");
}
