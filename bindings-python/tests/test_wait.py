"""Waking on the ledger through the Python binding, on SQLite and on PostgreSQL: ``wait`` is
woken by an approval from another thread (the GIL is released while it blocks) and times out
as an outcome; ``changes`` reads task changes after a cursor, and waits for one."""

import threading
import time

import actionseal
from conftest import error_of
from ledger_support import COMMON, contract_of, fresh  # noqa: F401 (a fixture)

REFUND = contract_of("refund")
IDS = {k: COMMON["ids"][k] for k in ("tenant", "subject", "policy_version")}
TIMEOUT_MS = 10_000


def awaiting(ledger, job):
    args = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}
    act = actionseal.action(REFUND, args, job_id=job, request_id="req-1", **IDS)
    return ledger.propose(act, REFUND, proposer="agent")


def approve(ledger, task, decision_id):
    now = ledger.now()
    ledger.decide({
        "approval_id": task["approval_id"], "decision_id": decision_id, "job_id": task["job_id"],
        "request_id": task["request_id"], "action_digest": task["action_digest"],
        "decision": "approved", "approver": COMMON["approver"], "decided_at": now,
        "expires_at": now + 3_600_000,
    })


def later(f):
    def run():
        time.sleep(0.2)
        f()
    t = threading.Thread(target=run)
    t.start()
    return t


def test_wait_wakes_on_an_approval_and_times_out_otherwise(fresh):
    with actionseal.Ledger(fresh.url()) as ledger:
        task = awaiting(ledger, "job-1")
        out = ledger.wait(task["id"], ["approved"], timeout_ms=300)
        assert (out["outcome"], out["task"]["state"]) == ("timed_out", "awaiting_approval")
        t = later(lambda: approve(ledger, task, "d1"))
        started = time.monotonic()
        out = ledger.wait(task["id"], ["approved", "rejected"], timeout_ms=TIMEOUT_MS)
        t.join()
        assert time.monotonic() - started < TIMEOUT_MS / 1000, "woke before the timeout"
        assert (out["outcome"], out["task"]["state"]) == ("reached", "approved")
        assert error_of(ledger.wait, task["id"], ["nowhere"], timeout_ms=0).code == "invalid_request"
        assert error_of(ledger.wait, task["id"], [], timeout_ms=0).code == "invalid_request"
        missing = "task_" + "0" * 32
        assert error_of(ledger.wait, missing, ["approved"], timeout_ms=0).code == "task_not_found"


def test_changes_after_a_cursor(fresh):
    with actionseal.Ledger(fresh.url()) as ledger:
        task = awaiting(ledger, "job-1")
        first = ledger.changes(limit=1)
        assert [(c["task_id"], c["kind"], c["state"]) for c in first["changes"]] == [
            (task["id"], "proposed", "awaiting_approval")]
        assert set(first["changes"][0]) == {"event_id", "task_id", "kind", "state", "at"}
        cursor = first["cursor"]
        assert ledger.changes(after=cursor) == {"changes": [], "cursor": cursor}
        none = ledger.changes(after=cursor, timeout_ms=300)
        assert none == {"changes": [], "cursor": cursor}
        t = later(lambda: approve(ledger, task, "d1"))
        read = ledger.changes(after=cursor, timeout_ms=TIMEOUT_MS)
        t.join()
        assert [(c["kind"], c["state"]) for c in read["changes"]] == [("decided", "approved")]
        assert error_of(ledger.changes, after="not a cursor").code == "invalid_request"
        assert error_of(ledger.changes, limit=0).code == "invalid_request"
