"""``AsyncLedger`` on SQLite and on PostgreSQL: the same API as ``Ledger`` (names and
parameters), the same results, an event loop that keeps running while a call blocks in the
database, and a cancelled wait that frees its thread within one slice."""

import asyncio
import inspect
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import actionseal
from actionseal._async_ledger import WAIT_SLICE_MS
from ledger_support import COMMON, contract_of, facts_for, fresh  # noqa: F401 (a fixture)

REFUND = contract_of("refund")
IDS = {k: COMMON["ids"][k] for k in ("tenant", "subject", "policy_version")}
# Only in AsyncLedger: opening off the loop, sharing an open Ledger, and the Ledger under it.
OWN = {"open", "of", "sync"}
PURE = {"task_id", "telemetry_schema", "backend"}  # no I/O: not awaited


def public(cls):
    return {n for n in dir(cls) if not n.startswith("_")}


def parameters(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def test_the_same_methods_with_the_same_parameters():
    assert public(actionseal.AsyncLedger) - OWN == public(actionseal.Ledger)
    for name in public(actionseal.Ledger) - {"backend"}:
        sync, aio = getattr(actionseal.Ledger, name), getattr(actionseal.AsyncLedger, name)
        if name != "task_id":  # the compiled one takes **identity; the stub names its members
            assert parameters(aio) == parameters(sync), name
        assert inspect.iscoroutinefunction(aio) == (name not in PURE), name
    assert parameters(actionseal.AsyncLedger.__init__) == parameters(actionseal.Ledger)
    assert parameters(actionseal.AsyncLedger.open) == parameters(actionseal.Ledger)
    assert actionseal.AsyncLedger.task_id(tenant="t", job_id="j", request_id="r") == actionseal.Ledger.task_id(
        tenant="t", job_id="j", request_id="r")


def refund(job, amount=2500):
    args = {"order_id": "order-17", "amount_minor": amount, "currency": "USD"}
    return actionseal.action(REFUND, args, job_id=job, request_id="req-1", **IDS)


def decision(task, decision_id, now):
    return {
        "approval_id": task["approval_id"], "decision_id": decision_id, "job_id": task["job_id"],
        "request_id": task["request_id"], "action_digest": task["action_digest"], "decision": "approved",
        "approver": COMMON["approver"], "decided_at": now, "expires_at": now + 3_600_000,
    }


def test_a_task_from_proposal_to_completion(fresh):
    async def main():
        async with actionseal.AsyncLedger(fresh.url()) as ledger:
            assert ledger.backend == fresh.engine
            act = refund("job-1")
            task = await ledger.propose(act, REFUND, proposer="agent")
            assert task == ledger.sync.task(task["id"])
            await ledger.decide(decision(task, "d1", await ledger.now()))
            out = await ledger.claim(task["id"], act, facts_for(REFUND), executor="w1", lease_ms=60_000)
            assert out["result"] == "claimed"
            done = await ledger.complete(task["id"], out["claim"]["fence"], "succeeded", executor="w1")
            assert done["state"] == "succeeded"
            assert [t["id"] for t in await ledger.tasks(state="succeeded")] == [task["id"]]
            history = await ledger.history(task["id"])
            assert [e["kind"] for e in history["events"]] == ["proposed", "decided", "claimed", "completed"]
            assert (await ledger.audit_verify())["valid"]
            with pytest.raises(actionseal.ActionsealError) as e:
                await ledger.task("task_" + "0" * 32)
            assert e.value.code == "task_not_found"
            # The same handle, shared: sync code of the process sees the same database.
            assert actionseal.AsyncLedger.of(ledger.sync).sync is ledger.sync
        with pytest.raises(actionseal.ActionsealError) as e:
            ledger.sync.task(task["id"])
        assert e.value.code == "ledger_unavailable"

    asyncio.run(main())


def test_the_loop_runs_while_a_wait_blocks(fresh):
    """A wait blocking the loop (a sync call in the coroutine) would starve the ticker and the
    approval that wakes it: the wait would time out with no ticks."""
    async def main():
        ledger = await actionseal.AsyncLedger.open(fresh.url())
        task = await ledger.propose(refund("job-1"), REFUND, proposer="agent")
        ticks = 0

        async def ticker():
            nonlocal ticks
            for _ in range(10):
                await asyncio.sleep(0.01)
                ticks += 1
            await ledger.decide(decision(task, "d1", await ledger.now()))

        waited, _ = await asyncio.gather(
            ledger.wait(task["id"], ["approved"], timeout_ms=3 * WAIT_SLICE_MS), ticker())
        assert (waited["outcome"], ticks) == ("reached", 10)
        # A wait longer than a slice that times out says so once, at its end.
        started = time.monotonic()
        out = await ledger.wait(task["id"], ["rejected"], timeout_ms=WAIT_SLICE_MS + 300)
        assert out["outcome"] == "timed_out"
        assert time.monotonic() - started >= (WAIT_SLICE_MS + 300) / 1000 - 0.05
        await ledger.close()

    asyncio.run(main())


def test_a_cancelled_wait_frees_its_thread_within_a_slice(fresh):
    """With one executor thread, the call after a cancelled 30 s wait runs within about a slice;
    a wait that ran whole in its thread would hold the only thread for 30 s."""
    async def main():
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=1))
        ledger = actionseal.AsyncLedger(fresh.url())
        task = await ledger.propose(refund("job-1"), REFUND, proposer="agent")
        for waiting in (ledger.wait(task["id"], ["approved"], timeout_ms=30_000),
                        ledger.changes(after=(await ledger.changes())["cursor"], timeout_ms=30_000)):
            pending = asyncio.ensure_future(waiting)
            await asyncio.sleep(0.2)
            started = time.monotonic()
            pending.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pending
            assert time.monotonic() - started < 0.1, "the cancel returns at once"
            assert (await ledger.task(task["id"]))["state"] == "awaiting_approval"
            assert time.monotonic() - started < WAIT_SLICE_MS / 1000 + 1.5
        await ledger.close()

    asyncio.run(main())


def test_changes_wait_for_a_change_across_slices(fresh):
    async def main():
        ledger = actionseal.AsyncLedger(fresh.url())
        cursor = (await ledger.changes())["cursor"]

        async def propose_later():
            await asyncio.sleep(WAIT_SLICE_MS / 1000 + 0.3)  # past the first slice
            return await ledger.propose(refund("job-2"), REFUND, proposer="agent")

        read, task = await asyncio.gather(ledger.changes(after=cursor, timeout_ms=10_000), propose_later())
        assert [(c["task_id"], c["kind"]) for c in read["changes"]] == [(task["id"], "proposed")]
        await ledger.close()

    asyncio.run(main())
