"""The desk's approval server (Starlette on uvicorn): the reviewer's page and a JSON API over the
ledger. It holds the only signing key: every decision is signed here (or approved with the
reviewer's passkey) and reaches the ledger with its proof. The ledger verifies it against the
server's key and the enrolled passkeys, requires proof of every decision from every handle, and
keeps the proof; the executor claims only proven decisions and verifies what it claimed against
the key set in its own config.

    python desk/server.py --db URL --dir RUN_DIR --port PORT --origin http://localhost:PORT

API, by who may call it (auth.py says how each is recognised; every POST must carry a JSON
body, come from the page's origin when it names one, and from the reviewer with the session's
CSRF token):

the reviewer (a signed-in session; the reviewer is the session's, never the request's)
- GET  /api/session                  {signed_in, reviewer, csrf} (no session needed)
- POST /api/session                  {secret}: signs in (no session needed)
- POST /api/session/end              signs out
- GET  /api/tasks                    the desk tenant's tasks, newest first
- GET  /api/events                   Server-Sent Events: each change of the desk's tasks (the
                                     ledger's change feed; the cursor is the event id, so a
                                     reconnection with Last-Event-ID resumes after it) and each
                                     record the desk files about them (events.py)
- GET  /api/tasks/{id}               a task: frozen action, contract, how to present it,
                                     history, amendments, hand-offs, decisions, the model's words
- GET  /api/tasks/{id}/evidence      the task's evidence bundle (a download, canonical JSON),
                                     exported for the session's reviewer (the ledger records
                                     the export); anyone verifies it with /api/evidence-trust
- GET  /api/evidence-trust           what a verifier of the bundles trusts: the ledger's log
                                     verifier key and the desk's approval key set (public keys)
- POST /api/tasks/{id}/amend         {amends, args, reason}: a correction (ledger.amend)
- POST /api/tasks/{id}/decision      {decision_id, action_digest, decision, ttl_ms,
                                     acknowledged, reason, on_behalf_of}: the server signs an
                                     approval with its key; or {..., passkey_record}: the record
                                     of /draft with the reviewer's passkey assertion. An approval
                                     must acknowledge every value core notices (`notices`); a
                                     rejection needs a reason. Under a quorum the record names the
                                     role the desk says the counting identity holds, and with
                                     on_behalf_of the chain of a delegation the desk recorded
- POST /api/tasks/{id}/draft         {decision_id, action_digest, ttl_ms}: the exact record a
                                     passkey approval signs (its fingerprint is the challenge)
- POST /api/delegations             {delegate}: the session's reviewer delegates deciding the
                                     four-eyes refunds, within a scope and 8 hours, to another
                                     reviewer (the server signs the delegation for the delegator)
- GET  /api/delegations              the delegations the session's reviewer gave and holds
- POST /api/passkeys/challenge       a registration challenge (single use, this session's)
- POST /api/passkeys                 {registration, challenge}: enrols the reviewer's passkey
the agent (its bearer token; it can never decide, amend or enrol)
- POST /api/handoffs                 {task_id, action}: hands a decided call over
- POST /api/rationales               {task_id, text}: the model's own words on why it asks
the executors (their bearer token)
- GET  /api/handoffs/{task_id}       the latest hand-off of a task; with ?wait_ms=N (at most
                                     10000) waits up to N ms for one to arrive
- GET  /api/proofs/{approval_id}     the signed decision (as the server filed it; the ledger keeps
                                     the same, which a claim hands over)

Batches (the agent hands them over, the reviewer decides them): batches.py.

Every route that names a task answers 404 for a task of another tenant than the desk's.

With --webhook URL, the server also posts "approval needed" to URL for every desk task that
starts waiting for a decision, signed with RUN_DIR/webhook.secret (webhook.py).
"""

from __future__ import annotations

import argparse
import base64
import json
import secrets
import threading
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import urlsplit

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from actionseal import (ActionsealError, Ledger, SigningKey, approve, canonicalize, delegation_digest, fingerprint,
                        loads, notices, short_fingerprint, sign_delegation, verify_passkey, verify_registration)

import batches
from auth import (CHALLENGE_TTL_S, CHALLENGES_MAX, COOKIE, CSRF_HEADER, SESSION_TTL_S, Bounded, Credentials, Role,
                  Session, Sessions, token)
from refunds import CONTRACTS, PII, REVIEW, REVIEWERS, TENANT, roles_of
from refusals import Refused, refused
from events import Wakeups, stream
from store import Filed, Store
from verdicts import TTLS_MS, decision_request, rejection_reason
from webhook import Feed, Sender

