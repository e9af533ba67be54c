"""What the ledger tests share: fresh databases on both engines (PostgreSQL from
``scripts/pg run``, which sets ACTIONSEAL_TEST_PG), another connection to PostgreSQL through
``psql`` (to hold locks and to look at them), and the runner of the ledger scenarios of
conformance/vectors/ledger/scenarios/ (the same data the Rust ledger and the Node binding
run, step for step)."""

import copy
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import urllib.parse

import pytest

import actionseal
from conftest import CONFORMANCE

LEDGER = CONFORMANCE / "vectors" / "ledger"
COMMON = json.loads((LEDGER / "common.json").read_text("utf-8"))
SCENARIOS = sorted((LEDGER / "scenarios").glob("*.json"))
_names = itertools.count()


def pg_base():
    """ACTIONSEAL_TEST_PG, or None when set to ``skip``; unset is an error, as in Rust."""
    url = os.environ.get("ACTIONSEAL_TEST_PG")
    if url is None:
        pytest.fail(
            "ACTIONSEAL_TEST_PG is not set: run these tests through bindings-python/test.sh (which "
            "starts PostgreSQL with scripts/pg) or set ACTIONSEAL_TEST_PG=skip to skip PostgreSQL"
        )
    return None if url == "skip" else url


def engines():
    """The engines every ledger test runs on (parametrize ids)."""
    return ["sqlite", "postgres"]


