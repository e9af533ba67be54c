"""The ledger's batch methods (issue 28) from Python, on SQLite and PostgreSQL: a batch proposed,
two items left out by the reviewer, decided once, its items claimed and completed one by one;
two failures trip the breaker, which sends the items not yet claimed back for approval over the
batch the tripped one names; an all-or-nothing batch claimed whole; the audit verifies. And the
refusals a binding must pass on with core's codes."""

import pytest

import actionseal
from ledger_support import COMMON, contract_of, facts_for, fresh  # noqa: F401 (a fixture)

IDS = {k: COMMON["ids"][k] for k in ("tenant", "subject", "policy_version")}
BATCH = {
    **contract_of("refund"),
    "batch": {
        "max_items": 10,
        "caps": {"sum": {"pointer": "/args/amount_minor", "max": 20000}},
        "breaker": {"max_failures": 2, "window_ms": 600_000, "close_after": 2},
    },
}
HOUR = 3_600_000


def refunds(n, amount=2500):
    return [actionseal.action(BATCH, {"order_id": f"order-{i}", "amount_minor": amount, "currency": "USD"},
                              job_id="outage-1", request_id=f"refund-{i}", **IDS) for i in range(n)]


def decision(batch, decision_id, now, decided="approved"):
    return {
        "approval_id": batch["approval_id"], "decision_id": decision_id, "batch_id": batch["id"],
        "batch_digest": batch["digest"], "decision": decided, "approver": COMMON["approver"],
        "decided_at": now, "expires_at": now + HOUR,
    }


def test_a_batch_reviewed_decided_claimed_and_tripped(fresh):
    ledger = actionseal.Ledger(fresh.url())
    actions = refunds(6)
    batch = ledger.propose_batch(actions, BATCH, semantics="per_item", proposer="agent")
    assert batch == ledger.batch(batch["id"])
    assert batch["state"] == "awaiting_approval" and batch["digest"] == batch["proposed_digest"]
    assert batch["digest"] == actionseal.fingerprint(batch["header"])
    tasks = [item["task_id"] for item in batch["items"]]
    assert tasks == [actionseal.Ledger.task_id(tenant=a["tenant"], job_id=a["job_id"], request_id=a["request_id"])
                     for a in actions]
    assert all(item["state"] == "awaiting_approval" for item in batch["items"])

    # The reviewer leaves items 2 and 5 out: another batch, the proposal's digest kept.
    amended = ledger.amend_batch(batch["id"], amends=batch["digest"], deselect=[1, 4], reviewer="user:bob",
                                 reason="already refunded")
    assert amended["digest"] != batch["digest"] and amended["proposed_digest"] == batch["digest"]
    with pytest.raises(actionseal.ActionsealError) as e:  # the digest the reviewer saw is gone
        ledger.decide_batch(decision(batch, "d-old", ledger.now()))
    assert e.value.code == "decision_mismatch"
    approved = decision(amended, "d1", ledger.now())
    assert not ledger.decide_batch(approved)["duplicate"]
    assert ledger.decide_batch(approved)["duplicate"]  # a repeated delivery changes nothing
    states = {t: ledger.task(t)["state"] for t in tasks}
    assert [states[t] for t in tasks] == ["approved", "rejected", "approved", "approved", "rejected", "approved"]

    # Claimed one at a time; two failures trip the breaker: the items not yet claimed go back.
    selected = [0, 2, 3, 5]
    facts = facts_for(BATCH)
    first = ledger.claim_item(tasks[0], actions[0], facts, executor="w1", lease_ms=60_000)
    assert first["result"] == "claimed"
    assert first["claim"]["item"]["action"] == actions[0]
    with pytest.raises(actionseal.ActionsealError) as e:  # claimed once
        ledger.claim_item(tasks[0], actions[0], facts, executor="w2", lease_ms=60_000)
    assert e.value.code == "already_claimed"
    with pytest.raises(actionseal.ActionsealError) as e:  # an item is claimed as an item
        ledger.claim(tasks[2], actions[2], facts, executor="w2", lease_ms=60_000)
    assert e.value.code == "batch_item"
    drifted = {**actions[5], "args": {**actions[5]["args"], "amount_minor": 2600}}
    out = ledger.claim_item(tasks[5], drifted, facts, executor="w2", lease_ms=60_000)
    assert out["result"] == "tool_args_drift" and out["approved_action"] == actions[5]
    second = ledger.claim_item(tasks[2], actions[2], facts, executor="w2", lease_ms=60_000)
    assert ledger.complete_item(tasks[0], first["claim"]["fence"], "failed", executor="w1")["state"] == "failed"
    assert ledger.batch(batch["id"])["breaker"]["state"] == "closed"
    ledger.complete_item(tasks[2], second["claim"]["fence"], "failed", executor="w2")
    tripped = ledger.batch(batch["id"])
    assert (tripped["breaker"]["state"], tripped["breaker"]["trips"], tripped["current"]) == ("open", 1, False)
    remainder = ledger.batch(tripped["successor"])  # the tripped batch names where its items went
    assert [i["task_id"] for i in remainder["items"]] == [tasks[3], tasks[5]]
    assert (remainder["lineage"], remainder["current"], remainder["successor"]) == (batch["lineage"], True, None)
    assert [ledger.task(tasks[i])["state"] for i in selected] == ["failed", "failed", "awaiting_reapproval",
                                                                  "awaiting_reapproval"]
    with pytest.raises(actionseal.ActionsealError) as e:  # nothing is claimed after the trip
        ledger.claim_item(tasks[3], actions[3], facts, executor="w1", lease_ms=60_000)
    assert e.value.code == "task_not_claimable"
    assert [e["kind"] for e in ledger.history(tasks[3])["events"]][:3] == ["proposed", "decided", "sent_to_reapproval"]
    assert ledger.audit_verify()["valid"]
    ledger.close()


