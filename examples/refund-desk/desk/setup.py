"""Writes the desk's configuration into a run directory: the approval server's signing key
(private, the only one), the ledger's log key (the server signs the checkpoints of the ledger's
Merkle log with it, which evidence bundles are verified against: `log.key`, and its verifier
key `log.pub`), the run's credentials (auth.py: the reviewer's secret, the agent's and the
executors' tokens, each reviewer's secret), and the executor's config with the key set it
trusts, built from the public half only, and the contract documents. Every file that holds a
secret is 0600.

    python desk/setup.py DIR --db URL --server URL --payment URL
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import secrets
from pathlib import Path

from actionseal import SigningKey

from auth import token, write_secret
from refunds import BULK, CONTRACTS, REVIEWER, REVIEWERS, TRUSTED


# The name of the desk's log key, which a checkpoint's signature line carries.
LOG_KEY_NAME = "refund-desk.localhost"


def note_keys(name: str, seed: bytes, public: bytes) -> tuple:
    """The signer and verifier key strings of an Ed25519 key pair, as Go's note.GenerateKey
    writes them (C2SP signed-note, "Verifier keys": type 0x01; the key ID is the first 4 bytes
    of SHA-256(name || 0x0A || 0x01 || public key)). No binding exposes core's generate_key, so
    the desk writes them from a key actionseal generated."""
    key_id = hashlib.sha256(name.encode() + b"\n\x01" + public).digest()[:4].hex()
    signer, verifier = (base64.b64encode(b"\x01" + raw).decode() for raw in (seed, public))
    return f"PRIVATE+KEY+{name}+{key_id}+{signer}", f"{name}+{key_id}+{verifier}"


def log_keys() -> tuple:
    """A new log key: its signer and verifier key strings."""
    jwk = SigningKey.generate().to_jwk()
    seed, public = (base64.urlsafe_b64decode(jwk[k] + "=" * (-len(jwk[k]) % 4)) for k in ("d", "x"))
    return note_keys(LOG_KEY_NAME, seed, public)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("dir", type=Path)
    p.add_argument("--db", required=True)
    p.add_argument("--server", required=True)
    p.add_argument("--payment", required=True)
    a = p.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    key = SigningKey.generate()
    write_secret(a.dir / "server-key.jwk", json.dumps(key.to_jwk()))
    signer, verifier = log_keys()
    write_secret(a.dir / "log.key", signer)
    (a.dir / "log.pub").write_text(verifier + "\n")
    executor_token = token()
    for name, value in (("agent.token", token()), ("executor.token", executor_token)):
        write_secret(a.dir / name, value)
    # Each reviewer's own secret; user:bob's also where the first scenario's reviewer reads it.
    reviewers = {who: token() for who in REVIEWERS}
    write_secret(a.dir / "reviewers.json", json.dumps(reviewers, indent=2))
    write_secret(a.dir / "reviewer.secret", reviewers[REVIEWER])
    executor = {
        "db": a.db,
        "server": a.server,
        "server_token": executor_token,  # what the approval server knows the executors by
        "payment": a.payment,
        "tenant": TRUSTED.tenant,
        "subject": TRUSTED.subject,
        "policy_version": TRUSTED.policy_version,
        "approvers": sorted(TRUSTED.approvers),
        "contracts": {name: c.document for name, c in CONTRACTS.items()},
        "bulk_contract": BULK,  # the contract of the batches the agent hands over (issue 28)
        # The executor's own key set: the approval server's public key, for its reviewer only.
        # Passkeys a reviewer registers are filed in passkeys.json next to this file.
        "keys": {"service_keys": {key.keyid: {"key": key.public_jwk, "approvers": sorted(REVIEWERS)}}},
        # Who holds which role: the desk's facts, the executor's too (a claim re-checks them).
        "roles": {who: list(roles) for who, roles in REVIEWERS.items()},
        "lease_ms": 4000,
        "payment_timeout_ms": 1500,
    }
    write_secret(a.dir / "executor.json", json.dumps(executor, indent=2))
    # The "approval needed" webhook's secret (Standard Webhooks: whsec_ and base64 of 32 bytes),
    # shared by the approval server (the sender) and the example's receiver.
    write_secret(a.dir / "webhook.secret", "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode())
    print(f"setup: signing key {key.keyid} (server only); executor config {a.dir / 'executor.json'}")


if __name__ == "__main__":
    main()
