"""The ledger through the Python binding, on SQLite and on PostgreSQL: the shared scenarios
(same steps, same codes, same audit bytes as Rust and Node), derived identities, audit
verification of exported chains, every method, a claim race between threads, threads waiting
inside PostgreSQL at once (the GIL is released), and bad input."""

import hashlib
import json
import sqlite3
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import actionseal
from conftest import error_of
from ledger_support import (
    COMMON,
    LEDGER,
    Fresh,
    Scenario,
    approval_id,
    contract_of,
    facts_for,
    fresh,  # noqa: F401 (a fixture)
    psql,
    scenarios,
)

REFUND = contract_of("refund")
IDS = {k: COMMON["ids"][k] for k in ("tenant", "subject", "policy_version")}


def refund(job, amount=2500, request="req-1", **ids):
    args = {"order_id": "order-17", "amount_minor": amount, "currency": "USD"}
    return actionseal.action(REFUND, args, job_id=job, request_id=request, **{**IDS, **ids})


def decision(task, decision_id, now, ttl=3_600_000, verdict="approved"):
    return {
        "approval_id": task["approval_id"], "decision_id": decision_id, "job_id": task["job_id"],
        "request_id": task["request_id"], "action_digest": task["action_digest"], "decision": verdict,
        "approver": COMMON["approver"], "decided_at": now, "expires_at": now + ttl,
    }


@pytest.mark.parametrize("name,doc", scenarios(), ids=[n for n, _ in scenarios()])
def test_scenarios(fresh, name, doc):
    problems, kinds, digest = Scenario(doc, fresh.url()).run()
    assert problems == []
    assert kinds == doc["audit"]
    assert digest == doc["audit_digest"], "the exported audit is not the bytes Rust writes"


def test_derived_identities():
    ids = json.loads((LEDGER / "ids.json").read_text("utf-8"))["cases"]
    ledger = actionseal.Ledger("sqlite::memory:")
    for c in ids:
        want = c["expect"]
        identity = {k: c[k] for k in ("tenant", "job_id", "request_id")}
        if " " in c["job_id"]:
            # Derivable in core, but no action can carry it: the ledger refuses it up front.
            err = error_of(actionseal.Ledger.task_id, **identity)
            assert (err.code, err.path) == ("invalid_request", "/job_id")
            continue
        assert actionseal.Ledger.task_id(**identity) == want["task_id"]
        act = refund(c["job_id"], request=c["request_id"], tenant=c["tenant"])
        task = ledger.propose(act, REFUND, proposer="agent")
        assert (task["id"], task["idempotency_key"]) == (want["task_id"], want["idempotency_key"])
        assert task["approval_id"] == want["approval_ids"][0]
        assert [approval_id(task["id"], n) for n in (1, 2)] == want["approval_ids"]
    err = error_of(actionseal.Ledger.task_id, tenant="t", job_id="j")
    assert (err.code, err.path) == ("invalid_request", "/request_id")


@pytest.mark.parametrize("path", sorted((LEDGER / "audit").glob("*.json")), ids=lambda p: p.stem)
def test_exported_audits_verify_anywhere(path):
    v = json.loads(path.read_text("utf-8"))
    text = v["input"] if "input" in v else bytes.fromhex(v["input_hex"])
    report = actionseal.verify_audit(text, v["heads"], exported=v.get("exported"))
    for k, want in v["expect"].items():
        assert report[k] == want, k
    assert report["valid"] == path.name.startswith("y_")
    err = error_of(actionseal.verify_audit, "", [{"chain": 0, "seq": 0, "digest": "x"}])
    assert (err.code, err.path) == ("invalid_request", "/heads/0/seq")


def run_sql(url, sql):
    """Runs SQL on the ledger's database directly, as its owner could."""
    if url.startswith("sqlite:"):
        with sqlite3.connect(url[len("sqlite:"):]) as c:
            c.executescript(sql)
    else:
        psql(url, sql)


