"""The LangChain v1 / LangGraph adapter in real agent loops (create_agent, a checkpointer, a
scripted GenericFakeChatModel), against a real ledger: every case of issue 12's test list, the
bypasses HumanInTheLoopMiddleware alone allows, and the runnable example."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from typing import Any, Literal

import pytest

from conftest import FROZEN_2500, REFUND_RULE, TRUSTED, Body, decide, framework, kinds, run_example

DISTS = ["langchain", "langchain-core", "langgraph"]
lg = framework("actionseal.adapters.langgraph", DISTS)
agents = framework("langchain.agents", DISTS)
middleware = framework("langchain.agents.middleware", DISTS)
fake = framework("langchain_core.language_models.fake_chat_models", DISTS)
messages = framework("langchain_core.messages", DISTS)
tools_mod = framework("langchain_core.tools", DISTS)
memory = framework("langgraph.checkpoint.memory", DISTS)
types = framework("langgraph.types", DISTS)

from actionseal.adapters import Seal, parse_message  # noqa: E402
from actionseal import gate_step  # noqa: E402

AIMessage, ToolMessage, Command = messages.AIMessage, messages.ToolMessage, types.Command
BODY = Body()


class FakeModel(fake.GenericFakeChatModel):
    """The scripted model; create_agent binds tools, which the fake does not need."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> "FakeModel":  # noqa: ARG002
        return self


@tools_mod.tool
def refund_create(order_id: str, amount_minor: int, currency: Literal["USD", "EUR", "CNY"]) -> str:
    """Refund part or all of an order."""
    BODY("refund_create", {"order_id": order_id, "amount_minor": amount_minor, "currency": currency})
    time.sleep(0.02)  # widens the window two racing resumes would both run in
    return f"refunded {amount_minor} {currency} on {order_id}"


@tools_mod.tool
def order_search(query: str) -> str:
    """Find orders (read-only)."""
    BODY("order_search", {"query": query})
    return "order-17"


@tools_mod.tool
def note_add(text: str) -> str:
    """Add a note to the conversation (not governed: no contract)."""
    BODY("note_add", {"text": text})
    return "noted"


CONTRACTS = {
    "refund_create": lg.contract_for_tool(refund_create, approval=REFUND_RULE, cost_minor=25),
    "order_search": lg.contract_for_tool(order_search, approval="never", effect="read"),
}


@pytest.fixture(autouse=True)
def fresh_body():
    BODY.ran.clear()


def call(amount: Any, cid: str = "call_1", name: str = "refund_create", **extra: Any) -> AIMessage:
    args = {"order_id": "order-17", "amount_minor": amount, "currency": "USD", **extra}
    return AIMessage("", tool_calls=[{"name": name, "id": cid, "type": "tool_call", "args": args}])


def build(ledger, script, hitl=None):
    seal = Seal(ledger, CONTRACTS, proposer="agent:refunds", executor="langgraph-worker")
    mw = lg.ActionsealMiddleware(seal, trusted=lambda runtime: TRUSTED)
    return seal, agents.create_agent(FakeModel(messages=iter(script)), tools=[refund_create, order_search, note_add],
                                     middleware=[hitl, mw] if hitl else [mw],
                                     checkpointer=memory.InMemorySaver())


def start(agent):
    config = {"configurable": {"thread_id": "thread-" + uuid.uuid4().hex[:8]}}
    result = agent.invoke({"messages": [{"role": "user", "content": "refund order-17"}]}, config, version="v2")
    return config, result


def answers(agent, config):
    """The tool messages of the thread: adapter refusals as their payload, others as text."""
    out = []
    for m in agent.get_state(config).values["messages"]:
        if isinstance(m, ToolMessage):
            out.append(parse_message(m.content) if m.status == "error" else m.content)
    return out


def task_of(config, cid="call_1"):
    return lg.task_id_for(TRUSTED, config["configurable"]["thread_id"], cid)


def test_a_governed_call_without_a_checkpointer_is_refused_in_cores_words(ledger):
    seal = Seal(ledger, CONTRACTS, proposer="agent:refunds", executor="langgraph-worker")
    mw = lg.ActionsealMiddleware(seal, trusted=lambda runtime: TRUSTED)
    agent = agents.create_agent(FakeModel(messages=iter([call(2500), AIMessage("done")])),
                                tools=[refund_create, order_search, note_add], middleware=[mw])
    r = agent.invoke({"messages": [{"role": "user", "content": "refund order-17"}]})
    [refusal] = [parse_message(m.content) for m in r["messages"] if isinstance(m, ToolMessage)]
    assert refusal == gate_step({"step": "route", "tool": "refund_create", "unknown": "job"})["refusal"]
    assert (refusal["error"], refusal["path"], refusal["tool"]) == ("invalid_request", "/job_id", "refund_create")
    assert BODY.ran == [] and ledger.tasks() == []