def psql(url, sql, check=True):
    """Runs SQL on its own connection; returns what it prints (unaligned, tuples only)."""
    exe = shutil.which("psql")
    assert exe, "psql not found: scripts/pg puts PostgreSQL's binaries on PATH"
    out = subprocess.run(
        [exe, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
        capture_output=True, text=True, check=check,
    )
    return out.stdout.strip()


def with_database(url, name):
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


class Fresh:
    """Fresh, empty ledger URLs on one engine; PostgreSQL databases are dropped at the end."""

    def __init__(self, engine, tmp_path):
        self.engine = engine
        self.tmp_path = tmp_path
        self.databases = []
        if engine == "postgres":
            self.base = pg_base()
            if self.base is None:
                pytest.skip("ACTIONSEAL_TEST_PG=skip: PostgreSQL tests skipped on request")

    def url(self):
        n = next(_names)
        if self.engine == "sqlite":
            return f"sqlite:{self.tmp_path / f'ledger-{n}.db'}"
        name = f"py_{os.getpid()}_{n}"
        psql(self.base, f"CREATE DATABASE {name}")
        self.databases.append(name)
        return with_database(self.base, name)

    def close(self):
        for name in self.databases:
            psql(self.base, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", check=False)


@pytest.fixture(params=engines())
def fresh(request, tmp_path):
    f = Fresh(request.param, tmp_path)
    yield f
    f.close()


# --- the scenarios ---------------------------------------------------------------------------


def contract_of(name):
    return COMMON["contracts"][name]


def facts_for(contract):
    return {**COMMON["facts"], "contract": contract}


def approval_id(task_id, round_):
    """The approval id of a task's ``round_``-th request for a decision, derived as core does
    (checked against conformance/vectors/ledger/ids.json)."""
    return "apr_" + actionseal.fingerprint(["actionseal/approval/v1", task_id, round_])[7:39]


class Scenario:
    """Runs the steps of one scenario on a ledger; each step's result is a dict as the Rust
    runner makes it (``{"error": code}`` for a refusal)."""

    def __init__(self, doc, url):
        self.doc = doc
        self.clock = actionseal.ManualClock(COMMON["start"])
        self.ledger = actionseal.Ledger(url, clock=self.clock)
        self.contract = contract_of(doc.get("contract", "refund"))
        self.facts = facts_for(self.contract)
        self.tasks, self.actions, self.sent = [], [], {}

    def build(self, job, args):
        ids = {k: COMMON["ids"][k] for k in ("tenant", "subject", "request_id", "policy_version")}
        return actionseal.action(self.contract, args, job_id=job, **ids)

    def step(self, step):
        """Runs one step; raises ActionsealError when the ledger refuses it."""
        l, now = self.ledger, None
        if "at" in step:
            self.clock.set(COMMON["start"] + step["at"])
        now = l.now()
        ix = step.get("task")
        task_id = step.get("task_id") or (self.tasks[ix]["id"] if ix is not None else None)
        op = step["op"]
        if op == "propose":
            act = self.build(step["job"], step["args"])
            t = l.propose(act, self.contract, proposer=COMMON["proposer"])
            if all(x["id"] != t["id"] for x in self.tasks):
                self.tasks.append(t)
                self.actions.append(act)
            return {"state": t["state"]}
        if op == "amend":
            # The whole envelope with the step's arguments, then its edits (pointer, value).
            act = copy.deepcopy(self.build(self.tasks[ix]["job_id"], step["args"]))
            for pointer, value in step.get("edit", []):
                keys = [k.replace("~1", "/").replace("~0", "~") for k in pointer.split("/")[1:]]
                target = act
                for k in keys[:-1]:
                    target = target[k]
                target[keys[-1]] = value
            amends = (self.tasks[ix] if step.get("amends") == "proposal" else l.task(task_id))["action_digest"]
            r = l.amend(task_id, act, self.contract, amends=amends,
                        reviewer=step.get("reviewer", "user:carol"), reason="a reviewer's correction")
            return {"state": r["task"]["state"], "duplicate": r["duplicate"], "amendments": r["task"]["amendments"]}
        if op == "decide":
            if "replay" in step:
                d = self.sent[step["replay"]]
            else:
                t = l.task(task_id)
                apr = approval_id(t["id"], step["approval_round"]) if "approval_round" in step else t["approval_id"]
                digest = self.tasks[step["digest_of"]]["action_digest"] if "digest_of" in step else t["action_digest"]
                d = {
                    "approval_id": apr, "decision_id": step["decision_id"], "job_id": t["job_id"],
                    "request_id": t["request_id"], "action_digest": digest, "decision": step["decision"],
                    "approver": step.get("approver", COMMON["approver"]),
                    "decided_at": COMMON["start"] + step["decided_at"] if "decided_at" in step else now,
                    "expires_at": now + step["ttl"],
                    **step.get("through", {}),
                }
                self.sent.setdefault(step["decision_id"], d)
            r = l.decide(d)
            return {"state": r["task"]["state"], "duplicate": r["duplicate"]}
        if op == "claim":
            presented = self.build(self.tasks[ix]["job_id"], step["args"]) if "args" in step else self.actions[ix]
            out = l.claim(
                task_id, presented, self.facts, executor=step["executor"],
                lease_ms=step.get("lease_ms", COMMON["lease_ms"]), budget=step.get("budget"),
            )
            got = {"result": out["result"], "state": out["task"]["state"]}
            if out["claimed"]:
                got["fence"] = out["claim"]["fence"]
            else:
                got["drift"] = out["verdict"]["drift"]
                got["reasons"] = out["verdict"]["reasons"]
            return got
        if op == "complete":
            return {"state": l.complete(task_id, step["fence"], step["outcome"], executor="worker")["state"]}
        if op == "reconcile":
            return {"state": l.reconcile(task_id, step["observed"], actor="reconciler")["state"]}
        if op == "budget":
            return {"limit": l.set_budget(step["name"], step["limit"])["limit_minor"]}
        if op == "revoke":
            apr = step.get("approval_id") or l.task(task_id)["approval_id"]
            return {"duplicate": l.revoke(apr, actor="admin")["duplicate"]}
        if op == "expire_leases":
            return {"expired": len(l.expire_leases())}
        if op == "task":
            return {"state": l.task(task_id)["state"]}
        raise AssertionError(f"unknown op {op}")

    def run(self):
        """Runs every step; returns (problems, each task's event kinds, the export's digest)."""
        problems = []
        for i, step in enumerate(self.doc["steps"]):
            try:
                got = self.step(step)
            except actionseal.ActionsealError as e:
                got = {"error": e.code}
            want = step.get("expect", {})
            for k, v in want.items():
                if got.get(k) != v:
                    problems.append(f"step {i}: {k} is {got.get(k)!r}, expected {v!r}")
            if "error" in got and "error" not in want:
                problems.append(f"step {i}: unexpected {got}")
        kinds = {
            str(i): [e["kind"] for e in self.ledger.history(t["id"])["events"]]
            for i, t in enumerate(self.tasks)
        }
        report = self.ledger.audit_verify()
        assert report["valid"], report
        export = self.ledger.audit_export()
        return problems, kinds, "sha256:" + hashlib.sha256(export.encode()).hexdigest()

    def raise_at(self, n):
        """Runs the steps before step ``n`` (whatever they give), then step ``n``, whose
        refusal propagates."""
        for step in self.doc["steps"][:n]:
            try:
                self.step(step)
            except actionseal.ActionsealError:
                pass
        self.step(self.doc["steps"][n])


def scenarios():
    return [(p.stem, json.loads(p.read_text("utf-8"))) for p in SCENARIOS]


# --- every ledger code, raised through the binding (test_errors.py) ---------------------------


def _tampered(sql, then):
    """A SQLite ledger with one task, edited with ``sql`` behind its back, then ``then(ledger,
    url, task)``."""
    import sqlite3
    import tempfile

    path = os.path.join(tempfile.mkdtemp(prefix="actionseal-ledger-"), "ledger.db")
    ledger = actionseal.Ledger(f"sqlite:{path}")
    contract = contract_of("refund")
    ids = {k: COMMON["ids"][k] for k in ("tenant", "subject", "request_id", "policy_version")}
    args = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}
    task = ledger.propose(actionseal.action(contract, args, job_id="job-1", **ids), contract, proposer="agent")
    with sqlite3.connect(path) as db:
        # The triggers that keep the events append-only go first, as an attacker's would.
        db.executescript("DROP TRIGGER ledger_events_no_update; DROP TRIGGER ledger_events_no_delete;" + sql)
    ledger.close()
    then(f"sqlite:{path}", task)


def _amend_under_another_contract():
    s = Scenario({"steps": []}, "sqlite::memory:")
    args = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}
    t = s.ledger.propose(s.build("job-1", args), s.contract, proposer=COMMON["proposer"])
    edited = s.build("job-1", {**args, "amount_minor": 2000})
    newer = {**s.contract, "version": s.contract["version"] + "-next"}
    s.ledger.amend(t["id"], edited, newer, amends=t["action_digest"], reviewer="user:carol", reason="r")


