"""An OpenAI Agents SDK agent whose refund tool runs only as approved, through actionseal's ledger.

    pip install 'actionseal[openai-agents]'
    python examples/adapters/openai_agents_refund.py

The SDK's own scripted model (no network, no API key) asks for a 2500-cent refund. The run
pauses; ``RunState.approve`` alone (what a client holding the state could do) runs nothing; once
the reviewer approves on the ledger, the frozen call runs once.
"""

import asyncio
import tempfile
from typing import Literal

import actionseal
from actionseal.adapters import Seal, Trusted
from actionseal.adapters.openai_agents import SealedTools, contract_for_tool
from agents import Agent, RunState, Runner, function_tool, set_tracing_disabled
from agents.exceptions import ToolInputGuardrailTripwireTriggered
from agents.testing import ScriptedModel, assistant_message, function_call

set_tracing_disabled(True)


@function_tool
def refund_create(order_id: str, amount_minor: int, currency: Literal["USD", "EUR"]) -> str:
    """Refund part or all of an order."""
    return f"refunded {amount_minor} {currency} on {order_id}"


ledger = actionseal.Ledger(f"sqlite:{tempfile.mkdtemp()}/ledger.db")
seal = Seal(ledger, {"refund_create": contract_for_tool(
    refund_create, approval={"when": [{"pointer": "/amount_minor", "op": "gt", "value": 1000}]})},
    proposer="agent:refunds", executor="worker-1")
# The app's context object (never shown to the model) names the run; the rest is the server's.
sealed = SealedTools(seal, trusted=lambda app: Trusted(
    tenant="shop-1", subject="user:alice", policy_version="refunds-2026-12", approvers={"user:bob"},
    job_id=app["run_id"]))
APP = {"run_id": "run-1"}
agent = Agent(name="desk", tools=[sealed.tool(refund_create)], model=ScriptedModel([
    [function_call("refund_create", {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"},
                   call_id="call_1")],
    [assistant_message("Refunded.")],
]))


def reviewer_approves(task_id: str) -> None:
    """The approval server, after a person looked at the frozen action."""
    t, now = ledger.task(task_id), ledger.now()
    ledger.decide({"approval_id": t["approval_id"], "decision_id": "dec-1", "job_id": t["job_id"],
                   "request_id": t["request_id"], "action_digest": t["action_digest"], "decision": "approved",
                   "approver": "user:bob", "decided_at": now, "expires_at": now + 15 * 60_000})


async def main() -> None:
    result = await Runner.run(agent, "Refund order 17", context=APP)
    task = ledger.task(sealed.task_id(APP, result.interruptions[0].raw_item.call_id))
    print(f"paused for approval of {task['action']['args']} "
          f"[{actionseal.short_fingerprint(task['action_digest'])}]")
    saved = result.to_state().to_string()  # the server keeps the paused run

    state = await RunState.from_string(agent, saved, context_override=APP)
    state.approve(state.get_interruptions()[0])
    try:
        await Runner.run(agent, state)
    except ToolInputGuardrailTripwireTriggered as e:
        print(f"RunState.approve alone: stopped, task {e.output.output_info['state']}")

    reviewer_approves(task["id"])
    state = await RunState.from_string(agent, saved, context_override=APP)
    sealed.apply_decisions(state, APP)
    done = await Runner.run(agent, state)
    ran = [i.output for i in done.new_items if type(i).__name__ == "ToolCallOutputItem"]
    print(f"ran: {ran[0]}; task {ledger.task(task['id'])['state']}")


asyncio.run(main())
