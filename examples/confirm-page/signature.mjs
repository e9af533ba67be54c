// The signed-decision part of the confirmation page. A request may carry a decision that a
// service signed (`"signed"`: a DSSE envelope over the record's canonical bytes) and the key
// set the executor's server trusts (`"keys"`). The page verifies it in WebAssembly, exactly as
// the executor will (`verifyEnvelope`), and shows who signed: the key (its RFC 7638 keyid, its
// validity window and whom it may sign for, from the key set), the approver, the decision and
// its own window, and whether it is about the action on screen.

import { el, showDigest, showString } from "./render.mjs";

/** A time in milliseconds since the epoch, in UTC, to the second. */
export const when = (ms) => new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");

/** "from … until …" for a key's validity window (either bound may be absent). */
function windowText(entry) {
  const from = typeof entry?.valid_from === "number" ? when(entry.valid_from) : null;
  const until = typeof entry?.valid_until === "number" ? when(entry.valid_until) : null;
  if (from === null && until === null) return "any time (the key set gives no window)";
  return [from && `from ${from}`, until && `until ${until} (excluded)`].filter(Boolean).join(" ");
}

function fact(term, ...details) {
  return [el("dt", "", term), el("dd", "", ...details)];
}

/**
 * Shows the signed decision of `request` in the section `box` (hidden when there is none).
 * `fingerprint` is the fingerprint of the action on screen. Returns the verified record, or
 * null.
 */
export function showSigned(api, box, request, fingerprint) {
  const status = box.querySelector("#signed-status");
  const facts = box.querySelector("#signed-facts");
  for (const name of ["verified", "keyid", "approver", "matches"]) delete box.dataset[name];
  if (!("signed" in request)) {
    box.hidden = true;
    return null;
  }
  box.hidden = false;
  let verified;
  try {
    if (!("keys" in request)) {
      throw Object.assign(new Error("the request carries no key set (\"keys\") to verify the signature with"), { code: "no key set" });
    }
    // Each key is judged at this page's clock, never at the decided_at its signer wrote.
    verified = api.verifyEnvelope(request.signed, request.keys, Date.now());
  } catch (err) {
    box.dataset.verified = "false";
    status.textContent = `✕ The signature does not hold: ${err.code ?? "error"}`;
    facts.replaceChildren(
      ...fact("Code", el("code", "", String(err.code ?? "(none)"))),
      ...fact("Path", el("code", "", err.path === "" ? '"" (the whole envelope)' : String(err.path ?? ""))),
      ...fact("Message", el("span", "", String(err.message ?? err))),
    );
    return null;
  }
  const record = verified.approval;
  const keyid = verified.signer.keyid;
  const entry = request.keys.service_keys?.[keyid];
  const matches = api.digestEqual(record.action_digest, fingerprint);
  box.dataset.verified = "true";
  status.textContent = "✓ Signed by a service key the key set trusts, verified in this page.";
  facts.replaceChildren(
    ...fact("Key id", el("code", "digest", keyid), el("span", "hint", " RFC 7638 thumbprint of the Ed25519 key")),
    ...fact("Key valid", el("span", "", windowText(entry))),
    ...fact("Key signs for", el("span", "", entry?.approvers ? entry.approvers.join(", ") : "any approver")),
    ...fact("Approver", showString(record.approver).node),
    ...fact("Decision", el("span", `tag ${record.decision === "approved" ? "ok" : "bad"}`, record.decision)),
    ...fact("Decided", el("span", "", when(record.decided_at))),
    ...fact("Valid until", el("span", "", when(record.expires_at))),
    ...fact("About", el("code", "digest", showDigest(record.action_digest, { highlight: 0 })),
      el("span", matches ? "tag ok" : "tag bad", matches ? "is the action shown" : "is another action")),
  );
  for (const [name, value] of [["keyid", keyid], ["approver", record.approver], ["matches", String(matches)]]) {
    box.dataset[name] = value;
  }
  return record;
}
