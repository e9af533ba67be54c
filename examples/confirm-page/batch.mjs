// A batch request (issue 28): `{"batch": {"contract", "semantics", "actions"}, "server"?:
// <a server's batch policy>, "batch_digest"?: <the fingerprint the proposer claims>}`. Core
// builds the batch in WebAssembly (`batchBuild`): every item valid under the contract, one
// tenant, no task identity twice, the size and the caps (narrowed by the server's policy).
// The page shows every item (batch-table.mjs), the totals against the caps
// (batch-totals.mjs) and the batch fingerprint it computed beside the claimed one; a batch
// core refuses, or whose claimed fingerprint is not the page's, cannot be decided. The
// reviewer may leave items out (`batchDeselect`: another batch, its own fingerprint, the
// proposal's kept), and the decision is core's `batchDecide` over the batch shown.

import { capAt, capRows, pageTotals } from "./batch-totals.mjs";
import { itemRows, layout, markOffending, pointerLabel } from "./batch-table.mjs";
import { contractFacts, el, errorDetails, fact, showDigest, showScalar } from "./render.mjs";

/** The members a batch request may have. */
export const MEMBERS = ["batch", "server", "batch_digest"];
const BATCH_MEMBERS = ["contract", "semantics", "actions"];

/** What each semantics means for the reviewer (docs/CONTRACTS.md, "Batches"). */
const SEMANTICS = {
  all_or_nothing: "all or nothing: no item runs until every item's check passes; one that drifts or is rejected stops the rest",
  per_item: "per item: each item stands on its own, under the batch's caps and circuit breaker",
};

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** The index an error path of `batchBuild` names (`/3/args/amount_minor`), and the rest. */
function itemPath(path) {
  const m = /^\/(\d+)((?:\/.*)?)$/.exec(typeof path === "string" ? path : "");
  return m === null ? null : { index: Number(m[1]), pointer: m[2] };
}

/**
 * Reads a batch request into a review: `{kind: "batch", request, batch, server, contract
 * (a Contract or null), built (core's batch or null), error ({where, err} or null), claim
 * ({digest, matches} or null), digests (each item's fingerprint), caps, totals, over (the cap
 * core refused the batch for)}`. A request of the wrong shape is
 * thrown as a message for the reviewer.
 */
export function read(api, request) {
  const { batch } = request;
  if (!isObject(batch)) throw new Error(`"batch" is {"contract": …, "semantics": …, "actions": […]}`);
  const extra = Object.keys(batch).find((k) => !BATCH_MEMBERS.includes(k));
  if (extra !== undefined) throw new Error(`"batch" has a member "${extra}" besides "contract", "semantics" and "actions"`);
  const missing = BATCH_MEMBERS.find((k) => !(k in batch));
  if (missing !== undefined) throw new Error(`"batch" has no "${missing}"`);
  if (!Array.isArray(batch.actions)) throw new Error(`"batch.actions" is an array of actions`);
  const server = "server" in request ? request.server : null;

  let contract = null;
  let built = null;
  let error = null;
  try {
    contract = new api.Contract(batch.contract);
  } catch (err) {
    error = { where: "contract", err, at: null };
  }
  if (contract !== null) {
    try {
      built = api.batchBuild(batch.contract, batch.semantics, batch.actions, server);
    } catch (err) {
      error = { where: "batch", err, at: itemPath(err.path) };
    }
  }
  const review = {
    kind: "batch", request, batch, server, contract, built, error,
    digests: batch.actions.map((a) => api.fingerprint(a)),
    claim: null, caps: built?.caps ?? null, totals: built?.totals ?? null, over: null,
  };
  if ("batch_digest" in request) {
    const digest = request.batch_digest;
    const matches = built !== null && typeof digest === "string" && DIGEST.test(digest) && api.digestEqual(digest, built.batch_digest);
    review.claim = { digest, matches };
  }
  if (error?.err?.code === "batch_cap_exceeded" && error.at?.index > 0) {
    // Core stops at the first item that passes a cap; the items before it were admitted, so
    // core's build of them names the caps in force. The whole batch's totals are added up
    // here, to show by how much it is over. (When item 1 alone passes one, only core's
    // message says which.)
    review.caps = api.batchBuild(batch.contract, batch.semantics, batch.actions.slice(0, error.at.index), server).caps;
    review.totals = pageTotals(api, review.caps, batch.actions);
    review.over = capAt(review.caps, error.at.pointer);
  }
  return review;
}

