"""Every quorum and delegation vector through the Python API (``conformance/vectors/quorum/``
and ``delegation/``, ``op`` per file: ``check_set``, ``verify_delegation``,
``delegation_digest``), and the surface of ``check_set``, ``sign_delegation``,
``verify_delegation`` and ``delegation_digest``.

Inputs are the vectors' raw texts read by ``actionseal.loads``; results are compared exactly
with ``expect``, which the Rust regenerator computed.
"""

import json

import pytest

import actionseal
from conftest import CODES, CONFORMANCE, error_of
from test_decisions import REASONS

VECTORS = CONFORMANCE / "vectors"
KINDS = ("quorum", "delegation")
OPS = {"check_set", "verify_delegation", "delegation_digest"}


def paths(kind):
    """The vectors of a kind; none at all fails (pytest would skip an empty parametrization)."""
    found = sorted((VECTORS / kind).glob("*.json"))
    assert found, f"no vectors in {VECTORS / kind}"
    return found


def all_vectors():
    return [p for kind in KINDS for p in sorted((VECTORS / kind).glob("*.json"))]


def refused(err):
    assert err.code in CODES, f"{err.code!r} is not in codes.json"
    return {"error": err.code, "path": err.path}


def verdict_of(verdict):
    assert set(verdict["reasons"]) <= REASONS, verdict["reasons"]
    return verdict


def run_op(doc, preloaded=False):
    """The vector's operation through this package; raises what the package raises, and
    AssertionError for an op this runner does not know."""
    op = doc["op"]
    load = actionseal.loads
    if op == "check_set":
        context = load(doc["context"])
        if preloaded:
            context = dict(context, contract=actionseal.Contract(context["contract"]))
        return verdict_of(actionseal.check_set([load(a) for a in doc["approvals"]], load(doc["action"]), context))
    if op == "verify_delegation":
        return actionseal.verify_delegation(load(doc["link"]), load(doc["keys"]), doc["at"])
    if op == "delegation_digest":
        return {"digest": actionseal.delegation_digest(load(doc["document"]))}
    raise AssertionError(f"unknown op {op!r}")


def result(doc, **how):
    try:
        return run_op(doc, **how)
    except actionseal.ActionsealError as e:
        return refused(e)


@pytest.mark.parametrize("path", all_vectors(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_vector(path):
    doc = json.loads(path.read_text("utf-8"))
    assert result(doc) == doc["expect"]
    if doc["op"] != "check_set":
        return
    context = actionseal.loads(doc["context"])
    if isinstance(context, dict) and isinstance(context.get("contract"), dict):
        # The same verdict with the contract loaded once.
        assert result(doc, preloaded=True) == doc["expect"]
    if len(doc["approvals"]) <= 1:
        # ``check`` is ``check_set`` of zero or one member.
        approval = actionseal.loads(doc["approvals"][0]) if doc["approvals"] else None
        try:
            got = actionseal.check(approval, actionseal.loads(doc["action"]), context)
        except actionseal.ActionsealError as e:
            got = refused(e)
        assert got == doc["expect"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_has_vectors_and_only_known_ops(kind):
    ops = {json.loads(p.read_text("utf-8"))["op"] for p in paths(kind)}
    assert ops <= OPS, ops - OPS


def test_an_unknown_op_fails_the_runner():
    with pytest.raises(AssertionError, match="unknown op"):
        run_op({"op": "check_sets"})


REFUND = CONFORMANCE.parent / "examples" / "refund"


def example(name):
    return json.loads((REFUND / name).read_text("utf-8"))


def test_arguments_of_the_wrong_type_are_coded_errors():
    action, context = example("action.json"), example("context.json")
    for call, code in [
        (lambda: actionseal.check_set({}, action, context), "invalid_approval"),
        (lambda: actionseal.check_set("[]", action, context), "invalid_approval"),
        (lambda: actionseal.check_set([object()], action, context), "unsupported_type"),
        (lambda: actionseal.check_set([], action, {"now": 0}), "invalid_context"),
        (lambda: actionseal.verify_delegation({}, {}, -1), "invalid_request"),
        (lambda: actionseal.verify_delegation({}, {}, "0"), "invalid_request"),
        (lambda: actionseal.verify_delegation({}, 7, 0), "invalid_key_set"),
        (lambda: actionseal.sign_delegation({}, 7), "invalid_key"),
        (lambda: actionseal.sign_delegation({}, {1: 2}), "non_string_key"),
    ]:
        err = error_of(call)
        assert err.code == code, (err.code, code)


def test_a_set_of_one_is_check_of_one():
    record, action, context = example("approval.json"), example("action.json"), example("context.json")
    assert actionseal.check_set([record], action, context) == actionseal.check(record, action, context)
    assert actionseal.check_set([], action, context) == actionseal.check(None, action, context)
    assert actionseal.check_set((record,), action, context)["outcome"] == "permit"
