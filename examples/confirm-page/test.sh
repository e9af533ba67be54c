#!/usr/bin/env bash
# Tests the browser confirmation page (examples/confirm-page/) from a clean clone: builds the
# wasm package, makes sure the other runtimes the test compares with are there (actionseal in
# the repository's .venv, the native Node addon, the Rust CLI), then drives the page in
# headless Debian Chromium (test.mjs). Screenshots: examples/confirm-page/screenshots/*.png.
#
# Installs what it needs when missing: npm dev dependencies (npm ci), Debian's chromium, the
# wasm toolchain (bindings-wasm/build.sh), a .venv with actionseal (the wheel that
# bindings-python/test.sh built, or a fresh `maturin build`), the Node addon (napi build).
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

step "Python: actionseal in $root/.venv"
venv="$root/.venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
py="$venv/bin/python"
need='import actionseal; actionseal.loads; actionseal.fingerprint; actionseal.short_fingerprint'
if ! "$py" -c "$need" 2> /dev/null; then
  # The wheel bindings-python/test.sh built (scripts/test runs it first), else a new one.
  wheels=("$root"/target/python/scratch/wheels/actionseal-*.whl)
  if [ -f "${wheels[0]}" ]; then
    "$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "${wheels[0]}"
  fi
  if ! "$py" -c "$need" 2> /dev/null; then
    "$py" -m pip install --quiet --disable-pip-version-check -r bindings-python/requirements-dev.txt
    CARGO_TARGET_DIR="$root/target/python" "$venv/bin/maturin" build --release \
      --manifest-path bindings-python/Cargo.toml --out "$work/wheels"
    "$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$work"/wheels/actionseal-*.whl
  fi
  "$py" -c "$need"
fi
"$py" -c 'import actionseal; print("actionseal", actionseal.__version__, "from", actionseal.__file__)'

step "Node: the native addon (bindings-node)"
if ! node -e 'require(process.argv[1]).fingerprint({})' "$root/bindings-node" 2> /dev/null; then
  (cd bindings-node && CARGO_TARGET_DIR="$root/target/node" "$root/node_modules/.bin/napi" build --platform --release)
fi
node -e 'require(process.argv[1]).fingerprint({})' "$root/bindings-node"

step "Rust: the CLI"
cargo build -q -p actionseal-cli

step "the page in headless Chromium"
node "$here/test.mjs"
