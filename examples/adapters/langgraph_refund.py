"""A LangChain v1 agent whose refund tool runs only as approved, through actionseal's ledger.

    pip install 'actionseal[langgraph]'
    python examples/adapters/langgraph_refund.py

A scripted model (no network, no API key) asks for a 2500-cent refund twice: the first time the
reviewer approves and the frozen call runs once; the second time the thread's state is edited to
50 after the approval, and the call is refused with the approved args sent back to the model.
"""

import tempfile
from typing import Any, Literal

import actionseal
from actionseal.adapters import Seal, Trusted, parse_message
from actionseal.adapters.langgraph import ActionsealMiddleware, contract_for_tool
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command


@tool
def refund_create(order_id: str, amount_minor: int, currency: Literal["USD", "EUR"]) -> str:
    """Refund part or all of an order."""
    return f"refunded {amount_minor} {currency} on {order_id}"


class ScriptedModel(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self


def refund_call(amount: int) -> AIMessage:
    args = {"order_id": "order-17", "amount_minor": amount, "currency": "USD"}
    return AIMessage("", tool_calls=[{"name": "refund_create", "args": args, "id": "call_1", "type": "tool_call"}])


# The server's context: who the agent acts for and who may approve. Never from the model.
TRUSTED = Trusted(tenant="shop-1", subject="user:alice", policy_version="refunds-2026-12",
                  approvers={"user:bob"})
ledger = actionseal.Ledger(f"sqlite:{tempfile.mkdtemp()}/ledger.db")
seal = Seal(ledger, {"refund_create": contract_for_tool(
    refund_create, approval={"when": [{"pointer": "/amount_minor", "op": "gt", "value": 1000}]})},
    proposer="agent:refunds", executor="worker-1")


def reviewer_approves(task_id: str) -> None:
    """The approval server, after a person looked at the frozen action."""
    t, now = ledger.task(task_id), ledger.now()
    ledger.decide({"approval_id": t["approval_id"], "decision_id": "dec-" + task_id, "job_id": t["job_id"],
                   "request_id": t["request_id"], "action_digest": t["action_digest"], "decision": "approved",
                   "approver": "user:bob", "decided_at": now, "expires_at": now + 15 * 60_000})


def last_tool_message(agent: Any, config: dict) -> str:
    m = [m for m in agent.get_state(config).values["messages"] if isinstance(m, ToolMessage)][-1]
    payload = parse_message(m.content) if m.status == "error" else None
    if payload:
        return f"refused: {payload['error']} (approved args: {payload.get('approved_args')})"
    return f"ran: {m.content}"


for thread, tamper in (("thread-1", False), ("thread-2", True)):
    agent = create_agent(ScriptedModel(messages=iter([refund_call(2500), AIMessage("done")])),
                         tools=[refund_create], checkpointer=InMemorySaver(),
                         middleware=[ActionsealMiddleware(seal, trusted=lambda runtime: TRUSTED)])
    config = {"configurable": {"thread_id": thread}}
    result = agent.invoke({"messages": [{"role": "user", "content": "refund order 17"}]}, config, version="v2")
    shown = result.interrupts[0].value
    print(f"{thread}: paused for approval of {shown['action']['args']} [{shown['short_fingerprint']}]")
    reviewer_approves(shown["task_id"])
    if tamper:  # someone edits the checkpointed call after the approval
        last = agent.get_state(config).values["messages"][-1]
        agent.update_state(config, {"messages": [last.model_copy(update={"tool_calls": refund_call(50).tool_calls})]})
    agent.invoke(Command(resume=True), config, version="v2")
    print(f"{thread}: {last_tool_message(agent, config)}; task {ledger.task(shown['task_id'])['state']}")
