"""The "approval needed" webhook: when a desk task starts awaiting a decision (or a decision
again), the approval server posts a JSON body with the task id, its short fingerprint and a link
to its review page, signed as Standard Webhooks signs (core's ``sign_webhook``: ``webhook-id``,
``webhook-timestamp``, ``webhook-signature``). Never an argument value: the reviewer reads those
on the page, signed in.

Driven by the ledger's change feed (``changes`` with a timeout: woken by commits, never by
polling), from a cursor kept in the desk's own database, so a restarted server neither skips
nor repeats a task. Each delivery is retried with exponential backoff while the failure is one
that may pass (each retry names its reason: ``server_error``, ``timeout``,
``connection_refused``, ``connection_error``, ``request_timeout``, ``rate_limited``); a 2xx
delivers it, any other answer gives up (``client_error``: the receiver refused this body, and the
same body would be refused again).

The sender lives in the approval server because the server is the desk's one long-running
service: it knows the review page's origin, it already keeps the desk's secrets (its signing key;
now the webhook secret), and one sender means one delivery per task, where the two executors, or
the short-lived agent, would each need to agree who sends."""

from __future__ import annotations

import enum
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Callable, Optional

from actionseal import ActionsealError, Ledger, short_fingerprint, sign_webhook
from feed import FEED_WAIT_MS

WAITING = ("awaiting_approval", "awaiting_reapproval")
# The events by which a task starts waiting for a person (an amendment or a quorum's first
# approval leaves it waiting: no new webhook).
ENTERS = ("proposed", "sent_to_reapproval")
EVENT_TYPE = "approval.needed"
# The spec's example schedule starts at 5 s; the desk's is shorter (a reviewer is waiting).
BACKOFF_S = (0.5, 1, 2, 4, 8, 16)
TIMEOUT_S = 10  # the spec recommends 15 to 30 s of receiver time; a desk's receiver answers at once


class Retry(enum.Enum):
    """Why a delivery is tried again: failures that may pass."""

    SERVER_ERROR = "server_error"            # 5xx
    REQUEST_TIMEOUT = "request_timeout"      # 408
    RATE_LIMITED = "rate_limited"            # 429
    TIMEOUT = "timeout"                      # no answer in TIMEOUT_S
    CONNECTION_REFUSED = "connection_refused"
    CONNECTION_ERROR = "connection_error"    # reset, DNS, ...


class Outcome(enum.Enum):
    DELIVERED = "delivered"        # a 2xx
    CLIENT_ERROR = "client_error"  # any other 4xx (or 3xx): not retried
    EXHAUSTED = "exhausted"        # every retry failed


@dataclass
class Attempt:
    status: Optional[int]
    retry: Optional[Retry]  # why it will be tried again, None when it will not


def classify(status: Optional[int], error: Optional[BaseException]) -> Optional[Retry]:
    """The reason to try again after an answer `status` or a failure `error`, or None."""
    if error is not None:
        if isinstance(error, (TimeoutError, socket.timeout)):
            return Retry.TIMEOUT
        if isinstance(error, ConnectionRefusedError):
            return Retry.CONNECTION_REFUSED
        return Retry.CONNECTION_ERROR
    if status == 408:
        return Retry.REQUEST_TIMEOUT
    if status == 429:
        return Retry.RATE_LIMITED
    if status is not None and status >= 500:
        return Retry.SERVER_ERROR
    return None


def post(url: str, headers: dict, body: bytes) -> int:
    """POSTs once; the status, or raises the connection's error."""
    req = urllib.request.Request(url, data=body, method="POST",
                                 headers={**headers, "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except urllib.error.URLError as e:
        raise e.reason if isinstance(e.reason, BaseException) else ConnectionError(str(e.reason)) from None


class Sender:
    def __init__(self, url: str, secret: str, origin: str, *, log: Callable[..., None],
                 send: Callable[[str, dict, bytes], int] = post, clock: Callable[[], int] = lambda: int(time.time() * 1000),
                 sleep: Callable[[float], None] = time.sleep, backoff: tuple = BACKOFF_S) -> None:
        self.url, self.secret, self.origin = url, secret, origin
        self.log, self.send, self.clock, self.sleep, self.backoff = log, send, clock, sleep, backoff

    def body(self, task: dict, event_id: int) -> bytes:
        """What is posted: ids, the short fingerprint and the link; no argument value."""
        return json.dumps({
            "type": EVENT_TYPE, "task_id": task["id"], "state": task["state"], "tool": task["action"]["tool"],
            "fingerprint": task["action_digest"], "short": short_fingerprint(task["action_digest"]),
            "review": f"{self.origin}/?task={task['id']}", "event_id": event_id,
        }, separators=(",", ":")).encode()

    def deliver(self, webhook_id: str, body: bytes) -> tuple:
        """Delivers one body, retrying with backoff; (Outcome, [Attempt])."""
        attempts = []
        for wait in (*self.backoff, None):
            # Each attempt is signed with its own time (the spec): a receiver judges it fresh.
            headers = dict(sign_webhook(self.secret, webhook_id, self.clock(), body))
            status, error = None, None
            try:
                status = self.send(self.url, headers, body)
            except OSError as e:
                error = e
            retry = classify(status, error)
            attempts.append(Attempt(status, retry))
            self.log("webhook_attempt", webhook_id=webhook_id, status=status, retry=retry and retry.value)
            if status is not None and 200 <= status < 300:
                return Outcome.DELIVERED, attempts
            if retry is None:
                return Outcome.CLIENT_ERROR, attempts
            if wait is not None:
                self.sleep(wait)
        return Outcome.EXHAUSTED, attempts


class Feed(threading.Thread):
    """Follows the ledger's change feed and sends one webhook per task entering a wait for a
    decision (the desk tenant's only), from the cursor the desk's store keeps."""

    def __init__(self, ledger: Ledger, sender: Sender, store, tenant: str) -> None:
        super().__init__(daemon=True, name="webhook-feed")
        self.ledger, self.sender, self.store, self.tenant = ledger, sender, store, tenant
        self.stopping = threading.Event()

    def run(self) -> None:
        rows = self.store.rows("SELECT cursor FROM webhook_cursor")
        cursor = rows[0][0] if rows else ""
        while not self.stopping.is_set():
            try:
                read = self.ledger.changes(after=cursor, limit=100, timeout_ms=FEED_WAIT_MS)
            except ActionsealError as e:
                self.sender.log("webhook_feed_error", code=e.code)
                self.stopping.wait(1)  # the database went away: try again shortly
                continue
            for change in read["changes"]:
                if change["state"] in WAITING and change["kind"] in ENTERS:
                    self.notify(change)
            cursor = read["cursor"]
            self.store.run("INSERT OR REPLACE INTO webhook_cursor (one, cursor) VALUES (1, ?)", cursor)

    def notify(self, change: dict) -> None:
        task = self.ledger.task(change["task_id"])
        if task["tenant"] != self.tenant or not task["approval_required"]:
            return
        # One id per task and event: a retry keeps it, so the receiver can drop a repeat.
        webhook_id = f"msg_{change['task_id']}_{change['event_id']}"
        if self.store.rows("SELECT 1 FROM webhooks WHERE webhook_id=?", webhook_id):
            return
        outcome, attempts = self.sender.deliver(webhook_id, self.sender.body(task, change["event_id"]))
        self.store.run("INSERT INTO webhooks (webhook_id, task_id, outcome, attempts, retries) VALUES (?, ?, ?, ?, ?)",
                       webhook_id, task["id"], outcome.value, len(attempts),
                       json.dumps([a.retry.value for a in attempts if a.retry is not None]))
