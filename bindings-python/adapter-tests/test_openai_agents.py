"""The OpenAI Agents SDK adapter in real runs (Agent, Runner, RunState, the SDK's own
agents.testing.ScriptedModel), against a real ledger: every case of issue 12's test list, the
bypasses the SDK's approvals alone allow, and the runnable example."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any, Literal

import pytest

from conftest import FOUR_EYES, FROZEN_2500, REFUND_RULE, TRUSTED, Body, decide, framework, kinds, run_example

DISTS = ["openai-agents", "openai"]
oa = framework("actionseal.adapters.openai_agents", DISTS)
sdk = framework("agents", DISTS)
testing = framework("agents.testing", DISTS)
exceptions = framework("agents.exceptions", DISTS)
invocation = framework("agents._tool_invocation", DISTS)  # the SDK's own call hash, to forge with
responses = framework("openai.types.responses", DISTS)

from actionseal.adapters import Seal, parse_message  # noqa: E402

Tripwire = exceptions.ToolInputGuardrailTripwireTriggered
sdk.set_tracing_disabled(True)  # no exporter: no network
BODY = Body()
CTX = {"job_id": "run-1"}  # the app's context object: the model never sees it


@sdk.function_tool
def refund_create(order_id: str, amount_minor: int, currency: Literal["USD", "EUR", "CNY"]) -> str:
    """Refund part or all of an order."""
    BODY("refund_create", {"order_id": order_id, "amount_minor": amount_minor, "currency": currency})
    return f"refunded {amount_minor} {currency} on {order_id}"


@sdk.function_tool
def order_search(query: str) -> str:
    """Find orders (read-only)."""
    BODY("order_search", {"query": query})
    return "order-17"


CONTRACTS = {
    "refund_create": oa.contract_for_tool(refund_create, approval=REFUND_RULE, cost_minor=25),
    "order_search": oa.contract_for_tool(order_search, approval="never", effect="read"),
}


@pytest.fixture(autouse=True)
def fresh_body():
    BODY.ran.clear()


def trusted(app_context):
    import dataclasses

    return dataclasses.replace(TRUSTED, job_id=app_context["job_id"])


def refund(amount: Any, cid: str = "call_1"):
    return [testing.function_call("refund_create", {**FROZEN_2500, "amount_minor": amount}, call_id=cid)]


def done():
    return [testing.assistant_message("done")]


def setup(ledger, steps):
    seal = Seal(ledger, CONTRACTS, proposer="agent:refunds", executor="agents-worker")
    sealed = oa.SealedTools(seal, trusted=trusted)
    agent = sdk.Agent(name="desk", model=testing.ScriptedModel(steps),
                      tools=[sealed.tool(refund_create), sealed.tool(order_search)])
    return sealed, agent


def run(agent, input_):
    return asyncio.run(sdk.Runner.run(agent, input_, context=dict(CTX)))


def resume(agent, state):
    return asyncio.run(sdk.Runner.run(agent, state))


def restore(agent, saved):
    return asyncio.run(sdk.RunState.from_string(agent, saved, context_override=dict(CTX)))


def outputs(result):
    return [i.output for i in result.new_items if type(i).__name__ == "ToolCallOutputItem"]


def tid(sealed, cid="call_1"):
    return sealed.task_id(CTX, cid)


def test_approved_call_runs_once_with_frozen_args(ledger):
    sealed, agent = setup(ledger, [refund(2500), done()])
    r = run(agent, "refund order-17")
    assert len(r.interruptions) == 1 and BODY.ran == []
    task = ledger.task(tid(sealed))
    assert task["state"] == "awaiting_approval" and task["action"]["args"] == FROZEN_2500
    decide(ledger, task["id"])
    state = r.to_state()
    assert sealed.apply_decisions(state, CTX) == []
    resume(agent, state)
    assert BODY.ran == [("refund_create", FROZEN_2500)]
    assert ledger.task(task["id"])["state"] == "succeeded"


@sdk.function_tool
def refund_that_times_out(order_id: str, amount_minor: int, currency: Literal["USD", "EUR", "CNY"]) -> str:
    """Refund part or all of an order; the provider times out after sending it."""
    BODY("refund_create", {"order_id": order_id, "amount_minor": amount_minor, "currency": currency})
    raise RuntimeError("payment provider timeout after sending the refund")


def test_a_body_that_raises_is_in_doubt_though_the_sdk_answers_the_model(ledger):
    # The SDK turns the exception into text for the model (its failure_error_function), so
    # the tool's invoker returns: the effect may still have happened, never a success.
    sealed, agent, state = failing_run(ledger, dataclasses.replace(refund_that_times_out, name="refund_create"))
    r = resume(agent, state)
    assert BODY.ran == [("refund_create", FROZEN_2500)]
    assert outputs(r) and "error" in outputs(r)[0].lower()
    assert ledger.task(tid(sealed))["state"] == "unknown"


def failing_run(ledger, tool):
    """A governed `tool` whose body raises, proposed and approved: the run to resume."""
    seal = Seal(ledger, CONTRACTS, proposer="agent:refunds", executor="agents-worker")
    sealed = oa.SealedTools(seal, trusted=trusted)
    agent = sdk.Agent(name="desk", model=testing.ScriptedModel([refund(2500), done()]),
                      tools=[sealed.tool(tool)])
    r = run(agent, "refund order-17")
    decide(ledger, tid(sealed))
    state = r.to_state()
    sealed.apply_decisions(state, CTX)
    return sealed, agent, state


def test_the_runs_tool_error_formatter_words_a_governed_tools_failure(ledger):
    # With the tool's default failure policy the SDK asks RunConfig.tool_error_formatter for
    # the model's text: the adapter's copy of the tool keeps that policy.
    failing = dataclasses.replace(refund_that_times_out, name="refund_create")
    sealed, agent, state = failing_run(ledger, failing)
    config = sdk.RunConfig(tool_error_formatter=lambda a: f"the desk says: {a.kind} in {a.tool_name}")
    r = asyncio.run(sdk.Runner.run(agent, state, run_config=config))
    assert outputs(r) == ["the desk says: tool_exception in refund_create"]
    assert ledger.task(tid(sealed))["state"] == "unknown"


@sdk.function_tool(name_override="refund_create", failure_error_function=None)
def refund_that_reraises(order_id: str, amount_minor: int, currency: Literal["USD", "EUR", "CNY"]) -> str:
    """Refund part or all of an order; a failure is raised to the app, not told to the model."""
    BODY("refund_create", {"order_id": order_id, "amount_minor": amount_minor, "currency": currency})
    raise RuntimeError("payment provider timeout after sending the refund")


def test_a_tool_that_reraises_fails_the_run_and_leaves_its_task_in_doubt(ledger):
    # failure_error_function=None: the SDK re-raises the body's exception to the app.
    sealed, agent, state = failing_run(ledger, refund_that_reraises)
    with pytest.raises(Exception, match="payment provider timeout"):
        asyncio.run(sdk.Runner.run(agent, state))
    assert BODY.ran == [("refund_create", FROZEN_2500)]
    assert ledger.task(tid(sealed))["state"] == "unknown"


def test_runstate_approve_without_a_ledger_decision_runs_nothing(ledger):
    sealed, agent = setup(ledger, [refund(2500), done()])
    r = run(agent, "refund")
    state = r.to_state()
    state.approve(r.interruptions[0])
    with pytest.raises(Tripwire) as e:
        resume(agent, state)
    info = e.value.output.output_info
    assert BODY.ran == [] and (info["task_id"], info["state"]) == (tid(sealed), "awaiting_approval")


def test_a_partial_quorum_pauses_again_showing_who_approved_and_what_is_missing(ledger):
    seal = Seal(ledger, {**CONTRACTS, "refund_create": oa.contract_for_tool(refund_create, approval=FOUR_EYES, cost_minor=25)},
                proposer="agent:refunds", executor="agents-worker")
    sealed = oa.SealedTools(seal, trusted=trusted)
    agent = sdk.Agent(name="desk", model=testing.ScriptedModel([refund(90000), done()]), tools=[sealed.tool(refund_create)])
    r = run(agent, "refund")
    decide(ledger, tid(sealed), approver="user:bob", role="finance")
    assert ledger.task(tid(sealed))["state"] == "awaiting_approval"  # 1 of 2 is not approved
    state = r.to_state()
    state.approve(r.interruptions[0])
    with pytest.raises(Tripwire) as e:
        resume(agent, state)
    shown = e.value.output.output_info  # the pause's request, for the reviewer
    assert BODY.ran == []
    assert (shown["state"], shown["quorum"]["missing"], shown["quorum"]["missing_roles"]) == \
        ("awaiting_approval", 1, [{"role": "risk", "count": 1}])
    assert [(c["approver"], c["role"]) for c in shown["quorum"]["counted"]] == [("user:bob", "finance")]


def test_args_tampered_in_the_saved_state_after_the_decision_are_refused(ledger):
    """The holder of the serialized state edits the args and recomputes the SDK's own call hash."""
    sealed, agent = setup(ledger, [refund(2500), done()])
    r = run(agent, "refund")
    decide(ledger, tid(sealed))
    state = r.to_state()
    sealed.apply_decisions(state, CTX)
    doc = json.loads(state.to_string().replace('\\"amount_minor\\":2500', '\\"amount_minor\\":50'))
    raw = responses.ResponseFunctionToolCall(**doc["last_processed_response"]["functions"][0]["tool_call"])
    doc["context"]["tool_invocations"]["call_1"]["fingerprint"] = invocation.tool_invocation_identity_and_scope(
        raw, tool_name="refund_create")[3]
    r2 = resume(agent, restore(agent, json.dumps(doc)))
    refusal = parse_message(outputs(r2)[0])
    assert BODY.ran == []
    assert refusal["error"] == "tool_args_drift" and refusal["approved_args"] == FROZEN_2500
    assert "tool_args_drift" in kinds(ledger, tid(sealed))


