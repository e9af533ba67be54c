// Values a contract marks sensitive (issue 29), as a reviewer's page shows them: this page's and
// the refund desk's. The ledger froze each as a commitment, {"_sd": "sha256:<hex>"}, and keeps
// its disclosure apart; a page shows each place marked sensitive with its class and its
// commitment, and, for each disclosure it is given, the value once WebAssembly checked it
// against the commitment at its place (core's reveal, coverage "given": the places without a
// disclosure stay committed). A disclosure that does not open its commitment is an error on the
// page, with its code, and no value is shown.

import { el, showString } from "./render.mjs";

/** RFC 6901 tokens of a pointer below /args/ (`*` kept: every element of an array). */
function tokens(pointer) {
  return pointer.split("/").slice(2).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/**
 * Each concrete place of `args` a sensitive pointer matches, with what is there and where it
 * hangs: [{pointer, value, parent, key}].
 */
function placesOf(args, pointer) {
  const out = [];
  const walk = (value, rest, at, parent, key) => {
    if (rest.length === 0) return out.push({ pointer: at, value, parent, key });
    const [t, ...more] = rest;
    if (t === "*" && Array.isArray(value)) value.forEach((v, i) => walk(v, more, `${at}/${i}`, value, i));
    else if (Array.isArray(value)) { if (/^(0|[1-9][0-9]*)$/.test(t) && Number(t) < value.length) walk(value[Number(t)], more, `${at}/${t}`, value, Number(t)); }
    else if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, t)) {
      walk(value[t], more, `${at}/${t.replaceAll("~", "~0").replaceAll("/", "~1")}`, value, t);
    }
  };
  walk(args, tokens(pointer), "/args", null, null);
  return out;
}

/** `args` with each value contract document `doc` marks sensitive replaced by a mark: what a log may show. */
export function masked(doc, args) {
  const copy = structuredClone(args);
  for (const pointer of Object.keys(doc?.sensitive ?? {})) {
    for (const p of placesOf(copy, pointer)) p.parent[p.key] = "(sensitive)";
  }
  return copy;
}

const isCommitment = (v) => v !== null && typeof v === "object" && !Array.isArray(v) &&
  Object.keys(v).length === 1 && typeof v._sd === "string";

/**
 * The sensitive places of `committed` (an action envelope the ledger froze) under contract
 * document `doc`, each `{pointer, class, commitment, disclosed, value}`: `disclosed` when
 * `revealed` (the same action after `revealAction`) holds the value there.
 */
export function sensitivePlaces(doc, committed, revealed = committed) {
  return Object.entries(doc.sensitive ?? {}).flatMap(([pointer, cls]) =>
    placesOf(committed.args, pointer).filter((p) => isCommitment(p.value)).map((p) => {
      const now = placesOf(revealed.args, p.pointer)[0]?.value;
      const disclosed = now !== undefined && !isCommitment(now);
      return { pointer: p.pointer, class: cls, commitment: p.value._sd, disclosed, value: disclosed ? now : undefined };
    }));
}

/**
 * The action to show and validate: `committed` with the values `disclosures` open, each checked
 * in WebAssembly (`reveal` is the wasm package's `revealAction`); `{action, error}`, the error
 * `{code, path, message}` of the first disclosure that does not open its commitment (then no
 * value is shown at all).
 */
export function revealForReview(reveal, contract, committed, disclosures) {
  if (disclosures.length === 0) return { action: committed, error: null };
  try {
    return { action: reveal(contract, committed, disclosures, "given"), error: null };
  } catch (e) {
    return { action: committed, error: { code: e.code, path: e.path, message: e.message } };
  }
}

/** The mark beside a sensitive place: its class, and whether this page checked its value. */
function sensitiveMark(p) {
  const mark = el("span", `tag sensitive ${p.disclosed ? "ok" : ""}`, `sensitive · ${p.class}`);
  mark.title = p.disclosed ? "disclosed to this page and checked against its commitment in WebAssembly"
    : "frozen as a commitment: the value is not on this page";
  return mark;
}

/**
 * Draws a page's "Sensitive values" section (`section`, hidden without a place; its `list`, a
 * `<dl>`): each place as its pointer and mark, its commitment, and its value once checked, or
 * why there is none (`error`: a disclosure that did not open its commitment; `shredded`: the
 * ledger destroyed the values); the section's `data-state` says which.
 */
export function showSensitive(section, list, places, error, shredded = false) {
  section.hidden = places.length === 0;
  list.replaceChildren(...facts(places, error, shredded));
  section.dataset.state = error ? "error" : places.every((p) => p.disclosed) ? "disclosed" : shredded ? "shredded" : "committed";
}

function facts(places, error, shredded) {
  const state = (p) => {
    if (error) return el("span", "problem", `not shown: a disclosure does not open its commitment (${error.code} at ${error.path})`);
    if (p.disclosed) return [showString(p.value).node, " ", el("span", "tag ok", "checked in WebAssembly against its commitment")];
    return shredded ? "shredded by the ledger: the value is gone" : "not disclosed to this page";
  };
  return places.flatMap((p) => [
    el("dt", "", el("code", "", p.pointer), " ", sensitiveMark(p)),
    el("dd", "", el("code", "digest", p.commitment), el("br"), ...[state(p)].flat()),
  ]);
}

/** Marks each row of an arguments table (`argumentRows`) that holds a sensitive place. */
export function markSensitiveRows(table, places) {
  for (const p of places) {
    const row = table.querySelector(`tr[data-pointer="${CSS.escape(p.pointer.slice("/args".length))}"]`);
    row?.classList.add("sensitive");
    row?.lastElementChild.append(" ", sensitiveMark(p));
  }
}
