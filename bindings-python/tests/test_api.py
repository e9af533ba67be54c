"""The module's surface: profiles, text input, errors, digest comparison, threads."""

import pickle
import threading

import pytest

import actionseal
from conftest import error_of

FP_EMPTY_OBJECT = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"


def test_exports_and_signature():
    assert set(actionseal.__all__) == {
        "ActionsealError",
        "Approval",
        "AsyncLedger",
        "Contract",
        "Ledger",
        "ManualClock",
        "Schema",
        "SigningKey",
        "__version__",
        "action",
        "amend",
        "approve",
        "batch_build",
        "batch_decide",
        "batch_deselect",
        "batch_verify_decision",
        "batch_verify_item",
        "breaker_step",
        "canonicalize",
        "canonicalize_json",
        "charge",
        "check",
        "check_batch",
        "check_item",
        "check_set",
        "commit_action",
        "delegation_digest",
        "digest_equal",
        "ed25519_verify",
        "fingerprint",
        "fingerprint_json",
        "gate_defaults",
        "gate_step",
        "loads",
        "notices",
        "pae",
        "passkey_challenge",
        "public_key",
        "requires_approval",
        "reveal_action",
        "short_fingerprint",
        "sign_delegation",
        "sign_webhook",
        "verify_audit",
        "verify_delegation",
        "verify_evidence",
        "verify_envelope",
        "verify_passkey",
        "verify_proof",
        "verify_registration",
        "verify_webhook",
    }
    assert actionseal.ActionsealError.__module__ == "actionseal"
    assert issubclass(actionseal.ActionsealError, ValueError)
    assert actionseal.canonicalize.__text_signature__ == "(value, *, profile='strict')"
    assert actionseal.fingerprint_json.__text_signature__ == "(text, *, profile='strict')"
    for name in actionseal.__all__:
        if name != "__version__":
            assert getattr(actionseal, name).__doc__, name


def test_fingerprint_format():
    assert actionseal.fingerprint({}) == FP_EMPTY_OBJECT
    assert actionseal.fingerprint_json(" { } ") == FP_EMPTY_OBJECT
    assert actionseal.fingerprint_json(b"{}") == FP_EMPTY_OBJECT


def test_profile_is_keyword_only_and_checked():
    # Passing it by position is a call Python refuses; a value of the wrong type is a coded
    # error, as in every runtime (conformance/vectors/host/).
    with pytest.raises(TypeError):
        actionseal.canonicalize(1, "strict")
    for bad in (None, b"strict", 1):
        err = error_of(actionseal.canonicalize, 1, profile=bad)
        assert (err.code, err.path, err.offset) == ("invalid_option", "", None)
    for bad in ("", "STRICT", "rfc 8785", "lax", "strict\ud800"):
        for fn, arg in [
            (actionseal.canonicalize, 1),
            (actionseal.fingerprint, 1),
            (actionseal.canonicalize_json, "1"),
            (actionseal.fingerprint_json, "1"),
        ]:
            err = error_of(fn, arg, profile=bad)
            assert (err.code, err.path, err.offset) == ("invalid_option", "", None)


def test_profiles_differ_only_on_inexact_numbers():
    text = '{"n": 9007199254740993, "x": 0.10000000000000001}'
    err = error_of(actionseal.canonicalize_json, text)
    assert (err.code, err.path, err.offset) == ("inexact_number", "/n", 6)
    assert actionseal.canonicalize_json(text, profile="rfc8785") == '{"n":9007199254740992,"x":0.1}'


def test_text_types():
    assert actionseal.canonicalize_json('{"é": 1}') == '{"é":1}'
    assert actionseal.canonicalize_json('{"é": 1}'.encode()) == '{"é":1}'

    class Text(str):
        pass

    assert actionseal.canonicalize_json(Text("[1]")) == "[1]"
    for bad in (None, 1, bytearray(b"[]"), memoryview(b"[]"), ["[]"]):
        for fn in (actionseal.canonicalize_json, actionseal.fingerprint_json, actionseal.loads):
            err = error_of(fn, bad)
            assert (err.code, err.path) == ("unsupported_type", "")
            assert type(bad).__name__ in str(err)


def test_text_offsets_are_utf8_bytes():
    # "é" is two bytes: the second key starts at byte 9, not character 8.
    for text in ('{"é":1, "é":2}', '{"é":1, "é":2}'.encode()):
        err = error_of(actionseal.canonicalize_json, text)
        assert (err.code, err.path, err.offset) == ("duplicate_key", "/é", 9)


