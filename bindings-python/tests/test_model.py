"""The approval model's Python surface: Contract, action, approve, check, charge, loads,
short_fingerprint; host values that are not the JSON they look like; threads."""

import copy
import decimal
import enum
import json
import pickle
import threading

import pytest

import actionseal
from conftest import CONFORMANCE, PROFILES, error_of

SCENARIOS = json.loads((CONFORMANCE / "scenarios" / "permit.json").read_text("utf-8"))
REFUND = SCENARIOS["contracts"]["refund"]
BASE = SCENARIOS["base"]
IDS = BASE["ids"]
ARGS = BASE["args"]
DECISION = BASE["decision"]
NOW = BASE["context"]["now"]


def context(contract, **changes):
    ctx = dict(BASE["context"], contract=contract)
    ctx.update(changes)
    return ctx


@pytest.fixture(scope="module")
def refund():
    return actionseal.Contract(REFUND)


@pytest.fixture(scope="module")
def envelope(refund):
    return actionseal.action(refund, ARGS, **IDS)


@pytest.fixture(scope="module")
def record(envelope):
    return actionseal.approve(envelope, **DECISION)


# ------------------------------------------------------------------ Contract


def test_contract_properties(refund):
    assert refund.tool == "refund_create"
    assert refund.version == "3"
    assert refund.effect == "write"
    assert refund.cost_minor == 25 and type(refund.cost_minor) is int
    assert refund.digest == actionseal.fingerprint(REFUND)
    assert refund.digest == "sha256:4db87678d6842f2eb3c145ce09f9df2fc62ceb6e04071a1c10557a3af75ca27d"
    assert actionseal.Contract(SCENARIOS["contracts"]["lookup"]).effect == "read"


def test_contract_document_is_a_fresh_copy(refund):
    doc = refund.document
    assert doc == REFUND
    assert doc is not refund.document
    doc["tool"] = "changed"
    doc["args"]["properties"].clear()
    assert refund.document == REFUND
    assert refund.tool == "refund_create"


def test_contract_is_immutable(refund):
    for name, value in [("tool", "x"), ("digest", "sha256:0"), ("cost_minor", 0), ("anything", 1)]:
        with pytest.raises(AttributeError):
            setattr(refund, name, value)
    assert refund.tool == "refund_create"


def test_contract_does_not_keep_the_callers_document():
    doc = copy.deepcopy(REFUND)
    contract = actionseal.Contract(doc)
    doc["args"]["properties"]["amount_minor"]["minimum"] = 100_000
    doc["approval"] = "never"
    assert contract.document == REFUND
    assert contract.requires_approval(dict(ARGS, amount_minor=5000))["required"] is True


def test_contract_repr_equality_hash_and_pickle(refund):
    text = repr(refund)
    assert text.startswith("<actionseal.Contract tool='refund_create' version='3' digest='sha256:4db8")
    same = actionseal.Contract(copy.deepcopy(REFUND))
    other = actionseal.Contract(SCENARIOS["contracts"]["refund_v4"])
    assert refund == same and hash(refund) == hash(same)
    assert refund != other
    assert refund != REFUND  # a contract is not its document
    assert len({refund, same, other}) == 2
    for back in (pickle.loads(pickle.dumps(refund)), copy.copy(refund), copy.deepcopy(refund)):
        assert type(back) is actionseal.Contract
        assert back == refund and back.digest == refund.digest and back.document == REFUND


def test_contract_errors():
    err = error_of(actionseal.Contract, [])
    assert (err.code, err.path) == ("invalid_contract", "")
    err = error_of(actionseal.Contract, dict(REFUND, cost_minor=True))
    assert (err.code, err.path) == ("invalid_contract", "/cost_minor")
    err = error_of(actionseal.Contract, dict(REFUND, extra=1))
    assert (err.code, err.path) == ("invalid_contract", "/extra")
    args = dict(REFUND["args"], properties=dict(REFUND["args"]["properties"], note={"type": "string", "if": {}}))
    err = error_of(actionseal.Contract, dict(REFUND, args=args))
    assert (err.code, err.path) == ("unsupported_schema", "/args/properties/note/if")
    # Host values that are not JSON, wherever they are.
    err = error_of(actionseal.Contract, dict(REFUND, cost_minor=decimal.Decimal(25)))
    assert (err.code, err.path) == ("unsupported_type", "/cost_minor")
    with pytest.raises(TypeError):
        actionseal.Contract()


