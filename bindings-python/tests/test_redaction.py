"""Every redaction vector through the Python API (``conformance/vectors/redaction/``, ``op``
per file: ``commit``, ``reveal``, ``check``, ``review``), with the contract as a document and loaded once;
salts drawn from the OS CSPRNG; no secret in any error message or verdict.

Inputs are the vectors' raw texts read by ``actionseal.loads``; results are compared exactly
with ``expect``, which the Rust regenerator computed and ``redaction-check.py`` re-derived.
"""

import json

import pytest

import actionseal
from conftest import CODES, CONFORMANCE

VECTORS = sorted((CONFORMANCE / "vectors" / "redaction").glob("*.json"))
OPS = {"commit", "reveal", "check", "review"}


def run_op(doc, preloaded=False, raising=False):
    """The vector's result through this package, and the message of the error raised (or
    None); ``preloaded``: the contract loaded once as a ``Contract``; ``raising``: the error
    raised, not returned."""
    load = actionseal.loads

    def contract(c):
        return actionseal.Contract(c) if preloaded else c

    def outcome(call):
        if raising:
            return call(), None
        try:
            return call(), None
        except actionseal.ActionsealError as e:
            assert e.code in CODES, f"{e.code!r} is not in codes.json"
            return {"error": e.code, "path": e.path}, str(e)

    op = doc["op"]
    if op == "commit":
        ids = load(doc["ids"])
        return outcome(lambda: actionseal.commit_action(contract(load(doc["contract"])), load(doc["args"]),
                                                        salts=load(doc["salts"]), **ids))
    if op == "reveal":
        return outcome(lambda: actionseal.reveal_action(contract(load(doc["contract"])), load(doc["action"]),
                                                        load(doc["disclosures"]), load(doc["coverage"])))
    if op == "check":
        context = load(doc["context"])
        if preloaded:
            context = dict(context, contract=actionseal.Contract(context["contract"]))
        return outcome(lambda: actionseal.check(load(doc["approval"]), load(doc["action"]), context))
    if op == "review":
        # A method of a loaded contract only: a page reviews with the contract it holds.
        return outcome(lambda: actionseal.Contract(load(doc["contract"])).review_action(load(doc["action"])))
    raise AssertionError(f"unknown op {op!r}")


def test_every_op_has_vectors():
    assert len(VECTORS) >= 20
    assert {json.loads(p.read_text("utf-8"))["op"] for p in VECTORS} == OPS


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector(path):
    doc = json.loads(path.read_text("utf-8"))
    for preloaded in (False, True):
        got, message = run_op(doc, preloaded)
        assert got == doc["expect"]
        shown = message if message is not None else json.dumps(got) if doc["op"] == "check" else ""
        for secret in doc["secrets"]:
            assert secret not in shown


COMMIT = json.loads((CONFORMANCE / "vectors" / "redaction" / "y_commit_three_fields_two_in_an_array.json")
                    .read_text("utf-8"))
CONTRACT, ARGS, IDS = (actionseal.loads(COMMIT[k]) for k in ("contract", "args", "ids"))


def test_salts_come_from_the_csprng_and_reveal_gives_the_values_back():
    a = actionseal.commit_action(CONTRACT, ARGS, **IDS)
    b = actionseal.commit_action(CONTRACT, ARGS, salts=None, **IDS)
    assert len(a["disclosures"]) == 4
    # Fresh salts each time: the same values, other commitments.
    assert a["action_digest"] != b["action_digest"]
    assert a["action_digest"] == actionseal.fingerprint(a["action"])
    assert "4111111111111111" not in actionseal.canonicalize(a["action"])
    clear = actionseal.action(CONTRACT, ARGS, **IDS)
    assert actionseal.reveal_action(CONTRACT, a["action"], a["disclosures"], "every") == clear
    # The check of the clear action against the committed approval, with the disclosures.
    record = actionseal.approve(a["action"], approval_id="apr-1", decision_id="dec-1", decision="approved",
                                approver="user:bob", decided_at=1000, expires_at=100000)
    context = {"now": 5000, "tenant": IDS["tenant"], "policy_version": IDS["policy_version"], "contract": CONTRACT,
               "approver_authorized": {"approver": "user:bob", "authorized": True},
               "subject_authorized": {"subject": IDS["subject"], "authorized": True},
               "revoked": {"approval_id": "apr-1", "revoked": False}, "disclosures": a["disclosures"]}
    verdict = actionseal.check(record, clear, context)
    assert (verdict["outcome"], verdict["action_digest"]) == ("permit", a["action_digest"])
    # Another task's disclosures do not open this approval.
    verdict = actionseal.check(record, clear, dict(context, disclosures=b["disclosures"]))
    assert "disclosure_invalid" in verdict["reasons"]


def test_arguments_are_data():
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.commit_action(CONTRACT, ARGS, salts=["AAAA"], **IDS)
    assert (e.value.code, e.value.path) == ("invalid_request", "/salts")
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.commit_action(CONTRACT, {**ARGS, "amount_minor": object()}, **IDS)
    assert (e.value.code, e.value.path) == ("unsupported_type", "/args/amount_minor")
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.commit_action(CONTRACT, ARGS, **IDS, profile="rfc8785")
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.reveal_action(CONTRACT, actionseal.action(CONTRACT, ARGS, **IDS), [], "all")
    assert e.value.code == "invalid_request"
