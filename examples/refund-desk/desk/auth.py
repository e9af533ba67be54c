"""Who may call the approval server, and how it tells.

Three credentials, one per role, each a per-run secret that setup.py writes (0600) into the
run directory:

- each reviewer signs in with their own secret (``reviewer.secret`` is user:bob's; every
  reviewer's is in ``reviewers.json``, by identity) and gets a session: an opaque id in a cookie
  marked ``HttpOnly`` and ``SameSite=Strict``, with a CSRF token of its own that the page sends
  in ``X-CSRF-Token`` on every state change. The session is that reviewer's: who decides is
  never a name in a request;
- the agent presents ``agent.token`` as a bearer token: it may hand calls over and say why it
  made them, nothing else;
- the executors present ``executor.token``: they may read hand-offs and proofs, nothing else.

Every state change must also come from the page's own origin (an ``Origin`` header, when one is
sent, must be the page's; a reviewer's request must send it) and carry a JSON body
(``Content-Type: application/json``): a cross-site form or a ``text/plain`` request is refused
before anyone is looked up (OWASP CSRF Prevention Cheat Sheet: synchronizer token, Origin
verification, SameSite cookies).
"""

from __future__ import annotations

import base64
import enum
import json
import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

COOKIE = "desk_session"
CSRF_HEADER = "x-csrf-token"
SESSION_TTL_S = 8 * 3600
SESSIONS_MAX = 64
# Registration challenges: a reviewer registers a passkey now and then, not thousands at once.
CHALLENGES_MAX = 16
CHALLENGE_TTL_S = 300


class Role(enum.Enum):
    """Who a request is from."""

    REVIEWER = "reviewer"  # a signed-in session: reads tasks, amends, decides, enrols passkeys
    AGENT = "agent"  # hands calls over and files its rationale; never decides
    EXECUTOR = "executor"  # reads hand-offs and proofs


def token() -> str:
    """32 random bytes, unpadded base64url."""
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


def write_secret(path: Path, value: str) -> None:
    """Writes a secret readable by its owner only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(value + "\n")


@dataclass
class Credentials:
    """The run's secrets, read from the run directory."""

    reviewers: dict  # reviewer identity -> secret
    agent: str
    executor: str

    @classmethod
    def load(cls, run_dir: Path) -> "Credentials":
        def read(name: str) -> str:
            return (run_dir / name).read_text().strip()

        return cls(json.loads(read("reviewers.json")), read("agent.token"), read("executor.token"))

    def bearer(self, header: Optional[str]) -> Optional[Role]:
        """The role whose token ``Authorization: Bearer ...`` carries, if any."""
        if not header or not header.startswith("Bearer "):
            return None
        given = header[len("Bearer "):].encode()
        for role, value in ((Role.AGENT, self.agent), (Role.EXECUTOR, self.executor)):
            if secrets.compare_digest(given, value.encode()):
                return role
        return None

    def reviewer_secret(self, given: object) -> Optional[str]:
        """The reviewer whose secret ``given`` is, if any (every secret is compared)."""
        if not isinstance(given, str):
            return None
        found = None
        for reviewer, value in self.reviewers.items():
            if secrets.compare_digest(given.encode(), value.encode()):
                found = reviewer
        return found


@dataclass(eq=False)  # a session is itself, not its contents: a challenge names one by identity
class Session:
    reviewer: str
    csrf: str


class Bounded:
    """A map of at most ``limit`` entries that expire after ``ttl_s`` seconds: the oldest go first."""

    def __init__(self, limit: int, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.ttl_s, self.clock = limit, ttl_s, clock
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.items)

    def put(self, key: str, value: object) -> None:
        with self.lock:
            self._prune()
            while len(self.items) >= self.limit:
                self.items.popitem(last=False)
            self.items[key] = (self.clock() + self.ttl_s, value)

    def get(self, key: object) -> Optional[object]:
        with self.lock:
            self._prune()
            entry = self.items.get(key) if isinstance(key, str) else None
            return None if entry is None else entry[1]

    def take(self, key: object) -> Optional[object]:
        """The value, removed: a single use."""
        with self.lock:
            self._prune()
            entry = self.items.pop(key, None) if isinstance(key, str) else None
            return None if entry is None else entry[1]

    def _prune(self) -> None:
        now = self.clock()
        while self.items and next(iter(self.items.values()))[0] <= now:
            self.items.popitem(last=False)


class Sessions:
    """Reviewer sessions by cookie id, each with its CSRF token; bounded and expiring."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.by_id = Bounded(SESSIONS_MAX, SESSION_TTL_S, clock)

    def open(self, reviewer: str) -> tuple:
        """A new session: its id (the cookie's value) and its CSRF token."""
        sid, csrf = token(), token()
        self.by_id.put(sid, Session(reviewer, csrf))
        return sid, csrf

    def get(self, sid: object) -> Optional[Session]:
        found = self.by_id.get(sid)
        return found if isinstance(found, Session) else None

    def close(self, sid: object) -> None:
        self.by_id.take(sid)