def test_an_approval_written_into_the_state_runs_nothing(ledger):
    sealed, agent = setup(ledger, [refund(90000), done()])
    r = run(agent, "refund")
    doc = json.loads(r.to_state().to_string())
    doc["context"]["function_tool_approvals"] = [{"agent": {"name": "desk"}, "tool_key": "refund_create",
                                                   "decision": {"approved": ["call_1"], "rejected": []}}]
    with pytest.raises(Tripwire):
        resume(agent, restore(agent, json.dumps(doc)))
    assert BODY.ran == []


def test_always_approve_is_not_a_standing_approval(ledger):
    sealed, agent = setup(ledger, [refund(2500, "call_1"), refund(99999, "call_2"), done()])
    r = run(agent, "refund")
    decide(ledger, tid(sealed))
    state = r.to_state()
    state.approve(r.interruptions[0], always_approve=True)
    with pytest.raises(Tripwire) as e:
        resume(agent, state)
    assert BODY.ran == [("refund_create", FROZEN_2500)]
    assert e.value.output.output_info["task_id"] == tid(sealed, "call_2")
    assert ledger.task(tid(sealed, "call_2"))["state"] == "awaiting_approval"


def test_two_racing_resumes_of_one_saved_state_and_a_third_dispatch_once(ledger):
    sealed, agent = setup(ledger, [refund(2500)] + [done()] * 4)
    r = run(agent, "refund")
    decide(ledger, tid(sealed))
    state = r.to_state()
    sealed.apply_decisions(state, CTX)
    saved = state.to_string()

    async def race():
        s1, s2 = [await sdk.RunState.from_string(agent, saved, context_override=dict(CTX)) for _ in range(2)]
        return await asyncio.gather(sdk.Runner.run(agent, s1), sdk.Runner.run(agent, s2))

    asyncio.run(race())
    assert BODY.count("refund_create") == 1
    third = resume(agent, restore(agent, saved))
    assert BODY.count("refund_create") == 1
    assert parse_message(outputs(third)[0])["error"] == "already_claimed"
    assert kinds(ledger, tid(sealed)).count("claimed") == 1


