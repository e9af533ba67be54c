//! `Ledger` and `ManualClock`: the durable half (actionseal-ledger) for Node.
//!
//! Every method converts its arguments on the event loop with the host walk into one JSON
//! request (read by core's `ledger::request`, exactly as the Python binding's are), and
//! returns a Promise whose work, `Ledger::call` and the canonical text of its result, runs on
//! libuv's thread pool (a napi `AsyncTask`): the loop never waits for the database. Calls in
//! flight at once each take their own connection, up to the pool's size
//! (`UV_THREADPOOL_SIZE`, 4 by default). The result crosses back as JSON text that the loop
//! parses into plain objects; a refusal rejects the Promise with an `ActionsealError`.

use crate::contract;
use crate::fail::Fail;
use crate::host::{self, Lift};
use crate::js::{Handle, Js, JsResult};
use crate::log_key;
use crate::run;
use crate::text;
use crate::throw::error_object;
use crate::to_js;
use actionseal_core::ledger::request;
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::{canonicalize, Code, Error, Object, Options, OwnedValue, Value};
use actionseal_ledger::{
    Call, Clock, Ledger as CoreLedger, LedgerOptions, ManualClock as CoreClock, ProofPolicy,
};
use napi::bindgen_prelude::{AsyncTask, Env, Unknown};
use napi::{JsValue, Result, Task};
use napi_derive::napi;
use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// The name the clock class is registered under, as napi-rs keys it.
const CLOCK_CLASS: &str = "ManualClock\0";

/// A clock that moves only when told to (tests, demos); times in integer ms.
///
/// A clock that moves only when told to, for tests and demos: pass it to `Ledger.open(url, {
/// clock })` and move it with `set` and `advance`. Times are integer milliseconds since the
/// epoch; ledgers opened with one clock share its time.
#[napi]
pub struct ManualClock {
    inner: CoreClock,
}

/// `{key: value}`: one argument as the member of a request object.
pub(crate) fn member(js: Js, value: Handle, key: &'static str) -> JsResult<OwnedValue> {
    host::with_value(js, value, &Options::default(), |v, _| {
        object(vec![(key, v.clone().into_owned())])
    })
    .map_err(|f| f.in_key(key))?
}

/// A whole argument as an owned value.
pub(crate) fn owned(js: Js, value: Handle) -> JsResult<OwnedValue> {
    host::with_value(js, value, &Options::default(), |v, _| {
        v.clone().into_owned()
    })
}

/// A request with a `contract` member that may be a loaded `Contract` (lifted out of the walk,
/// then put back as its document) or a document.
pub(crate) fn with_contract_document(js: Js, request: Handle) -> JsResult<OwnedValue> {
    let lift = (
        Lift {
            value: 0,
            key: "contract",
        },
        crate::instance::get(js, |i| i.contract_proto)?,
    );
    host::with_values(
        js,
        [request],
        &Options::default(),
        Some(lift),
        None,
        |[r], h| {
            let r = r.clone().into_owned();
            match h {
                Some(h) => {
                    let c = contract::lifted(js, h)?;
                    with_member(r, "contract", c.document().clone().into_owned())
                }
                None => Ok(r),
            }
        },
    )?
}

