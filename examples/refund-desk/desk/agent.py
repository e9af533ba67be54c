"""The desk's agent: a LangChain v1 / LangGraph agent with a scripted model (no API key). It
looks the order up (read-only: runs at once), then asks for a refund of order-17, 2500 minor
units. The actionseal middleware proposes the refund to the ledger and pauses; this process
prints the task and its fingerprint, files the model's own words on why it asks with the
approval server (shown to the reviewer as the model's, untrusted), waits for the reviewer's
decision on the ledger, resumes, and hands the call to the executor through the approval
server. The refund body never runs here. The agent knows the server by its own token
(RUN_DIR/agent.token), which can hand calls over and nothing else: it cannot decide.

    python desk/agent.py --db URL --server URL --token-file FILE --job JOB [--regenerate 2600]
                         [--order-id ID] [--amount N] [--tool refund_large --proposer user:frank]
                         [--tool refund_receipt --email ADDRESS]

``--regenerate N``: after the decision the model is scripted to regenerate the refund under
the same call id with N (time travel to before the model step): the executor must refuse it.
``--order-id``, ``--amount``: what the model asks for (order-17 and 2500 unless given), such
as an order id with a zero-width space, which the model's own words do not show.
``--tool refund_large``: the four-eyes refund (finance and risk both approve); ``--proposer``: who
asked for it (the proposer the ledger records, whom separation of duties excludes).
``--tool refund_receipt --email ADDRESS``: a refund whose receipt the payment service e-mails to
ADDRESS, a value the contract marks sensitive (issue 29): the agent proposes it in the clear, the
ledger freezes it as a commitment, and the agent's pause shows the commitment, not the address.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from actionseal import Ledger, short_fingerprint
from actionseal.adapters import Seal
from actionseal.adapters.langgraph import ActionsealMiddleware

from feed import FEED_WAIT_MS, end_cursor
from refunds import CONTRACTS, SENSITIVE, TRUSTED, order_search, refund_create, refund_large, refund_receipt

WAITING = ("awaiting_approval", "awaiting_reapproval")  # a person has not decided (again) yet


class ScriptedModel(GenericFakeChatModel):
    """The scripted model; create_agent binds tools, which the script does not need."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":  # noqa: ARG002
        return self


def tool_call(name: str, cid: str, args: dict) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "id": cid, "type": "tool_call", "args": args}])


def refund(order_id: str, amount: int, tool: str = "refund_create", email: str | None = None) -> AIMessage:
    args = {"order_id": order_id, "amount_minor": amount, "currency": "USD"}
    if email is not None:
        args["customer_email"] = email
    call = tool_call(tool, "call_refund", args)
    # What the model says about its call: its words, not the call's values.
    call.content = (f"The customer says order-17 arrived broken and asks for their money back; "
                    f"a refund of {amount} cents is within the policy for damaged goods.")
    return call


def say(kind: str, **fields: Any) -> None:
    """One line for a person and one machine-readable line (``AGENT {json}``) for the test."""
    print(f"AGENT {json.dumps({'event': kind, **fields}, sort_keys=True)}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--server", required=True)
    p.add_argument("--token-file", required=True, type=Path)
    p.add_argument("--job", required=True)
    p.add_argument("--regenerate", type=int)
    p.add_argument("--order-id", default="order-17")
    p.add_argument("--amount", type=int, default=2500)
    p.add_argument("--tool", choices=("refund_create", "refund_large", "refund_receipt"), default="refund_create")
    p.add_argument("--email", help="the customer's e-mail (refund_receipt)")
    p.add_argument("--proposer", default="agent:refunds")
    a = p.parse_args()
    agent_token = a.token_file.read_text().strip()

    def post(path: str, body: dict) -> dict:
        req = urllib.request.Request(f"{a.server}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json",
                                              "authorization": f"Bearer {agent_token}"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def handoff(action: dict, task: dict) -> str:
        answer = post("/api/handoffs", {"task_id": task["id"], "action": action})
        # A value the contract marks sensitive stays out of the agent's log.
        shown = {k: "(sensitive)" if f"/args/{k}" in SENSITIVE else v for k, v in action["args"].items()}
        say("handed_off", task_id=task["id"], fingerprint=answer["fingerprint"], args=shown)
        return f"handed to the executor as task {task['id']} ({answer['fingerprint']})"

    if (a.tool == "refund_receipt") != (a.email is not None):
        p.error("--email goes with --tool refund_receipt, and only with it")
    script = [tool_call("order_search", "call_search", {"query": "order-17"}),
              refund(a.order_id, a.amount, a.tool, a.email)]
    if a.regenerate is not None:
        script.append(refund(a.order_id, a.regenerate, a.tool, a.email))
    script.append(AIMessage("The refund is with the desk."))
    ledger = Ledger(a.db)
    seal = Seal(ledger, CONTRACTS, proposer=a.proposer, executor="agent:refunds")
    agent = create_agent(ScriptedModel(messages=iter(script)), tools=[order_search, refund_create, refund_large, refund_receipt],
                         middleware=[ActionsealMiddleware(seal, trusted=lambda rt: TRUSTED,
                                                          external={"refund_create": handoff,
                                                                    "refund_large": handoff,
                                                                    "refund_receipt": handoff})],
                         checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": a.job}}
    result = agent.invoke({"messages": [{"role": "user", "content": "order-17 arrived broken, refund it"}]},
                          config, version="v2")
    regenerate = a.regenerate is not None
    explained = False
    while result.interrupts:
        shown = result.interrupts[0].value
        if not explained:
            # The model's words about its call, for the reviewer to read as the model's.
            said = next(m.content for m in reversed(agent.get_state(config).values["messages"])
                        if isinstance(m, AIMessage) and m.tool_calls)
            post("/api/rationales", {"task_id": shown["task_id"], "text": said})
            explained = True
        say("paused", task_id=shown["task_id"], state=shown["state"], fingerprint=shown["fingerprint"],
            short=short_fingerprint(shown["fingerprint"]), args=shown["action"]["args"],
            quorum=shown.get("quorum"))
        print(f"agent: refund {shown['action']['args']} awaits a reviewer: task {shown['task_id']}, "
              f"fingerprint {shown['fingerprint']}", file=sys.stderr, flush=True)
        seen = shown.get("quorum")
        # Woken by the ledger's change feed (commits), never by polling: the cursor is taken
        # before the task is read, so no change after that read is missed.
        cursor = end_cursor(ledger)
        while (task := ledger.task(shown["task_id"]))["state"] in WAITING:
            # Under a quorum, each approval counted so far (the ledger's; still nothing runs).
            if task.get("quorum") is not None and task["quorum"] != seen:
                seen = task["quorum"]
                say("waiting", task_id=task["id"], missing=seen["missing"], counted=len(seen["counted"]),
                    missing_roles=seen["missing_roles"])
            cursor = ledger.changes(after=cursor, limit=1000, timeout_ms=FEED_WAIT_MS)["cursor"]
        if regenerate:
            # The model regenerates the refund under the same call id after the decision.
            regenerate = False
            before_model = next(s for s in agent.get_state_history(config) if s.next == ("model",))
            result = agent.invoke(None, before_model.config, version="v2")
        else:
            result = agent.invoke(Command(resume="the ledger holds the decision"), config, version="v2")
    say("done", answer=result.value["messages"][-1].content)
    ledger.close()


if __name__ == "__main__":
    main()
