#!/usr/bin/env bash
# Tests the evidence page (examples/evidence-page/): builds, from this checkout, the wasm
# package the page loads (its Node build is compared too) and the Rust CLI (`actionseal
# evidence verify`, compared with the page), then drives the page in headless Debian Chromium
# (test.mjs). Screenshots: target/evidence-page/*.png.
#
# Installs what it needs when missing: npm dev dependencies (npm ci), Debian's chromium, the
# wasm toolchain (bindings-wasm/build.sh). Exits non-zero on any failure; skips nothing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/../.." && pwd))"
cd "$root"
step() { printf '\n== %s\n' "$*"; }

step "toolchain"
if [ ! -d node_modules/playwright-core ]; then
  npm ci --no-audit --no-fund
fi
"$root/scripts/ensure-chromium"

step "actionseal-wasm (web build, loaded by the page; Node build, compared)"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/wasm}" bindings-wasm/build.sh

step "Rust: the CLI"
cargo build -q -p actionseal-cli

step "the page in headless Chromium"
node "$here/test.mjs"