pub(crate) fn object(entries: Vec<(&'static str, OwnedValue)>) -> JsResult<OwnedValue> {
    let entries = entries
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect();
    Ok(Value::Object(Object::from_entries(entries)?))
}

/// `request` (an object, or core refuses it later) with `key` set to `value`.
fn with_member(request: OwnedValue, key: &'static str, value: OwnedValue) -> JsResult<OwnedValue> {
    match request {
        Value::Object(o) => {
            let mut entries = o.into_entries();
            entries.push((Cow::Borrowed(key), value));
            Ok(Value::Object(Object::from_entries(entries)?))
        }
        other => Ok(other),
    }
}

/// Reads an integer argument (`{key: <ms>}`, core's rule: a non-negative integer).
fn millis(js: Js, value: Handle, key: &'static str) -> JsResult<i64> {
    Ok(request::integer(&member(js, value, key)?, key, 0)?)
}

#[napi]
impl ManualClock {
    /// A clock standing at `start_ms`.
    #[napi(constructor, ts_args_type = "startMs: number")]
    pub fn new(env: Env, start_ms: Unknown<'_>) -> Result<ManualClock> {
        run(&env, |js| {
            Ok(ManualClock {
                inner: CoreClock::new(millis(js, start_ms.raw(), "start_ms")?),
            })
        })
    }

    /// Now, in ms since the epoch.
    #[napi(getter)]
    pub fn now(&self) -> f64 {
        // Times are safe integers: exact as doubles.
        self.inner.now_ms() as f64
    }

    /// Sets the clock to `ms`.
    #[napi(ts_args_type = "ms: number")]
    pub fn set(&self, env: Env, ms: Unknown<'_>) -> Result<()> {
        run(&env, |js| {
            self.inner.set(millis(js, ms.raw(), "ms")?);
            Ok(())
        })
    }

    /// Moves the clock forward by `ms`.
    #[napi(ts_args_type = "ms: number")]
    pub fn advance(&self, env: Env, ms: Unknown<'_>) -> Result<()> {
        run(&env, |js| {
            Ok(self.inner.advance(millis(js, ms.raw(), "ms")?)?)
        })
    }
}

/// The clock of a `ManualClock` instance found in `open`'s options.
fn lifted_clock(js: Js, value: Handle) -> JsResult<CoreClock> {
    match crate::js::unwrapped(js, value, |c: &ManualClock| c.inner.clone())? {
        Some(clock) => Ok(clock),
        None => {
            let description = crate::text::describe(js, value)?;
            let t = actionseal_js::described(&description);
            Err(actionseal_core::host::not_an_instance(t, "clock").into())
        }
    }
}

fn clock_prototype(js: Js) -> JsResult<Handle> {
    let ctor = napi::bindgen_prelude::get_class_constructor(CLOCK_CLASS)
        .ok_or(Fail::Internal("the ManualClock class is not registered"))?;
    js.named(js.deref(ctor)?, c"prototype")
}

/// The error an operation's Promise is rejected with: the `ActionsealError` for `e`.
fn rejection(env: &Env, e: &Error) -> napi::Error {
    let js = Js(env.raw());
    match error_object(js, e) {
        // SAFETY: a live handle of this environment, passed straight back to napi-rs.
        Ok(obj) => napi::Error::from(unsafe { Unknown::from_raw_unchecked(js.0, obj) }),
        Err(_) => napi::Error::from_reason(e.to_string()),
    }
}

/// Runs `f` off the loop, turning a panic into an error rather than an abort.
fn guarded<T>(f: impl FnOnce() -> actionseal_core::Result<T>) -> actionseal_core::Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Error::new(
            Code::LedgerStorage,
            "internal error in actionseal: a ledger operation panicked",
        ))
    })
}

/// What an operation does with the ledger on the pool: its result as JSON.
pub(crate) type Job = Box<dyn FnOnce(&CoreLedger) -> actionseal_core::Result<OwnedValue> + Send>;

/// One operation: the work to run on the pool, or the refusal found before it.
pub struct Op {
    work: std::result::Result<(Arc<CoreLedger>, Job), Error>,
}

impl Task for Op {
    /// The result's canonical JSON text, made on the pool.
    type Output = std::result::Result<String, Error>;
    type JsValue = Unknown<'static>;

    fn compute(&mut self) -> Result<Self::Output> {
        let work = std::mem::replace(
            &mut self.work,
            Err(Error::new(Code::LedgerStorage, "the operation ran twice")),
        );
        Ok(work.and_then(|(ledger, job)| guarded(|| job(&ledger).map(|v| canonicalize(&v)))))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Unknown<'static>> {
        match output {
            Ok(text) => to_js::json(Js(env.raw()), &text).map_err(|f| match f {
                Fail::Core(e) => rejection(&env, &e),
                _ => {
                    napi::Error::from_reason("internal error in actionseal: a result did not cross")
                }
            }),
            Err(e) => Err(rejection(&env, &e)),
        }
    }
}

/// Opening a ledger, on the pool.
pub struct Open {
    url: String,
    clock: Option<CoreClock>,
    proof: Option<ProofPolicy>,
    signer: Option<SignerKey>,
    failed: Option<Error>,
}

impl Task for Open {
    type Output = std::result::Result<CoreLedger, Error>;
    type JsValue = Ledger;

