"""``AsyncLedger``: the ledger's API with every method awaitable, for asyncio code (FastAPI, async
agent frameworks).

Each call runs the blocking ``Ledger`` method in the event loop's default executor
(``asyncio.to_thread``). That is enough because the compiled methods release the GIL while they
wait on the database (``py.detach``), so the loop keeps running; a native future would save a
thread hop per call and add a Rust async runtime beside the one per PostgreSQL client, for no
change a caller can see. ``to_thread`` copies the caller's context, so OpenTelemetry spans of
the calls nest under the caller's span.

Waiting (``wait``, ``changes`` with ``timeout_ms``) runs in slices of at most ``WAIT_SLICE_MS``:
a thread blocked in the database cannot be interrupted, so cancelling the awaiting task returns
at once (``CancelledError``) and the thread of its slice returns by itself within one slice,
its answer discarded. No thread is left waiting for the whole timeout.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Literal, Optional, TypeVar, Union

from . import _actionseal
from ._actionseal import Contract, ManualClock
from ._ledger import Ledger

if TYPE_CHECKING:  # the stub's result types, which exist for type checkers only
    from ._actionseal import (
        ObservedOutcome, ProofRequirement, ReportedOutcome, TaskState, _Amended, _AmendmentRecord,
        _AuditReport, _ChangesRead, _ClaimFacts, _ClaimOutcome, _Decided, _DecisionEnvelope,
        _EvidenceBundle, _ExportedHeads, _LedgerBudget, _LedgerPolicy, _LedgerTask, _LogCheckpoint,
        _Revocation, _SignedEnvelope, _TaskHistory, _Waited, _TasksPage, _AuditPage, _BatchClaimOutcome,
        _BatchDecided, _BatchDecisionEnvelope, _LedgerBatch, _Shredded,
    )

T = TypeVar("T")

WAIT_SLICE_MS = 1000
"""The longest a single blocking wait runs: how long a cancelled wait's thread may linger."""


