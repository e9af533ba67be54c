// A task's history: the ledger's audit events, the agent's hand-offs and the desk's own records
// of each decision (what the reviewer acknowledged, why they rejected), in time order, each
// saying what happened in words: a correction names the values it changed, and a hand-off of
// the model's proposal after a correction says that the corrected action runs in its place.

import { el, valueAt } from "/confirm-page/render.mjs";
import { flagBadge, flagsOf, oneLine } from "/page/review.mjs";

const time = (ms) => new Date(ms).toISOString().slice(11, 19);

/** The history items of a task's detail `d` (as GET /api/tasks/{id} answers). */
export function historyItems(d, { short, notices, review }) {
  const t = d.task;
  const amended = t.amendments > 0 && t.proposed_digest !== t.action_digest;
  const actions = new Map([[t.proposed_digest, t.proposed_action], ...d.amendments.map((a) => [a.action_digest, a.action])]);
  const decisions = new Map(d.decisions.map((x) => [x.decision_id, x]));
  const items = d.events.map((e) => ({ at: e.at, n: 0, e }));
  d.handoffs.forEach((h) => items.push({ at: h.at, n: 1, h }));
  items.sort((a, b) => a.at - b.at || a.n - b.n);

  const handoff = (h) => {
    const flags = flagsOf(notices(h.action));
    const li = el("li", "handoff", `${time(h.at)} the agent handed over `, ...oneLine(h.action, review),
      ...(flags.length ? [" ", flagBadge(flags)] : []), h.digest === null ? "" : ` · ${short(h.digest)}`);
    if (h.digest === null) {
      // Issue 29: handed over in the clear, its sensitive values not shown here.
      li.append(el("span", "note", " — in the clear, its sensitive values not shown: the executor's claim commits it again with the ledger's salts and compares it with the decided action"));
    } else if (h.digest === t.action_digest) {
      li.append(el("span", "note", " — the action the decision is about"));
    } else if (amended && h.digest === t.proposed_digest) {
      li.append(el("span", "note", " — the model's own proposal. It was corrected before the decision, so the executor runs the corrected action in its place: ",
        ...oneLine(t.action, review), ` · ${short(t.action_digest)}`));
    } else {
      li.className = "handoff drift";
      li.append(el("span", "note", " — not the decided action: the executor refuses it and runs the approved one"));
    }
    li.dataset.kind = "handoff";
    li.dataset.amount = String(h.action.args.amount_minor);
    if (h.digest !== null) li.dataset.digest = h.digest;
    return li;
  };

  const event = (e) => {
    const li = el("li", e.kind === "tool_args_drift" ? "drift" : "", `${time(e.at)} ${e.kind.replaceAll("_", " ")} by ${e.actor}`);
    if (e.action_digest) li.append(` · ${short(e.action_digest)}`);
    const desk = e.decision_id ? decisions.get(e.decision_id) : undefined;
    if (e.kind === "decided" && desk) {
      li.append(`: ${desk.decision}`);
      if (desk.reason) li.append(el("span", "note", ` — why: “${desk.reason}”`));
      if (desk.acknowledged.length) li.append(el("span", "note", ` — after acknowledging the flagged values at ${desk.acknowledged.join(", ")}`));
      li.dataset.decision = desk.decision;
    }
    // Under a quorum: whose approval it counts as, in which role (through a delegation, whose).
    const counted = e.detail?.counted_as;
    if (e.kind === "decided" && typeof counted === "string") {
      const by = e.detail.approver;
      const who = by === undefined || counted === by ? counted : `for ${counted}, by ${by}`;
      li.append(el("span", "note", ` — ${who}${typeof e.detail.role === "string" ? ` as ${e.detail.role}` : ""}`));
    }
    if (e.kind === "amended") {
      const a = d.amendments.find((x) => x.action_digest === e.action_digest);
      const before = a ? actions.get(a.amends) : undefined;
      if (a && before) {
        const changes = e.drift.map((p) => `${p} ${JSON.stringify(valueAt(before, p))} → ${JSON.stringify(valueAt(a.action, p))}`);
        li.append(`: ${changes.join(", ")}`, el("span", "note", ` — “${a.reason}”`));
      }
    }
    if (amended && (e.kind === "claimed" || e.kind === "completed") && e.action_digest === t.action_digest) {
      li.append(el("span", "note", " (the corrected action)"));
    }
    if (e.kind === "tool_args_drift") li.append(` refused, drift at ${e.drift.join(", ")}; approved ${short(e.approved_digest)}`);
    if (e.outcome) li.append(` · ${e.outcome}`);
    if (e.reasons?.length) li.append(` (${e.reasons.join(", ")})`);
    li.dataset.kind = e.kind;
    if (e.action_digest) li.dataset.digest = e.action_digest;
    return li;
  };

  return items.map(({ e, h }) => (h ? handoff(h) : event(e)));
}