HERE = Path(__file__).resolve().parent.parent
REPO = HERE.parent.parent
WAITING = ("awaiting_approval", "awaiting_reapproval")
MAX_BODY = 64 * 1024
MAX_RATIONALE = 2000
# How long a delegation given at the desk lasts: one absence, not a standing grant.
DELEGATION_MS = 8 * 3_600_000
# The tools a reviewer may delegate at the desk (those under a quorum), and the largest refund
# a delegate may approve: a delegation only narrows.
DELEGABLE = ("refund_large",)
DELEGATE_UP_TO_MINOR = 200_000
# How long the desk keeps a sensitive value of a refund that has not ended (issue 29).
RETAIN_PII_MS = 30 * 86_400_000
# The longest an executor's GET of a hand-off waits for one to arrive.
MAX_HANDOFF_WAIT_MS = 10_000


class Desk:
    def __init__(self, db: str, run_dir: Path, origin: str) -> None:
        self.db = db
        self.run_dir = run_dir
        self.origin = origin
        # The relying party of passkeys: the page's host (a domain, never an IP) and origin.
        self.webauthn = {"rp_id": urlsplit(origin).hostname, "origins": [origin]}
        self.credentials = Credentials.load(run_dir)
        self.sessions = Sessions()
        self.challenges = Bounded(CHALLENGES_MAX, CHALLENGE_TTL_S)
        filed = run_dir / "passkeys.json"
        self.passkeys: dict = json.loads(filed.read_text())["passkeys"] if filed.exists() else {}
        self.key = SigningKey(json.loads((run_dir / "server-key.jwk").read_text()))
        self.deciding = threading.Lock()  # one decision per decision_id, even from racing clicks
        self.store = Store(run_dir / "desk.db")
        # Every decision reaches the ledger with its proof, verified against the server's key
        # and the passkeys enrolled here (`decider`); opening it so makes proof required for
        # every handle on the ledger: the server's own for the rest, the agent's, and anyone's
        # with database access.
        self.decider = self.open_decider()
        # The log key signs the checkpoints evidence bundles are verified against (setup.py).
        self.log_verifier = (run_dir / "log.pub").read_text().strip()
        self.ledger = Ledger(db, log_key=(run_dir / "log.key").read_text().strip())
        # Issue 29: the desk tenant keeps a customer's e-mail while its refund may still run (at
        # most RETAIN_PII_MS, then a retention run shreds it) and shreds it as the refund ends.
        self.ledger.set_retention(TENANT, PII, keep_ms=RETAIN_PII_MS, at_finish="shred", actor="desk:server")
        self.wakeups = Wakeups()
        self.tenants: dict = {}  # task id -> whether it is the desk tenant's (a task never moves)

    def ours(self, task_id: str) -> bool:
        """Whether a task is the desk tenant's: what the event stream may name."""
        if task_id not in self.tenants:
            try:
                self.tenants[task_id] = self.ledger.task(task_id)["tenant"] == TENANT
            except ActionsealError:
                return False
        return self.tenants[task_id]

    def send_webhooks(self, url: str) -> Feed:
        """Starts the "approval needed" webhook's sender (webhook.py) on the change feed."""
        def log(event: str, **fields: object) -> None:
            print(f"WEBHOOK {json.dumps({'event': event, **fields})}", flush=True)
        sender = Sender(url, (self.run_dir / "webhook.secret").read_text().strip(), self.origin, log=log)
        feed = Feed(Ledger(self.db), sender, self.store, TENANT)
        feed.start()
        return feed

    def keys(self) -> dict:
        service = {self.key.keyid: {"key": self.key.public_jwk, "approvers": sorted(REVIEWERS)}}
        return {"service_keys": service, "passkeys": dict(self.passkeys), "webauthn": self.webauthn}

    def trust(self) -> dict:
        """What a verifier of this desk's evidence bundles trusts: the log's verifier key and the
        key set decisions are proven with (public keys only)."""
        return {"ledger_keys": [{"key": self.log_verifier}], "approval_keys": self.keys()}

    def open_decider(self) -> Ledger:
        return Ledger(self.db, proof={"required": True, "keys": self.keys()})

    # Deciding a task and deciding a batch are one path from here: the desk files the proven
    # decision under its decision_id, then the ledger records it (`submit`); the caller holds
    # `deciding`.

    def replayed(self, decision_id: str, subject: str, submit: Callable[[dict], dict]) -> Optional[dict]:
        """The ledger's answer to a decision filed here already (a double click, a replayed POST:
        the ledger is given the same proof and de-duplicates it too); None for a new one."""
        seen = self.store.rows("SELECT task_id, envelope FROM decisions WHERE decision_id=?", decision_id)
        if not seen:
            return None
        if seen[0][0] != subject:
            raise Refused("decision_conflict", 409)
        try:
            return submit(json.loads(seen[0][1]))
        except ActionsealError as e:
            raise refused(e, 409) from None

    def file(self, f: Filed, proven: dict, kind: str, submit: Callable[[dict], dict]) -> dict:
        """Files a proven decision and hands it to the ledger; nothing stays filed if the ledger
        refuses it."""
        self.store.run("INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?)", f.decision_id, f.subject,
                       json.dumps(proven), f.at, f.reviewer, json.dumps(f.acknowledged), f.reason)
        try:
            out = submit(proven)
        except ActionsealError as e:
            self.store.run("DELETE FROM decisions WHERE decision_id=?", f.decision_id)
            raise refused(e, 409) from None
        if f.verdict == "approved":
            # Where the executor fetches it before claiming (the claim then hands over the same
            # proof from the ledger). Under a quorum the round's members share its approval_id,
            # and the task keeps the record of the decision that met the quorum: the latest one
            # is filed.
            self.store.run("INSERT OR REPLACE INTO proofs VALUES (?, ?, ?, ?)", f.approval_id, f.subject, kind,
                           json.dumps(proven))
        return out


