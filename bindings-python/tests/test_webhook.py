"""Webhook signatures (Standard Webhooks) through the Python binding: every vector of
conformance/vectors/webhook (derived with Python's hmac by conformance/tools/webhook-vectors.py),
a signature recomputed here with the standard library, and what a receiver refuses: another
body, another secret, an old delivery by its own clock."""

import base64
import hashlib
import hmac
import json

import pytest

import actionseal
from conftest import CONFORMANCE, error_of

VECTORS = sorted((CONFORMANCE / "vectors" / "webhook").glob("*.json"))
SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()


def result(v):
    try:
        if v["op"] == "sign":
            return dict(actionseal.sign_webhook(v["secret"], v["id"], v["at_ms"], v["body"]))
        return {"id": actionseal.verify_webhook(v["secret"], v["headers"], v["body"].encode(), v["now_ms"],
                                                v.get("tolerance_ms"))}
    except actionseal.ActionsealError as e:
        return {"error": e.code, "path": e.path}


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector(path):
    v = json.loads(path.read_text("utf-8"))
    assert result(v) == v["expect"]


def test_the_vectors_are_there():
    assert len(VECTORS) >= 15


def test_a_signature_is_hmac_sha256_over_id_timestamp_body():
    body = b'{"task_id":"task_1"}'
    h = actionseal.sign_webhook(SECRET, "msg_1", 1_700_000_000_999, body)
    assert h["webhook-timestamp"] == "1700000000"
    mac = hmac.new(bytes(range(32)), b"msg_1.1700000000." + body, hashlib.sha256).digest()
    assert h["webhook-signature"] == "v1," + base64.b64encode(mac).decode()
    # str and bytes are the same body.
    assert actionseal.sign_webhook(SECRET, "msg_1", 1_700_000_000_999, body.decode()) == h


def test_a_receiver_refuses_a_tampered_or_old_delivery():
    body = b'{"task_id":"task_1"}'
    h = dict(actionseal.sign_webhook(SECRET, "msg_1", 1_700_000_000_000, body))
    now = 1_700_000_010_000
    assert actionseal.verify_webhook(SECRET, h, body, now) == "msg_1"
    e = error_of(actionseal.verify_webhook, SECRET, h, body.replace(b"1", b"2"), now)
    assert (e.code, e.path) == ("webhook_unverified", "/webhook-signature")
    other = "whsec_" + base64.b64encode(bytes(range(1, 33))).decode()
    assert error_of(actionseal.verify_webhook, other, h, body, now).code == "webhook_unverified"
    # Ten minutes later by the receiver's clock: older than the default five.
    e = error_of(actionseal.verify_webhook, SECRET, h, body, now + 600_000)
    assert (e.code, e.path) == ("webhook_unverified", "/webhook-timestamp")
    assert actionseal.verify_webhook(SECRET, h, body, now + 600_000, tolerance_ms=900_000) == "msg_1"
    assert error_of(actionseal.verify_webhook, "not-a-secret", h, body, now).code == "invalid_key"
    assert error_of(actionseal.sign_webhook, SECRET, "msg.1", now, body).code == "invalid_request"
