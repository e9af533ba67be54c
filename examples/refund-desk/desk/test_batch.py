"""The desk's bulk refund on the ledger named by DESK_BATCH_DB (SQLite or PostgreSQL; `run
--headless` runs this on both; not the server tests' ledger, where proof is required, which
batch decisions cannot carry yet), without the browser and the Node executor, which do not handle
batches yet: twenty refunds proposed as one batch, two left out by the reviewer, the rest
decided at once and paid one by one through the payment service (payment.py, over HTTP) by an
executor loop written here as the desk's executor works (claim, pay with the item's
idempotency key, complete; a 402 is `failed`). Three declined payments trip the breaker once;
the refunds not yet paid go back for approval, and no item is claimed after the trip; the
remainder, decided again, half-opens the breaker, and the rest are paid, which closes it.
Each paid refund had exactly one effect (counted by idempotency key), the declined ones none,
and the audit verifies.

    DESK_BATCH_DB=sqlite:/tmp/x.db python -m pytest -q examples/refund-desk/desk/test_batch.py
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

import payment
from actionseal import ActionsealError, Ledger, action
from refunds import CONTRACTS, TENANT, TRUSTED

# The desk's refund contract, allowed to be decided as a batch: three failures in ten minutes
# trip it, two successes after a re-approval close it.
BATCH = {
    **CONTRACTS["refund_create"].document,
    "batch": {
        "max_items": 50,
        "caps": {"count": 50, "sum": {"pointer": "/args/amount_minor", "max": 100_000}},
        "breaker": {"max_failures": 3, "window_ms": 600_000, "close_after": 2},
    },
}
HOUR = 3_600_000
DECLINED = (3, 6, 9)  # the positions whose payments the service declines
LEFT_OUT = [1, 12]  # the positions the reviewer leaves out


@pytest.fixture()
def service():
    for table in (payment.PAYMENTS, payment.REQUESTS, payment.SLOW, payment.RECEIVED, payment.FAIL):
        table.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), payment.Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def http(url: str, body: object = None) -> tuple:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def decision(batch: dict, decision_id: str, now: int) -> dict:
    return {"approval_id": batch["approval_id"], "decision_id": decision_id, "batch_id": batch["id"],
            "batch_digest": batch["digest"], "decision": "approved", "approver": "user:bob",
            "decided_at": now, "expires_at": now + HOUR}


def facts() -> dict:
    return {"tenant": TENANT, "policy_version": TRUSTED.policy_version, "contract": BATCH,
            "approver_authorized": {"approver": "user:bob", "authorized": True},
            "subject_authorized": {"subject": TRUSTED.subject, "authorized": True}}


def pay_item(ledger: Ledger, base: str, task_id: str, item: dict) -> str:
    """The desk executor's steps for one item: claim, pay with its idempotency key, complete."""
    out = ledger.claim_item(task_id, item, facts(), executor="executor-1", lease_ms=60_000)
    assert out["result"] == "claimed", out["result"]
    c = out["claim"]
    status, body = http(f"{base}/payments", {"idempotency_key": c["idempotency_key"], **c["action"]["args"]})
    outcome = "failed" if status == 402 else "succeeded"
    ledger.complete_item(task_id, c["fence"], outcome, executor="executor-1",
                         result={"declined": body["error"]} if status == 402 else body["payment"])
    return outcome


def remainder_of(ledger: Ledger, batch_id: str) -> str:
    """The batch a trip proposed over the items it sent back: its breaker_tripped event names it."""
    for line in ledger.audit_export().splitlines():
        e = json.loads(line)
        if e["kind"] == "breaker_tripped" and e["detail"]["batch_id"] == batch_id:
            return e["detail"]["remainder"]
    raise AssertionError(f"no trip of {batch_id}")


def test_twenty_refunds_one_review_a_trip_and_a_re_approval(service: str, tmp_path: Path) -> None:
    ledger = Ledger(os.environ.get("DESK_BATCH_DB") or f"sqlite:{tmp_path / 'ledger.db'}")
    job = f"outage-{time.time_ns()}"  # a fresh batch, whatever the database holds
    refunds = [action(BATCH, {"order_id": f"order-{200 + i}", "amount_minor": 2500, "currency": "USD"},
                      tenant=TENANT, subject=TRUSTED.subject, policy_version=TRUSTED.policy_version,
                      job_id=job, request_id=f"refund-{i + 1}") for i in range(20)]
    proposed = ledger.propose_batch(refunds, BATCH, semantics="per_item", proposer="agent")
    tasks = [i["task_id"] for i in proposed["items"]]
    keys = {t: ledger.task(t)["idempotency_key"] for t in tasks}
    http(f"{service}/control", {"fail": [keys[tasks[i]] for i in DECLINED]})

    reviewed = ledger.amend_batch(proposed["id"], amends=proposed["digest"], deselect=LEFT_OUT,
                                  reviewer="user:bob", reason="refunded by hand already")
    ledger.decide_batch(decision(reviewed, "bulk-1", ledger.now()))
    assert [ledger.task(tasks[i])["state"] for i in LEFT_OUT] == ["rejected", "rejected"]

    # Paid in order until the third decline trips the breaker.
    selected = [i for i in range(20) if i not in LEFT_OUT]
    done = {}
    for i in selected:
        done[i] = pay_item(ledger, service, tasks[i], refunds[i])
        if i == DECLINED[-1]:
            break
    tripped = ledger.batch(proposed["id"])
    assert (tripped["breaker"]["state"], tripped["breaker"]["trips"]) == ("open", 1)
    back = [i for i in selected if i not in done]
    assert back and all(ledger.task(tasks[i])["state"] == "awaiting_reapproval" for i in back)
    with pytest.raises(ActionsealError) as e:  # nothing is claimed after the trip
        ledger.claim_item(tasks[back[0]], refunds[back[0]], facts(), executor="executor-2", lease_ms=60_000)
    assert e.value.code == "task_not_claimable"

    # The reviewer decides the remainder: the breaker half-opens, the rest are paid, it closes.
    remainder = ledger.batch(remainder_of(ledger, proposed["id"]))
    assert [item["task_id"] for item in remainder["items"]] == [tasks[i] for i in back]
    ledger.decide_batch(decision(remainder, "bulk-2", ledger.now()))
    assert ledger.batch(remainder["id"])["breaker"]["state"] == "half_open"
    for i in back:
        done[i] = pay_item(ledger, service, tasks[i], refunds[i])
    assert ledger.batch(remainder["id"])["breaker"]["state"] == "closed"

    # One effect per paid refund, none for the declined ones or the ones left out.
    assert sorted(i for i, o in done.items() if o == "failed") == list(DECLINED)
    effects = {e["idempotency_key"]: e["requests"] for e in http(f"{service}/effects")[1]["effects"]}
    paid = [i for i, o in done.items() if o == "succeeded"]
    assert effects == {keys[tasks[i]]: 1 for i in paid}
    assert len(paid) == 20 - len(LEFT_OUT) - len(DECLINED)
    assert all(ledger.task(tasks[i])["state"] == "succeeded" for i in paid)
    assert ledger.audit_verify()["valid"]
    ledger.close()
