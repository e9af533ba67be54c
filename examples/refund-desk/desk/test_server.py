"""The approval server refuses what it must (issue 23, items 2 and 14-16), through Starlette's
TestClient on the ledger named by DESK_TEST_DB (SQLite or PostgreSQL; `run --headless` runs
this on both). Each test also does the allowed thing, so that a refusal for the wrong reason
(a sign-in that silently failed) fails it.

    DESK_TEST_DB=sqlite:/tmp/x.db python -m pytest -q examples/refund-desk/desk/test_server.py
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Optional

import pytest
from starlette.testclient import TestClient

import actionseal
import server
import setup
from refunds import CONTRACTS, TENANT, TRUSTED

HERE = Path(__file__).resolve().parent
ORIGIN = "http://localhost:8999"
HOUR = 3_600_000


@pytest.fixture
def db(tmp_path: Path) -> str:
    return os.environ.get("DESK_TEST_DB") or f"sqlite:{tmp_path / 'ledger.db'}"


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory as setup.py writes it (its ledger URL is not used: `db` is)."""
    run = tmp_path_factory.mktemp("configured") / "run"
    subprocess.run([sys.executable, str(HERE / "setup.py"), str(run), "--db", "sqlite:unused", "--server", ORIGIN,
                    "--payment", "http://127.0.0.1:9"], check=True, stdout=subprocess.DEVNULL)
    return run


@pytest.fixture
def run(tmp_path: Path, configured: Path) -> Path:
    """A fresh copy per test: the server's own store (desk.db) starts empty."""
    return Path(shutil.copytree(configured, tmp_path / "run"))


@pytest.fixture
def desk(run: Path, db: str):
    d = server.Desk(db, run, ORIGIN)
    yield d
    d.ledger.close()
    d.decider.close()


@pytest.fixture
def client(desk) -> TestClient:
    return TestClient(server.build(desk), base_url=ORIGIN)


def secret(run: Path, name: str) -> str:
    return (run / name).read_text().strip()


def sign_in(client: TestClient, run: Path, who: Optional[str] = None) -> dict:
    """The headers of a signed-in page (user:bob's, or ``who``'s): its origin and the session's
    CSRF token."""
    given = secret(run, "reviewer.secret") if who is None else json.loads(secret(run, "reviewers.json"))[who]
    r = client.post("/api/session", json={"secret": given}, headers={"origin": ORIGIN})
    return {"origin": ORIGIN, "x-csrf-token": r.json().get("csrf", "")} if r.status_code == 200 else {"origin": ORIGIN}


def bearer(run: Path, name: str) -> dict:
    return {"authorization": f"Bearer {secret(run, name)}"}


def propose(desk, *, tenant: str = TENANT, order_id: str = "order-17", amount: int = 90_000,
            tool: str = "refund_create", proposer: str = "agent:refunds") -> dict:
    contract = CONTRACTS[tool]
    action = actionseal.action(contract, {"order_id": order_id, "amount_minor": amount, "currency": "USD"},
                               tenant=tenant, subject=TRUSTED.subject, job_id=f"job-{uuid.uuid4().hex[:12]}",
                               request_id="call_refund", policy_version=TRUSTED.policy_version)
    return desk.ledger.propose(action, contract, proposer=proposer)


def decision(t: dict, **extra: object) -> dict:
    return {"decision_id": str(uuid.uuid4()), "action_digest": t["action_digest"], "decision": "approved",
            "ttl_ms": HOUR, **extra}


def signed(run: Path) -> int:
    """How many decisions the server has signed (its own store)."""
    db = sqlite3.connect(run / "desk.db")
    try:
        return db.execute("SELECT count(*) FROM proofs").fetchone()[0]
    finally:
        db.close()


def state(desk, t: dict) -> str:
    return desk.ledger.task(t["id"])["state"]


