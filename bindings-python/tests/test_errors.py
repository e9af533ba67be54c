"""Error parity: ``ActionsealError`` is a ``ValueError`` carrying ``code``, ``path`` and
``offset`` typed as the stub (and both JavaScript packages' declarations) say, and every code
of conformance/codes.json is raised by some call of this package. The calls come from the
vectors: the first one that raises each code."""

import json

import pytest

import actionseal
from conftest import CODES, CONFORMANCE
from evidence_support import broken, exported
from ledger_support import error_sources as ledger_sources
from ledger_support import pg_base
from test_host_vectors import NAMESPACE, call
from test_batch import run_op as run_batch_op
from test_proof import run_op
from test_quorum import run_op as run_quorum_op
from test_redaction import run_op as run_redaction_op


def webhook_result(v):
    if v["op"] == "sign":
        return actionseal.sign_webhook(v["secret"], v["id"], v["at_ms"], v["body"])
    return actionseal.verify_webhook(v["secret"], v["headers"], v["body"], v["now_ms"], v.get("tolerance_ms"))

# Codes this package cannot raise, with the reason.
UNREACHABLE = {
    "sparse_array": "a Python list or tuple has no holes",
    "checkpoint_conflict": "only a witness's rule raises it (C2SP tlog-witness 409), which has no binding",
    "timestamp_unavailable": "only a ledger with a time-stamping authority meets it, which the bindings do not configure yet",
    "ledger_not_found": "only a ledger opened to refuse a missing file meets it (the CLI); the bindings create one",
    "native_binding_unavailable": "only the npm package raises it, where its native addon does not load",
}
if pg_base() is None:
    UNREACHABLE["ledger_unprotected"] = (
        "only a PostgreSQL role that does not own the ledger's tables meets it, and PostgreSQL is skipped")


def vectors(kind):
    paths = sorted((CONFORMANCE / "vectors" / kind).glob("*.json"))
    assert paths, kind
    return [(p.name, json.loads(p.read_text("utf-8"))) for p in paths]