def test_contract_methods_and_module_functions_agree(refund):
    small, large = dict(ARGS, amount_minor=500), dict(ARGS, amount_minor=5000)
    assert refund.requires_approval(small) == {"required": False, "rule": "/approval/when"}
    assert refund.requires_approval(large) == {"required": True, "rule": "/approval/when/0"}
    assert refund.requires_approval(dict(small, currency="EUR")) == {"required": True, "rule": "/approval/when/1"}
    for args in (small, large):
        assert actionseal.requires_approval(refund, args) == refund.requires_approval(args)
        assert actionseal.requires_approval(REFUND, args) == refund.requires_approval(args)
        assert refund.validate_args(args) is None


def test_validate_action(refund, envelope):
    assert refund.validate_action(envelope) is None
    err = error_of(refund.validate_action, dict(envelope, tool="other"))
    assert (err.code, err.path) == ("invalid_action", "/tool")
    err = error_of(actionseal.Contract(SCENARIOS["contracts"]["refund_v4"]).validate_action, envelope)
    assert (err.code, err.path) == ("invalid_action", "/contract")
    err = error_of(refund.validate_action, dict(envelope, args=dict(ARGS, amount_minor="300")))
    assert (err.code, err.path) == ("type_mismatch", "/args/amount_minor")


# ------------------------------------------------------------------ host values


class Cents(enum.IntEnum):
    FIVE = 500


NOT_AMOUNTS = [
    # (amount, code, whether it is JSON: then core decides, else the conversion refuses)
    (True, "type_mismatch", True),
    ("300", "type_mismatch", True),
    (2.5, "type_mismatch", True),
    (2**53, "unsafe_integer", True),
    (2**60, "inexact_number", False),
    (decimal.Decimal("300"), "unsupported_type", False),
    (float("nan"), "non_finite_number", False),
    (float("inf"), "non_finite_number", False),
    (b"300", "unsupported_type", False),
]


@pytest.mark.parametrize("amount,code,is_json", NOT_AMOUNTS, ids=[repr(a)[:20] for a, _, _ in NOT_AMOUNTS])
def test_amounts_that_are_not_integers(refund, record, amount, code, is_json):
    args = dict(ARGS, amount_minor=amount)
    for fn in (refund.requires_approval, refund.validate_args, lambda a: actionseal.requires_approval(REFUND, a)):
        err = error_of(fn, args)
        assert (err.code, err.path) == (code, "/amount_minor"), str(err)
    err = error_of(actionseal.action, refund, args, **IDS)
    assert (err.code, err.path) == (code, "/args/amount_minor"), str(err)

    presented = dict(record["action"], args=args)
    if is_json:
        # JSON that breaks the contract: a verdict, never an exception.
        verdict = actionseal.check(record, presented, context(refund))
        assert verdict["outcome"] == "reject"
        assert verdict["action_error"] == {"code": code, "path": "/args/amount_minor"}
        assert verdict["reasons"][:1] == ["invalid_action"]
    else:
        # Not JSON at all: refused as the canonical functions refuse it, with its path.
        err = error_of(actionseal.check, record, presented, context(refund))
        assert (err.code, err.path) == (code, "/args/amount_minor"), str(err)
        tampered = dict(record, action=presented)
        err = error_of(actionseal.check, tampered, record["action"], context(refund))
        assert (err.code, err.path) == (code, "/action/args/amount_minor"), str(err)


def test_int_subclasses_are_their_value(refund):
    assert refund.requires_approval(dict(ARGS, amount_minor=Cents.FIVE))["required"] is False
    assert actionseal.action(refund, dict(ARGS, amount_minor=Cents.FIVE), **IDS)["args"]["amount_minor"] == 500