    fn compute(&mut self) -> Result<Self::Output> {
        if let Some(e) = self.failed.take() {
            return Ok(Err(e));
        }
        let mut options = LedgerOptions {
            proof: self.proof.take(),
            checkpoint_signer: self.signer.take(),
            ..LedgerOptions::default()
        };
        if let Some(c) = self.clock.take() {
            options.clock = Arc::new(c);
        }
        let url = &self.url;
        Ok(guarded(|| CoreLedger::open_with(url, options)))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Ledger> {
        match output {
            Ok(ledger) => Ok(Ledger {
                backend: ledger.backend(),
                inner: Mutex::new(Some(Arc::new(ledger))),
            }),
            Err(e) => Err(rejection(&env, &e)),
        }
    }
}

/// A task ledger on SQLite or PostgreSQL. Every method blocks with the GIL released; share one
/// between threads. Refusals raise ActionsealError; drift, re-approval and rejection of a claim are
/// outcomes (`result`), not errors.
///
/// Open one with `await Ledger.open(url)`. Every method returns a Promise and runs on libuv's
/// thread pool, never blocking the event loop; share one `Ledger` between all the callers of
/// a process. Results are plain objects; a refusal rejects with an `ActionsealError` (codes
/// in codes.json). A claim that finds drift, an expired or revoked approval, or a reason to
/// reject resolves with that outcome (`result`): only `'claimed'` means dispatch.
#[napi]
pub struct Ledger {
    /// `None` once closed.
    inner: Mutex<Option<Arc<CoreLedger>>>,
    backend: &'static str,
}

impl Ledger {
    fn ledger(&self) -> std::result::Result<Arc<CoreLedger>, Error> {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| Error::new(Code::LedgerUnavailable, "the ledger was closed"))
    }

    /// The operation `call` on the request `read` makes; a coded refusal while reading
    /// rejects the Promise like any other, an exception of the caller's own (a getter that
    /// throws) is thrown as it is.
    pub(crate) fn start(
        &self,
        env: &Env,
        call: Call,
        read: impl FnOnce(Js) -> JsResult<OwnedValue>,
    ) -> Result<AsyncTask<Op>> {
        self.start_job(env, |js| {
            let request = read(js)?;
            Ok(Box::new(move |l: &CoreLedger| l.call(call, &request)))
        })
    }

    /// The operation `read` makes of its arguments, as `start` runs a call.
    pub(crate) fn start_job(
        &self,
        env: &Env,
        read: impl FnOnce(Js) -> JsResult<Job>,
    ) -> Result<AsyncTask<Op>> {
        let js = Js(env.raw());
        let work = match self.ledger() {
            Err(e) => Err(e),
            Ok(ledger) => match read(js) {
                Ok(job) => Ok((ledger, job)),
                Err(Fail::Core(e)) => Err(e),
                Err(other) => return Err(other.throw(js)),
            },
        };
        Ok(AsyncTask::new(Op { work }))
    }
}

