// The benchmark page: wasm `fingerprint(obj)` (sync) against npm `canonicalize` +
// `crypto.subtle.digest("SHA-256")` (async, awaited per op), side by side in one page.
// Driven by bench/wasm-chromium.mjs, which serves /pkg/ (the web build), /payloads/ and
// /canonicalize.mjs (the npm package wrapped as an ES module).

import init, { fingerprint, fingerprintJson, canonicalize } from "/pkg/actionseal_wasm.js";
import canonicalizeNpm from "/canonicalize.mjs";

const encoder = new TextEncoder();

/** The baseline: npm `canonicalize`, then WebCrypto SHA-256, as a fingerprint string. */
async function baseline(value) {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(canonicalizeNpm(value)));
  let hex = "";
  for (const b of new Uint8Array(digest)) hex += b.toString(16).padStart(2, "0");
  return `sha256:${hex}`;
}

/**
 * Runs `fn` for about `ms` milliseconds; returns calls per second. An async `fn` is awaited
 * per call; a sync one is called in a plain loop, so that it pays no promise overhead.
 */
async function rate(fn, ms) {
  let sink = 0;
  let n = 0;
  const isAsync = fn() instanceof Promise;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    if (isAsync) {
      for (let i = 0; i < 20; i++) sink ^= (await fn()).length;
    } else {
      for (let i = 0; i < 20; i++) sink ^= fn().length;
    }
    n += 20;
    now = performance.now();
  }
  if (sink === 0.5) console.log(""); // keep results alive
  return n / ((now - start) / 1000);
}

/**
 * Measures each function in `fns` in `rounds` interleaved rounds, so that a change in
 * machine load hits all of them alike. Returns, per function, the median ops/s over the
 * rounds and the median over rounds of its ratio to `fns[against]` in the same round.
 */
async function measureAll(fns, against, seconds, rounds = 40) {
  for (const fn of Object.values(fns)) await rate(fn, 300); // warm up: JIT tiers, caches
  const samples = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  const ratios = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    const round = {};
    // Alternate the order, so that no function always runs right after another.
    const names = r % 2 ? Object.keys(fns) : Object.keys(fns).reverse();
    for (const name of names) round[name] = await rate(fns[name], (seconds * 1000) / rounds);
    for (const name of names) {
      samples[name].push(round[name]);
      ratios[name].push(round[name] / round[against[name] ?? name]);
    }
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  return Object.fromEntries(
    Object.keys(fns).map((k) => [k, { ops: median(samples[k]), ratio: median(ratios[k]) }]),
  );
}

/** Measures every payload; returns rows of {payload, bytes, op, ops, ratio}. */
async function run(payloads, seconds) {
  await init();
  const rows = [];
  for (const name of payloads) {
    const text = await (await fetch(`/payloads/${name}`)).text();
    const value = JSON.parse(text);
    const expected = await baseline(value);
    if (fingerprint(value) !== expected || fingerprintJson(text) !== expected) {
      throw new Error(`${name}: actionseal-wasm and the baseline disagree`);
    }
    if (canonicalize(value) !== canonicalizeNpm(value)) {
      throw new Error(`${name}: canonical forms differ`);
    }
    const bytes = encoder.encode(text).length;
    const m = await measureAll(
      {
        base: () => baseline(value),
        wasm: () => fingerprint(value),
        wasmText: () => fingerprintJson(text),
        npmCanon: () => canonicalizeNpm(value),
        wasmCanon: () => canonicalize(value),
      },
      { wasm: "base", wasmText: "base", wasmCanon: "npmCanon" },
      seconds,
    );
    const row = (op, k, ratio = true) => ({ payload: name, bytes, op, ops: m[k].ops, ratio: ratio ? m[k].ratio : null });
    rows.push(
      row("npm canonicalize + subtle.digest (baseline)", "base"),
      row("wasm fingerprint(obj)", "wasm"),
      row("wasm fingerprintJson(text)", "wasmText"),
      row("npm canonicalize only (no digest)", "npmCanon", false),
      row("wasm canonicalize(obj) vs npm canonicalize", "wasmCanon"),
    );
  }
  return rows;
}

window.actionsealBench = { run };