def test_audit_replays_rows_and_checks_exported_heads(fresh):
    url = fresh.url()
    with actionseal.Ledger(url) as ledger:
        act = refund("job-1")
        task = ledger.propose(act, REFUND, proposer="agent")
        ledger.decide(decision(task, "dec-1", ledger.now()))
        out = ledger.claim(task["id"], act, facts_for(REFUND), executor="w1", lease_ms=60_000)
        ledger.complete(task["id"], out["claim"]["fence"], "succeeded", executor="w1")
        heads = ledger.audit_heads()
        assert heads["version"] == 1 and [h["seq"] for h in heads["heads"]] == [4]
        assert ledger.audit_verify(exported=heads)["valid"]
        # An export cut short of the heads kept outside the database holds on its own.
        export = ledger.audit_export()
        cut = "".join(export.splitlines(keepends=True)[:-1])
        assert actionseal.verify_audit(cut)["valid"]
        broken = actionseal.verify_audit(cut, exported=heads)["broken"]
        assert (broken["problem"], broken["seq"]) == ("truncated", 4)
        # A row rewound by hand is not what its events leave it at.
        run_sql(url, f"UPDATE ledger_tasks SET state = 'approved' WHERE id = '{task['id']}'")
        broken = ledger.audit_verify()["broken"]
        assert (broken["problem"], broken["task"], broken["field"]) == ("row_mismatch", task["id"], "state")
        assert error_of(ledger.audit_heads).code == "audit_chain_broken"
        err = error_of(ledger.audit_verify, exported={**heads, "version": 2})
        assert (err.code, err.path) == ("invalid_audit_heads", "/exported/version")
        err = error_of(actionseal.verify_audit, export, exported={"at": 0, "heads": []})
        assert (err.code, err.path) == ("invalid_audit_heads", "/exported/version")


def test_every_method(fresh):
    clock = actionseal.ManualClock(COMMON["start"])
    with actionseal.Ledger(fresh.url(), clock=clock) as ledger:
        assert ledger.backend == fresh.engine
        assert ledger.now() == clock.now == COMMON["start"]
        contract = actionseal.Contract(REFUND)
        act = refund("job-1")
        task = ledger.propose(act, contract, proposer="agent")
        assert ledger.propose(act, REFUND, proposer="agent")["id"] == task["id"]
        assert task["state"] == "awaiting_approval" and task["action"] == act
        decided = ledger.decide(decision(task, "dec-1", ledger.now()))
        assert (decided["duplicate"], decided["decision"]["decision_id"]) == (False, "dec-1")
        assert ledger.set_budget("refunds", 100) == {
            "name": "refunds", "limit_minor": 100, "spent_minor": 0, "reserved_minor": 0}
        # Drift is a result, not an error: the approved action comes back to resume with.
        drifted = refund("job-1", amount=2600)
        out = ledger.claim(task["id"], drifted, facts_for(REFUND), executor="w1", lease_ms=60_000)
        assert (out["result"], out["claimed"], out["approved_action"]) == ("tool_args_drift", False, act)
        assert out["verdict"]["drift"] == ["/args/amount_minor"] and out["claim"] is None
        out = ledger.claim(task["id"], act, facts_for(REFUND), executor="w1", lease_ms=60_000, budget="refunds")
        claim = out["claim"]
        assert (out["result"], claim["fence"], claim["action"]) == ("claimed", 1, act)
        assert claim["idempotency_key"] == task["idempotency_key"]
        assert ledger.budget("refunds")["reserved_minor"] == REFUND["cost_minor"]
        assert [t["id"] for t in ledger.tasks(state="claimed")] == [task["id"]]
        assert ledger.tasks(state="claimed", tenant="someone-else") == []
        assert [t["id"] for t in ledger.tasks()] == [task["id"]]
        # An outcome in doubt is held, then reconciled.
        clock.advance(1000)
        assert ledger.complete(task["id"], 1, "unknown", executor="w1")["state"] == "unknown"
        done = ledger.reconcile(task["id"], "succeeded", actor="ops", result={"refund": "re_1"})
        assert (done["state"], done["result"]) == ("succeeded", {"refund": "re_1"})
        assert ledger.budget("refunds")["spent_minor"] == REFUND["cost_minor"]
        history = ledger.history(task["id"])
        assert history["task"] == done
        assert [e["kind"] for e in history["events"]] == [
            "proposed", "propose_duplicate", "decided", "tool_args_drift", "claimed", "completed", "reconciled"]
        revoked = ledger.revoke(task["approval_id"], actor="admin")
        assert (revoked["task_id"], revoked["duplicate"]) == (task["id"], False)
        assert ledger.expire_leases() == []
        export = ledger.audit_export()
        report = ledger.audit_verify()
        assert report["valid"] and report["events"] == len(export.splitlines())
        assert actionseal.verify_audit(export.encode(), report["heads"]) == report
    err = error_of(ledger.task, task["id"])
    assert err.code == "ledger_unavailable"


