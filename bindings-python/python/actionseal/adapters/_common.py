"""What every framework adapter does the same way: freeze a tool call into an action, propose it,
decide at dispatch through one ledger claim, and record the outcome.

The adapters differ only in how they pause, resume and run a tool. Each one asks a ``Seal`` for a
``Gate`` verdict about the call it is handed and acts on it: ``Run`` (the claim was won: run the
tool with ``Run.args``, the frozen arguments, then ``finish``), ``Pause`` (no claimable approval:
use the framework's own pause and show ``Pause.request``) or ``Refuse`` (nothing runs; tell the
model ``Refuse.message``). What each ledger step means is decided by core's ``gate_step``, the
same in every runtime; this module only does the I/O. A framework's own "approved" signal never
reaches it: the decision is whatever the ledger holds.

The parallel calls of one model turn are proposed together first (``Seal.turn``): core says which
of them form a batch a person reviews once (their contract's ``batch`` member allows it), and
each call of a batch then claims and completes its own item when the framework runs it.

Each step that touches the ledger is written once, as a generator that yields the ledger calls
it needs (``_Call``) and receives their results: ``Seal.gate`` runs it against the blocking
``Ledger``, ``Seal.agate`` against an ``AsyncLedger`` (async frameworks never block their event
loop). The gate is an OpenTelemetry ``execute_tool`` span when ``opentelemetry-api`` is
installed, with the ledger's spans under it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import (Any, Callable, Collection, Dict, Generator, List, Literal, Mapping, Optional, Sequence, Tuple, TypeVar,
                    Union)

from .. import _telemetry
from .._actionseal import ActionsealError, Contract, action, canonicalize, gate_defaults, gate_step, loads
from .._async_ledger import AsyncLedger
from .._ledger import Ledger

DEFAULTS = gate_defaults()
"""``{"lease_ms", "executor", "proposer"}``: core's defaults, the same as the Node adapters'."""


@dataclass(frozen=True)
class Trusted:
    """What the application's server knows about the call, never the model or the client: who
    the agent acts for (tenant, subject), the policy in force, who may still approve, and, for
    frameworks without a thread id of their own, the job (the app's run or conversation id)."""

    tenant: str
    subject: str
    policy_version: str
    approvers: Union[Collection[str], Callable[[str], bool]]
    """Who may approve now: a collection of approver names or a predicate."""
    job_id: Optional[str] = None
    subject_authorized: bool = True
    """Whether the subject may still perform the action (checked at each claim)."""

    def may_approve(self, approver: str) -> bool:
        a = self.approvers
        return bool(a(approver)) if callable(a) else approver in a


def contract(
    tool: str,
    schema: Mapping[str, Any],
    *,
    approval: Any,
    cost_minor: int = 0,
    effect: str = "write",
    version: str = "1",
    batch: Optional[Mapping[str, Any]] = None,
) -> Contract:
    """A contract whose argument schema is the tool's own JSON Schema, unchanged; the approval
    rule, cost, effect and version come from the application, and ``batch`` (the contract's
    ``batch`` member: ``max_items``, caps, breaker) lets one turn's calls be reviewed as a batch.
    Compiled here, so a schema outside core's subset fails when the tool is wrapped, not at its
    first call."""
    doc = {"tool": tool, "version": version, "effect": effect, "args": dict(schema),
           "approval": approval, "cost_minor": cost_minor}
    if batch is not None:
        doc["batch"] = dict(batch)
    return Contract(doc)


def message(payload: Mapping[str, Any]) -> str:
    """What the model reads about a refusal outside the gate (a framework's own): ``actionseal: ``
    and canonical JSON, as core writes the gate's."""
    return "actionseal: " + canonicalize(dict(payload))


def parse_message(text: str) -> Optional[Dict[str, Any]]:
    """The payload of a ``message`` found at the end of ``text`` (a framework may prefix it)."""
    head, sep, tail = text.rpartition("actionseal: ")
    if not sep:
        return None
    try:
        return json.loads(tail)
    except ValueError:
        return None


@dataclass
class Run:
    """The claim was won: run the tool with ``args`` (the frozen ones), then ``Seal.finish``."""

    claim: Dict[str, Any]
    args: Dict[str, Any]
    unit: Literal["task", "item"] = "task"
    """``task`` of its own, or ``item`` of a batch (held to its caps and breaker): which
    completion ``finish`` records (core's ``unit``)."""


@dataclass
class Pause:
    """No claimable approval: pause the run and show ``request`` to the reviewer; a framework
    that cannot pause tells the model ``message`` instead."""

    task: Dict[str, Any]
    request: Dict[str, Any]
    payload: Dict[str, Any]
    message: str


@dataclass
class Refuse:
    """Nothing runs; ``message`` tells the model why (and, on drift, the approved args)."""

    payload: Dict[str, Any]
    bad_args: bool = False
    """The args broke the schema or did not parse: nothing was proposed."""
    text: Optional[str] = None
    """The text core wrote for the model (``None``: a refusal of the adapter's own)."""
    replay: Any = None
    """A finished call sent again: its recorded result, which a gateway gives instead (core's)."""

    @property
    def code(self) -> str:
        return self.payload["error"]

    @property
    def message(self) -> str:
        return self.text if self.text is not None else message(self.payload)


@dataclass
class Proposed:
    """The proposal holds and the task is not waiting: claim it with ``action``."""

    task: Dict[str, Any]
    action: Dict[str, Any]
    unit: Literal["task", "item"] = "task"
    """``task`` or ``item``: an item of a decided batch is claimed with ``claim_item`` (core's
    ``unit``)."""


@dataclass(frozen=True)
class TurnCall:
    """One tool call of a model turn as the framework hands it over."""

    name: str
    args: Any
    request_id: str


def batch_in(plan: Dict[str, Any], calls: Sequence[TurnCall], request_id: str) -> Optional[str]:
    """The id of the batch a turn's ``plan`` (``Seal.plan``, ``Seal.turn``) puts the call
    ``request_id`` of ``calls`` in, if any."""
    for b in plan["batches"]:
        if any(calls[i].request_id == request_id for i in b["calls"]):
            return b["batch_id"]
    return None


Gate = Union[Run, Pause, Refuse]

T = TypeVar("T")
_Call = Tuple[str, Tuple[Any, ...], Dict[str, Any]]
"""A ledger call a step needs: the method's name, its positional and keyword arguments."""
Steps = Generator[_Call, Any, T]


def _call(name: str, *args: Any, **kwargs: Any) -> _Call:
    return name, args, kwargs


def drive(steps: Steps[T], ledger: Ledger) -> T:
    """Runs ``steps`` against the blocking ledger: each yielded call's result (or error) is sent
    back into it."""
    try:
        call = next(steps)
        while True:
            name, args, kwargs = call
            try:
                result = getattr(ledger, name)(*args, **kwargs)
            except Exception as e:
                call = steps.throw(e)
            else:
                call = steps.send(result)
    except StopIteration as done:
        return done.value


async def adrive(steps: Steps[T], ledger: AsyncLedger) -> T:
    """``drive`` against an ``AsyncLedger``."""
    try:
        call = next(steps)
        while True:
            name, args, kwargs = call
            try:
                result = await getattr(ledger, name)(*args, **kwargs)
            except Exception as e:
                call = steps.throw(e)
            else:
                call = steps.send(result)
    except StopIteration as done:
        return done.value


def _traced(gate: Any, tool: str, request_id: str, rec: Optional[_telemetry.Recorder]) -> None:
    """The gate span's attributes: core's table maps this record, never the args."""
    if rec is None:
        return
    task: Optional[Dict[str, Any]] = gate.task if isinstance(gate, Pause) else None
    if isinstance(gate, Run):
        task = {"id": gate.claim["task_id"]}  # never the claim itself: it holds the args
        kind, reasons = "run", []
    elif isinstance(gate, Pause):
        kind, reasons = "pause", []
    else:
        kind, reasons = "refuse", [gate.code]
    rec.result({"task": task, "tool": tool, "call_id": request_id, "decision": kind, "reasons": reasons})


class Seal:
    """The ledger side of an adapter: which tools are governed (their contracts) and who
    proposes and executes. Thread-safe as the ledger is; share one per process. ``ledger`` is a
    ``Ledger`` or an ``AsyncLedger`` (the same handle serves the blocking and the ``a``-prefixed
    awaitable steps either way)."""

    def __init__(
        self,
        ledger: Union[Ledger, AsyncLedger],
        contracts: Mapping[str, Union[Contract, Mapping[str, Any]]],
        *,
        proposer: str = DEFAULTS["proposer"],
        executor: str = DEFAULTS["executor"],
        lease_ms: int = DEFAULTS["lease_ms"],
        budget: Optional[str] = None,
    ) -> None:
        self.aledger = ledger if isinstance(ledger, AsyncLedger) else AsyncLedger.of(ledger)
        self.ledger = self.aledger.sync
        self.contracts: Dict[str, Contract] = {}
        for name, c in contracts.items():
            c = c if isinstance(c, Contract) else Contract(dict(c))
            if c.tool != name:
                raise ValueError(f"the contract for {name!r} is for the tool {c.tool!r}")
            self.contracts[name] = c
        self.proposer, self.executor = proposer, executor
        self.lease_ms, self.budget = lease_ms, budget

    def governs(self, name: str) -> bool:
        return name in self.contracts

    # -- freeze and propose ---------------------------------------------------------------
    def freeze(self, name: str, args: Any, trusted: Trusted, *, job_id: str, request_id: str) -> Dict[str, Any]:
        """The action envelope of this call; ``ActionsealError`` when the args break the schema
        (``"300"`` for an integer: ``type_mismatch``; an undeclared member: ``unknown_field``)."""
        return action(self.contracts[name], args, tenant=trusted.tenant, subject=trusted.subject,
                      job_id=job_id, request_id=request_id, policy_version=trusted.policy_version)

    def propose(self, action: Dict[str, Any]) -> Dict[str, Any]:
        """The task of this call. Proposing again is idempotent; the same call id with other args
        (``task_conflict``) is the task already there, and its claim will refuse the drift."""
        return drive(self._propose(action), self.ledger)

    def _propose(self, action: Dict[str, Any]) -> Steps[Dict[str, Any]]:
        try:
            return (yield _call("propose", action, self.contracts[action["tool"]], proposer=self.proposer))
        except ActionsealError as e:
            if e.code != "task_conflict":
                raise
            return (yield _call("task", self.task_id(action)))

    @staticmethod
    def task_id(action: Mapping[str, Any]) -> str:
        return Ledger.task_id(tenant=action["tenant"], job_id=action["job_id"], request_id=action["request_id"])

    # -- a model turn ------------------------------------------------------------------------
    def plan(self, calls: Sequence[TurnCall], trusted: Trusted, *, job_id: str) -> Dict[str, Any]:
        """Core's batches of a turn (``{"batches": [{"calls", "batch_id", "batch_digest",
        "semantics"}]}``, ``calls`` as positions in ``calls``), without touching the ledger.
        Calls of ungoverned tools and calls whose args break the schema take part in none."""
        return self._plan(calls, trusted, job_id)[0]

    def _plan(self, calls: Sequence[TurnCall], trusted: Trusted,
              job_id: str) -> Tuple[Dict[str, Any], List[Tuple[int, Dict[str, Any]]]]:
        frozen: List[Tuple[int, Dict[str, Any]]] = []
        for i, c in enumerate(calls):
            if not self.governs(c.name):
                continue
            try:
                frozen.append((i, self.freeze(c.name, c.args, trusted, job_id=job_id, request_id=c.request_id)))
            except ActionsealError:
                continue  # told to the model where the call would run
        d = gate_step({"step": "turn", "calls": [
            {"action": a, "contract": self.contracts[a["tool"]].document} for _, a in frozen]})
        # Positions in the frozen list, back to positions in the turn.
        batches = [{**b, "calls": [frozen[k][0] for k in b["calls"]]} for b in d["batches"]]
        return {"batches": batches}, frozen

    def batch_of(self, calls: Sequence[TurnCall], trusted: Trusted, *, job_id: str,
                 request_id: str) -> Optional[str]:
        """The id of the batch core puts the call ``request_id`` of this turn in, if any."""
        return batch_in(self.plan(calls, trusted, job_id=job_id), calls, request_id)

    def turn(self, calls: Sequence[TurnCall], trusted: Trusted, *, job_id: str) -> Dict[str, Any]:
        """Proposes a model turn's governed calls as soon as the model asks: each batch core
        plans with ``propose_batch`` (a person reviews it once), every other call on its own.
        A batch the ledger refuses as a batch (its server's policy is narrower, a quorum) is
        proposed call by call. Bad args are left for the call's own gate. Returns the plan."""
        return drive(self._turn(calls, trusted, job_id), self.ledger)

    async def aturn(self, calls: Sequence[TurnCall], trusted: Trusted, *, job_id: str) -> Dict[str, Any]:
        """``turn`` on the ``AsyncLedger``."""
        return await adrive(self._turn(calls, trusted, job_id), self.aledger)

    def _turn(self, calls: Sequence[TurnCall], trusted: Trusted, job_id: str) -> Steps[Dict[str, Any]]:
        plan, frozen = self._plan(calls, trusted, job_id)
        action_at = dict(frozen)
        batched = set()
        for b in plan["batches"]:
            actions = [action_at[i] for i in b["calls"]]
            try:
                yield _call("propose_batch", actions, self.contracts[actions[0]["tool"]],
                            semantics=b["semantics"], proposer=self.proposer)
            except ActionsealError as e:
                decided(gate_step({"step": "turn", "error": caught(e)}), None, e)  # alone, or raised
                continue
            batched.update(b["calls"])
        for i, a in frozen:
            if i not in batched:
                yield from self._propose(a)
        return plan

    def prepare(self, name: str, args: Any, trusted: Trusted, *, job_id: str,
                request_id: str, batch_id: Optional[str] = None) -> Union[Proposed, Pause, Refuse]:
        """Freeze and propose: the task to claim, the pause of a task waiting for a person (an
        item's shows its batch ``batch_id``), or the refusal of args that break the schema."""
        return drive(self._prepare(name, args, trusted, job_id, request_id, batch_id), self.ledger)

    async def aprepare(self, name: str, args: Any, trusted: Trusted, *, job_id: str,
                       request_id: str, batch_id: Optional[str] = None) -> Union[Proposed, Pause, Refuse]:
        """``prepare`` on the ``AsyncLedger``."""
        return await adrive(self._prepare(name, args, trusted, job_id, request_id, batch_id), self.aledger)

    def _prepare(self, name: str, args: Any, trusted: Trusted, job_id: str,
                 request_id: str, batch_id: Optional[str] = None) -> Steps[Union[Proposed, Pause, Refuse]]:
        try:
            presented = self.freeze(name, args, trusted, job_id=job_id, request_id=request_id)
            # Under a quorum the task carries how many approvals are still missing (issue 25).
            task = yield from self._propose(presented)
        except ActionsealError as e:
            return decided(gate_step({"step": "propose", "tool": name, "error": caught(e)}), None, e)
        step = yield from self._with_batch({"step": "propose", "task": task, "presented": presented}, batch_id)
        return decided(gate_step(step), task)

    def _with_batch(self, step: Dict[str, Any], batch_id: Optional[str]) -> Steps[Dict[str, Any]]:
        """``step`` with the batch of its waiting task, which the reviewer decides once for all
        of the turn's calls."""
        task = step["task"]
        if batch_id is not None and task["state"] in ("awaiting_approval", "awaiting_reapproval"):
            batch = yield from self._batch_of_task(batch_id, task["id"])
            if batch is not None:
                return {**step, "batch": batch}
        return step

    def _batch_of_task(self, batch_id: str, task_id: str) -> Steps[Optional[Dict[str, Any]]]:
        """The batch that holds the task now: the turn's, or the one a trip or an expiry sent
        its remaining items back in (its ``successor``, followed)."""
        try:
            batch = yield _call("batch", batch_id)
        except ActionsealError as e:
            if e.code != "batch_not_found":
                raise
            return None  # the ledger refused it as a batch: its calls are single tasks
        def holds(b: Dict[str, Any]) -> bool:
            return any(i["task_id"] == task_id for i in b["items"])

        if not holds(batch):
            return None
        # A batch keeps listing the items it sent back: the latest batch that holds it decides.
        while batch.get("successor"):
            later = yield _call("batch", batch["successor"])
            if not holds(later):
                break
            batch = later
        return batch

    def existing(self, trusted: Trusted, *, job_id: str, request_id: str) -> Optional[Dict[str, Any]]:
        """The task already proposed for this call id, if any."""
        return drive(self._existing(trusted, job_id, request_id), self.ledger)

    async def aexisting(self, trusted: Trusted, *, job_id: str, request_id: str) -> Optional[Dict[str, Any]]:
        """``existing`` on the ``AsyncLedger``."""
        return await adrive(self._existing(trusted, job_id, request_id), self.aledger)

    def _existing(self, trusted: Trusted, job_id: str, request_id: str) -> Steps[Optional[Dict[str, Any]]]:
        try:
            return (yield _call("task", Ledger.task_id(tenant=trusted.tenant, job_id=job_id,
                                                       request_id=request_id)))
        except ActionsealError as e:
            if e.code != "task_not_found":
                raise
            return None

    # -- dispatch -------------------------------------------------------------------------
    def facts(self, task: Mapping[str, Any], trusted: Trusted) -> Dict[str, Any]:
        """The executor's facts for a claim, from the trusted context and the current contract."""
        approval = task.get("approval")
        approver = approval["approver"] if approval else None
        return {
            "tenant": trusted.tenant,
            "policy_version": trusted.policy_version,
            "contract": self.contracts[task["action"]["tool"]].document,
            "approver_authorized": None if approver is None
            else {"approver": approver, "authorized": trusted.may_approve(approver)},
            "subject_authorized": {"subject": trusted.subject, "authorized": trusted.subject_authorized},
        }

    def gate(self, name: str, args: Any, trusted: Trusted, *, job_id: str, request_id: str,
             batch_id: Optional[str] = None) -> Gate:
        """Decide about the call the framework is about to run, with the args it hands over:
        only a won claim runs, with the frozen args. ``batch_id``: the batch of the call's turn
        (``batch_of``), shown to the reviewer while it waits. Blocks on the ledger (async code
        awaits ``agate``)."""
        with _telemetry.gate_span(name) as rec:
            gate = drive(self._gate(name, args, trusted, job_id, request_id, batch_id), self.ledger)
            _traced(gate, name, request_id, rec)
            return gate

    async def agate(self, name: str, args: Any, trusted: Trusted, *, job_id: str, request_id: str,
                    batch_id: Optional[str] = None) -> Gate:
        """``gate`` on the ``AsyncLedger``."""
        with _telemetry.gate_span(name) as rec:
            gate = await adrive(self._gate(name, args, trusted, job_id, request_id, batch_id), self.aledger)
            _traced(gate, name, request_id, rec)
            return gate

    def _gate(self, name: str, args: Any, trusted: Trusted, job_id: str, request_id: str,
              batch_id: Optional[str] = None) -> Steps[Gate]:
        proposed = yield from self._prepare(name, args, trusted, job_id, request_id, batch_id)
        if not isinstance(proposed, Proposed):
            return proposed
        task = proposed.task
        # A batch's item is held to the batch's caps and breaker: claim_item (core's choice).
        claim = "claim_item" if proposed.unit == "item" else "claim"
        try:
            out = yield _call(claim, task["id"], proposed.action, self.facts(task, trusted),
                              executor=self.executor, lease_ms=self.lease_ms, budget=self.budget)
        except ActionsealError as e:
            now = yield _call("task", task["id"])
            step = yield from self._with_batch({"step": "claim", "task": now, "error": caught(e)}, batch_id)
            return decided(gate_step(step), now, e)
        return decided(gate_step({"step": "claim", "outcome": out}), out["task"])

    def finish(self, run: Run, outcome: str, result: Any = None) -> Optional[Dict[str, Any]]:
        """Records the outcome of a won claim. ``unknown`` when the tool body failed: whether its
        effect happened is in doubt, so the task waits for ``reconcile``, never a retry."""
        return drive(self._finish(run, outcome, result), self.ledger)

    async def afinish(self, run: Run, outcome: str, result: Any = None) -> Optional[Dict[str, Any]]:
        """``finish`` on the ``AsyncLedger``."""
        return await adrive(self._finish(run, outcome, result), self.aledger)

    def _finish(self, run: Run, outcome: str, result: Any) -> Steps[Optional[Dict[str, Any]]]:
        c = run.claim
        complete = "complete_item" if run.unit == "item" else "complete"
        try:
            return (yield _call(complete, c["task_id"], c["fence"], outcome, executor=self.executor,
                                result=result))
        except ActionsealError as e:
            # Late (the lease ran out, another claim superseded this one): the body ran, so
            # its answer stands; the ledger holds the task in doubt for reconciliation.
            decided(gate_step({"step": "complete", "error": caught(e)}), None, e)
            return None

    # -- the reviewer's side ----------------------------------------------------------------
    def amend(self, task_id: str, args: Dict[str, Any], *, reviewer: str, reason: str) -> Dict[str, Any]:
        """Records a reviewer's edit of a task still awaiting its decision as an amendment (both
        digests stay in the audit). For the approval server, not the agent: decide afterwards on
        the amended ``action_digest``. Edits of the tool, identity or contract are refused."""
        task = self.ledger.task(task_id)
        edited = {**task["action"], "args": args}
        return self.ledger.amend(task_id, edited, self.contracts[task["action"]["tool"]],
                                 amends=task["action_digest"], reviewer=reviewer, reason=reason)["task"]


def caught(e: ActionsealError) -> Dict[str, Any]:
    """An error as core's gate reads it."""
    return {"code": e.code, "path": e.path, "message": str(e)}


def decided(d: Dict[str, Any], task: Optional[Dict[str, Any]], error: Optional[Exception] = None) -> Any:
    """Core's decision as the adapters' verdicts; ``raise`` raises ``error``, ``keep`` is None."""
    kind = d["decision"]
    if kind == "claim":
        return Proposed(task or {}, d["action"], d["unit"])
    if kind == "run":
        return Run(d["claim"], d["args"], d["unit"])
    if kind == "pause":
        return Pause(task or {}, d["request"], d["refusal"], d["message"])
    if kind == "refuse":
        return Refuse(d["refusal"], d["bad_args"], d["message"], d.get("replay"))
    if kind == "raise" and error is not None:
        raise error
    return None


def resumed(task: Dict[str, Any]) -> Dict[str, Any]:
    """Core's decision about a paused call on resume: ``approve`` (``args``: the amended ones or
    None), ``refuse`` (a person rejected it; ``message`` for the model) or ``wait``."""
    return gate_step({"step": "resume", "task": task})


def outcome(body: str) -> str:
    """The outcome to record for a tool body that ``returned``, ``reported_error`` (answered with
    an error) or ``raised``: core's decision."""
    return gate_step({"step": "ran", "body": body})["outcome"]


def unrouted(tool: str, unknown: str) -> Refuse:
    """A gateway's refusal of a call of no governed ``tool``, or whose task pointer names no task
    of the session, or with no job (``unknown``: ``"tool"``, ``"task"`` or ``"job"``), in core's
    words."""
    return decided(gate_step({"step": "route", "tool": tool, "unknown": unknown}), None)


def unserved(tool: str, e: ActionsealError) -> Refuse:
    """A gateway's refusal of a call of ``tool`` whose upstream schema is outside core's subset
    (``e``: the contract's compile error), in core's words."""
    return decided(gate_step({"step": "route", "tool": tool, "error": caught(e)}), None, e)


def invalid_args(e: ActionsealError, tool: str) -> Refuse:
    """The refusal of args that break the schema or do not parse: the model may correct them
    (any other error is raised)."""
    return decided(gate_step({"step": "propose", "tool": tool, "error": caught(e)}), None, e)


def strict_args(raw: Union[str, bytes, Mapping[str, Any], None]) -> Any:
    """The model's raw argument text parsed strictly (duplicate keys, lone surrogates and inexact
    numbers raise ActionsealError), or a mapping as given."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, (str, bytes)):
        return loads(raw)
    return dict(raw)
