// A batch's totals against its caps (count, sum at a pointer, distinct values at a pointer),
// as rows of a table: the batch as proposed, and the reviewer's selection beside it. The caps
// in force and the totals are core's (`batchBuild`, `batchDeselect`); only a batch that core
// refused for a cap has its totals added up here, to show by how much it is over.

import { pointerLabel } from "./batch-table.mjs";
import { el, valueAt } from "./render.mjs";

/** Which cap a `batch_cap_exceeded` at `pointer` (inside the item) is about. */
export function capAt(caps, pointer) {
  if (pointer === "") return "count";
  if (caps?.sum?.pointer === pointer) return "sum";
  if (caps?.distinct?.pointer === pointer) return "distinct";
  return null;
}

/** Core's summary shape `{count, sum?, distinct?}` of `actions` under `caps`, added up here. */
export function pageTotals(api, caps, actions) {
  const totals = { count: actions.length };
  if (caps.sum !== undefined) {
    totals.sum = actions.reduce((s, a) => s + (Number.isSafeInteger(valueAt(a, caps.sum.pointer)) ? valueAt(a, caps.sum.pointer) : 0), 0);
  }
  if (caps.distinct !== undefined) {
    // Distinct as core counts them: by the fingerprint of each value.
    const values = actions.map((a) => valueAt(a, caps.distinct.pointer)).filter((v) => v !== undefined);
    totals.distinct = new Set(values.map((v) => api.fingerprint(v))).size;
  }
  return totals;
}

/** The cell of one total: the number, and whether it is within its cap. */
function totalCell(value, max, over) {
  const td = el("td", "mono", value === undefined ? "—" : String(value));
  if (value === undefined || max === undefined) return td;
  const bad = over || value > max;
  td.className = `mono ${bad ? "over" : "within"}`;
  td.append(" ", el("span", `tag ${bad ? "bad" : "ok"}`, bad ? "✕ over the cap" : "✓ within"));
  return td;
}

/**
 * Rows: one per cap core reports (the item count always), with its limit, the proposed
 * batch's total and the selection's (`selected`: null when nothing is deselected). `over`
 * names the cap core refused the batch for, if any.
 */
export function capRows(caps, proposed, selected, over = null) {
  const rows = [];
  const row = (key, what, max) => {
    const tr = el("tr", "", el("th", "", ...what), el("td", "mono", max === undefined ? "no cap" : String(max)),
      totalCell(proposed?.[key], max, over === key));
    if (selected !== null) tr.append(totalCell(selected[key], max, false));
    tr.querySelector("th").scope = "row";
    tr.dataset.cap = key;
    if (over === key) tr.classList.add("over");
    rows.push(tr);
  };
  row("count", ["Items"], caps?.count);
  if (caps?.sum !== undefined) row("sum", ["Sum of ", pointerLabel(caps.sum.pointer)], caps.sum.max);
  if (caps?.distinct !== undefined) row("distinct", ["Distinct values of ", pointerLabel(caps.distinct.pointer)], caps.distinct.max);
  return rows;
}
