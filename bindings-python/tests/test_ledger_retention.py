"""Sensitive values in the ledger (issue 29) from Python, on SQLite and PostgreSQL: a task frozen
committed, claimed with its values revealed, a retention policy run by class, a redaction, and
the claim of a shredded task refused with core's code."""

import pytest

import actionseal
from ledger_support import COMMON, contract_of, facts_for, fresh  # noqa: F401 (a fixture)

IDS = {k: COMMON["ids"][k] for k in ("tenant", "subject", "policy_version")}
CONTRACT = {**contract_of("refund"), "sensitive": {"/args/reason": "pii"}}
NOTE = "a note only the reviewer and the payer may read"
HOUR = 3_600_000


def refund(request, reason=NOTE):
    args = {"order_id": "order-17", "amount_minor": 100, "currency": "USD", "reason": reason}
    return actionseal.action(CONTRACT, args, job_id="job-1", request_id=request, **IDS)


def test_commits_reveals_shreds_by_class_and_refuses_a_shredded_claim(fresh):
    clock = actionseal.ManualClock(COMMON["start"])
    with actionseal.Ledger(fresh.url(), clock=clock) as ledger:
        policy = ledger.set_retention(IDS["tenant"], "pii", keep_ms=HOUR, at_finish="keep", actor="dpo")
        assert (policy["keep_ms"], policy["at_finish"], policy["changed_by"]) == (HOUR, "keep", "dpo")
        assert ledger.retention() == [policy]

        first = refund("req-1")
        t1 = ledger.propose(first, CONTRACT, proposer="agent")
        assert NOTE not in repr(t1)
        out = ledger.claim(t1["id"], first, facts_for(CONTRACT), executor="w", lease_ms=1000)
        assert out["result"] == "claimed" and out["claim"]["revealed"] == first

        clock.advance(2 * HOUR)
        second = refund("req-2", NOTE + " (2)")
        t2 = ledger.propose(second, CONTRACT, proposer="agent")
        assert ledger.retention_run(actor="retention") == [
            {"task_id": t1["id"], "places": [{"pointer": "/args/reason", "class": "pii"}]}]

        # The reviewer's read: the disclosures open the frozen commitments; none once shredded.
        read = ledger.disclosures(t2["id"])
        assert len(read) == 1 and actionseal.reveal_action(CONTRACT, t2["action"], read, coverage="every") == second
        assert len(ledger.redact(t2["id"], actor="dpo")["places"]) == 1
        with pytest.raises(actionseal.ActionsealError) as e:
            ledger.disclosures(t2["id"])
        assert e.value.code == "disclosures_shredded" and NOTE not in str(e.value)
        with pytest.raises(actionseal.ActionsealError) as e:
            ledger.claim(t2["id"], second, facts_for(CONTRACT), executor="w", lease_ms=1000)
        assert e.value.code == "disclosures_shredded" and NOTE not in str(e.value)
        assert ledger.audit_verify()["broken"] is None
        with pytest.raises(actionseal.ActionsealError) as e:
            ledger.set_retention(IDS["tenant"], "PII", keep_ms=None, at_finish="keep", actor="dpo")
        assert e.value.code == "invalid_request"
