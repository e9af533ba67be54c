// Writes vectors/numbers/es6_random.jsonl: doubles from a fixed-seed generator with the text
// Node's String(x) gives them. Node is the reference for ECMAScript Number.prototype.toString;
// this runs only when the file is regenerated, never at test time.
//   node conformance/tools/gen-es6-numbers.mjs
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const COUNT = 10000;
let state = 0x243f6a8885a308d3n; // fixed seed (SplitMix64)
const MASK = (1n << 64n) - 1n;
function next() {
  state = (state + 0x9e3779b97f4a7c15n) & MASK;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}

const view = new DataView(new ArrayBuffer(8));
const fromBits = (bits) => { view.setBigUint64(0, bits); return view.getFloat64(0); };
const toBits = (x) => { view.setFloat64(0, x); return view.getBigUint64(0); };

const seen = new Set();
const lines = [];
function add(x) {
  if (!Number.isFinite(x)) return;
  const bits = toBits(x).toString(16).padStart(16, '0');
  if (seen.has(bits)) return;
  seen.add(bits);
  lines.push(JSON.stringify({ bits, text: String(x) }));
}

// The fixed head of the cyberphone ES6 number test sequence, when the public data is present.
const jcs = process.env.ACTIONSEAL_JCS_DIR ?? fileURLToPath(new URL('../../../shared/vectors/jcs', import.meta.url));
const staticBits = `${jcs}/es6numbers/es6_static_u64.txt`;
if (!existsSync(staticBits)) throw new Error(`missing ${staticBits} (set ACTIONSEAL_JCS_DIR)`);
for (const line of readFileSync(staticBits, 'utf8').split('\n')) {
  if (line.trim()) add(fromBits(BigInt('0x' + line.trim())));
}
// Edges: powers of ten and their neighbours, integer boundaries, subnormals.
for (let e = -325; e <= 308; e++) {
  const x = Number(`1e${e}`);
  add(x); add(-x);
  if (x > 0 && Number.isFinite(x)) {
    add(fromBits(toBits(x) + 1n)); add(fromBits(toBits(x) - 1n));
  }
}
for (const x of [0, -0, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), 2 ** 64, 2 ** 70, 1e21 - 65536, 5e-324,
  Number.MAX_VALUE, Number.MIN_VALUE, 0.1, 0.2, 0.3, 1 / 3, 123456789.123456789]) add(x);
// Uniform random bit patterns (every exponent), then random values of ordinary magnitude.
while (lines.length < COUNT / 2) add(fromBits(next()));
while (lines.length < COUNT) {
  const mantissa = Number(next() >> 11n) / 2 ** 53;
  const exp = Number(next() % 60n) - 30;
  add((mantissa * 10 ** exp) * (next() & 1n ? -1 : 1));
}

const out = fileURLToPath(new URL('../vectors/numbers/es6_random.jsonl', import.meta.url));
writeFileSync(out, lines.join('\n') + '\n');
console.log(`wrote ${lines.length} numbers to ${out}`);