def _b64u(b):
    import base64

    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


PASSKEY_RP, PASSKEY_ORIGIN = "example.com", "https://example.com"


def _passkey():
    """The test's EdDSA passkey: its private key and its credential id."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(bytes([2]) * 32), _b64u(bytes([5]) * 16)


def passkey_keys(approver):
    """A key set that trusts the test's passkey for ``approver``."""
    key, credential = _passkey()
    cose = bytes([0xA4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20]) + key.public_key().public_bytes_raw()
    return {"passkeys": {credential: {"public_key": _b64u(cose), "approver": approver}},
            "webauthn": {"rp_id": PASSKEY_RP, "origins": [PASSKEY_ORIGIN]}}


def passkey_approved(record, count):
    """``record`` approved with the test's passkey, its signature counter at ``count``."""
    key, credential = _passkey()
    client_data = json.dumps({"type": "webauthn.get", "challenge": actionseal.passkey_challenge(record),
                              "origin": PASSKEY_ORIGIN}).encode()
    auth_data = hashlib.sha256(PASSKEY_RP.encode()).digest() + bytes([0x05]) + count.to_bytes(4, "big")
    signature = key.sign(auth_data + hashlib.sha256(client_data).digest())
    return dict(record, passkey={
        "credential_id": credential, "authenticator_data": _b64u(auth_data),
        "client_data_json": _b64u(client_data), "signature": _b64u(signature)})


