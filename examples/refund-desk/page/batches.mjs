// The desk's batches (issue 28): the list of the batches the agent handed over, each lineage
// followed through its successors (after a trip of the breaker the refunds not yet paid come
// back as a new batch, listed here for re-approval), and the open batch drawn by batch.mjs.
// Approve and Reject go to the server (desk/batches.py), which leaves the deselected items out
// and signs the ledger's record of the batch on screen, as it signs a task's.

import { batchBuild, batchDeselect } from "/wasm/actionseal_wasm.js";
import { el } from "/confirm-page/render.mjs";
import { api, refusal } from "/page/api.mjs";
import { showBatch } from "/page/batch.mjs";

const $ = (id) => document.getElementById(id);
let opened = null; // the open batch's id
let drawn = ""; // what it was drawn from: its state and items' states
const decisionIds = new Map(); // one decision_id per (batch, digest on screen): a double click is one decision

/** Reads the list of batches again (and the open batch); `onOpen()` is called when one opens. */
export async function refreshBatches({ onOpen }) {
  const { status, body } = await api("/api/batches");
  if (status !== 200) return;
  $("batches-title").hidden = $("batches").hidden = body.batches.length === 0;
  $("batches").replaceChildren(...body.batches.map((b) => {
    const button = el("button", b.id === opened ? "selected" : "",
      el("span", `tag ${b.state}`, b.state.replaceAll("_", " ")), ` batch of ${b.items} refunds`,
      ...(b.successor ? [" · ", el("span", "hint", "remainder sent back")] : []), el("br"), el("code", "hint", b.short));
    button.type = "button";
    button.dataset.batchId = b.id;
    button.dataset.state = b.state;
    if (b.id === opened) button.setAttribute("aria-current", "true");
    button.addEventListener("click", () => {
      opened = b.id;
      drawn = "";
      onOpen();
      refreshBatch({ focus: true }).then(() => refreshBatches({ onOpen }));
    });
    return el("li", "", button);
  }));
  await refreshBatch();
}

/** Closes the open batch (a task was opened instead). */
export function closeBatch() {
  opened = null;
  $("batch").hidden = true;
}

async function refreshBatch({ focus = false } = {}) {
  if (opened === null) return;
  const { status, body } = await api(`/api/batches/${encodeURIComponent(opened)}`);
  if (status !== 200) return;
  const key = JSON.stringify([body.batch.state, body.states]);
  if (key === drawn) return;
  drawn = key;
  const root = $("batch");
  root.hidden = false;
  const decided = body.batch.state !== "awaiting_approval";
  root.dataset.batchId = body.batch.id;
  root.dataset.state = body.batch.state;
  showBatch(root, { ...body, decided }, { batchBuild, batchDeselect }, {
    onDecide: (d) => decide(body, d),
  });
  if (decided && body.batch.proof) {
    root.querySelector("h2").append(" ", el("span", `tag ${body.batch.state}`, body.batch.state.replaceAll("_", " ")));
    root.append(el("p", "hint proof", `Decided by ${body.batch.record.approver}, proven: ${body.batch.proof.signer.kind === "passkey" ? "the reviewer's passkey" : "signed by the approval server"}.`));
  }
  if (focus) $("b-title").focus();
}

async function decide(body, d) {
  const key = `${body.batch.id} ${d.batch_digest} ${d.decision}`;
  if (!decisionIds.has(key)) decisionIds.set(key, crypto.randomUUID());
  const reason = d.decision === "rejected" ? "rejected as a batch by the reviewer" : undefined;
  const r = await api(`/api/batches/${encodeURIComponent(body.batch.id)}/decision`, {
    decision_id: decisionIds.get(key), batch_digest: d.batch_digest, proposed_digest: d.proposed_digest,
    deselected: d.deselected, decision: d.decision, ttl_ms: body.ttls_ms[body.ttls_ms.length - 1], reason,
  });
  const status = $("batch").querySelector("[role=status]");
  if (r.status !== 200) {
    status.textContent = `Not decided: ${refusal(r.body)}`;
    return;
  }
  drawn = "";
  await refreshBatch();
  $("batch").querySelector("[role=status]").textContent = `The batch is ${r.body.batch.state.replaceAll("_", " ")}.`;
}