@pytest.mark.parametrize(
    "cost,code",
    [(True, "invalid_budget"), ("300", "invalid_budget"), (2.5, "invalid_budget"), (-1, "invalid_budget"),
     (None, "invalid_budget"), (2**60, "inexact_number"), (decimal.Decimal(3), "unsupported_type"),
     (float("nan"), "non_finite_number"), (101, "budget_exceeded")],
)
def test_costs(cost, code):
    budget = {"limit_minor": 100, "spent_minor": 0}
    err = error_of(actionseal.charge, budget, cost)
    assert (err.code, err.path) == (code, ""), str(err)
    assert budget == {"limit_minor": 100, "spent_minor": 0}


def test_charge():
    budget = {"limit_minor": 100, "spent_minor": 40}
    assert actionseal.charge(budget, 60) == {"limit_minor": 100, "spent_minor": 100}
    assert actionseal.charge(budget, 60.0) == {"limit_minor": 100, "spent_minor": 100}
    assert budget == {"limit_minor": 100, "spent_minor": 40}  # not changed in place
    for bad, path in [({"limit_minor": 100, "spent_minor": True}, "/spent_minor"),
                      ({"limit_minor": "100", "spent_minor": 0}, "/limit_minor"),
                      ({"limit_minor": 100}, "/spent_minor"),
                      ({"limit_minor": 100, "spent_minor": 0, "extra": 1}, "/extra")]:
        err = error_of(actionseal.charge, bad, 1)
        assert (err.code, err.path) == ("invalid_budget", path)
    err = error_of(actionseal.charge, {"limit_minor": 100, "spent_minor": float("inf")}, 1)
    assert (err.code, err.path) == ("non_finite_number", "/spent_minor")


# ------------------------------------------------------------------ action and approve


def test_action_envelope(refund, envelope):
    assert envelope == {**IDS, "tool": "refund_create", "contract": refund.digest, "args": ARGS}
    assert list(envelope) == sorted(envelope)  # canonical key order
    assert actionseal.action(REFUND, ARGS, **IDS) == envelope
    assert actionseal.fingerprint(envelope) == "sha256:f31c54dd3e07a4eb13e42e3ef537eb234e991a46d59fe815c838b2fe6d5046e8"


def test_action_identities(refund):
    with pytest.raises(TypeError):
        actionseal.action(refund, ARGS, *IDS.values())  # keyword-only
    # The keywords are data that core reads: every one required, no other, each an identity.
    for ids, code, path in [
        (dict(IDS, tenant=None), "invalid_action", "/tenant"),
        (dict(IDS, job_id=7), "invalid_action", "/job_id"),
        ({k: v for k, v in IDS.items() if k != "subject"}, "invalid_action", "/subject"),
        ({}, "invalid_action", "/tenant"),
        (dict(IDS, priority="high"), "invalid_action", "/priority"),
        (dict(IDS, tenant=" tenant-a"), "invalid_action", "/tenant"),
        (dict(IDS, subject=""), "invalid_action", "/subject"),
        (dict(IDS, request_id="req\n1"), "invalid_action", "/request_id"),
        (dict(IDS, tenant="t\ud800"), "lone_surrogate", "/tenant"),
        (dict(IDS, tenant=b"tenant-a"), "unsupported_type", "/tenant"),
    ]:
        err = error_of(actionseal.action, refund, ARGS, **ids)
        assert (err.code, err.path) == (code, path), str(err)


def test_approve(envelope, record):
    assert record["decision"] == "approved"
    assert record["action"] == envelope
    assert record["action_digest"] == actionseal.fingerprint(envelope)
    assert type(record["decided_at"]) is int and record["expires_at"] == DECISION["expires_at"]
    rejected = actionseal.approve(envelope, **dict(DECISION, decision="rejected"))
    assert rejected["decision"] == "rejected"
    assert actionseal.approve.__text_signature__ == (
        "(action, *, approval_id, decision_id, decision, approver, decided_at, expires_at,"
        " proposed_digest=..., role=..., on_behalf_of=..., delegation=...)"
    )
    # Under a quorum: the role decided in, and the delegator decided for through a chain.
    assert actionseal.approve(envelope, **DECISION, role="finance")["role"] == "finance"
    assert actionseal.approve(envelope, **DECISION, on_behalf_of="user:carol", delegation=[{}])["on_behalf_of"] == "user:carol"
    err = error_of(actionseal.approve, envelope, **DECISION, on_behalf_of="user:carol")
    assert err.code == "invalid_approval"
    # 1.0 is the integer 1, as in JSON; the record holds it as an int.
    early = actionseal.approve(envelope, **dict(DECISION, decided_at=1.0))
    assert early["decided_at"] == 1 and type(early["decided_at"]) is int
    with pytest.raises(TypeError):
        actionseal.approve(envelope, DECISION)  # keyword-only


