"""Type stubs for the compiled module; the package ``actionseal`` re-exports all of it."""

from typing import Any, Dict, List, Literal, Optional, Tuple, Union

_Profile = Literal["strict", "rfc8785"]
# The top level is checked; nested values are checked at run time (ActionsealError).
_Value = Union[
    None, bool, int, float, str, List[Any], Tuple[Any, ...], Dict[str, Any]
]

__version__: str

class ActionsealError(ValueError):
    """Raised when input cannot be canonicalized."""

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
