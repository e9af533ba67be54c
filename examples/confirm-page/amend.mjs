// A reviewer's edit of the arguments before deciding (an amendment). "Edit values" puts an
// input beside every scalar argument; each keystroke re-reads the typed JSON with actionseal's
// strict parser and checks the edited action with `amend` in WebAssembly, as the ledger's
// amend will: only the arguments may change, and only within the contract. The panel shows
// the proposed and the amended fingerprints side by side with the pointers that changed, or
// the coded error of an edit that cannot be approved. The decision that follows is about the
// amended action, with the proposal's fingerprint recorded as `proposed_digest` (app.mjs).

import { el, pointerTokens as tokens, showDigest, showScalar, valueAt } from "./render.mjs";

/**
 * `root` with `value` at `pointer` (which exists): defined as an own data property, so that a
 * key such as "__proto__" stays a key and the members keep their order.
 */
function setAt(root, pointer, value) {
  const path = tokens(pointer);
  const last = path.pop();
  let node = root;
  for (const t of path) node = node[t];
  Object.defineProperty(node, last, { value, writable: true, enumerable: true, configurable: true });
}

/** A caught error as the page shows it: code, path, message. */
const coded = (err, path) => ({ code: err?.code ?? "(none)", path: path ?? err?.path ?? "", message: err?.message ?? String(err) });

/**
 * The amendment panel. `ui`: {toggle, table, panel, status, proposedShort, proposedFull,
 * amendedShort, amendedFull, changes, pointers, error}; `onChange(state)` is called after every check.
 * Returns {start(review), stop(), lock(), state()}; `state()` is {kind: "none" | "amended" |
 * "invalid", amended?, error?}.
 */
export function panel(api, ui, onChange) {
  let review = null;
  let state = { kind: "none" };
  let inputs = [];

  const show = () => {
    ui.panel.dataset.state = state.kind;
    ui.panel.hidden = state.kind === "none";
    ui.error.hidden = state.kind !== "invalid";
    for (const input of inputs) input.removeAttribute("aria-invalid");
    if (state.kind === "invalid") {
      const e = state.error;
      ui.status.textContent = "This edit cannot be approved: the executor would refuse it too.";
      ui.error.replaceChildren(
        el("dt", "", "Code"), el("dd", "", el("code", "", e.code)),
        el("dt", "", "Path"), el("dd", "", el("code", "", e.path === "" ? '"" (the whole action)' : e.path)),
        el("dt", "", "Message"), el("dd", "", e.message),
      );
      const bad = inputs.find((i) => e.path === `/args${i.dataset.pointer}` || e.path.startsWith(`/args${i.dataset.pointer}/`));
      bad?.setAttribute("aria-invalid", "true");
    } else if (state.kind === "amended") {
      ui.status.textContent = "You changed the action: your decision will be about the amended action, and the record keeps the proposal's fingerprint.";
    }
    const proposed = review.fingerprint;
    ui.proposedShort.textContent = api.shortFingerprint(proposed);
    ui.proposedFull.replaceChildren(showDigest(proposed));
    const amended = state.kind === "amended" ? state.amended.action_digest : null;
    ui.amendedShort.textContent = amended === null ? "—" : api.shortFingerprint(amended);
    ui.amendedFull.replaceChildren(amended === null ? "" : showDigest(amended));
    ui.amendedFull.hidden = amended === null;
    ui.changes.hidden = amended === null;
    ui.pointers.replaceChildren(
      ...(state.kind === "amended"
        ? state.amended.amended_pointers.map((p) => {
          const item = el("li", "", el("code", "pointer", p), " ", showScalar(valueAt(review.action, p)).node, " → ",
            showScalar(valueAt(state.amended.action, p)).node);
          item.dataset.pointer = p;
          return item;
        })
        : []),
    );
    onChange(state);
  };

  /** Reads every input, builds the edited action and checks it with `amend`. */
  const check = () => {
    const edited = inputs.filter((i) => i.value !== i.dataset.original);
    if (edited.length === 0) {
      state = { kind: "none" };
      return show();
    }
    const replacement = structuredClone(review.action);
    for (const input of edited) {
      let value;
      try {
        // Strict JSON: `2000` is a number, `"2000"` a string; nothing is guessed.
        value = api.parseJson(input.value);
      } catch (err) {
        state = { kind: "invalid", error: coded(err, `/args${input.dataset.pointer}`) };
        return show();
      }
      setAt(replacement, `/args${input.dataset.pointer}`, value);
    }
    try {
      const amended = api.amend(review.action, replacement, review.contract);
      // Typed back to what was proposed (`2500.0` for `2500`): nothing to amend.
      state = amended.amended_pointers.length === 0 ? { kind: "none" } : { kind: "amended", amended };
    } catch (err) {
      state = { kind: "invalid", error: coded(err) };
    }
    show();
  };

  ui.toggle.addEventListener("click", () => {
    const on = ui.toggle.getAttribute("aria-pressed") !== "true";
    ui.toggle.setAttribute("aria-pressed", String(on));
    ui.toggle.textContent = on ? "Stop editing" : "Edit values";
    for (const input of inputs) input.hidden = !on;
    if (!on) {
      // Leaving edit mode drops the edits: what is decided is what is on screen.
      for (const input of inputs) input.value = input.dataset.original;
      check();
    }
  });

  return {
    /** Puts an input beside every scalar argument of a valid action on screen. */
    start(r) {
      review = r;
      state = { kind: "none" };
      inputs = [];
      ui.toggle.hidden = false;
      ui.toggle.disabled = false;
      ui.toggle.setAttribute("aria-pressed", "false");
      ui.toggle.textContent = "Edit values";
      for (const row of ui.table.querySelectorAll("tr[data-pointer]")) {
        const value = valueAt(r.action.args, row.dataset.pointer);
        if (value !== null && typeof value === "object") continue;
        const input = el("input", "edit-value mono");
        input.type = "text";
        input.spellcheck = false;
        input.autocomplete = "off";
        input.value = input.dataset.original = JSON.stringify(value);
        input.dataset.pointer = row.dataset.pointer;
        input.setAttribute("aria-label", `New value of ${row.dataset.pointer}, as JSON`);
        input.hidden = true;
        input.addEventListener("input", check);
        row.querySelector("td.value").append(input);
        inputs.push(input);
      }
      show();
    },
    /** No amendment possible (an invalid request, or none loaded). */
    stop() {
      review = null;
      state = { kind: "none" };
      inputs = [];
      ui.toggle.hidden = true;
      ui.panel.hidden = true;
    },
    /** While the decision is made, and after it: nothing more is edited. */
    lock() {
      ui.toggle.disabled = true;
      for (const input of inputs) input.disabled = true;
    },
    /** The decision was not made after all (a passkey that did not sign). */
    unlock() {
      ui.toggle.disabled = false;
      for (const input of inputs) input.disabled = false;
      show();
    },
    state: () => state,
  };
}