def test_a_cross_origin_text_plain_post_is_refused_and_nothing_is_signed(client, desk, run):
    t = propose(desk)
    body = json.dumps(decision(t))
    # What a hostile page can send without a preflight: text/plain, from its own origin.
    for headers in ({"content-type": "text/plain", "origin": "http://evil.example"},
                    {"content-type": "text/plain"},
                    {"content-type": "application/json", "origin": "http://evil.example"}):
        r = client.post(f"/api/tasks/{t['id']}/decision", content=body, headers=headers)
        assert r.status_code in (401, 403, 415), (headers, r.status_code, r.text)
    # Even with the reviewer's session (a browser would not send the cookie cross-site).
    page = sign_in(client, run)
    for headers in ({**page, "content-type": "text/plain"}, {**page, "origin": "http://evil.example"}):
        r = client.post(f"/api/tasks/{t['id']}/decision", content=body,
                        headers={"content-type": "application/json", **headers})
        assert r.status_code in (403, 415), (headers, r.status_code, r.text)
    assert signed(run) == 0
    assert state(desk, t) == "awaiting_approval"
    # The page itself may.
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t), headers=page)
    assert r.status_code == 200, r.text
    assert signed(run) == 1


def test_the_agents_credential_can_never_decide_amend_or_enrol(client, desk, run):
    t = propose(desk)
    for name in ("agent.token", "executor.token"):
        for path, body in ((f"/api/tasks/{t['id']}/decision", decision(t)),
                           (f"/api/tasks/{t['id']}/draft", decision(t)),
                           (f"/api/tasks/{t['id']}/amend", {"amends": t["action_digest"],
                                                            "args": {**t["action"]["args"], "amount_minor": 10}}),
                           ("/api/passkeys/challenge", {}),
                           ("/api/passkeys", {"challenge": "x", "registration": {}})):
            r = client.post(path, json=body, headers=bearer(run, name))
            assert r.status_code in (401, 403), (name, path, r.status_code, r.text)
    assert signed(run) == 0
    assert desk.ledger.task(t["id"])["amendments"] == 0
    assert state(desk, t) == "awaiting_approval"
    # What the agent may do: hand a call over.
    r = client.post("/api/handoffs", json={"task_id": t["id"], "action": t["action"]}, headers=bearer(run, "agent.token"))
    assert r.status_code == 200, r.text
    # ... and the executors may not.
    r = client.post("/api/handoffs", json={"task_id": t["id"], "action": t["action"]},
                    headers=bearer(run, "executor.token"))
    assert r.status_code == 403


def test_another_tenants_task_is_refused_on_every_route(client, desk, run):
    mine, theirs = propose(desk), propose(desk, tenant="tenant-b")
    page = sign_in(client, run)
    agent, executor = bearer(run, "agent.token"), bearer(run, "executor.token")

    def routes(t: dict) -> list:
        now = lambda: desk.ledger.task(t["id"])  # noqa: E731 (the task as it is at each call)
        calls = [
            lambda: client.get(f"/api/tasks/{t['id']}"),
            lambda: client.post(f"/api/tasks/{t['id']}/draft", json=decision(now()), headers=page),
            lambda: client.post(f"/api/tasks/{t['id']}/amend", headers=page, json={
                "amends": now()["action_digest"], "args": {**t["action"]["args"], "amount_minor": 2000}}),
            lambda: client.post("/api/rationales", json={"task_id": t["id"], "text": "because"}, headers=agent),
            lambda: client.post(f"/api/tasks/{t['id']}/decision", json=decision(now()), headers=page),
            lambda: client.post("/api/handoffs", json={"task_id": t["id"], "action": t["action"]}, headers=agent),
            lambda: client.get(f"/api/handoffs/{t['id']}", headers=executor),
            lambda: client.get(f"/api/tasks/{t['id']}/evidence"),
        ]
        return [call() for call in calls]

    refused = routes(theirs)
    assert [r.status_code for r in refused] == [404] * len(refused), [r.text for r in refused]
    assert all(r.json()["error"] == "task_not_found" for r in refused)
    assert signed(run) == 0
    t = desk.ledger.task(theirs["id"])
    assert (t["state"], t["amendments"]) == ("awaiting_approval", 0)
    assert "evidence_exported" not in [e["kind"] for e in desk.ledger.history(theirs["id"])["events"]]
    assert theirs["id"] not in [x["id"] for x in client.get("/api/tasks").json()["tasks"]]
    # The same routes on the desk's own task.
    assert [r.status_code for r in routes(mine)] == [200] * 8
    approval_id = desk.ledger.task(mine["id"])["approval"]["approval_id"]
    assert client.get(f"/api/proofs/{approval_id}", headers=executor).status_code == 200
    # A proof filed for another tenant's task is not handed out either.
    now = desk.ledger.now()
    record = actionseal.approve(theirs["action"], approval_id=theirs["approval_id"], decision_id="forged",
                                decision="approved", approver="user:bob", decided_at=now, expires_at=now + HOUR)
    desk.decider.decide(desk.key.sign(record))
    db = sqlite3.connect(run / "desk.db")
    db.execute("INSERT INTO proofs VALUES (?, ?, 'service', '{}')", (theirs["approval_id"], theirs["id"]))
    db.commit()
    db.close()
    assert client.get(f"/api/proofs/{theirs['approval_id']}", headers=executor).status_code == 404


