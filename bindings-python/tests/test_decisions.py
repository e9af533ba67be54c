"""Every contract, action, approval, amend, notice, gate, budget and permit vector through the Python API.

Each result is computed as conformance/src/decisions.rs computes it in Rust, with the inputs
read from the vector's raw JSON texts by ``actionseal.loads``, and compared exactly with the
file's ``expect``.
"""

import json

import pytest

import actionseal
from conftest import CODES, CONFORMANCE, error_of

VECTORS = CONFORMANCE / "vectors"
REASONS = frozenset(json.loads((CONFORMANCE / "codes.json").read_text("utf-8"))["reasons"])


def vectors(kind):
    paths = sorted((VECTORS / kind).glob("*.json"))
    return pytest.mark.parametrize("path", paths, ids=[p.stem for p in paths])


def read(path):
    return json.loads(path.read_text("utf-8"))


def refused(err):
    """A vector's error result; the code must be a listed one."""
    assert err.code in CODES, f"{err.code!r} is not in codes.json"
    return {"error": err.code, "path": err.path}


def check_name(path, expect):
    """``y_`` files are accepted; ``n_<code>...`` files are refused with that code."""
    if path.name.startswith("y_"):
        assert "error" not in expect, path.name
    else:
        assert path.stem[2:].startswith(expect["error"]), path.name


def test_every_kind_has_vectors():
    for kind, least in [("contract", 20), ("action", 5), ("approval", 5), ("amend", 12), ("notice", 12), ("gate", 30), ("budget", 8), ("permit", 30)]:
        assert len(list((VECTORS / kind).glob("*.json"))) >= least, kind


# ------------------------------------------------------------------ contracts


def contract_result(doc):
    try:
        contract = actionseal.Contract(actionseal.loads(doc["contract"]))
    except actionseal.ActionsealError as e:
        return refused(e)
    out = {"digest": contract.digest}
    if "args" in doc:
        try:
            out["requirement"] = actionseal.requires_approval(contract, actionseal.loads(doc["args"]))
        except actionseal.ActionsealError as e:
            return refused(e)
    if "action" in doc:
        try:
            contract.validate_action(actionseal.loads(doc["action"]))
            out["action_valid"] = True
        except actionseal.ActionsealError as e:
            return refused(e)
    return out


@vectors("contract")
def test_contract_vector(path):
    doc = read(path)
    want = doc["expect"]
    assert contract_result(doc) == want
    check_name(path, want)
    try:
        contract = actionseal.Contract(actionseal.loads(doc["contract"]))
    except actionseal.ActionsealError:
        assert "error" in want
        return
    assert contract.digest == actionseal.fingerprint(contract.document)
    if "args" not in doc:
        return
    # The same through the Contract's methods and through the document itself.
    args = actionseal.loads(doc["args"])
    if "error" in want:
        for fn in (contract.validate_args, contract.requires_approval):
            assert refused(error_of(fn, args)) == want
        err = error_of(actionseal.requires_approval, contract.document, args)
        assert refused(err) == want
    else:
        contract.validate_args(args)
        assert contract.requires_approval(args) == want["requirement"]
        assert actionseal.requires_approval(contract.document, args) == want["requirement"]


# ------------------------------------------------------------------ actions


def action_result(doc, contract):
    # The ids, as given (missing, unknown or not strings too), are the keyword arguments.
    try:
        envelope = actionseal.action(contract(), actionseal.loads(doc["args"]), **doc["ids"])
    except actionseal.ActionsealError as e:
        return refused(e)
    return {"action": actionseal.canonicalize(envelope), "fingerprint": actionseal.fingerprint(envelope)}


@vectors("action")
def test_action_vector(path):
    doc = read(path)
    want = doc["expect"]
    # The contract as a loaded Contract and as its document: the same result.
    assert action_result(doc, lambda: actionseal.Contract(actionseal.loads(doc["contract"]))) == want
    assert action_result(doc, lambda: actionseal.loads(doc["contract"])) == want
    check_name(path, want)


