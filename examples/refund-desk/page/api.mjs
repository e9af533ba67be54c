// The approval server's JSON API as the page calls it: state changes are JSON POSTs with the
// session's CSRF token (the server refuses anything else, desk/auth.py); every answer is read
// with actionseal's strict parser (one meaning only).

import { parseJson } from "/wasm/actionseal_wasm.js";

let csrf = "";

/** The CSRF token of the signed-in session ("" when signed out). */
export function useSession(token) {
  csrf = token;
}

/** GET `path`, or POST `body` to it; resolves to {status, body}. */
export async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify(body),
  };
  const r = await fetch(path, { ...init, credentials: "same-origin", cache: "no-store" });
  return { status: r.status, body: parseJson(await r.text()) };
}

/** A refusal in words: the code, where, and the server's (core's) message. */
export function refusal(body) {
  const where = body.path ? ` at ${body.path}` : "";
  return `${body.error}${where}${body.message ? `: ${body.message}` : ""}`;
}
