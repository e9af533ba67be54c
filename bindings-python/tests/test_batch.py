"""Every batch vector through the Python API (``conformance/vectors/batch/``, ``op`` per file:
``build``, ``deselect``, ``verify_item``, ``check_item``, ``check_batch``, ``check``,
``breaker``), with the contract as a document and loaded once, and the surface of the batch
functions.

Inputs are the vectors' raw texts read by ``actionseal.loads``; results are compared exactly
with ``expect``, which the Rust regenerator computed.
"""

import json

import pytest

import actionseal
from conftest import CODES, CONFORMANCE

VECTORS = sorted((CONFORMANCE / "vectors" / "batch").glob("*.json"))
OPS = {"build", "deselect", "verify_item", "check_item", "check_batch", "check", "breaker"}


def refused(err):
    assert err.code in CODES, f"{err.code!r} is not in codes.json"
    return {"error": err.code, "path": err.path}


def preload(context):
    if isinstance(context, dict) and isinstance(context.get("contract"), dict):
        return dict(context, contract=actionseal.Contract(context["contract"]))
    return None


def run_op(doc, preloaded=False, raising=False):
    """The vector's result through this package; ``preloaded``: with the contract loaded once
    (None where the vector has no contract to load); ``raising``: the first error raised, not
    returned as ``{"error", "path"}``."""

    def outcome(call):
        if raising:
            return call()
        try:
            return call()
        except actionseal.ActionsealError as e:
            return refused(e)

    load = actionseal.loads
    op = doc["op"]
    if op in ("build", "deselect"):
        contract = load(doc["contract"])
        if preloaded:
            if "batch" not in contract:
                return None
            contract = actionseal.Contract(contract)
        args = (contract, load(doc["semantics"]), load(doc["actions"]))
        if op == "build":
            return outcome(lambda: actionseal.batch_build(*args, load(doc["server"])))
        return outcome(lambda: actionseal.batch_deselect(*args, load(doc["indices"]), load(doc["server"])))
    if op == "breaker":
        if preloaded:
            return None
        policy = load(doc["policy"])
        return [outcome(lambda s=s: actionseal.breaker_step(policy, load(s["breaker"]), load(s["event"])))
                for s in doc["steps"]]
    if op == "verify_item":
        return None if preloaded else outcome(lambda: actionseal.batch_verify_item(load(doc["header"]), load(doc["item"])))
    context = load(doc["context"])
    if preloaded:
        context = preload(context)
        if context is None:
            return None
    if op == "check_item":
        return outcome(lambda: actionseal.check_item([load(a) for a in doc["approvals"]], load(doc["item"]),
                                                     load(doc["action"]), context))
    if op == "check_batch":
        return outcome(lambda: actionseal.check_batch([load(a) for a in doc["approvals"]], load(doc["items"]),
                                                      load(doc["actions"]), context))
    if op == "check":
        return outcome(lambda: actionseal.check(load(doc["approval"]), load(doc["action"]), context))
    raise AssertionError(f"unknown op {op!r}")


def test_every_op_has_vectors():
    assert len(VECTORS) >= 50
    assert {json.loads(p.read_text("utf-8"))["op"] for p in VECTORS} == OPS


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector(path):
    doc = json.loads(path.read_text("utf-8"))
    assert run_op(doc) == doc["expect"]
    again = run_op(doc, preloaded=True)
    assert again is None or again == doc["expect"]


def test_a_runner_refuses_an_unknown_op():
    with pytest.raises(AssertionError, match="unknown op"):
        run_op({"op": "build_batch", "context": "{}"})


BUILD = json.loads((CONFORMANCE / "vectors" / "batch" / "y_build_three_refunds.json").read_text("utf-8"))
CONTRACT, ACTIONS = actionseal.loads(BUILD["contract"]), actionseal.loads(BUILD["actions"])
DECISION = {"approval_id": "a", "decision_id": "d", "decision": "approved", "approver": "user:carol",
            "decided_at": 0, "expires_at": 10}


def test_server_is_optional_and_a_contract_stands_for_its_document():
    assert actionseal.batch_build(CONTRACT, "per_item", ACTIONS) == BUILD["expect"]
    assert actionseal.batch_build(actionseal.Contract(CONTRACT), "per_item", ACTIONS, None) == BUILD["expect"]
    kept = actionseal.batch_deselect(CONTRACT, "per_item", ACTIONS, [0])
    assert kept["proposed_digest"] == BUILD["expect"]["batch_digest"]


def test_decide_takes_approves_keywords_and_signs_like_an_approval():
    header = BUILD["expect"]["header"]
    record = actionseal.batch_decide(header, **DECISION)
    assert record["batch_digest"] == BUILD["expect"]["batch_digest"] == actionseal.fingerprint(header)
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.batch_decide(header, **{**DECISION, "decision": "maybe"})
    assert (e.value.code, e.value.path) == ("invalid_approval", "/decision")
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.batch_decide(header, **DECISION, profile="rfc8785")
    assert e.value.code == "invalid_option"
    key = actionseal.SigningKey.generate()
    keys = {"service_keys": {key.public_jwk["kid"]: {"key": key.public_jwk}}}
    verified = actionseal.batch_verify_decision(key.sign(record), keys, 0)
    assert verified["approval"] == record


def test_arguments_are_data():
    context = actionseal.loads(json.loads(
        (CONFORMANCE / "vectors" / "batch" / "y_permit_every_item_per_item.json").read_text("utf-8"))["context"])
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.batch_build(CONTRACT, "per_item", [object()])
    assert (e.value.code, e.value.path) == ("unsupported_type", "/0")
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.check_item({}, {}, ACTIONS[0], context)
    assert e.value.code == "invalid_approval"
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.check_batch([], [], [ACTIONS[0]], context)
    assert e.value.code == "invalid_request"
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.breaker_step(None, None, {"kind": "ajar", "at": 1})
    assert (e.value.code, e.value.path) == ("invalid_request", "/kind")