@pytest.mark.parametrize(
    "change,code,path",
    [
        ({"decided_at": -1}, "invalid_approval", "/decided_at"),
        ({"decided_at": True}, "invalid_approval", "/decided_at"),
        ({"decided_at": 1.5}, "invalid_approval", "/decided_at"),
        ({"decided_at": "1764500000000"}, "invalid_approval", "/decided_at"),
        ({"expires_at": None}, "invalid_approval", "/expires_at"),
        ({"expires_at": 2**53}, "invalid_approval", "/expires_at"),
        ({"expires_at": DECISION["decided_at"]}, "invalid_approval", "/expires_at"),
        ({"approver": " bob"}, "invalid_approval", "/approver"),
        ({"approver": 1}, "invalid_approval", "/approver"),
        ({"decision": "Approved"}, "invalid_approval", "/decision"),
        ({"decision": True}, "invalid_approval", "/decision"),
        ({"decision": None}, "invalid_approval", "/decision"),
        ({"note": "ok"}, "invalid_approval", "/note"),
        # Not JSON at all: refused as the canonical functions refuse it.
        ({"decided_at": 2**80}, "inexact_number", "/decided_at"),
        ({"decided_at": decimal.Decimal(1)}, "unsupported_type", "/decided_at"),
        ({"expires_at": float("nan")}, "non_finite_number", "/expires_at"),
        ({"decision": "approved\ud800"}, "lone_surrogate", "/decision"),
    ],
    ids=str,
)
def test_approve_refusals(envelope, change, code, path):
    err = error_of(actionseal.approve, envelope, **dict(DECISION, **change))
    assert (err.code, err.path) == (code, path), str(err)


def test_approve_needs_every_field(envelope):
    for missing in DECISION:
        err = error_of(actionseal.approve, envelope, **{k: v for k, v in DECISION.items() if k != missing})
        assert (err.code, err.path) == ("invalid_approval", "/" + missing), str(err)
    err = error_of(actionseal.approve, envelope)
    assert err.code == "invalid_approval"


def test_approve_needs_a_well_formed_action(envelope):
    err = error_of(actionseal.approve, dict(envelope, priority="high"), **DECISION)
    assert (err.code, err.path) == ("invalid_action", "/priority")
    err = error_of(actionseal.approve, dict(envelope, args=[1, float("nan")]), **DECISION)
    assert (err.code, err.path) == ("non_finite_number", "/args/1")


# ------------------------------------------------------------------ check


def test_check_permits_the_approved_action(refund, envelope, record):
    verdict = actionseal.check(record, envelope, context(refund))
    assert verdict == {
        "outcome": "permit",
        "reasons": [],
        "drift": [],
        "action_digest": record["action_digest"],
        "approved_digest": record["action_digest"],
        "action_error": None,
    }
    assert list(verdict) == sorted(verdict)
    assert actionseal.check(record, envelope, context(REFUND)) == verdict
    # A reordered copy of the action is the same action.
    assert actionseal.check(record, dict(reversed(list(envelope.items()))), context(refund)) == verdict


