// The verified timeline as a person reads it: the task, each step (who, when, with which key
// or passkey, which executor with which fence, the outcome), the log checkpoint every step is
// in and how its time is known, and the export. It draws exactly what core's
// `verifyEvidence` returned (`Timeline::to_value`); it decides nothing.

import { el, fact, showDigest, showString } from "../confirm-page/render.mjs";

/** A time as UTC, to the second (and milliseconds when there are some): evidence is compared across zones. */
export function utc(ms) {
  const iso = new Date(ms).toISOString();
  const [day, time] = iso.split("T");
  const clock = time.endsWith(".000Z") ? time.slice(0, 8) : time.slice(0, 12);
  return `${day} ${clock} UTC`;
}

function time(ms) {
  const node = el("time", "when mono", utc(ms));
  node.dateTime = new Date(ms).toISOString();
  return node;
}

/** An identity as strings are drawn (invisible and look-alike characters marked). */
const who = (s) => showString(s).node;

const snake = (s) => s.replaceAll("_", " ");

/** What each kind of event is called, and the verb for its actor. */
const KINDS = {
  proposed: ["Proposed", "Proposed by"],
  amended: ["Amended", "Amended by"],
  decided: ["Decided", "Decided by"],
  quorum_met: ["Quorum met", "Completed by the decision of"],
  claimed: ["Claimed", "Claimed by executor"],
  completed: ["Completed", "Reported by executor"],
  reconciled: ["Reconciled", "Reconciled by"],
  revoked: ["Revoked", "Revoked by"],
  lease_expired: ["Lease expired", "Noticed by"],
};

/** The name of an outcome member for this kind of event. */
function outcomeLabel(kind) {
  if (kind === "decided") return "Decision";
  if (kind === "claimed") return "Check at claim";
  return "Outcome";
}

const GOOD = new Set(["approved", "permit", "succeeded"]);
const BAD = new Set(["rejected", "deny", "failed", "unknown", "rejected_pre_dispatch"]);

function outcomeTag(outcome) {
  const tone = GOOD.has(outcome) ? "ok" : BAD.has(outcome) ? "bad" : "neutral";
  return el("span", `tag first ${tone}`, snake(outcome));
}

/** Where the time a decision's key was judged at comes from (`verified_by`). */
function judgedBy(source) {
  if (source === "rfc3161") return "from the decision's RFC 3161 time-stamp token";
  if (source === "ledger") return "when the ledger recorded the decision";
  return `from ${source}`;
}

/** How a decision was proven: the service key or passkey, and when its key was judged. */
function proofFacts(step) {
  if (step.signer === null) {
    return step.kind === "decided"
      ? fact("Proof", el("span", "unproven", "none: the ledger recorded this decision as given, with no signature or passkey"))
      : [];
  }
  const s = step.signer;
  const signer = s.kind === "service"
    ? el("span", "", "service key ", el("code", "keyid", s.keyid))
    : s.kind === "passkey"
      ? el("span", "", "passkey ", el("code", "keyid", s.credential_id), ` (${s.algorithm})`)
      : el("code", "", JSON.stringify(s));
  return [
    ...fact("Signed with", signer),
    ...fact("Key judged at", time(step.verified_at), el("span", "hint inline", ` ${judgedBy(step.verified_by)}; the key was valid then`)),
  ];
}

/** One step of the timeline. */
function stepItem(api, step, n) {
  const [title, by] = KINDS[step.kind] ?? [snake(step.kind[0].toUpperCase() + step.kind.slice(1)), "By"];
  const item = el("li", `step kind-${step.kind}`);
  item.dataset.kind = step.kind;
  item.dataset.index = String(step.index);
  const head = el("div", "step-head",
    el("span", "step-n", String(n)),
    el("span", "step-title", title),
    time(step.at),
    el("span", "leaf", `leaf ${step.index}`));
  const facts = el("dl", "facts step-facts");
  facts.append(...fact(by, who(step.actor)));
  if (step.on_behalf_of !== null) facts.append(...fact("On behalf of", who(step.on_behalf_of)));
  if (step.outcome !== null) facts.append(...fact(outcomeLabel(step.kind), outcomeTag(step.outcome)));
  facts.append(...proofFacts(step));
  if (step.fence !== null) facts.append(...fact("Fence", el("span", "mono", String(step.fence))));
  if (step.drift.length > 0) {
    facts.append(...fact(step.kind === "amended" ? "Changed" : "Drifted at", el("span", "mono", step.drift.join(", "))));
  }
  if (step.action_digest !== null) {
    const short = el("code", "mono", api.shortFingerprint(step.action_digest));
    short.title = step.action_digest;
    facts.append(...fact("Action", short));
  }
  if (step.state !== null) facts.append(...fact("State after", el("span", "state", snake(step.state))));
  item.append(head, facts);
  return item;
}

/** Words for where the checkpoint's time comes from. */
function timeSource(source) {
  if (source === "rfc3161") return "an RFC 3161 time-stamp token that chains to a root you trust";
  if (source === "witness") return "the earliest cosignature of a witness you trust";
  return source;
}

/** Fills the timeline's sections (`parts`: the elements of index.html) from `t`. */
export function showTimeline(api, t, parts) {
  parts.tool.replaceChildren(who(t.tool));
  parts.task.replaceChildren(
    ...fact("Task", el("code", "mono", t.task)),
    ...fact("Tenant", who(t.tenant)),
    ...fact("Subject", who(t.subject)),
    ...fact("Contract", el("code", "digest", showDigest(t.contract, { highlight: 0 }))),
    ...fact("Final state", t.state === null ? el("span", "missing", "none") : el("span", "tag first state-tag", snake(t.state))),
  );
  parts.steps.replaceChildren(...t.steps.map((s, i) => stepItem(api, s, i + 1)));

  const log = t.log;
  parts.log.replaceChildren(
    ...fact("Origin", who(log.origin)),
    ...fact("Size", el("span", "", `${log.size} event${log.size === 1 ? "" : "s"} in the log`)),
    ...fact("Root", el("code", "mono root", log.root)),
    ...fact("Existed by", log.time === null
      ? el("span", "unproven", "no independent time: the bundle has neither a time-stamp nor a witness's cosignature")
      : el("span", "", time(log.time), el("span", "hint inline", ` from ${timeSource(log.time_source)}`))),
    ...fact("Witnesses", log.witnesses.length === 0
      ? el("span", "unproven", "none you trust cosigned it")
      : el("ul", "witnesses", ...log.witnesses.map((w) => el("li", "", who(w))))),
  );
  parts.export.replaceChildren(
    ...fact("Exported at", time(t.exported_at)),
    ...fact("Exported by", who(t.exported_by)),
  );
}
