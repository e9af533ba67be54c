// The batch review's table, as data (no core): which columns the items' actions have, which of
// each item's values differ from the first item's (what a reviewer's eye should stop at in a
// list of near-identical refunds), and the batch's totals beside its caps, read from core's
// batchBuild result (core computes and enforces them; this only lays them out). The leaves,
// the layout and what counts as the same value are the confirmation page's (one file for both:
// imported by a path that resolves there from Node and, as the desk mounts that page at
// /confirm-page/, from the browser); the desk only keeps the identity apart.

import { layout } from "../../confirm-page/batch-table.mjs";

export { leaves } from "../../confirm-page/batch-table.mjs";

// A task's identity differs from item to item by design (no identity twice in a batch): shown,
// never highlighted. The contract's fingerprint and the tenant are one per batch (core checks).
const IDENTITY = ["/job_id", "/request_id"];

/**
 * The table of a batch's `actions` (frozen actions, in batch order), laid out as the
 * confirmation page lays out its batch (its `layout`: the same leaves, columns and sameness),
 * with the identity kept apart. `columns`: every argument (`/args/...`), then any other member
 * that is not the same in every item, then the identity; `common`: `[pointer, value]` of the
 * members the same in every item (shown once, above the table). Per item, `cells` (pointer ->
 * value, `undefined` where the item has none) and `changed`, the pointers whose value differs
 * from the first item's (identity excepted).
 */
export function batchTable(actions) {
  const { all, common, columns, differs } = layout(actions);
  const identity = IDENTITY.filter((p) => all.some((l) => l.has(p)));
  const shown = [...columns.filter((p) => !IDENTITY.includes(p)), ...identity];
  const first = all[0] ?? new Map();
  const rows = all.map((l, index) => ({
    index,
    cells: new Map(shown.map((p) => [p, l.get(p)])),
    changed: new Set(shown.filter((p) => !IDENTITY.includes(p) && differs(index, p))),
  }));
  return {
    columns: shown,
    common: common.filter((p) => !IDENTITY.includes(p)).map((p) => [p, first.get(p)]),
    rows,
  };
}

const CAP_WORDS = {
  count: () => "items",
  sum: (cap) => `sum of ${cap.pointer}`,
  distinct: (cap) => `distinct ${cap.pointer}`,
};

/**
 * The totals against the caps of a batch core built (`batchBuild`/`batchDeselect`'s result:
 * `{caps, totals}`): one row per cap, `{cap, words, total, max}`. Core refused a batch over a
 * cap already (`batch_cap_exceeded`), so a row here is within it.
 */
export function capRows(built) {
  return ["count", "sum", "distinct"].filter((k) => built.caps?.[k] !== undefined).map((k) => {
    const cap = built.caps[k];
    const max = typeof cap === "object" ? cap.max : cap;
    return { cap: k, words: CAP_WORDS[k](cap), total: built.totals[k], max };
  });
}
