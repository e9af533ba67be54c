"""LangChain v1 / LangGraph: an agent middleware that runs a governed tool only through a won
ledger claim, with the frozen arguments.

    from actionseal.adapters.langgraph import ActionsealMiddleware, contract_for_tool
    seal = Seal(ledger, {"refund_create": contract_for_tool(refund_create, approval=RULE)},
                proposer="agent:refunds", executor="worker-1")
    agent = create_agent(model, tools=[...], checkpointer=saver,
                         middleware=[ActionsealMiddleware(seal, trusted=lambda runtime: ...)])

- ``after_model`` freezes and proposes every governed call of the model's message, so the task
  and its fingerprint exist before anything pauses (a ``HumanInTheLoopMiddleware`` listed first
  interrupts after it). The message's parallel calls are one turn (``Seal.turn``): where their
  contract has a ``batch`` member, core puts the calls that need a person in one batch, the
  person reviews it once (every call's interrupt names the same ``batch``), and each call
  claims its own item when the tools node runs it.
- ``wrap_tool_call`` / ``awrap_tool_call`` re-freeze the call the tools node is about to run
  (after any HITL edit), claim it, and run the handler with the claim's frozen args. While the
  ledger holds no claimable approval it calls ``interrupt()`` with the frozen action and its
  fingerprints; the resume value is never read as a decision, the ledger is asked again.
- The job is the thread id, the request the tool call id; tenant, subject and policy come from
  ``trusted(runtime)``, the application's server context.
- ``external={"refund_create": handoff}``: for the tools named there the agent only proposes
  and pauses. Once the ledger holds a decision, ``handoff(action, task)`` is called with the
  action the tools node presents and its task, and its string answer is the tool result; the
  tool body never runs in the agent's process and nothing is claimed here: an external
  executor claims and dispatches (examples/refund-desk/).
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Mapping, Optional

from .._actionseal import gate_step
from ._common import (Pause, Proposed, Refuse, Run, Seal, Trusted, TurnCall, contract, decided, outcome, resumed,
                      unrouted)

try:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import AIMessage, ToolMessage
    from langgraph.config import get_config
    from langgraph.types import interrupt
except ImportError as e:  # pragma: no cover - exercised by the adapter tests' version report
    raise ImportError(
        "actionseal.adapters.langgraph needs langchain>=1.5 and langgraph>=1.2 "
        f"(pip install 'actionseal[langgraph]'): {e}"
    ) from e

__all__ = ["ActionsealMiddleware", "Seal", "Trusted", "contract_for_tool", "task_id_for"]


def contract_for_tool(tool: Any, *, approval: Any, cost_minor: int = 0, effect: str = "write",
                      version: str = "1", batch: Optional[Mapping[str, Any]] = None) -> Any:
    """The contract of a LangChain tool: its own argument schema (``tool_call_schema``, what the
    model is shown), unchanged; the rule, cost and ``batch`` member from the application."""
    return contract(tool.name, tool.tool_call_schema.model_json_schema(), approval=approval,
                    cost_minor=cost_minor, effect=effect, version=version, batch=batch)


def task_id_for(trusted: Trusted, thread_id: str, tool_call_id: str) -> str:
    """The ledger task of a tool call (for an approval server that received a HITL request)."""
    from .._actionseal import Ledger

    return Ledger.task_id(tenant=trusted.tenant, job_id=thread_id, request_id=tool_call_id)


def _turn(messages: Any, tool_call_id: Optional[str] = None) -> list:
    """The calls of the model's turn: the last AIMessage's, or the one that made
    ``tool_call_id``."""
    for m in reversed(messages or []):
        if isinstance(m, AIMessage) and (tool_call_id is None or any(
                tc["id"] == tool_call_id for tc in m.tool_calls)):
            return [TurnCall(tc["name"], tc["args"], tc["id"]) for tc in m.tool_calls]
    return []


def _messages(state: Any) -> Any:
    return state.get("messages", []) if isinstance(state, dict) else getattr(state, "messages", [])


def _thread_id(config: Optional[dict]) -> Optional[str]:
    tid = ((config or {}).get("configurable") or {}).get("thread_id")
    return None if tid is None else str(tid)


class _Handoff:
    """A decided call of an external executor's tool: the action presented and its task."""

    def __init__(self, action: dict, task: dict) -> None:
        self.action, self.task = action, task


