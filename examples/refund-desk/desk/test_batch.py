"""The desk's bulk refund through the approval server (batches.py), on the ledger named by
DESK_BATCH_DB (SQLite or PostgreSQL; `run --headless` runs this on both), where proof is
required of every decision, as the desk requires it: the agent hands twenty refunds over as one
batch with its token; the reviewer lists the batch, reads every item, leaves two out and
approves the rest at once: the server signs the ledger's batch record (the ledger refuses a bare
batch decision here). An executor loop written as the desk's executor works (claim with proof
required, verify the claimed record and the item's inclusion proof with the server's public
key, pay with the item's idempotency key, complete; a 402 is `failed`) pays them through the
payment service (payment.py, over HTTP). Three declined payments trip the breaker once; the
refunds not yet paid go back for approval, none is claimed after the trip, and the remainder
shows up in the reviewer's list as the batch's successor; approved there, the breaker
half-opens, the rest are paid and it closes. Each paid refund had exactly one effect (counted
by idempotency key), the declined and the left-out ones none, and the audit verifies.

    DESK_BATCH_DB=sqlite:/tmp/x.db python -m pytest -q examples/refund-desk/desk/test_batch.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import payment
import server
from actionseal import (ActionsealError, Ledger, action, batch_build, batch_deselect, batch_verify_decision,
                        batch_verify_item, canonicalize, fingerprint)
from refunds import BULK, TENANT, TRUSTED

HERE = Path(__file__).resolve().parent
ORIGIN = "http://localhost:8999"
HOUR = 3_600_000
DECLINED = (3, 6, 9)  # the positions whose payments the service declines
LEFT_OUT = [1, 12]  # the positions the reviewer leaves out


@pytest.fixture()
def service():
    for table in (payment.PAYMENTS, payment.REQUESTS, payment.SLOW, payment.RECEIVED, payment.FAIL):
        table.clear()
    http_server = ThreadingHTTPServer(("127.0.0.1", 0), payment.Handler)
    threading.Thread(target=http_server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{http_server.server_address[1]}"
    http_server.shutdown()
    http_server.server_close()


@pytest.fixture()
def run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    subprocess.run([sys.executable, str(HERE / "setup.py"), str(run), "--db", "sqlite:unused", "--server", ORIGIN,
                    "--payment", "http://127.0.0.1:9"], check=True, stdout=subprocess.DEVNULL)
    return run


@pytest.fixture()
def desk(run: Path, tmp_path: Path):
    d = server.Desk(os.environ.get("DESK_BATCH_DB") or f"sqlite:{tmp_path / 'ledger.db'}", run, ORIGIN)
    yield d
    d.ledger.close()
    d.decider.close()


def http(url: str, body: object = None) -> tuple:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def facts() -> dict:
    return {"tenant": TENANT, "policy_version": TRUSTED.policy_version, "contract": BULK,
            "approver_authorized": {"approver": "user:bob", "authorized": True},
            "subject_authorized": {"subject": TRUSTED.subject, "authorized": True}}


def pay_item(ledger: Ledger, keys: dict, base: str, task_id: str, item: dict) -> str:
    """The desk executor's steps for one item: claim a proven decision only, verify what was
    claimed with the executor's own keys, pay with the item's idempotency key, complete."""
    out = ledger.claim_item(task_id, item, facts(), executor="executor-1", lease_ms=60_000, proof="required")
    assert out["result"] == "claimed", out["result"]
    c = out["claim"]
    verified = batch_verify_decision(c["proof"]["proven"], keys, c["proof"]["verified_at"])
    assert canonicalize(verified["approval"]) == canonicalize(c["approval"])
    assert batch_verify_item(c["approval"]["batch"], c["item"])["action_digest"] == fingerprint(c["action"])
    status, body = http(f"{base}/payments", {"idempotency_key": c["idempotency_key"], **c["action"]["args"]})
    outcome = "failed" if status == 402 else "succeeded"
    ledger.complete_item(task_id, c["fence"], outcome, executor="executor-1",
                         result={"declined": body["error"]} if status == 402 else body["payment"])
    return outcome


def listed(client: TestClient) -> list:
    r = client.get("/api/batches")
    assert r.status_code == 200, r.text
    return r.json()["batches"]


def approve(client: TestClient, headers: dict, batch: dict, deselected: list, digest: str) -> dict:
    r = client.post(f"/api/batches/{batch['batch']['id']}/decision", headers=headers, json={
        "decision_id": str(uuid.uuid4()), "batch_digest": digest, "proposed_digest": batch["claimed"],
        "deselected": deselected, "decision": "approved", "ttl_ms": HOUR})
    assert r.status_code == 200, r.text
    return r.json()


def test_twenty_refunds_handed_over_reviewed_once_a_trip_and_a_re_approval(service, desk, run) -> None:
    from test_server import bearer, sign_in  # the server tests' credentials, as the page and agent send them

    client = TestClient(server.build(desk), base_url=ORIGIN)
    ledger = desk.ledger
    keys = desk.keys()
    job = f"outage-{time.time_ns()}"  # a fresh batch, whatever the database holds
    refunds = [action(BULK, {"order_id": f"order-{200 + i}", "amount_minor": 2500, "currency": "USD"},
                      tenant=TENANT, subject=TRUSTED.subject, policy_version=TRUSTED.policy_version,
                      job_id=job, request_id=f"refund-{i + 1}") for i in range(20)]

    # Only the agent hands a batch over; the reviewer cannot, and the agent cannot decide.
    assert client.post("/api/batches", json={"actions": refunds}, headers=bearer(run, "executor.token")).status_code == 403
    handed = client.post("/api/batches", json={"actions": refunds, "semantics": "per_item"},
                         headers=bearer(run, "agent.token"))
    assert handed.status_code == 200, handed.text
    bid = handed.json()["batch_id"]
    headers = sign_in(client, run)
    batch = client.get(f"/api/batches/{bid}").json()
    assert batch["actions"] == refunds and batch["states"] == ["awaiting_approval"] * 20
    # What the page checks: core builds the same batch from what the server shows.
    assert batch_build(batch["contract"], batch["semantics"], batch["actions"], None)["batch_digest"] == batch["claimed"]
    assert [b["id"] for b in listed(client)] == [bid]
    # The batch's items are reviewed in the batch, not one by one.
    assert not {t["id"] for t in client.get("/api/tasks").json()["tasks"]} & {i["task_id"] for i in batch["batch"]["items"]}
    assert client.post(f"/api/batches/{bid}/decision", headers={**bearer(run, "agent.token"), "origin": ORIGIN},
                       json={"decision_id": "x", "batch_digest": batch["claimed"], "decision": "approved"}).json() \
        == {"error": "csrf_refused", "message": "the request lacks this session's CSRF token"}
    tasks = [i["task_id"] for i in batch["batch"]["items"]]
    keys_of = {t: ledger.task(t)["idempotency_key"] for t in tasks}
    http(f"{service}/control", {"fail": [keys_of[tasks[i]] for i in DECLINED]})

    # A bare decision written around the server is refused by the ledger: proof is required.
    with pytest.raises(ActionsealError) as e:
        ledger.decide_batch({"approval_id": batch["batch"]["approval_id"], "decision_id": "bare", "batch_id": bid,
                             "batch_digest": batch["claimed"], "decision": "approved", "approver": "user:bob",
                             "decided_at": ledger.now(), "expires_at": ledger.now() + HOUR})
    assert e.value.code == "missing_proof"

    # Two left out: the page sends the remainder's fingerprint (core's batch_deselect, as the page
    # computes it); the proposed one with a deselection is another batch: refused, nothing changed.
    remainder_digest = batch_deselect(BULK, "per_item", refunds, LEFT_OUT, None)["batch_digest"]
    stale = client.post(f"/api/batches/{bid}/decision", headers=headers, json={
        "decision_id": str(uuid.uuid4()), "batch_digest": batch["claimed"], "proposed_digest": batch["claimed"],
        "deselected": LEFT_OUT, "decision": "approved", "ttl_ms": HOUR})
    assert (stale.status_code, stale.json()) == (409, {"error": "digest_mismatch", "batch_digest": remainder_digest})
    assert ledger.batch(bid)["digest"] == batch["claimed"]
    decided = approve(client, headers, batch, LEFT_OUT, remainder_digest)
    assert decided["batch"]["state"] == "approved" and decided["batch"]["proof"] is not None
    assert [ledger.task(tasks[i])["state"] for i in LEFT_OUT] == ["rejected", "rejected"]
    read = client.get(f"/api/batches/{bid}").json()
    assert read["left_out"] == LEFT_OUT and read["batch"]["digest"] == remainder_digest

    # Paid in order until the third decline trips the breaker.
    selected = [i for i in range(20) if i not in LEFT_OUT]
    done = {}
    for i in selected:
        done[i] = pay_item(ledger, keys, service, tasks[i], refunds[i])
        if i == DECLINED[-1]:
            break
    tripped = ledger.batch(bid)
    assert (tripped["breaker"]["state"], tripped["breaker"]["trips"]) == ("open", 1)
    back = [i for i in selected if i not in done]
    assert back and all(ledger.task(tasks[i])["state"] == "awaiting_reapproval" for i in back)
    with pytest.raises(ActionsealError) as e:  # nothing is claimed after the trip
        ledger.claim_item(tasks[back[0]], refunds[back[0]], facts(), executor="executor-2", lease_ms=60_000,
                          proof="required")
    assert e.value.code == "task_not_claimable"

    # The remainder comes back to the reviewer as the batch's successor; approved, the breaker
    # half-opens, the rest are paid, it closes.
    lineage = listed(client)
    assert [b["id"] for b in lineage][0] == bid and lineage[0]["successor"] == lineage[1]["id"]
    assert (lineage[1]["state"], lineage[1]["items"]) == ("awaiting_approval", len(back))
    again = client.get(f"/api/batches/{lineage[1]['id']}").json()
    assert again["actions"] == [refunds[i] for i in back]
    approve(client, headers, again, [], again["claimed"])
    assert ledger.batch(again["batch"]["id"])["breaker"]["state"] == "half_open"
    for i in back:
        done[i] = pay_item(ledger, keys, service, tasks[i], refunds[i])
    assert ledger.batch(again["batch"]["id"])["breaker"]["state"] == "closed"

    # One effect per paid refund, none for the declined ones or the ones left out.
    assert sorted(i for i, o in done.items() if o == "failed") == list(DECLINED)
    effects = {e["idempotency_key"]: e["requests"] for e in http(f"{service}/effects")[1]["effects"]}
    paid = [i for i, o in done.items() if o == "succeeded"]
    assert effects == {keys_of[tasks[i]]: 1 for i in paid}
    assert len(paid) == 20 - len(LEFT_OUT) - len(DECLINED)
    assert all(ledger.task(tasks[i])["state"] == "succeeded" for i in paid)
    assert ledger.audit_verify()["valid"]


def test_a_replayed_batch_decision_is_one_decision_and_another_tenants_batch_is_not_found(desk, run) -> None:
    from test_server import bearer, sign_in

    client = TestClient(server.build(desk), base_url=ORIGIN)
    job = f"replay-{time.time_ns()}"
    ours = [action(BULK, {"order_id": f"order-{i}", "amount_minor": 2500, "currency": "USD"}, tenant=TENANT,
                   subject=TRUSTED.subject, policy_version=TRUSTED.policy_version, job_id=job, request_id=f"r-{i}")
            for i in range(3)]
    theirs = [{**a, "tenant": "tenant-b"} for a in ours]
    # The agent hands over only the desk tenant's refunds.
    refused = client.post("/api/batches", json={"actions": theirs}, headers=bearer(run, "agent.token"))
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_request")
    other = desk.ledger.propose_batch(theirs, BULK, semantics="per_item", proposer="agent:elsewhere")
    bid = client.post("/api/batches", json={"actions": ours}, headers=bearer(run, "agent.token")).json()["batch_id"]
    headers = sign_in(client, run)
    assert [b["id"] for b in listed(client)] == [bid]
    assert client.get(f"/api/batches/{other['id']}").json() == {"error": "batch_not_found"}
    decision = {"decision_id": str(uuid.uuid4()), "batch_digest": other["digest"], "decision": "approved", "ttl_ms": HOUR}
    r = client.post(f"/api/batches/{other['id']}/decision", headers=headers, json=decision)
    assert (r.status_code, r.json()) == (404, {"error": "batch_not_found"})
    assert desk.ledger.batch(other["id"])["state"] == "awaiting_approval"

    # A double click: the same decision_id twice is one decision, the second a duplicate.
    batch = client.get(f"/api/batches/{bid}").json()
    decision = {"decision_id": str(uuid.uuid4()), "batch_digest": batch["claimed"], "decision": "approved",
                "ttl_ms": HOUR}
    first = client.post(f"/api/batches/{bid}/decision", headers=headers, json=decision).json()
    again = client.post(f"/api/batches/{bid}/decision", headers=headers, json=decision).json()
    assert (first["duplicate"], again["duplicate"]) == (False, True)
    assert again["batch"]["decision_id"] == first["batch"]["decision_id"] == decision["decision_id"]
    kinds = [json.loads(line)["kind"] for line in desk.ledger.audit_export().splitlines()]
    assert kinds.count("batch_decision_duplicate") >= 1
    # A rejection needs a reason, as a task's does.
    r = client.post(f"/api/batches/{bid}/decision", headers=headers,
                    json={**decision, "decision_id": str(uuid.uuid4()), "decision": "rejected"})
    assert (r.status_code, r.json()["error"]) == (400, "reason_required")
