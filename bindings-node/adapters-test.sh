#!/usr/bin/env bash
# Tests the framework adapters (bindings-node/adapters/) against the real framework packages,
# from a clean clone, without network access beyond the npm registry and without API keys.
#
#   bash bindings-node/adapters-test.sh [node --test args...]
#
# Builds the addon, packs the npm package (so the "exports" map and "files" are what a user
# installs), installs the framework versions pinned in bindings-node/adapter-tests/package.json
# (npm ci from its lock; never the repository's own dependencies) with the tarball into a
# scratch directory, copies the tests and examples/adapters/ there in the repository's layout
# and runs the tests with node --test. Real SQLite ledger files in a temp dir; PostgreSQL too
# when ACTIONSEAL_TEST_PG is a URL (e.g. under scripts/pg run).
#
#   ACTIONSEAL_ADAPTERS_LATEST=1    install the newest ai@6, @openai/agents-core, @modelcontextprotocol/sdk@1
#                                   and zod instead of the pins: the tests then name the versions that differ
#   ACTIONSEAL_ADAPTERS_SCRATCH=DIR reuse DIR (kept) instead of a fresh temp dir
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/node}"
step() { printf '\n== %s\n' "$*"; }

if [ -n "${ACTIONSEAL_ADAPTERS_SCRATCH:-}" ]; then
  scratch="$ACTIONSEAL_ADAPTERS_SCRATCH"
  mkdir -p "$scratch"
else
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
fi

step "build the addon"
[ -x "$root/node_modules/.bin/napi" ] || (cd "$root" && npm ci --no-audit --no-fund)
(cd "$here" && "$root/scripts/build-lock" node "$root/node_modules/.bin/napi" build --platform --release >/dev/null)

step "pack actionseal, its linux-x64-gnu platform package and actionseal-wasm (its dependency)"
# The three install together from the tarballs, offline: none of them may come from the registry.
if [ ! -f "$root/bindings-wasm/pkg/node/index.js" ]; then
  echo "building the wasm package (release: a few minutes the first time)"
  CARGO_TARGET_DIR="$root/target/wasm" "$root/bindings-wasm/build.sh" >/dev/null
fi
version="$(node -p 'require(process.argv[1]).version' "$here/package.json")"
packs="$scratch/packs"
rm -rf "$packs" "$scratch/linux-x64-gnu" && mkdir -p "$packs"
cp -r "$here/npm/linux-x64-gnu" "$scratch/linux-x64-gnu"
cp "$here/actionseal.linux-x64-gnu.node" "$scratch/linux-x64-gnu/"
(cd "$scratch/linux-x64-gnu" && npm pack --pack-destination "$packs" --silent >/dev/null)
(cd "$here" && npm pack --pack-destination "$packs" --silent >/dev/null)
(cd "$root/bindings-wasm" && npm pack --pack-destination "$packs" --silent >/dev/null)
tarball="$packs/actionseal-$version.tgz"
listing="$(tar -tzf "$tarball")"
for f in package/adapters/seal.mjs package/adapters/ai-sdk.mjs package/adapters/openai-agents.mjs package/adapters/mcp.mjs \
  package/adapters/seal.d.mts package/adapters/ai-sdk.d.mts package/adapters/openai-agents.d.mts package/adapters/mcp.d.mts; do
  if ! grep -qx "$f" <<<"$listing"; then
    echo "FAIL: the packed package lacks $f (bindings-node/package.json \"files\")" >&2
    exit 1
  fi
done

step "install the frameworks into $scratch"
pins="$here/adapter-tests"
if [ "${ACTIONSEAL_ADAPTERS_LATEST:-}" = 1 ]; then
  cp "$pins/package.json" "$scratch/package.json"
  rm -f "$scratch/package-lock.json" "$scratch/.pins"
  (cd "$scratch" && npm install --no-audit --no-fund --silent ai@6 @openai/agents-core@latest @modelcontextprotocol/sdk@1 zod@latest @types/node@20)
elif ! cmp -s "$pins/package-lock.json" "$scratch/.pins" 2>/dev/null; then
  cp "$pins/package.json" "$pins/package-lock.json" "$scratch/"
  (cd "$scratch" && npm ci --no-audit --no-fund --silent)
  cp "$pins/package-lock.json" "$scratch/.pins"
fi
# --no-save: the scratch package.json stays the pins (an unsaved package is pruned by the next npm install).
(cd "$scratch" && npm install --offline --no-save --no-audit --no-fund --silent "$packs"/*.tgz)

step "run the adapter tests (in the repository's layout)"
# The cross-language test (adapter-tests/cross-language.test.mjs) runs the Python adapters'
# environment that bindings-python/adapters-test.sh builds.
export ACTIONSEAL_REPO="$root"
export ACTIONSEAL_PYTHON_ADAPTERS="${ACTIONSEAL_PYTHON_ADAPTERS:-$root/target/python/adapters/venv/bin/python}"
rm -rf "$scratch/bindings-node" "$scratch/examples"
mkdir -p "$scratch/bindings-node" "$scratch/examples"
cp -r "$pins" "$scratch/bindings-node/adapter-tests"
cp -r "$root/examples/adapters" "$scratch/examples/adapters"
(cd "$scratch" && node --test "$@" bindings-node/adapter-tests/)

step "the adapters' declarations type-check against the frameworks' own types"
[ -x "$root/node_modules/.bin/tsc" ] || (cd "$root" && npm ci --no-audit --no-fund)
(cd "$scratch/bindings-node/adapter-tests" && "$root/node_modules/.bin/tsc" --noEmit --strict --target es2022 --lib es2022,dom,esnext.disposable --types node \
  --module nodenext --moduleResolution nodenext types.ts)
echo "adapters/*.d.mts type-check adapter-tests/types.ts"

step "OK: adapters"