def test_approved_call_runs_once_with_frozen_args(ledger):
    _, agent = build(ledger, [call(2500), AIMessage("done")])
    config, r = start(agent)
    shown = r.interrupts[0].value
    assert shown["type"] == "actionseal_approval" and shown["action"]["args"] == FROZEN_2500
    assert shown["short_fingerprint"] and shown["fingerprint"].startswith("sha256:")
    assert BODY.ran == [], "paused before the tool body"
    decide(ledger, shown["task_id"])
    agent.invoke(Command(resume="not a decision: the ledger is asked"), config, version="v2")
    assert BODY.ran == [("refund_create", FROZEN_2500)]
    assert ledger.task(shown["task_id"])["state"] == "succeeded"
    assert kinds(ledger, shown["task_id"]) == [
        "proposed", "propose_duplicate", "decided", "propose_duplicate", "claimed", "completed"]


def test_a_resume_without_a_ledger_decision_pauses_again_on_the_same_task(ledger):
    _, agent = build(ledger, [call(2500), AIMessage("done")])
    config, r = start(agent)
    again = agent.invoke(Command(resume={"type": "approve"}), config, version="v2")
    assert BODY.ran == []
    assert again.interrupts[0].value["task_id"] == r.interrupts[0].value["task_id"]


def test_args_changed_in_the_state_after_the_decision_are_refused(ledger):
    """The reviewer approved 2500; the thread state is edited to 50 under the same call id."""
    _, agent = build(ledger, [call(2500), AIMessage("done")])
    config, r = start(agent)
    decide(ledger, r.interrupts[0].value["task_id"])
    last = agent.get_state(config).values["messages"][-1]
    agent.update_state(config, {"messages": [last.model_copy(update={"tool_calls": call(50).tool_calls})]})
    agent.invoke(Command(resume=True), config, version="v2")
    refusal = answers(agent, config)[-1]
    assert BODY.count("refund_create") == 0
    assert refusal["error"] == "tool_args_drift" and refusal["approved_args"] == FROZEN_2500
    assert refusal["drift"] == ["/args/amount_minor"]
    assert "tool_args_drift" in kinds(ledger, refusal["task_id"])


def test_args_regenerated_by_the_model_under_the_same_id_are_refused(ledger):
    """Time travel to before the model node: the model regenerates call_1 with 2600."""
    seal = Seal(ledger, CONTRACTS, proposer="agent:refunds", executor="w")
    agent = agents.create_agent(FakeModel(messages=iter([call(2500), call(2600), AIMessage("done")])),
                                tools=[refund_create],
                                middleware=[lg.ActionsealMiddleware(seal, trusted=lambda rt: TRUSTED)],
                                checkpointer=memory.InMemorySaver())
    config, r = start(agent)
    tid = r.interrupts[0].value["task_id"]
    decide(ledger, tid)
    before_model = next(s for s in agent.get_state_history(config) if s.next == ("model",))
    agent.invoke(None, before_model.config, version="v2")
    assert BODY.count("refund_create") == 0
    refusal = answers(agent, config)[-1]
    assert refusal["error"] == "tool_args_drift" and refusal["approved_args"] == FROZEN_2500
    assert ledger.task(tid)["state"] == "approved", "the approved action is still the one that may run"


def test_a_regenerated_call_with_a_new_id_is_its_own_task(ledger):
    _, agent = build(ledger, [call(2500, "call_1"), call(2600, "call_2"), AIMessage("done")])
    config, r = start(agent)
    decide(ledger, r.interrupts[0].value["task_id"])
    r2 = agent.invoke(Command(resume=True), config, version="v2")
    assert BODY.ran == [("refund_create", FROZEN_2500)]
    assert r2.interrupts[0].value["action"]["args"]["amount_minor"] == 2600
    assert r2.interrupts[0].value["task_id"] == task_of(config, "call_2")


def hitl(**kw):
    return middleware.HumanInTheLoopMiddleware(
        interrupt_on={"refund_create": {"allowed_decisions": ["approve", "edit", "reject"]}}, edit_notice=None, **kw)