#[napi]
impl Ledger {
    /// Opens the ledger at a URL, creating or migrating its tables (JavaScript's constructor).
    ///
    /// Opens (creating or migrating its tables) the ledger at `url`: `'sqlite:PATH'` (one
    /// machine; `?synchronous=normal` trades power-loss durability for speed),
    /// `'sqlite::memory:'` (tests) or `'postgres://user@host/db'` (many executors).
    /// `options.clock` is a `ManualClock` for tests and demos; by default the ledger uses the
    /// system clock, and `now` never comes from the caller. `options.proof` is `{ required,
    /// keys }` from the server's own configuration, as in `check`'s context: the keys that
    /// verify signed or passkey-approved decisions, and whether a bare decision envelope is
    /// refused (`missing_proof`). `options.log_key` is the ledger's key for signing the
    /// checkpoints of its Merkle log, a signer key string `'PRIVATE+KEY+<name>+<hash>+<key>'`
    /// (what the CLI's `--log-key` file holds), from the server's configuration: `checkpoint`
    /// and `evidence` need it.
    #[napi(
        ts_args_type = "url: string, options?: { clock?: ManualClock, proof?: ProofPolicy | null, log_key?: string | null }",
        ts_return_type = "Promise<Ledger>"
    )]
    pub fn open(
        env: Env,
        url: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<AsyncTask<Open>> {
        let js = Js(env.raw());
        let read = || -> JsResult<Open> {
            let (request, clock) = match options {
                None => (member(js, url.raw(), "url")?, None),
                Some(options) => {
                    let lift = (
                        Lift {
                            value: 1,
                            key: "clock",
                        },
                        clock_prototype(js)?,
                    );
                    let values = [url.raw(), options.raw()];
                    host::with_values(
                        js,
                        values,
                        &Options::default(),
                        Some(lift),
                        None,
                        |[u, o], h| {
                            let clock = h.map(|h| lifted_clock(js, h)).transpose()?;
                            let request =
                                with_member(o.clone().into_owned(), "url", u.clone().into_owned())?;
                            Ok::<_, Fail>((request, clock))
                        },
                    )??
                }
            };
            let (request, signer) = log_key::log_key(request)?;
            let open = request::Open::from_value(&request)?;
            Ok(Open {
                url: open.url.to_owned(),
                clock,
                proof: open.proof,
                signer,
                failed: None,
            })
        };
        let task = match read() {
            Ok(task) => task,
            Err(Fail::Core(e)) => Open {
                url: String::new(),
                clock: None,
                proof: None,
                signer: None,
                failed: Some(e),
            },
            Err(other) => return Err(other.throw(js)),
        };
        Ok(AsyncTask::new(task))
    }

    /// The id of the task with this identity, the same in every runtime.
    ///
    /// The id of the task with this identity, the same in every runtime: a framework's run or
    /// thread is the job, its tool call id the request, so an adapter finds its task again
    /// with `ledger.task(Ledger.taskId({ tenant, job_id, request_id }))`.
    #[napi(ts_args_type = "identity: TaskIdentity")]
    pub fn task_id(env: Env, identity: Unknown<'_>) -> Result<String> {
        run(&env, |js| {
            let v = owned(js, identity.raw())?;
            Ok(request::TaskIdentity::from_value(&v)?.task_id())
        })
    }

    /// What the OpenTelemetry instrumentation emits, the same in every runtime: span names,
    /// which result member each attribute comes from, the refusal event and the counters (core's
    /// table; never an argument value).
    ///
    /// `{ scope, ops, constants, task, result, refused, counters }`: core's table, which
    /// `telemetry.js` and the adapters follow when `@opentelemetry/api` is installed
    /// (attributes by JSON Pointer into each operation's result).
    #[napi(
        ts_return_type = "{ scope: string, ops: Record<string, { span: string, task: string }>, constants: Record<string, Record<string, string>>, task: Record<string, string>, result: Record<string, Record<string, string>>, refused: { event: string, reasons: string, operation: string }, counters: Record<string, { name: string, unit: string, description: string, by: string[] }> }"
    )]
    pub fn telemetry_schema(env: Env) -> Result<Unknown<'static>> {
        run(&env, |js| {
            to_js::value(js, &actionseal_core::ledger::telemetry_schema())
        })
    }

    /// Which database the ledger is on: `"sqlite"` or `"postgres"`.
    #[napi(getter, ts_return_type = "'sqlite' | 'postgres'")]
    pub fn backend(&self) -> &'static str {
        self.backend
    }

    /// The ledger's time (its clock's), in ms since the epoch.
    ///
    /// The ledger's time, in ms since the epoch (its clock's: the system's, or a
    /// `ManualClock`).
    #[napi]
    pub fn now(&self, env: Env) -> Result<f64> {
        run(&env, |_| Ok(self.ledger()?.now() as f64))
    }

    /// Records a task (the same identity and action: the same task; another action:
    /// `task_conflict`).
    ///
    /// Records a task for `action` (an envelope from `action()`) made under `contract` (a
    /// `Contract` or its document), proposed by `proposer`. The same identity (tenant,
    /// job_id, request_id) with the same action resolves to the same task; with another
    /// action it rejects with `task_conflict`. A call its contract lets run without a person
    /// is claimable at once (`approved`).
    #[napi(
        ts_args_type = "request: ProposeRequest",
        ts_return_type = "Promise<LedgerTask>"
    )]
    pub fn propose(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Propose, |js| {
            with_contract_document(js, request.raw())
        })
    }

    /// Replaces the action of a task awaiting a decision with a reviewer's edit (compare-and-set on
    /// `amends`); after the decision it raises `task_not_awaiting_decision`.
    ///
    /// Replaces the action of a task awaiting a decision with a reviewer's edit: `action` is
    /// the whole envelope with new arguments, `contract` the task's contract as the server
    /// holds it, `amends` the digest of the action the reviewer edited (compare-and-set:
    /// `amend_conflict` when the task moved on). Resolves to `{ task, amendment, duplicate }`;
    /// the decision that follows must name the amended digest. After the decision it rejects
    /// with `task_not_awaiting_decision`: an edit then is drift, never an amendment.
    #[napi(
        ts_args_type = "request: AmendRequest",
        ts_return_type = "Promise<Amended>"
    )]
    pub fn amend(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Amend, |js| {
            with_contract_document(js, request.raw())
        })
    }

    /// A task's amendments, in order.
    #[napi(
        ts_args_type = "taskId: string",
        ts_return_type = "Promise<AmendmentRecord[]>"
    )]
    pub fn amendments(&self, env: Env, task_id: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Amendments, |js| {
            member(js, task_id.raw(), "task_id")
        })
    }

    /// Records a reviewer's decision, once per `decision_id`: a decision envelope, or the ledger's
    /// approval record for the task's round signed or passkey-approved (verified against the
    /// `proof` keys; `signer` names who signed).
    ///
    /// Records a reviewer's decision envelope, or a decision that proves who made it: the
    /// approval record the ledger builds for the task's round, signed (`SigningKey.sign`) or
    /// passkey-approved, verified against the keys of `options.proof`. Resolves to `{ task,
    /// decision, duplicate, signer }`. A repeated delivery is a duplicate that changes
    /// nothing; the same `decision_id` with other content rejects with `decision_conflict`, a
    /// decision about another digest (or a signed record other than the ledger's) with
    /// `decision_mismatch`, a bare envelope where proof is required with `missing_proof`, and
    /// a proof that fails with its own code (`unknown_key`, `invalid_signature`, ...).
    #[napi(
        ts_args_type = "decision: DecisionEnvelope | SignedEnvelope | PasskeyApprovedRecord",
        ts_return_type = "Promise<Decided>"
    )]
    pub fn decide(&self, env: Env, decision: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Decide, |js| owned(js, decision.raw()))
    }

    /// Claims the task's approval for dispatching `action`: dispatch only when `result ==
    /// "claimed"`; `already_claimed` and `task_not_claimable` raise, and with `proof="required"`
    /// (or a ledger that requires it) `missing_proof` for a decision recorded without proof. The
    /// claim carries the record and proof it checked.
    ///
    /// Claims a task for dispatching `action` under the executor's `facts` (`{ tenant,
    /// policy_version, contract, approver_authorized, subject_authorized }` from its own
    /// server; the contract as a document), with a lease, optionally reserving the contract's
    /// cost on `budget`. Resolves to `{ result, claimed, task, claim, verdict, approved_action
    /// }`: `result` is `'claimed'` (dispatch `claim.action` with `claim.idempotency_key`,
    /// then complete with `claim.fence`), `'tool_args_drift'` (refused; resume with
    /// `approved_action`), `'awaiting_reapproval'` or `'rejected_pre_dispatch'`. Rejects with
    /// `already_claimed` when the approval was used, `task_not_claimable` when there is none,
    /// and, with `proof: 'required'` (or on a ledger that requires it), `missing_proof` for a
    /// decision recorded without proof. A won claim carries the approval record it checked
    /// and its proof (`claim.proof.proven`, to verify at `claim.proof.verified_at`).
    #[napi(
        ts_args_type = "request: ClaimRequest",
        ts_return_type = "Promise<ClaimOutcome>"
    )]
    pub fn claim(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Claim, |js| owned(js, request.raw()))
    }

    /// Reports a claim's outcome with its fence (`stale_fence`, `lease_expired`).
    ///
    /// Reports the outcome of a claim (`'succeeded'`, `'failed'`, or `'unknown'` for a
    /// timeout: reconcile later, never retry) with the claim's fence. Rejects with
    /// `stale_fence` for a superseded claim and `lease_expired` after the lease. Resolves to
    /// the task.
    #[napi(
        ts_args_type = "request: CompleteRequest",
        ts_return_type = "Promise<LedgerTask>"
    )]
    pub fn complete(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Complete, |js| owned(js, request.raw()))
    }

    /// Records what the business system answered about a task in doubt.
    ///
    /// Records what the business system answered about a task in doubt: `'succeeded'` or
    /// `'failed'` (final) or `'not_executed'` (claimable again, same idempotency key, higher
    /// fence). Resolves to the task.
    #[napi(
        ts_args_type = "request: ReconcileRequest",
        ts_return_type = "Promise<LedgerTask>"
    )]
    pub fn reconcile(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Reconcile, |js| owned(js, request.raw()))
    }

    /// Revokes an approval: its task's next claim sends it back for approval.
    ///
    /// Revokes an approval: the next claim of its task sends the task back for approval.
    #[napi(
        ts_args_type = "request: RevokeRequest",
        ts_return_type = "Promise<Revocation>"
    )]
    pub fn revoke(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Revoke, |js| owned(js, request.raw()))
    }

    /// Moves every claimed task whose lease ran out to `unknown`; their ids.
    ///
    /// Moves every claimed task whose lease ran out to `'unknown'` (never back to claimable)
    /// and resolves to their ids. Any operation on a task also does this for it first.
    #[napi(ts_return_type = "Promise<string[]>")]
    pub fn expire_leases(&self, env: Env) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::ExpireLeases, |_| object(Vec::new()))
    }

    /// Creates a budget account or sets its limit (minor units).
    ///
    /// Creates a budget account, or sets its limit (minor units).
    #[napi(
        ts_args_type = "request: BudgetLimit",
        ts_return_type = "Promise<LedgerBudget>"
    )]
    pub fn set_budget(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::SetBudget, |js| owned(js, request.raw()))
    }

    /// A budget account (`budget_not_found`).
    ///
    /// A budget account; rejects with `budget_not_found`.
    #[napi(
        ts_args_type = "name: string",
        ts_return_type = "Promise<LedgerBudget>"
    )]
    pub fn budget(&self, env: Env, name: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Budget, |js| member(js, name.raw(), "name"))
    }

    /// A task (`task_not_found`).
    ///
    /// A task; rejects with `task_not_found`.
    #[napi(
        ts_args_type = "taskId: string",
        ts_return_type = "Promise<LedgerTask>"
    )]
    pub fn task(&self, env: Env, task_id: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Task, |js| member(js, task_id.raw(), "task_id"))
    }

    /// A task with its audit events, in order.
    ///
    /// A task with its history: `{ task, events }`, the audit events about it in order.
    #[napi(
        ts_args_type = "taskId: string",
        ts_return_type = "Promise<TaskHistory>"
    )]
    pub fn history(&self, env: Env, task_id: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::History, |js| {
            member(js, task_id.raw(), "task_id")
        })
    }

    /// Tasks in a state of a tenant, proposed since and until (any may be left out), oldest first.
    ///
    /// The tasks in `state` of `tenant`, proposed at or after `since` and before `until` (ms
    /// since the epoch; any may be left out: any), oldest first.
    #[napi(
        ts_args_type = "filter?: TaskFilter",
        ts_return_type = "Promise<LedgerTask[]>"
    )]
    pub fn tasks(&self, env: Env, filter: Option<Unknown<'_>>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Tasks, |js| match filter {
            Some(f) => owned(js, f.raw()),
            None => object(Vec::new()),
        })
    }

    /// A page of the tasks `tasks` lists: at most `limit`, after the cursor `after`.
    ///
    /// The tasks `tasks` lists with the same filters, at most `limit` (from 1) of them after
    /// `after` (the `next` of the previous page; left out: the first page): `{ tasks, next }`,
    /// `next` the cursor of the following page or `null` when none follows. Rows written
    /// between two pages neither repeat nor shift a later one. A cursor of another read
    /// rejects with `invalid_request`.
    #[napi(
        ts_args_type = "query?: PageQuery",
        ts_return_type = "Promise<TasksPage>"
    )]
    pub fn tasks_page(&self, env: Env, query: Option<Unknown<'_>>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::TasksPage, |js| match query {
            Some(q) => owned(js, q.raw()),
            None => object(Vec::new()),
        })
    }

    /// A page of the audit export's lines, filtered as `tasks_page` filters tasks.
    ///
    /// The events of the audit export, each a line of `auditExport()` (without its newline),
    /// in its order: those of `tenant`, of the tasks now in `state`, at or after `since` and
    /// before `until`, at most `limit` after `after`: `{ lines, next }`. Pages joined are the
    /// export; a filtered export is for reading, not for `verifyAudit`, which needs every
    /// event of a chain.
    #[napi(
        ts_args_type = "query?: PageQuery",
        ts_return_type = "Promise<AuditPage>"
    )]
    pub fn audit_export_page(&self, env: Env, query: Option<Unknown<'_>>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::AuditPage, |js| match query {
            Some(q) => owned(js, q.raw()),
            None => object(Vec::new()),
        })
    }

    /// The whole audit as JSON Lines.
    ///
    /// The whole audit as JSON Lines (one event with its digest per line), which
    /// `verifyAudit` verifies in any runtime.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn audit_export(&self, env: Env) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::AuditExport, |_| object(Vec::new()))
    }

    /// Walks the stored chains up to their recorded heads, replays every task's events and holds
    /// every task row to them; against `exported` heads too.
    ///
    /// Walks the stored audit chains up to their recorded heads, replays every task's events
    /// and holds every task row to them: `{ valid, events, heads, broken }`, `broken` naming
    /// the first broken chain and seq (and the task and the field, when a replay or a row
    /// broke). `{ exported }` (what `auditHeads()` returned, kept outside the database) also
    /// finds a chain truncated or sealed again since.
    #[napi(
        ts_args_type = "options?: { exported?: ExportedHeads | null }",
        ts_return_type = "Promise<AuditReport>"
    )]
    pub fn audit_verify(&self, env: Env, options: Option<Unknown<'_>>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::AuditVerify, |js| match options {
            Some(o) => owned(js, o.raw()),
            None => object(Vec::new()),
        })
    }

    /// The chains' heads to keep outside the database (only from an audit that verifies).
    ///
    /// The chains' heads, `{ version, at, heads }`, to keep where the database's owner cannot
    /// write (write them as `canonicalize` gives them); only from an audit that verifies
    /// (rejects with `audit_chain_broken` otherwise).
    #[napi(ts_return_type = "Promise<ExportedHeads>")]
    pub fn audit_heads(&self, env: Env) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::AuditHeads, |_| object(Vec::new()))
    }

    /// Waits until a task is in one of `states` or `timeout_ms` passes, woken by commits.
    ///
    /// Resolves once task `task_id` is in one of `states` or `timeout_ms` passes: `{ outcome:
    /// 'reached' | 'timed_out', task }`, the task as read last. Woken by the commits that may
    /// have moved it, never by polling at an interval: on PostgreSQL by `NOTIFY`, on SQLite by
    /// this ledger's writers and, for other processes, `PRAGMA data_version`. A wait holds one
    /// of libuv's pool threads while it blocks. Rejects with `task_not_found`.
    #[napi(
        ts_args_type = "request: WaitRequest",
        ts_return_type = "Promise<Waited>"
    )]
    pub fn wait(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Wait, |js| owned(js, request.raw()))
    }

    /// Changes of tasks after a cursor; with `timeout_ms`, waits up to that for one.
    ///
    /// The changes of tasks after `after` (the `cursor` a previous read returned; left out:
    /// the beginning), at most `limit` (1 to 1000, 100 when left out): `{ changes: [{
    /// event_id, task_id, kind, state, at }], cursor }`, never an argument value, none
    /// skipped however transactions commit. With `timeout_ms`, waits up to that long for at
    /// least one (woken as `wait` is); none when it passes.
    #[napi(
        ts_args_type = "request?: ChangesRequest",
        ts_return_type = "Promise<ChangesRead>"
    )]
    pub fn changes(&self, env: Env, request: Option<Unknown<'_>>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Changes, |js| match request {
            Some(r) => owned(js, r.raw()),
            None => object(Vec::new()),
        })
    }

    /// The ledger's policy, as its database records it for every handle.
    ///
    /// The ledger's policy as its database records it for every handle: `{ proof:
    /// 'optional' | 'required', changed_at, changed_by }`.
    #[napi(ts_return_type = "Promise<LedgerPolicy>")]
    pub fn policy(&self, env: Env) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Policy, |_| object(Vec::new()))
    }

    /// Changes the proof requirement for every handle on the database, audited.
    ///
    /// Changes the ledger's proof requirement for every handle on its database, by `actor`,
    /// for `reason`, in an audited event (`proof_policy_changed`): the only way to stop
    /// requiring proof. Resolves to the policy.
    #[napi(
        ts_args_type = "request: SetProofRequirementRequest",
        ts_return_type = "Promise<LedgerPolicy>"
    )]
    pub fn set_proof_requirement(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::SetProofRequirement, |js| {
            owned(js, request.raw())
        })
    }

    /// Lets go of the database; later calls raise `ledger_unavailable`.
    ///
    /// Lets go of the database: resolves once this ledger's connections are closed (the
    /// last call in flight closes them when it ends). Later calls reject with
    /// `ledger_unavailable`. Without it, the connections close when the garbage collector
    /// frees the ledger.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self) -> AsyncTask<Close> {
        AsyncTask::new(Close(
            self.inner.lock().unwrap_or_else(|p| p.into_inner()).take(),
        ))
    }
}