def test_proven_decisions(fresh):
    """A ledger that requires proof records a decision signed over the record it builds,
    names the signer in the result and the audit, refuses a bare envelope and forgeries with
    their codes (recording nothing), and takes a repeat as a duplicate."""
    key, stranger = actionseal.SigningKey.generate(), actionseal.SigningKey.generate()
    keys = {"service_keys": {key.keyid: {"key": key.public_jwk}}}
    clock = actionseal.ManualClock(COMMON["start"])
    now = COMMON["start"]
    with actionseal.Ledger(fresh.url(), clock=clock, proof={"required": True, "keys": keys}) as ledger:
        task = ledger.propose(refund("job-1"), REFUND, proposer="agent")
        bare = decision(task, "dec-1", now)
        record = actionseal.approve(
            task["action"], approval_id=task["approval_id"], decision_id="dec-1",
            decision="approved", approver=bare["approver"], decided_at=now, expires_at=bare["expires_at"])
        envelope = key.sign(record)
        assert error_of(ledger.decide, bare).code == "missing_proof"
        assert error_of(ledger.decide, stranger.sign(record)).code == "unknown_key"
        other = ledger.propose(refund("job-2"), REFUND, proposer="agent")
        elsewhere = actionseal.approve(
            other["action"], approval_id=task["approval_id"], decision_id="dec-1",
            decision="approved", approver=bare["approver"], decided_at=now, expires_at=bare["expires_at"])
        err = error_of(ledger.decide, key.sign(elsewhere))
        assert (err.code, err.path) == ("decision_mismatch", "/job_id")
        p = envelope["payload"]
        flipped = dict(envelope, payload=p[:10] + ("A" if p[10] != "A" else "B") + p[11:])
        assert error_of(ledger.decide, flipped).code == "invalid_signature"
        assert ledger.task(task["id"])["state"] == "awaiting_approval"

        decided = ledger.decide(envelope)
        assert (decided["duplicate"], decided["signer"]) == (False, {"kind": "service", "keyid": key.keyid})
        assert decided["task"]["approval"] == record
        assert decided["decision"] == bare
        assert ledger.decide(envelope)["duplicate"] is True
        events = ledger.history(task["id"])["events"]
        detail = next(e["detail"] for e in events if e["kind"] == "decided")
        # The audit keeps the signature without the payload (the record, with the argument
        # values, which the task keeps): together they are the envelope again.
        assert detail["signer"] == decided["signer"]
        assert detail["proof"] == {k: v for k, v in envelope.items() if k != "payload"}
        whole = dict(detail["proof"], payload=envelope["payload"])
        verified = actionseal.verify_proof(whole, keys, detail["verified_at"])
        assert verified["approval"] == decided["task"]["approval"]
        out = ledger.claim(task["id"], task["action"], facts_for(REFUND), executor="w1", lease_ms=60_000)
        assert out["result"] == "claimed"
        # The claim carries what it checked: the record, and its proof whole again.
        claim = out["claim"]
        assert claim["approval"] == record
        assert claim["proof"]["proven"] == envelope
        assert claim["proof"]["verified_at"] == decided["task"]["proof"]["verified_at"]
        assert actionseal.verify_proof(claim["proof"]["proven"], keys, claim["proof"]["verified_at"])["approval"] == record
        assert ledger.audit_verify()["valid"]

    # Without the option a bare decision is recorded (signer: None), and a proof cannot be
    # verified: the ledger trusts no keys.
    with actionseal.Ledger(fresh.url(), clock=clock) as ledger:
        task = ledger.propose(refund("job-1"), REFUND, proposer="agent")
        assert error_of(ledger.decide, envelope).code == "unknown_key"
        assert ledger.decide(decision(task, "dec-1", now))["signer"] is None
    err = error_of(actionseal.Ledger, "sqlite::memory:", proof={"required": "yes", "keys": keys})
    assert (err.code, err.path) == ("invalid_context", "/proof/required")


