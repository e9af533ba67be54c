// The desk's batch review (issue 28): every item of a batch in one scrollable table, each value
// that differs from the first item's highlighted (and said so to a screen reader), the totals
// beside the caps, the batch fingerprint this page computes in WebAssembly beside the one the
// server claims (a mismatch refuses: nothing can be approved), and per-row deselection, which
// makes another batch: its fingerprint is recomputed and shown, the proposed one kept beside it.
// Approve and Reject hand the caller the fingerprint on screen at that moment, so a decision is
// bound to what the reviewer saw. Core builds every batch (`batchBuild`, `batchDeselect`): its
// header, fingerprint, totals and refusals (too large, over a cap) are core's, never this page's.

import { el, fact, showDigest, showScalar } from "/confirm-page/render.mjs";
import { batchTable, capRows } from "/page/batch-table.mjs";

const SEMANTICS = {
  all_or_nothing: "all or nothing: no refund is paid until every one may be, then all are claimed at once",
  per_item: "per item: each refund is paid on its own, under the batch's caps and breaker",
};

/** A column's heading: an argument by its name (its pointer below /args), anything else by its pointer without the first "/". */
const heading = (p) => (p.startsWith("/args/") ? p.slice("/args/".length) : p.slice(1));

/** A value in a cell (core's notices marked by render.mjs), or "(none)". */
const cell = (v) => (v === undefined ? el("span", "missing", "(none)") : showScalar(v).node);

function digestNode(digest) {
  const code = el("code", "digest");
  code.append(showDigest(digest));
  code.dataset.digest = digest;
  return code;
}

/** An error of core's as the reviewer reads it: code, where, and its message. */
const refusal = (e) => `${e.code ?? "error"}${e.path ? ` at ${e.path}` : ""}: ${e.message}`;

/**
 * Draws the review of `request` into `root` (emptied first): `{contract` (the contract's
 * document), `semantics`, `actions` (the frozen actions, in batch order), `claimed` (the
 * server's batch fingerprint, optional), `server` (the server's batch policy, optional),
 * `states` (each item's ledger state, optional), `decided` (true once the batch is decided:
 * nothing to decide, the positions in `left_out` shown left out)`}`. `core` holds actionseal-wasm's
 * `batchBuild` and `batchDeselect`. `onDecide({decision, batch_digest, proposed_digest,
 * deselected})` is called on Approve or Reject with the fingerprint on screen.
 */