def edit(args, name="refund_create"):
    return Command(resume={"decisions": [{"type": "edit", "edited_action": {"name": name, "args": args}}]})


def test_hitl_edit_recorded_as_an_amendment_runs_once_and_the_audit_has_both_digests(ledger):
    seal, agent = build(ledger, [call(2500), AIMessage("done")], hitl())
    config, r = start(agent)
    assert r.interrupts[0].value["action_requests"][0]["args"] == FROZEN_2500  # HITL's own pause
    tid = task_of(config)
    proposed = ledger.task(tid)
    assert proposed["state"] == "awaiting_approval", "proposed before HITL paused"
    edited = {**FROZEN_2500, "amount_minor": 2000}
    # The approval server: the edit becomes an amendment, the decision names the amended digest.
    amended = seal.amend(tid, edited, reviewer="user:bob", reason="partial refund")
    decide(ledger, tid)
    agent.invoke(edit(edited), config, version="v2")
    assert BODY.ran == [("refund_create", edited)]
    done = ledger.task(tid)
    assert done["proposed_digest"] == proposed["action_digest"] != done["action_digest"] == amended["action_digest"]
    events = ledger.history(tid)["events"]
    assert [e["kind"] for e in events if e["kind"] in ("proposed", "amended", "claimed")] == [
        "proposed", "amended", "claimed"]
    amendment = ledger.amendments(tid)[0]
    assert (amendment["amends"], amendment["action_digest"]) == (proposed["action_digest"], amended["action_digest"])


def test_hitl_edit_only_in_the_resume_payload_is_refused(ledger):
    _, agent = build(ledger, [call(2500), AIMessage("done")], hitl())
    config, _ = start(agent)
    decide(ledger, task_of(config))  # approved 2500, no amendment recorded
    agent.invoke(edit({**FROZEN_2500, "amount_minor": 50}), config, version="v2")
    refusal = answers(agent, config)[-1]
    assert BODY.ran == [] and refusal["error"] == "tool_args_drift" and refusal["approved_args"] == FROZEN_2500


def test_hitl_edit_that_switches_the_tool_is_refused(ledger):
    _, agent = build(ledger, [call(2500), AIMessage("done")], hitl())
    config, _ = start(agent)
    decide(ledger, task_of(config))
    agent.invoke(edit({"query": "x"}, name="order_search"), config, version="v2")
    assert BODY.ran == [], "neither the approved refund nor the substituted tool ran"


def test_hitl_edit_that_switches_to_a_tool_without_a_contract_is_refused(ledger):
    _, agent = build(ledger, [call(2500), AIMessage("done")], hitl())
    config, _ = start(agent)
    decide(ledger, task_of(config))
    agent.invoke(edit({"text": "x"}, name="note_add"), config, version="v2")
    refusal = answers(agent, config)[-1]
    assert BODY.ran == [] and (refusal["error"], refusal["tool"], refusal["drift"]) == ("tool_args_drift", "refund_create", ["/tool"])


def test_a_tool_without_a_contract_runs_as_it_is(ledger):
    note = AIMessage("", tool_calls=[{"name": "note_add", "id": "n1", "type": "tool_call", "args": {"text": "hi"}}])
    _, agent = build(ledger, [note, AIMessage("done")])
    _, r = start(agent)
    assert not r.interrupts and BODY.ran == [("note_add", {"text": "hi"})] and ledger.tasks() == []


def test_hitl_edit_after_the_decision_cannot_be_amended(ledger):
    seal, agent = build(ledger, [call(2500), AIMessage("done")], hitl())
    config, _ = start(agent)
    tid = task_of(config)
    decide(ledger, tid)
    with pytest.raises(Exception) as e:
        seal.amend(tid, {**FROZEN_2500, "amount_minor": 50}, reviewer="user:bob", reason="late")
    assert e.value.code == "task_not_awaiting_decision"


