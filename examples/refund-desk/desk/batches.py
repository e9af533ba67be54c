"""The desk's batches (issue 28): the agent hands several refunds over as one batch, the
reviewer reads every item, leaves some out and decides the rest at once, with the same proof as
a single decision (the server's key signs the ledger's batch record; server.py's `Desk.file`
files it and the ledger records it). After a trip of the breaker the items not yet paid come
back as the batch's successor, which the list shows for re-approval.

the agent (its bearer token)
- POST /api/batches                  {actions, semantics}: proposes them as one batch under the
                                     desk's BULK contract (never one the agent names)
the reviewer (a signed-in session)
- GET  /api/batches                  every batch handed over, each lineage followed through its
                                     successors (the remainder of a trip)
- GET  /api/batches/{id}             a batch: every item as proposed with its state, the
                                     contract, the fingerprint the page checks
- POST /api/batches/{id}/decision    {decision_id, batch_digest, proposed_digest, deselected,
                                     decision, ttl_ms, reason}: leaves the positions in
                                     `deselected` out (ledger.amend_batch), then the server signs
                                     the decision over exactly `batch_digest`

Every route that names a batch answers 404 batch_not_found for another tenant's.
"""

from __future__ import annotations

from typing import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from actionseal import ActionsealError, batch_decide, batch_deselect, short_fingerprint

from auth import Role
from refunds import BULK, TENANT
from refusals import Refused, refused
from store import Filed
from verdicts import TTLS_MS, decision_request, rejection_reason

# The proposer the ledger records for a batch the agent hands over.
PROPOSER = "agent:refunds"
MAX_ITEMS = BULK["batch"]["max_items"]


def routes(desk, endpoint: Callable) -> list:
    ledger = desk.ledger

    def own_batch(bid: object) -> dict:
        try:
            b = ledger.batch(str(bid))
        except ActionsealError:
            raise Refused("batch_not_found", 404) from None
        if b["tenant"] != TENANT:
            raise Refused("batch_not_found", 404)
        return b

    def hand_over(request: Request, _session: None, body: dict) -> JSONResponse:
        actions, semantics = body.get("actions"), body.get("semantics", "per_item")
        if not isinstance(actions, list) or not 0 < len(actions) <= MAX_ITEMS or \
                not all(isinstance(a, dict) and a.get("tenant") == TENANT for a in actions):
            raise Refused("invalid_request", 400, message=f"a batch is 1 to {MAX_ITEMS} actions of the desk's tenant")
        try:
            b = ledger.propose_batch(actions, BULK, semantics=semantics, proposer=PROPOSER)
        except ActionsealError as e:
            raise refused(e, 409) from None
        desk.store.run("INSERT OR IGNORE INTO batches VALUES (?, ?)", b["lineage"], b["created_at"])
        for item in b["items"]:
            desk.store.run("INSERT OR IGNORE INTO batch_items VALUES (?, ?)", item["task_id"], b["lineage"])
        desk.wakeups.announce(b["items"][0]["task_id"], "batch")
        return JSONResponse({"batch_id": b["id"], "fingerprint": b["digest"]})

    def listed(request: Request, session, _body: None) -> JSONResponse:
        out = []
        for (lineage,) in desk.store.rows("SELECT lineage FROM batches ORDER BY at DESC"):
            bid = lineage
            while bid is not None:  # the lineage's batches, oldest first: a trip's remainder follows
                b = ledger.batch(bid)
                out.append({"id": b["id"], "lineage": b["lineage"], "state": b["state"], "current": b["current"],
                            "digest": b["digest"], "short": short_fingerprint(b["digest"]),
                            "items": len(b["items"]), "proposed": len(b["proposed_items"]),
                            "breaker": b["breaker"]["state"], "successor": b["successor"],
                            "updated_at": b["updated_at"]})
                bid = b["successor"]
        return JSONResponse({"reviewer": session.reviewer, "batches": out})

    def read(request: Request, session, _body: None) -> JSONResponse:
        b = own_batch(request.path_params["id"])
        tasks = [ledger.task(t) for t in b["proposed_items"]]
        selected = {i["task_id"] for i in b["items"]}
        return JSONResponse({
            "reviewer": session.reviewer, "now": ledger.now(), "ttls_ms": TTLS_MS, "batch": b, "contract": BULK,
            "semantics": b["semantics"], "actions": [t["action"] for t in tasks], "claimed": b["proposed_digest"],
            "states": [t["state"] for t in tasks],
            "left_out": [n for n, t in enumerate(tasks) if t["id"] not in selected],
        })

    def decide(request: Request, session, body: dict) -> JSONResponse:
        bid = own_batch(request.path_params["id"])["id"]
        decision_id, digest, verdict, ttl = decision_request(body, "batch_digest")
        reason = rejection_reason(verdict, body.get("reason"))
        deselected = body.get("deselected", [])
        if not isinstance(deselected, list) or not all(isinstance(n, int) for n in deselected) or \
                (deselected and verdict != "approved"):
            raise Refused("invalid_request", 400, message="deselected lists positions left out of an approval")
        with desk.deciding:
            again = desk.replayed(decision_id, bid, desk.decider.decide_batch)
            if again is not None:
                return JSONResponse({"batch": again["batch"], "duplicate": True})
            b = own_batch(bid)
            if b["state"] != "awaiting_approval":
                raise Refused("batch_not_awaiting_decision", 409, state=b["state"])
            if deselected and b["digest"] == b["proposed_digest"]:
                # Another batch (unless a repeated request left the items out already): the
                # decision must name the remainder's fingerprint (core's, as the page computes
                # it) before the ledger leaves the items out of the batch the reviewer saw
                # (`proposed_digest`).
                actions = [ledger.task(i["task_id"])["action"] for i in b["items"]]
                try:
                    remainder = batch_deselect(BULK, b["semantics"], actions, sorted(set(deselected)), None)
                except ActionsealError as e:
                    raise refused(e, 409) from None
                if remainder["batch_digest"] != digest:
                    raise Refused("digest_mismatch", 409, batch_digest=remainder["batch_digest"])
                try:
                    b = ledger.amend_batch(bid, amends=str(body.get("proposed_digest")),
                                           deselect=sorted(set(deselected)), reviewer=session.reviewer,
                                           reason="left out by the reviewer")
                except ActionsealError as e:
                    raise refused(e, 409) from None
            if digest != b["digest"]:
                raise Refused("digest_mismatch", 409, batch_digest=b["digest"])
            now = ledger.now()
            extra = {"proposed_digest": b["proposed_digest"]} if b["proposed_digest"] != b["digest"] else {}
            # The record the ledger builds for this batch, signed by the server: as for a task.
            record = batch_decide(b["header"], approval_id=b["approval_id"], decision_id=decision_id, decision=verdict,
                                  approver=session.reviewer, decided_at=now, expires_at=now + ttl, **extra)
            out = desk.file(Filed(decision_id, bid, b["approval_id"], verdict, session.reviewer, [], reason, now),
                            desk.key.sign(record), "service", desk.decider.decide_batch)
        return JSONResponse({"batch": out["batch"], "duplicate": out["duplicate"]})

    return [
        Route("/api/batches", endpoint(Role.AGENT, hand_over, change=True), methods=["POST"]),
        Route("/api/batches", endpoint(Role.REVIEWER, listed, change=False)),
        Route("/api/batches/{id}", endpoint(Role.REVIEWER, read, change=False)),
        Route("/api/batches/{id}/decision", endpoint(Role.REVIEWER, decide, change=True), methods=["POST"]),
    ]
