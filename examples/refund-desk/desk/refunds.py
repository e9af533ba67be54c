"""What the agent and the approval server share: the tools, their contracts and the trusted
context. The executor gets the same contract documents from its config (written by setup.py)."""

from __future__ import annotations

from typing import Literal

from langchain_core.tools import tool

from actionseal.adapters import Trusted
from actionseal.adapters.langgraph import contract_for_tool

TENANT = "tenant-a"
TRUSTED = Trusted(tenant=TENANT, subject="user:alice", policy_version="refund-policy-2026-08-01",
                  approvers={"user:bob"})
REVIEWER = "user:bob"
REFUND_RULE = {"when": [{"pointer": "/amount_minor", "op": "gt", "value": 1000}]}


@tool
def order_search(query: str) -> str:
    """Find orders of the customer (read-only)."""
    return "order-17: 2500 USD, delivered damaged"


@tool
def refund_create(order_id: str, amount_minor: int, currency: Literal["USD", "EUR", "CNY"]) -> str:
    """Refund part or all of an order, in minor units. Dispatched by the desk's executor only."""
    raise RuntimeError("refund_create runs in the executor, never in the agent")


CONTRACTS = {
    "refund_create": contract_for_tool(refund_create, approval=REFUND_RULE, cost_minor=25),
    "order_search": contract_for_tool(order_search, approval="never", effect="read"),
}