/// Closing a ledger: dropping the last reference closes its connections, which talks to
/// PostgreSQL, so it happens off the loop.
pub struct Close(Option<Arc<CoreLedger>>);

impl Task for Close {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> Result<()> {
        drop(self.0.take());
        Ok(())
    }

    fn resolve(&mut self, _env: Env, _output: ()) -> Result<()> {
        Ok(())
    }
}

impl Drop for Ledger {
    /// A ledger the garbage collector frees closes its connections on a thread of its own,
    /// not on the loop.
    fn drop(&mut self) {
        let inner = self
            .inner
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(ledger) = inner {
            let _ = std::thread::Builder::new()
                .name("actionseal-ledger-close".into())
                .spawn(move || drop(ledger));
        }
    }
}

/// Verifies an exported audit (JSON Lines) in any runtime, replaying every task's events; `heads`
/// are the chain ends the ledger recorded (a report's `heads`), to find events cut from the end
/// too; `exported` (`Ledger.audit_heads()`, kept outside the database) finds a chain truncated or
/// sealed again since.
///
/// Verifies an audit exported by `ledger.auditExport()` (JSON Lines, as a string or UTF-8
/// bytes), in any runtime, replaying every task's events: `{ valid, events, heads, broken }`,
/// `broken` naming the first line, chain and seq where an event was edited, removed,
/// reordered or is malformed, or a task's events that its history cannot have. `heads` (a
/// report's `heads`) are the chain ends the ledger recorded; with them, events cut from the
/// end are found too. `exported` (a heads file from `ledger.auditHeads()`) finds a chain
/// truncated or sealed again since.
#[napi(
    ts_args_type = "jsonl: string | Uint8Array, heads?: AuditHead[] | null, exported?: ExportedHeads | null",
    ts_return_type = "AuditReport"
)]
pub fn verify_audit(
    env: Env,
    jsonl: Unknown<'_>,
    heads: Option<Unknown<'_>>,
    exported: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let heads = match heads {
            Some(h) => {
                let v = owned(js, h.raw()).map_err(|f| f.in_key("heads"))?;
                request::heads(&v).map_err(|e| e.in_key("heads"))?
            }
            None => Vec::new(),
        };
        let exported = match exported {
            Some(h) => {
                let v = owned(js, h.raw()).map_err(|f| f.in_key("exported"))?;
                match v {
                    actionseal_core::Value::Null => Vec::new(),
                    v => {
                        actionseal_core::ledger::ExportedHeads::from_value(&v)
                            .map_err(|e| e.in_key("exported"))?
                            .heads
                    }
                }
            }
            None => Vec::new(),
        };
        let expected = actionseal_core::ledger::Expected {
            recorded: &heads,
            exported: &exported,
            rows: None,
            decisions: None,
            policy: None,
        };
        let report = text::with_bytes(js, jsonl.raw(), &Options::default(), |bytes, _| {
            Ok(actionseal_core::ledger::verify_audit_with(bytes, &expected).to_value())
        })?;
        to_js::value(js, &report)
    })
}