def test_two_racing_resumes_and_a_replay_dispatch_once(ledger):
    _, agent = build(ledger, [call(2500)] + [AIMessage("done")] * 6)
    config, r = start(agent)
    decide(ledger, r.interrupts[0].value["task_id"])
    barrier = threading.Barrier(2)

    def resume():
        barrier.wait()
        agent.invoke(Command(resume=True), config, version="v2")

    threads = [threading.Thread(target=resume) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert BODY.count("refund_create") == 1
    agent.invoke(Command(resume=True), config, version="v2")  # resuming once more
    before_tools = next(s for s in agent.get_state_history(config) if s.next == ("tools",))
    agent.invoke(None, before_tools.config, version="v2")  # replaying the tools node
    assert BODY.count("refund_create") == 1
    assert kinds(ledger, r.interrupts[0].value["task_id"]).count("claimed") == 1


def test_expiry_while_paused_goes_back_to_approval_as_the_same_task(ledger, clock):
    _, agent = build(ledger, [call(2500), AIMessage("done")])
    config, r = start(agent)
    tid = r.interrupts[0].value["task_id"]
    decide(ledger, tid, ttl_ms=60_000)
    clock.advance(120_000)
    r2 = agent.invoke(Command(resume=True), config, version="v2")
    again = r2.interrupts[0].value
    assert BODY.ran == [] and (again["task_id"], again["state"]) == (tid, "awaiting_reapproval")
    assert again["approval_id"] != r.interrupts[0].value["approval_id"], "a new approval round"
    decide(ledger, tid)
    agent.invoke(Command(resume=True), config, version="v2")
    assert BODY.ran == [("refund_create", FROZEN_2500)]


def test_an_approver_who_lost_the_right_sends_the_task_back_for_approval(ledger):
    import dataclasses

    seal = Seal(ledger, CONTRACTS, proposer="agent:refunds", executor="w")
    nobody = dataclasses.replace(TRUSTED, approvers=lambda approver: False)  # bob left the team
    agent = agents.create_agent(FakeModel(messages=iter([call(2500), AIMessage("done")])), tools=[refund_create],
                                middleware=[lg.ActionsealMiddleware(seal, trusted=lambda rt: nobody)],
                                checkpointer=memory.InMemorySaver())
    config, r = start(agent)
    decide(ledger, r.interrupts[0].value["task_id"])
    again = agent.invoke(Command(resume=True), config, version="v2").interrupts[0].value
    assert BODY.ran == [] and (again["task_id"], again["state"]) == (r.interrupts[0].value["task_id"],
                                                                      "awaiting_reapproval")


def test_a_tool_that_needs_no_approval_runs_without_a_pause(ledger):
    search = AIMessage("", tool_calls=[{"name": "order_search", "id": "s1", "type": "tool_call",
                                        "args": {"query": "order-17"}}])
    _, agent = build(ledger, [search, call(500), AIMessage("done")])
    config, r = start(agent)
    assert not r.interrupts
    assert BODY.ran == [("order_search", {"query": "order-17"}),
                        ("refund_create", {**FROZEN_2500, "amount_minor": 500})]
    assert ledger.task(task_of(config))["state"] == "succeeded"


@pytest.mark.parametrize("args,code,path", [
    ({"amount_minor": "300"}, "type_mismatch", "/args/amount_minor"),
    ({"note": "x"}, "unknown_field", "/args/note"),
    ({"currency": "GBP"}, "enum_mismatch", "/args/currency"),
])
def test_bad_input_is_a_clear_error_to_the_model_and_nothing_runs(ledger, args, code, path):
    base = {"order_id": "order-17", "amount_minor": 300, "currency": "USD"}
    msg = AIMessage("", tool_calls=[{"name": "refund_create", "id": "bad", "type": "tool_call",
                                     "args": {**base, **args}}])
    _, agent = build(ledger, [msg, AIMessage("done")])
    config, r = start(agent)
    refusal = answers(agent, config)[-1]
    assert not r.interrupts and BODY.ran == []
    assert (refusal["error"], refusal["path"]) == (code, path)
    assert ledger.tasks() == [], "nothing was proposed"


def test_ainvoke_goes_through_awrap_tool_call(ledger):
    _, agent = build(ledger, [call(2500), AIMessage("done")])
    config = {"configurable": {"thread_id": "thread-async"}}

    async def go():
        r = await agent.ainvoke({"messages": [{"role": "user", "content": "refund"}]}, config, version="v2")
        tid = r.interrupts[0].value["task_id"]
        again = await agent.ainvoke(Command(resume=True), config, version="v2")
        assert again.interrupts[0].value["task_id"] == tid and BODY.ran == []
        decide(ledger, tid)
        await agent.ainvoke(Command(resume=True), config, version="v2")
        return tid

    tid = asyncio.run(go())
    assert BODY.ran == [("refund_create", FROZEN_2500)] and ledger.task(tid)["state"] == "succeeded"


def test_beside_per_call_hitl_an_approval_runs_once_and_an_edit_needs_an_amendment(ledger):
    seal, agent = build(ledger, [call(2500), AIMessage("done")], hitl(interrupt_mode="per_call"))
    config, r = start(agent)
    hitl_pause = r.interrupts[0]
    assert hitl_pause.value["type"] == "tool_approval" and BODY.ran == []
    tid = task_of(config)
    decide(ledger, tid)  # the reviewer approved 2500 on the ledger, HITL is told "edit to 50"
    r2 = agent.invoke(Command(resume={hitl_pause.id: {"type": "edit", "edited_action": {
        "name": "refund_create", "args": {**FROZEN_2500, "amount_minor": 50}}}}), config, version="v2")
    assert not r2.interrupts and BODY.ran == []
    assert answers(agent, config)[-1]["error"] == "tool_args_drift"
    # The same flow with the edit recorded as an amendment first runs the edited args once.
    BODY.ran.clear()
    seal2, agent2 = build(ledger, [call(2500), AIMessage("done")], hitl(interrupt_mode="per_call"))
    config2, r = start(agent2)
    edited = {**FROZEN_2500, "amount_minor": 1500}
    seal2.amend(task_of(config2), edited, reviewer="user:bob", reason="partial refund")
    decide(ledger, task_of(config2))
    agent2.invoke(Command(resume={r.interrupts[0].id: {"type": "edit", "edited_action": {
        "name": "refund_create", "args": edited}}}), config2, version="v2")
    assert BODY.ran == [("refund_create", edited)]


# --- Without the adapter: the bypasses docs/ADAPTERS.md lists. If one of these fails, the
# framework changed its behaviour: update the document (the adapter's tests above still hold).


def hitl_alone(script, **kw):
    return agents.create_agent(FakeModel(messages=iter(script)), tools=[refund_create, order_search],
                               middleware=[hitl(**kw)], checkpointer=memory.InMemorySaver())


def test_without_the_adapter_a_state_edit_after_the_pause_runs_other_args():
    agent = hitl_alone([call(2500), AIMessage("done")])
    config, r = start(agent)
    assert r.interrupts[0].value["action_requests"][0]["args"] == FROZEN_2500  # what the reviewer saw
    last = agent.get_state(config).values["messages"][-1]
    agent.update_state(config, {"messages": [last.model_copy(update={"tool_calls": call(50).tool_calls})]})
    agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config, version="v2")
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 50})]


