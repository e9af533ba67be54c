"""Evidence bundles from a real ledger for the tests: a refund proposed, decided, claimed and
completed on a ledger that signs its checkpoints with the signer key of Go's
golang.org/x/mod/sumdb/note examples, then exported; the trust that verifies it; and bundles
broken one way each, with the code ``verify_evidence`` raises for it (the time-stamp tokens
are core's RFC 3161 fixtures, core/tests/timestamp/, about other data)."""

import base64
import copy

import actionseal
from conftest import CONFORMANCE
from ledger_support import COMMON, contract_of, facts_for

TIMESTAMPS = CONFORMANCE.parent / "core" / "tests" / "timestamp"

LOG_KEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
LOG_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
# Another Ed25519 note key (seed 32 zero bytes), trusted by nobody who verifies these bundles.
OTHER_VERIFIER = "Other+1cfff151+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
TRUST = {"ledger_keys": [{"key": LOG_VERIFIER}]}
REFUND = contract_of("refund")


def refund_story(ledger, midway=lambda: None):
    """Proposes, decides, claims and completes one refund, calling ``midway`` after the
    proposal; its task."""
    ids = {k: COMMON["ids"][k] for k in ("tenant", "subject", "policy_version")}
    args = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}
    act = actionseal.action(REFUND, args, job_id="job-e", request_id="req-1", **ids)
    task = ledger.propose(act, actionseal.Contract(REFUND), proposer="agent")
    midway()
    now = ledger.now()
    ledger.decide({
        "approval_id": task["approval_id"], "decision_id": "dec-e", "job_id": task["job_id"],
        "request_id": task["request_id"], "action_digest": task["action_digest"],
        "decision": "approved", "approver": COMMON["approver"], "decided_at": now,
        "expires_at": now + 3_600_000,
    })
    out = ledger.claim(task["id"], act, facts_for(REFUND), executor="w1", lease_ms=60_000)
    ledger.complete(task["id"], out["claim"]["fence"], "succeeded", executor="w1")
    return task


def exported(url="sqlite::memory:"):
    """A bundle exported from a fresh ledger at ``url``, and the note of a checkpoint the
    ledger made before (after the proposal)."""
    clock = actionseal.ManualClock(COMMON["start"])
    with actionseal.Ledger(url, clock=clock, log_key=LOG_KEY) as ledger:
        earlier = []
        task = refund_story(ledger, lambda: earlier.append(ledger.checkpoint()["note"]))
        return ledger.evidence(task["id"], "auditor:carol"), earlier[0]


def fixture(name):
    """A file of core's RFC 3161 fixtures (a token, a TimeStampResp, a root) in base64, as a
    bundle and a trust carry them."""
    return base64.b64encode((TIMESTAMPS / name).read_bytes()).decode()


def broken(bundle, earlier):
    """(code, label, bundle, trust): the bundle broken one way each, and what that raises;
    ``earlier`` is the note of an earlier checkpoint of the same log."""
    def edit(f):
        b = copy.deepcopy(bundle)
        f(b)
        return b

    def other_note(b):
        b["checkpoint"]["note"] = "not a signed note"

    def other_task(b):
        b["task"] = "task_" + "0" * 32

    def edited_event(b):
        b["events"][0]["event"]["actor"] = "agent:2"

    def dropped_event(b):
        del b["events"][1]

    def other_contract(b):
        b["contract"] = {**b["contract"], "version": "2"}

    def stamped(token):
        return edit(lambda b: b["checkpoint"].__setitem__("timestamp", token))

    def no_consistency(b):
        b["witnessed"] = [{"note": earlier, "consistency": []}]

    # A verifier that trusts no TSA leaves a token unread: each of these trusts a root.
    with_root = {**TRUST, "tsa_roots": [fixture("root.der")]}
    other_root = {**TRUST, "tsa_roots": [fixture("other-root.der")]}

    return [
        ("invalid_evidence", "a bundle without its version", edit(lambda b: b.pop("version")), TRUST),
        ("invalid_evidence_trust", "a trust without ledger keys", bundle, {"ledger_keys": []}),
        ("inclusion_proof_invalid", "an event edited", edit(edited_event), TRUST),
        ("checkpoint_invalid", "a checkpoint that is not a note", edit(other_note), TRUST),
        ("checkpoint_untrusted", "a ledger key nobody trusts", bundle,
         {"ledger_keys": [{"key": OTHER_VERIFIER}]}),
        ("evidence_other_task", "another task named", edit(other_task), TRUST),
        ("evidence_incomplete", "an event left out", edit(dropped_event), TRUST),
        ("evidence_mismatch", "another contract", edit(other_contract), TRUST),
        ("consistency_proof_invalid", "an earlier checkpoint without its consistency proof",
         edit(no_consistency), TRUST),
        ("timestamp_invalid", "a time-stamp that is not a token", stamped("AAAA"), with_root),
        ("timestamp_untrusted", "a time-stamp from a TSA the verifier does not trust",
         stamped(fixture("p256.tsr")), other_root),
        ("timestamp_mismatch", "a time-stamp of other data", stamped(fixture("p256.tsr")), with_root),
    ]
