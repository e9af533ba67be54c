"""The Pydantic AI adapter in real agent runs (Agent, DeferredToolRequests/Results, the
framework's own FunctionModel and TestModel), against a real ledger: every case of issue 12's
test list, the bypasses Pydantic AI's approvals alone allow, and the runnable example."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, Literal

import pytest

from conftest import FROZEN_2500, REFUND_RULE, TRUSTED, Body, decide, decide_batch, framework, kinds, run_example

DISTS = ["pydantic-ai-slim", "pydantic"]
pa = framework("actionseal.adapters.pydantic_ai", DISTS)
pai = framework("pydantic_ai", DISTS)
msgs = framework("pydantic_ai.messages", DISTS)
function = framework("pydantic_ai.models.function", DISTS)
test_model = framework("pydantic_ai.models.test", DISTS)
toolsets = framework("pydantic_ai.toolsets", DISTS)

from actionseal import Contract, Ledger  # noqa: E402
from actionseal.adapters import Seal, parse_message  # noqa: E402

DeferredToolRequests, DeferredToolResults, ToolApproved = (
    pai.DeferredToolRequests, pai.DeferredToolResults, pai.ToolApproved)
BODY = Body()
DEPS = {"conversation": "conv-1"}  # the app's deps: the model never sees them
tools = toolsets.FunctionToolset()


@tools.tool_plain
def refund_create(order_id: str, amount_minor: int, currency: Literal["USD", "EUR", "CNY"]) -> str:
    """Refund part or all of an order."""
    BODY("refund_create", {"order_id": order_id, "amount_minor": amount_minor, "currency": currency})
    return f"refunded {amount_minor} {currency} on {order_id}"


@tools.tool_plain
def order_search(query: str) -> str:
    """Find orders (read-only)."""
    BODY("order_search", {"query": query})
    return "order-17"


CONTRACTS = {
    "refund_create": pa.contract_for_tool(tools, "refund_create", approval=REFUND_RULE, cost_minor=25),
    "order_search": pa.contract_for_tool(tools, "order_search", approval="never", effect="read"),
}


@pytest.fixture(autouse=True)
def fresh_body():
    BODY.ran.clear()


def trusted(ctx):
    return dataclasses.replace(TRUSTED, job_id=ctx.deps["conversation"])


def scripted(*steps):
    it = iter(steps)

    def respond(messages, info):
        step = next(it, "done")
        if isinstance(step, str):
            return msgs.ModelResponse(parts=[msgs.TextPart(step)])
        return msgs.ModelResponse(parts=[msgs.ToolCallPart(n, a, tool_call_id=c) for n, a, c in step])

    return function.FunctionModel(respond)


def refund(amount: Any, cid: str = "call_1"):
    return [("refund_create", {**FROZEN_2500, "amount_minor": amount}, cid)]


def setup(ledger, *steps, model=None, contracts=CONTRACTS):
    seal = Seal(ledger, contracts, proposer="agent:refunds", executor="pydantic-ai-worker")
    ts = pa.SealedToolset(tools, seal=seal, trusted=trusted)
    agent = pai.Agent(model or scripted(*steps), output_type=[str, DeferredToolRequests], toolsets=[ts],
                      deps_type=dict)
    return seal, ts, agent


def run(agent, prompt=None, **kw):
    return asyncio.run(agent.run(prompt, deps=dict(DEPS), **kw))


def returns(result):
    return [p.content for m in result.all_messages() if isinstance(m, msgs.ModelRequest) for p in m.parts
            if isinstance(p, (msgs.ToolReturnPart, msgs.RetryPromptPart))]


def tid(cid="call_1"):
    return Ledger.task_id(tenant=TRUSTED.tenant, job_id=DEPS["conversation"], request_id=cid)


def test_approved_call_runs_once_with_frozen_args(ledger):
    _, ts, agent = setup(ledger, refund(2500))
    r = run(agent, "refund")
    assert isinstance(r.output, DeferredToolRequests) and BODY.ran == []
    shown = r.output.metadata["call_1"]
    assert (shown["task_id"], shown["action"]["args"]) == (tid(), FROZEN_2500) and shown["short_fingerprint"]
    decide(ledger, tid())
    r2 = run(agent, message_history=r.all_messages(), deferred_tool_results=ts.deferred_results(r.output))
    assert r2.output == "done" and BODY.ran == [("refund_create", FROZEN_2500)]
    assert ledger.task(tid())["state"] == "succeeded"


def test_a_client_approval_without_a_ledger_decision_defers_again(ledger):
    _, ts, agent = setup(ledger, refund(2500))
    r = run(agent, "refund")
    r2 = run(agent, message_history=r.all_messages(),
             deferred_tool_results=DeferredToolResults(approvals={"call_1": True}))
    assert BODY.ran == [] and isinstance(r2.output, DeferredToolRequests)
    assert r2.output.metadata["call_1"]["task_id"] == tid()


def test_override_args_not_recorded_as_an_amendment_are_refused(ledger):
    _, ts, agent = setup(ledger, refund(2500))
    r = run(agent, "refund")
    decide(ledger, tid())  # approved 2500
    forged = ToolApproved(override_args={**FROZEN_2500, "amount_minor": 50})
    r2 = run(agent, message_history=r.all_messages(),
             deferred_tool_results=DeferredToolResults(approvals={"call_1": forged}))
    refusal = parse_message(returns(r2)[-1])
    assert BODY.ran == [] and refusal["error"] == "tool_args_drift" and refusal["approved_args"] == FROZEN_2500


def test_a_reviewers_override_becomes_an_amendment_runs_once_and_the_audit_has_both_digests(ledger):
    seal, ts, agent = setup(ledger, refund(2500))
    r = run(agent, "refund")
    proposed = ledger.task(tid())
    edited = {**FROZEN_2500, "amount_minor": 2000}
    amended = seal.amend(tid(), edited, reviewer="user:bob", reason="partial refund")
    decide(ledger, tid())
    results = ts.deferred_results(r.output)
    assert results.approvals["call_1"].override_args == edited
    run(agent, message_history=r.all_messages(), deferred_tool_results=results)
    assert BODY.ran == [("refund_create", edited)]
    done = ledger.task(tid())
    assert done["proposed_digest"] == proposed["action_digest"] != done["action_digest"] == amended["action_digest"]
    amendment = ledger.amendments(tid())[0]
    assert (amendment["amends"], amendment["action_digest"]) == (proposed["action_digest"], amended["action_digest"])
    assert [k for k in kinds(ledger, tid()) if k in ("proposed", "amended", "decided", "claimed")] == [
        "proposed", "amended", "decided", "claimed"]


def test_args_edited_in_the_history_after_the_decision_are_refused(ledger):
    _, ts, agent = setup(ledger, refund(2500))
    r = run(agent, "refund")
    decide(ledger, tid())
    history = r.all_messages()
    for m in history:
        if isinstance(m, msgs.ModelResponse):
            for p in m.parts:
                if isinstance(p, msgs.ToolCallPart):
                    p.args = {**FROZEN_2500, "amount_minor": 50}
    r2 = run(agent, message_history=history, deferred_tool_results=ts.deferred_results(r.output))
    refusal = parse_message(returns(r2)[-1])
    assert BODY.ran == [] and refusal["error"] == "tool_args_drift" and refusal["approved_args"] == FROZEN_2500


def test_two_racing_resumes_and_a_third_dispatch_once(ledger):
    _, ts, agent = setup(ledger, refund(2500))
    r = run(agent, "refund")
    decide(ledger, tid())
    results = ts.deferred_results(r.output)

    async def race():
        return await asyncio.gather(*[agent.run(message_history=r.all_messages(), deferred_tool_results=results,
                                                deps=dict(DEPS)) for _ in range(2)])

    asyncio.run(race())
    third = run(agent, message_history=r.all_messages(), deferred_tool_results=results)
    assert BODY.count("refund_create") == 1
    assert parse_message(returns(third)[-1])["error"] == "already_claimed"
    assert kinds(ledger, tid()).count("claimed") == 1


def test_expiry_while_paused_defers_again_as_the_same_task(ledger, clock):
    _, ts, agent = setup(ledger, refund(2500))
    r = run(agent, "refund")
    decide(ledger, tid(), ttl_ms=60_000)
    results = ts.deferred_results(r.output)
    clock.advance(120_000)
    r2 = run(agent, message_history=r.all_messages(), deferred_tool_results=results)
    again = r2.output.metadata["call_1"]
    assert BODY.ran == [] and (again["task_id"], again["state"]) == (tid(), "awaiting_reapproval")
    decide(ledger, tid())
    run(agent, message_history=r2.all_messages(), deferred_tool_results=ts.deferred_results(r2.output))
    assert BODY.ran == [("refund_create", FROZEN_2500)]


def test_a_tool_that_needs_no_approval_runs_without_a_pause(ledger):
    _, ts, agent = setup(ledger, [("order_search", {"query": "x"}, "s1")], refund(500, "c5"))
    r = run(agent, "go")
    assert r.output == "done"
    assert BODY.ran == [("order_search", {"query": "x"}), ("refund_create", {**FROZEN_2500, "amount_minor": 500})]


@pytest.mark.parametrize("args,code", [
    ({**FROZEN_2500, "amount_minor": "300"}, "type_mismatch"),
    ('{"order_id":"order-17","amount_minor":5,"amount_minor":5000,"currency":"USD"}', "duplicate_key"),
])
def test_bad_input_is_a_clear_error_to_the_model_and_nothing_runs(ledger, args, code):
    _, ts, agent = setup(ledger, [("refund_create", args, "bad")])
    r = run(agent, "go")
    assert r.output == "done" and BODY.ran == []
    assert parse_message(returns(r)[0])["error"] == code
    assert ledger.tasks() == []


def test_an_undeclared_member_is_refused_by_pydantic_ai_itself(ledger):
    """Pydantic AI's tool validator forbids extra members before call_tool: nothing runs."""
    _, ts, agent = setup(ledger, [("refund_create", {**FROZEN_2500, "note": "x"}, "bad")])
    r = run(agent, "go")
    assert r.output == "done" and BODY.ran == [] and ledger.tasks() == []
    assert returns(r)[0][0]["type"] == "extra_forbidden"


