"""An MCP gateway that forwards a refund to the real MCP server only as approved, once.

    pip install 'actionseal[mcp]'
    python examples/adapters/mcp_gateway.py

Host -> gateway -> billing server, all in process (no network). The first call answers "URL
elicitation required" (-32042) with the reviewer's URL and the fingerprint; after the reviewer
approves on the ledger, the host calls again naming the task and the frozen call is forwarded
once; sending it again returns the recorded result without a second forward.
"""

import asyncio
import tempfile
from typing import Literal

import actionseal
from actionseal.adapters import Seal, Trusted
from actionseal.adapters.mcp import TASK_META, Gateway, Rule, decline_elicitations
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

billing = MCPServer("billing")
UPSTREAM_CALLS = []


@billing.tool(description="Refund part or all of an order.")
def refund_create(order_id: str, amount_minor: int, currency: Literal["USD", "EUR"]) -> str:
    UPSTREAM_CALLS.append(amount_minor)
    return f"refunded {amount_minor} {currency} on {order_id}"


ledger = actionseal.Ledger(f"sqlite:{tempfile.mkdtemp()}/ledger.db")


async def main() -> None:
    async with Client(billing, mode="legacy", elicitation_callback=decline_elicitations) as upstream:
        gateway = Gateway(
            upstream, server_id="billing",
            rules={"refund_create": Rule(approval={"when": [{"pointer": "/amount_minor", "op": "gt", "value": 1000}]})},
            seal=Seal(ledger, {}, proposer="mcp-gateway", executor="mcp-gateway"),
            # The server's context: the tenant and who may approve; the job is the client's session.
            trusted=lambda ctx: Trusted(tenant="shop-1", subject="user:alice", policy_version="refunds-2026-12",
                                        approvers={"user:bob"}, job_id="session-1"),
            review_url=lambda task: f"https://approvals.example/tasks/{task['id']}")
        async with Client(gateway.server, mode="legacy") as host:
            args = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}
            try:
                await host.call_tool("refund_create", args)
            except MCPError as e:
                asked = e.data["elicitations"][0]
                print(f"approval required: {asked['url']}")
            task_id = asked["elicitationId"]

            t, now = ledger.task(task_id), ledger.now()  # the reviewer's page, after a person decided
            ledger.decide({"approval_id": t["approval_id"], "decision_id": "dec-1", "job_id": t["job_id"],
                           "request_id": t["request_id"], "action_digest": t["action_digest"],
                           "decision": "approved", "approver": "user:bob", "decided_at": now,
                           "expires_at": now + 15 * 60_000})

            done = await host.call_tool("refund_create", args, meta={TASK_META: task_id})
            print(f"forwarded once: {done.content[0].text}")
            again = await host.call_tool("refund_create", args, meta={TASK_META: task_id})
            print(f"replayed: {again.content[0].text} (upstream calls: {len(UPSTREAM_CALLS)})")


asyncio.run(main())
