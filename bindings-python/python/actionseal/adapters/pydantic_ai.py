"""Pydantic AI: a toolset wrapper whose governed tools run only through a won ledger claim, with
the frozen arguments, deferring for approval with Pydantic AI's own ``DeferredToolRequests``.

    from actionseal.adapters.pydantic_ai import SealedToolset, contract_for_tool
    toolset = SealedToolset(tools, seal=seal, trusted=lambda ctx: Trusted(..., job_id=ctx.deps.conversation))
    agent = Agent(model, toolsets=[toolset], output_type=[str, DeferredToolRequests])
    r = await agent.run("...", deps=deps)                      # r.output: DeferredToolRequests
    ... the reviewer decides on the ledger (and may amend the args first) ...
    r = await agent.run(message_history=r.all_messages(), deps=deps,
                        deferred_tool_results=toolset.deferred_results(r.output))

- ``call_tool`` checks the model's raw args (from the run's messages) against the contract
  before pydantic's lax validation can coerce them (``"300"`` for an integer is a ``ModelRetry``
  naming ``type_mismatch``), freezes and proposes the call, and raises ``ApprovalRequired`` with
  the frozen action and its fingerprints while the task waits for a person (again on resume if
  the ledger says so: an expired approval defers the same task again).
- On resume it claims with the args it is handed (the history's, or ``override_args``) and runs
  the tool with the claim's frozen args. A reviewer's edit reaches the tool only as a ledger
  amendment (``Seal.amend`` before the decision); ``deferred_results`` then passes the amended
  args as ``override_args``. Any other change is refused as drift and the model is told the
  approved args.
- The job is ``trusted(ctx).job_id`` (the app's conversation id: ``ctx.run_id`` changes on
  resume), the request the tool call id.
- The model response's parallel calls are one turn (``Seal.turn``): where their contract has a
  ``batch`` member, core puts the calls that need a person in one batch, proposed once, as the
  first of them runs; every call's deferral names the batch, the reviewer decides it once, and
  each call claims its own item on resume.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from .._actionseal import ActionsealError, canonicalize
from ._common import (Pause, Refuse, Seal, Trusted, TurnCall, batch_in, contract, invalid_args, resumed,
                      strict_args)

try:
    from pydantic_ai import DeferredToolRequests, DeferredToolResults, ModelRetry, ToolApproved, ToolDenied
    from pydantic_ai.exceptions import ApprovalRequired
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.toolsets import WrapperToolset
    from pydantic_core import to_jsonable_python
except ImportError as e:  # pragma: no cover - exercised by the adapter tests' version report
    raise ImportError(
        f"actionseal.adapters.pydantic_ai needs pydantic-ai-slim>=2.68 (pip install 'actionseal[pydantic-ai]'): {e}"
    ) from e

__all__ = ["SealedToolset", "Seal", "Trusted", "contract_for_tool"]


def contract_for_tool(toolset: Any, name: str, *, approval: Any, cost_minor: int = 0, effect: str = "write",
                      version: str = "1", batch: Optional[Mapping[str, Any]] = None) -> Any:
    """The contract of a tool of a ``FunctionToolset``: its ``parameters_json_schema`` (what the
    model is shown), unchanged; the rule, cost and ``batch`` member from the application."""
    return contract(name, toolset.tools[name].tool_def.parameters_json_schema, approval=approval,
                    cost_minor=cost_minor, effect=effect, version=version, batch=batch)


def _calls_of_turn(ctx: Any) -> List[Any]:
    """The tool calls of the model response that made this call (its turn), in the response's
    order; empty if it is not in the run's messages."""
    for m in reversed(ctx.messages):
        if isinstance(m, ModelResponse):
            parts = [p for p in m.parts if isinstance(p, ToolCallPart)]
            if any(p.tool_call_id == ctx.tool_call_id for p in parts):
                return parts
    return []


def _raw_args(ctx: Any) -> Any:
    """The args the model sent for this call, before any validation, or None if not found."""
    for p in _calls_of_turn(ctx):
        if p.tool_call_id == ctx.tool_call_id:
            return strict_args(p.args)
    return None


def _turn(ctx: Any) -> List[TurnCall]:
    """The turn of this call as ``Seal.turn`` takes it. A call whose args do not parse strictly
    takes part in none (its own gate says why)."""
    calls = []
    for p in _calls_of_turn(ctx):
        try:
            calls.append(TurnCall(p.tool_name, strict_args(p.args), p.tool_call_id))
        except ActionsealError:
            continue
    return calls


# A turn's plan is wanted only while its calls are gated, which they are together.
_TURNS_KEPT = 16


