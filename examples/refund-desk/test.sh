#!/usr/bin/env bash
# The refund desk's end-to-end test: `run --headless` on SQLite, then on a throwaway PostgreSQL.
# Rebuilds this checkout's actionseal wheel, Node addon and wasm package first (DESK_REBUILD=1),
# so that what runs is what is checked out. Screenshots: target/refund-desk/screenshots/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DESK_REBUILD=1 "$here/run" --headless
"$here/run" --headless --postgres
