"""A model turn's parallel tool calls as one batch (issue 28) in a real LangGraph agent loop,
against a real ledger: a person reviews the turn once, each call still claims its own item once
and each call's drift is caught. A per-call adapter (the contract without a ``batch`` member,
which is how every adapter worked before) asks for one review per call."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest

from conftest import REFUND_RULE, TRUSTED, Body, decide, decide_batch, framework, kinds

DISTS = ["langchain", "langchain-core", "langgraph"]
lg = framework("actionseal.adapters.langgraph", DISTS)
agents = framework("langchain.agents", DISTS)
fake = framework("langchain_core.language_models.fake_chat_models", DISTS)
messages = framework("langchain_core.messages", DISTS)
tools_mod = framework("langchain_core.tools", DISTS)
memory = framework("langgraph.checkpoint.memory", DISTS)
types = framework("langgraph.types", DISTS)

from actionseal.adapters import Seal, TurnCall, parse_message  # noqa: E402

AIMessage, ToolMessage, Command = messages.AIMessage, messages.ToolMessage, types.Command
BODY = Body()
# Refunds over 1000 need a person; up to 3 of them are reviewed as one batch, under caps.
BATCH = {"max_items": 3, "caps": {"count": 3, "sum": {"pointer": "/args/amount_minor", "max": 50000}}}


class FakeModel(fake.GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "FakeModel":  # noqa: ARG002
        return self


@tools_mod.tool
def refund_create(order_id: str, amount_minor: int) -> str:
    """Refund part or all of an order."""
    BODY("refund_create", {"order_id": order_id, "amount_minor": amount_minor})
    return f"refunded {amount_minor} on {order_id}"


def contracts(batch: Any = BATCH) -> dict:
    return {"refund_create": lg.contract_for_tool(refund_create, approval=REFUND_RULE, batch=batch)}


@pytest.fixture(autouse=True)
def fresh_body():
    BODY.ran.clear()


def turn(*amounts: int) -> AIMessage:
    """One model turn: a refund per amount, in parallel (call_0, call_1, ...)."""
    return AIMessage("", tool_calls=[
        {"name": "refund_create", "id": f"call_{i}", "type": "tool_call",
         "args": {"order_id": f"order-{i}", "amount_minor": a}} for i, a in enumerate(amounts)])


def build(ledger, script, batch: Any = BATCH):
    seal = Seal(ledger, contracts(batch), proposer="agent:refunds", executor="langgraph-worker")
    mw = lg.ActionsealMiddleware(seal, trusted=lambda runtime: TRUSTED)
    agent = agents.create_agent(FakeModel(messages=iter(script)), tools=[refund_create], middleware=[mw],
                                checkpointer=memory.InMemorySaver())
    return seal, agent


def start(agent):
    config = {"configurable": {"thread_id": "thread-" + uuid.uuid4().hex[:8]}}
    r = agent.invoke({"messages": [{"role": "user", "content": "refund the outage"}]}, config, version="v2")
    return config, r


def resume(agent, config, r):
    """Wakes every pending interrupt; the value is never a decision (the ledger is asked)."""
    return agent.invoke(Command(resume={i.id: "resume" for i in r.interrupts}), config, version="v2")


def answers(agent, config):
    return {m.tool_call_id: (parse_message(m.content) if m.status == "error" else m.content)
            for m in agent.get_state(config).values["messages"] if isinstance(m, ToolMessage)}


def test_n_parallel_calls_make_one_review_and_each_runs_once(ledger):
    _, agent = build(ledger, [turn(2500, 3000, 4000), AIMessage("done")])
    config, r = start(agent)
    shown = [i.value for i in r.interrupts]
    assert len(shown) == 3 and BODY.ran == []
    # Every call's pause names the same batch: the reviewer decides once, not three times (a
    # per-call adapter shows three tasks with three approval ids and no batch).
    [batch] = {s["batch"]["id"] for s in shown}
    assert {s["batch"]["approval_id"] for s in shown} == {ledger.batch(batch)["approval_id"]}
    assert {s["batch"]["size"] for s in shown} == {3}
    decide_batch(ledger, batch)
    resume(agent, config, r)
    assert sorted(a["amount_minor"] for _, a in BODY.ran) == [2500, 3000, 4000]
    for i in range(3):
        tid = lg.task_id_for(TRUSTED, config["configurable"]["thread_id"], f"call_{i}")
        assert ledger.task(tid)["state"] == "succeeded"
        assert kinds(ledger, tid).count("claimed") == 1
    # The items were claimed and completed as items: the lineage counted them under its caps.
    assert ledger.batch(batch)["totals"]["count"] == 3


def test_a_per_call_adapter_asks_for_one_review_per_call(ledger):
    """The same turn under a contract without a batch member: three tasks, three approval ids,
    three decisions; one decision runs one call only."""
    _, agent = build(ledger, [turn(2500, 3000, 4000), AIMessage("done")], batch=None)
    config, r = start(agent)
    shown = [i.value for i in r.interrupts]
    assert len({s["approval_id"] for s in shown}) == 3 and all("batch" not in s for s in shown)
    decide(ledger, shown[0]["task_id"])
    r = resume(agent, config, r)
    assert len(BODY.ran) == 1 and len(r.interrupts) == 2


def test_a_calls_drift_after_the_batch_decision_is_caught_and_the_others_run(ledger):
    _, agent = build(ledger, [turn(2500, 3000, 4000), AIMessage("done")])
    config, r = start(agent)
    decide_batch(ledger, r.interrupts[0].value["batch"]["id"])
    # The thread state is edited after the decision: call_1 now refunds 30000.
    last = agent.get_state(config).values["messages"][-1]
    agent.update_state(config, {"messages": [last.model_copy(update={"tool_calls": turn(2500, 30000, 4000).tool_calls})]})
    resume(agent, config, r)
    assert sorted(a["amount_minor"] for _, a in BODY.ran) == [2500, 4000]
    refusal = answers(agent, config)["call_1"]
    assert refusal["error"] == "tool_args_drift" and refusal["approved_args"]["amount_minor"] == 3000
    assert refusal["drift"] == ["/args/amount_minor"]


def test_racing_resumes_claim_every_item_once(ledger):
    _, agent = build(ledger, [turn(2500, 3000, 4000)] + [AIMessage("done")] * 6)
    config, r = start(agent)
    decide_batch(ledger, r.interrupts[0].value["batch"]["id"])
    barrier = threading.Barrier(2)

    def race():
        barrier.wait()
        resume(agent, config, r)

    threads = [threading.Thread(target=race) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a["amount_minor"] for _, a in BODY.ran) == [2500, 3000, 4000]


def test_deselected_calls_do_not_run_and_the_model_reads_why(ledger):
    _, agent = build(ledger, [turn(2500, 3000, 4000), AIMessage("done")])
    config, r = start(agent)
    decide_batch(ledger, r.interrupts[0].value["batch"]["id"], deselect=[1])
    resume(agent, config, r)
    assert sorted(a["amount_minor"] for _, a in BODY.ran) == [2500, 4000]
    refusal = answers(agent, config)["call_1"]
    assert (refusal["error"], refusal["state"]) == ("task_not_claimable", "rejected")


def test_calls_that_cannot_join_stay_single(ledger):
    """Over max_items (3): the fourth call of the turn is reviewed alone; a call under the rule's
    threshold runs without a person."""
    _, agent = build(ledger, [turn(2500, 3000, 4000, 5000, 300), AIMessage("done")])
    config, r = start(agent)
    assert [a["amount_minor"] for _, a in BODY.ran] == [300], "no person needed"
    shown = {i.value["action"]["args"]["amount_minor"]: i.value for i in r.interrupts}
    assert sorted(shown) == [2500, 3000, 4000, 5000]
    assert len({shown[a]["batch"]["id"] for a in (2500, 3000, 4000)}) == 1 and "batch" not in shown[5000]
    decide_batch(ledger, shown[2500]["batch"]["id"])
    decide(ledger, shown[5000]["task_id"])
    resume(agent, config, r)
    assert sorted(a["amount_minor"] for _, a in BODY.ran) == [300, 2500, 3000, 4000, 5000]


def test_a_batch_the_ledger_refuses_leaves_its_calls_single(ledger):
    """Over the contract's sum cap (50000) the turn cannot be one batch: each call is its own
    task, reviewed on its own, as before."""
    _, agent = build(ledger, [turn(30000, 30000), AIMessage("done")])
    config, r = start(agent)
    shown = [i.value for i in r.interrupts]
    assert len(shown) == 2 and all("batch" not in s for s in shown)


def test_the_plan_is_cores_and_the_ledger_gives_the_same_batch(ledger):
    """The batch of a turn is core's (the same fingerprint in every runtime), and the ledger's
    proposal of it has that fingerprint."""
    seal = Seal(ledger, contracts(), proposer="agent:refunds")
    calls = [TurnCall("refund_create", {"order_id": f"order-{i}", "amount_minor": a}, f"call_{i}")
             for i, a in enumerate([2500, 3000, 300, 4000])]
    plan = seal.plan(calls, TRUSTED, job_id="thread-x")
    [b] = plan["batches"]
    assert b["calls"] == [0, 1, 3] and b["semantics"] == "per_item"
    proposed = seal.turn(calls, TRUSTED, job_id="thread-x")
    assert proposed == plan
    assert seal.ledger.batch(b["batch_id"])["digest"] == b["batch_digest"]



def test_after_a_trip_the_calls_sent_back_pause_naming_the_remainder(ledger):
    """The breaker allows one claim a minute: the second claim trips it, and the calls not run
    pause again, each naming the batch the ledger sent them back in (the turn's successor)."""
    rate = {**BATCH, "breaker": {"max_failures": 5, "window_ms": 600_000, "max_claims_per_minute": 1,
                                 "close_after": 1}}
    _, agent = build(ledger, [turn(2500, 3000, 4000), AIMessage("done")], batch=rate)
    config, r = start(agent)
    first = r.interrupts[0].value["batch"]["id"]
    decide_batch(ledger, first)
    again = resume(agent, config, r)
    assert len(BODY.ran) == 1
    successor = ledger.batch(first)["successor"]
    assert successor and successor != first
    named = {i.value["batch"]["id"] for i in again.interrupts}
    assert len(again.interrupts) == 2 and named == {successor}
    assert ledger.batch(successor)["state"] == "awaiting_approval"
