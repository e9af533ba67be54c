// How the page shows JSON values to a person: every string so that what cannot be seen is
// seen, and the arguments as a table of JSON Pointers. Display only: what is approved is the
// data itself, through its fingerprint.

/** An element with a class and children (strings or nodes). */
export function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children);
  return node;
}

// Characters a reader cannot see or could mistake for others: controls, format characters
// (zero-width, bidirectional overrides, BOM), line and paragraph separators, spaces other
// than U+0020, private-use and unassigned code points, and default-ignorables (variation
// selectors, Hangul fillers).
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]|[^\S ]|\p{Zs}/u;
const SHORT_ESCAPES = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** "U+0430" for a character. */
const codePoint = (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

/** A `\u200B`-style escape for one character (code point form beyond the BMP). */
function escapeOf(c) {
  if (SHORT_ESCAPES[c]) return SHORT_ESCAPES[c];
  const cp = c.codePointAt(0);
  return cp > 0xffff ? `\\u{${cp.toString(16).toUpperCase()}}` : `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * A string as a reader must see it: between quotes, with controls and invisible characters
 * as escapes, leading and trailing spaces marked, and non-ASCII letters underlined (with
 * their code points in a tooltip). Returns {node, notes}: notes say what was marked.
 */
export function showString(s, { quotes = true } = {}) {
  const node = el("span", quotes ? "str" : "str bare");
  const notes = new Set();
  const chars = Array.from(s);
  let lead = 0;
  while (lead < chars.length && chars[lead] === " ") lead++;
  let trail = chars.length;
  while (trail > lead && chars[trail - 1] === " ") trail--;
  let plain = "";
  const flush = () => {
    if (plain) node.append(plain);
    plain = "";
  };
  chars.forEach((c, i) => {
    if (c === " " && (i < lead || i >= trail)) {
      flush();
      const mark = el("span", "esc space", "␣");
      mark.title = i < lead ? "leading space" : "trailing space";
      node.append(mark);
      notes.add(i < lead ? "leading space" : "trailing space");
    } else if (c !== " " && INVISIBLE.test(c)) {
      flush();
      const mark = el("span", "esc", escapeOf(c));
      mark.title = `${codePoint(c)}: not visible as itself`;
      node.append(mark);
      notes.add(`invisible ${codePoint(c)}`);
    } else if (c > "\x7e") {
      flush();
      const mark = el("mark", "nonascii", c);
      mark.title = `${codePoint(c)}: not ASCII`;
      node.append(mark);
      notes.add(`non-ASCII ${codePoint(c)}`);
    } else {
      plain += c;
    }
  });
  flush();
  if (s === "") node.append(el("span", "empty", "empty"));
  return { node, notes: [...notes] };
}

/** One JSON Pointer token, escaped as RFC 6901 says. */
const token = (key) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** The JSON type a reader needs: integer and number told apart. */
function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** A scalar's display: a string as `showString` shows it, anything else as JSON text. */
export function showScalar(v) {
  if (typeof v === "string") return showString(v);
  return { node: el("span", `lit ${typeOf(v)}`, JSON.stringify(v)), notes: [] };
}

/**
 * Table rows for every member of `args`, depth first, containers included (with their
 * size), each with its JSON Pointer. Keys and strings are shown with `showString`.
 */
export function argumentRows(args) {
  const rows = [];
  const walk = (value, pathNodes, pointer, depth) => {
    const type = typeOf(value);
    if (depth > 0) {
      const path = el("span", "path mono");
      path.append(...pathNodes.map((n) => n.cloneNode(true)));
      let shown;
      if (type === "array") {
        shown = { node: el("span", "container", value.length === 0 ? "[ ] empty array" : `${value.length} item${value.length === 1 ? "" : "s"}`), notes: [] };
      } else if (type === "object") {
        const n = Object.keys(value).length;
        shown = { node: el("span", "container", n === 0 ? "{ } empty object" : `${n} member${n === 1 ? "" : "s"}`), notes: [] };
      } else {
        shown = showScalar(value);
      }
      const cell = el("td", "value mono", shown.node);
      const notes = [...new Set([...pathNodes.flatMap((n) => n.notes ?? []), ...shown.notes])];
      if (notes.length > 0) {
        cell.append(el("span", "warn", `⚠ ${notes.join(", ")}`));
      }
      const pathCell = el("th", "", path);
      pathCell.scope = "row";
      pathCell.style.setProperty("--depth", String(depth - 1));
      const row = el("tr", notes.length ? "flagged" : "", pathCell, el("td", "type", type), cell);
      row.dataset.pointer = pointer;
      rows.push(row);
    }
    if (type === "array") {
      value.forEach((item, i) => walk(item, [...pathNodes, segment(String(i))], `${pointer}/${i}`, depth + 1));
    } else if (type === "object") {
      for (const key of Object.keys(value)) {
        walk(value[key], [...pathNodes, segment(token(key))], `${pointer}/${token(key)}`, depth + 1);
      }
    }
  };
  walk(args, [], "", 0);
  return rows;
}

/** "/" and a pointer token, shown as a key is shown, remembering what was marked in it. */
function segment(tok) {
  const { node, notes } = showString(tok, { quotes: false });
  const span = el("span", "seg", "/", node);
  span.notes = notes.map((n) => `${n} in key`);
  return span;
}

/** A fingerprint with its 64 hex digits in groups of four (no spaces in the text itself). */
export function showDigest(digest, { highlight = 4 } = {}) {
  const node = document.createDocumentFragment();
  const [scheme, hex] = digest.split(":");
  node.append(el("span", "scheme", `${scheme}:`));
  for (let i = 0; i < hex.length; i += 4) {
    node.append(el("span", i / 4 < highlight ? "group spoken" : "group", hex.slice(i, i + 4)));
  }
  return node;
}
