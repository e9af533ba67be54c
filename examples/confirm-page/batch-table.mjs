// Every item of a batch as one row of a table, so that a reviewer sees all of them, not the
// first: the members every item shares once above the table, and per row each argument and
// each member that varies, with the values that differ from the first item highlighted (in
// words too, for a screen reader). Display only: what is decided is the batch fingerprint.

import { el, showScalar, showString } from "./render.mjs";

/** One JSON Pointer token, escaped as RFC 6901 says. */
const token = (key) => key.replaceAll("~", "~0").replaceAll("/", "~1");

const isContainer = (v) => v !== null && typeof v === "object";

/**
 * The leaves of `value` by JSON Pointer, depth first in member order: scalars, and empty
 * arrays and objects (which have no leaf of their own to show).
 */
export function leaves(value, pointer = "", out = new Map()) {
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : isContainer(value) ? Object.entries(value) : null;
  if (entries === null || entries.length === 0) {
    out.set(pointer, value);
    return out;
  }
  for (const [key, v] of entries) leaves(v, `${pointer}/${token(key)}`, out);
  return out;
}

/** Two leaves (or absences) are the same when their JSON texts are. */
export const same = (a, b) => (a === undefined ? b === undefined : b !== undefined && JSON.stringify(a) === JSON.stringify(b));

/**
 * The kind of every array and object of `value` by JSON Pointer. A pointer does not tell an
 * array from an object with the same keys: `["a"]` and `{"0": "a"}` have the same leaves.
 */
function kinds(value, pointer = "", out = new Map()) {
  if (!isContainer(value)) return out;
  out.set(pointer, Array.isArray(value) ? "array" : "object");
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, v] of entries) kinds(v, `${pointer}/${token(key)}`, out);
  return out;
}

/** The pointers of the containers `pointer` passes through, the whole value first. */
const above = (pointer) => pointer.split("/").slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join("/"));

/**
 * Which pointers are shown where: `common` (an envelope member equal in every item, shown
 * once) and `columns` (every argument, and every envelope member that varies), in the order
 * they first appear.
 */
export function layout(actions) {
  const all = actions.map((a) => leaves(a));
  const shapes = actions.map((a) => kinds(a));
  const order = [...new Set(all.flatMap((l) => [...l.keys()]))];
  const args = (p) => p === "/args" || p.startsWith("/args/");
  // Item `i`'s leaf at `p` differs from the first item's: its value, or the kind of a
  // container on its way there.
  const differs = (i, p) =>
    !same(all[i].get(p), all[0].get(p)) || above(p).some((c) => shapes[i].get(c) !== shapes[0].get(c));
  const shared = (p) => all.every((l, i) => l.has(p) && !differs(i, p));
  return {
    all,
    differs,
    common: order.filter((p) => !args(p) && shared(p)),
    columns: [...order.filter(args), ...order.filter((p) => !args(p) && !shared(p))],
  };
}

/**
 * A pointer as a column header shows it: each token as the pointer writes it, `~1` for a `/`
 * in a key (as the single action's table shows keys), so that a key `"limits/max"` and the
 * member `max` of `limits` never read alike.
 */
export function pointerLabel(pointer) {
  if (pointer === "") return el("span", "", "(the item)");
  const node = el("span", "path mono");
  for (const t of pointer.split("/").slice(1)) {
    node.append(el("span", "seg", "/", showString(t, { quotes: false }).node));
  }
  return node;
}

/** A value in a cell, with what core's notices marked in it said in words. */
function valueCell(value, changed) {
  const td = el("td", changed ? "value changed" : "value");
  if (value === undefined) {
    td.append(el("span", "missing", "absent"));
  } else {
    const shown = showScalar(value);
    td.append(shown.node);
    if (shown.notes.length > 0) td.append(el("span", "warn", `⚠ ${shown.notes.join(", ")}`));
  }
  if (changed) {
    td.dataset.changed = "";
    td.append(el("span", "visually-hidden", " (differs from item 1)"));
  }
  return td;
}

/**
 * The table's head row and one row per item: a checkbox (include the item), its number, each
 * column's value, and its fingerprint's short form (`digests[i]`, computed in the page).
 */
export function itemRows(api, actions, { columns, all, differs }, digests) {
  const head = el("tr", "",
    el("th", "pick", "Include"),
    el("th", "num", "#"),
    ...columns.map((p) => {
      const th = el("th", "", pointerLabel(p));
      th.dataset.pointer = p;
      return th;
    }),
    el("th", "", "Fingerprint"));
  for (const th of head.children) th.scope = "col";
  const rows = actions.map((_, i) => {
    const include = el("input", "include");
    include.type = "checkbox";
    include.checked = true;
    include.dataset.index = String(i);
    include.setAttribute("aria-label", `Include item ${i + 1}`);
    const num = el("th", "num", String(i + 1));
    num.scope = "row";
    const cells = columns.map((p) => {
      const td = valueCell(all[i].get(p), i > 0 && differs(i, p));
      td.dataset.pointer = p;
      return td;
    });
    const digest = el("td", "digest-cell mono", api.shortFingerprint(digests[i]));
    digest.dataset.digest = digests[i];
    const row = el("tr", i === 0 ? "reference" : "", el("td", "pick", include), num, ...cells, digest);
    row.dataset.index = String(i);
    if (cells.some((c) => c.dataset.changed !== undefined)) row.classList.add("differs");
    return row;
  });
  return { head, rows };
}

/** Marks the row (and cell) of item `index` that `message` is about: core's refusal. */
export function markOffending(rows, index, pointer, message) {
  const row = rows[index];
  if (row === undefined) return;
  row.classList.add("offending");
  const cell = row.querySelector(`td[data-pointer="${CSS.escape(pointer)}"]`) ?? row.querySelector("th.num");
  cell.append(el("span", "offence", `✕ ${message}`));
  // Scrolled to within the table (not the page), so the refused item is in view.
  const wrap = row.closest(".items-wrap");
  if (wrap !== null) wrap.scrollTop = row.offsetTop - wrap.clientHeight / 3;
}