def _passkey_counter_reused():
    """Two decisions approved with one passkey whose counter did not move: a clone."""
    clock = actionseal.ManualClock(COMMON["start"])
    contract = contract_of("refund")
    ids = {k: COMMON["ids"][k] for k in ("tenant", "subject", "request_id", "policy_version")}
    args = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}
    proof = {"required": True, "keys": passkey_keys(COMMON["approver"])}
    ledger = actionseal.Ledger("sqlite::memory:", clock=clock, proof=proof)
    for job in ("job-1", "job-2"):
        task = ledger.propose(actionseal.action(contract, args, job_id=job, **ids), contract, proposer="agent")
        now = clock.now
        record = actionseal.approve(task["action"], approval_id=task["approval_id"], decision_id=f"d-{job}",
                                    decision="approved", approver=COMMON["approver"], decided_at=now,
                                    expires_at=now + 3_600_000)
        ledger.decide(passkey_approved(record, 7))


def _proof_policy_weakened():
    import tempfile

    url = "sqlite:" + os.path.join(tempfile.mkdtemp(prefix="actionseal-ledger-"), "ledger.db")
    actionseal.Ledger(url, proof={"required": True, "keys": {}}).close()
    actionseal.Ledger(url, proof={"required": False, "keys": {}})


def _amended_past_the_range(url, task):
    ledger = actionseal.Ledger(url)
    edited = json.loads(json.dumps(task["action"]))
    edited["args"]["amount_minor"] = 2000
    ledger.amend(task["id"], edited, contract_of("refund"), amends=task["action_digest"],
                 reviewer="user:carol", reason="r")


def _not_sqlite():
    import tempfile

    path = os.path.join(tempfile.mkdtemp(prefix="actionseal-ledger-"), "junk.db")
    with open(path, "wb") as f:
        f.write(b"x" * 8192)
    actionseal.Ledger(f"sqlite:{path}")


