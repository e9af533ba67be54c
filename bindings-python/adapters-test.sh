#!/usr/bin/env bash
# Builds the Python wheel, installs it with the agent frameworks (and mcp) pinned in
# adapters-requirements.txt into a scratch virtual environment, and runs the adapter tests
# (adapter-tests/, which also run examples/adapters/*.py) against the installed wheel.
#
#   bash bindings-python/adapters-test.sh
#
# The frameworks are dev dependencies only: they live in target/python/adapters/, never in
# the wheel's requirements. The ledger runs on SQLite files; with ACTIONSEAL_TEST_PG set (as
# `scripts/pg run bash bindings-python/adapters-test.sh` does) every test runs on PostgreSQL too.
# ACTIONSEAL_ADAPTERS_LATEST=1 installs the newest framework releases instead of the pins (in a
# venv of its own): a failing test then names the versions that broke the adapter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/.." && pwd))"

# Build tools, pinned, in the repository's venv (as test.sh).
venv="$repo/.venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements-dev.txt"

# The wheel, in the target directory test.sh uses (pyo3 is built once for both).
export CARGO_TARGET_DIR="$repo/target/python"
work="$CARGO_TARGET_DIR/adapters"
rm -rf "$work/wheels"
mkdir -p "$work/wheels"
"$here/build-wheel" "$work/wheels" "$venv"
wheels=("$work"/wheels/actionseal-*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
    echo "adapters-test.sh: expected one wheel in $work/wheels, found: ${wheels[*]}" >&2
    exit 1
fi

# The scratch environment: rebuilt when the pins change (a stamp holds their digest).
pytest_pin="$(grep -E '^pytest==' "$here/requirements-dev.txt")"
if [ "${ACTIONSEAL_ADAPTERS_LATEST:-}" = 1 ]; then
    env_dir="$work/venv-latest"
    rm -rf "$env_dir"
    python3 -m venv "$env_dir"
    frameworks=$(sed -n '/^# The frameworks:/,/^#$/p' "$here/adapters-requirements.txt" | grep -E '^[a-z]' | sed 's/==.*//')
    # shellcheck disable=SC2086
    "$env_dir/bin/python" -m pip install --quiet --disable-pip-version-check -U $frameworks "$pytest_pin"
else
    env_dir="$work/venv"
    stamp="$(cat "$here/adapters-requirements.txt" <(echo "$pytest_pin") | sha256sum | cut -c1-16)"
    if [ "$(cat "$env_dir/.pins" 2>/dev/null)" != "$stamp" ]; then
        rm -rf "$env_dir"
        python3 -m venv "$env_dir"
        "$env_dir/bin/python" -m pip install --quiet --disable-pip-version-check \
            -r "$here/adapters-requirements.txt" "$pytest_pin"
        echo "$stamp" > "$env_dir/.pins"
    fi
fi
py="$env_dir/bin/python"
"$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "${wheels[0]}"

# Run from the scratch directory so that nothing in the source tree can shadow the installed
# package (the wheel must ship actionseal.adapters).
cd "$work"
export PYTHONDONTWRITEBYTECODE=1
"$py" - <<'EOF'
import actionseal, actionseal.adapters, sys
where = actionseal.adapters.__file__
assert where.startswith(sys.prefix), f"actionseal.adapters imported from {where}, not the scratch venv"
print(f"actionseal {actionseal.__version__} with its adapters from {where}")
EOF
if [ -z "${ACTIONSEAL_TEST_PG:-}" ] || [ "${ACTIONSEAL_TEST_PG}" = skip ]; then
    echo "NOTE: the adapter tests run on SQLite only (ACTIONSEAL_TEST_PG is not set)"
fi
"$py" -m pytest -p no:cacheprovider -q "$here/adapter-tests"