def test_test_model_is_paused_by_an_always_rule(ledger):
    always = {**CONTRACTS, "refund_create": pa.contract_for_tool(tools, "refund_create", approval="always")}
    _, ts, agent = setup(ledger, model=test_model.TestModel(call_tools=["refund_create"]), contracts=always)
    r = run(agent, "go")
    assert isinstance(r.output, DeferredToolRequests) and BODY.ran == []


def test_the_example_runs():
    out = run_example("pydantic_ai_refund")
    assert "paused for approval" in out and "ran: refunded 2000 USD on order-17" in out
    assert "override_args without an amendment: tool_args_drift" in out


# --- Without the adapter: the bypasses docs/ADAPTERS.md lists. If one of these fails, the
# framework changed its behaviour: update the document (the adapter's tests above still hold).


def plain(*steps):
    gated = toolsets.FunctionToolset()
    gated.add_function(refund_create, requires_approval=True)
    return pai.Agent(scripted(*steps), output_type=[str, DeferredToolRequests], toolsets=[gated])


def test_without_the_adapter_override_args_run_directly():
    agent = plain(refund(2500))
    r = asyncio.run(agent.run("refund"))
    asyncio.run(agent.run(message_history=r.all_messages(), deferred_tool_results=DeferredToolResults(
        approvals={"call_1": ToolApproved(override_args={**FROZEN_2500, "amount_minor": "50"})})))
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 50})], '"50" coerced and run'