def summary(t: dict) -> dict:
    return {"id": t["id"], "state": t["state"], "tool": t["action"]["tool"], "args": t["action"]["args"],
            "job_id": t["job_id"], "action_digest": t["action_digest"],
            "short": short_fingerprint(t["action_digest"]), "amendments": t["amendments"],
            "approval_required": t["approval_required"], "updated_at": t["updated_at"]}


def record_of(proven: dict) -> dict:
    """The approval record a proven decision carries: a signed envelope's payload, or a
    passkey-approved record."""
    if "payloadType" in proven:
        return loads(base64.urlsafe_b64decode(proven["payload"] + "=" * (-len(proven["payload"]) % 4)))
    return proven


def quorum_of(tool: str) -> Optional[dict]:
    """The quorum of a tool's contract, if it has one."""
    approval = CONTRACTS[tool].document["approval"]
    return approval.get("quorum") if isinstance(approval, dict) else None


def role_for(t: dict, counting: str) -> Optional[str]:
    """The role a decision by ``counting`` is recorded in: one the desk says it holds among the
    contract's roles, a still missing one first. Never from the request."""
    quorum = quorum_of(t["action"]["tool"])
    held = [r["role"] for r in (quorum or {}).get("roles", []) if r["role"] in roles_of(counting)]
    missing = [r["role"] for r in ((t.get("quorum") or {}).get("missing_roles") or [])]
    return next((r for r in held if r in missing), held[0] if held else None)


def masked(action: dict, digest: str, at: int) -> dict:
    """A hand-off as the page may show it. The agent hands the call over in the clear (the
    executor presents it to its claim, which commits it again with the ledger's salts), so under
    a contract with sensitive values each is replaced by its class, and the clear action's
    fingerprint, which a guessed value could be hashed to, is left out (``digest`` null)."""
    places = CONTRACTS[action["tool"]].document.get("sensitive", {}) if action.get("tool") in CONTRACTS else {}
    if not places:
        return {"action": action, "digest": digest, "at": at}
    args = {k: {"sensitive": places[f"/args/{k}"]} if f"/args/{k}" in places else v
            for k, v in action.get("args", {}).items()}
    return {"action": {**action, "args": args}, "digest": None, "at": at}


def flagged(action: dict) -> list:
    """The pointers of the values a reviewer must acknowledge before approving: core's notices."""
    return sorted({n["pointer"] for n in notices(action)})


