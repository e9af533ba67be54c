"""What wakes the page and the executors: the ledger's change feed, and the desk's own records
(the model's words, hand-offs, delegations), which the ledger does not hold.

- ``Wakeups``: the desk's own records, announced to every open event stream and to callers
  waiting for a task's hand-off (an executor asks as soon as the task is approved, usually
  before the agent has handed the call over).
- ``stream``: Server-Sent Events (WHATWG HTML, "Server-sent events") for the page: each change
  of one of the desk tenant's tasks as ``event: change`` with the feed's cursor as its ``id``,
  so that the browser's automatic reconnection sends it back as ``Last-Event-ID`` and the
  stream resumes after it; each desk record as ``event: desk``. Only ids and states, never an
  argument value: the page reads the task itself.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import AsyncIterator, Callable

from starlette.concurrency import run_in_threadpool

from actionseal import ActionsealError, Ledger
from feed import FEED_WAIT_MS, end_cursor

# The browser's reconnection delay after a dropped stream (the SSE `retry` field).
RETRY_MS = 1000


class Wakeups:
    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.streams: set = set()  # (loop, queue) of each open event stream

    def announce(self, task_id: str, what: str) -> None:
        """A desk record about `task_id` was written."""
        with self.changed:
            self.changed.notify_all()
            streams = list(self.streams)
        for loop, queue in streams:
            loop.call_soon_threadsafe(queue.put_nowait, {"task_id": task_id, "what": what})

    def wait_for(self, found: Callable[[], object], timeout_s: float) -> object:
        """`found()` once it is truthy, or its last value after `timeout_s`."""
        with self.changed:
            self.changed.wait_for(found, timeout=timeout_s)
            return found()


def sse(event: str, data: dict, event_id: str = "") -> str:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def stream(ledger: Ledger, wakeups: Wakeups, ours: Callable[[str], bool], alive: Callable[[], bool],
                 last_id: str) -> AsyncIterator[str]:
    """The page's event stream, from `last_id` (the Last-Event-ID of a reconnection) or from
    now, while `alive()` (the session it was opened with is still signed in)."""
    cursor = last_id or await run_in_threadpool(end_cursor, ledger)
    try:
        await run_in_threadpool(ledger.changes, after=cursor, limit=1)
    except ActionsealError:
        cursor = await run_in_threadpool(end_cursor, ledger)  # not a cursor of this ledger: from now
    loop, queue = asyncio.get_running_loop(), asyncio.Queue()
    with wakeups.changed:
        wakeups.streams.add((loop, queue))
    # The first event says where the stream starts; the page reads everything once then.
    yield f"retry: {RETRY_MS}\n" + sse("ready", {}, cursor)
    feed = asyncio.ensure_future(run_in_threadpool(ledger.changes, after=cursor, limit=100, timeout_ms=FEED_WAIT_MS))
    try:
        while alive():
            desk = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({feed, desk}, return_when=asyncio.FIRST_COMPLETED)
            if desk in done:
                record = desk.result()
                if await run_in_threadpool(ours, record["task_id"]):
                    yield sse("desk", record)
            else:
                desk.cancel()
            if feed in done:
                read = feed.result()
                for change in read["changes"]:
                    if await run_in_threadpool(ours, change["task_id"]):
                        yield sse("change", {k: change[k] for k in ("task_id", "kind", "state", "at")}, read["cursor"])
                if not read["changes"]:
                    yield ": idle\n\n"  # a quiet feed; writing also finds a page that went away
                cursor = read["cursor"]
                feed = asyncio.ensure_future(
                    run_in_threadpool(ledger.changes, after=cursor, limit=100, timeout_ms=FEED_WAIT_MS))
    finally:
        feed.cancel()
        with wakeups.changed:
            wakeups.streams.discard((loop, queue))