def test_proof_required_binds_every_handle(fresh):
    """The red-team case: "proof required" is the database's. A second handle without a
    policy takes it (a bare decision is refused), one that says proof is optional is refused
    at open, a claim can require proof itself, and only an audited change weakens it."""
    key = actionseal.SigningKey.generate()
    keys = {"service_keys": {key.keyid: {"key": key.public_jwk}}}
    clock = actionseal.ManualClock(COMMON["start"])
    now = COMMON["start"]
    url = fresh.url()
    stale = actionseal.Ledger(url, clock=clock)
    strict = actionseal.Ledger(url, clock=clock, proof={"required": True, "keys": keys})
    assert strict.policy()["proof"] == "required"
    task = strict.propose(refund("job-1"), REFUND, proposer="agent")
    second = actionseal.Ledger(url, clock=clock)
    assert error_of(second.decide, decision(task, "dec-1", now)).code == "missing_proof"
    err = error_of(actionseal.Ledger, url, clock=clock, proof={"required": False, "keys": keys})
    assert err.code == "proof_policy_weakened"
    # A handle opened before the requirement records a bare decision; a claim requiring
    # proof refuses it, and so does the strict handle's.
    stale.decide(decision(task, "dec-1", now))
    for ledger, proof in [(stale, "required"), (strict, None)]:
        err = error_of(ledger.claim, task["id"], task["action"], facts_for(REFUND),
                       executor="w1", lease_ms=60_000, proof=proof)
        assert err.code == "missing_proof"
    assert strict.task(task["id"])["state"] == "approved"
    changed = second.set_proof_requirement("optional", actor="admin", reason="pilot ended")
    assert (changed["proof"], changed["changed_by"]) == ("optional", "admin")
    kinds = [line for line in strict.audit_export().splitlines() if "proof_policy_changed" in line]
    assert len(kinds) == 2 and "pilot ended" in kinds[1]
    assert error_of(second.set_proof_requirement, "never", actor="admin", reason="x").code == "invalid_request"
    for ledger in (stale, strict, second):
        ledger.close()


def test_claim_race_between_threads(fresh):
    """Sixteen threads claim each task at once: exactly one wins, every other one gets
    already_claimed, and the audit holds one claim per task."""
    tasks, contenders = 12, 16
    url = fresh.url()
    if fresh.engine == "sqlite":
        url += "?synchronous=normal"
    ledger = actionseal.Ledger(url)
    facts = facts_for(REFUND)
    for t in range(tasks):
        act = refund(f"job-{t}")
        task = ledger.propose(act, REFUND, proposer="agent")
        ledger.decide(decision(task, f"dec-{t}", ledger.now()))
        barrier = threading.Barrier(contenders)

        def contend(i, task=task, act=act, barrier=barrier):
            barrier.wait()
            try:
                return ledger.claim(task["id"], act, facts, executor=f"w{i}", lease_ms=60_000)["result"]
            except actionseal.ActionsealError as e:
                return e.code

        with ThreadPoolExecutor(contenders) as pool:
            got = sorted(pool.map(contend, range(contenders)))
        assert got == ["already_claimed"] * (contenders - 1) + ["claimed"], t
        kinds = [e["kind"] for e in ledger.history(task["id"])["events"]]
        assert kinds.count("claimed") == 1 and kinds.count("claim_refused") == contenders - 1


