"""actionseal: RFC 8785 canonical JSON and SHA-256 fingerprints.

A human approval of an AI agent's tool call should mean exactly the action the human saw.
actionseal binds an approval to the fingerprint of the action's canonical form: the same
action always has the same fingerprint in every runtime, and input whose meaning is ambiguous
(duplicate keys, lone surrogates, non-finite or inexact numbers) is refused with a stable code.

>>> import actionseal
>>> actionseal.canonicalize({"b": [1, 2.50], "a": "x"})
'{"a":"x","b":[1,2.5]}'
"""

from ._actionseal import (
    ActionsealError,
    __version__,
    canonicalize,
    canonicalize_json,
    digest_equal,
    fingerprint,
    fingerprint_json,
)

__all__ = [
    "ActionsealError",
    "__version__",
    "canonicalize",
    "canonicalize_json",
    "digest_equal",
    "fingerprint",
    "fingerprint_json",
]
