"""Every evidence vector through the Python API (``conformance/vectors/evidence/``): bundles a
real ledger exported, with a verifier's trust. ``verify_evidence`` gives the timeline the Rust
regenerator recorded (compared as sorted, compact JSON text, so an int never passes for a
float), or raises with its code and path; each vector also goes in as the package's own parse
of its text (``actionseal.loads``)."""

import json

import pytest

import actionseal
from conftest import CODES, CONFORMANCE

VECTORS = CONFORMANCE / "vectors" / "evidence"


def paths():
    """The vectors; none at all fails (pytest would skip an empty parametrization)."""
    found = sorted(VECTORS.glob("*.json"))
    assert len(found) >= 25, f"only {len(found)} vectors in {VECTORS}"
    return found


def text(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def outcome(bundle, trust):
    try:
        timeline = actionseal.verify_evidence(bundle, trust)
    except actionseal.ActionsealError as err:
        assert err.code in CODES, f"{err.code!r} is not in codes.json"
        assert str(err).startswith(err.code + ": ")
        return {"error": {"code": err.code, "path": err.path}}
    return {"timeline": text(timeline)}


@pytest.mark.parametrize("path", paths(), ids=lambda p: p.stem)
def test_evidence_vector(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(doc) == ["bundle", "description", "expected", "trust"]
    want = doc["expected"]
    if "timeline" in want:
        want = {"timeline": text(want["timeline"])}
    assert outcome(doc["bundle"], doc["trust"]) == want
    parsed = [actionseal.loads(json.dumps(doc[k])) for k in ("bundle", "trust")]
    assert outcome(*parsed) == want