def test_without_the_adapter_a_batched_edit_may_switch_the_tool_and_is_not_validated():
    agent = hitl_alone([call(2500), AIMessage("done")])
    config, _ = start(agent)
    agent.invoke(edit({"query": "x"}, name="order_search"), config, version="v2")
    assert BODY.ran == [("order_search", {"query": "x"})]
    BODY.ran.clear()
    agent = hitl_alone([call(2500), AIMessage("done")])
    config, _ = start(agent)
    agent.invoke(edit({**FROZEN_2500, "amount_minor": "300"}), config, version="v2")
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 300})], '"300" coerced to 300'


def test_without_the_adapter_batched_decisions_are_matched_by_position():
    two = AIMessage("", tool_calls=[
        {"name": "refund_create", "id": "call_a", "type": "tool_call", "args": {**FROZEN_2500, "amount_minor": 100}},
        {"name": "refund_create", "id": "call_b", "type": "tool_call", "args": {**FROZEN_2500, "amount_minor": 90000}}])
    agent = hitl_alone([two, AIMessage("done")])
    config, r = start(agent)
    # A review screen that lists the biggest first returns its decisions in its own order.
    shown = sorted(r.interrupts[0].value["action_requests"], key=lambda a: -a["args"]["amount_minor"])
    meant = {100: {"type": "approve"}, 90000: {"type": "reject"}}
    agent.invoke(Command(resume={"decisions": [meant[a["args"]["amount_minor"]] for a in shown]}), config,
                 version="v2")
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 90000})]


