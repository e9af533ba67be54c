//! `actionseal.Ledger` and `actionseal.ManualClock`: the durable half (actionseal-ledger) for
//! Python.
//!
//! Every method puts its arguments into one dict named as the ledger's JSON request names
//! them, converts it with the host walk (so a wrong type is a coded error, never a
//! `TypeError`), and hands it to `Ledger::call` with the GIL released: other threads run
//! while the database works, and calls from several threads proceed at once (each takes its
//! own connection). Requests are read by core (`actionseal_core::ledger::request`), exactly
//! as the Node binding's are, and results come back as plain dicts and lists.

use crate::contract::PyContract;
use crate::convert::{with_dict_without, with_value};
use crate::error::to_py;
use crate::ledger_evidence;
use crate::to_py;
use actionseal_core::ledger::request;
use actionseal_core::{Code, Error, Object, Options, OwnedValue, Value};
use actionseal_ledger::{Call, Ledger, LedgerOptions, ManualClock};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// A task ledger on SQLite or PostgreSQL. Every method blocks with the GIL released; share one
/// between threads. Refusals raise ActionsealError; drift, re-approval and rejection of a claim are
/// outcomes (``result``), not errors.
///
/// ``Ledger(url, *, clock=None, proof=None)`` opens (creating or migrating its tables) the
/// ledger at ``url``: ``"sqlite:PATH"`` (one machine; ``?synchronous=normal`` trades
/// power-loss durability for speed), ``"sqlite::memory:"`` (tests) or
/// ``"postgres://user@host/db"`` (many executors). ``clock`` is a ``ManualClock`` for tests
/// and demos; by default the ledger uses the system clock, and ``now`` never comes from the
/// caller. ``proof`` is ``{"required": bool, "keys": <key set>}`` from the server's own
/// configuration, as in ``check``'s context: the keys that verify signed or passkey-approved
/// decisions, and whether a bare decision envelope is refused (``missing_proof``).
/// ``log_key`` is the ledger's key for signing the checkpoints of its Merkle log, a signer key
/// string ``"PRIVATE+KEY+<name>+<hash>+<key>"`` (what the CLI's ``--log-key`` file holds),
/// from the server's configuration: ``checkpoint`` and ``evidence`` need it.
///
/// Every method blocks on the database with the GIL released. One ``Ledger`` may be shared by
/// any number of threads; on PostgreSQL each concurrent call has its own connection. Results
/// are plain dicts; refusals raise ActionsealError with a code from codes.json. A claim that
/// finds drift, an expired or revoked approval, or a reason to reject returns that outcome
/// (``result``): only ``claimed`` means dispatch.
#[pyclass(frozen, subclass, module = "actionseal", name = "Ledger")]
pub(crate) struct PyLedger {
    /// `None` once closed.
    inner: Mutex<Option<Arc<Ledger>>>,
    backend: &'static str,
}

/// A clock that moves only when told to (tests, demos); times in integer ms.
///
/// A clock that moves only when told to, for tests and demos: pass it to ``Ledger(url,
/// clock=...)`` and move it with ``set`` and ``advance``. Times are integer milliseconds
/// since the epoch. Safe to share between threads; ledgers opened with it share its time.
#[pyclass(frozen, module = "actionseal", name = "ManualClock")]
pub(crate) struct PyManualClock(ManualClock);

/// Reads `{key: int}` from one argument with core's rule (a non-negative integer).
fn millis(arg: &Bound<'_, PyAny>, key: &'static str) -> PyResult<i64> {
    let py = arg.py();
    let dict = PyDict::new(py);
    dict.set_item(key, arg)?;
    with_value(&dict, &Options::default(), |v| request::integer(v, key, 0))?
        .map_err(|e| to_py(py, &e))
}

#[pymethods]
impl PyManualClock {
    #[new]
    fn new(start_ms: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyManualClock(ManualClock::new(millis(
            start_ms, "start_ms",
        )?)))
    }

    /// Now, in ms since the epoch.
    #[getter]
    fn now(&self) -> i64 {
        actionseal_ledger::Clock::now_ms(&self.0)
    }

    /// Sets the clock to ``ms``.
    fn set(&self, ms: &Bound<'_, PyAny>) -> PyResult<()> {
        self.0.set(millis(ms, "ms")?);
        Ok(())
    }

    /// Moves the clock forward by ``ms``.
    fn advance(&self, ms: &Bound<'_, PyAny>) -> PyResult<()> {
        self.0
            .advance(millis(ms, "ms")?)
            .map_err(|e| to_py(ms.py(), &e))
    }
}

