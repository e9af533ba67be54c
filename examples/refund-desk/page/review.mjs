// What a reviewer must see before deciding (seed 002): why a person is asked (the contract rule
// that fired), the resource, a summary of the arguments, the estimated cost and the side
// effects, all generated from the frozen action, its contract and the server's presentation
// of the tool (desk/refunds.py REVIEW), never from the model's words; and which values hold
// characters a reader could miss or misread (core's `notices`).

import { el, fact, noticeNote, ruleText, showScalar, showString, valueAt } from "/confirm-page/render.mjs";

/** A value of the arguments as a reader must see it (marked by core's notices). */
function shown(args, pointer) {
  const v = valueAt(args, pointer);
  return v === undefined ? el("span", "missing", `(no ${pointer})`) : showScalar(v).node;
}

/** "Refund {/amount_minor} ..." with each {pointer} replaced by the frozen value there. */
export function fill(template, args) {
  return template.split(/(\{\/[^}]*\})/).filter(Boolean)
    .map((part) => (part.startsWith("{/") ? shown(args, part.slice(1, -1)) : part));
}

/** The flagged values of an action (core's `notices`): [{pointer, notes}], one per pointer, in order. */
export function flagsOf(notices) {
  const by = new Map();
  for (const n of notices) {
    const where = n.within === "key" ? "in the key, " : "";
    if (!by.has(n.pointer)) by.set(n.pointer, []);
    const notes = by.get(n.pointer);
    notes.push(...n.marks.map((m) => `${noticeNote(m)} (${where}character ${m.at + 1})`));
    if (n.count > n.marks.length) notes.push(`${n.count - n.marks.length} more`);
  }
  return [...by].map(([pointer, notes]) => ({ pointer, notes }));
}

/** A warning sign with the flagged values' notes, for wherever the values appear. */
export function flagBadge(flags) {
  const text = flags.map((f) => `${f.pointer}: ${f.notes.join(", ")}`).join("; ");
  const badge = el("span", "flag", "⚠ check values");
  badge.title = text;
  badge.append(el("span", "visually-hidden", `: ${text}`));
  return badge;
}

/** Why a person is asked: the contract's rule that fired (core's `requiresApproval`). */
function why(doc, requirement, args) {
  if (!requirement.required) return [`the contract does not require approval for this call (${ruleText(doc, requirement.rule)})`];
  const out = [`the contract asks for a person when `, el("code", "rule", ruleText(doc, requirement.rule))];
  const i = requirement.rule.match(/^\/approval\/when\/(\d+)$/)?.[1];
  const condition = i === undefined ? null : doc.approval.when[Number(i)];
  if (condition && condition.op && valueAt(args, condition.pointer) !== undefined) {
    out.push(`: here ${condition.pointer} is `, shown(args, condition.pointer));
  }
  return out;
}

/**
 * The facts a reviewer decides on, as <dt>/<dd> pairs: why approval is needed, the resource,
 * the summary, the estimated cost and the side effects. `contract` is a loaded `Contract`.
 */
export function reviewFacts(action, contract, review, requirement) {
  const doc = contract.document;
  const args = action.args;
  const identity = [" · tenant ", showString(action.tenant).node, " · on behalf of ", showString(action.subject).node];
  const effect = el("span", `tag ${contract.effect === "write" ? "write" : "read"}`,
    contract.effect === "write" ? "write: changes something" : "read only");
  const budget = `${contract.costMinor} minor units per call charged to the tenant's budget (the contract's cost_minor)`;
  if (!review) {
    return [
      ...fact("Why you are asked", ...why(doc, requirement, args)),
      ...fact("Resource", showString(action.tool).node, ...identity),
      ...fact("Summary", ...Object.keys(args).flatMap((k, i) => [i ? ", " : "", `${k} `, shown(args, `/${k}`)])),
      ...fact("Estimated cost", budget),
      ...fact("Side effects", effect),
    ];
  }
  const money = review.money;
  return [
    ...fact("Why you are asked", ...why(doc, requirement, args)),
    ...fact("Resource", `${review.resource.slice(1)} `, shown(args, review.resource), ...identity),
    ...fact("Summary", ...fill(review.summary, args), el("span", "hint", " (from the frozen arguments)")),
    ...fact("Estimated cost", ...(money ? [shown(args, money.amount), " minor units of ", shown(args, money.currency), " paid out; "] : []), budget),
    ...fact("Side effects", effect, el("ul", "effects", ...review.effects.map((e) => el("li", "", e)))),
  ];
}

/** The proposed or corrected action in one line, for the correction summary. */
export function oneLine(action, review) {
  return review ? fill(review.summary, action.args) : [JSON.stringify(action.args)];
}