async def _planned(seal: Seal, calls: List[TurnCall], t: Trusted) -> Dict[str, Any]:
    """``Seal.plan`` of a turn, which touches no ledger, as ``_plan`` awaits it."""
    return seal.plan(calls, t, job_id=t.job_id)


@dataclass
class SealedToolset(WrapperToolset):
    """Wraps a toolset; the tools ``seal`` has contracts for are governed, the others pass."""

    seal: Seal = None  # type: ignore[assignment]
    trusted: Callable[[Any], Trusted] = None  # type: ignore[assignment]
    # The plans (and proposals) of the last turns, by what they were made of (see ``_plan``).
    _turns: "OrderedDict[Tuple[Any, ...], asyncio.Future[Dict[str, Any]]]" = field(
        default_factory=OrderedDict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.seal is None or self.trusted is None:
            raise TypeError("SealedToolset(wrapped, seal=..., trusted=...)")

    def _trusted(self, ctx: Any) -> Trusted:
        t = self.trusted(ctx)
        if not t.job_id:
            raise ValueError("pydantic_ai: trusted(ctx) must give a job_id (the app's conversation id)")
        return t

    async def _plan(self, calls: List[TurnCall], t: Trusted, *, propose: bool) -> Dict[str, Any]:
        """The plan of a turn (``propose``: also proposed on the ledger), made once for all its
        calls: the first call to ask makes it, and the others (run concurrently) wait for it
        instead of making the same one again, which would build the whole batch (and look it up
        on the ledger) once per call. One that failed is forgotten, so that the next call makes
        it again."""
        key = (propose, repr(t), tuple((c.name, canonicalize(c.args), c.request_id) for c in calls))
        plan = self._turns.get(key)
        if plan is None:
            made = self.seal.aturn(calls, t, job_id=t.job_id) if propose else _planned(self.seal, calls, t)
            plan = asyncio.ensure_future(made)
            self._turns[key] = plan
            while len(self._turns) > _TURNS_KEPT:
                self._turns.popitem(last=False)
        try:
            # Shielded: a call cancelled while it waits does not cancel the others' plan.
            return await asyncio.shield(plan)
        except BaseException:
            if plan.done() and self._turns.get(key) is plan:
                del self._turns[key]
            raise

    async def call_tool(self, name: str, tool_args: Dict[str, Any], ctx: Any, tool: Any) -> Any:
        if not self.seal.governs(name):
            return await super().call_tool(name, tool_args, ctx, tool)
        t = self._trusted(ctx)
        if not ctx.tool_call_approved:
            # What the model sent, checked strictly before pydantic's lax mode coerces it.
            try:
                raw = _raw_args(ctx)
                if raw is not None:
                    self.seal.contracts[name].validate_args(raw)
            except ActionsealError as e:
                raise ModelRetry(invalid_args(e, name).message) from None
        presented = to_jsonable_python(tool_args)
        # The turn's parallel calls, batched where their contract allows: proposed together,
        # once, before the first of them is gated, and named by every call's deferral.
        batch = None
        calls = _turn(ctx)
        if len(calls) > 1:
            # On resume the turn was proposed already: its plan is enough.
            plan = await self._plan(calls, t, propose=not ctx.tool_call_approved)
            batch = batch_in(plan, calls, ctx.tool_call_id)
        gate = await self.seal.agate(name, presented, t, job_id=t.job_id, request_id=ctx.tool_call_id,
                                     batch_id=batch)
        if isinstance(gate, Pause):
            raise ApprovalRequired(metadata=gate.request)
        if isinstance(gate, Refuse):
            if gate.bad_args:  # the model may correct them
                raise ModelRetry(gate.message)
            return gate.message
        frozen = tool.args_validator.validate_python(gate.args)
        try:
            result = await super().call_tool(name, frozen, ctx, tool)
        except Exception:
            # Whatever the body raised, its effect may have happened: reconcile, never retry.
            await self.seal.afinish(gate, "unknown")
            raise
        await self.seal.afinish(gate, "succeeded", {"output": str(result)})
        return result

    def deferred_results(self, requests: DeferredToolRequests) -> DeferredToolResults:
        """The approvals of a paused run, from the ledger, never from the client: approved tasks
        get ``ToolApproved`` (with the amended args as ``override_args`` when the reviewer
        amended the action), rejected ones ``ToolDenied``; tasks still waiting are left out."""
        out = DeferredToolResults()
        for part in requests.approvals:
            meta = requests.metadata.get(part.tool_call_id) or {}
            if meta.get("type") != "actionseal_approval":
                continue
            d = resumed(self.seal.ledger.task(meta["task_id"]))
            if d["decision"] == "approve":
                out.approvals[part.tool_call_id] = ToolApproved(override_args=d["args"])
            elif d["decision"] == "refuse":
                out.approvals[part.tool_call_id] = ToolDenied(d["message"])
        return out