def test_enrolment_needs_a_session(client, desk, run):
    for path, body in (("/api/passkeys/challenge", {}), ("/api/passkeys", {"challenge": "x", "registration": {}})):
        r = client.post(path, json=body, headers={"origin": ORIGIN})
        assert r.status_code == 401, (path, r.status_code, r.text)
    assert len(desk.challenges) == 0
    page = sign_in(client, run)
    r = client.post("/api/passkeys/challenge", json={}, headers=page)
    assert r.status_code == 200, r.text
    # A challenge is its session's: another session cannot use it.
    other = TestClient(server.build(desk), base_url=ORIGIN)
    r2 = other.post("/api/passkeys", json={"challenge": r.json()["challenge"], "registration": {}},
                    headers=sign_in(other, run))
    assert (r2.status_code, r2.json()["error"]) == (400, "unknown_challenge")


def test_a_missing_or_wrong_csrf_token_is_refused(client, desk, run):
    t = propose(desk)
    page = sign_in(client, run)
    for headers in ({"origin": ORIGIN}, {"origin": ORIGIN, "x-csrf-token": "wrong"}):
        for path, body in ((f"/api/tasks/{t['id']}/decision", decision(t)),
                           (f"/api/tasks/{t['id']}/amend", {"amends": t["action_digest"],
                                                            "args": {**t["action"]["args"], "amount_minor": 2000}}),
                           ("/api/passkeys/challenge", {})):
            r = client.post(path, json=body, headers=headers)
            assert r.status_code == 403, (headers, path, r.status_code, r.text)
    assert signed(run) == 0
    assert desk.ledger.task(t["id"])["amendments"] == 0
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t), headers=page)
    assert r.status_code == 200, r.text


def test_the_session_cookie_is_httponly_and_samesite_strict(client, run):
    r = client.post("/api/session", json={"secret": secret(run, "reviewer.secret")}, headers={"origin": ORIGIN})
    assert r.status_code == 200, r.text
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert client.post("/api/session", json={"secret": "guess"}, headers={"origin": ORIGIN}).status_code == 401


def test_challenge_storage_stays_bounded(client, desk, run):
    page = sign_in(client, run)
    for _ in range(100):
        assert client.post("/api/passkeys/challenge", json={}, headers=page).status_code == 200
    assert len(desk.challenges) < 100
    from auth import CHALLENGE_TTL_S, CHALLENGES_MAX

    assert len(desk.challenges) == CHALLENGES_MAX
    # They expire too.
    last = client.post("/api/passkeys/challenge", json={}, headers=page).json()["challenge"]
    later = time.monotonic() + CHALLENGE_TTL_S + 1
    desk.challenges.clock = lambda: later
    r = client.post("/api/passkeys", json={"challenge": last, "registration": {}}, headers=page)
    assert (r.status_code, r.json()["error"]) == (400, "unknown_challenge")
    assert len(desk.challenges) == 0


@pytest.mark.parametrize("order_id", ["order-17\u200b", "\u043erder-17"])
def test_approving_a_flagged_action_needs_an_acknowledgement(client, desk, run, order_id):
    t = propose(desk, order_id=order_id)
    page = sign_in(client, run)
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t), headers=page)
    assert (r.status_code, r.json()["error"], r.json().get("flagged")) == (409, "acknowledgement_required",
                                                                           ["/args/order_id"])
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t, acknowledged=["/args/currency"]), headers=page)
    assert r.status_code == 409
    assert signed(run) == 0
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t, acknowledged=["/args/order_id"]), headers=page)
    assert r.status_code == 200, r.text
    shown = client.get(f"/api/tasks/{t['id']}").json()["decisions"]
    assert [(d["decision"], d["acknowledged"]) for d in shown] == [("approved", ["/args/order_id"])]


