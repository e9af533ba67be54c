#!/usr/bin/env bash
# Regenerates core/tests/timestamp/ (see README.md): needs openssl and PyPI.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${TSA_VENV:-$here/.venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" "$here/fixtures.py"
