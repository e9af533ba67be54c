"""The agent's bulk refund (issue 28): after an outage it asks for COUNT refunds of AMOUNT minor
units, one per order, and hands them over to the approval server as one batch with its own
token (RUN_DIR/agent.token), which can hand calls over and nothing else. The server proposes
them under the desk's batch contract; the reviewer decides them once, in the page.

    python desk/bulk.py --server URL --token-file FILE --job JOB [--count 20] [--amount 2500]

Prints `AGENT {"event": "handed_over", "batch_id", "fingerprint", "items"}`.
"""

from __future__ import annotations

import argparse
import json
import urllib.request
from pathlib import Path

from actionseal import action
from refunds import BULK, TENANT, TRUSTED


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--server", required=True)
    p.add_argument("--token-file", required=True, type=Path)
    p.add_argument("--job", required=True)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--amount", type=int, default=2500)
    a = p.parse_args()
    refunds = [action(BULK, {"order_id": f"order-{300 + i}", "amount_minor": a.amount, "currency": "USD"},
                      tenant=TENANT, subject=TRUSTED.subject, policy_version=TRUSTED.policy_version,
                      job_id=a.job, request_id=f"refund-{i + 1}") for i in range(a.count)]
    body = json.dumps({"actions": refunds, "semantics": "per_item"}).encode()
    req = urllib.request.Request(f"{a.server}/api/batches", data=body, method="POST", headers={
        "content-type": "application/json", "authorization": f"Bearer {a.token_file.read_text().strip()}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        out = json.loads(r.read())
    print(f"AGENT {json.dumps({'event': 'handed_over', **out, 'items': a.count})}", flush=True)


if __name__ == "__main__":
    main()