def test_a_rejection_needs_a_reason_which_is_kept(client, desk, run):
    t = propose(desk)
    page = sign_in(client, run)
    for reason in (None, "", "   "):
        body = decision(t, decision="rejected", **({} if reason is None else {"reason": reason}))
        r = client.post(f"/api/tasks/{t['id']}/decision", json=body, headers=page)
        assert (r.status_code, r.json()["error"]) == (400, "reason_required")
    r = client.post(f"/api/tasks/{t['id']}/decision", headers=page,
                    json=decision(t, decision="rejected", reason="the customer already got a replacement"))
    assert r.status_code == 200, r.text
    assert state(desk, t) == "rejected"
    assert signed(run) == 0
    shown = client.get(f"/api/tasks/{t['id']}").json()["decisions"]
    assert [(d["decision"], d["reason"]) for d in shown] == [("rejected", "the customer already got a replacement")]


def test_a_correction_to_zero_or_to_nothing_is_refused_with_its_code_path_and_message(client, desk, run):
    assert CONTRACTS["refund_create"].document["args"]["properties"]["amount_minor"]["minimum"] == 1
    t = propose(desk)
    page = sign_in(client, run)
    for amount, code in ((0, "out_of_range"), ("", "type_mismatch"), (None, "type_mismatch")):
        r = client.post(f"/api/tasks/{t['id']}/amend", headers=page,
                        json={"amends": t["action_digest"], "args": {**t["action"]["args"], "amount_minor": amount}})
        assert r.status_code == 409, r.text
        assert (r.json()["error"], r.json()["path"]) == (code, "/args/amount_minor")
        assert r.json()["message"]
    assert desk.ledger.task(t["id"])["amendments"] == 0
    r = client.post(f"/api/tasks/{t['id']}/amend", headers=page,
                    json={"amends": t["action_digest"], "args": {**t["action"]["args"], "amount_minor": 2000}})
    assert r.status_code == 200, r.text


# -- issue 25: several reviewers, roles and delegation ------------------------------------------


def test_each_reviewer_signs_in_with_their_own_secret_and_is_that_reviewer(client, run):
    for who in ("user:bob", "user:erin", "user:dave"):
        given = json.loads(secret(run, "reviewers.json"))[who]
        r = client.post("/api/session", json={"secret": given}, headers={"origin": ORIGIN})
        assert (r.status_code, r.json()["reviewer"]) == (200, who)
    # A name in the request is never who signs in.
    r = client.post("/api/session", json={"secret": "wrong", "reviewer": "user:erin"}, headers={"origin": ORIGIN})
    assert (r.status_code, r.json()["error"]) == (401, "wrong_secret")


def test_a_delegation_is_the_session_reviewers_to_another_reviewer_and_the_agent_cannot_give_one(client, run):
    page = sign_in(client, run, "user:carol")
    for to in ("user:carol", "user:mallory", None):
        r = client.post("/api/delegations", json={"delegate": to}, headers=page)
        assert (r.status_code, r.json()["error"]) == (400, "invalid_request"), to
    r = client.post("/api/delegations", json={"delegate": "user:dave", "delegator": "user:erin"}, headers=page)
    assert r.status_code == 200, r.text
    assert (r.json()["delegation"]["delegator"], r.json()["delegation"]["delegate"]) == ("user:carol", "user:dave")
    assert r.json()["digest"].startswith("sha256:")
    r = client.post("/api/delegations", json={"delegate": "user:dave"}, headers=bearer(run, "agent.token"))
    assert r.status_code in (401, 403)
    page = sign_in(client, run, "user:dave")
    given = client.get("/api/delegations").json()["delegations"]
    assert [(g["delegator"], g["delegate"]) for g in given] == [("user:carol", "user:dave")]


