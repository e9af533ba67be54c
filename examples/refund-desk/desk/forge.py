"""Test helper: a forged decision, written around the approval server, straight into the ledger
(as anyone with database access could). A bare decision is refused by the ledger itself: the
approval server's handle made proof required for every handle. With --unknown-key, the forger
opens its own handle trusting its own key, records a decision signed by it, and files that proof
in the server's store too: the ledger takes it, and the executor, which trusts only the keys in
its own config, refuses it.

    python desk/forge.py --db URL --dir RUN_DIR --task TASK_ID [--unknown-key]

Prints {"task_id", "approval_id"} for a recorded decision, {"task_id", "refused": code} for one
the ledger refused.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import uuid
from pathlib import Path

from actionseal import ActionsealError, Ledger, SigningKey, approve

from refunds import REVIEWER


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--dir", required=True, type=Path)
    p.add_argument("--task", required=True)
    p.add_argument("--unknown-key", action="store_true")
    a = p.parse_args()
    key = SigningKey.generate()
    rogue = {"service_keys": {key.keyid: {"key": key.public_jwk}}}
    ledger = Ledger(a.db, proof={"required": True, "keys": rogue}) if a.unknown_key else Ledger(a.db)
    t = ledger.task(a.task)
    now = ledger.now()
    ids = {"approval_id": t["approval_id"], "decision_id": f"forged-{uuid.uuid4()}", "decision": "approved",
           "approver": REVIEWER, "decided_at": now, "expires_at": now + 3_600_000}
    if a.unknown_key:
        decision = key.sign(approve(t["action"], **ids))
    else:
        decision = {**ids, "job_id": t["job_id"], "request_id": t["request_id"], "action_digest": t["action_digest"]}
    try:
        record = ledger.decide(decision)["task"]["approval"]
    except ActionsealError as e:
        print(json.dumps({"task_id": t["id"], "refused": e.code}))
        return
    finally:
        ledger.close()
    db = sqlite3.connect(a.dir / "desk.db", isolation_level=None)
    db.execute("INSERT INTO proofs VALUES (?, ?, 'service', ?)", (record["approval_id"], t["id"], json.dumps(decision)))
    db.close()
    print(json.dumps({"task_id": t["id"], "approval_id": record["approval_id"]}))


if __name__ == "__main__":
    main()