def test_without_the_adapter_args_edited_in_the_history_run():
    agent = plain(refund(2500))
    r = asyncio.run(agent.run("refund"))
    history = r.all_messages()
    for m in history:
        if isinstance(m, msgs.ModelResponse):
            for p in m.parts:
                if isinstance(p, msgs.ToolCallPart):
                    p.args = {**FROZEN_2500, "amount_minor": 50}
    asyncio.run(agent.run(message_history=history,
                          deferred_tool_results=DeferredToolResults(approvals={"call_1": True})))
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 50})]


def test_without_the_adapter_an_approval_is_whatever_the_caller_passes():
    agent = plain(refund(90000))
    r = asyncio.run(agent.run("refund"))
    asyncio.run(agent.run(message_history=r.all_messages(), deferred_tool_results=DeferredToolResults(
        approvals={"call_1": True})))
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 90000})]


def test_without_the_adapter_300_is_coerced_to_an_integer():
    agent = plain(refund("300"))
    r = asyncio.run(agent.run("refund"))
    asyncio.run(agent.run(message_history=r.all_messages(),
                          deferred_tool_results=DeferredToolResults(approvals={"call_1": True})))
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 300})]


def test_without_the_adapter_the_same_deferred_results_run_twice():
    agent = plain(refund(2500), "done", "done")
    r = asyncio.run(agent.run("refund"))
    for _ in range(2):
        asyncio.run(agent.run(message_history=r.all_messages(),
                              deferred_tool_results=DeferredToolResults(approvals={"call_1": True})))
    assert BODY.ran == [("refund_create", FROZEN_2500)] * 2


# -- a model response's parallel calls as one batch (issue 28) --------------------------------
# Refunds over 1000 need a person; up to 3 of them are reviewed as one batch, under caps.
BATCH = {"max_items": 3, "caps": {"count": 3, "sum": {"pointer": "/args/amount_minor", "max": 50000}}}
BATCHED = {**CONTRACTS, "refund_create": pa.contract_for_tool(tools, "refund_create", approval=REFUND_RULE,
                                                               cost_minor=25, batch=BATCH)}


def parallel(*amounts: int):
    """One model response: a refund per amount, in parallel (call_0, call_1, ...)."""
    return [("refund_create", {**FROZEN_2500, "order_id": f"order-{i}", "amount_minor": a}, f"call_{i}")
            for i, a in enumerate(amounts)]


