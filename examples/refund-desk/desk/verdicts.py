"""What a reviewer's decision request says, read the same way for a task and a batch: its id,
the fingerprint the reviewer saw, the verdict, the validity chosen, and why a rejection."""

from __future__ import annotations

from typing import Optional

from refusals import Refused

# Validity a reviewer may choose: short ones show expiry in the demo.
TTLS_MS = (3_000, 300_000, 3_600_000)
MAX_REASON = 500


def decision_request(body: dict, digest_key: str) -> tuple:
    """(decision_id, the digest at ``digest_key``, verdict, ttl_ms), or invalid_request."""
    try:
        decision_id, digest = str(body["decision_id"]), str(body[digest_key])
        verdict, ttl = body["decision"], int(body.get("ttl_ms", TTLS_MS[-1]))
    except (KeyError, TypeError, ValueError):
        raise Refused("invalid_request", 400) from None
    if verdict not in ("approved", "rejected") or ttl not in TTLS_MS:
        raise Refused("invalid_request", 400)
    return decision_id, digest, verdict, ttl


def rejection_reason(verdict: str, reason: object) -> Optional[str]:
    """Why a rejection (required, kept with the decision); None for an approval."""
    if verdict != "rejected":
        return None
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise Refused("reason_required", 400, message=f"a rejection says why, in at most {MAX_REASON} characters")
    return reason.strip()
