"""The refund of conformance/adapters/refund.json through the LangGraph adapter (create_agent, a
scripted fake model, a real SQLite ledger): prints, one JSON line per case, the text the model
reads. bindings-node/adapter-tests/cross-language.test.mjs runs it and compares that text, byte
for byte, with what the Node AI SDK adapter gives the model for the same refund.

    python cross_refund.py <refund.json> <ledger directory>
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import actionseal
from actionseal.adapters import Seal, Trusted, contract
from actionseal.adapters.langgraph import ActionsealMiddleware
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command


class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "FakeModel":  # noqa: ARG002
        return self


@tool
def refund_create(order_id: str, amount_minor: int, currency: str) -> str:
    """Refund part or all of an order."""
    return f"refunded {amount_minor}"


def main(spec_path: str, where: str) -> None:
    spec = json.loads(Path(spec_path).read_text("utf-8"))
    ledger = actionseal.Ledger(f"sqlite:{Path(where) / 'cross-python.db'}")
    trusted = Trusted(tenant=spec["tenant"], subject=spec["subject"], policy_version=spec["policy_version"],
                      approvers={spec["approver"]})
    seal = Seal(ledger, {"refund_create": contract("refund_create", spec["schema"], approval=spec["rule"])})
    for n, case in enumerate(spec["cases"]):
        call = {"name": "refund_create", "id": case["call_id"], "type": "tool_call", "args": spec["approved"]}
        agent = create_agent(FakeModel(messages=iter([AIMessage("", tool_calls=[call]), AIMessage("done")])),
                             tools=[refund_create], checkpointer=InMemorySaver(),
                             middleware=[ActionsealMiddleware(seal, trusted=lambda runtime: trusted)])
        config = {"configurable": {"thread_id": spec["job_id"]}}
        r = agent.invoke({"messages": [{"role": "user", "content": "refund"}]}, config, version="v2")
        task = ledger.task(r.interrupts[0].value["task_id"])
        now = ledger.now()
        ledger.decide({"approval_id": task["approval_id"], "decision_id": f"dec-{n}", "job_id": task["job_id"],
                       "request_id": task["request_id"], "action_digest": task["action_digest"],
                       "decision": case["decision"], "approver": spec["approver"], "decided_at": now,
                       "expires_at": now + 3_600_000})
        if case["presented"] is not None:  # the thread's call edited after the decision
            last = agent.get_state(config).values["messages"][-1]
            edited = [{**call, "args": case["presented"]}]
            agent.update_state(config, {"messages": [last.model_copy(update={"tool_calls": edited})]})
        agent.invoke(Command(resume=True), config, version="v2")
        told = [m.content for m in agent.get_state(config).values["messages"] if isinstance(m, ToolMessage)]
        print(json.dumps({"case": case["case"], "text": told[-1]}, ensure_ascii=False))
    ledger.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