/// A dict of the named arguments followed by the keyword arguments.
fn request<'py>(
    py: Python<'py>,
    named: &[(&str, &Bound<'py, PyAny>)],
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in named {
        dict.set_item(k, v)?;
    }
    if let Some(kw) = kwargs {
        dict.update(kw.as_mapping())?;
    }
    Ok(dict)
}

/// The request `dict`, whose `contract` may be a loaded `Contract` (read as its document,
/// without walking the object) or a document.
fn with_contract_document(
    dict: &Bound<'_, PyDict>,
    contract: &Bound<'_, PyAny>,
) -> PyResult<OwnedValue> {
    match contract.cast::<PyContract>() {
        Ok(loaded) => {
            let document = loaded.get().0.document().clone().into_owned();
            let rest = owned(dict, Some(("contract", contract)))?;
            with_member(rest, "contract", document).map_err(|e| to_py(dict.py(), &e))
        }
        Err(_) => owned(dict, None),
    }
}

/// Converts a request dict into an owned value, with `lifted` (a member found by key and
/// identity, such as a loaded `Contract`) left out of the walk; core's value borrows from
/// Python objects only inside `with_*`, so it is copied out before the GIL is released.
fn owned(
    dict: &Bound<'_, PyDict>,
    lifted: Option<(&'static str, &Bound<'_, PyAny>)>,
) -> PyResult<OwnedValue> {
    let options = Options::default();
    match lifted {
        Some(member) => with_dict_without(dict, member, &options, |v| v.clone().into_owned()),
        None => with_value(dict, &options, |v| v.clone().into_owned()),
    }
}

/// `request` with `key` set to `value` (a document the binding holds, such as a loaded
/// contract's).
fn with_member(
    request: OwnedValue,
    key: &'static str,
    value: OwnedValue,
) -> actionseal_core::Result<OwnedValue> {
    let mut entries = match request {
        Value::Object(o) => o.into_entries(),
        _ => Vec::new(),
    };
    entries.push((Cow::Borrowed(key), value));
    Ok(Value::Object(Object::from_entries(entries)?))
}

impl PyLedger {
    fn ledger(&self) -> actionseal_core::Result<Arc<Ledger>> {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| Error::new(Code::LedgerUnavailable, "the ledger was closed"))
    }

    /// Runs `call` on `request` with the GIL released.
    fn run<'py>(
        &self,
        py: Python<'py>,
        call: Call,
        request: OwnedValue,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ledger = self.ledger().map_err(|e| to_py(py, &e))?;
        let out = py.detach(move || ledger.call(call, &request));
        to_py::value(py, &out.map_err(|e| to_py(py, &e))?)
    }

    /// Runs `call` on the request made of `named` and `kwargs`.
    fn call<'py>(
        &self,
        py: Python<'py>,
        call: Call,
        named: &[(&str, &Bound<'py, PyAny>)],
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let dict = request(py, named, kwargs)?;
        self.run(py, call, owned(&dict, None)?)
    }
}

#[pymethods]
impl PyLedger {
    #[new]
    #[pyo3(signature = (url, *, clock = None, proof = None, log_key = None))]
    fn new(
        py: Python<'_>,
        url: &Bound<'_, PyAny>,
        clock: Option<&Bound<'_, PyAny>>,
        proof: Option<&Bound<'_, PyAny>>,
        log_key: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let checkpoint_signer = log_key
            .filter(|k| !k.is_none())
            .map(ledger_evidence::log_key)
            .transpose()?;
        let dict = request(py, &[("url", url)], None)?;
        if let Some(p) = proof.filter(|p| !p.is_none()) {
            dict.set_item("proof", p)?;
        }
        // A ManualClock is lifted out; anything else in its place is refused by the walk.
        let clock_obj = clock.filter(|c| !c.is_none());
        let lifted = match clock_obj {
            Some(c) => {
                dict.set_item("clock", c)?;
                c.cast::<PyManualClock>().ok().map(|m| m.get().0.clone())
            }
            None => None,
        };
        let value = match (&lifted, clock_obj) {
            (Some(_), Some(c)) => owned(&dict, Some(("clock", c)))?,
            _ => owned(&dict, None)?,
        };
        let (url, proof) = request::Open::from_value(&value)
            .map(|o| (o.url.to_owned(), o.proof))
            .map_err(|e| to_py(py, &e))?;
        let mut options = LedgerOptions {
            proof,
            checkpoint_signer,
            ..LedgerOptions::default()
        };
        if let Some(clock) = lifted {
            options.clock = Arc::new(clock);
        }
        let ledger = py
            .detach(move || Ledger::open_with(&url, options))
            .map_err(|e| to_py(py, &e))?;
        Ok(PyLedger {
            backend: ledger.backend(),
            inner: Mutex::new(Some(Arc::new(ledger))),
        })
    }

