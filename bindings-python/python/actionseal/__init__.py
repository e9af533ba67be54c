"""actionseal: approvals bound to the exact action, by RFC 8785 canonical JSON and SHA-256.

A human approval of an AI agent's tool call should mean exactly the action the human saw.
actionseal binds an approval to the fingerprint of the action's canonical form: the same
action always has the same fingerprint in every runtime, and input whose meaning is ambiguous
(duplicate keys, lone surrogates, non-finite or inexact numbers) is refused with a stable code.

The approval model on top: a ``Contract`` says what a tool takes and when a call needs a
person; ``action`` builds the envelope a reviewer sees; ``approve`` records the decision about
that exact envelope; ``check`` decides, just before dispatch, whether the call may run.

Proof of who decided: a ``SigningKey`` signs records (``SigningKey.sign``), a passkey signs
``passkey_challenge(record)``; ``verify_envelope``, ``verify_passkey`` and ``verify_proof``
check them against the executor's key set, as ``check`` does when its context requires proof.

Quorums and delegation: ``check_set`` checks a set of approvals (M of N distinct approvers,
roles, order, separation of duties) and says who counted and what is missing;
``sign_delegation``, ``verify_delegation`` and ``delegation_digest`` make and read the links
of a chain by which a delegate decides on someone's behalf.

Batches: ``batch_build`` makes the batch a reviewer decides once (its header, fingerprint,
items with inclusion proofs, totals under the caps), ``batch_deselect`` the remainder after a
deselection, ``batch_decide`` the decision over it; ``batch_verify_item``, ``check_item`` and
``check_batch`` check items against it before dispatch, ``breaker_step`` steps its breaker.

Sensitive values: ``commit_action`` commits the values a contract marks sensitive (salts from
the OS CSPRNG) and returns their disclosures, to store apart; ``reveal_action`` gives them back,
each checked against its commitment; ``check`` takes them in the context's ``disclosures``.

The ledger: ``Ledger`` (blocking, the GIL released) and ``AsyncLedger`` (the same API, awaitable),
with OpenTelemetry spans and counters when ``opentelemetry-api`` is installed.

>>> import actionseal
>>> actionseal.canonicalize({"b": [1, 2.50], "a": "x"})
'{"a":"x","b":[1,2.5]}'
"""

from ._actionseal import (
    ActionsealError,
    Approval,
    Contract,
    ManualClock,
    Schema,
    SigningKey,
    __version__,
    action,
    amend,
    approve,
    batch_build,
    batch_decide,
    batch_deselect,
    batch_verify_decision,
    batch_verify_item,
    breaker_step,
    canonicalize,
    canonicalize_json,
    charge,
    check,
    check_batch,
    check_item,
    check_set,
    commit_action,
    delegation_digest,
    digest_equal,
    ed25519_verify,
    fingerprint,
    fingerprint_json,
    gate_defaults,
    gate_step,
    loads,
    notices,
    pae,
    passkey_challenge,
    public_key,
    requires_approval,
    reveal_action,
    short_fingerprint,
    sign_delegation,
    verify_envelope,
    verify_passkey,
    verify_proof,
    verify_registration,
    verify_audit,
    verify_delegation,
    verify_evidence,
    sign_webhook,
    verify_webhook,
)
from ._ledger import Ledger
from ._async_ledger import AsyncLedger

__all__ = [
    "ActionsealError",
    "Approval",
    "Contract",
    "Ledger",
    "ManualClock",
    "Schema",
    "SigningKey",
    "__version__",
    "action",
    "amend",
    "approve",
    "batch_build",
    "batch_decide",
    "batch_deselect",
    "batch_verify_decision",
    "batch_verify_item",
    "breaker_step",
    "canonicalize",
    "canonicalize_json",
    "charge",
    "check",
    "check_batch",
    "check_item",
    "check_set",
    "commit_action",
    "delegation_digest",
    "digest_equal",
    "ed25519_verify",
    "fingerprint",
    "fingerprint_json",
    "gate_defaults",
    "gate_step",
    "loads",
    "notices",
    "pae",
    "passkey_challenge",
    "public_key",
    "requires_approval",
    "reveal_action",
    "short_fingerprint",
    "sign_delegation",
    "verify_envelope",
    "verify_passkey",
    "verify_proof",
    "verify_registration",
    "verify_audit",
    "verify_delegation",
    "verify_evidence",
    "AsyncLedger",
    "sign_webhook",
    "verify_webhook",
]
