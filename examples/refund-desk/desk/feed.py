"""Reading the ledger's change feed (``Ledger.changes``): where it ends now, and how long one
blocking read waits when nothing happens (a read returns as soon as a commit lands)."""

from __future__ import annotations

from actionseal import Ledger

FEED_WAIT_MS = 10_000


def end_cursor(ledger: Ledger) -> str:
    """The cursor after every change so far."""
    cursor = ""
    while True:
        read = ledger.changes(after=cursor, limit=1000)
        if not read["changes"]:
            return read["cursor"]
        cursor = read["cursor"]