def test_deciding_for_someone_needs_their_delegation_recorded_here(client, desk, run):
    t = propose(desk, tool="refund_large", proposer="user:frank")
    page = sign_in(client, run, "user:dave")
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t, on_behalf_of="user:carol"), headers=page)
    assert (r.status_code, r.json()["error"]) == (403, "no_delegation")
    assert signed(run) == 0 and state(desk, t) == "awaiting_approval"
    # Not for a task without a quorum either.
    plain = propose(desk)
    r = client.post(f"/api/tasks/{plain['id']}/decision", json=decision(plain, on_behalf_of="user:carol"), headers=page)
    assert (r.status_code, r.json()["error"]) == (400, "invalid_request")
    # Once carol delegated, dave decides for her: the record counts under carol, in her role.
    client.post("/api/delegations", json={"delegate": "user:dave"}, headers=sign_in(client, run, "user:carol"))
    page = sign_in(client, run, "user:dave")
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t, on_behalf_of="user:carol"), headers=page)
    assert r.status_code == 200, r.text
    member = r.json()["task"]["quorum"]["counted"][0]
    assert (member["approver"], member["delegate"], member["role"]) == ("user:carol", "user:dave", "finance")


def test_the_role_is_the_desks_fact_and_the_requester_cannot_approve(client, desk, run):
    t = propose(desk, tool="refund_large", proposer="user:frank")
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t), headers=sign_in(client, run, "user:frank"))
    assert (r.status_code, r.json()["error"]) == (409, "approver_not_separate")
    # A role in the body is not read: bob decides in the role the desk says he holds.
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t, role="risk"), headers=sign_in(client, run))
    assert r.status_code == 200, r.text
    q = r.json()["task"]["quorum"]
    assert ([(c["approver"], c["role"]) for c in q["counted"]], q["missing"]) == ([("user:bob", "finance")], 1)
    assert state(desk, t) == "awaiting_approval"
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t), headers=sign_in(client, run))
    assert (r.status_code, r.json()["error"]) == (409, "approver_already_decided")
    r = client.post(f"/api/tasks/{t['id']}/decision", json=decision(t), headers=sign_in(client, run, "user:erin"))
    assert r.status_code == 200, r.text
    assert state(desk, t) == "approved"



def test_the_log_key_strings_are_gos_note_keys():
    # golang.org/x/mod/sumdb/note's example key pair: the seed and public key give its strings.
    seed = bytes.fromhex("810a1402d5146c8d84f2443330f54080ebf98ee17d9c74f6252fc5d5c7283173")
    public = base64.b64decode("ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")[1:]
    assert setup.note_keys("PeterNeumann", seed, public) == (
        "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")


def paid_refund(client, desk, run, amend_to: Optional[int] = None) -> dict:
    """A refund of 2500 (corrected to ``amend_to`` first) approved at the desk by user:bob,
    then claimed with its proof, paid and completed as the executor does; the task."""
    t = propose(desk, amount=2500)
    page = sign_in(client, run)
    if amend_to is not None:
        r = client.post(f"/api/tasks/{t['id']}/amend", headers=page, json={
            "amends": t["action_digest"], "args": {**t["action"]["args"], "amount_minor": amend_to}})
        assert r.status_code == 200, r.text
        t = desk.ledger.task(t["id"])
    assert client.post(f"/api/tasks/{t['id']}/decision", json=decision(t), headers=page).status_code == 200
    facts = {"tenant": TENANT, "policy_version": TRUSTED.policy_version,
             "contract": CONTRACTS["refund_create"].document,
             "approver_authorized": {"approver": "user:bob", "authorized": True},
             "subject_authorized": {"subject": TRUSTED.subject, "authorized": True}}
    out = desk.decider.claim(t["id"], t["action"], facts, executor="executor-1", lease_ms=60_000, proof="required")
    desk.decider.complete(t["id"], out["claim"]["fence"], "succeeded", executor="executor-1")
    return t


def test_a_corrected_refunds_evidence_verifies(client, desk, run):
    # The bundle carries the record the server signed, with the proposal's digest in it.
    t = paid_refund(client, desk, run, amend_to=2000)
    bundle = actionseal.loads(client.get(f"/api/tasks/{t['id']}/evidence").content)
    timeline = actionseal.verify_evidence(bundle, client.get("/api/evidence-trust").json())
    assert (timeline["state"], [s["kind"] for s in timeline["steps"]]) == \
        ("succeeded", ["proposed", "amended", "decided", "claimed", "completed"]), timeline["steps"]