# ------------------------------------------------------------------ approvals


def approval_result(doc):
    # The decision, as given (fields missing, unknown or of other types too), is the keyword
    # arguments.
    try:
        record = actionseal.approve(actionseal.loads(doc["action"]), **doc["decision"])
    except actionseal.ActionsealError as e:
        return refused(e)
    return {"approval": actionseal.canonicalize(record), "fingerprint": actionseal.fingerprint(record)}


@vectors("approval")
def test_approval_vector(path):
    doc = read(path)
    want = doc["expect"]
    assert approval_result(doc) == want
    check_name(path, want)
    if "approval" in want:
        record = actionseal.loads(want["approval"])
        assert record["action_digest"] == actionseal.fingerprint(record["action"])


# ------------------------------------------------------------------ amendments


def amend_result(doc, contract):
    try:
        amended = actionseal.amend(actionseal.loads(doc["current"]), actionseal.loads(doc["replacement"]), contract())
    except actionseal.ActionsealError as e:
        return refused(e)
    assert set(amended) == {"action", "action_digest", "proposed_digest", "amended_pointers"}
    # The digests are the fingerprints of the two actions, computed here.
    assert amended["action_digest"] == actionseal.fingerprint(amended["action"])
    assert amended["proposed_digest"] == actionseal.fingerprint(actionseal.loads(doc["current"]))
    return {
        "action": actionseal.canonicalize(amended["action"]),
        "fingerprint": amended["action_digest"],
        "proposed_digest": amended["proposed_digest"],
        "pointers": amended["amended_pointers"],
    }


@vectors("amend")
def test_amend_vector(path):
    doc = read(path)
    want = doc["expect"]
    # The contract as a loaded Contract and as its document: the same result.
    assert amend_result(doc, lambda: actionseal.Contract(actionseal.loads(doc["contract"]))) == want
    assert amend_result(doc, lambda: actionseal.loads(doc["contract"])) == want
    check_name(path, want)


def refund(name):
    return json.loads((CONFORMANCE.parent / "examples" / "refund" / name).read_text("utf-8"))


def test_an_amended_decision_binds_the_amended_action_and_records_the_proposal():
    proposed, context = refund("action.json"), refund("context.json")
    edited = json.loads(json.dumps(proposed))
    edited["args"]["amount_minor"] = 2000
    amended = actionseal.amend(proposed, edited, context["contract"])
    assert amended["amended_pointers"] == ["/args/amount_minor"]
    assert amended["proposed_digest"] == actionseal.fingerprint(proposed)
    decision = dict(approval_id="apr-1", decision_id="dec-1", decision="approved", approver="user:bob",
                    decided_at=context["now"] - 1000, expires_at=context["now"] + 60000)
    record = actionseal.approve(amended["action"], proposed_digest=amended["proposed_digest"], **decision)
    assert (record["action_digest"], record["proposed_digest"]) == (amended["action_digest"], amended["proposed_digest"])
    verdict = actionseal.check(record, amended["action"], context)
    assert (verdict["outcome"], verdict["approved_digest"]) == ("permit", amended["action_digest"])
    # The model's original proposal drifts from what was decided.
    verdict = actionseal.check(record, proposed, context)
    assert (verdict["outcome"], verdict["reasons"], verdict["drift"]) == ("reject", ["action_drift"], ["/args/amount_minor"])
    # "Not amended" has one spelling: no proposed_digest.
    err = error_of(actionseal.approve, amended["action"], proposed_digest=amended["action_digest"], **decision)
    assert (err.code, err.path) == ("invalid_approval", "/proposed_digest")
    # "300" where an integer is expected, and a value the schema refuses: their codes, nothing amended.
    for value, code in [("2000", "type_mismatch"), (0, "out_of_range"), (True, "type_mismatch")]:
        edited["args"]["amount_minor"] = value
        err = error_of(actionseal.amend, proposed, edited, context["contract"])
        assert (err.code, err.path) == (code, "/args/amount_minor")
    # The approval model takes no options.
    err = error_of(actionseal.amend, proposed, proposed, context["contract"], profile="rfc8785")
    assert err.code == "invalid_option"


