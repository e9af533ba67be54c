"""Writes the desk's configuration into a run directory: the approval server's signing key
(private, the only one), and the executor's config with the key set it trusts, built from the
public half only, and the contract documents.

    python desk/setup.py DIR --db URL --server URL --payment URL
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from actionseal import SigningKey

from refunds import CONTRACTS, REVIEWER, TRUSTED


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("dir", type=Path)
    p.add_argument("--db", required=True)
    p.add_argument("--server", required=True)
    p.add_argument("--payment", required=True)
    a = p.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    key = SigningKey.generate()
    secret = a.dir / "server-key.jwk"
    fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(key.to_jwk(), f)
    executor = {
        "db": a.db,
        "server": a.server,
        "payment": a.payment,
        "tenant": TRUSTED.tenant,
        "subject": TRUSTED.subject,
        "policy_version": TRUSTED.policy_version,
        "approvers": sorted(TRUSTED.approvers),
        "contracts": {name: c.document for name, c in CONTRACTS.items()},
        # The executor's own key set: the approval server's public key, for its reviewer only.
        # Passkeys a reviewer registers are filed in passkeys.json next to this file.
        "keys": {"service_keys": {key.keyid: {"key": key.public_jwk, "approvers": [REVIEWER]}}},
        "lease_ms": 4000,
        "payment_timeout_ms": 1500,
        "poll_ms": 150,
    }
    (a.dir / "executor.json").write_text(json.dumps(executor, indent=2) + "\n")
    print(f"setup: signing key {key.keyid} (server only); executor config {a.dir / 'executor.json'}")


if __name__ == "__main__":
    main()
