#!/usr/bin/env bash
# Builds the Python wheel, installs it in a fresh virtual environment, runs the README's
# examples there and then the pytest suite against the installed wheel.
#
#   bash bindings-python/test.sh
#
# Works from a clean clone: creates <repo>/.venv with the pinned build tools when missing.
# Reads the public RFC 8785 data in $ACTIONSEAL_JCS_DIR (default: ../shared/vectors/jcs beside
# the repository); without it those tests are skipped, in one line that says so, unless
# ACTIONSEAL_REQUIRE_PUBLIC_DATA=1 (CI), which makes its absence a failure. Exits non-zero on
# any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/.." && pwd))"

# The ledger's tests need a PostgreSQL: a throwaway cluster for this run unless one is given
# (ACTIONSEAL_TEST_PG=skip skips them, saying so).
if [ -z "${ACTIONSEAL_TEST_PG:-}" ]; then
  exec "$repo/scripts/pg" run bash "${BASH_SOURCE[0]}" "$@"
fi
export ACTIONSEAL_JCS_DIR="${ACTIONSEAL_JCS_DIR:-$repo/../shared/vectors/jcs}"
if [ ! -f "$ACTIONSEAL_JCS_DIR/public_vectors.jsonl" ]; then
    if [ "${ACTIONSEAL_REQUIRE_PUBLIC_DATA:-}" = 1 ]; then
        echo "test.sh: public RFC 8785 data not found in $ACTIONSEAL_JCS_DIR and ACTIONSEAL_REQUIRE_PUBLIC_DATA=1" >&2
        exit 1
    fi
    echo "NOTE: public RFC 8785 data not found in $ACTIONSEAL_JCS_DIR: its tests are skipped (set ACTIONSEAL_JCS_DIR)"
fi

# Build tools, pinned, in the repository's venv (Debian's pip refuses system installs).
venv="$repo/.venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements-dev.txt"

# The wheel that ships for x86_64 glibc: manylinux2014 (glibc 2.17), linked by zig against
# that glibc's symbols (PEP 599), so it installs on Debian 11, RHEL 8 and the like. Its own
# target directory, so that cargo builds elsewhere do not rebuild pyo3 each time.
export CARGO_TARGET_DIR="$repo/target/python"
scratch="$CARGO_TARGET_DIR/scratch"
rm -rf "$scratch"
mkdir -p "$scratch/wheels"
"$here/build-wheel" "$scratch/wheels" "$venv"
wheels=("$scratch"/wheels/actionseal-*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
    echo "test.sh: expected one wheel in $scratch/wheels, found: ${wheels[*]}" >&2
    exit 1
fi
# auditwheel reads the symbols the library really uses: the tag must be the one it claims.
"$here/check-wheel-tag" "$venv/bin/auditwheel" "${wheels[0]}" manylinux_2_17_x86_64

# A clean environment with only the wheel, pytest, cryptography (which makes the passkey
# assertions the ledger's tests present), mypy (whose stubtest holds the stub to the module)
# and OpenTelemetry's API and SDK (the telemetry tests; the tests without it run in a child).
python3 -m venv "$scratch/venv"
py="$scratch/venv/bin/python"
mapfile -t test_pins < <(grep -E '^(pytest|cryptography|mypy|opentelemetry-api|opentelemetry-sdk)==' "$here/requirements-dev.txt")
"$py" -m pip install --quiet --disable-pip-version-check "${wheels[0]}" "${test_pins[@]}"

# Run everything from the scratch directory so that nothing in the source tree can shadow
# the installed package.
cd "$scratch"
export PYTHONDONTWRITEBYTECODE=1
"$py" - <<'EOF'
import actionseal, sys
where = actionseal.__file__
assert where.startswith(sys.prefix), f"actionseal imported from {where}, not the scratch venv"
print(f"actionseal {actionseal.__version__} from {where}")
EOF

# The README's examples: the first python block after each marker, and the text block after
# it is what it must print.
"$py" - "$here/README.md" <<'EOF'
import re, subprocess, sys
readme = open(sys.argv[1], encoding="utf-8").read()
for marker in ("<!-- quickstart:", "<!-- refund-example:", "<!-- ledger-example:"):
    blocks = re.findall(r"```(\w+)\n(.*?)```", readme[readme.index(marker):], re.S)
    (lang, code), (out_lang, want) = blocks[0], blocks[1]
    assert (lang, out_lang) == ("python", "text"), (marker, lang, out_lang)
    if marker == "<!-- quickstart:":
        assert len(code.strip().splitlines()) == 3, "the quickstart is three lines"
    got = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    if got != want:
        sys.exit(f"README {marker[5:-1]} printed {got!r}, the README says {want!r}")
    print(f"README {marker[5:-1]}: ok")
EOF

# The stub the wheel ships against the compiled module it describes (names, parameters,
# defaults, kinds); the allowlist holds only what a stub cannot express, each with its reason.
"$py" -m mypy.stubtest actionseal --mypy-config-file "$here/stubtest.ini" \
    --allowlist "$here/stubtest-allowlist.txt"

"$py" -m pytest -p no:cacheprovider -q "$here/tests"
