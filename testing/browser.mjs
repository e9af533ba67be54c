// Node-side helpers for running pages in Debian's Chromium: a static file server on
// 127.0.0.1 and a headless browser with a fresh profile. Used by the chromium conformance
// engine (conformance/js/engines/chromium.mjs), conformance/tools/record-passkeys.mjs,
// bench/wasm-chromium.mjs and the examples' browser tests (confirm-page, evidence-page, refund-desk).

import { createServer } from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, resolve, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** The flags of TOOLCHAIN.md; playwright adds `--headless` and the profile directory itself. */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Serves files on 127.0.0.1 at a free port. `mounts` maps a URL prefix ("/", "/pkg/") to a
 * directory, longest prefix first; `extra` maps exact URL paths to `{type, body}`.
 * Resolves to `{origin, close()}`.
 */
export async function serve(mounts, extra = {}) {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
      if (path === "/favicon.ico") {
        // Asked for by every page load; an answer keeps the console free of 404s.
        res.writeHead(204);
        res.end();
        return;
      }
      if (extra[path]) {
        res.writeHead(200, { "content-type": extra[path].type, "cache-control": "no-store" });
        res.end(extra[path].body);
        return;
      }
      const prefix = prefixes.find((p) => path.startsWith(p));
      const rel = path.slice(prefix === undefined ? 0 : prefix.length) || "index.html";
      if (prefix === undefined) throw new Error("not mounted");
      const base = resolve(mounts[prefix]);
      const file = resolve(base, `.${sep}${rel}`);
      if (!file.startsWith(base + sep)) throw new Error("outside the mount");
      const body = await readFile(file);
      res.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Launches headless Chromium (default /usr/bin/chromium, or $CHROMIUM) with a fresh
 * profile and opens one page. Page errors and console errors are collected in `errors`, so
 * a failure inside the page is reported rather than lost, and the URLs it requests in
 * `requests`. Resolves to `{page, errors, requests, close()}`.
 */
export async function launch() {
  const { chromium } = await import("playwright-core");
  const profile = await mkdtemp(join(tmpdir(), "actionseal-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      headless: true,
      args: FLAGS,
    });
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  // Every URL the page asks for, to check that it reaches nothing but what the test serves.
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
  });
  page.on("crash", () => errors.push("the page crashed"));
  return {
    page,
    errors,
    requests,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Named checks that all run, for a browser test: `step(name, fn)` prints `ok - name`, or
 * `not ok - name` with the error and goes on; `finish(what)` prints the verdict and exits
 * non-zero when any check failed.
 */
export function checks() {
  const failures = [];
  return {
    async step(name, fn) {
      try {
        await fn();
        console.log(`ok - ${name}`);
      } catch (err) {
        failures.push(name);
        console.log(`not ok - ${name}\n  ${String(err.stack ?? err).split("\n").join("\n  ")}`);
      }
    },
    finish(what) {
      if (failures.length > 0) {
        console.error(`\n${failures.length} check(s) failed: ${failures.join("; ")}`);
        process.exit(1);
      }
      console.log(`\n${what}: all checks passed`);
    },
  };
}
