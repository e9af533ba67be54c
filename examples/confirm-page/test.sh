#!/usr/bin/env bash
# Tests the browser confirmation page (examples/confirm-page/) from a clean clone: builds, from
# this checkout, the wasm package, the Python wheel (installed over whatever the repository's
# .venv had), the native Node addon and the Rust CLI, which the test compares the page with,
# then drives the page in headless Debian Chromium (test.mjs). Screenshots:
# examples/confirm-page/screenshots/*.png.
#
# Installs what it needs when missing: npm dev dependencies (npm ci), Debian's chromium, the
# wasm toolchain (bindings-wasm/build.sh), the Python build tools in .venv.
# Exits non-zero on any failure; skips nothing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/../.." && pwd))"
cd "$root"
step() { printf '\n== %s\n' "$*"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

step "toolchain"
if [ ! -d node_modules/playwright-core ] || [ ! -x node_modules/.bin/napi ]; then
  npm ci --no-audit --no-fund
fi
"$root/scripts/ensure-chromium"

step "actionseal-wasm (web build, loaded by the page)"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/wasm}" bindings-wasm/build.sh

step "Python: this checkout's wheel, installed in $root/.venv"
venv="$root/.venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
py="$venv/bin/python"
"$py" -m pip install --quiet --disable-pip-version-check -r bindings-python/requirements-dev.txt
bindings-python/build-wheel "$work/wheels" "$venv"
"$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$work"/wheels/actionseal-*.whl
(cd "$work" && "$py" -c 'import actionseal, sys
assert actionseal.__file__.startswith(sys.prefix), actionseal.__file__
print("actionseal", actionseal.__version__, "from", actionseal.__file__)')

step "Node: this checkout's native addon (bindings-node)"
(cd bindings-node && CARGO_TARGET_DIR="$root/target/node" "$root/scripts/build-lock" node "$root/node_modules/.bin/napi" build --platform --release)
node -e 'require(process.argv[1]).fingerprint({})' "$root/bindings-node"

step "Rust: the CLI"
cargo build -q -p actionseal-cli

step "the sensitive values' module in Node"
node --test "$here/sensitive.test.mjs"

step "the page in headless Chromium"
node "$here/test.mjs"