class ActionsealMiddleware(AgentMiddleware):
    """Binds each governed tool call to its ledger task. Beside ``HumanInTheLoopMiddleware``,
    list HITL first (it pauses in ``after_model``, which runs in reverse order, so this one
    proposes first) and pass it ``edit_notice=None``: a HITL edit runs only if the approval
    server recorded it as an amendment (``Seal.amend``) before deciding."""

    def __init__(self, seal: Seal, *, trusted: Callable[[Any], Trusted],
                 external: Optional[Mapping[str, Callable[[dict, dict], str]]] = None) -> None:
        super().__init__()
        self.seal, self.trusted = seal, trusted
        self.external = dict(external or {})

    @property
    def name(self) -> str:
        return "ActionsealMiddleware"

    # -- propose as soon as the model asks ----------------------------------------------------
    def _propose_all(self, state: Any, runtime: Any, job: Optional[str]) -> None:
        calls = _turn(_messages(state))
        if not calls or job is None:
            return
        # Bad args are reported to the model by wrap_tool_call, where the call would run.
        self.seal.turn(calls, self.trusted(runtime), job_id=job)

    def after_model(self, state: Any, runtime: Any) -> None:
        self._propose_all(state, runtime, _thread_id(get_config()))
        return None

    async def aafter_model(self, state: Any, runtime: Any) -> None:
        await asyncio.to_thread(self._propose_all, state, runtime, _thread_id(get_config()))
        return None

    # -- dispatch -------------------------------------------------------------------------------
    def _gate(self, request: Any) -> Any:
        tc = request.tool_call
        job = _thread_id(request.runtime.config)
        if job is None:
            return unrouted(tc["name"], "job")
        trusted = self.trusted(request.runtime)
        # The batch of the call's turn, recomputed from the thread (no state of our own), so
        # that a waiting call's interrupt names the batch the reviewer decides once.
        batch = self.seal.batch_of(_turn(_messages(request.state), tc["id"]), trusted, job_id=job,
                                   request_id=tc["id"])
        if tc["name"] in self.external:
            return self._handoff_gate(tc, trusted, job, batch)
        return self.seal.gate(tc["name"], tc["args"], trusted, job_id=job, request_id=tc["id"], batch_id=batch)

    def _handoff_gate(self, tc: Any, trusted: Trusted, job: str, batch: Optional[str]) -> Any:
        """Propose and pause only: the verdict for a tool an external executor dispatches."""
        proposed = self.seal.prepare(tc["name"], tc["args"], trusted, job_id=job, request_id=tc["id"],
                                     batch_id=batch)
        if not isinstance(proposed, Proposed):
            return proposed
        task = proposed.task
        refused = decided(resumed(task), task)
        if isinstance(refused, Refuse):
            return refused
        # The external executor claims, and puts an approved amendment in place itself: it is
        # handed the call as the framework presents it.
        presented = self.seal.freeze(tc["name"], tc["args"], trusted, job_id=job, request_id=tc["id"])
        return _Handoff(presented, task)

    def _handed(self, request: Any, handoff: "_Handoff") -> Any:
        tc = request.tool_call
        text = self.external[tc["name"]](handoff.action, handoff.task)
        return ToolMessage(content=text, tool_call_id=tc["id"], name=tc["name"])

    @staticmethod
    def _refusal(request: Any, refuse: Refuse) -> Any:
        tc = request.tool_call
        return ToolMessage(content=refuse.message, tool_call_id=tc["id"], name=tc["name"], status="error")

    def _outcome(self, result: Any) -> tuple[str, Any]:
        if isinstance(result, ToolMessage):
            content = result.content if isinstance(result.content, str) else None
            # An error message from the tools node is a body that raised: its effect is in doubt.
            return outcome("raised" if result.status == "error" else "returned"), {"content": content}
        return outcome("returned"), None

    def _not_governed(self, request: Any) -> Optional[Refuse]:
        """A call of a tool without a contract runs as it is, unless its call id already has a
        task: then a governed call was switched to this tool (a HITL edit can do that)."""
        tc = request.tool_call
        job = _thread_id(request.runtime.config)
        task = None if job is None else self.seal.existing(self.trusted(request.runtime), job_id=job,
                                                           request_id=tc["id"])
        if task is None:
            return None
        return decided(gate_step({"step": "invoke", "tool": tc["name"], "task": task}), task)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        if not self.seal.governs(request.tool_call["name"]):
            switched = self._not_governed(request)
            return handler(request) if switched is None else self._refusal(request, switched)
        gate = self._gate(request)
        while isinstance(gate, Pause):
            interrupt(gate.request)  # returns only on resume; the value is not a decision
            gate = self._gate(request)
        if isinstance(gate, Refuse):
            return self._refusal(request, gate)
        if isinstance(gate, _Handoff):
            return self._handed(request, gate)
        return self._run(gate, request, handler)

    def _run(self, run: Run, request: Any, handler: Callable[[Any], Any]) -> Any:
        frozen = request.override(tool_call={**request.tool_call, "args": run.args})
        try:
            result = handler(frozen)
        except Exception:
            self.seal.finish(run, "unknown")
            raise
        self.seal.finish(run, *self._outcome(result))
        return result

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        if not self.seal.governs(request.tool_call["name"]):
            switched = await asyncio.to_thread(self._not_governed, request)
            return await handler(request) if switched is None else self._refusal(request, switched)
        # The ledger blocks on its database (without the GIL): keep it off the event loop.
        gate = await asyncio.to_thread(self._gate, request)
        while isinstance(gate, Pause):
            interrupt(gate.request)
            gate = await asyncio.to_thread(self._gate, request)
        if isinstance(gate, Refuse):
            return self._refusal(request, gate)
        if isinstance(gate, _Handoff):
            return await asyncio.to_thread(self._handed, request, gate)
        frozen = request.override(tool_call={**request.tool_call, "args": gate.args})
        try:
            result = await handler(frozen)
        except Exception:
            await self.seal.afinish(gate, "unknown")
            raise
        await self.seal.afinish(gate, *self._outcome(result))
        return result