def test_expiry_while_paused_goes_back_to_approval_as_the_same_task(ledger, clock):
    sealed, agent = setup(ledger, [refund(2500)] + [done()] * 2)
    r = run(agent, "refund")
    saved = r.to_state().to_string()  # the server keeps the paused run
    decide(ledger, tid(sealed), ttl_ms=60_000)
    state = restore(agent, saved)
    sealed.apply_decisions(state, CTX)
    clock.advance(120_000)
    with pytest.raises(Tripwire) as e:
        resume(agent, state)
    info = e.value.output.output_info
    assert BODY.ran == [] and (info["task_id"], info["state"]) == (tid(sealed), "awaiting_reapproval")
    decide(ledger, tid(sealed))
    state = restore(agent, saved)
    assert sealed.apply_decisions(state, CTX) == []
    resume(agent, state)
    assert BODY.ran == [("refund_create", FROZEN_2500)]


def test_a_regenerated_call_is_its_own_task(ledger):
    sealed, agent = setup(ledger, [refund(2500, "call_1"), refund(2600, "call_2"), done()])
    r = run(agent, "refund")
    decide(ledger, tid(sealed))
    state = r.to_state()
    sealed.apply_decisions(state, CTX)
    r2 = resume(agent, state)
    assert BODY.ran == [("refund_create", FROZEN_2500)] and r2.interruptions
    assert ledger.task(tid(sealed, "call_2"))["action"]["args"]["amount_minor"] == 2600


