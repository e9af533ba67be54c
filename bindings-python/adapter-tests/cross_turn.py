"""One model turn of parallel refunds (conformance/adapters/refund.json's contract, with a
``batch`` member) through the LangGraph adapter against a real SQLite ledger: prints, as one JSON
line, the batch every call's interrupt names (id, digest). bindings-node/adapter-tests/
cross-language.test.mjs drives the same turn through the Node AI SDK adapter and compares: the
same turn must be the same batch, with the same fingerprint, in both languages.

    python cross_turn.py <refund.json> <ledger directory> <turn.json>
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
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "FakeModel":  # noqa: ARG002
        return self


@tool
def refund_create(order_id: str, amount_minor: int, currency: str) -> str:
    """Refund part or all of an order."""
    return f"refunded {amount_minor}"


def main(spec_path: str, where: str, turn_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text("utf-8"))
    turn = json.loads(Path(turn_path).read_text("utf-8"))
    ledger = actionseal.Ledger(f"sqlite:{Path(where) / 'cross-turn-python.db'}")
    trusted = Trusted(tenant=spec["tenant"], subject=spec["subject"], policy_version=spec["policy_version"],
                      approvers={spec["approver"]})
    seal = Seal(ledger, {"refund_create": contract("refund_create", spec["schema"], approval=spec["rule"],
                                                   batch=turn["batch"])})
    calls = [{"name": "refund_create", "id": c["call_id"], "type": "tool_call", "args": c["args"]}
             for c in turn["calls"]]
    agent = create_agent(FakeModel(messages=iter([AIMessage("", tool_calls=calls), AIMessage("done")])),
                         tools=[refund_create], checkpointer=InMemorySaver(),
                         middleware=[ActionsealMiddleware(seal, trusted=lambda runtime: trusted)])
    config = {"configurable": {"thread_id": spec["job_id"]}}
    r = agent.invoke({"messages": [{"role": "user", "content": "refund"}]}, config, version="v2")
    named = {json.dumps({k: i.value["batch"][k] for k in ("id", "digest")}) for i in r.interrupts}
    [batch] = named  # one batch for every call of the turn
    b = json.loads(batch)
    assert ledger.batch(b["id"])["digest"] == b["digest"]
    print(json.dumps({**b, "interrupts": len(r.interrupts)}))
    ledger.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
