"""What the agent and the approval server share: the tools, their contracts and the trusted
context. The executor gets the same contract documents from its config (written by setup.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from langchain_core.tools import tool
from pydantic import Field

from actionseal import Contract
from actionseal.adapters import Trusted
from actionseal.adapters.langgraph import contract_for_tool

TENANT = "tenant-a"
REVIEWER = "user:bob"
# The desk's reviewers and the roles each holds: this server's fact, never a request's (issue
# 25). user:dave holds no role: he decides only for user:carol, through her delegation, while she
# is away. user:frank asks for the large refunds (the requester), so he may never approve one.
REVIEWERS = {
    "user:bob": ("finance",),
    "user:erin": ("risk",),
    "user:carol": ("finance",),
    "user:dave": (),
    "user:frank": ("finance",),
}
TRUSTED = Trusted(tenant=TENANT, subject="user:alice", policy_version="refund-policy-2026-08-01",
                  approvers=set(REVIEWERS))
REFUND_RULE = {"when": [{"pointer": "/amount_minor", "op": "gt", "value": 1000}]}
# A refund over the threshold is its own tool, so its contract can ask for four eyes: one
# approver from finance and one from risk, never the customer (subject) or the requester
# (proposer).
THRESHOLD_MINOR = 50_000
FOUR_EYES = {
    "when": "always",
    "quorum": {"approvers": 2, "roles": [{"role": "finance", "count": 1}, {"role": "risk", "count": 1}]},
    "separation": ["subject", "proposer"],
}


@tool
def order_search(query: str) -> str:
    """Find orders of the customer (read-only)."""
    return "order-17: 2500 USD, delivered damaged"


@tool
def refund_create(
    order_id: Annotated[str, Field(description="The order refunded.")],
    # The business refunds at least one minor unit: 0 (or a cleared field) is not a refund.
    amount_minor: Annotated[int, Field(ge=1, description="The amount paid back, in minor units (cents).")],
    currency: Annotated[Literal["USD", "EUR", "CNY"], Field(description="The currency of the amount.")],
) -> str:
    """Refund part or all of an order, in minor units. Dispatched by the desk's executor only."""
    raise RuntimeError("refund_create runs in the executor, never in the agent")


@tool
def refund_large(
    order_id: Annotated[str, Field(description="The order refunded.")],
    amount_minor: Annotated[int, Field(gt=THRESHOLD_MINOR, description="The amount paid back, in minor units (cents).")],
    currency: Annotated[Literal["USD", "EUR", "CNY"], Field(description="The currency of the amount.")],
) -> str:
    """Refund more than 50000 minor units of an order: finance and risk both approve. Dispatched by
    the desk's executor only."""
    raise RuntimeError("refund_large runs in the executor, never in the agent")


@tool
def refund_receipt(
    order_id: Annotated[str, Field(description="The order refunded.")],
    amount_minor: Annotated[int, Field(ge=1, description="The amount paid back, in minor units (cents).")],
    currency: Annotated[Literal["USD", "EUR", "CNY"], Field(description="The currency of the amount.")],
    customer_email: Annotated[str, Field(min_length=3, description="Where the payment service sends the receipt.")],
) -> str:
    """Refund part or all of an order and have the payment service e-mail the customer a receipt.
    Dispatched by the desk's executor only."""
    raise RuntimeError("refund_receipt runs in the executor, never in the agent")


# The class of the customer's e-mail (issue 29): the ledger freezes it as a commitment and keeps
# its disclosure apart; the desk tenant's retention policy shreds the class when the task ends.
PII = "pii"
SENSITIVE = {"/args/customer_email": PII}


def sensitive(contract: Contract, places: dict) -> Contract:
    """``contract`` with the places it marks sensitive (the contract's ``sensitive`` member)."""
    return Contract({**contract.document, "sensitive": places})


CONTRACTS = {
    "refund_create": contract_for_tool(refund_create, approval=REFUND_RULE, cost_minor=25),
    # A separate tool, not refund_create with an e-mail: a contract that marks values sensitive
    # allows no batch (batch_not_allowed: a batch would freeze them in the clear), and the desk
    # batches refund_create.
    "refund_receipt": sensitive(contract_for_tool(refund_receipt, approval=REFUND_RULE, cost_minor=25), SENSITIVE),
    "refund_large": contract_for_tool(refund_large, approval=FOUR_EYES, cost_minor=25),
    "order_search": contract_for_tool(order_search, approval="never", effect="read"),
}
# The refunds an agent hands over as one batch (issue 28), under refund_create's contract with
# a batch member: at most 50 refunds of 100000 minor units in all per decision; three failures
# in ten minutes trip the breaker, two successes after a re-approval close it.
BULK = {
    **CONTRACTS["refund_create"].document,
    "batch": {
        "max_items": 50,
        "caps": {"count": 50, "sum": {"pointer": "/args/amount_minor", "max": 100_000}},
        "breaker": {"max_failures": 3, "window_ms": 600_000, "close_after": 2},
    },
}

# How the page presents each tool to a reviewer: this server's own words, never the model's,
# filled in from the frozen arguments at these pointers (into `args`). Outside the fingerprint:
# they explain the action, the fingerprint is what is approved.
REVIEW = {
    "refund_large": {
        "resource": "/order_id",
        "summary": "Refund {/amount_minor} minor units of {/currency} for order {/order_id} (over the four-eyes threshold)",
        "money": {"amount": "/amount_minor", "currency": "/currency"},
        "effects": [
            "The payment service pays the amount back to the customer of the order.",
            "It runs only once finance and risk have both approved, neither of them the requester.",
            "A paid refund cannot be undone from the desk: taking it back is a new charge, agreed with the customer.",
        ],
    },
    "refund_receipt": {
        "resource": "/order_id",
        "summary": "Refund {/amount_minor} minor units of {/currency} for order {/order_id}, receipt to the customer's e-mail",
        "money": {"amount": "/amount_minor", "currency": "/currency"},
        "effects": [
            "The payment service pays the amount back to the customer of the order.",
            "It e-mails a receipt to the customer: the address leaves the ledger for the payment service, which keeps it.",
            "The ledger shreds the address when the refund ends (the desk's retention policy for pii).",
            "A paid refund cannot be undone from the desk: taking it back is a new charge, agreed with the customer.",
        ],
    },
    "refund_create": {
        "resource": "/order_id",
        "summary": "Refund {/amount_minor} minor units of {/currency} for order {/order_id}",
        "money": {"amount": "/amount_minor", "currency": "/currency"},
        "effects": [
            "The payment service pays the amount back to the customer of the order.",
            "A paid refund cannot be undone from the desk: taking it back is a new charge, agreed with the customer.",
        ],
    },
}


def roles_of(reviewer: str) -> tuple:
    """The roles the desk says ``reviewer`` holds (none for an unknown name)."""
    return REVIEWERS.get(reviewer, ())


def role_facts() -> list:
    """Every role fact the desk holds, as a context's ``approver_roles``."""
    return [{"approver": who, "role": role, "holds": True} for who, roles in REVIEWERS.items() for role in roles]
