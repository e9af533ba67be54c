"""MCP (Python SDK ``mcp`` 2.x): a gateway between an MCP client and a real MCP server that
forwards a governed ``tools/call`` only through a won ledger claim, exactly as frozen, once.

    upstream = Client(real_server, elicitation_callback=decline_elicitations)   # connected
    gateway = Gateway(upstream, server_id="billing", rules={"refund_create": Rule(approval=RULE)},
                      seal=Seal(ledger, {}, proposer="mcp-gateway", executor="mcp-gateway"),
                      trusted=lambda ctx: Trusted(..., job_id=<the client's session>),
                      review_url=lambda task: f"https://approvals.example/{task['id']}")
    # serve gateway.server (a low-level mcp Server) to the client

- The contract of a governed tool is rebuilt from the upstream's current ``tools/list`` at each
  call: ``tool`` is ``<server_id>.<name>``, ``args`` its ``inputSchema`` unchanged, the rule, cost
  and effect from ``rules`` (never from the server's annotations, which MCP calls untrusted). A
  schema changed after the approval is a different contract: drift at ``/contract``.
- MCP has no call id: the request is ``call-`` and 16 hex digits of the call's fingerprint, so the
  same call sent again is the same task. The first call answers a URL elicitation error
  (-32042) whose ``elicitationId`` is the task id and whose URL is the reviewer's page; the
  message shows the frozen args and the fingerprints. Nothing is forwarded.
- The client retries with ``_meta["io.actionseal/task"]`` naming the task (a pointer, not a
  credential: it must be a task of this tenant and job): the gateway claims with the args
  presented and forwards ``claim.action.args`` once, with ``_meta["io.actionseal/idempotency_key"]``.
  Drift is an ``is_error`` result naming the approved args; a spent task answers its recorded
  result again; an expired approval answers -32042 again for the same task.
- The gateway never asks the client for a decision and never takes an elicitation answer as one:
  give the upstream client ``decline_elicitations`` so a server's own "confirm?" form is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Union

from .._actionseal import ActionsealError, fingerprint, gate_step
from ._common import Pause, Refuse, Seal, Trusted, contract, invalid_args, outcome, unrouted, unserved

try:
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import UrlElicitationRequiredError
except ImportError as e:  # pragma: no cover - exercised by the adapter tests' version report
    raise ImportError(f"actionseal.adapters.mcp needs mcp>=2.3 (pip install 'actionseal[mcp]'): {e}") from e

__all__ = ["Gateway", "Rule", "Seal", "Trusted", "decline_elicitations", "TASK_META", "IDEMPOTENCY_META"]

TASK_META = "io.actionseal/task"
IDEMPOTENCY_META = "io.actionseal/idempotency_key"


@dataclass(frozen=True)
class Rule:
    """What the gateway's configuration says about one upstream tool."""

    approval: Any
    cost_minor: int = 0
    effect: str = "write"
    version: str = "1"


async def decline_elicitations(context: Any, params: Any) -> Any:
    """The upstream client's elicitation callback: a server asking "confirm?" is not a person
    deciding, so the gateway declines every elicitation."""
    return types.ElicitResult(action="decline")


def _error_result(refuse: Refuse) -> Any:
    return types.CallToolResult(content=[types.TextContent(type="text", text=refuse.message)],
                                structured_content={"actionseal": dict(refuse.payload)}, is_error=True)


