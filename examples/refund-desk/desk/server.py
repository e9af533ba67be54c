"""The desk's approval server (Starlette on uvicorn): the confirmation page and a JSON API over
the ledger. It holds the only signing key: an approved decision is signed here, and the executor
verifies it against the key set in its own config.

    python desk/server.py --db URL --dir RUN_DIR --port PORT

API (the reviewer is the server's session, never the request's):
- GET  /api/tasks                    the tenant's tasks, newest first
- GET  /api/tasks/{id}               a task: frozen action, contract, history, amendments, hand-offs
- POST /api/tasks/{id}/amend         {amends, args, reason}: the reviewer's correction (ledger.amend)
- POST /api/tasks/{id}/decision      {decision_id, action_digest, decision, ttl_ms}: the server
                                     signs an approval with its key; or {..., passkey_record}: the
                                     record of /draft with the reviewer's passkey assertion
- POST /api/tasks/{id}/draft         {decision_id, action_digest, ttl_ms}: the exact record a
                                     passkey approval signs (its fingerprint is the challenge)
- POST /api/passkeys/challenge       a registration challenge (single use)
- POST /api/passkeys                 {registration, challenge}: enrols the reviewer's passkey
- GET  /api/proofs/{approval_id}     the signed decision, for executors
- POST /api/handoffs                 {task_id, action}: the agent hands a decided call over
- GET  /api/handoffs/{task_id}       the latest hand-off of a task, for executors

The server's own records (decisions by decision_id, signed decisions, hand-offs) are in
RUN_DIR/desk.db, a SQLite file only this process writes.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import threading
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import base64
import secrets
from urllib.parse import urlsplit

from actionseal import (ActionsealError, Ledger, SigningKey, approve, canonicalize, fingerprint, short_fingerprint,
                        verify_passkey, verify_registration)

from refunds import CONTRACTS, REVIEWER, TENANT

HERE = Path(__file__).resolve().parent.parent
REPO = HERE.parent.parent
WAITING = ("awaiting_approval", "awaiting_reapproval")
# Validity a reviewer may choose: short ones show expiry in the demo.
TTLS_MS = (3_000, 300_000, 3_600_000)


class Desk:
    def __init__(self, db: str, run_dir: Path, origin: str) -> None:
        self.ledger = Ledger(db)
        self.run_dir = run_dir
        # The relying party of passkeys: the page's host (a domain, never an IP) and origin.
        self.webauthn = {"rp_id": urlsplit(origin).hostname, "origins": [origin]}
        self.challenges: set = set()
        filed = run_dir / "passkeys.json"
        self.passkeys: dict = json.loads(filed.read_text())["passkeys"] if filed.exists() else {}
        self.key = SigningKey(json.loads((run_dir / "server-key.jwk").read_text()))
        self.lock = threading.Lock()
        self.db = sqlite3.connect(run_dir / "desk.db", check_same_thread=False, isolation_level=None)
        self.db.executescript("""
            PRAGMA journal_mode=WAL;
            CREATE TABLE IF NOT EXISTS decisions (decision_id TEXT PRIMARY KEY, task_id TEXT NOT NULL,
                envelope TEXT NOT NULL, at INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS proofs (approval_id TEXT PRIMARY KEY, task_id TEXT NOT NULL,
                kind TEXT NOT NULL, proof TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS handoffs (n INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL,
                action TEXT NOT NULL, digest TEXT NOT NULL, at INTEGER NOT NULL);
        """)

    def rows(self, sql: str, *args: object) -> list:
        with self.lock:
            return self.db.execute(sql, args).fetchall()


def error(code: str, status: int, **extra: object) -> JSONResponse:
    return JSONResponse({"error": code, **extra}, status_code=status)


def summary(t: dict) -> dict:
    return {"id": t["id"], "state": t["state"], "tool": t["action"]["tool"], "args": t["action"]["args"],
            "job_id": t["job_id"], "action_digest": t["action_digest"],
            "short": short_fingerprint(t["action_digest"]), "amendments": t["amendments"],
            "approval_required": t["approval_required"], "updated_at": t["updated_at"]}


def build(desk: Desk) -> Starlette:
    ledger = desk.ledger

    def tasks(request: Request) -> JSONResponse:
        all_ = ledger.tasks(tenant=TENANT)
        all_.sort(key=lambda t: t["created_at"], reverse=True)
        return JSONResponse({"reviewer": REVIEWER, "now": ledger.now(),
                             "tasks": [summary(t) for t in all_ if t["approval_required"]]})

    def task(request: Request) -> JSONResponse:
        tid = request.path_params["id"]
        try:
            h = ledger.history(tid)
        except ActionsealError as e:
            return error(e.code, 404)
        t = h["task"]
        rows = desk.rows("SELECT action, digest, at FROM handoffs WHERE task_id=? ORDER BY n", tid)
        handoffs = [{"action": json.loads(a), "digest": d, "at": at} for a, d, at in rows]
        approval_id = (t["approval"] or {}).get("approval_id")
        kinds = desk.rows("SELECT kind FROM proofs WHERE approval_id=?", approval_id) if approval_id else []
        return JSONResponse({
            "reviewer": REVIEWER, "now": ledger.now(), "ttls_ms": TTLS_MS, "task": t,
            "proof": kinds[0][0] if kinds else None,
            "contract": CONTRACTS[t["action"]["tool"]].document, "events": h["events"],
            "amendments": ledger.amendments(tid), "handoffs": handoffs,
        })

    async def amend(request: Request) -> JSONResponse:
        body = await request.json()
        return await _threaded(_amend, request.path_params["id"], body)

    def _amend(tid: str, body: dict) -> JSONResponse:
        try:
            t = ledger.task(tid)
            edited = {**t["action"], "args": body["args"]}
            out = ledger.amend(tid, edited, CONTRACTS[t["action"]["tool"]], amends=body["amends"],
                               reviewer=REVIEWER, reason=str(body.get("reason") or "corrected by the reviewer"))
        except ActionsealError as e:
            return error(e.code, 409, path=e.path, detail=str(e))
        except (KeyError, TypeError):
            return error("invalid_request", 400)
        return JSONResponse({"task": out["task"], "duplicate": out["duplicate"]})

    async def decision(request: Request) -> JSONResponse:
        body = await request.json()
        return await _threaded(_decide, request.path_params["id"], body)

    def passkey_keys() -> dict:
        return {"passkeys": dict(desk.passkeys), "webauthn": desk.webauthn}

    def draft_record(t: dict, decision_id: str, ttl: int) -> dict:
        """The approval record the ledger will hold for this decision, with the server's time."""
        now = ledger.now()
        extra = {"proposed_digest": t["proposed_digest"]} if t["proposed_digest"] != t["action_digest"] else {}
        return approve(t["action"], approval_id=t["approval_id"], decision_id=decision_id, decision="approved",
                       approver=REVIEWER, decided_at=now, expires_at=now + ttl, **extra)

    async def draft(request: Request) -> JSONResponse:
        body = await request.json()
        return await _threaded(_draft, request.path_params["id"], body)

    def _draft(tid: str, body: dict) -> JSONResponse:
        try:
            t = ledger.task(tid)
            decision_id, digest, ttl = str(body["decision_id"]), str(body["action_digest"]), int(body["ttl_ms"])
        except ActionsealError as e:
            return error(e.code, 404)
        except (KeyError, TypeError, ValueError):
            return error("invalid_request", 400)
        if digest != t["action_digest"]:
            return error("digest_mismatch", 409, task_digest=t["action_digest"])
        if t["state"] not in WAITING or ttl not in TTLS_MS:
            return error("task_not_awaiting_decision", 409, state=t["state"])
        return JSONResponse({"record": draft_record(t, decision_id, ttl)})

    def _decide(tid: str, body: dict) -> JSONResponse:
        try:
            decision_id, digest = str(body["decision_id"]), str(body["action_digest"])
            verdict, ttl = body["decision"], int(body.get("ttl_ms", TTLS_MS[-1]))
        except (KeyError, TypeError, ValueError):
            return error("invalid_request", 400)
        if verdict not in ("approved", "rejected") or ttl not in TTLS_MS:
            return error("invalid_request", 400)
        signed = body.get("passkey_record")
        verified = None
        if signed is not None:
            # The reviewer's passkey signed the record's fingerprint: verify it before recording.
            try:
                verified = verify_passkey(signed, passkey_keys())["approval"]
            except ActionsealError as e:
                return error(e.code, 403, detail=str(e))
            if (verified["decision_id"], verified["action_digest"], verified["approver"], verified["decision"]) != \
                    (decision_id, digest, REVIEWER, verdict):
                return error("passkey_record_mismatch", 409)
        with desk.lock:  # one decision per decision_id, even from racing clicks
            seen = desk.db.execute("SELECT task_id, envelope FROM decisions WHERE decision_id=?",
                                   (decision_id,)).fetchone()
            if seen is not None:
                if seen[0] != tid:
                    return error("decision_conflict", 409)
                # A repeated delivery: the ledger is given the same envelope and de-duplicates it too.
                try:
                    out = ledger.decide(json.loads(seen[1]))
                except ActionsealError as e:
                    return error(e.code, 409)
                return JSONResponse({"task": out["task"], "duplicate": True})
            try:
                t = ledger.task(tid)
            except ActionsealError as e:
                return error(e.code, 404)
            if digest != t["action_digest"]:
                return error("digest_mismatch", 409, task_digest=t["action_digest"])
            if t["state"] not in WAITING:
                return error("task_not_awaiting_decision", 409, state=t["state"])
            now = ledger.now()
            envelope = {"approval_id": t["approval_id"], "decision_id": decision_id, "job_id": t["job_id"],
                        "request_id": t["request_id"], "action_digest": t["action_digest"], "decision": verdict,
                        "approver": REVIEWER, "decided_at": now, "expires_at": now + ttl}
            if verified is not None:
                if verified["approval_id"] != t["approval_id"]:
                    return error("passkey_record_mismatch", 409)
                envelope.update(decided_at=verified["decided_at"], expires_at=verified["expires_at"])
            desk.db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?)",
                            (decision_id, tid, json.dumps(envelope), now))
            try:
                out = ledger.decide(envelope)
            except ActionsealError as e:
                desk.db.execute("DELETE FROM decisions WHERE decision_id=?", (decision_id,))
                return error(e.code, 409)
            record = out["task"]["approval"]
            if verified is not None and canonicalize(verified) == canonicalize(record):
                desk.db.execute("INSERT OR IGNORE INTO proofs VALUES (?, ?, 'passkey', ?)",
                                (record["approval_id"], tid, json.dumps(signed)))
            elif verdict == "approved":
                # Also when a passkey record did not match what the ledger holds: the server
                # vouches for what was recorded, never for a record it did not store.
                desk.db.execute("INSERT OR IGNORE INTO proofs VALUES (?, ?, 'service', ?)",
                                (record["approval_id"], tid, json.dumps(desk.key.sign(record))))
        return JSONResponse({"task": out["task"], "duplicate": out["duplicate"]})

    def challenge(request: Request) -> JSONResponse:
        c = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
        desk.challenges.add(c)
        return JSONResponse({"challenge": c, "webauthn": desk.webauthn, "approver": REVIEWER})

    async def enrol(request: Request) -> JSONResponse:
        body = await request.json()
        challenge_ = body.get("challenge")
        if challenge_ not in desk.challenges:
            return error("unknown_challenge", 400)
        desk.challenges.discard(challenge_)
        try:
            cred = verify_registration(body["registration"], challenge_, desk.webauthn)
        except ActionsealError as e:
            return error(e.code, 400, detail=str(e))
        desk.passkeys[cred["credential_id"]] = {"public_key": cred["public_key"], "approver": REVIEWER}
        # Filed where the executor reads its passkeys (an administrator's job in a real deployment).
        (desk.run_dir / "passkeys.json").write_text(json.dumps(passkey_keys(), indent=2) + "\n")
        return JSONResponse({**cred, "approver": REVIEWER})

    def proof(request: Request) -> JSONResponse:
        rows = desk.rows("SELECT kind, proof FROM proofs WHERE approval_id=?", request.path_params["approval_id"])
        if not rows:
            return error("proof_not_found", 404)
        return JSONResponse({"kind": rows[0][0], "proof": json.loads(rows[0][1])})

    async def handoff(request: Request) -> JSONResponse:
        body = await request.json()
        return await _threaded(_handoff, body)

    def _handoff(body: dict) -> JSONResponse:
        try:
            t, action = ledger.task(body["task_id"]), body["action"]
        except ActionsealError as e:
            return error(e.code, 404)
        except (KeyError, TypeError):
            return error("invalid_request", 400)
        ids = ("tenant", "job_id", "request_id")
        if not isinstance(action, dict) or any(action.get(k) != t[k] for k in ids):
            return error("not_this_task", 409)
        digest = fingerprint(action)
        with desk.lock:
            desk.db.execute("INSERT INTO handoffs (task_id, action, digest, at) VALUES (?, ?, ?, ?)",
                            (t["id"], json.dumps(action), digest, ledger.now()))
        return JSONResponse({"task_id": t["id"], "fingerprint": digest})

    def latest_handoff(request: Request) -> JSONResponse:
        rows = desk.rows("SELECT action, digest FROM handoffs WHERE task_id=? ORDER BY n DESC LIMIT 1",
                         request.path_params["task_id"])
        if not rows:
            return error("no_handoff", 404)
        return JSONResponse({"action": json.loads(rows[0][0]), "fingerprint": rows[0][1]})

    def index(request: Request) -> FileResponse:
        return FileResponse(HERE / "page" / "index.html")

    return Starlette(routes=[
        Route("/", index),
        Route("/api/tasks", tasks),
        Route("/api/tasks/{id}", task),
        Route("/api/tasks/{id}/amend", amend, methods=["POST"]),
        Route("/api/tasks/{id}/decision", decision, methods=["POST"]),
        Route("/api/tasks/{id}/draft", draft, methods=["POST"]),
        Route("/api/passkeys/challenge", challenge, methods=["POST"]),
        Route("/api/passkeys", enrol, methods=["POST"]),
        Route("/api/proofs/{approval_id}", proof),
        Route("/api/handoffs", handoff, methods=["POST"]),
        Route("/api/handoffs/{task_id}", latest_handoff),
        Mount("/page", StaticFiles(directory=HERE / "page")),
        Mount("/wasm", StaticFiles(directory=REPO / "bindings-wasm" / "pkg" / "web")),
        # The confirmation page's display helpers, imported as they are (read-only).
        Mount("/confirm", StaticFiles(directory=REPO / "examples" / "confirm-page")),
    ])


async def _threaded(fn, *args):
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(fn, *args)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--dir", required=True, type=Path)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--origin", required=True, help="the page's origin, e.g. http://localhost:PORT")
    a = p.parse_args()
    uvicorn.run(build(Desk(a.db, a.dir, a.origin)), host="127.0.0.1", port=a.port, log_level="warning")


if __name__ == "__main__":
    main()
