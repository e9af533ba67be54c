"""The "approval needed" webhook (webhook.py, receiver.py) over real HTTP on loopback: the
sender retries a 503 with backoff and then delivers, never retries a 400, names each retry's
reason; the receiver verifies the signature over the exact bytes with its own clock and refuses
a tampered body, another secret's signature and an old delivery. The feed sends one webhook per
task that starts waiting, from the ledger named by DESK_TEST_DB (SQLite or PostgreSQL).

    DESK_TEST_DB=sqlite:/tmp/x.db python -m pytest -q examples/refund-desk/desk/test_webhook.py
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import threading
import time
import urllib.request
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

import actionseal
import receiver
from refunds import CONTRACTS, TENANT, TRUSTED
from store import Store
from webhook import Feed, Outcome, Retry, Sender, post

SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()
TASK = {"id": "task_" + "a" * 32, "state": "awaiting_approval", "action": {"tool": "refund_create", "args": {"order_id": "order-17"}},
        "action_digest": "sha256:" + "7734f7fc6133ddc2" + "0" * 48}


@pytest.fixture
def hooks():
    """The example's receiver on a free port, fresh state; its /hooks URL."""
    receiver.STATE.update(received=[], refused=[], answers=[], fail=[], seen=set())
    srv = ThreadingHTTPServer(("127.0.0.1", 0), receiver.make_handler(SECRET))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


def sender(url: str, slept: list, **kw) -> Sender:
    return Sender(f"{url}/hooks", SECRET, "http://localhost:8999", log=lambda *a, **k: None,
                  sleep=slept.append, **kw)


def control(url: str, fail: list) -> None:
    urllib.request.urlopen(urllib.request.Request(f"{url}/control", data=json.dumps({"fail": fail}).encode(),
                                                  method="POST"))


def test_a_503_is_retried_with_backoff_then_delivered(hooks):
    control(hooks, [503, 503])
    slept: list = []
    s = sender(hooks, slept)
    outcome, attempts = s.deliver("msg_1", s.body(TASK, 7))
    assert outcome is Outcome.DELIVERED
    assert [(a.status, a.retry) for a in attempts] == [(503, Retry.SERVER_ERROR), (503, Retry.SERVER_ERROR), (204, None)]
    assert slept == [0.5, 1], "exponential backoff between attempts"
    assert receiver.STATE["answers"] == [503, 503, 204]
    got = receiver.STATE["received"]
    assert got == [{"type": "approval.needed", "task_id": TASK["id"], "state": "awaiting_approval", "tool": "refund_create",
                    "fingerprint": TASK["action_digest"], "short": "7734 f7fc 6133 ddc2",
                    "review": f"http://localhost:8999/?task={TASK['id']}", "event_id": 7}]
    assert "order-17" not in json.dumps(got), "no argument value"


def test_a_400_is_not_retried(hooks):
    control(hooks, [400])
    slept: list = []
    outcome, attempts = sender(hooks, slept).deliver("msg_1", b"{}")
    assert (outcome, [(a.status, a.retry) for a in attempts], slept) == (Outcome.CLIENT_ERROR, [(400, None)], [])
    assert receiver.STATE["received"] == []


@pytest.mark.parametrize("status,reason", [(408, Retry.REQUEST_TIMEOUT), (429, Retry.RATE_LIMITED), (500, Retry.SERVER_ERROR)])
def test_what_may_pass_is_retried(hooks, status, reason):
    control(hooks, [status])
    outcome, attempts = sender(hooks, []).deliver("msg_1", b"{}")
    assert (outcome, [a.retry for a in attempts]) == (Outcome.DELIVERED, [reason, None])


def test_a_refused_connection_is_retried_until_the_schedule_ends():
    slept: list = []
    # A port nothing listens on.
    s = Sender("http://127.0.0.1:9/hooks", SECRET, "http://localhost:8999", log=lambda *a, **k: None,
               sleep=slept.append, backoff=(0.5, 1))
    outcome, attempts = s.deliver("msg_1", b"{}")
    assert (outcome, [a.retry for a in attempts], slept) == (Outcome.EXHAUSTED, [Retry.CONNECTION_REFUSED] * 3, [0.5, 1])


def deliver_raw(url: str, headers: dict, body: bytes) -> int:
    return post(f"{url}/hooks", headers, body)


def test_the_receiver_refuses_a_bad_signature_or_an_old_delivery(hooks):
    body = b'{"task_id":"task_1"}'
    now = int(time.time() * 1000)
    good = dict(actionseal.sign_webhook(SECRET, "msg_1", now, body))
    assert deliver_raw(hooks, good, body) == 204
    assert deliver_raw(hooks, good, body) == 204, "a repeat is acknowledged"
    assert len(receiver.STATE["received"]) == 1, "and processed once"
    # Tampered body, another secret, an old delivery (ten minutes ago by the receiver's clock).
    assert deliver_raw(hooks, good, body.replace(b"1", b"2")) == 401
    other = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    assert deliver_raw(hooks, dict(actionseal.sign_webhook(other, "msg_2", now, body)), body) == 401
    old = dict(actionseal.sign_webhook(SECRET, "msg_3", now - 600_000, body))
    assert deliver_raw(hooks, old, body) == 401
    assert deliver_raw(hooks, {k: v for k, v in good.items() if k != "webhook-signature"}, body) == 401
    assert [(r["error"], r["path"]) for r in receiver.STATE["refused"]] == [
        ("webhook_unverified", "/webhook-signature"), ("webhook_unverified", "/webhook-signature"),
        ("webhook_unverified", "/webhook-timestamp"), ("webhook_unverified", "/webhook-signature")]
    assert len(receiver.STATE["received"]) == 1


def test_the_feed_sends_one_webhook_per_wait(hooks, tmp_path: Path):
    db = os.environ.get("DESK_TEST_DB") or f"sqlite:{tmp_path / 'ledger.db'}"
    ledger = actionseal.Ledger(db)
    store = Store(tmp_path / "desk.db")
    feed = Feed(ledger, sender(hooks, []), store, TENANT)
    feed.start()
    job = f"job-hook-{secrets.token_hex(4)}"
    ids = {"tenant": TENANT, "subject": TRUSTED.subject, "policy_version": TRUSTED.policy_version}
    args = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}
    contract = CONTRACTS["refund_create"]
    task = ledger.propose(actionseal.action(contract, args, job_id=job, request_id="r1", **ids), contract, proposer="agent")
    deadline = time.monotonic() + 10
    while not [b for b in receiver.STATE["received"] if b["task_id"] == task["id"]]:
        assert time.monotonic() < deadline, "no webhook within 10 s"
        time.sleep(0.05)
    # Amending it leaves it waiting: no second webhook.
    ledger.amend(task["id"], {**task["action"], "args": {**args, "amount_minor": 2000}}, contract, amends=task["action_digest"],
                 reviewer="user:bob", reason="partial refund")
    time.sleep(0.5)
    assert [b["task_id"] for b in receiver.STATE["received"]].count(task["id"]) == 1
    assert store.rows("SELECT outcome, attempts FROM webhooks WHERE task_id=?", task["id"]) == [("delivered", 1)]
    feed.stopping.set()