export function showBatch(root, request, core, { onDecide }) {
  const { contract, semantics, actions } = request;
  const server = request.server ?? null;
  const table = batchTable(actions);
  const decided = request.decided === true;
  const deselected = new Set(decided ? request.left_out ?? [] : []);

  // The proposed batch, as core builds it here.
  let proposed = null;
  let problem = null;
  try {
    proposed = core.batchBuild(contract, semantics, actions, server);
  } catch (e) {
    problem = `This batch is refused: ${refusal(e)}.`;
  }
  const mismatch = proposed && request.claimed !== undefined && request.claimed !== proposed.batch_digest;
  if (mismatch) {
    problem = "The server's fingerprint is not the one this page computes for these items: do not decide on this batch.";
  }

  const title = el("h2", "", `Batch of ${actions.length} refunds`);
  title.id = "b-title";
  title.tabIndex = -1;
  const common = el("dl", "facts");
  common.append(
    ...fact("How items run", SEMANTICS[semantics] ?? semantics),
    ...table.common.flatMap(([p, v]) => fact(`${heading(p)} (every item)`, cell(v))),
  );

  // Totals against the caps: what is on screen now (the remainder after a deselection).
  const caps = el("table", "caps");
  const capsBody = el("tbody");
  caps.append(el("caption", "", "Totals against the contract's caps (narrowed by the desk's policy)"),
    el("thead", "", el("tr", "", ...["cap", "this batch", "at most"].map((h) => Object.assign(el("th", "", h), { scope: "col" })))),
    capsBody);

  // The items.
  const items = el("table", "items");
  const caption = el("caption", "", `Every item (${actions.length}); values that differ from item 1 are highlighted`);
  caption.id = "b-items-caption";
  const head = el("tr", "", ...["include", "#", ...table.columns.map(heading), ...(request.states ? ["state"] : [])]
    .map((h) => Object.assign(el("th", "", h), { scope: "col" })));
  const body = el("tbody");
  for (const row of table.rows) {
    const n = row.index + 1;
    const box = el("input");
    box.type = "checkbox";
    box.checked = !deselected.has(row.index);
    box.disabled = !proposed || mismatch || decided;
    box.setAttribute("aria-label", `Include item ${n}`);
    box.addEventListener("change", () => {
      if (box.checked) deselected.delete(row.index);
      else deselected.add(row.index);
      update(`Item ${n} ${box.checked ? "included" : "left out"}.`);
    });
    const number = Object.assign(el("th", "", String(n)), { scope: "row" });
    const cells = table.columns.map((p) => {
      const td = el("td", row.changed.has(p) ? "changed" : "", cell(row.cells.get(p)));
      if (row.changed.has(p)) td.append(el("span", "visually-hidden", " (differs from item 1)"));
      return td;
    });
    const state = request.states ? [el("td", "", el("span", `tag ${request.states[row.index]}`, request.states[row.index]))] : [];
    const tr = el("tr", "", el("td", "", box), number, ...cells, ...state);
    tr.dataset.index = String(row.index);
    body.append(tr);
  }
  items.append(caption, el("thead", "", head), body);
  const scroll = el("div", "table-wrap items-wrap", items);
  scroll.tabIndex = 0; // scrollable by keyboard
  scroll.setAttribute("role", "region");
  scroll.setAttribute("aria-labelledby", caption.id);

  // The fingerprints.
  const fps = el("dl", "facts fps");
  const status = el("p", "status");
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  const problemLine = el("p", "problem", problem ?? "");
  problemLine.setAttribute("role", "alert");
  problemLine.hidden = problem === null;

  const approve = el("button", "ok", "Approve the batch");
  approve.type = "button";
  const reject = el("button", "bad", "Reject the batch");
  reject.type = "button";

  let shown = null; // the batch on screen: core's result for it
  function update(said) {
    shown = proposed;
    let error = null;
    if (proposed && deselected.size > 0) {
      try {
        shown = core.batchDeselect(contract, semantics, actions, [...deselected].sort((a, b) => a - b), server);
      } catch (e) {
        shown = null;
        error = `Without these items there is no batch to decide: ${refusal(e)}.`;
      }
    }
    for (const tr of body.rows) tr.classList.toggle("deselected", deselected.has(Number(tr.dataset.index)));
    capsBody.replaceChildren(...(shown ? capRows(shown) : []).map((r) =>
      el("tr", "", Object.assign(el("th", "", r.words), { scope: "row" }), el("td", "", String(r.total)), el("td", "", String(r.max)))));
    const proposedDigest = proposed?.batch_digest;
    fps.replaceChildren(
      ...fact("Server (claimed)", request.claimed === undefined ? el("span", "hint", "none claimed") : digestNode(request.claimed)),
      ...fact("This page (WebAssembly)", proposedDigest ? digestNode(proposedDigest) : el("span", "missing", "not computed"),
        " ", el("span", `tag ${mismatch || !proposed ? "bad" : "ok"}`, mismatch ? "mismatch" : proposed ? (request.claimed === undefined ? "computed" : "match") : "refused")),
      ...(deselected.size > 0
        ? fact(`What you decide (${actions.length - deselected.size} of ${actions.length})`, shown ? digestNode(shown.batch_digest) : el("span", "missing", "none"))
        : []),
    );
    if (error) {
      problemLine.textContent = error;
      problemLine.hidden = false;
    } else if (problem === null) {
      problemLine.hidden = true;
    }
    approve.disabled = !shown || Boolean(mismatch) || decided;
    reject.disabled = !proposed || Boolean(mismatch) || decided;
    root.dataset.digest = shown?.batch_digest ?? "";
    if (said) status.textContent = `${said} ${shown ? `You decide on ${shown.items.length} items, fingerprint ${shown.batch_digest.slice(7, 23)}…` : ""}`;
  }

  function decide(decision) {
    // A rejection is of the batch as proposed; an approval of what is on screen.
    const on = decision === "approved" ? shown : proposed;
    onDecide({
      decision,
      batch_digest: on.batch_digest,
      proposed_digest: proposed.batch_digest,
      deselected: decision === "approved" ? [...deselected].sort((a, b) => a - b) : [],
    });
  }
  approve.addEventListener("click", () => decide("approved"));
  reject.addEventListener("click", () => decide("rejected"));

  root.replaceChildren(title, problemLine, common, el("div", "table-wrap", caps), scroll,
    el("h3", "", "Batch fingerprint"), fps, el("p", "row actions", approve, reject), status);
  update();
}
