#!/usr/bin/env bash
# Builds the actionseal-wasm npm package: bindings-wasm/pkg/web (ES module + init, for
# browsers and bundlers) and bindings-wasm/pkg/node (CommonJS, loads the .wasm synchronously).
#
# Installs what it needs when missing: the wasm32 target, and wasm-bindgen-cli at exactly the
# version of the wasm-bindgen crate in Cargo.lock.
# Env: CARGO_TARGET_DIR (default <repo>/target/wasm).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/wasm}"

# The CLI must match the crate exactly, or the generated glue does not fit the module.
version="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$root/Cargo.lock")"
if [ -z "$version" ]; then
  echo "build.sh: wasm-bindgen not found in $root/Cargo.lock" >&2
  exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $version" ]; then
  echo "build.sh: installing wasm-bindgen-cli $version (a few minutes, once)"
  # Not --locked: one locked dependency version is missing from the registry index here.
  cargo install wasm-bindgen-cli --version "=$version"
fi
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

# strip=false: a stripped module lacks the target_features section wasm-bindgen reads.
cargo build --manifest-path "$root/Cargo.toml" -p actionseal-wasm \
  --target wasm32-unknown-unknown --release --config 'profile.release.strip=false'
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/actionseal_wasm.wasm"

rm -rf "$here/pkg"
wasm-bindgen --target web --remove-name-section --remove-producers-section --out-dir "$here/pkg/web" "$wasm"
wasm-bindgen --target nodejs --remove-name-section --remove-producers-section --out-dir "$here/pkg/node" "$wasm"
# The web glue is an ES module, the Node glue CommonJS: say so to Node per directory.
echo '{"type": "module"}' > "$here/pkg/web/package.json"
echo '{"type": "commonjs"}' > "$here/pkg/node/package.json"
# The Node glue require()s its copy of js/host.js, an ES module: make that copy CommonJS, so
# that Node versions without require(esm) load it. host.js exports only with
# `export function`, which this turns into `exports.name = name`.
for f in "$here"/pkg/node/snippets/*/js/host.js; do
  names="$(sed -n 's/^export function \([A-Za-z0-9_]*\).*/\1/p' "$f")"
  sed -i -e 's/^export function /function /' -e '1i "use strict";' "$f"
  if grep -qE '^[[:space:]]*(export|import)[[:space:]{*]' "$f"; then
    echo "build.sh: $f has an import or export that is not 'export function'" >&2
    exit 1
  fi
  for name in $names; do echo "exports.$name = $name;" >> "$f"; done
done
# Not published: the types of the raw wasm exports.
rm -f "$here"/pkg/*/actionseal_wasm_bg.wasm.d.ts

ls -l "$here"/pkg/*/actionseal_wasm_bg.wasm
