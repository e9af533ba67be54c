"""Type stubs for the compiled module; the package ``actionseal`` re-exports all of it."""

from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union

_Profile = Literal["strict", "rfc8785"]
# The top level is checked; nested values are checked at run time (ActionsealError).
_Value = Union[
    None, bool, int, float, str, List[Any], Tuple[Any, ...], Dict[str, Any]
]

# What the approval functions return: JSON data, snake_case fields as on the wire. The
# TypedDicts below exist only for type checkers; at run time these are plain dicts.
_Json = Union[None, bool, int, float, str, List[Any], Dict[str, Any]]

class _Requirement(TypedDict):
    required: bool
    """Whether the call needs an approval."""
    rule: str
    """JSON Pointer into the contract of the rule that decided."""

class _ActionError(TypedDict):
    code: str
    path: str

class _Verdict(TypedDict):
    outcome: Literal["permit", "reapprove", "reject"]
    """Dispatch only on ``"permit"``."""
    reasons: List[str]
    """Every reason found, in core's fixed order; empty exactly when permitted."""
    drift: List[str]
    """JSON Pointers where the presented action differs from the approved one."""
    action_digest: str
    """Fingerprint of the presented action."""
    approved_digest: Optional[str]
    """The approved action's fingerprint, when a valid, untampered approval was presented."""
    action_error: Optional[_ActionError]
    """Why the action is invalid, with reason ``invalid_action``."""

class _Budget(TypedDict):
    limit_minor: int
    spent_minor: int

__version__: str

class ActionsealError(ValueError):
    """Raised when input is refused; ``code`` says why."""

    code: str
    """Stable snake_case error code, one of conformance/codes.json."""
    path: str
    """JSON Pointer to the value concerned, ``""`` for the root."""
    offset: Optional[int]
    """Byte offset in the UTF-8 input text, or None."""

def canonicalize(value: _Value, *, profile: _Profile = "strict") -> str:
    """The RFC 8785 canonical JSON text of a Python value."""

def fingerprint(value: _Value, *, profile: _Profile = "strict") -> str:
    """``"sha256:<64 hex>"`` of the canonical text of a Python value."""

def canonicalize_json(text: Union[str, bytes], *, profile: _Profile = "strict") -> str:
    """The RFC 8785 canonical form of JSON text given as str or UTF-8 bytes."""

def fingerprint_json(text: Union[str, bytes], *, profile: _Profile = "strict") -> str:
    """``"sha256:<64 hex>"`` of the canonical form of JSON text."""

def digest_equal(a: str, b: str) -> bool:
    """Whether two fingerprints name the same digest, compared in constant time."""

def loads(text: Union[str, bytes], *, profile: _Profile = "strict") -> _Json:
    """Strictly parsed JSON text as Python values; integral numbers within ±(2^53 − 1) are
    int, all others float. Duplicate keys, lone surrogates and (strict) inexact numbers raise."""

def short_fingerprint(digest: str) -> str:
    """The first 64 bits of a fingerprint as four groups of four hex digits."""

class Contract:
    """A validated tool contract, loaded once and shared; immutable, thread-safe, picklable."""

    def __init__(self, document: Dict[str, Any]) -> None:
        """Loads a contract document; raises ActionsealError when it is not one."""
    @property
    def digest(self) -> str:
        """The contract's fingerprint, carried by every action made under it."""
    @property
    def tool(self) -> str:
        """The tool name."""
    @property
    def version(self) -> str:
        """The contract version."""
    @property
    def effect(self) -> Literal["read", "write"]:
        """Whether the tool only reads or also changes something."""
    @property
    def cost_minor(self) -> int:
        """The cost of one call, in minor units."""
    @property
    def document(self) -> Dict[str, Any]:
        """The contract document as loaded (a new dict on each access)."""
    def requires_approval(self, args: Dict[str, Any]) -> _Requirement:
        """Whether a call with these arguments needs an approval; validates them first."""
    def validate_args(self, args: Dict[str, Any]) -> None:
        """Raises ActionsealError with the first way the arguments break the schema."""
    def validate_action(self, action: Dict[str, Any]) -> None:
        """Raises ActionsealError unless the action is an envelope for a call of this contract."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Schema:
    """A tool-argument JSON Schema (the strict subset contracts use), compiled once."""

    def __init__(self, schema: Dict[str, Any]) -> None:
        """Compiles a schema; raises ActionsealError (unsupported_schema, invalid_schema)."""
    def validate(self, value: Any) -> None:
        """Raises ActionsealError with the first way the value breaks the schema."""

def requires_approval(
    contract: Union[Contract, Dict[str, Any]], args: Dict[str, Any]
) -> _Requirement:
    """Whether a call of the contract's tool with these arguments needs an approval."""

def action(
    contract: Union[Contract, Dict[str, Any]],
    args: Dict[str, Any],
    *,
    tenant: str,
    subject: str,
    job_id: str,
    request_id: str,
    policy_version: str,
) -> Dict[str, Any]:
    """The action envelope a reviewer approves, with ``tool`` and ``contract`` filled in."""

def approve(
    action: Dict[str, Any],
    *,
    approval_id: str,
    decision_id: str,
    decision: Literal["approved", "rejected"],
    approver: str,
    decided_at: int,
    expires_at: int,
) -> Dict[str, Any]:
    """The approval record of a decision about exactly this action (times in ms)."""

def check(
    approval: Optional[Dict[str, Any]],
    action: Dict[str, Any],
    context: Dict[str, Any],
) -> _Verdict:
    """The permit check before dispatch; ``context["contract"]`` may be a ``Contract``."""

def charge(budget: _Budget, cost_minor: int) -> _Budget:
    """The budget with ``cost_minor`` more spent; raises ``budget_exceeded`` past the limit."""
