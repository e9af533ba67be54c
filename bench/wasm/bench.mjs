// The benchmark page: wasm `fingerprint(obj)` (sync) against npm `canonicalize` +
// `crypto.subtle.digest("SHA-256")` (async, awaited per op), side by side in one page; and
// the permit `check` of the refund scenario against `fingerprint` of the same action; and
// `verifyEvidence` of a typical refund bundle against WebCrypto Ed25519 verifications; and
// `commitAction` of three sensitive values against `action` without them.
// Driven by bench/wasm-chromium.mjs, which serves /pkg/ (the web build), /payloads/,
// /refund/ (examples/refund) and /canonicalize.mjs (the npm package wrapped as an ES module).

import init, {
  Approval,
  Contract,
  action,
  check,
  commitAction,
  fingerprint,
  fingerprintJson,
  canonicalize,
  verifyEvidence,
} from "/pkg/index.js";
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
 * rounds and the median, lowest and highest over rounds of its ratio to `fns[against]` in
 * the same round.
 */
async function measureAll(fns, against, seconds, rounds = 9) {
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
    Object.keys(fns).map((k) => [
      k,
      {
        ops: median(samples[k]),
        opsMin: Math.min(...samples[k]),
        opsMax: Math.max(...samples[k]),
        ratio: median(ratios[k]),
        min: Math.min(...ratios[k]),
        max: Math.max(...ratios[k]),
      },
    ]),
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
    const row = (op, k, ratio = true) => ({
      payload: name,
      bytes,
      op,
      ops: m[k].ops,
      ratio: ratio ? m[k].ratio : null,
      spread: ratio ? [m[k].min, m[k].max] : null,
    });
    rows.push(
      row("npm canonicalize + subtle.digest (baseline)", "base"),
      row("wasm fingerprint(obj)", "wasm"),
      row("wasm fingerprintJson(text)", "wasmText"),
      row("npm canonicalize only (no digest)", "npmCanon", false),
      row("wasm canonicalize(obj) vs npm canonicalize", "wasmCanon"),
    );
  }
  rows.push(...(await checkRows(seconds)));
  return rows;
}

/**
 * The refund scenario of examples/refund: `check(approval, action, context)` with a
 * `Contract` instance in the context (what an executor does), and with the contract document
 * (compiled on every call), against `fingerprint(action)`. The ratio column is each
 * operation's time over one fingerprint's: how many fingerprints a full check costs.
 */
async function checkRows(seconds) {
  const load = async (name) => (await fetch(`/refund/${name}`)).json();
  const [action, approval, context] = await Promise.all(["action.json", "approval.json", "context.json"].map(load));
  const contract = new Contract(context.contract);
  const loaded = new Approval(approval);
  try {
    const executor = { ...context, contract };
    const verdict = check(approval, action, executor);
    if (verdict.outcome !== "permit" || check(approval, action, context).outcome !== "permit") {
      throw new Error(`the refund scenario does not permit: ${JSON.stringify(verdict)}`);
    }
    const m = await measureAll(
      {
        fp: () => fingerprint(action),
        checkLoaded: () => check(loaded, action, executor).action_digest,
        check: () => check(approval, action, executor).action_digest,
        checkFrozen: () => check(approval, approval.action, executor).action_digest,
        checkDocument: () => check(approval, action, context).action_digest,
      },
      { checkLoaded: "fp", check: "fp", checkFrozen: "fp", checkDocument: "fp" },
      seconds,
    );
    const bytes = encoder.encode(JSON.stringify(action)).length;
    // Here the ratio is time over fingerprint time (the inverse of the ops/s ratio).
    const row = (op, k, ratio = true) => ({
      payload: "refund check",
      bytes,
      op,
      ops: m[k].ops,
      ratio: ratio ? 1 / m[k].ratio : null,
      spread: ratio ? [1 / m[k].max, 1 / m[k].min] : null,
    });
    return [
      row("wasm fingerprint(action)", "fp", false),
      row("wasm check(Approval, action, context with a Contract): time / fingerprint time", "checkLoaded"),
      row("wasm check(approval, action, context with a Contract): time / fingerprint time", "check"),
      row("the same, the action being approval.action itself (read once)", "checkFrozen"),
      row("wasm check(approval, action, context with the document): time / fingerprint time", "checkDocument"),
    ];
  } finally {
    contract.free();
    loaded.free();
  }
}

