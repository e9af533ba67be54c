"""The MCP gateway (Python SDK) between an in-process MCP client and a real MCPServer, against a
real ledger: every case of issue 12's test list that MCP has, the bypasses MCP alone allows, and
the runnable example."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Annotated, Literal

import pytest

from conftest import FOUR_EYES, FROZEN_2500, REFUND_RULE, TRUSTED, Body, decide, framework, kinds, run_example

DISTS = ["mcp", "mcp-types"]
gw = framework("actionseal.adapters.mcp", DISTS)
mcp = framework("mcp", DISTS)
mcpserver = framework("mcp.server.mcpserver", DISTS)
exceptions = framework("mcp.shared.exceptions", DISTS)
types = framework("mcp_types", DISTS)
pydantic = framework("pydantic", DISTS)

from actionseal.adapters import Seal, parse_message  # noqa: E402
from pydantic import Field  # noqa: E402

BODY = Body()
SESSION = dataclasses.replace(TRUSTED, job_id="session-1")


class Confirm(pydantic.BaseModel):
    approve: bool


def billing():
    """The real MCP server behind the gateway (a fresh one per test)."""
    server = mcpserver.MCPServer("billing")

    @server.tool(description="Refund part or all of an order.")
    def refund_create(order_id: str, amount_minor: int, currency: Literal["USD", "EUR", "CNY"]) -> str:
        BODY("refund_create", {"order_id": order_id, "amount_minor": amount_minor, "currency": currency})
        return f"refunded {amount_minor} {currency} on {order_id}"

    @server.tool(description="Find orders.")
    def order_search(query: str) -> str:
        BODY("order_search", {"query": query})
        return "order-17"

    @server.tool(description="Delete an account.")
    def account_delete(account_id: str) -> str:
        BODY("account_delete", {"account_id": account_id})
        return "deleted"

    @server.tool(description="Close a customer account.")
    def close_account(account_id: str) -> str:
        BODY("close_account", {"account_id": account_id})
        return f"closed {account_id}"

    @server.tool(description="Refund after asking for confirmation.")
    async def refund_confirmed(order_id: str, amount_minor: int, ctx: mcpserver.Context) -> str:
        answer = await ctx.elicit(f"Refund {amount_minor} on {order_id}?", Confirm)
        if answer.action == "accept" and answer.data.approve:
            BODY("refund_confirmed", {"order_id": order_id, "amount_minor": amount_minor})
            return "refunded"
        return "declined"

    return server


RULES = {
    "refund_create": gw.Rule(approval=REFUND_RULE, cost_minor=25),
    "order_search": gw.Rule(approval="never", effect="read"),
    "refund_confirmed": gw.Rule(approval="always"),
    "close_account": gw.Rule(approval="always"),
}


@pytest.fixture(autouse=True)
def fresh_body():
    BODY.ran.clear()


def scenario(ledger, body, upstream_server=None):
    """Runs ``body(host, gateway)`` with host -> gateway -> billing, all in process."""

    async def go():
        async with mcp.Client(upstream_server or billing(), mode="legacy",
                              elicitation_callback=gw.decline_elicitations) as upstream:
            seal = Seal(ledger, {}, proposer="mcp-gateway", executor="mcp-gateway")
            gateway = gw.Gateway(upstream, server_id="billing", rules=RULES, seal=seal,
                                 trusted=lambda ctx: SESSION,
                                 review_url=lambda task: f"https://approvals.example/{task['id']}")
            async with mcp.Client(gateway.server, mode="legacy") as host:
                return await body(host, gateway)

    return asyncio.run(go())


async def call(host, amount=2500, task=None, **extra):
    args = {**FROZEN_2500, "amount_minor": amount, **extra}
    return await host.call_tool("refund_create", args, meta={gw.TASK_META: task} if task else None)


async def approval_required(host, **kw):
    with pytest.raises(exceptions.MCPError) as e:
        await call(host, **kw)
    assert e.value.code == -32042
    return e.value.data["elicitations"][0]


def test_a_governed_call_answers_approval_required_and_forwards_nothing(ledger):
    async def body(host, gateway):
        asked = await approval_required(host)
        task = ledger.task(asked["elicitationId"])
        assert task["state"] == "awaiting_approval" and task["action"]["args"] == FROZEN_2500
        assert task["action"]["tool"] == "billing.refund_create"
        assert asked["url"] == f"https://approvals.example/{task['id']}"
        assert task["action_digest"] in asked["message"] and '"amount_minor":2500' in asked["message"]
        again = await approval_required(host, task=task["id"])  # no decision yet
        assert again["elicitationId"] == task["id"]
        return task

    scenario(ledger, body)
    assert BODY.ran == []


def test_a_partial_quorum_asks_for_the_missing_approval_and_forwards_nothing(ledger):
    rules = {**RULES, "refund_create": gw.Rule(approval=FOUR_EYES, cost_minor=25)}

    async def body(host, gateway):
        asked = await approval_required(host, amount=90000)
        decide(ledger, asked["elicitationId"], approver="user:bob", role="finance")
        again = await approval_required(host, amount=90000, task=asked["elicitationId"])
        assert ledger.task(again["elicitationId"])["state"] == "awaiting_approval"
        return again["message"]

    async def go():
        async with mcp.Client(billing(), mode="legacy", elicitation_callback=gw.decline_elicitations) as upstream:
            seal = Seal(ledger, {}, proposer="mcp-gateway", executor="mcp-gateway")
            gateway = gw.Gateway(upstream, server_id="billing", rules=rules, seal=seal, trusted=lambda ctx: SESSION,
                                 review_url=lambda task: f"https://approvals.example/{task['id']}")
            async with mcp.Client(gateway.server, mode="legacy") as host:
                return await body(host, gateway)

    message = asyncio.run(go())
    assert "awaiting_approval; 1 of 2 approvals given; roles still needed: risk)" in message, message
    assert "user:bob" not in message
    assert BODY.ran == []


def test_approved_call_is_forwarded_once_with_the_frozen_args_and_replays_get_the_recorded_result(ledger):
    async def body(host, gateway):
        tid = (await approval_required(host))["elicitationId"]
        decide(ledger, tid)
        first = await call(host, task=tid)
        replay = await call(host, task=tid)
        resent = await call(host)  # the same call without the pointer: the same task
        return tid, first, replay, resent

    tid, first, replay, resent = scenario(ledger, body)
    assert BODY.ran == [("refund_create", FROZEN_2500)]
    assert not first.is_error and first.content[0].text == "refunded 2500 USD on order-17"
    assert replay.content[0].text == resent.content[0].text == first.content[0].text
    assert ledger.task(tid)["state"] == "succeeded" and kinds(ledger, tid).count("claimed") == 1


def test_args_changed_after_the_decision_are_refused(ledger):
    async def body(host, gateway):
        tid = (await approval_required(host))["elicitationId"]
        decide(ledger, tid)
        return await call(host, amount=50, task=tid)

    r = scenario(ledger, body)
    refusal = r.structured_content["actionseal"]
    assert BODY.ran == [] and r.is_error
    assert refusal["error"] == "tool_args_drift" and refusal["approved_args"] == FROZEN_2500
    assert parse_message(r.content[0].text) == refusal


def test_a_schema_changed_upstream_after_the_approval_is_refused(ledger):
    upstream = billing()

    async def body(host, gateway):
        tid = (await approval_required(host))["elicitationId"]
        decide(ledger, tid)
        upstream.remove_tool("refund_create")  # the server now takes any number

        @upstream.tool(name="refund_create", description="Refund part or all of an order.")
        def refund_create(order_id: str, amount_minor: float, currency: str) -> str:
            BODY("refund_create", {"order_id": order_id, "amount_minor": amount_minor})
            return "refunded"

        return await call(host, task=tid)

    r = scenario(ledger, body, upstream)
    refusal = r.structured_content["actionseal"]
    assert BODY.ran == [] and refusal["error"] == "tool_args_drift" and "/contract" in refusal["drift"]


def test_two_racing_approved_calls_forward_once(ledger):
    async def body(host, gateway):
        tid = (await approval_required(host))["elicitationId"]
        decide(ledger, tid)
        return tid, await asyncio.gather(call(host, task=tid), call(host, task=tid))

    tid, results = scenario(ledger, body)
    assert BODY.count("refund_create") == 1 and kinds(ledger, tid).count("claimed") == 1


def test_expiry_while_waiting_asks_again_for_the_same_task(ledger, clock):
    async def body(host, gateway):
        tid = (await approval_required(host))["elicitationId"]
        decide(ledger, tid, ttl_ms=60_000)
        clock.advance(120_000)
        again = await approval_required(host, task=tid)
        assert BODY.ran == [] and again["elicitationId"] == tid and "awaiting_reapproval" in again["message"]
        decide(ledger, tid)
        return await call(host, task=tid)

    r = scenario(ledger, body)
    assert not r.is_error and BODY.ran == [("refund_create", FROZEN_2500)]


def test_a_call_that_needs_no_approval_is_forwarded_without_a_pause(ledger):
    async def body(host, gateway):
        small = await call(host, amount=500)
        search = await host.call_tool("order_search", {"query": "x"})
        return small, search

    small, search = scenario(ledger, body)
    assert not small.is_error and not search.is_error
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 500}), ("order_search", {"query": "x"})]


def test_an_error_the_upstream_reports_is_recorded_failed(ledger):
    """The upstream answered with an error (is_error): an answer, so failed with that answer, as
    the Node gateway records it (core's ``ran`` step), not in doubt."""
    server = mcpserver.MCPServer("billing")

    @server.tool(description="Find orders.")
    def order_search(query: str) -> str:
        BODY("order_search", {"query": query})
        raise ValueError("the order index is down")

    async def body(host, gateway):
        first = await host.call_tool("order_search", {"query": "x"})
        [task] = ledger.tasks()
        # Sent again: the recorded failure is the upstream's answer, given again (core's replay).
        again = await host.call_tool("order_search", {"query": "x"}, meta={gw.TASK_META: task["id"]})
        return first, again

    r, again = scenario(ledger, body, server)
    [task] = ledger.tasks()
    assert r.is_error and BODY.ran == [("order_search", {"query": "x"})]
    assert task["state"] == "failed" and task["result"]["call_tool_result"]["isError"] is True
    assert again.is_error and again.content[0].text == r.content[0].text


def test_an_upstream_schema_outside_the_subset_is_refused_with_cores_payload(ledger):
    """The upstream's schema cannot be a contract: core's one payload (as Node's gateway), and
    nothing is forwarded."""
    server = mcpserver.MCPServer("billing")

    @server.tool(description="Find orders by tag.")
    def order_search(query: Annotated[str, Field(json_schema_extra={"if": {}})]) -> str:
        BODY("order_search", {"query": query})
        return "found"

    async def body(host, gateway):
        return await host.call_tool("order_search", {"query": "b"})

    r = scenario(ledger, body, server)
    refusal = parse_message(r.content[0].text)
    assert r.is_error and BODY.ran == [] and ledger.tasks() == []
    assert refusal["error"] == "unsupported_schema" and refusal["tool"] == "order_search"
    assert set(refusal) == {"error", "path", "tool", "message"}


@pytest.mark.parametrize("extra,code", [({"amount_minor": "300"}, "type_mismatch"), ({"note": "x"}, "unknown_field")])
def test_bad_input_is_a_clear_error_and_nothing_is_forwarded(ledger, extra, code):
    async def body(host, gateway):
        return await host.call_tool("refund_create", {**FROZEN_2500, **extra})

    r = scenario(ledger, body)
    assert r.is_error and r.structured_content["actionseal"]["error"] == code
    assert BODY.ran == [] and ledger.tasks() == []


def test_args_that_do_not_fingerprint_are_refused_to_the_model_and_logged_nowhere(ledger, caplog):
    # 2^64 + ...: no runtime holds it exactly. Before the gate, the gateway names the call by
    # its fingerprint; a refusal there is the model's to read, never the server's error log.
    caplog.set_level(logging.DEBUG)

    async def body(host, gateway):
        return await host.call_tool("order_search", {"query": 12345678901234567890})

    r = scenario(ledger, body)
    assert r.is_error and r.structured_content["actionseal"]["error"] == "inexact_number"
    assert BODY.ran == [] and ledger.tasks() == []
    logged = [(rec.getMessage(), rec.exc_text or "") for rec in caplog.records]
    assert not any("1234567890123456" in m + x for m, x in logged), logged


def test_tools_without_a_rule_are_not_listed_and_not_forwarded(ledger):
    async def body(host, gateway):
        listed = sorted(t.name for t in (await host.list_tools()).tools)
        return listed, await host.call_tool("account_delete", {"account_id": "acct-9"})

    listed, r = scenario(ledger, body)
    assert listed == ["close_account", "order_search", "refund_confirmed", "refund_create"]
    assert r.is_error and r.structured_content["actionseal"]["error"] == "unknown_tool" and BODY.ran == []


def test_a_task_pointer_of_another_session_is_refused(ledger):
    async def body(host, gateway):
        tid = (await approval_required(host))["elicitationId"]
        decide(ledger, tid)
        gateway._trusted = lambda ctx: dataclasses.replace(SESSION, job_id="session-2")
        return await call(host, task=tid)

    r = scenario(ledger, body)
    assert r.structured_content["actionseal"]["error"] == "task_not_found" and BODY.ran == []


def test_a_task_pointer_names_a_call_of_one_tool(ledger):
    """close_account carrying a refund's pointer is refused, before and after the refund ran: the
    refund's approved args and recorded result never answer another tool's call."""
    async def body(host, gateway):
        tid = (await approval_required(host))["elicitationId"]
        decide(ledger, tid)
        close = {"account_id": "acct-9"}
        early = await host.call_tool("close_account", close, meta={gw.TASK_META: tid})
        done = await call(host, task=tid)
        late = await host.call_tool("close_account", close, meta={gw.TASK_META: tid})
        return tid, early, done, late

    tid, early, done, late = scenario(ledger, body)
    for r in (early, late):
        assert r.is_error and r.structured_content["actionseal"]["error"] == "task_not_found"
        assert "approved_args" not in r.structured_content["actionseal"]
    assert late.content != done.content
    assert BODY.ran == [("refund_create", FROZEN_2500)]
    assert [t["id"] for t in ledger.tasks()] == [tid] and "tool_args_drift" not in kinds(ledger, tid)


def test_an_upstream_elicitation_is_never_a_decision(ledger):
    """An approved call of a tool that asks "confirm?" itself: the gateway declines the form."""
    async def body(host, gateway):
        args = {"order_id": "order-17", "amount_minor": 90000}
        with pytest.raises(exceptions.MCPError) as e:
            await host.call_tool("refund_confirmed", args)
        tid = e.value.data["elicitations"][0]["elicitationId"]
        decide(ledger, tid)
        return await host.call_tool("refund_confirmed", args, meta={gw.TASK_META: tid})

    r = scenario(ledger, body)
    assert r.content[0].text == "declined" and BODY.ran == []


# --- Without the gateway: the bypasses docs/ADAPTERS.md lists. If one of these fails, the SDK
# changed its behaviour: update the document (the gateway's tests above still hold).


def test_without_the_gateway_an_elicitation_answered_by_the_host_itself_runs():
    async def auto_accept(context, params):
        return types.ElicitResult(action="accept", content={"approve": True})

    async def go():
        async with mcp.Client(billing(), mode="legacy", elicitation_callback=auto_accept) as host:
            await host.call_tool("refund_confirmed", {"order_id": "order-17", "amount_minor": 90000})

    asyncio.run(go())
    assert BODY.ran == [("refund_confirmed", {"order_id": "order-17", "amount_minor": 90000})]


def test_without_the_gateway_the_same_call_sent_twice_runs_twice_and_300_is_coerced():
    async def go():
        async with mcp.Client(billing(), mode="legacy") as host:
            for _ in range(2):
                await host.call_tool("refund_create", {**FROZEN_2500, "amount_minor": "300"})

    asyncio.run(go())
    assert BODY.ran == [("refund_create", {**FROZEN_2500, "amount_minor": 300})] * 2


def test_the_example_runs():
    out = run_example("mcp_gateway")
    assert "approval required" in out and "forwarded once: refunded 2500 USD on order-17" in out
    assert "replayed: refunded 2500 USD on order-17 (upstream calls: 1)" in out
