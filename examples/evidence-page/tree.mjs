// A JSON document as a tree a person can read, with the member a JSON Pointer names (and the
// members that contain it) marked: where verification broke. Display only; the pointer is
// core's, this file just finds the member it names.

import { el, pointerTokens, showScalar } from "../confirm-page/render.mjs";

/** One RFC 6901 reference token. */
const token = (key) => String(key).replaceAll("~", "~0").replaceAll("/", "~1");

const isContainer = (v) => v !== null && typeof v === "object";

/** "3 members", "1 item": what a closed container holds. */
function size(value) {
  const n = Array.isArray(value) ? value.length : Object.keys(value).length;
  const noun = Array.isArray(value) ? "item" : "member";
  return n === 0 ? (Array.isArray(value) ? "[ ] empty" : "{ } empty") : `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/**
 * The longest prefix of `pointer` that names a member of `root` (a pointer to a member
 * that is missing names its parent's place): `{found, exact}`.
 */
export function resolve(root, pointer) {
  let node = root;
  let found = "";
  for (const t of pointerTokens(pointer)) {
    const has = Array.isArray(node) ? /^(0|[1-9][0-9]*)$/.test(t) && Number(t) < node.length : isContainer(node) && Object.hasOwn(node, t);
    if (!has) return { found, exact: false };
    node = node[t];
    found += `/${token(t)}`;
  }
  return { found, exact: true };
}

/**
 * The tree of `root`. `marked` is the pointer of the member to mark (it must name a member;
 * see `resolve`), `note` what to say at it. Containers on its path are open, and all that the
 * marked one holds; the others open on demand (a bundle may hold thousands of events).
 * Returns `{node, marked}`: the tree and the marked member's name (to scroll to).
 */
export function tree(root, marked, note) {
  let target = null;
  const onPath = (pointer) => marked === pointer || marked.startsWith(`${pointer}/`);
  // Inside the marked member everything is open (unless that is the whole document).
  const within = (pointer) => marked !== "" && pointer.startsWith(`${marked}/`);

  const member = (key, value, pointer, depth) => {
    const row = el("div", "member");
    row.dataset.pointer = pointer;
    // An object's key is a string (drawn as strings are); an array's is its index.
    const label = key === null ? el("span", "key root", "the whole document")
      : typeof key === "number" ? el("span", "key index", String(key)) : el("span", "key", showScalar(key).node);
    const head = el("span", "head", label);
    if (onPath(pointer)) row.classList.add(pointer === marked ? "broken" : "on-path");
    // What breaks is said right under the member's name, before what it holds.
    const breaks = pointer === marked ? [el("p", "breaks", note)] : [];
    if (pointer === marked) target = head;

    if (!isContainer(value)) {
      head.append(el("span", "colon", ": "), showScalar(value).node);
      row.append(head, ...breaks);
    } else {
      const box = el("details", "container-node");
      head.append(el("span", "size", Array.isArray(value) ? ` [${size(value)}]` : ` {${size(value)}}`));
      box.append(el("summary", "", head), ...breaks);
      const fill = () => {
        if (box.dataset.filled) return;
        box.dataset.filled = "1";
        const children = el("div", "children");
        const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
        for (const [k, v] of entries) {
          children.append(member(k, v, `${pointer}/${token(k)}`, depth + 1));
        }
        box.append(children);
      };
      box.addEventListener("toggle", () => box.open && fill());
      if (depth === 0 || onPath(pointer) || within(pointer)) {
        box.open = true;
        fill();
      }
      row.append(box);
    }
    return row;
  };

  const node = member(null, root, "", 0);
  return { node, marked: target };
}
