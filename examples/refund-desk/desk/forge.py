"""Test helper: a forged decision, written around the approval server. It records an approval
straight into the ledger (as anyone with database access could) and, with --unknown-key, also
files a proof signed by a key the executor does not trust in the server's own store.

    python desk/forge.py --db URL --dir RUN_DIR --task TASK_ID [--unknown-key]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import uuid
from pathlib import Path

from actionseal import Ledger, SigningKey

from refunds import REVIEWER


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--dir", required=True, type=Path)
    p.add_argument("--task", required=True)
    p.add_argument("--unknown-key", action="store_true")
    a = p.parse_args()
    ledger = Ledger(a.db)
    t = ledger.task(a.task)
    now = ledger.now()
    out = ledger.decide({"approval_id": t["approval_id"], "decision_id": f"forged-{uuid.uuid4()}",
                         "job_id": t["job_id"], "request_id": t["request_id"], "action_digest": t["action_digest"],
                         "decision": "approved", "approver": REVIEWER, "decided_at": now,
                         "expires_at": now + 3_600_000})
    record = out["task"]["approval"]
    if a.unknown_key:
        envelope = SigningKey.generate().sign(record)
        db = sqlite3.connect(a.dir / "desk.db", isolation_level=None)
        db.execute("INSERT INTO proofs VALUES (?, ?, 'service', ?)",
                   (record["approval_id"], t["id"], json.dumps(envelope)))
        db.close()
    print(json.dumps({"task_id": t["id"], "approval_id": record["approval_id"]}))
    ledger.close()


if __name__ == "__main__":
    main()
