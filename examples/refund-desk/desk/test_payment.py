"""The fake payment service's failure injection (payment.py), over real HTTP on loopback: a
declined key has no effect however often it is asked, reconcile finds nothing under it, and the
other keys still pay once each."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http.server import ThreadingHTTPServer

import pytest

import payment


@pytest.fixture()
def service():
    for table in (payment.PAYMENTS, payment.REQUESTS, payment.SLOW, payment.RECEIVED, payment.FAIL):
        table.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), payment.Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def call(url: str, body: object = None) -> tuple:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def pay(base: str, key: str) -> tuple:
    return call(f"{base}/payments", {"idempotency_key": key, "order_id": "order-1", "amount_minor": 2500,
                                     "currency": "USD"})


def test_a_declined_key_has_no_effect(service):
    assert call(f"{service}/control", {"fail": ["k-2", "k-3"]})[1]["fail"] == ["k-2", "k-3"]
    for key in ("k-1", "k-2", "k-3", "k-2", "k-1"):
        status, body = pay(service, key)
        if key == "k-1":
            assert status == 200 and body["status"] == "succeeded"
        else:
            assert (status, body) == (402, {"status": "failed", "error": "declined"})
    effects = call(f"{service}/effects")[1]["effects"]
    assert [(e["idempotency_key"], e["requests"]) for e in effects] == [("k-1", 2)]
    assert call(f"{service}/refusals")[1]["refusals"] == [
        {"idempotency_key": "k-2", "requests": 2}, {"idempotency_key": "k-3", "requests": 1}]
    # What reconcile asks: nothing happened under a declined key.
    assert call(f"{service}/payments/k-2") == (404, {"status": "not_found"})


def test_a_paid_key_is_never_declined_afterwards(service):
    assert pay(service, "k-1")[0] == 200
    call(f"{service}/control", {"fail": ["k-1"]})
    status, body = pay(service, "k-1")
    assert status == 200 and body["duplicate"] is True
    assert call(f"{service}/payments/k-1")[1]["status"] == "succeeded"