# ------------------------------------------------------------------ budgets


def budget_result(doc):
    budget = actionseal.loads(doc["budget"])
    for at, cost in enumerate(doc["costs"]):
        before = actionseal.canonicalize(budget)
        try:
            budget = actionseal.charge(budget, actionseal.loads(cost))
        except actionseal.ActionsealError as e:
            # A refused charge leaves the budget as it was.
            assert actionseal.canonicalize(budget) == before
            return dict(refused(e), at=at)
    return {"budget": actionseal.canonicalize(budget)}


@vectors("notice")
def test_notice_vector(path):
    doc = read(path)
    assert {"notices": actionseal.notices(actionseal.loads(doc["value"]))} == doc["expect"]
    check_name(path, doc["expect"])


def test_notices_takes_no_profile():
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.notices("x", profile="rfc8785")
    assert e.value.code == "invalid_option"


@vectors("gate")
def test_gate_vector(path):
    """The decision, and the exact text the model reads, as every runtime gives them."""
    doc = read(path)
    try:
        got = actionseal.gate_step(actionseal.loads(doc["input"]))
    except actionseal.ActionsealError as e:
        got = refused(e)
    assert got == doc["expect"]
    if "refusal" in got:  # the model's text; an elicitation's message is the person's
        assert got["message"] == "actionseal: " + actionseal.canonicalize(got["refusal"])
    check_name(path, doc["expect"])


def test_gate_defaults():
    assert actionseal.gate_defaults() == {"lease_ms": 300_000, "executor": "actionseal-adapter", "proposer": "agent"}


@vectors("budget")
def test_budget_vector(path):
    doc = read(path)
    assert budget_result(doc) == doc["expect"]
    check_name(path, doc["expect"])


# ------------------------------------------------------------------ permit checks


def permit_result(approval, action, context):
    try:
        verdict = actionseal.check(approval, action, context)
    except actionseal.ActionsealError as e:
        return refused(e)
    assert set(verdict["reasons"]) <= REASONS, verdict["reasons"]
    if verdict["action_error"] is not None:
        assert verdict["action_error"]["code"] in CODES
    return verdict


@vectors("permit")
def test_permit_vector(path):
    doc = read(path)
    want = doc["expect"]
    approval = None if doc["approval"] is None else actionseal.loads(doc["approval"])
    action = actionseal.loads(doc["action"])
    context = actionseal.loads(doc["context"])
    assert permit_result(approval, action, context) == want

    if "error" in want:
        assert want["error"] == "invalid_context"
    else:
        assert want["outcome"] in ("permit", "reapprove", "reject")
        assert (want["outcome"] == "permit") == (want["reasons"] == []) == path.name.startswith("y_")
        if path.name.startswith("n_"):
            assert path.stem[2:].startswith(want["outcome"]), path.name

    # The same verdict (or error) with the context's contract preloaded as a Contract (every
    # vector's context has a loadable contract document, or null for an unknown tool).
    if context["contract"] is None:
        assert "unknown_tool" in want["reasons"]
        return
    preloaded = dict(context, contract=actionseal.Contract(context["contract"]))
    assert permit_result(approval, action, preloaded) == want
    assert isinstance(preloaded["contract"], actionseal.Contract)

    # And with the approval loaded once, when it loads (a malformed record is refused by
    # Approval and rejected by check): the presented action is then compared with the held
    # frozen one, which is checked in its place when they are the same.
    try:
        loaded = actionseal.Approval(approval)
    except actionseal.ActionsealError:
        return
    assert permit_result(loaded, action, preloaded) == want
    assert permit_result(loaded, action, context) == want
    if want.get("outcome") is not None:
        verdict = permit_result(loaded, dict(reversed(list(action.items()))), preloaded)
        assert verdict == want and list(verdict) == sorted(verdict)