/**
 * `verifyEvidence(bundle, trust)` of the typical refund bundle (/payloads/evidence-refund.json,
 * written by the Rust evidence bench), against as many WebCrypto Ed25519 verifications as the
 * bundle holds signatures (the ledger's on its checkpoint, the witness's cosignature, the
 * service's on the decision): the least a verifier of the bundle does, and what a hand-written
 * one would call. Returns {bytes, signatures, ms: [median, lowest, highest round], ratio:
 * [median, lowest, highest] of time / those verifications' time}.
 */
async function evidence(seconds) {
  await init();
  const text = await (await fetch("/payloads/evidence-refund.json")).text();
  const { bundle, trust } = JSON.parse(text);
  const timeline = verifyEvidence(bundle, trust);
  if (timeline.task !== bundle.task) throw new Error(`the bundle does not verify: ${JSON.stringify(timeline)}`);
  const signatures = 3;
  const keys = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
  const message = encoder.encode(bundle.checkpoint.note);
  const sig = await crypto.subtle.sign({ name: "Ed25519" }, keys.privateKey, message);
  const ed25519 = async () => {
    let ok = true;
    for (let i = 0; i < signatures; i++) ok &&= await crypto.subtle.verify({ name: "Ed25519" }, keys.publicKey, sig, message);
    if (!ok) throw new Error("WebCrypto does not verify its own signature");
    return "ok";
  };
  // `rate` reads `.length` of each result: the timeline's task id.
  const m = await measureAll(
    { verify: () => verifyEvidence(bundle, trust).task, ed25519 },
    { verify: "ed25519" },
    seconds,
  );
  const v = m.verify;
  return {
    bytes: encoder.encode(JSON.stringify(bundle)).length,
    signatures,
    ms: [1000 / v.ops, 1000 / v.opsMax, 1000 / v.opsMin],
    ratio: [1 / v.ratio, 1 / v.max, 1 / v.min],
  };
}

/**
 * `commitAction` of the refund in /payloads/sensitive.json (three sensitive values: validated,
 * built, three salts from `crypto.getRandomValues`, three disclosures, committed,
 * fingerprinted) against `action` of it under the same contract without `sensitive` (issue
 * 29; goal: at most 1.5x). Twice: the same call over and over, as every runtime's bench
 * makes it; and distinct calls (a new `request_id` each), since Chromium decodes a result
 * text that repeats byte for byte much faster than a new one, which favours `action`: a
 * commit's disclosures carry fresh salts, so its result never repeats. Returns {ops:
 * [commitAction, action] median ops/s, ratio: [median, lowest, highest] over rounds of
 * commitAction's time / action's, distinct: the same for distinct calls}.
 */
async function sensitive(seconds) {
  await init();
  const payload = await (await fetch("/payloads/sensitive.json")).json();
  const [marked, plain] = [new Contract(payload.marked), new Contract(payload.plain)];
  const { args, ids } = payload;
  let n = 0;
  const fresh = () => ({ ...ids, request_id: `req-${++n}` });
  try {
    if (commitAction(marked, args, ids).disclosures.length !== 3) throw new Error("three sensitive fields");
    // `rate` reads `.length` of each result: the envelope's tool name.
    const m = await measureAll(
      {
        built: () => action(plain, args, ids).tool,
        committed: () => commitAction(marked, args, ids).action.tool,
        distinctBuilt: () => action(plain, args, fresh()).tool,
        distinctCommitted: () => commitAction(marked, args, fresh()).action.tool,
      },
      { committed: "built", distinctCommitted: "distinctBuilt" },
      seconds,
    );
    const of = (c, b) => ({ ops: [c.ops, b.ops], ratio: [1 / c.ratio, 1 / c.max, 1 / c.min] });
    return { ...of(m.committed, m.built), distinct: of(m.distinctCommitted, m.distinctBuilt) };
  } finally {
    marked.free();
    plain.free();
  }
}

window.actionsealBench = { run, evidence, sensitive };
