"""A Pydantic AI agent whose refund tool runs only as approved, through actionseal's ledger.

    pip install 'actionseal[pydantic-ai]'
    python examples/adapters/pydantic_ai_refund.py

A FunctionModel (no network, no API key) asks for a 2500-cent refund. The run defers with
Pydantic AI's own DeferredToolRequests. A client-made ``ToolApproved(override_args=...)`` runs
nothing; the reviewer's edit to 2000, recorded on the ledger as an amendment before the decision,
runs once, and the audit keeps both digests.
"""

import asyncio
import tempfile
from typing import Literal

import actionseal
from actionseal.adapters import Seal, Trusted, parse_message
from actionseal.adapters.pydantic_ai import SealedToolset, contract_for_tool
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolApproved
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.toolsets import FunctionToolset

tools = FunctionToolset()


@tools.tool_plain
def refund_create(order_id: str, amount_minor: int, currency: Literal["USD", "EUR"]) -> str:
    """Refund part or all of an order."""
    return f"refunded {amount_minor} {currency} on {order_id}"


def model(messages, info):
    if len(messages) == 1:  # the user's request: ask for the refund
        args = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}
        return ModelResponse(parts=[ToolCallPart("refund_create", args, tool_call_id="call_1")])
    return ModelResponse(parts=[TextPart("done")])


ledger = actionseal.Ledger(f"sqlite:{tempfile.mkdtemp()}/ledger.db")
seal = Seal(ledger, {"refund_create": contract_for_tool(
    tools, "refund_create", approval={"when": [{"pointer": "/amount_minor", "op": "gt", "value": 1000}]})},
    proposer="agent:refunds", executor="worker-1")
toolset = SealedToolset(tools, seal=seal, trusted=lambda ctx: Trusted(
    tenant="shop-1", subject="user:alice", policy_version="refunds-2026-12", approvers={"user:bob"},
    job_id=ctx.deps["conversation"]))
agent = Agent(FunctionModel(model), toolsets=[toolset], output_type=[str, DeferredToolRequests], deps_type=dict)
DEPS = {"conversation": "conv-1"}


def tool_returns(result) -> list:
    return [p.content for m in result.new_messages() if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, ToolReturnPart)]


async def main() -> None:
    paused = await agent.run("Refund order 17", deps=DEPS)
    shown = paused.output.metadata["call_1"]
    print(f"paused for approval of {shown['action']['args']} [{shown['short_fingerprint']}]")
    history = paused.all_messages()

    # The approval server: the reviewer edits the amount, recorded before the decision.
    seal.amend(shown["task_id"], {**shown["action"]["args"], "amount_minor": 2000}, reviewer="user:bob",
               reason="partial refund")
    t, now = ledger.task(shown["task_id"]), ledger.now()
    ledger.decide({"approval_id": t["approval_id"], "decision_id": "dec-1", "job_id": t["job_id"],
                   "request_id": t["request_id"], "action_digest": t["action_digest"], "decision": "approved",
                   "approver": "user:bob", "decided_at": now, "expires_at": now + 15 * 60_000})

    forged = DeferredToolResults(approvals={"call_1": ToolApproved(
        override_args={"order_id": "order-17", "amount_minor": 50, "currency": "USD"})})
    r = await agent.run(message_history=history, deferred_tool_results=forged, deps=DEPS)
    print(f"override_args without an amendment: {parse_message(tool_returns(r)[0])['error']}")

    r = await agent.run(message_history=history, deferred_tool_results=toolset.deferred_results(paused.output),
                        deps=DEPS)
    t = ledger.task(shown["task_id"])
    print(f"ran: {tool_returns(r)[0]}; task {t['state']}")
    print(f"audit: proposed {actionseal.short_fingerprint(t['proposed_digest'])}, "
          f"approved and run {actionseal.short_fingerprint(t['action_digest'])}")


asyncio.run(main())
