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

// Which characters a reader could miss or misread is core's rule (`notices`), the one an
// approval server applies when it asks the reviewer to acknowledge them: these helpers only
// draw what core found. `useCore(api)` hands them the actionseal module the page loaded.
let readNotices = null;

/** Gives the display helpers core's `notices` (from the actionseal-wasm module in use). */
export function useCore(api) {
  readNotices = api.notices;
}

function noticesOf(value) {
  if (readNotices === null) throw new Error("render.mjs: call useCore(api) before showing values");
  return readNotices(value);
}

const SHORT_ESCAPES = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** A `\u200B`-style escape for one character (code point form beyond the BMP). */
/** `U+202E`, as core's notices write a code point. */
const codePoint = (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

function escapeOf(c) {
  if (SHORT_ESCAPES[c]) return SHORT_ESCAPES[c];
  const cp = c.codePointAt(0);
  return cp > 0xffff ? `\\u{${cp.toString(16).toUpperCase()}}` : `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** What a mark of a notice says in words: "invisible U+200B", "non-ASCII U+0430", "leading space". */
export function noticeNote(m) {
  switch (m.kind) {
    case "invisible":
      return `invisible ${m.code_point}`;
    case "non_ascii":
      return `non-ASCII ${m.code_point}`;
    case "leading_space":
      return "leading space";
    default:
      return "trailing space";
  }
}

/**
 * A string as a reader must see it: between quotes, with the characters core notices marked:
 * invisible ones as escapes, leading and trailing spaces as ␣, and non-ASCII letters
 * underlined (with their code points in a tooltip). Returns {node, notes}: notes say what was
 * marked.
 */
export function showString(s, { quotes = true } = {}) {
  const node = el("span", quotes ? "str" : "str bare");
  const notes = new Set();
  // A string is one notice at most; it lists the first 64 of the characters it counts.
  const notice = noticesOf(s)[0];
  const marks = new Map((notice?.marks ?? []).map((m) => [m.at, m]));
  // Past the last listed mark of a notice that counts more, core has not said which characters
  // are invisible: every one outside printable ASCII is shown as its escape, so that none (a
  // bidirectional override among them) acts on the text around it.
  const unlisted = notice && notice.count > notice.marks.length ? notice.marks.at(-1).at : Infinity;
  let plain = "";
  const flush = () => {
    if (plain) node.append(plain);
    plain = "";
  };
  Array.from(s).forEach((c, i) => {
    const n = marks.get(i);
    if (n === undefined && i > unlisted && !(c >= " " && c <= "~")) {
      flush();
      const mark = el("span", "esc", escapeOf(c));
      mark.title = `${codePoint(c)}: past the characters listed one by one, shown escaped`;
      node.append(mark);
      return;
    }
    if (n === undefined) {
      plain += c;
      return;
    }
    flush();
    let mark;
    if (n.kind === "invisible") {
      mark = el("span", "esc", escapeOf(c));
      mark.title = `${n.code_point}: not visible as itself`;
    } else if (n.kind === "non_ascii") {
      mark = el("mark", "nonascii", c);
      mark.title = `${n.code_point}: not ASCII`;
    } else {
      mark = el("span", "esc space", "␣");
      mark.title = noticeNote(n);
    }
    node.append(mark);
    notes.add(noticeNote(n));
  });
  flush();
  if (notice && notice.count > notice.marks.length) {
    node.append(el("span", "esc more", `+${notice.count - notice.marks.length} more`));
    notes.add(`${notice.count} characters to check`);
  }
  if (s === "") node.append(el("span", "empty", "empty"));
  return { node, notes: [...notes] };
}

/** The JSON Pointer tokens of `pointer` ("/a~1b/0" -> ["a/b", "0"]). */
export const pointerTokens = (pointer) => pointer.split("/").slice(1).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));

/** The value at `pointer` inside `root` (undefined when it is not there). */
export function valueAt(root, pointer) {
  let node = root;
  for (const t of pointerTokens(pointer)) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, t)) return undefined;
    node = node[t];
  }
  return node;
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

/** A definition list's term and its details. */
export function fact(term, ...details) {
  return [el("dt", "", term), el("dd", "", ...details)];
}

const OPS = { gt: ">", gte: "≥", lt: "<", lte: "≤", eq: "=", ne: "≠", in: "is one of", not_in: "is not one of", contains: "contains", exists: "is present", absent: "is absent" };

/** Words for one condition of an approval rule: "/amount_minor > 1000". */
export function conditionText(c) {
  if (c.any !== undefined) return `some element of ${c.pointer} has ${conditionText(c.any)}`;
  if (c.all !== undefined) return `every element of ${c.pointer} has ${conditionText(c.all)}`;
  const value = "value" in c ? ` ${JSON.stringify(c.value)}` : "";
  return `${c.pointer || "(the element)"} ${OPS[c.op] ?? c.op}${value}`;
}

/** Words for the contract rule a requirement names (core's `requiresApproval(...).rule`). */
export function ruleText(doc, rule) {
  // Under a quorum or separation, "always" is spelled `{"when": "always", ...}` (issue 25).
  const always = doc.approval === "always" || doc.approval?.when === "always";
  if (rule === "/approval") return always ? "every call needs approval" : "no call needs approval";
  if (rule === "/approval/when") return "none of the contract's conditions holds";
  return conditionText(doc.approval.when[Number(rule.split("/").pop())]);
}

/** Words for a contract's quorum: "2 distinct approvers: finance (1), risk (1), in any order; one rejection vetoes". */
export function quorumText(q) {
  const roles = (q.roles ?? []).map((r) => `${r.role} (${r.count})`).join(", ");
  const order = q.order === "as_listed" ? "in the order listed" : "in any order";
  const veto = q.veto === "none" ? "a rejection just does not count" : "one rejection vetoes";
  return `${q.approvers} distinct approver${q.approvers === 1 ? "" : "s"}${roles ? `: ${roles}` : ""}, ${order}; ${veto}`;
}

/** Words for a contract's batch member: "up to 50 items per decision; stops after 3 failed or unknown outcomes within 10 min, ...". */
export function batchText(b) {
  const parts = [`up to ${b.max_items} items per decision`];
  const k = b.breaker;
  if (k !== undefined) {
    const minutes = k.window_ms % 60000 === 0 ? `${k.window_ms / 60000} min` : `${k.window_ms} ms`;
    parts.push(`stops after ${k.max_failures} failed or unknown outcomes within ${minutes}` +
      (k.max_claims_per_minute === undefined ? "" : ` or more than ${k.max_claims_per_minute} claims a minute`) +
      `, and resumes after ${k.close_after} successes once a reviewer re-approves the rest`);
  }
  return parts.join("; ");
}

/** Code, path and message of an actionseal error, as a small definition list. */
export function errorDetails(err) {
  const list = el("dl", "error-details");
  list.append(
    ...fact("Code", el("code", "", String(err?.code ?? "(none)"))),
    ...fact("Path", el("code", "", err?.path === "" ? '"" (the whole value)' : String(err?.path ?? ""))),
    ...fact("Message", el("span", "", String(err?.message ?? err))),
  );
  return list;
}

/** The facts of a loaded contract (a `Contract`): tool, version, effect, cost, rule, fingerprint. */
export function contractFacts(contract) {
  const doc = contract.document;
  const when = typeof doc.approval === "string" ? doc.approval : doc.approval.when;
  const rule = typeof when === "string" ? when : when.map(conditionText).join("  or  ");
  const quorum = typeof doc.approval === "object" && doc.approval.quorum !== undefined ? doc.approval.quorum : null;
  const separation = typeof doc.approval === "object" && doc.approval.separation !== undefined ? doc.approval.separation : null;
  return [
    ...fact("Tool", showString(contract.tool).node),
    ...fact("Version", showString(contract.version).node),
    ...fact("Effect", el("span", `tag ${contract.effect === "write" ? "write" : "read"}`, contract.effect === "write" ? "write — changes something" : "read only")),
    ...fact("Cost per call", el("span", "mono", `${contract.costMinor} minor units`)),
    ...fact("Approval rule", el("span", "mono", rule)),
    ...(quorum === null ? [] : fact("Quorum", el("span", "", quorumText(quorum)))),
    ...(separation === null ? [] : fact("Separation", el("span", "", `an approver may not be the ${separation.join(", the ")}`))),
    ...(doc.batch === undefined ? [] : fact("Batches", el("span", "", batchText(doc.batch)))),
    ...fact("Fingerprint", el("code", "digest", showDigest(contract.digest, { highlight: 0 }))),
  ];
}

/** Offers JSON text to the person as a file called `name` (made in the page, sent nowhere). */
export function download(text, name) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const link = el("a", "", "");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