class Gateway:
    """Serves ``server`` (an ``mcp.server.lowlevel.Server``) in front of ``upstream``, a connected
    ``mcp.Client``. Only the tools named in ``rules`` are listed and callable."""

    def __init__(self, upstream: Any, *, server_id: str, rules: Mapping[str, Union[Rule, Mapping[str, Any]]],
                 seal: Seal, trusted: Callable[[Any], Trusted], review_url: Callable[[Dict[str, Any]], str],
                 name: str = "actionseal-gateway") -> None:
        self.upstream, self.server_id, self.seal = upstream, server_id, seal
        self.rules = {k: v if isinstance(v, Rule) else Rule(**v) for k, v in rules.items()}
        self._trusted, self.review_url = trusted, review_url
        self.server = Server(name, on_list_tools=self._list_tools, on_call_tool=self._call_tool)

    def contract_name(self, tool: str) -> str:
        return f"{self.server_id}.{tool}"

    async def _upstream_tools(self) -> Dict[str, Any]:
        listed = await self.upstream.list_tools(cache_mode="bypass")
        return {t.name: t for t in listed.tools}

    async def _list_tools(self, ctx: Any, params: Any) -> Any:
        tools = await self._upstream_tools()
        return types.ListToolsResult(tools=[t for name, t in tools.items() if name in self.rules])

    def _trusted_for(self, ctx: Any) -> Trusted:
        t = self._trusted(ctx)
        if not t.job_id:
            raise ValueError("mcp gateway: trusted(ctx) must give a job_id (the client's session)")
        return t

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        name, args = params.name, params.arguments or {}
        rule = self.rules.get(name)
        tool = (await self._upstream_tools()).get(name) if rule else None
        if rule is None or tool is None:
            return _error_result(unrouted(name, "tool"))
        key = self.contract_name(name)
        try:
            self.seal.contracts[key] = contract(key, tool.input_schema, approval=rule.approval,
                                                cost_minor=rule.cost_minor, effect=rule.effect, version=rule.version)
        except ActionsealError as e:  # the upstream's schema is outside core's subset
            return _error_result(unserved(name, e))
        trusted = self._trusted_for(ctx)
        request_id = await self._request_id(name, key, args, (params.meta or {}).get(TASK_META), trusted)
        if isinstance(request_id, Refuse):
            return _error_result(request_id)
        gate = await self.seal.agate(key, args, trusted, job_id=trusted.job_id, request_id=request_id)
        if isinstance(gate, Pause):
            raise self._approval_required(gate)
        if isinstance(gate, Refuse):
            return self._refused(gate)
        try:
            result = await self.upstream.call_tool(name, gate.args,
                                                   meta={IDEMPOTENCY_META: gate.claim["idempotency_key"]})
        except Exception:
            await self.seal.afinish(gate, outcome("raised"))
            raise
        recorded = {"call_tool_result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}
        # An error the upstream reports is its answer: core records it as failed, with the answer.
        body = "reported_error" if result.is_error else "returned"
        await self.seal.afinish(gate, outcome(body), recorded)
        return result

    async def _request_id(self, name: str, key: str, args: Any, pointer: Any,
                          trusted: Trusted) -> Union[str, Refuse]:
        if pointer is None:
            try:
                return "call-" + fingerprint({"tool": key, "args": args})[7:23]
            except ActionsealError as e:
                # Args that do not even fingerprint (an inexact number, ...) are refused to the
                # model as the gate refuses them, never raised into the server's log.
                return invalid_args(e, name)
        try:
            task = await self.seal.aledger.task(pointer) if isinstance(pointer, str) else None
        except ActionsealError:
            task = None
        if task is None or (task["tenant"], task["job_id"], task["action"]["tool"]) != (trusted.tenant,
                                                                                       trusted.job_id, key):
            return unrouted(name, "task")
        return task["request_id"]

    def _approval_required(self, pause: Pause) -> Exception:
        d = gate_step({"step": "elicit", "task": pause.task, "url": self.review_url(pause.task)})
        return UrlElicitationRequiredError([types.ElicitRequestURLParams(
            message=d["message"], url=d["url"], elicitation_id=d["task_id"])])

    def _refused(self, refuse: Refuse) -> Any:
        # A replay of a finished call: the recorded answer, no second effect.
        if isinstance(refuse.replay, dict) and "call_tool_result" in refuse.replay:
            return types.CallToolResult.model_validate(refuse.replay["call_tool_result"])
        return _error_result(refuse)