class AsyncLedger:
    """A ``Ledger`` whose methods are coroutines, with the same names, parameters and results.
    ``AsyncLedger(url, ...)`` opens one as ``Ledger`` does (``await AsyncLedger.open(url, ...)``
    without blocking the loop); ``AsyncLedger.of(ledger)`` shares an open one (what sync and async code of one process use together). Refusals raise
    ``ActionsealError`` as ``Ledger``'s do."""

    def __init__(
        self,
        url: str,
        *,
        clock: Optional[ManualClock] = None,
        proof: Optional[Dict[str, Any]] = None,
        log_key: Optional[str] = None,
    ) -> None:
        # Opening a SQLite file or connecting to PostgreSQL blocks briefly, once: code that must
        # not block at all awaits ``open`` (or wraps an open ledger with ``of``).
        self._sync = Ledger(url, clock=clock, proof=proof, log_key=log_key)

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        clock: Optional[ManualClock] = None,
        proof: Optional[Dict[str, Any]] = None,
        log_key: Optional[str] = None,
    ) -> "AsyncLedger":
        """Opens a ledger as the constructor does, off the event loop (as Node's ``Ledger.open``)."""
        return cls.of(await asyncio.to_thread(Ledger, url, clock=clock, proof=proof, log_key=log_key))

    @classmethod
    def of(cls, ledger: Ledger) -> "AsyncLedger":
        """An ``AsyncLedger`` over an open ``Ledger`` (the same database handle)."""
        if not isinstance(ledger, _actionseal.Ledger):  # instrumented or not
            raise TypeError(f"AsyncLedger.of takes a Ledger, not {type(ledger).__name__}")
        self = cls.__new__(cls)
        self._sync = ledger
        return self

    @property
    def sync(self) -> Ledger:
        """The blocking ``Ledger`` under this one."""
        return self._sync

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))

    @property
    def backend(self) -> Literal["sqlite", "postgres"]:
        """Which database the ledger is on: ``"sqlite"`` or ``"postgres"``."""
        return self._sync.backend

    async def now(self) -> int:
        return await self._run(self._sync.now)

    @staticmethod
    def task_id(*, tenant: str, job_id: str, request_id: str) -> str:
        """The id of the task with this identity (pure: no I/O, not awaited)."""
        return Ledger.task_id(tenant=tenant, job_id=job_id, request_id=request_id)

    @staticmethod
    def telemetry_schema() -> Dict[str, Any]:
        """Core's telemetry table (pure: not awaited)."""
        return Ledger.telemetry_schema()

    async def propose(self, action: Dict[str, Any], contract: Union[Contract, Dict[str, Any]], *,
                      proposer: str) -> "_LedgerTask":
        return await self._run(self._sync.propose, action, contract, proposer=proposer)

    async def amend(self, task_id: str, action: Dict[str, Any], contract: Union[Contract, Dict[str, Any]], *,
                    amends: str, reviewer: str, reason: str) -> "_Amended":
        return await self._run(self._sync.amend, task_id, action, contract, amends=amends, reviewer=reviewer,
                               reason=reason)

    async def amendments(self, task_id: str) -> "List[_AmendmentRecord]":
        return await self._run(self._sync.amendments, task_id)

    async def decide(self, decision: "Union[_DecisionEnvelope, _SignedEnvelope, Dict[str, Any]]") -> "_Decided":
        return await self._run(self._sync.decide, decision)

    async def claim(self, task_id: str, action: Dict[str, Any], facts: "_ClaimFacts", *, executor: str,
                    lease_ms: int, budget: Optional[str] = None,
                    proof: "Optional[ProofRequirement]" = None) -> "_ClaimOutcome":
        return await self._run(self._sync.claim, task_id, action, facts, executor=executor, lease_ms=lease_ms,
                               budget=budget, proof=proof)

    async def complete(self, task_id: str, fence: int, outcome: "ReportedOutcome", *, executor: str,
                       result: Any = None) -> "_LedgerTask":
        return await self._run(self._sync.complete, task_id, fence, outcome, executor=executor, result=result)

    async def reconcile(self, task_id: str, observed: "ObservedOutcome", *, actor: str,
                        result: Any = None) -> "_LedgerTask":
        return await self._run(self._sync.reconcile, task_id, observed, actor=actor, result=result)

    async def propose_batch(self, actions: List[Dict[str, Any]], contract: Union[Contract, Dict[str, Any]], *,
                            semantics: Literal["per_item", "all_or_nothing"], proposer: str) -> "_LedgerBatch":
        return await self._run(self._sync.propose_batch, actions, contract, semantics=semantics, proposer=proposer)

    async def amend_batch(self, batch_id: str, *, amends: str, deselect: List[int], reviewer: str,
                          reason: str) -> "_LedgerBatch":
        return await self._run(self._sync.amend_batch, batch_id, amends=amends, deselect=deselect,
                               reviewer=reviewer, reason=reason)

    async def decide_batch(self, decision: "Union[_BatchDecisionEnvelope, Dict[str, Any]]") -> "_BatchDecided":
        return await self._run(self._sync.decide_batch, decision)

    async def claim_item(self, task_id: str, action: Dict[str, Any], facts: "_ClaimFacts", *, executor: str,
                         lease_ms: int, budget: Optional[str] = None,
                         proof: "Optional[ProofRequirement]" = None) -> "_ClaimOutcome":
        return await self._run(self._sync.claim_item, task_id, action, facts, executor=executor,
                               lease_ms=lease_ms, budget=budget, proof=proof)

    async def claim_batch(self, batch_id: str, actions: List[Dict[str, Any]], facts: "_ClaimFacts", *,
                          executor: str, lease_ms: int, budget: Optional[str] = None,
                          proof: "Optional[ProofRequirement]" = None) -> "_BatchClaimOutcome":
        return await self._run(self._sync.claim_batch, batch_id, actions, facts, executor=executor,
                               lease_ms=lease_ms, budget=budget, proof=proof)

    async def complete_item(self, task_id: str, fence: int, outcome: "ReportedOutcome", *, executor: str,
                            result: Any = None) -> "_LedgerTask":
        return await self._run(self._sync.complete_item, task_id, fence, outcome, executor=executor,
                               result=result)

    async def reconcile_item(self, task_id: str, observed: "ObservedOutcome", *, actor: str,
                             result: Any = None) -> "_LedgerTask":
        return await self._run(self._sync.reconcile_item, task_id, observed, actor=actor, result=result)

    async def batch(self, batch_id: str) -> "_LedgerBatch":
        return await self._run(self._sync.batch, batch_id)

    async def revoke(self, approval_id: str, *, actor: str) -> "_Revocation":
        return await self._run(self._sync.revoke, approval_id, actor=actor)

    async def expire_leases(self) -> List[str]:
        return await self._run(self._sync.expire_leases)

    async def set_budget(self, name: str, limit_minor: int) -> "_LedgerBudget":
        return await self._run(self._sync.set_budget, name, limit_minor)

    async def redact(self, task_id: str, *, actor: str) -> "_Shredded":
        return await self._run(self._sync.redact, task_id, actor=actor)

    async def disclosures(self, task_id: str) -> List[str]:
        return await self._run(self._sync.disclosures, task_id)

    async def set_retention(
        self, tenant: str, class_name: str, *, keep_ms: Optional[int], at_finish: Literal["keep", "shred"], actor: str
    ) -> Dict[str, Any]:
        return await self._run(
            self._sync.set_retention, tenant, class_name, keep_ms=keep_ms, at_finish=at_finish, actor=actor)

    async def retention(self) -> List[Dict[str, Any]]:
        return await self._run(self._sync.retention)

    async def retention_run(self, *, actor: str) -> List["_Shredded"]:
        return await self._run(self._sync.retention_run, actor=actor)

    async def budget(self, name: str) -> "_LedgerBudget":
        return await self._run(self._sync.budget, name)

    async def task(self, task_id: str) -> "_LedgerTask":
        return await self._run(self._sync.task, task_id)

    async def history(self, task_id: str) -> "_TaskHistory":
        return await self._run(self._sync.history, task_id)

    async def tasks(self, *, state: "Optional[TaskState]" = None, tenant: Optional[str] = None,
                    since: Optional[int] = None, until: Optional[int] = None) -> "List[_LedgerTask]":
        return await self._run(self._sync.tasks, state=state, tenant=tenant, since=since, until=until)

    async def tasks_page(self, *, state: "Optional[TaskState]" = None, tenant: Optional[str] = None,
                         since: Optional[int] = None, until: Optional[int] = None,
                         limit: Optional[int] = None, after: Optional[str] = None) -> "_TasksPage":
        return await self._run(self._sync.tasks_page, state=state, tenant=tenant, since=since,
                               until=until, limit=limit, after=after)

    async def audit_export(self) -> str:
        return await self._run(self._sync.audit_export)

    async def audit_export_page(self, *, state: "Optional[TaskState]" = None, tenant: Optional[str] = None,
                                since: Optional[int] = None, until: Optional[int] = None,
                                limit: Optional[int] = None, after: Optional[str] = None) -> "_AuditPage":
        return await self._run(self._sync.audit_export_page, state=state, tenant=tenant, since=since,
                               until=until, limit=limit, after=after)

    async def audit_verify(self, *, exported: "Optional[_ExportedHeads]" = None) -> "_AuditReport":
        return await self._run(self._sync.audit_verify, exported=exported)

    async def audit_heads(self) -> "_ExportedHeads":
        return await self._run(self._sync.audit_heads)

    async def wait(self, task_id: str, states: "List[TaskState]", *, timeout_ms: int) -> "_Waited":
        """As ``Ledger.wait``, in slices (see the module): cancellable."""
        if not _sliceable(timeout_ms):  # small, or not an int: one call, whose checks apply
            return await self._run(self._sync.wait, task_id, states, timeout_ms=timeout_ms)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        while True:
            left = max(0, round((deadline - loop.time()) * 1000))
            out = await self._run(self._sync.wait, task_id, states, timeout_ms=min(left, WAIT_SLICE_MS))
            if out["outcome"] != "timed_out" or left <= WAIT_SLICE_MS:
                return out

    async def changes(self, *, after: Optional[str] = None, limit: Optional[int] = None,
                      timeout_ms: Optional[int] = None) -> "_ChangesRead":
        """As ``Ledger.changes``; with ``timeout_ms``, waits in slices (see the module):
        cancellable."""
        if timeout_ms is None or not _sliceable(timeout_ms):
            return await self._run(self._sync.changes, after=after, limit=limit, timeout_ms=timeout_ms)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        while True:
            left = max(0, round((deadline - loop.time()) * 1000))
            out = await self._run(self._sync.changes, after=after, limit=limit,
                                  timeout_ms=min(left, WAIT_SLICE_MS))
            if out["changes"] or left <= WAIT_SLICE_MS:
                return out
            after = out["cursor"]

    async def policy(self) -> "_LedgerPolicy":
        return await self._run(self._sync.policy)

    async def set_proof_requirement(self, proof: "ProofRequirement", *, actor: str,
                                    reason: str) -> "_LedgerPolicy":
        return await self._run(self._sync.set_proof_requirement, proof, actor=actor, reason=reason)

    async def checkpoint(self) -> "_LogCheckpoint":
        return await self._run(self._sync.checkpoint)

    async def evidence(self, task_id: str, actor: str,
                       contract: Union[Contract, Dict[str, Any], None] = None) -> "_EvidenceBundle":
        return await self._run(self._sync.evidence, task_id, actor, contract)

    async def close(self) -> None:
        await self._run(self._sync.close)

    async def __aenter__(self) -> "AsyncLedger":
        return self

    async def __aexit__(self, *exc: object) -> bool:
        await self.close()
        return False


def _sliceable(timeout_ms: Any) -> bool:
    return type(timeout_ms) is int and timeout_ms > WAIT_SLICE_MS
