#!/usr/bin/env bash
# Tests the actionseal-wasm package from a clean clone: builds both targets, runs the shared
# conformance tests (conformance/js/: conformance.test.mjs for canonical JSON and
# fingerprints, decisions.test.mjs for the approval model) in Node (wasm-node) and in
# headless Chromium (chromium), then this package's own tests (bindings-wasm/test/: freeing
# handles, and the TypeScript declarations), packs the npm package, installs the tarball
# into an empty folder and runs the Node example of bindings-wasm/README.md there, then lints
# the crate.
#
# Installs what it needs: the wasm32 target and the pinned wasm-bindgen-cli (build.sh), the
# root npm dev dependencies (npm ci), and Debian's chromium when /usr/bin/chromium is missing.
# Env: ACTIONSEAL_JCS_DIR (default <repo>/../shared/vectors/jcs; without it the public RFC 8785
# tests are skipped, in one line that says so, unless ACTIONSEAL_REQUIRE_PUBLIC_DATA=1),
# CARGO_TARGET_DIR (default <repo>/target/wasm). Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"
# The wasm builds have a directory of their own; the host-side checks share the workspace's.
host_target="${CARGO_TARGET_DIR:-$root/target}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/wasm}"
step() { printf '\n== %s\n' "$*"; }

# The public RFC 8785 vectors: skipped, saying so, when absent, unless they are required.
export ACTIONSEAL_JCS_DIR="${ACTIONSEAL_JCS_DIR:-$root/../shared/vectors/jcs}"
if [ ! -f "$ACTIONSEAL_JCS_DIR/public_vectors.jsonl" ]; then
  if [ "${ACTIONSEAL_REQUIRE_PUBLIC_DATA:-}" = 1 ]; then
    echo "test.sh: public RFC 8785 data not found at $ACTIONSEAL_JCS_DIR and ACTIONSEAL_REQUIRE_PUBLIC_DATA=1" >&2
    exit 1
  fi
  echo "NOTE: public RFC 8785 data not found at $ACTIONSEAL_JCS_DIR: its tests are skipped (set ACTIONSEAL_JCS_DIR)"
fi
for t in conformance.test.mjs decisions.test.mjs amend.test.mjs host.test.mjs errors.test.mjs proof.test.mjs delegation.test.mjs quorum.test.mjs evidence.test.mjs batch.test.mjs redaction.test.mjs; do
  if [ ! -f "conformance/js/$t" ]; then
    echo "test.sh: conformance/js/$t is missing" >&2
    exit 1
  fi
done

step "toolchain"
if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/canonicalize ] || [ ! -x node_modules/.bin/tsc ]; then
  npm ci --no-audit --no-fund
fi
"$root/scripts/ensure-chromium"

step "build"
"$here/build.sh"

step "declarations: what wasm-bindgen generated is the function table's"
for flavor in web node; do
  CARGO_TARGET_DIR="$host_target" cargo run -q -p actionseal-conformance --bin declarations -- wasm "$here/pkg/$flavor/actionseal_wasm.d.ts"
done

step "conformance: wasm in Node"
ACTIONSEAL_RUNTIME=wasm-node node --test conformance/js/

step "conformance: wasm in headless Chromium"
ACTIONSEAL_RUNTIME=chromium node --test conformance/js/

step "this package: Contract and Schema handles"
node --test bindings-wasm/test/

step "TypeScript declarations (bindings-wasm/test/types.ts against pkg/web), default libs"
node_modules/.bin/tsc --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext \
  bindings-wasm/test/types.ts

step "package"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$here" && npm pack --pack-destination "$work" > "$work/pack.log" 2>&1) || { cat "$work/pack.log" >&2; exit 1; }
tarball="$(ls "$work"/actionseal-wasm-*.tgz)"
tar -tzf "$tarball" | sort
mkdir "$work/app"
cd "$work/app"
npm init -y > /dev/null
npm install --no-audit --no-fund "$tarball"

# The three lines after the README's node-example marker; the last line's comment is the
# expected output.
awk '/<!-- node-example/ { found = 1; next } found && /^```js/ { code = 1; next }
     code && /^```/ { exit } code { print }' "$here/README.md" > example.mjs
if [ "$(wc -l < example.mjs)" -ne 3 ]; then
  echo "test.sh: expected a 3-line Node example in README.md, got:" >&2
  cat example.mjs >&2
  exit 1
fi
expected="$(tail -n 1 example.mjs | sed 's|.*; // ||')"
actual="$(node example.mjs)"
if [ "$actual" != "$expected" ]; then
  printf 'test.sh: README example printed\n  %s\nexpected\n  %s\n' "$actual" "$expected" >&2
  exit 1
fi
echo "README example: $actual"

# The same package from CommonJS, and the web build's ES module loading in Node.
node -e 'const a = require("actionseal-wasm"); if (!a.digestEqual(a.fingerprint([1]), a.fingerprintJson("[1.0]"))) process.exit(1)'
# The approval model from the installed package: a contract, an envelope, a record, a permit.
cp "$root/examples/refund/contract.json" contract.json
node -e '
  const a = require("actionseal-wasm");
  const contract = new a.Contract(require("./contract.json"));
  const ids = { tenant: "t", subject: "s", job_id: "j", request_id: "r", policy_version: "p" };
  const envelope = a.action(contract, { order_id: "order-17", amount_minor: 2500, currency: "USD" }, ids);
  const record = a.approve(envelope, { approval_id: "a", decision_id: "d", decision: "approved",
    approver: "b", decided_at: 0, expires_at: 10 });
  const verdict = a.check(record, envelope, { now: 5, tenant: "t", policy_version: "p", contract,
    approver_authorized: { approver: "b", authorized: true },
    subject_authorized: { subject: "s", authorized: true },
    revoked: { approval_id: "a", revoked: false } });
  contract.free();
  if (verdict.outcome !== "permit") { console.error(verdict); process.exit(1); }
  console.log("approval model from the package:", verdict.outcome, a.shortFingerprint(verdict.action_digest));'
node --input-type=module -e '
  import { readFile } from "node:fs/promises";
  import { createRequire } from "node:module";
  import init, { fingerprint } from "actionseal-wasm/web";
  const wasm = createRequire(import.meta.url).resolve("actionseal-wasm/actionseal_wasm_bg.wasm");
  await init({ module_or_path: await readFile(wasm) });
  if (!fingerprint({ a: 1 }).startsWith("sha256:")) process.exit(1);'

step "lint (this crate; core is linted by the workspace test)"
cd "$root"
cargo fmt -p actionseal-wasm -- --check
CARGO_TARGET_DIR="$host_target" cargo clippy -p actionseal-wasm --no-deps --all-targets -- -D warnings
cargo clippy -p actionseal-wasm --no-deps --target wasm32-unknown-unknown --all-targets -- -D warnings
cargo clippy -p actionseal-js --features wasm --no-deps --target wasm32-unknown-unknown -- -D warnings

step "ok"
