// The approvals-so-far part of the confirmation page (issue 25). A request may carry the
// `quorum` value of the task or of a verdict (core's shape: {"required", "counted": [{"approver",
// "role", "decision_id", "delegate", "delegations"}], "missing", "missing_roles": [{"role",
// "count"}]}): the page shows "1 of 2 approvals", who approved, in what role, through which
// delegation ("for <root>, by <delegate>") and what is still missing. It draws only what the
// value says, and only when the value is whole and agrees with itself and with the contract on
// screen: a count that does not add up is shown as a problem, never as a tally.

import { el, fact, showString } from "./render.mjs";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isCount = (n, min) => Number.isSafeInteger(n) && n >= min;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const COUNTED = ["approver", "role", "decision_id", "delegate", "delegations"];

/** Why `q` is not a quorum state this page may draw for `approval` (the contract's), or null. */
export function quorumProblem(q, approval) {
  if (!isObject(q)) return "it is not an object";
  const extra = Object.keys(q).find((k) => !["required", "counted", "missing", "missing_roles"].includes(k));
  if (extra !== undefined) return `it has a member "${extra}"`;
  if (!isCount(q.required, 1)) return "required is not a count of at least 1";
  if (!isCount(q.missing, 0) || q.missing > q.required) return "missing is not a count from 0 to required";
  if (!Array.isArray(q.counted)) return "counted is not an array";
  if (!Array.isArray(q.missing_roles)) return "missing_roles is not an array";
  for (const [i, c] of q.counted.entries()) {
    if (!isObject(c) || Object.keys(c).some((k) => !COUNTED.includes(k)) || COUNTED.some((k) => !(k in c))) {
      return `counted/${i} is not {${COUNTED.join(", ")}}`;
    }
    if (typeof c.approver !== "string" || typeof c.decision_id !== "string") return `counted/${i} has no approver or decision_id`;
    if (c.role !== null && typeof c.role !== "string") return `counted/${i}/role is neither a role nor null`;
    if (c.delegate !== null && typeof c.delegate !== "string") return `counted/${i}/delegate is neither an identity nor null`;
    if (!Array.isArray(c.delegations) || !c.delegations.every((d) => typeof d === "string" && DIGEST.test(d))) {
      return `counted/${i}/delegations is not a list of digests`;
    }
    // A delegate decides through a chain, and a chain names a delegate: never one without the other.
    if ((c.delegate === null) !== (c.delegations.length === 0)) return `counted/${i} has a delegate without a chain, or a chain without a delegate`;
  }
  const approvers = new Set(q.counted.map((c) => c.approver));
  if (approvers.size !== q.counted.length) return "one approver is counted twice";
  for (const [i, r] of q.missing_roles.entries()) {
    if (!isObject(r) || typeof r.role !== "string" || !isCount(r.count, 1) || Object.keys(r).length !== 2) {
      return `missing_roles/${i} is not {role, count}`;
    }
  }
  const rolesMissing = q.missing_roles.reduce((sum, r) => sum + r.count, 0);
  if (q.missing !== Math.max(q.required - q.counted.length, rolesMissing, 0)) {
    return `missing (${q.missing}) is not what ${q.counted.length} of ${q.required} counted and the missing roles leave`;
  }
  // The contract on screen must be the one whose quorum this is.
  const quorum = isObject(approval) ? approval.quorum : undefined;
  if (!isObject(quorum)) return "the contract on screen needs one approver, not a quorum";
  if (quorum.approvers !== q.required) return `the contract needs ${quorum.approvers} approvers, not ${q.required}`;
  const roles = (quorum.roles ?? []).map((r) => r.role);
  const stray = q.missing_roles.find((r) => !roles.includes(r.role));
  if (stray !== undefined) return `the contract has no role ${JSON.stringify(stray.role)}`;
  return null;
}

/** "1 of 2 approvals". */
export const tally = (q) => `${q.counted.length} of ${q.required} approval${q.required === 1 ? "" : "s"}`;

/** An identity as it must be read, with what was marked in it (render.mjs's rule). */
function who(id) {
  const { node, notes } = showString(id);
  return notes.length === 0 ? node : el("span", "", node, el("span", "warn", ` ⚠ ${notes.join(", ")}`));
}

/** One counted approval: approver, role and, through a delegation, "for <root>, by <delegate>". */
function countedItem(c) {
  const item = el("li", "counted");
  item.dataset.approver = c.approver;
  const role = c.role === null ? el("span", "hint", "no role") : el("span", "", "as ", who(c.role));
  if (c.delegate === null) {
    item.append(who(c.approver), " ", role);
  } else {
    item.dataset.delegate = c.delegate;
    item.append("for ", who(c.approver), ", by ", who(c.delegate), " ", role);
    const chain = el("span", "chain mono", ` through ${c.delegations.length === 1 ? "delegation" : `${c.delegations.length} delegations`} `);
    chain.append(...c.delegations.flatMap((d, i) => [i ? " → " : "", el("code", "digest", `${d.slice(0, 19)}…`)]));
    chain.title = c.delegations.join("\n");
    item.append(chain);
  }
  item.append(el("span", "hint", " decision "), who(c.decision_id));
  return item;
}

/**
 * Shows the quorum state of `request` in `box` (hidden when the request carries none), for the
 * contract on screen (`contract`: a Contract, or null when it did not load). Returns the state
 * drawn, or null.
 */
export function showQuorum(box, request, contract) {
  const status = box.querySelector("#quorum-status");
  const facts = box.querySelector("#quorum-facts");
  for (const name of ["tally", "missing", "problem"]) delete box.dataset[name];
  if (!("quorum" in request)) {
    box.hidden = true;
    return null;
  }
  box.hidden = false;
  const q = request.quorum;
  const problem = quorumProblem(q, contract?.document?.approval);
  if (problem !== null) {
    box.dataset.problem = problem;
    status.className = "quorum-status bad";
    status.textContent = `✕ The approvals so far cannot be shown: ${problem}.`;
    facts.replaceChildren();
    return null;
  }
  box.dataset.tally = tally(q);
  box.dataset.missing = String(q.missing);
  status.className = `quorum-status ${q.missing === 0 ? "ok" : "waiting"}`;
  status.replaceChildren(
    el("strong", "", tally(q)),
    q.missing === 0 ? ": the quorum is met." : `: waiting for ${q.missing} more approval${q.missing === 1 ? "" : "s"}.`,
  );
  const counted = q.counted.length === 0 ? el("span", "hint", "nobody yet") : el("ul", "counted-list", ...q.counted.map(countedItem));
  const missing = q.missing === 0
    ? el("span", "hint", "nothing")
    : el("ul", "missing-list",
      el("li", "", `${q.missing} more approval${q.missing === 1 ? "" : "s"}`),
      ...q.missing_roles.map((r) => el("li", "missing-role", "in the role ", who(r.role), `: ${r.count} more`)));
  facts.replaceChildren(...fact("Approved by", counted), ...fact("Still missing", missing));
  return q;
}