def build(desk: Desk) -> "Headers":
    ledger = desk.ledger

    # -- who is asking --------------------------------------------------------------------------

    async def read_json(request: Request) -> dict:
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media != "application/json":
            raise Refused("json_only", 415, message="state changes take a JSON body (Content-Type: application/json)")
        body = await request.body()
        if len(body) > MAX_BODY:
            raise Refused("body_too_large", 413)
        try:
            value = loads(body)  # actionseal's strict parser: one meaning only
        except ActionsealError as e:
            raise refused(e, 400) from None
        if not isinstance(value, dict):
            raise Refused("invalid_request", 400, message="the body must be a JSON object")
        return value

    def check_origin(request: Request, required: bool) -> None:
        origin = request.headers.get("origin")
        if origin == desk.origin or (origin is None and not required):
            return
        raise Refused("origin_refused", 403, message="this request does not come from the desk's page")

    def caller(request: Request, role: Role) -> Optional[Session]:
        if role is Role.REVIEWER:
            session = desk.sessions.get(request.cookies.get(COOKIE))
            if session is None:
                raise Refused("not_signed_in", 401, message="sign in as the reviewer first")
            return session
        if desk.credentials.bearer(request.headers.get("authorization")) is not role:
            raise Refused("forbidden", 403, message=f"only the {role.value} may call this")
        return None

    def endpoint(role: Optional[Role], handler: Callable, *, change: bool) -> Callable:
        """A route: the guards for its role, then the handler (in a thread: the ledger blocks)."""

        async def handle(request: Request) -> Response:
            try:
                body = None
                if change:
                    # A browser always names the origin of a POST; the agent and executors do not.
                    check_origin(request, required=role in (Role.REVIEWER, None))
                    body = await read_json(request)
                session = caller(request, role) if role is not None else None
                if change and role is Role.REVIEWER:
                    given = request.headers.get(CSRF_HEADER, "").encode()
                    if not secrets.compare_digest(given, session.csrf.encode()):
                        raise Refused("csrf_refused", 403, message="the request lacks this session's CSRF token")
                return await run_in_threadpool(handler, request, session, body)
            except Refused as r:
                return r.response()

        return handle

    def own_task(tid: object) -> dict:
        """The task, if it is the desk tenant's; any other is not found."""
        try:
            t = ledger.task(str(tid))
        except ActionsealError:
            raise Refused("task_not_found", 404) from None
        if t["tenant"] != TENANT:
            raise Refused("task_not_found", 404)
        return t

    # -- the reviewer's session -----------------------------------------------------------------

    def session_get(request: Request, _session: None, _body: None) -> JSONResponse:
        session = desk.sessions.get(request.cookies.get(COOKIE))
        if session is None:
            return JSONResponse({"signed_in": False})
        return JSONResponse({"signed_in": True, "reviewer": session.reviewer, "csrf": session.csrf})

    def sign_in(request: Request, _session: None, body: dict) -> JSONResponse:
        reviewer = desk.credentials.reviewer_secret(body.get("secret"))
        if reviewer is None:
            raise Refused("wrong_secret", 401, message="that is not a secret of this desk's reviewers")
        desk.sessions.close(request.cookies.get(COOKIE))
        sid, csrf = desk.sessions.open(reviewer)
        out = JSONResponse({"signed_in": True, "reviewer": reviewer, "roles": list(roles_of(reviewer)), "csrf": csrf})
        out.set_cookie(COOKIE, sid, max_age=SESSION_TTL_S, path="/", httponly=True, samesite="strict")
        return out

    def sign_out(request: Request, _session: Session, _body: dict) -> JSONResponse:
        desk.sessions.close(request.cookies.get(COOKIE))
        out = JSONResponse({"signed_out": True})
        out.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
        return out

    # -- tasks ----------------------------------------------------------------------------------

    def tasks(request: Request, session: Session, _body: None) -> JSONResponse:
        all_ = ledger.tasks(tenant=TENANT)
        all_.sort(key=lambda t: t["created_at"], reverse=True)
        # A batch's items are reviewed together, in the batch (batches.py).
        items = {i for (i,) in desk.store.rows("SELECT task_id FROM batch_items")}
        return JSONResponse({"reviewer": session.reviewer, "now": ledger.now(),
                             "tasks": [summary(t) for t in all_ if t["approval_required"] and t["id"] not in items]})

    def task(request: Request, session: Session, _body: None) -> JSONResponse:
        t = own_task(request.path_params["id"])
        tid = t["id"]
        h = ledger.history(tid)
        t = h["task"]
        rows = desk.store.rows("SELECT action, digest, at FROM handoffs WHERE task_id=? ORDER BY n", tid)
        handoffs = [masked(json.loads(a), d, at) for a, d, at in rows]
        rows = desk.store.rows("SELECT decision_id, envelope, at, reviewer, acknowledged, reason FROM decisions "
                               "WHERE task_id=? ORDER BY at", tid)
        decisions = [{"decision_id": i, "decision": record_of(json.loads(e))["decision"], "at": at, "reviewer": r,
                      "acknowledged": json.loads(a), "reason": reason} for i, e, at, r, a, reason in rows]
        said = desk.store.rows("SELECT text, at FROM rationales WHERE task_id=? ORDER BY n DESC LIMIT 1", tid)
        approval_id = (t["approval"] or {}).get("approval_id")
        kinds = desk.store.rows("SELECT kind FROM proofs WHERE approval_id=?", approval_id) if approval_id else []
        now = ledger.now()
        # Issue 29: the ledger shredded the task's sensitive values (an audited event); until
        # then the reviewer gets their disclosures, which the page checks against the frozen
        # commitments in WebAssembly before it shows a value.
        shredded = any(e["kind"] == "shredded" for e in h["events"])
        try:
            disclosures = [] if shredded else ledger.disclosures(tid)
        except ActionsealError as e:
            if e.code != "disclosures_shredded":
                raise
            # Shredded between the history's read and this one: the refund has just ended.
            shredded, disclosures = True, []
        # Whom the session's reviewer may decide for here: delegations this desk recorded.
        held = desk.store.rows("SELECT delegator, tools FROM delegations WHERE delegate=? AND not_before<=? "
                               "AND ?<not_after", session.reviewer, now, now)
        for_whom = sorted({d for d, tools in held if t["action"]["tool"] in json.loads(tools)})
        return JSONResponse({
            "reviewer": session.reviewer, "roles": list(roles_of(session.reviewer)), "on_behalf": for_whom,
            "now": now, "ttls_ms": TTLS_MS, "task": t,
            "proof": kinds[0][0] if kinds else None,
            "contract": CONTRACTS[t["action"]["tool"]].document, "review": REVIEW.get(t["action"]["tool"]),
            "events": h["events"], "amendments": ledger.amendments(tid), "handoffs": handoffs,
            "decisions": decisions, "rationale": {"text": said[0][0], "at": said[0][1]} if said else None,
            "shredded": shredded, "disclosures": disclosures,
        })

    def evidence(request: Request, session: Session, _body: None) -> Response:
        """The task's evidence bundle, exported for the session's reviewer, as a file to keep."""
        t = own_task(request.path_params["id"])
        try:
            bundle = ledger.evidence(t["id"], session.reviewer)
        except ActionsealError as e:
            raise refused(e, 409) from None
        return Response(canonicalize(bundle), media_type="application/json", headers={
            "content-disposition": f'attachment; filename="evidence-{t["id"]}.json"', "cache-control": "no-store"})

    def trust(request: Request, session: Session, _body: None) -> JSONResponse:
        return JSONResponse(desk.trust())

    def amend(request: Request, session: Session, body: dict) -> JSONResponse:
        t = own_task(request.path_params["id"])
        args, amends = body.get("args"), body.get("amends")
        if not isinstance(args, dict) or not isinstance(amends, str):
            raise Refused("invalid_request", 400, message="a correction is {amends, args, reason}")
        reason = body.get("reason")
        try:
            out = ledger.amend(t["id"], {**t["action"], "args": args}, CONTRACTS[t["action"]["tool"]], amends=amends,
                               reviewer=session.reviewer,
                               reason=reason if isinstance(reason, str) else "corrected by the reviewer")
        except ActionsealError as e:
            # Where in the action the reviewer edited (the ledger's path is in its request).
            path = e.path[len("/action"):] if e.path.startswith("/action/") else e.path
            raise Refused(e.code, 409, path=path, message=str(e)) from None
        return JSONResponse({"task": out["task"], "duplicate": out["duplicate"]})

    def passkey_keys() -> dict:
        return {"passkeys": dict(desk.passkeys), "webauthn": desk.webauthn}

    def authority(t: dict, reviewer: str, on_behalf_of: object) -> dict:
        """What a decision record says about who decides (issue 25): under a quorum, the role the
        desk says the counting identity holds; deciding for someone else, the chain of a
        delegation this desk recorded from them to ``reviewer`` (the request only names whom)."""
        tool = t["action"]["tool"]
        if on_behalf_of is None:
            role = role_for(t, reviewer) if quorum_of(tool) else None
            return {} if role is None else {"role": role}
        if not isinstance(on_behalf_of, str) or quorum_of(tool) is None:
            raise Refused("invalid_request", 400, message="on_behalf_of names a reviewer, for a task under a quorum")
        now = ledger.now()
        rows = desk.store.rows("SELECT link, tools FROM delegations WHERE delegator=? AND delegate=? AND not_before<=? "
                               "AND ?<not_after ORDER BY not_after DESC", on_behalf_of, reviewer, now, now)
        link = next((json.loads(k) for k, tools in rows if tool in json.loads(tools)), None)
        if link is None:
            raise Refused("no_delegation", 403, message=f"{on_behalf_of} has not delegated this to you at this desk")
        role = role_for(t, on_behalf_of)
        return {**({} if role is None else {"role": role}), "on_behalf_of": on_behalf_of, "delegation": [link]}

    def draft_record(t: dict, reviewer: str, decision_id: str, ttl: int, on_behalf_of: object) -> dict:
        """The approval record the ledger will hold for this decision, with the server's time."""
        now = ledger.now()
        extra = {"proposed_digest": t["proposed_digest"]} if t["proposed_digest"] != t["action_digest"] else {}
        return approve(t["action"], approval_id=t["approval_id"], decision_id=decision_id, decision="approved",
                       approver=reviewer, decided_at=now, expires_at=now + ttl, **extra,
                       **authority(t, reviewer, on_behalf_of))

    def draft(request: Request, session: Session, body: dict) -> JSONResponse:
        t = own_task(request.path_params["id"])
        decision_id, digest, _verdict, ttl = decision_request(body, "action_digest")
        if digest != t["action_digest"]:
            raise Refused("digest_mismatch", 409, task_digest=t["action_digest"])
        if t["state"] not in WAITING:
            raise Refused("task_not_awaiting_decision", 409, state=t["state"])
        return JSONResponse({"record": draft_record(t, session.reviewer, decision_id, ttl, body.get("on_behalf_of"))})

    def decide(request: Request, session: Session, body: dict) -> JSONResponse:
        tid = own_task(request.path_params["id"])["id"]
        decision_id, digest, verdict, ttl = decision_request(body, "action_digest")
        acknowledged, reason = body.get("acknowledged", []), body.get("reason")
        if not isinstance(acknowledged, list) or not all(isinstance(p, str) for p in acknowledged):
            raise Refused("invalid_request", 400, message="acknowledged lists the pointers of the flagged values")
        reason = rejection_reason(verdict, reason)
        signed = body.get("passkey_record")
        verified = None
        if signed is not None:
            # The reviewer's passkey signed the record's fingerprint: verify it before recording.
            try:
                verified = verify_passkey(signed, passkey_keys(), ledger.now())["approval"]
            except ActionsealError as e:
                raise refused(e, 403) from None
            if (verified["decision_id"], verified["action_digest"], verified["approver"], verified["decision"],
                    verified.get("on_behalf_of")) != \
                    (decision_id, digest, session.reviewer, verdict, body.get("on_behalf_of")):
                raise Refused("passkey_record_mismatch", 409)
        with desk.deciding:
            again = desk.replayed(decision_id, tid, desk.decider.decide)
            if again is not None:
                return JSONResponse({"task": again["task"], "duplicate": True})
            t = own_task(tid)
            if digest != t["action_digest"]:
                raise Refused("digest_mismatch", 409, task_digest=t["action_digest"])
            if t["state"] not in WAITING:
                raise Refused("task_not_awaiting_decision", 409, state=t["state"])
            must = flagged(t["action"])
            if verdict == "approved" and sorted(set(acknowledged)) != must:
                raise Refused("acknowledgement_required", 409, flagged=must,
                              message="approving this action needs an acknowledgement of each flagged value")
            now = ledger.now()
            who = authority(t, session.reviewer, body.get("on_behalf_of"))
            if verified is not None:
                # The passkey signed what the desk drafted: the same role and chain as now.
                if verified["approval_id"] != t["approval_id"] or \
                        any(verified.get(k) != who.get(k) for k in ("role", "on_behalf_of", "delegation")):
                    raise Refused("passkey_record_mismatch", 409)
                record, proven, kind = verified, signed, "passkey"
            else:
                # The record the ledger builds for this round, signed by the server: the ledger
                # records a decision only with its proof, and keeps that proof for the executor.
                extra = {"proposed_digest": t["proposed_digest"]} if t["proposed_digest"] != t["action_digest"] else {}
                record = approve(t["action"], approval_id=t["approval_id"], decision_id=decision_id,
                                 decision=verdict, approver=session.reviewer, decided_at=now,
                                 expires_at=now + ttl, **extra, **who)
                proven, kind = desk.key.sign(record), "service"
            out = desk.file(Filed(decision_id, tid, record["approval_id"], verdict, session.reviewer,
                                  must if verdict == "approved" else [], reason, now), proven, kind,
                            desk.decider.decide)
        return JSONResponse({"task": out["task"], "duplicate": out["duplicate"]})

    # -- delegations ----------------------------------------------------------------------------

    def delegate(request: Request, session: Session, body: dict) -> JSONResponse:
        """The session's reviewer delegates the four-eyes refunds to another reviewer while away:
        a delegation document within the desk's scope, signed by the server for the delegator
        (its key may sign for every reviewer of the desk)."""
        to = body.get("delegate")
        if to not in REVIEWERS or to == session.reviewer:
            raise Refused("invalid_request", 400, message="a delegation names another reviewer of this desk")
        now = ledger.now()
        document = {"delegation_id": f"dlg-{token()[:16]}", "delegator": session.reviewer, "delegate": to,
                    "tenant": TENANT, "tools": list(DELEGABLE),
                    "when": [{"pointer": "/args/amount_minor", "op": "lte", "value": DELEGATE_UP_TO_MINOR}],
                    "not_before": now, "not_after": now + DELEGATION_MS}
        try:
            link = sign_delegation(document, desk.key)
        except ActionsealError as e:
            raise refused(e, 400) from None
        desk.store.run("INSERT INTO delegations VALUES (?, ?, ?, ?, ?, ?, ?)", document["delegation_id"],
                       session.reviewer, to, json.dumps(document["tools"]), now, now + DELEGATION_MS, json.dumps(link))
        return JSONResponse({"delegation": document, "digest": delegation_digest(document)})

    def delegations(request: Request, session: Session, _body: None) -> JSONResponse:
        now = ledger.now()
        rows = desk.store.rows("SELECT delegation_id, delegator, delegate, tools, not_after FROM delegations "
                               "WHERE (delegator=? OR delegate=?) AND ?<not_after ORDER BY not_before",
                               session.reviewer, session.reviewer, now)
        return JSONResponse({"delegations": [{"delegation_id": i, "delegator": fr, "delegate": to,
                                              "tools": json.loads(tools), "not_after": until}
                                             for i, fr, to, tools, until in rows]})

    # -- passkeys -------------------------------------------------------------------------------

    def challenge(request: Request, session: Session, _body: dict) -> JSONResponse:
        c = token()
        desk.challenges.put(c, session)  # this session's, single use, for CHALLENGE_TTL_S
        return JSONResponse({"challenge": c, "webauthn": desk.webauthn, "approver": session.reviewer})

    def enrol(request: Request, session: Session, body: dict) -> JSONResponse:
        challenge_ = body.get("challenge")
        if desk.challenges.take(challenge_) is not session:
            raise Refused("unknown_challenge", 400, message="the challenge is not one this session holds")
        try:
            cred = verify_registration(body.get("registration"), challenge_, desk.webauthn)
        except ActionsealError as e:
            raise refused(e, 400) from None
        with desk.deciding:
            desk.passkeys[cred["credential_id"]] = {"public_key": cred["public_key"], "approver": session.reviewer}
            # The ledger verifies decisions against the keys it was opened with: open it again.
            old, desk.decider = desk.decider, desk.open_decider()
            old.close()
        # Filed where the executor reads its passkeys (an administrator's job in a real deployment).
        (desk.run_dir / "passkeys.json").write_text(json.dumps(passkey_keys(), indent=2) + "\n")
        return JSONResponse({**cred, "approver": session.reviewer})

    # -- the agent and the executors ------------------------------------------------------------

    def handoff(request: Request, _session: None, body: dict) -> JSONResponse:
        t, action = own_task(body.get("task_id")), body.get("action")
        ids = ("tenant", "job_id", "request_id")
        if not isinstance(action, dict) or any(action.get(k) != t[k] for k in ids):
            raise Refused("not_this_task", 409)
        digest = fingerprint(action)
        desk.store.run("INSERT INTO handoffs (task_id, action, digest, at) VALUES (?, ?, ?, ?)",
                       t["id"], json.dumps(action), digest, ledger.now())
        desk.wakeups.announce(t["id"], "handoff")
        return JSONResponse({"task_id": t["id"], "fingerprint": digest})

    def rationale(request: Request, _session: None, body: dict) -> JSONResponse:
        t, text = own_task(body.get("task_id")), body.get("text")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_RATIONALE:
            raise Refused("invalid_request", 400, message=f"a rationale is a text of at most {MAX_RATIONALE} characters")
        if t["state"] not in WAITING:
            raise Refused("task_not_awaiting_decision", 409, state=t["state"])
        desk.store.run("INSERT INTO rationales (task_id, text, at) VALUES (?, ?, ?)", t["id"], text, ledger.now())
        desk.wakeups.announce(t["id"], "rationale")
        return JSONResponse({"task_id": t["id"]})

    def latest_handoff(request: Request, _session: None, _body: None) -> JSONResponse:
        t = own_task(request.path_params["task_id"])
        try:
            wait_ms = min(max(int(request.query_params.get("wait_ms", "0")), 0), MAX_HANDOFF_WAIT_MS)
        except ValueError:
            raise Refused("invalid_request", 400, message="wait_ms is an integer of ms") from None
        rows = desk.wakeups.wait_for(
            lambda: desk.store.rows("SELECT action, digest FROM handoffs WHERE task_id=? ORDER BY n DESC LIMIT 1",
                                    t["id"]), wait_ms / 1000)
        if not rows:
            raise Refused("no_handoff", 404)
        return JSONResponse({"action": json.loads(rows[0][0]), "fingerprint": rows[0][1]})

    def proof(request: Request, _session: None, _body: None) -> JSONResponse:
        rows = desk.store.rows("SELECT task_id, kind, proof FROM proofs WHERE approval_id=?",
                               request.path_params["approval_id"])
        if not rows:
            raise Refused("proof_not_found", 404)
        own_task(rows[0][0])
        return JSONResponse({"kind": rows[0][1], "proof": json.loads(rows[0][2])})

    def events(request: Request, session: Session, _body: None) -> StreamingResponse:
        last = request.headers.get("last-event-id", "")
        sid = request.cookies.get(COOKIE)
        alive = lambda: desk.sessions.get(sid) is session  # noqa: E731 (signing out ends the stream)
        return StreamingResponse(stream(ledger, desk.wakeups, desk.ours, alive, last), media_type="text/event-stream",
                                 headers={"cache-control": "no-store"})

    async def index(request: Request) -> FileResponse:
        return FileResponse(HERE / "page" / "index.html")

    reviewer, agent, executor = Role.REVIEWER, Role.AGENT, Role.EXECUTOR
    app = Starlette(routes=[
        Route("/", index),
        Route("/api/session", endpoint(None, session_get, change=False)),
        Route("/api/session", endpoint(None, sign_in, change=True), methods=["POST"]),
        Route("/api/session/end", endpoint(reviewer, sign_out, change=True), methods=["POST"]),
        Route("/api/tasks", endpoint(reviewer, tasks, change=False)),
        Route("/api/events", endpoint(reviewer, events, change=False)),
        Route("/api/tasks/{id}", endpoint(reviewer, task, change=False)),
        Route("/api/tasks/{id}/evidence", endpoint(reviewer, evidence, change=False)),
        Route("/api/evidence-trust", endpoint(reviewer, trust, change=False)),
        Route("/api/tasks/{id}/amend", endpoint(reviewer, amend, change=True), methods=["POST"]),
        Route("/api/tasks/{id}/decision", endpoint(reviewer, decide, change=True), methods=["POST"]),
        Route("/api/tasks/{id}/draft", endpoint(reviewer, draft, change=True), methods=["POST"]),
        Route("/api/delegations", endpoint(reviewer, delegations, change=False)),
        Route("/api/delegations", endpoint(reviewer, delegate, change=True), methods=["POST"]),
        Route("/api/passkeys/challenge", endpoint(reviewer, challenge, change=True), methods=["POST"]),
        Route("/api/passkeys", endpoint(reviewer, enrol, change=True), methods=["POST"]),
        Route("/api/handoffs", endpoint(agent, handoff, change=True), methods=["POST"]),
        Route("/api/rationales", endpoint(agent, rationale, change=True), methods=["POST"]),
        Route("/api/handoffs/{task_id}", endpoint(executor, latest_handoff, change=False)),
        Route("/api/proofs/{approval_id}", endpoint(executor, proof, change=False)),
        *batches.routes(desk, endpoint),
        Mount("/page", StaticFiles(directory=HERE / "page")),
        Mount("/wasm", StaticFiles(directory=REPO / "bindings-wasm" / "pkg" / "web")),
        # The confirmation page's display helpers, imported as they are (read-only).
        Mount("/confirm-page", StaticFiles(directory=REPO / "examples" / "confirm-page")),
    ])

    return Headers(app)


class Headers:
    """Adds to every response: no other site may frame the page (a hidden Approve button under a
    decoy), no type sniffing, no referrer."""

    EXTRA = [(b"content-security-policy", b"frame-ancestors 'none'"), (b"x-content-type-options", b"nosniff"),
             (b"referrer-policy", b"no-referrer")]

    def __init__(self, app: Starlette) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.EXTRA]}
            await send(message)

        await self.app(scope, receive, sending if scope["type"] == "http" else send)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--dir", required=True, type=Path)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--origin", required=True, help="the page's origin, e.g. http://localhost:PORT")
    p.add_argument("--webhook", help="where to post \"approval needed\" (signed with RUN_DIR/webhook.secret)")
    a = p.parse_args()
    desk = Desk(a.db, a.dir, a.origin)
    if a.webhook:
        desk.send_webhooks(a.webhook)
    # Open event streams end with the server: they wait on the feed, not on a request.
    uvicorn.run(build(desk), host="127.0.0.1", port=a.port, log_level="warning", timeout_graceful_shutdown=1)


if __name__ == "__main__":
    main()