/** Whether the review may be decided: core built the batch, and any claim is the page's. */
export const decidable = (review) => review.built !== null && review.claim?.matches !== false;

/** Why a review cannot be decided, in words for the banner. */
export function refusal(review) {
  if (review.error?.where === "contract") return "The contract in this request is not valid";
  if (review.error !== null) {
    const item = review.error.at === null ? "" : ` (item ${review.error.at.index + 1})`;
    return review.error.err?.code === "batch_cap_exceeded"
      ? `This batch is over a cap${item}`
      : `This batch cannot be built${item}`;
  }
  return "The batch fingerprint the request claims is not the one computed here";
}

/**
 * The batch review on screen. `ui`: {tool, facts, short, full, claimed, claimedShort,
 * claimedFull, claimedStatus, count, head, items, totalsHead, totals, selection,
 * selectionStatus, selectionError, proposedShort, proposedFull, selectedShort, selectedFull,
 * leftOut, includeAll, contract}; `onChange(state)` after every change of the selection.
 * Returns {start(review), stop(), lock(), unlock(), state(), target(decision)}; `state()` is {kind: "none" |
 * "deselected" | "invalid", indices, result?, error?}.
 */
export function panel(api, ui, onChange) {
  let review = null;
  let state = { kind: "none", indices: [] };
  let rows = [];

  const showFingerprint = (short, full, digest) => {
    short.textContent = api.shortFingerprint(digest);
    full.replaceChildren(showDigest(digest));
  };

  const showTotals = () => {
    const selected = state.kind === "deselected" ? state.result.totals : null;
    ui.totalsHead.replaceChildren(...["Cap", "Limit", "Proposed", ...(selected === null ? [] : ["Your selection"])].map((t) => {
      const th = el("th", "", t);
      th.scope = "col";
      return th;
    }));
    ui.totals.replaceChildren(...(review.caps === null
      ? [el("tr", "", el("td", "empty-row", "No totals: core refused the batch (why is in the banner above and under Decision)."))]
      : capRows(review.caps, review.totals, selected, review.over)));
  };

  const showSelection = () => {
    for (const row of rows) row.classList.toggle("left-out", state.indices.includes(Number(row.dataset.index)));
    ui.selection.dataset.state = state.kind;
    ui.selection.hidden = state.kind === "none";
    ui.selectionError.hidden = state.kind !== "invalid";
    showFingerprint(ui.proposedShort, ui.proposedFull, review.built.batch_digest);
    const kept = review.batch.actions.length - state.indices.length;
    if (state.kind === "invalid") {
      ui.selectionStatus.textContent = "This selection cannot be approved.";
      ui.selectionError.replaceChildren(errorDetails(state.error));
      ui.selectedShort.textContent = "—";
      ui.selectedFull.replaceChildren();
    } else if (state.kind === "deselected") {
      ui.selectionStatus.textContent =
        `You left out ${state.indices.length} of ${review.batch.actions.length} items: your approval is about the other ${kept}, ` +
        `a batch with the fingerprint ${api.shortFingerprint(state.result.batch_digest)}; the record keeps the proposal's.`;
      showFingerprint(ui.selectedShort, ui.selectedFull, state.result.batch_digest);
    }
    ui.leftOut.replaceChildren(...state.indices.map((i) => {
      const item = el("li", "", `Item ${i + 1}`, " ", el("code", "mono", api.shortFingerprint(review.digests[i])));
      item.dataset.index = String(i);
      return item;
    }));
    ui.count.textContent = state.kind === "none"
      ? `${review.batch.actions.length} items`
      : `${kept} of ${review.batch.actions.length} items selected`;
    showTotals();
    onChange(state);
  };

  /** Rebuilds the selection from the checkboxes: core's `batchDeselect` of what is unchecked. */
  const select = () => {
    const indices = rows.filter((r) => !r.querySelector("input.include").checked).map((r) => Number(r.dataset.index));
    if (indices.length === 0) {
      state = { kind: "none", indices };
    } else {
      const { contract, semantics, actions } = review.batch;
      try {
        state = { kind: "deselected", indices, result: api.batchDeselect(contract, semantics, actions, indices, review.server) };
      } catch (err) {
        state = { kind: "invalid", indices, error: err };
      }
    }
    showSelection();
  };

  ui.includeAll.addEventListener("click", () => {
    for (const row of rows) row.querySelector("input.include").checked = true;
    select();
  });

  return {
    /** Shows `r` (a review from `read`); its items may be deselected only when it is decidable. */
    start(r) {
      review = r;
      state = { kind: "none", indices: [] };
      const { actions } = r.batch;
      const first = isObject(actions[0]) ? actions[0] : {};
      const shape = layout(actions);
      ui.tool.replaceChildren(first.tool === undefined ? el("span", "missing", "missing") : showScalar(first.tool).node);
      ui.facts.replaceChildren(
        ...fact("Items", el("span", "mono", String(actions.length))),
        ...fact("Semantics", typeof r.batch.semantics === "string" && Object.hasOwn(SEMANTICS, r.batch.semantics)
          ? el("span", "", el("code", "", r.batch.semantics), ` — ${SEMANTICS[r.batch.semantics]}`)
          : showScalar(r.batch.semantics).node),
        ...fact("Server policy", r.server === null ? "none: the contract's limits apply" : "narrows the contract's limits (shown in the totals)"),
        ...shape.common.filter((p) => p !== "/tool").flatMap((p) => fact(pointerLabel(p), showScalar(shape.all[0].get(p)).node)),
      );

      const digest = r.built?.batch_digest ?? null;
      ui.short.textContent = digest === null ? "—" : api.shortFingerprint(digest);
      ui.full.replaceChildren(digest === null ? "not computed: core refused the batch" : showDigest(digest));
      ui.claimed.hidden = r.claim === null;
      if (r.claim !== null) {
        const ok = typeof r.claim.digest === "string" && DIGEST.test(r.claim.digest);
        ui.claimedShort.textContent = ok ? api.shortFingerprint(r.claim.digest) : "—";
        ui.claimedFull.replaceChildren(ok ? showDigest(r.claim.digest) : showScalar(r.claim.digest).node);
        ui.claimed.dataset.matches = String(r.claim.matches);
        ui.claimedStatus.className = `tag ${r.claim.matches ? "ok" : "bad"}`;
        ui.claimedStatus.textContent = r.claim.matches
          ? "✓ The same as the fingerprint computed here"
          : digest === null ? "✕ Not checked: the page computed no fingerprint" : "✕ Not the fingerprint computed here: refused";
      }

      const table = itemRows(api, actions, shape, r.digests);
      rows = table.rows;
      ui.head.replaceChildren(table.head);
      ui.items.replaceChildren(...rows);
      if (r.error?.where === "batch" && r.error.at !== null) {
        markOffending(rows, r.error.at.index, r.error.at.pointer, r.error.err.message);
      }
      const open = decidable(r);
      for (const input of ui.items.querySelectorAll("input.include")) {
        input.disabled = !open;
        input.addEventListener("change", select);
      }
      ui.includeAll.disabled = !open;
      ui.contract.replaceChildren(...(r.contract === null ? fact("Problem", errorDetails(r.error.err)) : contractFacts(r.contract)));
      ui.count.textContent = `${actions.length} items`;
      ui.selection.hidden = true;
      showTotals();
    },
    stop() {
      review = null;
      rows = [];
      state = { kind: "none", indices: [] };
      ui.selection.hidden = true;
    },
    /** While the decision is made, and after it: nothing more is deselected. */
    lock() {
      ui.includeAll.disabled = true;
      for (const input of ui.items.querySelectorAll("input.include")) input.disabled = true;
    },
    /** The decision was not made after all (a passkey that did not sign). */
    unlock() {
      ui.includeAll.disabled = false;
      for (const input of ui.items.querySelectorAll("input.include")) input.disabled = false;
    },
    state: () => state,
    /**
     * The batch an approval is about, and the proposal's fingerprint when it is a selection:
     * `{header, batch_digest, size, proposed_digest?}`. A rejection is about the proposal.
     */
    target(decision) {
      if (decision === "approved" && state.kind === "deselected") {
        return { header: state.result.header, batch_digest: state.result.batch_digest, proposed_digest: state.result.proposed_digest };
      }
      return { header: review.built.header, batch_digest: review.built.batch_digest };
    },
  };
}
