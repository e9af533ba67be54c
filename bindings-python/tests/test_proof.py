"""Every signed-decision and passkey vector through the Python API, and the proof functions'
surface: ``SigningKey``, ``public_key``, ``verify_envelope``, ``verify_passkey``,
``verify_proof``, ``passkey_challenge``, ``verify_registration``, ``ed25519_verify``, ``pae``
and ``check`` with proofs.

Each result is computed as conformance/src/proof.rs computes it in Rust, with JSON inputs read
from the vector's raw texts by ``actionseal.loads``, and compared exactly with ``expect``.
"""

import base64
import json
import pickle

import pytest

import actionseal
from conftest import CODES, CONFORMANCE, error_of
from test_decisions import permit_result

VECTORS = CONFORMANCE / "vectors"


def vectors(kind):
    paths = sorted((VECTORS / kind).glob("*.json"))
    return pytest.mark.parametrize("path", paths, ids=[p.stem for p in paths])


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64u(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def refused(err):
    assert err.code in CODES, f"{err.code!r} is not in codes.json"
    return {"error": err.code, "path": err.path}


def verified(v):
    return {"approval": actionseal.canonicalize(v["approval"]), "signer": v["signer"]}


def run_op(doc):
    """The vector's operation through this package, as conformance/src/proof.rs runs it in
    Rust; raises what the package raises."""
    op = doc["op"]
    if op == "check":
        return actionseal.check(actionseal.loads(doc["approval"]), actionseal.loads(doc["action"]), actionseal.loads(doc["context"]))
    if op == "ed25519":
        hexes = [bytes.fromhex(doc[k]) for k in ("public_key_hex", "message_hex", "signature_hex")]
        assert actionseal.ed25519_verify(*map(b64u, hexes)) is None
        return {"valid": True}
    if op == "pae":
        out = actionseal.pae(doc["payload_type"], b64u(bytes.fromhex(doc["payload_hex"])))
        return {"pae_hex": unb64u(out).hex()}
    if op == "key":
        jwk = actionseal.public_key(actionseal.loads(doc["key"]))
        return {"keyid": jwk["kid"], "jwk": actionseal.canonicalize(jwk)}
    if op == "sign":
        key = actionseal.SigningKey(actionseal.loads(doc["key"]))
        return {"envelope": actionseal.canonicalize(key.sign(actionseal.loads(doc["approval"])))}
    if op == "verify":
        return verified(actionseal.verify_proof(actionseal.loads(doc["approval"]), actionseal.loads(doc["keys"]), doc["at"]))
    if op == "register":
        registration = actionseal.loads(doc["registration"])
        return actionseal.verify_registration(registration, doc["challenge"], actionseal.loads(doc["webauthn"]))
    if op == "challenge":
        return {"challenge": actionseal.passkey_challenge(actionseal.loads(doc["approval"]))}
    raise AssertionError(f"unknown op {op!r}")


def proof_result(doc):
    """The vector's result: what ``run_op`` returns, or the error it raises."""
    if doc["op"] == "check":
        return permit_result(actionseal.loads(doc["approval"]), actionseal.loads(doc["action"]), actionseal.loads(doc["context"]))
    try:
        return run_op(doc)
    except actionseal.ActionsealError as e:
        return refused(e)


def check_vector(path):
    doc = json.loads(path.read_text("utf-8"))
    assert proof_result(doc) == doc["expect"]
    return doc


@vectors("signed")
def test_signed_vector(path):
    doc = check_vector(path)
    if doc["op"] == "verify":
        # The envelope's own function gives the same result; a passkey's refuses it.
        approval, keys = actionseal.loads(doc["approval"]), actionseal.loads(doc["keys"])
        if "payloadType" in approval:
            try:
                got = verified(actionseal.verify_envelope(approval, keys, doc["at"]))
            except actionseal.ActionsealError as e:
                got = refused(e)
            assert got == doc["expect"]
    if doc["op"] == "ed25519" and "seed_hex" in doc and "error" not in doc["expect"]:
        # The seed's public key is the vector's (its signature is checked in Rust, which can
        # sign raw messages).
        key = actionseal.SigningKey(b64u(bytes.fromhex(doc["seed_hex"])))
        assert key.public_jwk["x"] == b64u(bytes.fromhex(doc["public_key_hex"]))


@vectors("passkey")
def test_passkey_vector(path):
    doc = check_vector(path)
    if doc["op"] == "verify":
        approval, keys = actionseal.loads(doc["approval"]), actionseal.loads(doc["keys"])
        try:
            got = verified(actionseal.verify_passkey(approval, keys, doc["at"]))
        except actionseal.ActionsealError as e:
            got = refused(e)
        assert got == doc["expect"]
    if doc["op"] == "check":
        # The same verdict with the contract preloaded.
        context = actionseal.loads(doc["context"])
        preloaded = dict(context, contract=actionseal.Contract(context["contract"]))
        assert permit_result(actionseal.loads(doc["approval"]), actionseal.loads(doc["action"]), preloaded) == doc["expect"]


def test_every_proof_op_has_vectors():
    ops = {}
    for kind in ("signed", "passkey"):
        for p in (VECTORS / kind).glob("*.json"):
            op = json.loads(p.read_text("utf-8"))["op"]
            ops[op] = ops.get(op, 0) + 1
    assert set(ops) == {"ed25519", "pae", "key", "sign", "verify", "register", "challenge", "check"}


# ------------------------------------------------------------------ the surface

REFUND = VECTORS.parent.parent / "examples" / "refund"


def example(name):
    return json.loads((REFUND / name).read_text("utf-8"))


def test_a_new_key_signs_what_its_key_set_verifies():
    key = actionseal.SigningKey.generate()
    other = actionseal.SigningKey.generate()
    assert key.keyid != other.keyid, "os.urandom gives every key its own seed"
    jwk = key.public_jwk
    assert sorted(jwk) == ["crv", "kid", "kty", "x"] and jwk["kid"] == key.keyid
    assert actionseal.public_key(jwk) == jwk
    private = key.to_jwk()
    assert sorted(private) == ["crv", "d", "kid", "kty", "x"]
    assert actionseal.SigningKey(private).keyid == key.keyid
    assert actionseal.SigningKey(private["d"]).keyid == key.keyid
    assert repr(key) == f"SigningKey(keyid={key.keyid!r})"
    assert key.keyid not in repr(other) and private["d"] not in repr(key)
    with pytest.raises(TypeError):
        pickle.dumps(key)

    record = example("approval.json")
    envelope = key.sign(record)
    assert envelope["signatures"][0]["keyid"] == key.keyid
    assert key.sign(record) == envelope, "Ed25519 is deterministic"
    keys = {"service_keys": {key.keyid: {"key": jwk, "approvers": [record["approver"]]}}}
    now = example("context.json")["now"]
    assert actionseal.verify_envelope(envelope, keys, now) == {
        "approval": record,
        "signer": {"keyid": key.keyid, "kind": "service"},
    }
    assert actionseal.verify_proof(envelope, keys, now) == actionseal.verify_envelope(envelope, keys, now)

    # check: permitted with proof required; the same envelope under another key is not.
    context = dict(example("context.json"), proof={"required": True, "keys": keys})
    assert actionseal.check(envelope, example("action.json"), context)["outcome"] == "permit"
    assert actionseal.check(record, example("action.json"), context)["reasons"] == ["proof_missing"]
    forged = other.sign(record)
    assert actionseal.check(forged, example("action.json"), context)["reasons"] == ["key_untrusted"]
    err = error_of(actionseal.verify_envelope, forged, keys, now)
    assert (err.code, err.path) == ("unknown_key", "/signatures/0/keyid")


def test_arguments_of_the_wrong_type_are_coded_errors():
    record = example("approval.json")
    for fn, args, code in [
        (actionseal.public_key, (7,), "invalid_key"),
        (actionseal.public_key, ({1, 2},), "unsupported_type"),
        (actionseal.SigningKey, (7,), "invalid_key"),
        (actionseal.SigningKey, (b"seed",), "unsupported_type"),
        (actionseal.verify_proof, (record, 7, 0), "invalid_key_set"),
        (actionseal.verify_proof, (record, {"service_keys": {1, 2}}, 0), "unsupported_type"),
        (actionseal.verify_envelope, (record, {}, 0), "invalid_envelope"),
        (actionseal.verify_passkey, (record, {}, 0), "missing_proof"),
        # The time a key is judged at: a non-negative integer of ms.
        (actionseal.verify_proof, (record, {}, -1), "invalid_request"),
        (actionseal.verify_proof, (record, {}, 1.5), "invalid_request"),
        (actionseal.verify_proof, (record, {}, True), "invalid_request"),
        (actionseal.verify_registration, ({}, 7, {}), "invalid_base64"),
        (actionseal.verify_registration, ({}, "AAAA", {}), "invalid_key_set"),
        (actionseal.ed25519_verify, ("x" * 43, b"", "AA"), "unsupported_type"),
        (actionseal.pae, (1, ""), "invalid_envelope"),
        (actionseal.pae, ("t", b"x"), "unsupported_type"),
    ]:
        assert error_of(fn, *args).code == code, (fn, args)
    with pytest.raises(TypeError):
        actionseal.passkey_challenge()
    assert actionseal.passkey_challenge(record) == b64u(
        bytes.fromhex(actionseal.fingerprint(record)[len("sha256:"):])
    )