    /// Which database the ledger is on: ``"sqlite"`` or ``"postgres"``.
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend
    }

    /// The ledger's time (its clock's), in ms since the epoch.
    ///
    /// The ledger's time, in ms since the epoch (its clock's: the system's, or a ManualClock).
    fn now(&self, py: Python<'_>) -> PyResult<i64> {
        Ok(self.ledger().map_err(|e| to_py(py, &e))?.now())
    }

    /// The id of the task with this identity, the same in every runtime.
    ///
    /// The id of the task with this identity: ``Ledger.task_id(tenant=..., job_id=...,
    /// request_id=...)``. The same in every runtime; a framework's run or thread is the job
    /// and its tool call id the request, so an adapter finds its task again with
    /// ``ledger.task(Ledger.task_id(...))``.
    #[staticmethod]
    #[pyo3(signature = (**identity))]
    fn task_id(py: Python<'_>, identity: Option<&Bound<'_, PyDict>>) -> PyResult<String> {
        let dict = request(py, &[], identity)?;
        let v = owned(&dict, None)?;
        request::TaskIdentity::from_value(&v)
            .map(|i| i.task_id())
            .map_err(|e| to_py(py, &e))
    }

    /// What the OpenTelemetry instrumentation emits, the same in every runtime: span names,
    /// which result member each attribute comes from, the refusal event and the counters (core's
    /// table; never an argument value).
    ///
    /// ``{"scope", "ops", "constants", "task", "result", "refused", "counters"}``: core's table,
    /// which ``actionseal.Ledger`` and the adapters follow when ``opentelemetry-api`` is
    /// installed (attributes by JSON Pointer into each operation's result).
    #[staticmethod]
    fn telemetry_schema(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        to_py::value(py, &actionseal_core::ledger::telemetry_schema())
    }

    /// Records a task (the same identity and action: the same task; another action:
    /// ``task_conflict``).
    ///
    /// Records a task for ``action`` (an envelope from ``actionseal.action``) made under
    /// ``contract`` (a ``Contract`` or its document), proposed by ``proposer=``. The same
    /// identity (tenant, job_id, request_id) with the same action returns the same task;
    /// with another action it raises ``task_conflict``. A call its contract lets run without
    /// a person is claimable at once (``approved``).
    #[pyo3(signature = (action, contract, **request), text_signature = "(self, action, contract, *, proposer)")]
    fn propose<'py>(
        &self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
        contract: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let dict = self::request(py, &[("action", action), ("contract", contract)], request)?;
        let value = with_contract_document(&dict, contract)?;
        self.run(py, Call::Propose, value)
    }

    /// Replaces the action of a task awaiting a decision with a reviewer's edit (compare-and-set on
    /// ``amends``); after the decision it raises ``task_not_awaiting_decision``.
    ///
    /// Replaces the action of a task awaiting a decision with a reviewer's edit: ``action`` is
    /// the whole envelope with new arguments, ``contract`` the task's contract as the server
    /// holds it (a ``Contract`` or its document), ``amends=`` the digest of the action the
    /// reviewer edited (compare-and-set: ``amend_conflict`` when the task moved on),
    /// ``reviewer=`` and ``reason=``. Returns ``{"task", "amendment", "duplicate"}``; the
    /// decision that follows must name the amended digest. After the decision it raises
    /// ``task_not_awaiting_decision``: an edit then is drift, never an amendment.
    #[pyo3(signature = (task_id, action, contract, **request), text_signature = "(self, task_id, action, contract, *, amends, reviewer, reason)")]
    fn amend<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        action: &Bound<'py, PyAny>,
        contract: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [
            ("task_id", task_id),
            ("action", action),
            ("contract", contract),
        ];
        let dict = self::request(py, &named, request)?;
        let value = with_contract_document(&dict, contract)?;
        self.run(py, Call::Amend, value)
    }

    /// A task's amendments, in order.
    ///
    /// A task's amendments, in order: ``{"task_id", "n", "amends", "action",
    /// "action_digest", "reviewer", "reason", "at"}`` each.
    fn amendments<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Amendments, &[("task_id", task_id)], None)
    }

    /// Records a reviewer's decision, once per ``decision_id``: a decision envelope, or the
    /// ledger's approval record for the task's round signed or passkey-approved (verified against
    /// the ``proof`` keys; ``signer`` names who signed).
    ///
    /// Records a reviewer's decision envelope ``{"approval_id", "decision_id", "job_id",
    /// "request_id", "action_digest", "decision", "approver", "decided_at", "expires_at"}``,
    /// or a decision that proves who made it: the approval record the ledger builds for the
    /// task's round, signed (``SigningKey.sign``) or passkey-approved, verified against the
    /// ledger's ``proof=`` keys. Returns ``{"task", "decision", "duplicate", "signer"}``. A
    /// repeated delivery is a duplicate that changes nothing; the same ``decision_id`` with
    /// other content raises ``decision_conflict``; a decision about another digest, or a signed
    /// record other than the ledger's, ``decision_mismatch``; a bare envelope where the ledger
    /// requires proof ``missing_proof``; a proof that fails keeps its code (``unknown_key``,
    /// ``invalid_signature``, ``signer_not_allowed``, ...).
    fn decide<'py>(
        &self,
        py: Python<'py>,
        decision: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value = with_value(decision, &Options::default(), |v| v.clone().into_owned())?;
        self.run(py, Call::Decide, value)
    }

    /// Claims the task's approval for dispatching ``action``: dispatch only when ``result ==
    /// "claimed"``; ``already_claimed`` and ``task_not_claimable`` raise, and with
    /// ``proof="required"`` (or a ledger that requires it) ``missing_proof`` for a decision
    /// recorded without proof. The claim carries the record and proof it checked.
    ///
    /// Claims task ``task_id`` for dispatching ``action`` (what the executor is about to
    /// run) under ``facts`` (``{"tenant", "policy_version", "contract", "approver_authorized",
    /// "subject_authorized"}`` from the executor's own server; the contract as a document),
    /// as ``executor=``, with a lease of ``lease_ms=`` and optionally reserving the contract's
    /// cost on ``budget=``. Returns ``{"result", "claimed", "task", "claim", "verdict",
    /// "approved_action"}``: ``result`` is ``claimed`` (dispatch ``claim["action"]`` with
    /// ``claim["idempotency_key"]``, then complete with ``claim["fence"]``),
    /// ``tool_args_drift`` (refused; resume with ``approved_action``),
    /// ``awaiting_reapproval`` or ``rejected_pre_dispatch``. Raises ``already_claimed`` when
    /// the approval was used, ``task_not_claimable`` when there is none to use.
    #[pyo3(signature = (task_id, action, facts, **request), text_signature = "(self, task_id, action, facts, *, executor, lease_ms, budget=None, proof=None)")]
    fn claim<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        action: &Bound<'py, PyAny>,
        facts: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [("task_id", task_id), ("action", action), ("facts", facts)];
        self.call(py, Call::Claim, &named, request)
    }

    /// Reports a claim's outcome with its fence (``stale_fence``, ``lease_expired``).
    ///
    /// Reports the outcome of a claim: ``outcome`` is ``"succeeded"``, ``"failed"`` or
    /// ``"unknown"`` (a timeout: reconcile later, never retry), ``fence`` the claim's, with
    /// ``executor=`` and optionally ``result=`` (what the business system answered; only its
    /// digest goes into the audit). Raises ``stale_fence`` for a superseded claim and
    /// ``lease_expired`` after the lease. Returns the task.
    #[pyo3(signature = (task_id, fence, outcome, **request), text_signature = "(self, task_id, fence, outcome, *, executor, result=None)")]
    fn complete<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        fence: &Bound<'py, PyAny>,
        outcome: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [("task_id", task_id), ("fence", fence), ("outcome", outcome)];
        self.call(py, Call::Complete, &named, request)
    }

    /// Records what the business system answered about a task in doubt.
    ///
    /// Records what the business system answered about a task in doubt: ``observed`` is
    /// ``"succeeded"`` or ``"failed"`` (final) or ``"not_executed"`` (claimable again, same
    /// idempotency key, higher fence), by ``actor=``, optionally with ``result=``. Returns
    /// the task.
    #[pyo3(signature = (task_id, observed, **request), text_signature = "(self, task_id, observed, *, actor, result=None)")]
    fn reconcile<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        observed: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [("task_id", task_id), ("observed", observed)];
        self.call(py, Call::Reconcile, &named, request)
    }

    /// Records a batch of actions, each item a task awaiting the batch's one decision.
    ///
    /// Records a batch of ``actions`` (envelopes under ``contract``, a ``Contract`` or its
    /// document, in the order a reviewer sees them) with ``semantics=`` (``"per_item"`` or
    /// ``"all_or_nothing"``), proposed by ``proposer=``: each item a task of its own, the
    /// batch's header frozen by core, its lineage's caps totals empty and its breaker closed.
    /// Raises as core refuses the batch (``batch_not_allowed``, ``batch_too_large``,
    /// ``batch_cap_exceeded``, ``invalid_batch``). Returns the batch (as ``batch``).
    #[pyo3(signature = (actions, contract, **request), text_signature = "(self, actions, contract, *, semantics, proposer)")]
    fn propose_batch<'py>(
        &self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
        contract: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let dict = self::request(py, &[("actions", actions), ("contract", contract)], request)?;
        let value = with_contract_document(&dict, contract)?;
        self.run(py, Call::ProposeBatch, value)
    }

    /// A reviewer leaves items of a batch awaiting its decision out: another batch digest.
    ///
    /// A reviewer leaves the items at positions ``deselect=`` out of batch ``batch_id``,
    /// which awaits its decision, having seen digest ``amends=`` (``amend_conflict`` when the
    /// batch moved on), as ``reviewer=`` for ``reason=``. The batch gets the remainder's
    /// header and digest, which the decision must name (the proposed digest is kept); the
    /// items left out end ``rejected`` when the batch is decided. Returns the batch.
    #[pyo3(signature = (batch_id, **request), text_signature = "(self, batch_id, *, amends, deselect, reviewer, reason)")]
    fn amend_batch<'py>(
        &self,
        py: Python<'py>,
        batch_id: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::AmendBatch, &[("batch_id", batch_id)], request)
    }

    /// Records one decision over a batch (de-duplicated by ``decision_id`` as ``decide``): an
    /// envelope, or the ledger's batch record signed or passkey-approved, as ``decide`` takes a
    /// task's.
    ///
    /// Records a decision envelope over a batch (``{"approval_id", "decision_id",
    /// "batch_id", "batch_digest", "decision", "approver", "decided_at", "expires_at"}``,
    /// bare or with its proof as for ``decide``): approving moves every selected item to
    /// ``approved`` with its inclusion proof; the items left out end ``rejected``. A repeat
    /// is ``duplicate``; another batch digest ``decision_mismatch``. Returns ``{"batch",
    /// "duplicate", "signer"}``.
    fn decide_batch<'py>(
        &self,
        py: Python<'py>,
        decision: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value = with_value(decision, &Options::default(), |v| v.clone().into_owned())?;
        self.run(py, Call::DecideBatch, value)
    }

    /// Claims one item of a per-item batch, under the batch's caps and breaker.
    ///
    /// Claims item ``task_id`` of a per-item batch as ``claim`` claims a task (the same
    /// arguments and result), checking in the same transaction its inclusion in the decided
    /// batch, its drift against its frozen action, the lineage's breaker (``breaker_open``)
    /// and caps (``batch_cap_exceeded``). The claim carries the item (``claim["item"]``).
    #[pyo3(signature = (task_id, action, facts, **request), text_signature = "(self, task_id, action, facts, *, executor, lease_ms, budget=None, proof=None)")]
    fn claim_item<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        action: &Bound<'py, PyAny>,
        facts: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [("task_id", task_id), ("action", action), ("facts", facts)];
        self.call(py, Call::ClaimItem, &named, request)
    }

    /// Claims every remaining item of an all-or-nothing batch, or none.
    ///
    /// Claims every remaining item of all-or-nothing batch ``batch_id`` at once, or none:
    /// ``actions`` are the items' actions as the executor is about to dispatch them, in the
    /// batch's order; ``facts``, ``executor=``, ``lease_ms=``, ``budget=`` and ``proof=`` are a
    /// claim's and apply to each item. Returns ``{"result", "claimed", "items"}``:
    /// ``"claimed"`` (each item's claim, dispatch them all), ``"tool_args_drift"`` (nothing
    /// claimed or changed; each item's claim outcome) or ``"stopped"`` (an item's check
    /// rejected it: every remaining item is ``rejected_pre_dispatch``).
    #[pyo3(signature = (batch_id, actions, facts, **request), text_signature = "(self, batch_id, actions, facts, *, executor, lease_ms, budget=None, proof=None)")]
    fn claim_batch<'py>(
        &self,
        py: Python<'py>,
        batch_id: &Bound<'py, PyAny>,
        actions: &Bound<'py, PyAny>,
        facts: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [
            ("batch_id", batch_id),
            ("actions", actions),
            ("facts", facts),
        ];
        self.call(py, Call::ClaimBatch, &named, request)
    }

    /// Reports an item's outcome as ``complete`` does, fed to its batch's breaker.
    ///
    /// Reports the outcome of an item's claim as ``complete`` does a task's; a ``failed``
    /// or ``unknown`` outcome counts toward the breaker's trip, which sends every remaining
    /// unclaimed item back for approval in the same transaction. Returns the task.
    #[pyo3(signature = (task_id, fence, outcome, **request), text_signature = "(self, task_id, fence, outcome, *, executor, result=None)")]
    fn complete_item<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        fence: &Bound<'py, PyAny>,
        outcome: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [("task_id", task_id), ("fence", fence), ("outcome", outcome)];
        self.call(py, Call::CompleteItem, &named, request)
    }

    /// Records what the business system answered about an item in doubt.
    ///
    /// Records what the business system answered about an item in doubt, as ``reconcile``
    /// does a task's; a ``succeeded`` is fed to its batch's breaker. Returns the task.
    #[pyo3(signature = (task_id, observed, **request), text_signature = "(self, task_id, observed, *, actor, result=None)")]
    fn reconcile_item<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        observed: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [("task_id", task_id), ("observed", observed)];
        self.call(py, Call::ReconcileItem, &named, request)
    }

    /// A batch, with its lineage's totals and breaker and its items' states.
    ///
    /// Batch ``batch_id``: ``{"id", "lineage", "tenant", "semantics", "state", "header",
    /// "digest", "proposed_digest", "approval_id", "decision_id", "record", "proof",
    /// "amendments", "items": [{"task_id", "state"}], "proposed_items", "current",
    /// "successor", "totals", "breaker", "created_at", "updated_at"}``: ``successor`` is the
    /// batch its remaining items were sent back in (a trip, an expired decision), or ``None``.
    fn batch<'py>(
        &self,
        py: Python<'py>,
        batch_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Batch, &[("batch_id", batch_id)], None)
    }

    /// Revokes an approval: its task's next claim sends it back for approval.
    ///
    /// Revokes an approval (by ``actor=``): the next claim of its task sends the task back
    /// for approval. Returns ``{"approval_id", "task_id", "revoked_at", "duplicate"}``.
    #[pyo3(signature = (approval_id, **request), text_signature = "(self, approval_id, *, actor)")]
    fn revoke<'py>(
        &self,
        py: Python<'py>,
        approval_id: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Revoke, &[("approval_id", approval_id)], request)
    }

    /// Moves every claimed task whose lease ran out to ``unknown``; their ids.
    ///
    /// Moves every claimed task whose lease ran out to ``unknown`` (never back to claimable)
    /// and returns their ids. Any operation on a task also does this for it first.
    fn expire_leases<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::ExpireLeases, &[], None)
    }

    /// Creates a budget account or sets its limit (minor units).
    ///
    /// Creates budget account ``name``, or sets its limit (minor units). Returns
    /// ``{"name", "limit_minor", "spent_minor", "reserved_minor"}``.
    fn set_budget<'py>(
        &self,
        py: Python<'py>,
        name: &Bound<'py, PyAny>,
        limit_minor: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [("name", name), ("limit_minor", limit_minor)];
        self.call(py, Call::SetBudget, &named, None)
    }

    /// Shreds a task's sensitive values; its audit, approval and evidence still verify (issue 29).
    ///
    /// Shreds every disclosure of task ``task_id`` (by ``actor=``, in an audited ``shredded``
    /// event without a value); a claim of it that has not run then raises
    /// ``disclosures_shredded``. Returns ``{"task_id", "places": [{"pointer", "class"}]}``.
    #[pyo3(signature = (task_id, **request), text_signature = "(self, task_id, *, actor)")]
    fn redact<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Redact, &[("task_id", task_id)], request)
    }

    /// A task's disclosures, for its reviewer to check and show (issue 29).
    ///
    /// The disclosures of task ``task_id``'s sensitive values, each to be checked against the
    /// task's commitments (``reveal_action``) before its value is shown; ``[]`` for a task
    /// without sensitive values; raises ``disclosures_shredded`` once any was shredded.
    fn disclosures<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Disclosures, &[("task_id", task_id)], None)
    }

    /// Sets how long a tenant keeps its sensitive values of a class.
    ///
    /// Tenant ``tenant`` keeps its values of class ``class_name`` ``keep_ms=`` after their
    /// proposal (``None``: until redacted) and, with ``at_finish="shred"``, shreds them when
    /// their task succeeds, fails or is rejected. Returns the policy.
    #[pyo3(
        signature = (tenant, class_name, **request),
        text_signature = "(self, tenant, class_name, *, keep_ms, at_finish, actor)"
    )]
    fn set_retention<'py>(
        &self,
        py: Python<'py>,
        tenant: &Bound<'py, PyAny>,
        class_name: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [("tenant", tenant), ("class", class_name)];
        self.call(py, Call::SetRetention, &named, request)
    }

    /// Every tenant's retention policies.
    fn retention<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Retention, &[], None)
    }

    /// Shreds every sensitive value its tenant's policy keeps no longer; what it shredded.
    ///
    /// Shreds (by ``actor=``) every disclosure older than its tenant's policy for its class
    /// keeps, one task per transaction; returns one ``{"task_id", "places"}`` per task.
    #[pyo3(signature = (**request), text_signature = "(self, *, actor)")]
    fn retention_run<'py>(
        &self,
        py: Python<'py>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::RetentionRun, &[], request)
    }

    /// A budget account (``budget_not_found``).
    ///
    /// Budget account ``name``; raises ``budget_not_found``.
    fn budget<'py>(
        &self,
        py: Python<'py>,
        name: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Budget, &[("name", name)], None)
    }

    /// A task (``task_not_found``).
    ///
    /// Task ``task_id``; raises ``task_not_found``.
    fn task<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Task, &[("task_id", task_id)], None)
    }

    /// A task with its audit events, in order.
    ///
    /// Task ``task_id`` with its history: ``{"task", "events"}``, the audit events about it
    /// in order.
    fn history<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::History, &[("task_id", task_id)], None)
    }

    /// Tasks in a state of a tenant, proposed since and until (any may be left out), oldest first.
    ///
    /// The tasks in ``state=`` of ``tenant=``, proposed at or after ``since=`` and before
    /// ``until=`` (ms since the epoch; any may be left out: any), oldest first.
    #[pyo3(
        signature = (**filter),
        text_signature = "(self, *, state=None, tenant=None, since=None, until=None)"
    )]
    fn tasks<'py>(
        &self,
        py: Python<'py>,
        filter: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Tasks, &[], filter)
    }

    /// A page of the tasks ``tasks`` lists: at most ``limit``, after the cursor ``after``.
    ///
    /// The tasks ``tasks`` lists with the same filters, at most ``limit=`` (from 1) of them
    /// after ``after=`` (the ``next`` of the previous page; left out: the first page):
    /// ``{"tasks", "next"}``, ``next`` the cursor of the following page or ``None`` when none
    /// follows. Rows written between two pages neither repeat nor shift a later one. A cursor
    /// of another read is ``invalid_request``.
    #[pyo3(
        signature = (**query),
        text_signature = "(self, *, state=None, tenant=None, since=None, until=None, limit=None, after=None)"
    )]
    fn tasks_page<'py>(
        &self,
        py: Python<'py>,
        query: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::TasksPage, &[], query)
    }

    /// A page of the audit export's lines, filtered as ``tasks_page`` filters tasks.
    ///
    /// The events of the audit export, each a line of ``audit_export`` (without its newline),
    /// in its order: those of ``tenant=``, of the tasks now in ``state=``, at or after
    /// ``since=`` and before ``until=``, at most ``limit=`` after ``after=``: ``{"lines",
    /// "next"}``. Pages joined are the export; a filtered export is for reading, not for
    /// ``verify_audit``, which needs every event of a chain.
    #[pyo3(
        signature = (**query),
        text_signature = "(self, *, state=None, tenant=None, since=None, until=None, limit=None, after=None)"
    )]
    fn audit_export_page<'py>(
        &self,
        py: Python<'py>,
        query: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::AuditPage, &[], query)
    }

    /// Waits until a task is in one of ``states`` or ``timeout_ms`` passes, woken by commits.
    ///
    /// Blocks (with the GIL released) until task ``task_id`` is in one of ``states`` or
    /// ``timeout_ms`` passes: ``{"outcome": "reached" | "timed_out", "task"}``, the task as
    /// read last. Woken by the commits that may have moved it, never by polling at an interval:
    /// on PostgreSQL by ``NOTIFY``, on SQLite by this ledger's writers and, for other
    /// processes, ``PRAGMA data_version``. Raises ``task_not_found``.
    #[pyo3(
        signature = (task_id, states, *, timeout_ms),
        text_signature = "(self, task_id, states, *, timeout_ms)"
    )]
    fn wait<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        states: &Bound<'py, PyAny>,
        timeout_ms: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let named = [
            ("task_id", task_id),
            ("states", states),
            ("timeout_ms", timeout_ms),
        ];
        self.call(py, Call::Wait, &named, None)
    }

    /// Changes of tasks after a cursor; with ``timeout_ms``, waits up to that for one.
    ///
    /// The changes of tasks after ``after=`` (the ``cursor`` a previous read returned; left
    /// out: the beginning), at most ``limit=`` (1 to 1000, 100 when left out):
    /// ``{"changes": [{"event_id", "task_id", "kind", "state", "at"}], "cursor"}``, never an
    /// argument value, none skipped however transactions commit. With ``timeout_ms=``, blocks
    /// up to that long for at least one (woken as ``wait`` is); none when it passes.
    #[pyo3(
        signature = (**request),
        text_signature = "(self, *, after=None, limit=None, timeout_ms=None)"
    )]
    fn changes<'py>(
        &self,
        py: Python<'py>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Changes, &[], request)
    }

    /// The ledger's policy, as its database records it for every handle.
    ///
    /// The ledger's policy as its database records it for every handle: ``{"proof":
    /// "optional" | "required", "changed_at", "changed_by"}``.
    fn policy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::Policy, &[], None)
    }

    /// Changes the proof requirement for every handle on the database, audited.
    ///
    /// Changes the ledger's proof requirement (``"optional"`` or ``"required"``) for every
    /// handle on its database, ``actor=`` and ``reason=``, in an audited event
    /// (``proof_policy_changed``); the only way to stop requiring proof. Returns the policy.
    #[pyo3(signature = (proof, **request), text_signature = "(self, proof, *, actor, reason)")]
    fn set_proof_requirement<'py>(
        &self,
        py: Python<'py>,
        proof: &Bound<'py, PyAny>,
        request: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::SetProofRequirement, &[("proof", proof)], request)
    }

    /// The whole audit as JSON Lines.
    ///
    /// The whole audit as JSON Lines (one event with its digest per line), which
    /// ``actionseal.verify_audit`` verifies in any runtime.
    fn audit_export<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::AuditExport, &[], None)
    }

    /// Walks the stored chains up to their recorded heads, replays every task's events and holds
    /// every task row to them; against ``exported`` heads too.
    ///
    /// Walks the stored audit chains up to their recorded heads, replays every task's
    /// events and holds every task row to them: ``{"valid", "events", "heads", "broken"}``,
    /// ``broken`` naming the first broken chain and seq (and the task and the field, when a
    /// replay or a row broke). ``exported=`` (what ``audit_heads`` returned, kept outside the
    /// database) also finds a chain truncated or sealed again since.
    #[pyo3(signature = (*, exported = None))]
    fn audit_verify<'py>(
        &self,
        py: Python<'py>,
        exported: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match exported.filter(|e| !e.is_none()) {
            Some(e) => self.call(py, Call::AuditVerify, &[("exported", e)], None),
            None => self.call(py, Call::AuditVerify, &[], None),
        }
    }

    /// The chains' heads to keep outside the database (only from an audit that verifies).
    ///
    /// The chains' heads, ``{"version", "at", "heads"}``, to keep where the database's owner
    /// cannot write (write them as ``canonicalize`` gives them); only from an audit that
    /// verifies (``audit_chain_broken`` otherwise).
    fn audit_heads<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.call(py, Call::AuditHeads, &[], None)
    }

    /// Sequences the events written since the last checkpoint into the Merkle log and signs the
    /// checkpoint with ``log_key``.
    ///
    /// Sequences the events written since the last checkpoint into the ledger's Merkle log
    /// (RFC 9162) and returns the checkpoint signed with ``log_key`` (a C2SP signed note):
    /// ``{"size", "root", "note", "at", "cosignatures"}``, ``root`` in base64. Keep ``note``
    /// outside the database or have witnesses cosign it. Without ``log_key`` it raises.
    fn checkpoint<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ledger = self.ledger().map_err(|e| to_py(py, &e))?;
        let out = py.detach(move || ledger.checkpoint().and_then(|c| c.to_value()));
        to_py::value(py, &out.map_err(|e| to_py(py, &e))?)
    }

    /// The evidence bundle of a task as of a checkpoint made now, for ``actor``: anyone verifies
    /// it without the database.
    ///
    /// Exports the evidence bundle of task ``task_id``: records the export (an
    /// ``evidence_exported`` event by ``actor``), makes a checkpoint signed with ``log_key``
    /// and returns the bundle as of it (the task's events with their inclusion proofs, the
    /// documents they fingerprint, the contract, the checkpoint and the latest earlier one a
    /// witness cosigned). ``contract`` (a ``Contract`` or its document) is needed only for a
    /// task proposed before the ledger kept contracts. Write it with ``canonicalize``; anyone
    /// verifies it with ``verify_evidence`` and their own trust. Raises ``task_not_found``,
    /// ``evidence_mismatch`` (another contract), ...
    #[pyo3(signature = (task_id, actor, contract = None))]
    fn evidence<'py>(
        &self,
        py: Python<'py>,
        task_id: &Bound<'py, PyAny>,
        actor: &Bound<'py, PyAny>,
        contract: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = Options::default();
        let read = |arg: &Bound<'py, PyAny>, key: &str| {
            with_value(arg, &options, |v| ledger_evidence::identity(v, key))?
                .map_err(|e| to_py(py, &e))
        };
        let (task_id, actor) = (read(task_id, "task_id")?, read(actor, "actor")?);
        let contract = match contract.filter(|c| !c.is_none()) {
            Some(c) => {
                let dict = request(py, &[("contract", c)], None)?;
                let value = with_contract_document(&dict, c)?;
                value.as_object().and_then(|o| o.get("contract")).cloned()
            }
            None => None,
        };
        let ledger = self.ledger().map_err(|e| to_py(py, &e))?;
        let out = py.detach(move || {
            ledger
                .evidence(&task_id, &actor, contract.as_ref())
                .map(|b| b.to_value())
        });
        to_py::value(py, &out.map_err(|e| to_py(py, &e))?)
    }

    /// Lets go of the database; later calls raise ``ledger_unavailable``.
    ///
    /// Lets go of the database (once calls in progress end); later calls raise
    /// ``ledger_unavailable``. Also what leaving a ``with Ledger(...) as ledger:`` block does.
    fn close(&self, py: Python<'_>) {
        let taken = self.inner.lock().unwrap_or_else(|p| p.into_inner()).take();
        // Closing PostgreSQL connections talks to the server.
        py.detach(move || drop(taken));
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }
}