def test_a_loaded_approval_checks_what_is_presented_not_what_it_holds(refund, envelope, record):
    # The binding checks the held frozen action in place of the presented one only when the
    # two are the same value; every other presented action is converted and checked as is.
    loaded = actionseal.Approval(record)
    ctx = context(refund)

    class Key(str):
        def __hash__(self):
            return id(self)

        def __eq__(self, other):
            return self is other

    same = [envelope, dict(reversed(list(envelope.items()))), dict(envelope, args=dict(ARGS, amount_minor=2500.0))]
    differ = [
        dict(envelope, args=dict(ARGS, amount_minor=2501)),
        dict(envelope, args={**ARGS, "note": None}),
        dict(envelope, args={k: v for k, v in ARGS.items() if k != "currency"}),
        dict(envelope, tenant="tenant-b"),
        {k: v for k, v in envelope.items() if k != "job_id"},
        dict(envelope, args=[ARGS]),
    ]
    for presented in same + differ:
        assert actionseal.check(loaded, presented, ctx) == actionseal.check(record, presented, ctx)
    assert all(actionseal.check(loaded, p, ctx)["outcome"] == "permit" for p in same)
    assert all(actionseal.check(loaded, p, ctx)["outcome"] != "permit" for p in differ)
    # A key given twice (two str objects with one text) is refused, as without the approval
    # loaded; so is what is not data.
    twice = {Key("tenant"): "tenant-a", **envelope}
    for bad, code in [(twice, "duplicate_key"), (dict(envelope, args=dict(ARGS, at=object())), "unsupported_type")]:
        with pytest.raises(actionseal.ActionsealError) as loaded_err:
            actionseal.check(loaded, bad, ctx)
        with pytest.raises(actionseal.ActionsealError) as record_err:
            actionseal.check(record, bad, ctx)
        assert (loaded_err.value.code, loaded_err.value.path) == (record_err.value.code, record_err.value.path)
        assert loaded_err.value.code == code


def test_check_reports_drift_and_pending_approval(refund, envelope, record):
    presented = dict(envelope, args=dict(ARGS, amount_minor=9000))
    verdict = actionseal.check(record, presented, context(refund))
    assert (verdict["outcome"], verdict["reasons"], verdict["drift"]) == ("reject", ["action_drift"], ["/args/amount_minor"])
    assert verdict["approved_digest"] == record["action_digest"] != verdict["action_digest"]
    pending = actionseal.check(None, envelope, context(refund))
    assert (pending["outcome"], pending["reasons"], pending["approved_digest"]) == ("reapprove", ["no_approval"], None)
    late = actionseal.check(record, envelope, context(refund, now=DECISION["expires_at"]))
    assert late["reasons"] == ["expired"]
    unknown = actionseal.check(record, envelope, context(None))
    assert "unknown_tool" in unknown["reasons"]


def test_check_context_errors(refund, envelope, record):
    for ctx, path in [
        ([], ""),
        (context(refund, now=str(NOW)), "/now"),
        (context(refund, revoked=0), "/revoked"),
        (context(refund, extra=1), "/extra"),
        ({k: v for k, v in context(refund).items() if k != "tenant"}, "/tenant"),
    ]:
        err = error_of(actionseal.check, record, envelope, ctx)
        assert (err.code, err.path) == ("invalid_context", path), str(err)
    # A contract document that is not one: its own error, under /contract.
    err = error_of(actionseal.check, record, envelope, context(dict(REFUND, effect="delete")))
    assert (err.code, err.path) == ("invalid_contract", "/contract/effect"), str(err)
    # A Contract anywhere but at "contract" is not JSON.
    err = error_of(actionseal.check, record, envelope, context(refund, now=refund))
    assert (err.code, err.path) == ("unsupported_type", "/now")
    assert "Contract" in str(err)
    err = error_of(actionseal.check, record, envelope, context(REFUND, policy_version=refund))
    assert (err.code, err.path) == ("unsupported_type", "/policy_version")
    err = error_of(actionseal.check, record, envelope, [refund])
    assert (err.code, err.path) == ("unsupported_type", "/0")


def test_check_leaves_its_inputs_alone(refund, envelope, record):
    ctx = context(refund)
    before = [copy.deepcopy(x) for x in (record, envelope)] + [dict(ctx)]
    actionseal.check(record, envelope, ctx)
    assert [record, envelope, ctx] == before
    assert ctx["contract"] is refund


def test_check_with_anything_as_approval(refund, envelope):
    for approval in ({}, [], "approved", 1, True):
        verdict = actionseal.check(approval, envelope, context(refund))
        assert verdict["reasons"][:1] == ["invalid_approval"], approval
        assert verdict["outcome"] == "reject"


# ------------------------------------------------------------------ loads


