"""Shared helpers: where the conformance data is, and checking raised errors."""

import json
import os
from pathlib import Path

import pytest

import actionseal

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = REPO / "conformance"
PROFILES = ("strict", "rfc8785")
CODES = frozenset(json.loads((CONFORMANCE / "codes.json").read_text("utf-8"))["codes"])


def _jcs_path() -> Path:
    return Path(os.environ.get("ACTIONSEAL_JCS_DIR", REPO.parent / "shared" / "vectors" / "jcs"))


def pytest_terminal_summary(terminalreporter):
    """One visible line, even with -q, when the public data is absent (its tests are skipped)."""
    d = _jcs_path()
    if not (d / "public_vectors.jsonl").is_file():
        terminalreporter.write_line(
            f"NOTE: public RFC 8785 data not found at {d}: its tests are skipped (set ACTIONSEAL_JCS_DIR)"
        )


def jcs_dir() -> Path:
    """The public RFC 8785 data: $ACTIONSEAL_JCS_DIR, else ../shared/vectors/jcs beside the
    repository. When it is absent the tests that need it are skipped, saying so, unless
    ACTIONSEAL_REQUIRE_PUBLIC_DATA=1 (CI), which makes its absence a failure."""
    d = _jcs_path()
    if not (d / "public_vectors.jsonl").is_file():
        why = f"public RFC 8785 data not found at {d} (set ACTIONSEAL_JCS_DIR)"
        if os.environ.get("ACTIONSEAL_REQUIRE_PUBLIC_DATA") == "1":
            pytest.fail(f"{why} and ACTIONSEAL_REQUIRE_PUBLIC_DATA=1")
        pytest.skip(why)
    return d


def error_of(fn, *args, **kwargs) -> actionseal.ActionsealError:
    """The ActionsealError that ``fn(*args, **kwargs)`` raises, checked to be well-formed:
    every code seen anywhere in these tests must be one listed in conformance/codes.json."""
    with pytest.raises(actionseal.ActionsealError) as info:
        fn(*args, **kwargs)
    err = info.value
    assert err.code in CODES, f"{err.code!r} is not in codes.json"
    assert isinstance(err.path, str)
    assert err.offset is None or (isinstance(err.offset, int) and err.offset >= 0)
    assert str(err).startswith(err.code + ": ")
    return err
