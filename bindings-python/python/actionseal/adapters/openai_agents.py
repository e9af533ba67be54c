"""OpenAI Agents SDK (Python ``openai-agents``): governed function tools that run only through a
won ledger claim, with the frozen arguments.

    from actionseal.adapters.openai_agents import SealedTools, contract_for_tool
    sealed = SealedTools(seal, trusted=lambda app_context: Trusted(..., job_id=app_context.run_id))
    agent = Agent(..., tools=[sealed.tool(refund_create), sealed.tool(order_search)])
    result = await Runner.run(agent, "...", context=app_context)      # pauses: result.interruptions
    ... the reviewer decides on the ledger ...
    state = result.to_state(); sealed.apply_decisions(state, app_context)
    result = await Runner.run(agent, state)

- ``needs_approval`` freezes and proposes the call (idempotent) and answers whether its task is
  waiting for a person.
- A tool input guardrail claims at dispatch, from the raw argument text parsed strictly. Drift
  and a spent claim become ``reject_content`` (the model reads the approved args); a task with no
  claimable approval (no ledger decision, or expired) trips the wire: nothing runs, and the app
  resumes from the state it kept once the ledger has a decision.
- The tool's invoker runs the original tool with the claim's frozen args, never with the text the
  SDK hands over. ``RunState.approve`` (and ``always_approve``) only wakes the run up.
- The job is ``trusted(...).job_id`` (the app's run or conversation id), the request the call id.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any, Callable, Dict, List

from .._actionseal import ActionsealError, Ledger, gate_step
from ._common import Pause, Run, Seal, Trusted, contract, invalid_args, outcome, resumed, strict_args

try:
    from agents import FunctionTool, RunState, ToolGuardrailFunctionOutput, tool_input_guardrail
    from agents.tool import maybe_invoke_function_tool_failure_error_function, set_function_tool_failure_error_function
except ImportError as e:  # pragma: no cover - exercised by the adapter tests' version report
    raise ImportError(
        f"actionseal.adapters.openai_agents needs openai-agents>=0.24 (pip install 'actionseal[openai-agents]'): {e}"
    ) from e

__all__ = ["SealedTools", "Seal", "Trusted", "contract_for_tool"]


def contract_for_tool(tool: Any, *, approval: Any, cost_minor: int = 0, effect: str = "write",
                      version: str = "1") -> Any:
    """The contract of a ``FunctionTool``: its ``params_json_schema`` (what the model is shown),
    unchanged; the rule and cost from the application."""
    return contract(tool.name, tool.params_json_schema, approval=approval, cost_minor=cost_minor,
                    effect=effect, version=version)


class SealedTools:
    """Wraps function tools with the ledger's gate. ``trusted`` maps the app's context object
    (``Runner.run(context=...)``, which the model never sees) to a ``Trusted`` with a ``job_id``."""

    def __init__(self, seal: Seal, *, trusted: Callable[[Any], Trusted]) -> None:
        self.seal, self._trusted = seal, trusted
        self._claims: Dict[str, Run] = {}
        self._lock = threading.Lock()

    def trusted(self, app_context: Any) -> Trusted:
        t = self._trusted(app_context)
        if not t.job_id:
            raise ValueError("openai_agents: trusted(...) must give a job_id (the app's run or conversation id)")
        return t

    def task_id(self, app_context: Any, call_id: str) -> str:
        t = self.trusted(app_context)
        return Ledger.task_id(tenant=t.tenant, job_id=t.job_id, request_id=call_id)

    def tool(self, ft: FunctionTool) -> FunctionTool:
        name = ft.name
        if not self.seal.governs(name):
            raise ValueError(f"openai_agents: no contract for the tool {name!r}")
        seal = self.seal

        async def needs_approval(ctx: Any, params: Dict[str, Any], call_id: str) -> bool:
            t = self.trusted(ctx.context)
            proposed = await seal.aprepare(name, params, t, job_id=t.job_id, request_id=call_id)
            # Args that break the schema do not pause: the guardrail tells the model why.
            return isinstance(proposed, Pause)

        async def decide(tc: Any) -> Any:
            t = self.trusted(tc.context)
            try:
                args = strict_args(tc.tool_arguments)  # duplicate keys, lone surrogates, ...
            except ActionsealError as e:
                return invalid_args(e, name)
            return await seal.agate(name, args, t, job_id=t.job_id, request_id=tc.tool_call_id)

        @tool_input_guardrail(name="actionseal")
        async def guard(data: Any) -> ToolGuardrailFunctionOutput:
            tc = data.context
            gate = await decide(tc)
            if isinstance(gate, Run):
                with self._lock:
                    self._claims[gate.claim["task_id"]] = gate
                return ToolGuardrailFunctionOutput.allow({"task_id": gate.claim["task_id"]})
            if isinstance(gate, Pause):
                # No claimable approval: stop the run, nothing runs; resume after the decision.
                return ToolGuardrailFunctionOutput.raise_exception(gate.request)
            return ToolGuardrailFunctionOutput.reject_content(gate.message, gate.payload)

        # The SDK's invoker turns a body's exception into text for the model (the tool's
        # failure_error_function), so the invoker never raises: a copy of the tool whose
        # formatter notes the call first tells a body that raised from one that returned.
        # The text is the original tool's, by the SDK's own policy (its formatter, or the
        # default one and then the run's RunConfig.tool_error_formatter; None re-raises).
        raised: set = set()

        async def noted(ctx: Any, error: Exception) -> Any:
            with self._lock:
                raised.add(ctx.tool_call_id)
            return await maybe_invoke_function_tool_failure_error_function(function_tool=ft, context=ctx, error=error)

        inner = set_function_tool_failure_error_function(dataclasses.replace(ft), noted).on_invoke_tool

        async def invoke(ctx: Any, _args_the_sdk_hands_over: str) -> Any:
            with self._lock:
                run = self._claims.pop(self.task_id(ctx.context, ctx.tool_call_id), None)
            if run is None:  # no claim won in this process for this call: never run
                return gate_step({"step": "invoke", "tool": name})["message"]
            try:
                result = await inner(ctx, json.dumps(run.args))
            except Exception:
                with self._lock:
                    raised.discard(ctx.tool_call_id)
                await seal.afinish(run, outcome("raised"))
                raise
            with self._lock:
                body_raised = ctx.tool_call_id in raised
                raised.discard(ctx.tool_call_id)
            if body_raised:
                # Its effect may have happened: in doubt, for reconciliation, never a success.
                await seal.afinish(run, outcome("raised"))
            else:
                await seal.afinish(run, outcome("returned"), {"output": str(result)})
            return result

        return dataclasses.replace(ft, needs_approval=needs_approval, on_invoke_tool=invoke,
                                   # Last, so that a guardrail of the app that refuses runs before anything is claimed.
                                   tool_input_guardrails=[*(ft.tool_input_guardrails or []), guard])

    def apply_decisions(self, state: RunState, app_context: Any) -> List[Dict[str, Any]]:
        """Marks in the RunState the interruptions the ledger decided: approved tasks are
        approved (one call each, never ``always_approve``), rejected ones rejected. Returns the
        tasks still waiting. The guardrail re-proves each one at dispatch anyway."""
        waiting = []
        for item in state.get_interruptions():
            if not self.seal.governs(item.name):
                continue
            task = self.seal.ledger.task(self.task_id(app_context, item.raw_item.call_id))
            d = resumed(task)
            if d["decision"] == "approve":
                state.approve(item)
            elif d["decision"] == "refuse":
                state.reject(item, rejection_message=d["message"])
            else:
                waiting.append(task)
        return waiting