class LockHolder:
    """Another connection (psql) that holds ACCESS EXCLUSIVE on ``table`` in an open
    transaction until ``release``; PostgreSQL ends the transaction by itself after 30 s idle,
    so a test that goes wrong fails rather than hangs."""

    def __init__(self, url, table):
        self.proc = subprocess.Popen(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self.proc.stdin.write(
            "SET idle_in_transaction_session_timeout = '30s';\nBEGIN;\n"
            f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE;\n\\echo locked\n"
        )
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "locked"

    def release(self):
        self.proc.stdin.write("COMMIT;\n")
        self.proc.stdin.close()
        assert self.proc.wait() == 0


def waiting_on(url, table):
    return int(psql(url, f"SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = '{table}'::regclass"))


def test_threads_wait_inside_postgres_at_once(tmp_path):
    """Eight threads call the ledger while another connection holds a lock their queries need.
    The main thread watches PostgreSQL until all eight wait on the lock at the same time, then
    releases it. It can only do so if each call released the GIL while it waited: with the GIL
    held, the main thread would not run again until the first call gave up (and at most one
    call would ever wait at once)."""
    fresh = Fresh("postgres", tmp_path)
    try:
        url = fresh.url()
        ledger = actionseal.Ledger(url)
        ids = [ledger.propose(refund(f"job-{i}"), REFUND, proposer="agent")["id"] for i in range(8)]
        holder = LockHolder(url, "ledger_tasks")
        results = {}

        def read(task_id):
            results[task_id] = ledger.task(task_id)["state"]

        threads = [threading.Thread(target=read, args=(t,)) for t in ids]
        for t in threads:
            t.start()
        seen, deadline = 0, time.monotonic() + 30
        while seen < len(ids) and time.monotonic() < deadline:
            seen = max(seen, waiting_on(url, "ledger_tasks"))
        assert not results, "a call returned while the lock was held"
        holder.release()
        for t in threads:
            t.join()
        assert seen == len(ids), f"at most {seen} calls waited at once"
        assert results == {t: "awaiting_approval" for t in ids}
    finally:
        fresh.close()


@pytest.mark.parametrize("case", json.loads((LEDGER / "open.json").read_text("utf-8"))["cases"],
                         ids=lambda c: c["url"] or "empty")
def test_urls_that_do_not_open(case):
    assert error_of(actionseal.Ledger, case["url"]).code == case["error"]


def test_files_that_are_not_ledgers(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"x" * 8192)
    assert error_of(actionseal.Ledger, f"sqlite:{junk}").code == "not_a_ledger"
    assert junk.read_bytes() == b"x" * 8192, "left as it was"


def test_a_manual_clock_never_moves_past_what_a_ledger_reads_back():
    clock = actionseal.ManualClock(2**53 - 10)
    err = error_of(clock.advance, 11)
    assert (err.code, err.path) == ("invalid_request", "/ms")
    assert clock.now == 2**53 - 10
    clock.advance(9)
    assert clock.now == 2**53 - 1


def test_wrong_types_are_coded_errors_and_change_nothing():
    ledger = actionseal.Ledger("sqlite::memory:")
    act = refund("job-1")
    task = ledger.propose(act, REFUND, proposer="agent")
    ledger.decide(decision(task, "dec-1", ledger.now()))
    before = ledger.audit_export()
    cases = [
        (lambda: actionseal.Ledger(5), "invalid_request", "/url"),
        (lambda: actionseal.Ledger("sqlite::memory:", clock=object()), "unsupported_type", "/clock"),
        (lambda: actionseal.Ledger("sqlite::memory:", clock=5), "invalid_request", "/clock"),
        (lambda: actionseal.ManualClock("0"), "invalid_request", "/start_ms"),
        (lambda: ledger.task(7), "invalid_request", "/task_id"),
        (lambda: ledger.propose(act, REFUND), "invalid_request", "/proposer"),
        (lambda: ledger.propose(act, REFUND, proposer="agent", extra=1), "invalid_request", "/extra"),
        (lambda: ledger.propose({**act, "args": {1, 2}}, REFUND, proposer="a"), "unsupported_type", "/action/args"),
        (lambda: ledger.propose(act, {}, proposer="agent"), "invalid_contract", "/contract/tool"),
        (lambda: ledger.claim(task["id"], act, facts_for(REFUND), executor="w", lease_ms=True),
         "invalid_request", "/lease_ms"),
        (lambda: ledger.claim(task["id"], act, facts_for(REFUND), executor="w", lease_ms="60000"),
         "invalid_request", "/lease_ms"),
        # Paths inside the facts, as the Rust ledger gives them (and check() for a context).
        (lambda: ledger.claim(task["id"], act, {**facts_for(REFUND), "now": 1}, executor="w", lease_ms=1),
         "invalid_context", "/now"),
        (lambda: ledger.claim(task["id"], act, {**facts_for(REFUND), "contract": {}}, executor="w", lease_ms=1),
         "invalid_contract", "/contract/tool"),
        (lambda: ledger.complete(task["id"], 1, "done", executor="w"), "invalid_request", "/outcome"),
        (lambda: ledger.reconcile(task["id"], "succeeded", actor=" r"), "invalid_request", "/actor"),
        (lambda: ledger.decide({"decision": "approved"}), "invalid_decision", "/decided_at"),
        (lambda: ledger.tasks(state="done"), "invalid_request", "/state"),
        (lambda: ledger.set_budget("b", 2.5), "invalid_request", "/limit_minor"),
    ]
    for fn, code, path in cases:
        err = error_of(fn)
        assert (err.code, err.path) == (code, path), err
    assert ledger.audit_export() == before
    assert ledger.task(task["id"])["state"] == "approved"


def test_an_unreachable_postgres_is_a_coded_error_soon():
    err = error_of(actionseal.Ledger, "postgres://postgres@127.0.0.1:1/postgres?connect_timeout=5")
    assert err.code == "ledger_unavailable" and "cannot reach PostgreSQL" in str(err)


# The triggers that keep the events append-only, dropped to edit them as an attacker would.
UNGUARD = "DROP TRIGGER ledger_events_no_update; DROP TRIGGER ledger_events_no_delete;"


def test_tampered_rows(tmp_path):
    """What the ledger finds edited behind its back is a coded error, never a crash: a schema
    from the future, a stored task that does not parse, an event that is not an event."""
    import sqlite3

    path = tmp_path / "ledger.db"
    ledger = actionseal.Ledger(f"sqlite:{path}")
    task = ledger.propose(refund("job-1"), REFUND, proposer="agent")
    with sqlite3.connect(path) as db:
        db.executescript(UNGUARD + "UPDATE ledger_events SET body = '{}'")
    assert error_of(ledger.history, task["id"]).code == "audit_chain_broken"
    assert ledger.audit_verify()["broken"]["problem"] == "malformed"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE ledger_tasks SET action = '{'")
    assert error_of(ledger.task, task["id"]).code == "ledger_storage"
    ledger.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE ledger_schema SET version = 99")
    assert error_of(actionseal.Ledger, f"sqlite:{path}").code == "ledger_schema_too_new"


def test_an_unsafe_integer_in_a_row_raises_never_none(tmp_path):
    """The ledger stores only integers within ±(2^53 − 1). A larger one, written behind its back,
    is ledger_value_out_of_range when read: the task's int fields used to come back as None."""
    import sqlite3

    path = tmp_path / "ledger.db"
    ledger = actionseal.Ledger(f"sqlite:{path}")
    task = ledger.propose(refund("job-1"), REFUND, proposer="agent")
    ledger.set_budget("team", 100)
    edits = [("ledger_tasks", "fence", 2**60), ("ledger_tasks", "fence", 2**53),
             ("ledger_tasks", "reserved", -(2**53)), ("ledger_tasks", "created_at", 2**63 - 1),
             ("ledger_budgets", "spent_minor", 2**60)]
    read = {"ledger_tasks": lambda: ledger.task(task["id"]), "ledger_budgets": lambda: ledger.budget("team")}
    for table, column, value in edits:
        with sqlite3.connect(path) as db:
            db.execute(f"UPDATE {table} SET {column} = ?", (value,))
        err = error_of(read[table])
        assert err.code == "ledger_value_out_of_range" and "2^53" in str(err), (column, value, err)
        if table == "ledger_tasks":
            assert error_of(ledger.tasks).code == "ledger_value_out_of_range"
        with sqlite3.connect(path) as db:
            db.execute(f"UPDATE {table} SET {column} = ?", (2**53 - 1,))
        field = "reserved_minor" if column == "reserved" else column
        got = read[table]()[field]
        assert got == 2**53 - 1 and type(got) is int, (column, got)