def test_loads_types():
    value = actionseal.loads('{"b": [1, 2.50, 1e2, -0, 0.1, 9007199254740991, 9007199254740992]}')
    assert value == {"b": [1, 2.5, 100, 0, 0.1, 9007199254740991, 9007199254740992.0]}
    assert [type(x) for x in value["b"]] == [int, float, int, int, float, int, float]
    assert actionseal.loads("null") is None and actionseal.loads("true") is True
    assert actionseal.loads(b'"\\u00e9\\ud83d\\ude00"') == "é😀"
    assert list(actionseal.loads('{"b": 1, "a": 2, "\ue000": 3, "😀": 4}')) == ["a", "b", "😀", "\ue000"]


def test_loads_refuses_what_json_loads_accepts():
    text = '{"amount_minor": 100, "amount_minor": 100000}'
    assert json.loads(text) == {"amount_minor": 100000}
    err = error_of(actionseal.loads, text)
    assert (err.code, err.path, err.offset) == ("duplicate_key", "/amount_minor", 22)
    for text, code in [('{"a": NaN}', "non_finite_number"), ('["\\ud800"]', "lone_surrogate"),
                       ("[9007199254740993]", "inexact_number"), ("[1e400]", "number_overflow"),
                       ("[1,]", "syntax_error"), ("\ufeff[]", "byte_order_mark"), ("[] []", "trailing_content")]:
        assert error_of(actionseal.loads, text).code == code, text
    assert actionseal.loads("[9007199254740993]", profile="rfc8785") == [9007199254740992.0]
    assert error_of(actionseal.loads, "[]", profile="lax").code == "invalid_option"
    assert error_of(actionseal.loads, bytearray(b"[]")).code == "unsupported_type"


def test_loads_round_trips_the_corpus():
    """What loads gives back canonicalizes to what the text does, under each profile."""
    lines = (CONFORMANCE / "generated" / "corpus.jsonl").read_text("utf-8").removesuffix("\n").split("\n")
    checked = 0
    for case in map(json.loads, lines):
        for profile in PROFILES:
            want = case[profile]
            if "error" in want:
                err = error_of(actionseal.loads, case["text"], profile=profile)
                assert (err.code, err.path) == (want["error"], want["path"]), case["id"]
            else:
                value = actionseal.loads(case["text"], profile=profile)
                assert actionseal.canonicalize(value, profile=profile) == want["canonical"], case["id"]
                checked += 1
    assert checked >= 1000


def test_loads_of_a_large_text_matches():
    text = json.dumps([{"id": i, "name": f"item {i} é", "price": i + 0.25} for i in range(2000)])
    assert len(text) > 4096
    assert actionseal.loads(text) == json.loads(text)


# ------------------------------------------------------------------ short_fingerprint


def test_short_fingerprint(envelope):
    assert actionseal.short_fingerprint(actionseal.fingerprint(envelope)) == "f31c 54dd 3e07 a4eb"
    for bad in ("", "sha256:xyz", "sha256:" + "F" * 64, "sha256:" + "0" * 63, "sha256:\ud800" + "0" * 63):
        err = error_of(actionseal.short_fingerprint, bad)
        assert (err.code, err.path) == ("invalid_digest", "")
    err = error_of(actionseal.short_fingerprint, b"sha256:" + b"0" * 64)
    assert (err.code, str(err)) == ("invalid_digest", "invalid_digest: a digest is a string, not bytes")


# ------------------------------------------------------------------ surface and threads


def test_every_function_has_the_function_tables_doc():
    # The stub's docstrings are the function table's (regen writes them); the first paragraph
    # of each compiled function's, class's, method's and property's __doc__ must be the same
    # text. PyO3 exposes no constructor docstring, so __new__ has none to hold.
    import ast, inspect, pathlib

    stub = pathlib.Path(actionseal.__file__).with_name("_actionseal.pyi")
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    norm = lambda text: " ".join(text.split())
    held, wrong = 0, []

    def hold(name, node, obj):
        nonlocal held
        want = ast.get_docstring(node)
        if not want:
            return
        got = norm((inspect.getdoc(obj) or "").split("\n\n")[0])
        held += 1
        if got != norm(want):
            wrong.append(f"{name}:\n  {got}\nnot the table's\n  {norm(want)}")

    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and hasattr(actionseal, node.name):
            hold(node.name, node, getattr(actionseal, node.name))
        elif isinstance(node, ast.ClassDef) and hasattr(actionseal, node.name):
            # The compiled class the stub describes (``actionseal.Ledger`` may be its traced subclass).
            cls = getattr(actionseal._actionseal, node.name)
            hold(node.name, node, cls)
            for member in node.body:
                if isinstance(member, ast.FunctionDef) and member.name not in ("__init__", "__new__"):
                    found = cls.__dict__[member.name]
                    hold(f"{node.name}.{member.name}", member, getattr(found, "__func__", found))
    assert not wrong, "\n".join(wrong)
    assert held > 60, held


