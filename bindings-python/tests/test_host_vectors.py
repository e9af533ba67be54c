"""The host-value vectors (conformance/vectors/host/) in Python: what a Python value may be,
the error (code and path) for one that may not, the cycle policy and the policy for arguments
of the wrong type. The JavaScript runtimes run the same files (conformance/js/host.test.mjs);
a vector without a ``python`` expression is not for Python.

A vector: ``{description, js?, python?, call?, profile?, expect}``; ``python`` is the value as
a Python expression, ``call`` the function it is given to (default: both ``fingerprint`` and
``canonicalize``), ``profile`` the ``profile=`` keyword. ``expect`` is ``{error, path}``,
``{canonical}``, ``{same_as_json}`` (JavaScript's only) or ``{result}``."""

import collections
import datetime
import decimal
import enum
import fractions
import functools
import hashlib
import json
import uuid

import pytest

import actionseal
from conftest import CONFORMANCE, error_of

NAMESPACE = {
    "collections": collections,
    "datetime": datetime,
    "decimal": decimal,
    "enum": enum,
    "fractions": fractions,
    "functools": functools,
    "uuid": uuid,
}

VECTORS = sorted((CONFORMANCE / "vectors" / "host").glob("*.json"))
CASES = [(p.name, json.loads(p.read_text("utf-8"))) for p in VECTORS]
PYTHON = [(name, v) for name, v in CASES if "python" in v]


def test_there_are_vectors_for_python():
    assert len(PYTHON) >= 50, len(PYTHON)


def call(name, value, profile):
    kw = {} if profile is None else {"profile": eval(profile, NAMESPACE)}  # noqa: S307
    if name == "check":
        return actionseal.check(value, None, None, **kw)
    if name == "contract":
        return actionseal.Contract(value, **kw)
    if name == "approval":
        return actionseal.Approval(value, **kw)
    if name == "digest_equal":
        return actionseal.digest_equal(value, value)
    fn = {"parse_json": actionseal.loads}.get(name) or getattr(actionseal, name)
    return fn(value, **kw)


@pytest.mark.parametrize("name,v", PYTHON, ids=[n for n, _ in PYTHON])
def test_vector(name, v):
    value = eval(v["python"], NAMESPACE)  # noqa: S307  (vectors are this repository's data)
    profile = v.get("profile", {}).get("python")
    expect = v["expect"]
    calls = [v["call"]] if "call" in v else ["fingerprint", "canonicalize"]
    for fn in calls:
        if "error" in expect:
            err = error_of(call, fn, value, profile)
            assert (err.code, err.path, err.offset) == (expect["error"], expect["path"], None), str(err)
        elif "canonical" in expect:
            want = expect["canonical"]
            if fn == "fingerprint":
                want = "sha256:" + hashlib.sha256(want.encode()).hexdigest()
            assert call(fn, value, profile) == want
        elif "result" in expect:
            assert call(fn, value, profile) == expect["result"]
        elif "same_as_json" in expect:
            if fn == "fingerprint":
                text = json.dumps(value, ensure_ascii=False)
                assert call(fn, value, profile) == actionseal.fingerprint_json(text)
        else:
            pytest.fail(f"{name}: unknown expectation {expect}")
    # Only the strict profile refuses inexact numbers; every other refusal holds under both.
    if "error" in expect and "call" not in v and expect["error"] != "inexact_number":
        err = error_of(actionseal.fingerprint, value, profile="rfc8785")
        assert (err.code, err.path) == (expect["error"], expect["path"])


def test_names():
    for name, v in CASES:
        kind, _, tail = name.removesuffix(".json").partition("_")
        expect = v["expect"]
        if kind == "y":
            assert "error" not in expect and "thrown" not in expect, name
        elif "error" in expect:
            assert kind == "n" and tail.startswith(expect["error"] + "_"), name
        else:
            assert kind == "n" and "thrown" in expect and tail.startswith("thrown_"), name