def test_parallel_calls_make_one_review_and_each_runs_once(ledger):
    _, ts, agent = setup(ledger, parallel(2500, 3000, 4000), contracts=BATCHED)
    r = run(agent, "refund the outage")
    assert isinstance(r.output, DeferredToolRequests) and BODY.ran == []
    shown = [r.output.metadata[f"call_{i}"] for i in range(3)]
    # Every call's deferral names the same batch: the reviewer decides once, not three times.
    [batch] = {s["batch"]["id"] for s in shown}
    assert {s["batch"]["size"] for s in shown} == {3}
    assert {s["batch"]["approval_id"] for s in shown} == {ledger.batch(batch)["approval_id"]}
    decide_batch(ledger, batch)
    r2 = run(agent, message_history=r.all_messages(), deferred_tool_results=ts.deferred_results(r.output))
    assert r2.output == "done"
    assert sorted(a["amount_minor"] for _, a in BODY.ran) == [2500, 3000, 4000]
    for i in range(3):
        assert ledger.task(tid(f"call_{i}"))["state"] == "succeeded"
        assert kinds(ledger, tid(f"call_{i}")).count("claimed") == 1
    # Claimed as items: the lineage counted them under its caps.
    assert ledger.batch(batch)["totals"]["count"] == 3


def test_a_turn_is_proposed_once_for_all_its_calls(ledger, monkeypatch):
    seal, ts, agent = setup(ledger, parallel(2500, 3000, 4000), contracts=BATCHED)
    proposed = []
    aturn = seal.aturn

    async def counted(calls, t, **kw):
        proposed.append([c.request_id for c in calls])
        return await aturn(calls, t, **kw)

    monkeypatch.setattr(seal, "aturn", counted)
    r = run(agent, "refund the outage")
    # Three calls gated, one proposal of their turn (not one per call), and one batch.
    assert proposed == [["call_0", "call_1", "call_2"]]
    batches = {r.output.metadata[f"call_{i}"]["batch"]["id"] for i in range(3)}
    assert len(batches) == 1
    # On resume the turn is planned once for its three calls, and proposed no more.
    planned = []
    plan = seal.plan

    def counted_plan(calls, t, **kw):
        planned.append([c.request_id for c in calls])
        return plan(calls, t, **kw)

    monkeypatch.setattr(seal, "plan", counted_plan)
    decide_batch(ledger, batches.pop())
    r2 = run(agent, message_history=r.all_messages(), deferred_tool_results=ts.deferred_results(r.output))
    assert r2.output == "done" and len(BODY.ran) == 3
    assert planned == [["call_0", "call_1", "call_2"]] and len(proposed) == 1


def test_a_deselected_call_is_refused_and_the_others_run(ledger):
    _, ts, agent = setup(ledger, parallel(2500, 3000, 4000), contracts=BATCHED)
    r = run(agent, "refund the outage")
    decide_batch(ledger, r.output.metadata["call_0"]["batch"]["id"], deselect=[1])
    r2 = run(agent, message_history=r.all_messages(), deferred_tool_results=ts.deferred_results(r.output))
    assert sorted(a["amount_minor"] for _, a in BODY.ran) == [2500, 4000]
    assert ledger.task(tid("call_1"))["state"] != "succeeded" and r2.output == "done"


def test_calls_under_a_contract_that_marks_values_sensitive_are_each_their_own_review(ledger):
    # A batch would freeze the order ids in the clear: core plans none, and nothing is raised.
    marked = Contract({**BATCHED["refund_create"].document, "sensitive": {"/args/order_id": "order_ref"}})
    _, ts, agent = setup(ledger, parallel(2500, 3000, 4000), contracts={**BATCHED, "refund_create": marked})
    r = run(agent, "refund the outage")
    shown = [r.output.metadata[f"call_{i}"] for i in range(3)]
    assert len({s["approval_id"] for s in shown}) == 3 and all("batch" not in s for s in shown)
    assert all("order-" not in str(s["action"]["args"]["order_id"]) for s in shown)


def test_without_a_batch_member_each_call_is_its_own_review(ledger):
    _, ts, agent = setup(ledger, parallel(2500, 3000, 4000))
    r = run(agent, "refund the outage")
    shown = [r.output.metadata[f"call_{i}"] for i in range(3)]
    assert len({s["approval_id"] for s in shown}) == 3 and all("batch" not in s for s in shown)
    for i in range(3):  # three reviews
        decide(ledger, tid(f"call_{i}"))
    r2 = run(agent, message_history=r.all_messages(), deferred_tool_results=ts.deferred_results(r.output))
    assert sorted(a["amount_minor"] for _, a in BODY.ran) == [2500, 3000, 4000] and r2.output == "done"