def test_signatures_and_docs():
    for fn, signature in [
        (actionseal.loads, "(text, *, profile='strict')"),
        (actionseal.check, "(approval, action, context)"),
        (actionseal.charge, "(budget, cost_minor)"),
        (actionseal.requires_approval, "(contract, args)"),
        (actionseal.short_fingerprint, "(digest)"),
        (actionseal.action, "(contract, args, *, tenant, subject, job_id, request_id, policy_version)"),
    ]:
        assert fn.__text_signature__ == signature, fn.__name__
    assert actionseal.Contract.__module__ == actionseal.Schema.__module__ == "actionseal"
    assert actionseal.Contract.__doc__ and actionseal.Schema.__doc__ and actionseal.Schema.validate.__doc__
    for name in ("digest", "tool", "version", "effect", "cost_minor", "document",
                 "requires_approval", "validate_args", "validate_action", "review_action"):
        assert getattr(actionseal.Contract, name).__doc__, name


def test_a_contract_shared_by_threads(refund, envelope, record):
    """One Contract, used by several threads at once, gives every thread the same answers."""
    small, drifted = dict(ARGS, amount_minor=500), dict(envelope, args=dict(ARGS, amount_minor=9000))
    ctx = context(refund)

    def answers():
        return [
            actionseal.check(record, envelope, ctx),
            actionseal.check(record, drifted, ctx),
            actionseal.check(None, envelope, ctx),
            refund.requires_approval(small),
            actionseal.action(refund, small, **IDS),
            refund.digest,
        ]

    want = answers()
    assert want[0]["outcome"] == "permit" and want[1]["outcome"] == "reject"
    results, failures = [], []

    def work():
        try:
            for _ in range(200):
                results.append(answers())
        except BaseException as e:  # reported below, not lost in the thread
            failures.append(e)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(results) == 1200
    assert all(r == want for r in results)


SECOND_FAILS = """
import actionseal

class Meta(type):
    @property
    def __name__(cls):
        # Runs while the second value's bad item is reported: empties the first value, which
        # was converted first, freeing every string in it.
        approval.clear()
        budget.clear()
        return "Evil"

class Evil(metaclass=Meta):
    pass

def fresh(text):
    return "".join(list(text))  # a string only the dict holds

budget = {}
approval = {fresh("action"): {fresh("tenant"): fresh("tenant-a"), fresh("args"): {fresh("k"): fresh("v")}},
            fresh("approval_id"): fresh("apr-1")}
context = {"now": 1, "tenant": "t", "policy_version": "p", "contract": None,
           "approver_authorized": {"approver": "b", "authorized": True},
           "subject_authorized": {"subject": "s", "authorized": True},
           "revoked": {"approval_id": "apr-1", "revoked": False}}
try:
    actionseal.check(approval, {"args": {"x": Evil()}}, context)
except actionseal.ActionsealError as e:
    print(e.code, e.path, approval)
budget = {fresh("limit_minor"): 100, fresh("spent_minor"): 0}
try:
    actionseal.charge(budget, [Evil()])
except actionseal.ActionsealError as e:
    print(e.code, e.path, budget)
"""


def test_code_run_by_a_second_failure_cannot_reach_the_first_value():
    """check and charge convert two values; when the second fails, naming its type can run
    Python code that frees the strings of the first. Run with CPython's debug allocator,
    which overwrites freed memory, so that a read of the first value after that would show
    (or crash) rather than pass by luck."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONMALLOC="debug")
    run = subprocess.run([sys.executable, "-c", SECOND_FAILS], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == ["unsupported_type /args/x {}", "unsupported_type /0 {}"]