def test_str_with_lone_surrogate_is_reported_where_it_is():
    # A raw surrogate in a str (not a \u escape) is found at its byte offset, as core
    # finds it in the same bytes.
    err = error_of(actionseal.canonicalize_json, '["é", "\ud800"]')
    assert (err.code, err.path, err.offset) == ("lone_surrogate", "", 8)
    err = error_of(actionseal.fingerprint_json, '"\ud800"'.encode("utf-8", "surrogatepass"))
    assert (err.code, err.offset) == ("lone_surrogate", 1)
    # An escaped one is an error in the string value.
    err = error_of(actionseal.canonicalize_json, '{"a": "\\ud800"}')
    assert (err.code, err.path, err.offset) == ("lone_surrogate", "/a", 7)


def test_error_attributes_and_pickling():
    err = error_of(actionseal.canonicalize_json, '{"a": [1, 2, NaN]}')
    assert (err.code, err.path, err.offset) == ("non_finite_number", "/a/2", 13)
    assert str(err) == err.args[0]
    assert "/a/2" in str(err) and "13" in str(err)
    for e in (err, error_of(actionseal.canonicalize, {"x": b""})):
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is actionseal.ActionsealError
        assert (back.args, back.code, back.path, back.offset) == (e.args, e.code, e.path, e.offset)
    with pytest.raises(ValueError):
        actionseal.canonicalize(float("nan"))


def test_size_limit():
    big = "[" + ",".join(["1"] * (9 * 1024 * 1024)) + "]"
    assert len(big) > 16 * 1024 * 1024
    err = error_of(actionseal.fingerprint_json, big)
    assert err.code == "size_limit_exceeded"


DIGEST = actionseal.fingerprint({"a": 1})


@pytest.mark.parametrize(
    "a,b,equal",
    [
        (DIGEST, DIGEST, True),
        (DIGEST, str(DIGEST.encode().decode()), True),
        (DIGEST, actionseal.fingerprint({"a": 2}), False),
        (DIGEST, DIGEST.upper(), False),
        (DIGEST, "sha256:" + DIGEST[7:].upper(), False),
        ("sha256:" + DIGEST[7:].upper(), "sha256:" + DIGEST[7:].upper(), False),
        (DIGEST, DIGEST[:-1], False),
        (DIGEST[:-1], DIGEST[:-1], False),
        (DIGEST + "0", DIGEST + "0", False),
        (DIGEST[7:], DIGEST[7:], False),
        ("sha512:" + DIGEST[7:], "sha512:" + DIGEST[7:], False),
        ("", "", False),
        ("sha256:", "sha256:", False),
        ("sha256:" + "g" * 64, "sha256:" + "g" * 64, False),
        ("sha256:" + "é" * 64, "sha256:" + "é" * 64, False),
        ("sha256:\ud800" + "0" * 63, "sha256:\ud800" + "0" * 63, False),
        (" " + DIGEST, " " + DIGEST, False),
    ],
)
def test_digest_equal(a, b, equal):
    assert actionseal.digest_equal(a, b) is equal
    assert actionseal.digest_equal(b, a) is equal


def test_digest_equal_is_false_for_what_is_not_a_str():
    for other in (DIGEST.encode(), None, 1, [DIGEST]):
        assert actionseal.digest_equal(other, DIGEST) is False
        assert actionseal.digest_equal(DIGEST, other) is False


def test_threads_agree():
    """Large texts run with the GIL released; every thread must see the same answers."""
    small = '{"tool": "refund", "args": {"amount_minor": 2500, "currency": "USD"}}'
    large = "[" + ",".join(
        '{"id": %d, "name": "item é😀 %d", "price": %d.%02d, "ok": true}' % (i, i, i, i % 100)
        for i in range(500)
    ) + "]"
    bad = large[:-1] + ', {"id": 1, "id": 2}]'
    texts = [small, large, large.encode(), small.encode(), bad]

    def answer(t):
        try:
            return actionseal.fingerprint_json(t)
        except actionseal.ActionsealError as e:
            return (e.code, e.path, e.offset)

    want = [answer(t) for t in texts]
    assert want[4][0] == "duplicate_key"
    results, failures = [], []

    def work():
        try:
            for _ in range(50):
                results.append([answer(t) for t in texts])
        except BaseException as e:  # reported below, not lost in the thread
            failures.append(e)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(results) == 300
    assert all(r == want for r in results)


def test_package_ships_types():
    from pathlib import Path

    package = Path(actionseal.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "_actionseal.pyi").is_file()