def _unprotected():
    """A PostgreSQL ledger whose append-only triggers its owner disabled, opened by a role
    that does not own its tables (and so cannot restore them)."""
    base = pg_base()
    name = f"py_{os.getpid()}_{next(_names)}"
    psql(base, f"CREATE DATABASE {name}")
    url = with_database(base, name)
    try:
        actionseal.Ledger(url).close()
        role = f"py_app_{os.getpid()}"
        psql(url, f"DO $$ BEGIN CREATE ROLE {role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; "
                  f"END $$; GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {role}; "
                  f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}; "
                  "ALTER TABLE ledger_events DISABLE TRIGGER USER")
        parts = urllib.parse.urlsplit(url)
        actionseal.Ledger(urllib.parse.urlunsplit(parts._replace(netloc=f"{role}@{parts.netloc.split('@')[-1]}")))
    finally:
        psql(base, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", check=False)


def error_sources():
    """(code, label, thunk) for every way the vectors and the bad-input cases raise a ledger
    code: each scenario step that expects an error (run on a fresh in-memory ledger up to that
    step), each URL of open.json, and databases edited behind the ledger's back."""
    out = []
    for name, doc in scenarios():
        for n, step in enumerate(doc["steps"]):
            code = step.get("expect", {}).get("error")
            if code:
                out.append((code, f"ledger/scenarios/{name} step {n}",
                            lambda doc=doc, n=n: Scenario(doc, "sqlite::memory:").raise_at(n)))
    for case in json.loads((LEDGER / "open.json").read_text("utf-8"))["cases"]:
        out.append((case["error"], f"ledger/open.json {case['url']!r}", lambda u=case["url"]: actionseal.Ledger(u)))
    out.append(("amend_contract_changed", "an amendment under a contract the task was not proposed under",
                _amend_under_another_contract))
    out.append(("not_a_ledger", "a file that is not SQLite", _not_sqlite))
    out.append(("ledger_schema_too_new", "a schema from the future",
                lambda: _tampered("UPDATE ledger_schema SET version = 99", lambda url, t: actionseal.Ledger(url))))
    out.append(("ledger_storage", "a stored action that does not parse",
                lambda: _tampered("UPDATE ledger_tasks SET action = '{'", lambda url, t: actionseal.Ledger(url).task(t["id"]))))
    out.append(("ledger_value_out_of_range", "an amendment count at the end of the range",
                lambda: _tampered("UPDATE ledger_tasks SET amendments = 9223372036854775807", _amended_past_the_range)))
    out.append(("proof_policy_weakened", "a handle that does not require the proof its ledger does",
                _proof_policy_weakened))
    out.append(("sign_count_not_increasing", "a passkey whose counter did not move", _passkey_counter_reused))
    out.append(("audit_chain_broken", "an event that is not an event",
                lambda: _tampered("UPDATE ledger_events SET body = '{}'", lambda url, t: actionseal.Ledger(url).history(t["id"]))))
    out.append(("ledger_schema_invalid", "a schema version no actionseal wrote",
                lambda: _tampered("UPDATE ledger_schema SET version = -1", lambda url, t: actionseal.Ledger(url))))
    out.append(("invalid_audit_heads", "a heads file of another version",
                lambda: actionseal.verify_audit("", exported={"version": 2, "at": 0, "heads": []})))
    if pg_base() is not None:
        out.append(("ledger_unprotected", "unprotected events, opened by a role that does not own them",
                    _unprotected))
    out.append(("batch_not_found", "a batch no one proposed",
                lambda: actionseal.Ledger("sqlite::memory:").batch("batch_" + "0" * 32)))
    out.append(("batch_item", "a plain claim of a batch's item", lambda: _batch_item_claimed("per_item", "claim")))
    out.append(("batch_all_or_nothing", "one item of an all-or-nothing batch claimed alone",
                lambda: _batch_item_claimed("all_or_nothing", "claim_item")))
    out.append(("disclosures_shredded", "a claim of a task whose sensitive value was redacted", _shredded_claimed))
    return out


def _shredded_claimed():
    """A task under a contract that marks its reason sensitive, redacted, then claimed."""
    contract = {**contract_of("refund"), "sensitive": {"/args/reason": "pii"}}
    ids = {k: COMMON["ids"][k] for k in ("tenant", "subject", "policy_version")}
    args = {"order_id": "order-1", "amount_minor": 100, "currency": "USD", "reason": "a customer's note"}
    action = actionseal.action(contract, args, job_id="shred-1", request_id="req-1", **ids)
    ledger = actionseal.Ledger("sqlite::memory:")
    t = ledger.propose(action, contract, proposer=COMMON["proposer"])
    shredded = ledger.redact(t["id"], actor="dpo")
    assert shredded["places"] == [{"pointer": "/args/reason", "class": "pii"}]
    return ledger.claim(t["id"], action, facts_for(contract), executor="w", lease_ms=1000)


def _batch_item_claimed(semantics, method):
    """The first item of a decided two-item batch with ``semantics``, claimed with ``method``."""
    contract = {**contract_of("refund"), "batch": {"max_items": 2}}
    ids = {k: COMMON["ids"][k] for k in ("tenant", "subject", "policy_version")}
    actions = [actionseal.action(contract, {"order_id": f"order-{i}", "amount_minor": 100, "currency": "USD"},
                                 job_id="batch-1", request_id=f"req-{i}", **ids) for i in range(2)]
    ledger = actionseal.Ledger("sqlite::memory:")
    b = ledger.propose_batch(actions, contract, semantics=semantics, proposer=COMMON["proposer"])
    now = ledger.now()
    ledger.decide_batch({"approval_id": b["approval_id"], "decision_id": "d1", "batch_id": b["id"],
                         "batch_digest": b["digest"], "decision": "approved", "approver": COMMON["approver"],
                         "decided_at": now, "expires_at": now + 3_600_000})
    return getattr(ledger, method)(b["items"][0]["task_id"], actions[0], facts_for(contract), executor="w",
                                   lease_ms=1000)