def sources():
    """(code, label, thunk) for every vector that raises a code, in a fixed order."""
    out = []
    for name, v in vectors("canon"):
        if "error" in v["strict"]:
            if "input_repeat" in v:
                text = "".join(t * n for t, n in v["input_repeat"]).encode("utf-8")
            elif "input" in v:
                text = v["input"].encode("utf-8", "surrogatepass")
            else:
                text = bytes.fromhex(v["input_hex"])
            out.append((v["strict"]["error"], f"canon/{name}", lambda t=text: actionseal.canonicalize_json(t)))
    for name, v in vectors("schema"):
        code = v["expect"].get("error") or v["expect"].get("schema_error")
        if code:
            def run(v=v):
                schema = actionseal.Schema(actionseal.loads(v["schema"]))
                schema.validate(actionseal.loads(v["value"]))
            out.append((code, f"schema/{name}", run))
    for name, v in vectors("contract"):
        if v["expect"].get("error") == "invalid_contract" and "args" not in v and "action" not in v:
            out.append(("invalid_contract", f"contract/{name}", lambda v=v: actionseal.Contract(actionseal.loads(v["contract"]))))
    for name, v in vectors("action"):
        if "error" in v["expect"]:
            out.append((v["expect"]["error"], f"action/{name}",
                        lambda v=v: actionseal.action(actionseal.loads(v["contract"]), actionseal.loads(v["args"]), **v["ids"])))
    for name, v in vectors("approval"):
        if "error" in v["expect"]:
            out.append((v["expect"]["error"], f"approval/{name}",
                        lambda v=v: actionseal.approve(actionseal.loads(v["action"]), **v["decision"])))
    for name, v in vectors("amend"):
        if "error" in v["expect"]:
            out.append((v["expect"]["error"], f"amend/{name}",
                        lambda v=v: actionseal.amend(actionseal.loads(v["current"]), actionseal.loads(v["replacement"]),
                                                     actionseal.loads(v["contract"]))))
    for name, v in vectors("budget"):
        if "error" in v["expect"] and v["expect"]["at"] == 0:
            out.append((v["expect"]["error"], f"budget/{name}",
                        lambda v=v: actionseal.charge(actionseal.loads(v["budget"]), actionseal.loads(v["costs"][0]))))
    for name, v in vectors("permit"):
        if "error" in v["expect"]:
            def run(v=v):
                approval = None if v["approval"] is None else actionseal.loads(v["approval"])
                actionseal.check(approval, actionseal.loads(v["action"]), actionseal.loads(v["context"]))
            out.append((v["expect"]["error"], f"permit/{name}", run))
    for kind in ("signed", "passkey"):
        for name, v in vectors(kind):
            if "error" in v["expect"]:
                out.append((v["expect"]["error"], f"{kind}/{name}", lambda v=v: run_op(v)))
    for kind in ("quorum", "delegation"):
        for name, v in vectors(kind):
            if "error" in v["expect"]:
                out.append((v["expect"]["error"], f"{kind}/{name}", lambda v=v: run_quorum_op(v)))
    for name, v in vectors("batch"):
        results = v["expect"] if v["op"] == "breaker" else [v["expect"]]
        code = next((r["error"] for r in results if "error" in r), None)
        if code:
            out.append((code, f"batch/{name}", lambda v=v: run_batch_op(v, raising=True)))
    for name, v in vectors("redaction"):
        if "error" in v["expect"]:
            out.append((v["expect"]["error"], f"redaction/{name}", lambda v=v: run_redaction_op(v, raising=True)))
    for name, v in vectors("host"):
        if "error" in v["expect"] and "python" in v:
            profile = v.get("profile", {}).get("python")
            fn = v.get("call", "fingerprint")
            out.append((v["expect"]["error"], f"host/{name}",
                        lambda v=v, fn=fn, profile=profile: call(fn, eval(v["python"], NAMESPACE), profile)))  # noqa: S307
    for name, v in vectors("evidence"):
        error = v["expected"].get("error")
        if error:
            out.append((error["code"], f"evidence/{name}",
                        lambda v=v: actionseal.verify_evidence(v["bundle"], v["trust"])))
    for name, v in vectors("webhook"):
        if "error" in v["expect"]:
            out.append((v["expect"]["error"], f"webhook/{name}", lambda v=v: webhook_result(v)))
    # Input over the 16 MiB limit, refused before it is read.
    out.append(("size_limit_exceeded", "text over 16 MiB", lambda: actionseal.canonicalize_json(b" " * (16 * 1024 * 1024 + 1))))
    out.append(("invalid_approval", "Approval({})", lambda: actionseal.Approval({})))
    # The ledger's codes: its scenarios, URLs and databases edited behind its back.
    out.extend(ledger_sources())
    # The evidence codes: a bundle exported from a real ledger, broken one way each.
    for code, label, bundle, trust in broken(*exported()):
        out.append((code, f"evidence: {label}", lambda b=bundle, t=trust: actionseal.verify_evidence(b, t)))
    return out


def test_every_code_is_raised_with_typed_fields():
    all_sources = sources()
    missing, failures = [], []
    for code in sorted(CODES):
        if code in UNREACHABLE:
            assert not any(c == code for c, _, _ in all_sources), f"{code} is listed as unreachable"
            continue
        found = next(((label, thunk) for c, label, thunk in all_sources if c == code), None)
        if found is None:
            missing.append(code)
            continue
        label, thunk = found
        with pytest.raises(actionseal.ActionsealError) as info:
            thunk()
        err = info.value
        if err.code != code:
            failures.append(f"{label}: {err}")
        assert type(err) is actionseal.ActionsealError
        assert isinstance(err, ValueError)
        assert isinstance(err.path, str)
        assert err.offset is None or (type(err.offset) is int and err.offset >= 0)
        assert str(err).startswith(f"{err.code}: ")
    assert not failures, failures
    # Every missing code at once, so that one run says what is left.
    assert not missing, f"no vector raises {missing}: add one (or list it in UNREACHABLE with the reason)"
    assert set(UNREACHABLE) <= CODES


def test_the_class():
    assert issubclass(actionseal.ActionsealError, ValueError)
    assert actionseal.ActionsealError.__module__ == "actionseal"
    with pytest.raises(actionseal.ActionsealError) as info:
        actionseal.canonicalize_json('{"a": 1, "a": 2}')
    assert (info.value.code, info.value.path, info.value.offset) == ("duplicate_key", "/a", 9)