def test_an_all_or_nothing_batch_is_claimed_whole_or_not_at_all(fresh):
    ledger = actionseal.Ledger(fresh.url())
    actions = refunds(3)
    batch = ledger.propose_batch(actions, BATCH, semantics="all_or_nothing", proposer="agent")
    batch = ledger.decide_batch(decision(batch, "d1", ledger.now()))["batch"]
    tasks = [item["task_id"] for item in batch["items"]]
    facts = facts_for(BATCH)
    with pytest.raises(actionseal.ActionsealError) as e:
        ledger.claim_item(tasks[0], actions[0], facts, executor="w1", lease_ms=60_000)
    assert e.value.code == "batch_all_or_nothing"
    drifted = [actions[0], {**actions[1], "args": {**actions[1]["args"], "amount_minor": 1}}, actions[2]]
    out = ledger.claim_batch(batch["id"], drifted, facts, executor="w1", lease_ms=60_000)
    assert (out["result"], out["claimed"], len(out["items"])) == ("tool_args_drift", False, 1)  # the drifting one
    assert out["items"][0]["task"]["id"] == tasks[1] and out["items"][0]["verdict"]["drift"] == ["/args/amount_minor"]
    assert [ledger.task(t)["state"] for t in tasks] == ["approved"] * 3  # nothing claimed or changed
    out = ledger.claim_batch(batch["id"], actions, facts, executor="w1", lease_ms=60_000)
    assert (out["result"], out["claimed"]) == ("claimed", True)
    assert [c["task_id"] for c in out["items"]] == tasks and [c["action"] for c in out["items"]] == actions
    with pytest.raises(actionseal.ActionsealError) as e:
        ledger.claim_batch(batch["id"], actions, facts, executor="w1", lease_ms=0)
    assert (e.value.code, e.value.path) == ("invalid_request", "/lease_ms")
    assert ledger.audit_verify()["valid"]
    ledger.close()


def test_refusals_keep_cores_codes(fresh):
    ledger = actionseal.Ledger(fresh.url())
    with pytest.raises(actionseal.ActionsealError) as e:
        ledger.propose_batch(refunds(9), BATCH, semantics="per_item", proposer="agent")  # 9 x 2500 > 20000
    assert e.value.code == "batch_cap_exceeded"
    with pytest.raises(actionseal.ActionsealError) as e:
        ledger.propose_batch(refunds(11, amount=10), BATCH, semantics="per_item", proposer="agent")
    assert e.value.code == "batch_too_large"
    with pytest.raises(actionseal.ActionsealError) as e:
        ledger.propose_batch(refunds(2), contract_of("refund"), semantics="per_item", proposer="agent")
    assert e.value.code == "batch_not_allowed"
    with pytest.raises(actionseal.ActionsealError) as e:
        ledger.propose_batch(refunds(2), BATCH, semantics="sometimes", proposer="agent")
    assert e.value.code == "invalid_batch"
    with pytest.raises(actionseal.ActionsealError) as e:
        ledger.propose_batch({"not": "a list"}, BATCH, semantics="per_item", proposer="agent")
    assert e.value.code == "invalid_batch"
    with pytest.raises(actionseal.ActionsealError) as e:
        ledger.batch("batch_" + "0" * 32)
    assert e.value.code == "batch_not_found"
    ledger.close()
