#!/usr/bin/env bash
# Checks the RFC 3161 fixtures' verdicts (core/tests/timestamp/verdicts.json, which the Rust
# tests check) with `openssl ts -verify` and Python's rfc3161-client, then smoke-tests the HTTP
# front (server_test.py). Needs openssl and PyPI; without openssl it says so and exits 0.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v openssl >/dev/null; then
    echo "crosscheck: skipped, openssl is not installed"
    exit 0
fi
venv=${TSA_VENV:-$here/.venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" "$here/crosscheck.py"
python3 "$here/server_test.py"
