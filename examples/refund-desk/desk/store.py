"""The approval server's own records, in RUN_DIR/desk.db, a SQLite file only the server writes:
decisions by decision_id (with what the reviewer acknowledged and why they rejected), signed
decisions (proofs), the agent's hand-offs, the model's stated reasons, and the delegations
reviewers gave each other (signed by the server for the delegator), and the "approval needed"
webhooks sent (webhook.py) with the change feed's cursor they were sent up to. The ledger's decision
format is fixed; what the desk knows beyond it is kept here, beside the decision id."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import NamedTuple, Optional

SCHEMA = """
    PRAGMA journal_mode=WAL;
    CREATE TABLE IF NOT EXISTS decisions (decision_id TEXT PRIMARY KEY, task_id TEXT NOT NULL,
        envelope TEXT NOT NULL, at INTEGER NOT NULL, reviewer TEXT NOT NULL,
        acknowledged TEXT NOT NULL, reason TEXT);
    CREATE TABLE IF NOT EXISTS proofs (approval_id TEXT PRIMARY KEY, task_id TEXT NOT NULL,
        kind TEXT NOT NULL, proof TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS handoffs (n INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL,
        action TEXT NOT NULL, digest TEXT NOT NULL, at INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS rationales (n INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL,
        text TEXT NOT NULL, at INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS delegations (delegation_id TEXT PRIMARY KEY, delegator TEXT NOT NULL,
        delegate TEXT NOT NULL, tools TEXT NOT NULL, not_before INTEGER NOT NULL,
        not_after INTEGER NOT NULL, link TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS batches (lineage TEXT PRIMARY KEY, at INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS batch_items (task_id TEXT PRIMARY KEY, lineage TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS webhook_cursor (one INTEGER PRIMARY KEY CHECK (one = 1), cursor TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS webhooks (webhook_id TEXT PRIMARY KEY, task_id TEXT NOT NULL,
        outcome TEXT NOT NULL, attempts INTEGER NOT NULL, retries TEXT NOT NULL);
"""


class Filed(NamedTuple):
    """What the desk keeps beside a decision: whose it is about (a task or a batch), what the
    reviewer acknowledged and why they rejected."""

    decision_id: str
    subject: str
    approval_id: str
    verdict: str
    reviewer: str
    acknowledged: list
    reason: Optional[str]
    at: int


def summary(t: dict) -> dict:
    return {"id": t["id"], "state": t["state"], "tool": t["action"]["tool"], "args": t["action"]["args"],
            "job_id": t["job_id"], "action_digest": t["action_digest"],
            "short": short_fingerprint(t["action_digest"]), "amendments": t["amendments"],
            "approval_required": t["approval_required"], "updated_at": t["updated_at"]}


class Store:
    def __init__(self, path: Path) -> None:
        self.lock = threading.Lock()
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.executescript(SCHEMA)

    def rows(self, sql: str, *args: object) -> list:
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def run(self, sql: str, *args: object) -> None:
        with self.lock:
            self.db.execute(sql, args)