def test_without_the_adapter_two_racing_resumes_of_one_per_call_interrupt_both_run():
    """Each body waits for the other at a barrier: it passes only if both resumes run the tool
    (if LangGraph ever serialises them, the lone body's wait breaks and this test fails)."""
    meet = threading.Barrier(2, timeout=10)

    @tools_mod.tool
    def slow_refund(order_id: str, amount_minor: int) -> str:
        """Refund."""
        BODY("slow_refund", {"order_id": order_id, "amount_minor": amount_minor})
        meet.wait()
        return "ok"

    agent = agents.create_agent(
        FakeModel(messages=iter([AIMessage("", tool_calls=[{"name": "slow_refund", "id": "c1", "type": "tool_call",
                                                            "args": {"order_id": "order-17", "amount_minor": 2500}}]),
                                 AIMessage("done"), AIMessage("done")])),
        tools=[slow_refund], checkpointer=memory.InMemorySaver(),
        middleware=[middleware.HumanInTheLoopMiddleware(interrupt_on={"slow_refund": True}, interrupt_mode="per_call")])
    config, r = start(agent)
    resume = Command(resume={r.interrupts[0].id: {"type": "approve"}})
    threads = [threading.Thread(target=agent.invoke, args=(resume, config), kwargs={"version": "v2"})
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert BODY.count("slow_refund") == 2


def test_a_schema_outside_cores_subset_fails_when_the_tool_is_wrapped():
    @tools_mod.tool
    def upload(blob: bytes) -> str:
        """Upload bytes."""
        return "ok"

    with pytest.raises(Exception) as e:
        lg.contract_for_tool(upload, approval="always")
    assert e.value.code == "unsupported_schema"


def test_the_example_runs():
    out = run_example("langgraph_refund")
    assert "paused for approval" in out and "ran: refunded 2500 USD on order-17" in out
    assert "refused: tool_args_drift" in out


def external_agent(ledger, handed, script):
    """An agent whose refund_create is dispatched elsewhere: ``handed`` collects the hand-offs."""

    def handoff(action, task):
        handed.append((action, task["id"], task["state"]))
        return f"handed to the executor: {task['id']}"

    seal = Seal(ledger, CONTRACTS, proposer="agent:refunds", executor="unused")
    return agents.create_agent(
        FakeModel(messages=iter(script)), tools=[refund_create],
        middleware=[lg.ActionsealMiddleware(seal, trusted=lambda rt: TRUSTED,
                                            external={"refund_create": handoff})],
        checkpointer=memory.InMemorySaver())


def test_an_external_executors_tool_is_proposed_and_paused_and_handed_off_never_run_here(ledger):
    """``external``: the agent proposes and pauses; after the decision the call is handed to the
    application's handoff with its task, the body never runs and nothing is claimed here."""
    handed = []
    agent = external_agent(ledger, handed, [call(2500), AIMessage("done")])
    config, r = start(agent)
    tid = r.interrupts[0].value["task_id"]
    again = agent.invoke(Command(resume={"type": "approve"}), config, version="v2")
    assert again.interrupts[0].value["task_id"] == tid and handed == [], "no decision: paused again"
    decide(ledger, tid)
    agent.invoke(Command(resume=True), config, version="v2")
    assert BODY.count("refund_create") == 0, "the body never runs in the agent"
    assert [(a["args"], t, s) for a, t, s in handed] == [(FROZEN_2500, tid, "approved")]
    assert answers(agent, config)[-1] == f"handed to the executor: {tid}"
    assert ledger.task(tid)["state"] == "approved", "nothing claimed: the external executor claims"
    assert "claimed" not in kinds(ledger, tid)


def test_an_external_executors_tool_is_handed_off_through_ainvoke_too(ledger):
    handed = []
    agent = external_agent(ledger, handed, [call(2500), AIMessage("done")])
    config = {"configurable": {"thread_id": "thread-external-async"}}

    async def go():
        r = await agent.ainvoke({"messages": [{"role": "user", "content": "refund"}]}, config, version="v2")
        tid = r.interrupts[0].value["task_id"]
        decide(ledger, tid)
        await agent.ainvoke(Command(resume=True), config, version="v2")
        return tid

    tid = asyncio.run(go())
    assert [(a["args"], t) for a, t, _ in handed] == [(FROZEN_2500, tid)] and BODY.count("refund_create") == 0
    assert ledger.task(tid)["state"] == "approved"


def test_a_rejected_call_of_an_external_executors_tool_is_never_handed_off(ledger):
    handed = []
    agent = external_agent(ledger, handed, [call(2500), AIMessage("done")])
    config, r = start(agent)
    decide(ledger, r.interrupts[0].value["task_id"], verdict="rejected")
    agent.invoke(Command(resume=True), config, version="v2")
    assert handed == [] and BODY.count("refund_create") == 0
    assert answers(agent, config)[-1]["error"] == "rejected"