def test_a_tool_that_needs_no_approval_runs_without_a_pause(ledger):
    steps = [[testing.function_call("order_search", {"query": "x"}, call_id="s1")], refund(500, "c5"), done()]
    sealed, agent = setup(ledger, steps)
    r = run(agent, "go")
    assert not r.interruptions
    assert BODY.ran == [("order_search", {"query": "x"}), ("refund_create", {**FROZEN_2500, "amount_minor": 500})]


@pytest.mark.parametrize("arguments,code", [
    ({**FROZEN_2500, "amount_minor": "300"}, "type_mismatch"),
    ({**FROZEN_2500, "note": "x"}, "unknown_field"),
])
def test_bad_input_is_a_clear_error_to_the_model_and_nothing_runs(ledger, arguments, code):
    sealed, agent = setup(ledger, [[testing.function_call("refund_create", arguments, call_id="bad")], done()])
    r = run(agent, "go")
    refusal = parse_message(outputs(r)[0])
    assert not r.interruptions and BODY.ran == [] and refusal["error"] == code
    assert ledger.tasks() == []


def test_duplicate_keys_in_the_raw_arguments_never_run(ledger):
    """needs_approval sees json.loads output (last key wins); the guardrail parses the raw text."""
    text = '{"order_id":"order-17","amount_minor":5,"amount_minor":5000,"currency":"USD"}'
    sealed, agent = setup(ledger, [[testing.function_call("refund_create", text, call_id="d1")], done()])
    r = run(agent, "go")
    decide(ledger, tid(sealed, "d1"))
    state = r.to_state()
    sealed.apply_decisions(state, CTX)
    r2 = resume(agent, state)
    assert BODY.ran == [] and parse_message(outputs(r2)[0])["error"] == "duplicate_key"


def test_the_example_runs():
    out = run_example("openai_agents_refund")
    assert "paused for approval" in out and "ran: refunded 2500 USD on order-17" in out
    assert "RunState.approve alone: stopped" in out


# --- Without the adapter: the bypasses docs/ADAPTERS.md lists. If one of these fails, the
# framework changed its behaviour: update the document (the adapter's tests above still hold).


def plain(steps):
    tool = dataclasses.replace(refund_create, needs_approval=True)
    return sdk.Agent(name="desk", model=testing.ScriptedModel(steps), tools=[tool])


def test_without_the_adapter_a_tampered_saved_state_runs_other_args():
    agent = plain([refund(2500), done()])
    r = run(agent, "refund")
    state = r.to_state()
    state.approve(r.interruptions[0])
    doc = json.loads(state.to_string().replace('\\"amount_minor\\":2500', '\\"amount_minor\\":50'))
    raw = responses.ResponseFunctionToolCall(**doc["last_processed_response"]["functions"][0]["tool_call"])
    doc["context"]["tool_invocations"]["call_1"]["fingerprint"] = invocation.tool_invocation_identity_and_scope(
        raw, tool_name="refund_create")[3]
    resume(agent, restore(agent, json.dumps(doc)))
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 50})]


def test_without_the_adapter_an_approval_written_into_the_state_runs():
    agent = plain([refund(90000), done()])
    r = run(agent, "refund")
    doc = json.loads(r.to_state().to_string())
    doc["context"]["function_tool_approvals"] = [{"agent": {"name": "desk"}, "tool_key": "refund_create",
                                                   "decision": {"approved": ["call_1"], "rejected": []}}]
    resume(agent, restore(agent, json.dumps(doc)))
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 90000})]


def test_without_the_adapter_always_approve_covers_later_calls_with_other_args():
    agent = plain([refund(2500, "call_1"), refund(99999, "call_2"), done()])
    r = run(agent, "refund")
    state = r.to_state()
    state.approve(r.interruptions[0], always_approve=True)
    r2 = resume(agent, state)
    assert not r2.interruptions
    assert BODY.ran == [("refund_create", FROZEN_2500), ("refund_create", {**FROZEN_2500, "amount_minor": 99999})]


def test_without_the_adapter_300_is_coerced_to_an_integer():
    agent = plain([refund("300"), done()])
    r = run(agent, "refund")
    state = r.to_state()
    state.approve(r.interruptions[0])
    resume(agent, state)
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 300})]


def test_without_the_adapter_a_saved_state_resumed_twice_runs_twice():
    agent = plain([refund(2500)] + [done()] * 2)
    r = run(agent, "refund")
    state = r.to_state()
    state.approve(r.interruptions[0])
    saved = state.to_string()
    resume(agent, restore(agent, saved))
    resume(agent, restore(agent, saved))
    assert BODY.ran == [("refund_create", FROZEN_2500)] * 2
