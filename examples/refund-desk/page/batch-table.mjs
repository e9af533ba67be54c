// The batch review's table, as data (no DOM, no core): which columns the items' actions have,
// which of each item's values differ from the first item's (what a reviewer's eye should stop
// at in a list of near-identical refunds), and the batch's totals beside its caps, read from
// core's batchBuild result (core computes and enforces them; this only lays them out).

/** A JSON Pointer token (RFC 6901: `~` as `~0`, `/` as `~1`). */
const token = (key) => String(key).replaceAll("~", "~0").replaceAll("/", "~1");

// A task's identity differs from item to item by design (no identity twice in a batch): shown,
// never highlighted. The contract's fingerprint and the tenant are one per batch (core checks).
const IDENTITY = new Set(["/job_id", "/request_id"]);

/** Every scalar of `value` by its JSON Pointer (an empty object or array is a leaf too). */
export function leaves(value, prefix = "", out = new Map()) {
  const nested = value !== null && typeof value === "object";
  const keys = nested ? (Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value)) : [];
  if (!nested || keys.length === 0) {
    out.set(prefix, value);
    return out;
  }
  for (const k of keys) leaves(value[k], `${prefix}/${token(k)}`, out);
  return out;
}

/** One spelling per value, so that 1 and "1", or null and a missing value, never compare equal. */
const spelled = (v) => (v === undefined ? "missing" : `${typeof v}:${v === null ? "null" : String(v)}`);

/**
 * The table of a batch's `actions` (frozen actions, in batch order). `columns`: every argument
 * (`/args/...`), then any other member that is not the same in every item, then the identity;
 * `common`: `[pointer, value]` of the members the same in every item (shown once, above the
 * table). Per item, `cells` (pointer -> value, `undefined` where the item has none) and
 * `changed`, the pointers whose value differs from the first item's (identity excepted).
 */
export function batchTable(actions) {
  const flat = actions.map((a) => leaves(a));
  const all = [];
  for (const f of flat) all.push(...[...f.keys()].filter((p) => !all.includes(p)));
  const first = flat[0] ?? new Map();
  const differs = (f, p) => !IDENTITY.has(p) && spelled(f.get(p)) !== spelled(first.get(p));
  const varies = (p) => flat.some((f) => differs(f, p));
  const args = all.filter((p) => p.startsWith("/args/") || p === "/args");
  const rest = all.filter((p) => !args.includes(p) && !IDENTITY.has(p));
  const columns = [...args, ...rest.filter(varies), ...all.filter((p) => IDENTITY.has(p))];
  const common = rest.filter((p) => !varies(p)).map((p) => [p, first.get(p)]);
  const rows = flat.map((f, index) => ({
    index,
    cells: new Map(columns.map((p) => [p, f.get(p)])),
    changed: new Set(columns.filter((p) => differs(f, p))),
  }));
  return { columns, common, rows };
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
