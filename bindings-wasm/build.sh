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

# One build at a time: every script that builds the package (tests, examples, the
# benchmark) comes through here, and they all write pkg/ (see scripts/build-lock).
if [ -z "${ACTIONSEAL_WASM_BUILD_LOCKED:-}" ]; then
  ACTIONSEAL_WASM_BUILD_LOCKED=1 exec "$root/scripts/build-lock" wasm bash "${BASH_SOURCE[0]}" "$@"
fi

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
# simd128 (in every browser since 2023, Node 16.4): SHA-256 has a backend for it, and the
# byte scans become vector loops.
cargo build --manifest-path "$root/Cargo.toml" -p actionseal-wasm \
  --target wasm32-unknown-unknown --release --config 'profile.release.strip=false' \
  --config 'target.wasm32-unknown-unknown.rustflags = ["-C", "target-feature=+simd128"]'
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/actionseal_wasm.wasm"

rm -rf "$here/pkg"
wasm-bindgen --target web --remove-name-section --remove-producers-section --out-dir "$here/pkg/web" "$wasm"
wasm-bindgen --target nodejs --remove-name-section --remove-producers-section --out-dir "$here/pkg/node" "$wasm"
# wasm-bindgen types its handles' `[Symbol.dispose]()`, which TypeScript's default libs lack
# before esnext: the declarations pull that lib in themselves, so a default `tsc` accepts them
# (TypeScript 5.2 and later; @types/node does the same for its globals).
for flavor in web node; do
  d="$here/pkg/$flavor/actionseal_wasm.d.ts"
  { echo '/// <reference lib="esnext.disposable" />'; cat "$d"; } > "$d.tmp" && mv "$d.tmp" "$d"
done
# The web glue is an ES module, the Node glue CommonJS: say so to Node per directory. The
# Node glue require()s the walker module it imports (bindings-js/js/host.mjs, copied under
# snippets/), an ES module, which Node loads as it is from 20.19 on.
echo '{"type": "module"}' > "$here/pkg/web/package.json"
echo '{"type": "commonjs"}' > "$here/pkg/node/package.json"
# Entry points: the glue, and the error class of the walker module that it throws.
for flavor in web node; do
  found=("$here/pkg/$flavor"/snippets/actionseal-js-*/js/host.mjs)
  if [ "${#found[@]}" -ne 1 ] || [ ! -f "${found[0]}" ]; then
    echo "build.sh: expected one walker module in pkg/$flavor/snippets, found: ${found[*]}" >&2
    exit 1
  fi
  walker="./${found[0]#"$here/pkg/$flavor/"}"
  {
    echo '// Written by bindings-wasm/build.sh: the generated glue, and the error class it throws.'
    if [ "$flavor" = web ]; then
      echo "import { host } from \"$walker\";"
      echo 'export * from "./actionseal_wasm.js";'
      echo 'export { default } from "./actionseal_wasm.js";'
      echo 'export const ActionsealError = host.ActionsealError;'
    else
      echo '"use strict";'
      echo 'module.exports = {'
      echo '  ...require("./actionseal_wasm.js"),'
      echo "  ActionsealError: require(\"$walker\").host.ActionsealError,"
      echo '};'
    fi
  } > "$here/pkg/$flavor/index.js"
  {
    echo '// Written by bindings-wasm/build.sh.'
    echo 'export * from "./actionseal_wasm.js";'
    if [ "$flavor" = web ]; then echo 'export { default } from "./actionseal_wasm.js";'; fi
  } > "$here/pkg/$flavor/index.d.ts"
done
# Not published: the types of the raw wasm exports.
rm -f "$here"/pkg/*/actionseal_wasm_bg.wasm.d.ts

ls -l "$here"/pkg/*/actionseal_wasm_bg.wasm
