// The task list, updated in place: each task keeps its element from one refresh to the next,
// so keyboard focus and a screen reader's place survive the page's updates.

import { el, showString } from "/confirm-page/render.mjs";
import { flagBadge, flagsOf } from "/page/review.mjs";

const WAITING = new Set(["awaiting_approval", "awaiting_reapproval"]);
const items = new Map(); // task id -> {li, button, key}

/** Shows `tasks` in `list` (waiting ones first); `open(id)` opens one. */
export function showTasks(list, tasks, selected, { notices, open }) {
  const ordered = [...tasks.filter((t) => WAITING.has(t.state)), ...tasks.filter((t) => !WAITING.has(t.state))];
  const focused = document.activeElement;
  const seen = new Set();
  ordered.forEach((t, i) => {
    seen.add(t.id);
    let item = items.get(t.id);
    if (item === undefined) {
      const button = el("button", "");
      button.type = "button";
      button.dataset.taskId = t.id;
      button.addEventListener("click", () => open(t.id));
      item = { li: el("li", "", button), button, key: "" };
      items.set(t.id, item);
    }
    const key = JSON.stringify([t.state, t.args, t.short, t.job_id]);
    if (item.key !== key) {
      item.key = key;
      const flags = flagsOf(notices(t.args));
      item.button.dataset.state = t.state;
      item.button.dataset.flagged = String(flags.length > 0);
      item.button.replaceChildren(
        el("span", `tag ${t.state}`, t.state.replaceAll("_", " ")), " ",
        showString(String(t.args.order_id)).node, ` · ${t.args.amount_minor} ${t.args.currency}`,
        ...(flags.length ? [" ", flagBadge(flags)] : []), el("br"),
        el("code", "hint", t.short), " ", el("span", "hint", t.job_id),
      );
    }
    item.button.classList.toggle("selected", t.id === selected);
    if (t.id === selected) item.button.setAttribute("aria-current", "true");
    else item.button.removeAttribute("aria-current");
    if (list.children[i] !== item.li) list.insertBefore(item.li, list.children[i] ?? null);
  });
  for (const [id, item] of items) {
    if (!seen.has(id)) {
      item.li.remove();
      items.delete(id);
    }
  }
  // Moving an element in the document drops its focus: give it back.
  if (focused instanceof HTMLElement && focused !== document.activeElement && focused.isConnected) {
    focused.focus({ preventScroll: true });
  }
}