def test_a_paid_refunds_evidence_downloads_and_verifies_with_the_desks_trust(client, desk, run):
    t = paid_refund(client, desk, run)

    client.cookies.clear()
    assert client.get(f"/api/tasks/{t['id']}/evidence").status_code == 401
    assert client.get("/api/evidence-trust").status_code == 401
    sign_in(client, run)
    r = client.get(f"/api/tasks/{t['id']}/evidence")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert r.headers["content-disposition"] == f'attachment; filename="evidence-{t["id"]}.json"'
    bundle = actionseal.loads(r.content)
    assert r.text == actionseal.canonicalize(bundle)
    trust = client.get("/api/evidence-trust").json()
    text = json.dumps(trust)
    assert '"d"' not in text and "PRIVATE" not in text  # public keys only
    assert trust["ledger_keys"] == [{"key": secret(run, "log.pub")}]

    timeline = actionseal.verify_evidence(bundle, trust)
    assert (timeline["task"], timeline["state"], timeline["exported_by"]) == (t["id"], "succeeded", "user:bob")
    steps = [(s["kind"], s["actor"], s["outcome"]) for s in timeline["steps"]]
    assert steps == [("proposed", "agent:refunds", None), ("decided", "user:bob", "approved"),
                     ("claimed", "executor-1", "permit"), ("completed", "executor-1", "succeeded")], steps
    assert timeline["steps"][1]["signer"] == {"keyid": desk.key.keyid, "kind": "service"}
    # Trust that lacks the desk's log key refuses the bundle.
    other = {**trust, "ledger_keys": [{"key": setup.log_keys()[1]}]}
    with pytest.raises(actionseal.ActionsealError) as e:
        actionseal.verify_evidence(bundle, other)
    assert e.value.code.startswith("checkpoint_"), e.value.code


def test_a_sensitive_email_reaches_the_reviewer_only_as_disclosures_to_check(client, desk, run):
    # Issue 29: the ledger freezes refund_receipt's e-mail as a commitment; the agent hands the
    # call over in the clear. The page is sent the ledger's disclosures, to check against the
    # commitments before it shows the address, but never the address in the clear nor the
    # clear action's fingerprint (a guessed address could be hashed to it).
    email = "carol.receipt@example.com"
    contract = CONTRACTS["refund_receipt"]
    clear = actionseal.action(contract, {"order_id": "order-17", "amount_minor": 2500, "currency": "USD",
                                         "customer_email": email},
                              tenant=TENANT, subject=TRUSTED.subject, job_id=f"job-{uuid.uuid4().hex[:12]}",
                              request_id="call_refund", policy_version=TRUSTED.policy_version)
    t = desk.ledger.propose(clear, contract, proposer="agent:refunds")
    assert set(t["action"]["args"]["customer_email"]) == {"_sd"}
    r = client.post("/api/handoffs", json={"task_id": t["id"], "action": clear}, headers=bearer(run, "agent.token"))
    assert r.status_code == 200, r.text
    sign_in(client, run)
    r = client.get(f"/api/tasks/{t['id']}")
    assert r.status_code == 200 and email not in r.text
    shown = r.json()
    opened = actionseal.reveal_action(contract, shown["task"]["action"], shown["disclosures"], "every")
    assert opened["args"]["customer_email"] == email
    assert shown["handoffs"][0]["action"]["args"]["customer_email"] == {"sensitive": "pii"}
    assert shown["handoffs"][0]["digest"] is None
    assert shown["contract"]["sensitive"] == {"/args/customer_email": "pii"}
    assert shown["shredded"] is False
    # Redacted (the desk tenant's policy would at the refund's end): the page is told so.
    desk.ledger.redact(t["id"], actor="user:bob")
    after = client.get(f"/api/tasks/{t['id']}").json()
    assert after["shredded"] is True and after["disclosures"] == []
    # And the executor still gets the call as handed over, to present to its claim.
    r = client.get(f"/api/handoffs/{t['id']}", headers=bearer(run, "executor.token"))
    assert r.status_code == 200 and r.json()["action"]["args"]["customer_email"] == email
