// The evidence page: takes an evidence bundle and the verifier's own trust (dropped, chosen
// or pasted; never anything the bundle says about keys), verifies the bundle with
// actionseal's `verifyEvidence` in WebAssembly, and shows either the verified timeline
// (timeline.mjs) or the failure at the member that broke (tree.mjs). Never both: a failure
// clears every part of a timeline.

import { loadCore } from "../confirm-page/core.mjs";
import { download, el, errorDetails } from "../confirm-page/render.mjs";
import { showTimeline } from "./timeline.mjs";
import { resolve, tree } from "./tree.mjs";

const $ = (id) => document.getElementById(id);
const setState = (state) => {
  document.body.dataset.state = state;
};

const api = await loadCore($("bundle-status"), "examples/evidence-page/README.md");

/** The two documents as read: `{value, source}` each, or null until given. */
const given = { bundle: null, trust: null };
const NAMES = { bundle: "the bundle", trust: "your trust" };

// ---------------------------------------------------------------------------------------
// Loading

/** Reads one document strictly (actionseal's parser: no duplicate key, lone surrogate or inexact number). */
function take(which, input, source) {
  const status = $(`${which}-status`);
  const drop = $(`${which}-drop`);
  given[which] = null;
  drop.dataset.loaded = "false";
  try {
    given[which] = { value: api.parseJson(input), source };
  } catch (err) {
    status.className = "status problem";
    status.textContent = `${source} is not strict JSON: ${err.message}`;
    clear();
    setState("error");
    return;
  }
  status.className = "status loaded";
  status.textContent = `Loaded ${source}.`;
  drop.dataset.loaded = "true";
  verify();
}

async function takeFile(which, file) {
  // Until the file is read, nothing shown is about it.
  clear();
  setState("reading");
  take(which, new Uint8Array(await file.arrayBuffer()), file.name);
}

for (const which of ["bundle", "trust"]) {
  const input = $(`${which}-file`);
  input.addEventListener("change", () => input.files?.[0] && takeFile(which, input.files[0]));
  const drop = $(`${which}-drop`);
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    const file = event.dataTransfer?.files?.[0];
    if (file) takeFile(which, file);
  });
}
// A file dropped beside the two zones must not make the browser navigate away to it.
for (const type of ["dragover", "drop"]) window.addEventListener(type, (event) => event.preventDefault());

$("load-trust").addEventListener("click", () => take("trust", $("trust-text").value, "the pasted trust"));

/** Loads a file of this page's own origin (the only place the page may read). */
async function takeUrl(which, param) {
  const url = new URL(param, location.href);
  const status = $(`${which}-status`);
  if (url.origin !== location.origin) {
    status.className = "status problem";
    status.textContent = `${NAMES[which]} must come from this page's own origin, not ${url.origin}.`;
    setState("error");
    return;
  }
  try {
    const response = await fetch(url, { cache: "no-store", credentials: "same-origin" });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    take(which, new Uint8Array(await response.arrayBuffer()), url.pathname.split("/").pop());
  } catch (err) {
    status.className = "status problem";
    status.textContent = `Could not read ${url.pathname}: ${err.message}.`;
    setState("error");
  }
}

// ---------------------------------------------------------------------------------------
// Verifying

/** Removes whatever a previous verification showed. */
function clear() {
  $("result").hidden = true;
  $("timeline").hidden = true;
  $("failure").hidden = true;
  for (const id of ["tool", "task", "log", "steps", "export", "timeline-json", "failure-details", "tree", "tree-hint", "banner"]) {
    $(id).replaceChildren();
  }
}

function verify() {
  clear();
  if (given.bundle === null || given.trust === null) {
    setState("waiting");
    return;
  }
  let timeline;
  try {
    timeline = api.verifyEvidence(given.bundle.value, given.trust.value);
  } catch (err) {
    showFailure(err);
    return;
  }
  showVerified(timeline);
}

/**
 * Which document an error's pointer is in. Core reads the trust before the bundle and every
 * later check points into the bundle, so the error is the trust's exactly when the trust
 * alone fails: verified against a bundle that is not one, a sound trust gets the bundle's
 * `invalid_evidence` at "" and a malformed one its own error.
 */
function documentOf(err) {
  if (err?.code === "invalid_evidence_trust") return "trust";
  try {
    api.verifyEvidence(null, given.trust.value);
  } catch (probe) {
    return probe.code === "invalid_evidence" && probe.path === "" ? "bundle" : "trust";
  }
  return "bundle";
}

function showFailure(err) {
  setState("failed");
  const which = documentOf(err);
  const doc = given[which];
  const pointer = typeof err?.path === "string" ? err.path : "";
  const where = resolve(doc.value, pointer);

  const banner = $("banner");
  banner.className = "banner bad";
  banner.replaceChildren(
    el("strong", "", `✕ ${which === "trust" ? "Your trust cannot be used" : "The bundle does not verify"}: ${err?.code ?? "error"}.`),
    ` Nothing it says is shown as verified. The member that broke is marked in ${NAMES[which]} below.`,
  );
  const details = errorDetails(err);
  details.append(el("dt", "", "In"), el("dd", "", `${NAMES[which]} (${doc.source})`));
  $("failure-details").replaceChildren(el("p", "problem-title", `${err?.code ?? "error"} at ${pointer === "" ? "the whole document" : pointer}`), details);

  const note = where.exact ? `✕ ${err?.code}: it breaks here` : `✕ ${err?.code}: ${pointer} is missing here`;
  const shown = tree(doc.value, where.found, note);
  $("tree-hint").textContent = `${NAMES[which][0].toUpperCase()}${NAMES[which].slice(1)} (${doc.source}) as read; the member at ${pointer === "" ? '""' : pointer} and the members that hold it are marked.`;
  $("tree").replaceChildren(shown.node);
  $("failure").hidden = false;
  $("result").hidden = false;
  shown.marked?.scrollIntoView({ block: "center" });
}

function showVerified(t) {
  setState("verified");
  const banner = $("banner");
  banner.className = "banner ok";
  const witnesses = t.log.witnesses.length;
  banner.replaceChildren(
    el("strong", "", "✓ The bundle verifies against your trust."),
    ` Its ${t.steps.length} event${t.steps.length === 1 ? " is" : "s are"} in the log ${t.log.origin} as of the checkpoint of size ${t.log.size}, ` +
      `signed by a ledger key you trust${witnesses > 0 ? ` and cosigned by ${witnesses} witness${witnesses === 1 ? "" : "es"} you trust` : ""}; ` +
      "the export lists exactly these events, and every signed decision verifies under your approval keys.",
  );
  showTimeline(api, t, { tool: $("tool"), task: $("task"), steps: $("steps"), log: $("log"), export: $("export") });
  const text = `${JSON.stringify(t, null, 2)}\n`;
  $("timeline-json").textContent = text;
  $("download").onclick = () => download(text, `timeline-${t.task}.json`);
  $("timeline").hidden = false;
  $("result").hidden = false;
}

// Documents named in the address (?bundle=samples/refund.bundle.json&trust=samples/refund.trust.json).
const params = new URLSearchParams(location.search);
setState("waiting");
for (const which of ["trust", "bundle"]) {
  const named = params.get(which);
  if (named !== null) await takeUrl(which, named);
}
