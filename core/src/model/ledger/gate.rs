//! The framework adapters' gate: what an adapter does after each ledger step of a governed tool
//! call, decided here once for every runtime. The adapter does the I/O (propose, claim,
//! complete) and the framework's pause, run and tool result; it asks [`gate_step`] what each
//! result means and shows the model [`Refusal::message`], byte for byte the same in Python,
//! Node and the browser.
//!
//! Past disagreements between the Python and Node adapters, each settled once here:
//! - the model reads `actionseal: ` and core's canonical JSON ([`MESSAGE_PREFIX`]), because
//!   canonical bytes are the one spelling every runtime writes identically;
//! - the payload is the richer Node one (tool, fingerprints and a sentence saying what to do),
//!   because the model acts on the sentence and a person matches the fingerprint;
//! - a claim refused for the task's state, a spent claim, a budget or a missing proof is a
//!   refusal; any other claim error is raised ([`Gate::Raise`]), because a ledger that is
//!   unavailable is the application's to retry and never the model's to read;
//! - a completion refused as late is kept ([`Gate::Keep`]): the body ran, so its answer goes
//!   back, while the ledger holds the task in doubt for reconciliation;
//! - an approved amendment runs when the framework presents the unchanged proposal
//!   ([`Gate::Claim`]), because none of the frameworks can carry a reviewer's edit itself;
//! - the defaults are in [`defaults`].
//!
//! Decisions the frameworks' glue used to make, now here for the same reason (one answer):
//! - a call of an ungoverned tool whose call id already has a task is drift at `/tool`
//!   (`invoke` with `task`), because a framework's edit switched the approved call to another
//!   tool and only the approved one may run;
//! - a paused run resumes from the ledger (`resume`): an approved task is approved with the
//!   amended arguments, a rejected one (by a person or at dispatch) is refused with core's
//!   text, any other is left waiting, because the claim at dispatch re-proves it anyway;
//! - a gateway's call that names no governed tool, or a task pointer of no task of this
//!   session, is refused as `unknown_tool` / `task_not_found` (`route`), because the client
//!   reads that refusal like any other;
//! - a call with no job (LangGraph without a checkpointer or a thread id) is refused as
//!   `invalid_request` at `/job_id`, and a tool whose upstream schema core cannot compile with
//!   its error (`route`), because the model reads one payload in every runtime;
//! - an MCP gateway asks the person for an approval with one text (`elicit`), because the
//!   person reads it and both gateways must say the same thing;
//! - a tool body that answered with an error is recorded `failed`, one that raised `unknown`
//!   (`ran`), because an answer is a fact the ledger can hold while reconciliation is for the
//!   calls nobody can say happened or not;
//! - a spent call sent again whose task finished, `succeeded` or `failed`, is answered with its
//!   recorded result (a refusal's `replay`), because a recorded failure is also the answer the
//!   upstream gave;
//! - a waiting task whose quorum is partly given (issue 25) is refused with how many approvals
//!   and which roles are still missing, in the sentence and as `quorum` (counts only), and its
//!   pause shows the reviewer the task's `quorum` (who approved, in which role, through which
//!   delegation), because "waiting" alone reads as if nobody had decided;
//! - the parallel calls of one model turn are proposed as batches where their contract allows
//!   it (`turn`, rules in [`turn`]'s header), a person reviews each batch once, and each call
//!   claims and completes its own item when the framework runs it ([`Unit::Item`], read from
//!   the task's batch decision), because one review per call teaches a person to stop reading;
//!   a batch the ledger refuses (a server's narrower policy, a separated amender) leaves its
//!   calls single ([`Gate::Alone`]), and the pause of an item shows the reviewer its batch.

use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};
use crate::model::fields::Fields;
use crate::model::ledger::values::{object, string, strings};
use crate::{canonicalize, fingerprint, short_fingerprint};
use quorum::Needed;
pub use turn::TurnBatch;

mod quorum;
mod turn;

/// A claim's lease when the application names none: 5 minutes, so that a slow tool body is not
/// put in doubt while it runs (a crashed claim is in doubt when the lease ends either way).
pub const DEFAULT_LEASE_MS: i64 = 300_000;
/// Who claims and completes when the application names no executor: a name is still recorded
/// in the audit, and optional names keep both adapters' existing calls working.
pub const DEFAULT_EXECUTOR: &str = "actionseal-adapter";
/// Who proposes when the application names no proposer (see [`DEFAULT_EXECUTOR`]).
pub const DEFAULT_PROPOSER: &str = "agent";
/// The `_meta` key with which an MCP client names the task of a call it sends again.
pub const TASK_META: &str = "io.actionseal/task";
/// What precedes the canonical JSON of a refusal, so a framework's prefix cannot hide it.
pub const MESSAGE_PREFIX: &str = "actionseal: ";

/// `{"lease_ms", "executor", "proposer"}`: an adapter's defaults.
pub fn defaults() -> OwnedValue {
    object(vec![
        ("lease_ms", super::values::int(DEFAULT_LEASE_MS)),
        ("executor", string(DEFAULT_EXECUTOR)),
        ("proposer", string(DEFAULT_PROPOSER)),
    ])
}

/// What the model is told when a call does not run: the payload and whether the model may
/// correct its arguments and call again.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// `{"error", ...}`: what the model reads, as an object.
    pub payload: OwnedValue,
    /// The arguments broke the contract (or did not parse): nothing was proposed.
    pub bad_args: bool,
}

impl Refusal {
    /// The code in `error`.
    pub fn code(&self) -> &str {
        self.payload
            .as_object()
            .and_then(|o| o.get("error"))
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The exact text the model reads: [`MESSAGE_PREFIX`] and the payload's canonical JSON.
    pub fn message(&self) -> String {
        format!("{MESSAGE_PREFIX}{}", canonicalize(&self.payload))
    }

    /// The recorded answer a gateway gives again instead of the refusal: the `result` of a
    /// spent call that finished (`succeeded` or `failed`), when one was recorded.
    pub fn replay(&self) -> Option<&OwnedValue> {
        self.payload
            .as_object()
            .and_then(|o| o.get("result"))
            .filter(|r| !matches!(r, Value::Null))
    }
}

/// Which ledger operations claim and complete a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A task of its own: `claim` and `complete`.
    Task,
    /// An item of a batch a person decided: `claim_item` and `complete_item`, which hold it to
    /// the batch's caps and breaker (the plain operations refuse it).
    Item,
}

impl Unit {
    /// `task` or `item`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Unit::Task => "task",
            Unit::Item => "item",
        }
    }
}

/// What an adapter does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Gate {
    /// After a proposal: claim the task with `action` (the presented one, or the amendment
    /// when a reviewer amended the task and the framework presents the unchanged proposal).
    Claim {
        /// The action to claim with.
        action: OwnedValue,
        /// Which claim.
        unit: Unit,
    },
    /// The claim was won: run the tool once with the claim's frozen arguments, then complete.
    Run {
        /// The claim (`ledger.claim`'s `claim`).
        claim: OwnedValue,
        /// Which completion.
        unit: Unit,
    },
    /// A model turn's calls: propose each batch with `propose_batch` (its calls' actions in
    /// order, `per_item`), every other call on its own.
    Turn(Vec<TurnBatch>),
    /// The ledger refused a turn's batch as a batch: propose its calls one by one.
    Alone,
    /// No claimable approval: pause with the framework's own pause, showing `request` to the
    /// reviewer; a framework that cannot pause tells the model `refusal` instead.
    Pause {
        /// The task to ask the ledger about again.
        task_id: String,
        /// What the reviewer is shown: the frozen action and its fingerprints.
        request: OwnedValue,
        /// What the model is told where the framework has no pause.
        refusal: Refusal,
    },
    /// Nothing runs; tell the model.
    Refuse(Refusal),
    /// Not the gate's to decide: the adapter raises the error it caught.
    Raise,
    /// A completion refused as late: keep the body's answer (the ledger holds the task in
    /// doubt for reconciliation; never retry it).
    Keep,
    /// On resume, a person approved the task: let the framework run the call, with `args`
    /// (the amended arguments) when a reviewer amended it.
    Approve {
        /// The amended arguments, or `None` to run the call as presented.
        args: Option<OwnedValue>,
    },
    /// On resume, nobody has decided yet (or the task is past deciding): leave the call, the
    /// claim at dispatch decides it.
    Wait,
    /// An MCP gateway asks for a person's approval: a URL elicitation (or an error result
    /// where the client has none) with `message`.
    Elicit {
        /// The task (the elicitation's id).
        task_id: String,
        /// The reviewer's page.
        url: String,
        /// What the person reads.
        message: String,
    },
    /// After the tool body: complete the claim with `outcome`.
    Record {
        /// `succeeded`, `failed` or `unknown`.
        outcome: &'static str,
    },
}

impl Gate {
    /// `{"decision": "claim" | "run" | "pause" | "refuse" | "raise" | "keep" | "approve" |
    /// "wait" | "elicit" | "record" | "turn" | "alone", ...}`: `claim` with `action` and `unit`
    /// (`task` or `item`); `run` with `claim`, `args` (the claim's frozen arguments) and `unit`;
    /// `turn` with `batches` ([`TurnBatch::to_value`]); `pause` with `task_id`, `request`, `refusal` and `message`;
    /// `refuse` with `code`, `refusal`, `message`, `bad_args` (`code` is the refusal's
    /// `error`) and, for a finished call sent again, `replay` ([`Refusal::replay`]); `approve` with `args` (`null` when not amended); `elicit` with `task_id`, `url` and
    /// `message`; `record` with `outcome`.
    pub fn to_value(&self) -> OwnedValue {
        let decision = |d: &str| ("decision", string(d));
        match self {
            Gate::Claim { action, unit } => object(vec![
                decision("claim"),
                ("action", action.clone()),
                ("unit", string(unit.as_str())),
            ]),
            Gate::Run { claim, unit } => object(vec![
                decision("run"),
                ("claim", claim.clone()),
                (
                    "args",
                    claim
                        .pointer("/action/args")
                        .cloned()
                        .unwrap_or(Value::Null),
                ),
                ("unit", string(unit.as_str())),
            ]),
            Gate::Turn(batches) => object(vec![
                decision("turn"),
                (
                    "batches",
                    Value::Array(batches.iter().map(TurnBatch::to_value).collect()),
                ),
            ]),
            Gate::Alone => object(vec![decision("alone")]),
            Gate::Pause {
                task_id,
                request,
                refusal,
            } => object(vec![
                decision("pause"),
                ("task_id", string(task_id)),
                ("request", request.clone()),
                ("refusal", refusal.payload.clone()),
                ("message", string(&refusal.message())),
            ]),
            Gate::Refuse(r) => {
                let mut members = vec![
                    decision("refuse"),
                    ("code", string(r.code())),
                    ("refusal", r.payload.clone()),
                    ("message", string(&r.message())),
                    ("bad_args", Value::Bool(r.bad_args)),
                ];
                if let Some(replay) = r.replay() {
                    members.push(("replay", replay.clone()));
                }
                object(members)
            }
            Gate::Raise => object(vec![decision("raise")]),
            Gate::Keep => object(vec![decision("keep")]),
            Gate::Approve { args } => object(vec![
                decision("approve"),
                ("args", args.clone().unwrap_or(Value::Null)),
            ]),
            Gate::Wait => object(vec![decision("wait")]),
            Gate::Elicit {
                task_id,
                url,
                message,
            } => object(vec![
                decision("elicit"),
                ("task_id", string(task_id)),
                ("url", string(url)),
                ("message", string(message)),
            ]),
            Gate::Record { outcome } => {
                object(vec![decision("record"), ("outcome", string(outcome))])
            }
        }
    }
}

/// The members of a gate step, by step.
const STEP_FIELDS: [&str; 11] = [
    "step",
    "task",
    "presented",
    "outcome",
    "error",
    "tool",
    "unknown",
    "body",
    "url",
    "calls",
    "batch",
];

/// Decides what an adapter does after one step of a governed call. `input` is
/// `{"step", ...}`:
/// - `{"step": "turn", "calls": [{"action", "contract"}]}`: a model turn's governed calls,
///   frozen, with their contracts' documents: [`Gate::Turn`], the batches to propose;
/// - `{"step": "turn", "error"}`: `propose_batch` failed: [`Gate::Alone`] when the ledger
///   refused the batch as a batch (not allowed, too large, over a cap, an item proposed
///   already), else [`Gate::Raise`];
/// - `{"step": "propose", "task", "presented", "batch"?}`: the task the proposal gave and the
///   action the framework presents (and, for a batch's item, the ledger's view of its batch):
///   [`Gate::Pause`] while the task waits for a person (showing the batch), else
///   [`Gate::Claim`] (an item of a decided batch with [`Unit::Item`]);
/// - `{"step": "propose", "tool", "error"}`: freezing or proposing failed: [`Gate::Refuse`]
///   (`bad_args`) when the error is about the model's arguments, else [`Gate::Raise`];
/// - `{"step": "claim", "outcome"}`: `ledger.claim`'s (or `claim_item`'s) result: [`Gate::Run`]
///   (with [`Unit::Item`] for an item's claim), [`Gate::Pause`] (`awaiting_reapproval`) or
///   [`Gate::Refuse`] (drift, rejected);
/// - `{"step": "claim", "task", "error", "batch"?}`: the claim failed and `task` is the task
///   read after: [`Gate::Pause`] when it waits for a person, [`Gate::Refuse`] for the task's
///   state, a spent claim, a budget, a missing proof, an open breaker or a batch's cap, else
///   [`Gate::Raise`];
/// - `{"step": "complete", "error"}`: [`Gate::Keep`] when the completion was late, else
///   [`Gate::Raise`];
/// - `{"step": "invoke", "tool"}`: the framework invokes a tool no claim was won for:
///   [`Gate::Refuse`];
/// - `{"step": "invoke", "tool", "task"}`: the framework invokes `tool`, which has no
///   contract, for a call id whose task is of another tool: [`Gate::Refuse`] (drift at
///   `/tool`);
/// - `{"step": "resume", "task"}`: a paused run resumes: [`Gate::Approve`] (`approved`),
///   [`Gate::Refuse`] (`rejected`, `rejected_pre_dispatch`), else [`Gate::Wait`];
/// - `{"step": "route", "tool", "unknown": "tool" | "task" | "job"}`: a gateway has no governed
///   `tool`, the task pointer names no task of this session for it, or the framework gives no
///   job (LangGraph without a checkpointer and a thread id): [`Gate::Refuse`];
/// - `{"step": "route", "tool", "error"}`: the upstream's schema of `tool` is outside core's
///   subset (the contract's compile error): [`Gate::Refuse`], or [`Gate::Raise`] for a name
///   that is not a code;
/// - `{"step": "elicit", "task", "url"}`: an MCP gateway asks for the approval of a waiting
///   task at the reviewer's `url`: [`Gate::Elicit`];
/// - `{"step": "ran", "body": "returned" | "reported_error" | "raised"}`: the tool body
///   returned, answered with an error (MCP's `isError`) or raised: [`Gate::Record`]
///   (`succeeded`, `failed`, `unknown`).
///
/// `error` is `{"code", "path", "message"}` as the error was caught (`message` is its text).
/// A malformed input is [`Code::InvalidRequest`].
pub fn gate_step(input: &Value<'_>) -> Result<Gate> {
    let f = Fields::new(input, Code::InvalidRequest, "gate step", &STEP_FIELDS)?;
    let step = f.one_of(
        "step",
        &[
            "propose", "claim", "complete", "invoke", "resume", "route", "ran", "elicit", "turn",
        ],
    )?;
    let only = |allowed: &[&str]| -> Result<()> {
        match STEP_FIELDS
            .iter()
            .find(|k| f.get(k).is_some() && !allowed.contains(k))
        {
            Some(k) => {
                Err(Error::new(Code::InvalidRequest, format!("a {step} step has no {k}")).in_key(k))
            }
            None => Ok(()),
        }
    };
    match step {
        "turn" if f.get("error").is_some() => {
            only(&["step", "error"])?;
            let e = Caught::read(f.required("error")?).map_err(|e| e.in_key("error"))?;
            return Ok(match e.code {
                Some(
                    Code::BatchNotAllowed
                    | Code::BatchTooLarge
                    | Code::BatchCapExceeded
                    | Code::InvalidBatch,
                ) => Gate::Alone,
                _ => Gate::Raise,
            });
        }
        "turn" => {
            only(&["step", "calls"])?;
            return Ok(Gate::Turn(turn::plan(f.required("calls")?)?));
        }
        "resume" => {
            only(&["step", "task"])?;
            let task = Task::read(f.required("task")?).map_err(|e| e.in_key("task"))?;
            return Ok(resumed(&task));
        }
        "elicit" => {
            only(&["step", "task", "url"])?;
            let task = Task::read(f.required("task")?).map_err(|e| e.in_key("task"))?;
            let url = f.string("url")?;
            return Ok(elicit(&task, url));
        }
        "route" if f.get("error").is_some() => {
            only(&["step", "tool", "error"])?;
            let tool = f.string("tool")?;
            let e = Caught::read(f.required("error")?).map_err(|e| e.in_key("error"))?;
            // A name that is not a code of this core is not the gate's.
            return Ok(e
                .code
                .map_or(Gate::Raise, |code| Gate::Refuse(unserved(tool, code, &e))));
        }
        "route" => {
            only(&["step", "tool", "unknown"])?;
            let tool = f.string("tool")?;
            return Ok(Gate::Refuse(unrouted(
                tool,
                f.one_of("unknown", &["tool", "task", "job"])?,
            )));
        }
        "ran" => {
            only(&["step", "body"])?;
            let outcome = match f.one_of("body", &["returned", "reported_error", "raised"])? {
                "returned" => "succeeded",
                "reported_error" => "failed",
                _ => "unknown",
            };
            return Ok(Gate::Record { outcome });
        }
        "invoke" if f.get("task").is_some() => {
            only(&["step", "tool", "task"])?;
            f.string("tool")?;
            let task = Task::read(f.required("task")?).map_err(|e| e.in_key("task"))?;
            let approved_args = task.get("/action/args").ok_or_else(|| {
                Error::new(Code::InvalidRequest, "a task needs /action/args").in_key("task")
            })?;
            let extra = Extra::Drift {
                approved_args,
                drift: vec!["/tool"],
            };
            return Ok(Gate::Refuse(task_refusal(&task, "tool_args_drift", extra)));
        }
        _ => {}
    }
    match (step, f.get("error").is_some()) {
        ("propose", false) => {
            only(&["step", "task", "presented", "batch"])?;
            let task = Task::read(f.required("task")?).map_err(|e| e.in_key("task"))?;
            let presented = f.required("presented")?;
            if waiting(task.state) {
                let batch = batch_of(f.get("batch"))?;
                return Ok(pause(&task, Code::TaskNotClaimable.as_str(), None, batch));
            }
            Ok(Gate::Claim {
                action: task.to_claim(presented),
                unit: task.unit(),
            })
        }
        ("propose", true) => {
            only(&["step", "tool", "error"])?;
            let tool = f.string("tool")?;
            let e = Caught::read(f.required("error")?).map_err(|e| e.in_key("error"))?;
            Ok(match e.code {
                Some(code) if about_args(code) => Gate::Refuse(nothing_ran(
                    code.as_str(),
                    e.path,
                    tool,
                    format!(
                        "The arguments do not match {tool}'s schema: {}; nothing ran.",
                        e.message
                    ),
                    true,
                )),
                _ => Gate::Raise,
            })
        }
        ("claim", false) => {
            only(&["step", "outcome"])?;
            claimed(f.required("outcome")?).map_err(|e| e.in_key("outcome"))
        }
        ("claim", true) => {
            only(&["step", "task", "error", "batch"])?;
            let task = Task::read(f.required("task")?).map_err(|e| e.in_key("task"))?;
            let e = Caught::read(f.required("error")?).map_err(|e| e.in_key("error"))?;
            let Some(code) = e.code.filter(|c| claim_refusal(*c)) else {
                return Ok(Gate::Raise);
            };
            if matches!(code, Code::TaskNotClaimable | Code::BreakerOpen) && waiting(task.state) {
                let batch = batch_of(f.get("batch"))?;
                return Ok(pause(&task, code.as_str(), None, batch));
            }
            Ok(Gate::Refuse(task_refusal(
                &task,
                code.as_str(),
                Extra::None,
            )))
        }
        ("complete", true) => {
            only(&["step", "error"])?;
            let e = Caught::read(f.required("error")?).map_err(|e| e.in_key("error"))?;
            Ok(match e.code {
                Some(Code::LeaseExpired | Code::StaleFence | Code::TaskNotClaimed) => Gate::Keep,
                _ => Gate::Raise,
            })
        }
        ("invoke", false) => {
            only(&["step", "tool"])?;
            let tool = f.string("tool")?;
            Ok(Gate::Refuse(Refusal {
                payload: object(vec![
                    ("error", string(Code::TaskNotClaimed.as_str())),
                    ("tool", string(tool)),
                    (
                        "message",
                        string(&format!(
                            "No claim was won for this call of {tool}; nothing ran."
                        )),
                    ),
                ]),
                bad_args: false,
            }))
        }
        (_, false) => Err(Error::new(
            Code::InvalidRequest,
            format!("a {step} step needs an error"),
        )
        .in_key("error")),
        (_, true) => Err(
            Error::new(Code::InvalidRequest, format!("a {step} step has no error")).in_key("error"),
        ),
    }
}

/// What a paused run does on resume, from the task's state.
fn resumed(task: &Task<'_, '_>) -> Gate {
    match task.state {
        "approved" => {
            let proposal = task.get("/proposed_digest").and_then(Value::as_str);
            let amended = proposal.is_some_and(|p| p != task.digest);
            Gate::Approve {
                args: amended
                    .then(|| task.get("/action/args").cloned().unwrap_or(Value::Null))
                    .map(Value::into_owned),
            }
        }
        "rejected" | "rejected_pre_dispatch" => {
            Gate::Refuse(task_refusal(task, "rejected", Extra::None))
        }
        _ => Gate::Wait,
    }
}

/// The approval an MCP gateway asks a person for: the frozen call, its fingerprints, where to
/// decide and how to call again.
fn elicit(task: &Task<'_, '_>, url: &str) -> Gate {
    let args = task
        .get("/action/args")
        .map(canonicalize)
        .unwrap_or_default();
    let short = short_fingerprint(task.digest).unwrap_or_default();
    let needs = task.needed.as_ref().map(Needed::clause).unwrap_or_default();
    let message = format!(
        "Approval required: {} {args} (fingerprint {short}, {}, {}{needs}). A person decides at \
         {url}; then call again with _meta {{\"{TASK_META}\": \"{}\"}}.",
        task.tool, task.digest, task.state, task.id
    );
    Gate::Elicit {
        task_id: task.id.to_owned(),
        url: url.to_owned(),
        message,
    }
}

/// A gateway's refusal of a call it cannot route to a governed tool, a task or a job.
fn unrouted(tool: &str, unknown: &str) -> Refusal {
    let (code, message) = match unknown {
        "tool" => (
            "unknown_tool",
            format!("{tool} is not a tool this gateway governs; nothing ran."),
        ),
        "job" => {
            return nothing_ran(
                Code::InvalidRequest.as_str(),
                "/job_id",
                tool,
                format!(
                    "{tool} is governed, so its call needs a job: a checkpointer and a \
                     thread_id; nothing ran."
                ),
                false,
            )
        }
        _ => (
            Code::TaskNotFound.as_str(),
            format!(
                "The task named for this call of {tool} is not one of this session's; nothing ran."
            ),
        ),
    };
    Refusal {
        payload: object(vec![
            ("error", string(code)),
            ("tool", string(tool)),
            ("message", string(&message)),
        ]),
        bad_args: false,
    }
}

/// A gateway's refusal of a call of a tool whose upstream schema core cannot hold as a
/// contract: the compile error as caught.
fn unserved(tool: &str, code: Code, e: &Caught<'_>) -> Refusal {
    nothing_ran(
        code.as_str(),
        e.path,
        tool,
        format!(
            "{tool}'s schema upstream is not one actionseal can hold ({}); nothing ran.",
            e.message
        ),
        false,
    )
}

/// `{error, path, tool, message}`: a refusal of one call of `tool`, for which nothing ran.
fn nothing_ran(code: &str, path: &str, tool: &str, message: String, bad_args: bool) -> Refusal {
    Refusal {
        payload: object(vec![
            ("error", string(code)),
            ("path", string(path)),
            ("tool", string(tool)),
            ("message", string(&message)),
        ]),
        bad_args,
    }
}

/// States in which a task waits for a person: a claim could only refuse.
fn waiting(state: &str) -> bool {
    matches!(state, "awaiting_approval" | "awaiting_reapproval")
}

/// Errors of a claim that say the call may not run now (told to the model), as opposed to the
/// application's own errors (raised).
fn claim_refusal(code: Code) -> bool {
    matches!(
        code,
        Code::TaskNotClaimable
            | Code::AlreadyClaimed
            | Code::BudgetExceeded
            | Code::MissingProof
            | Code::BreakerOpen
            | Code::BatchCapExceeded
    )
}

/// Errors about the model's arguments: their text did not parse strictly, or they break the
/// contract's schema. The model may correct them.
fn about_args(code: Code) -> bool {
    use Code::*;
    matches!(
        code,
        SyntaxError
            | TrailingContent
            | ByteOrderMark
            | DuplicateKey
            | LoneSurrogate
            | NonFiniteNumber
            | NumberOverflow
            | InexactNumber
            | DepthLimitExceeded
            | SizeLimitExceeded
            | UnsupportedType
            | NonStringKey
            | CyclicValue
            | SparseArray
            | UnknownField
            | MissingField
            | TypeMismatch
            | UnsafeInteger
            | EnumMismatch
            | OutOfRange
            | LengthOutOfRange
            | PatternMismatch
            | PatternInputTooLong
            | FormatMismatch
            | DuplicateItems
            | NoMatchingAlternative
    )
}

/// An error as the adapter caught it.
struct Caught<'v> {
    /// `None` for a name that is not a code of this core: never the gate's.
    code: Option<Code>,
    path: &'v str,
    message: &'v str,
}

impl<'v> Caught<'v> {
    fn read(v: &'v Value<'_>) -> Result<Caught<'v>> {
        let f = Fields::new(
            v,
            Code::InvalidRequest,
            "error",
            &["code", "path", "message"],
        )?;
        Ok(Caught {
            code: Code::from_name(f.string("code")?),
            path: f.string("path")?,
            message: f.string("message")?,
        })
    }
}

/// The members of a ledger task the gate reads (the others are ignored).
struct Task<'v, 'a> {
    value: &'v Value<'a>,
    id: &'v str,
    state: &'v str,
    tool: &'v str,
    digest: &'v str,
    /// What its quorum still needs, when it is waiting for more approvals.
    needed: Option<Needed>,
}

impl<'v, 'a> Task<'v, 'a> {
    fn read(v: &'v Value<'a>) -> Result<Task<'v, 'a>> {
        let text = |p: &str| {
            v.pointer(p).and_then(Value::as_str).ok_or_else(|| {
                Error::new(
                    Code::InvalidRequest,
                    format!("a task needs a string at {p}"),
                )
            })
        };
        let digest = text("/action_digest")?;
        short_fingerprint(digest).map_err(|e| e.in_key("action_digest"))?;
        let state = text("/state")?;
        let needed = Needed::read(v)?.filter(|n| waiting(state) && n.waits());
        Ok(Task {
            value: v,
            id: text("/id")?,
            state,
            tool: text("/action/tool")?,
            digest,
            needed,
        })
    }

    fn get(&self, pointer: &str) -> Option<&'v Value<'a>> {
        self.value.pointer(pointer)
    }

    /// An item of a decided batch carries the batch's decision record (`batch_digest` where a
    /// task's record has `action_digest`): the ledger claims it only as an item.
    fn unit(&self) -> Unit {
        match self.get("/approval/batch_digest") {
            Some(Value::String(_)) => Unit::Item,
            _ => Unit::Task,
        }
    }

    /// The action to claim with: the amendment when the task was amended and `presented` is
    /// the model's unchanged proposal, else `presented`.
    fn to_claim(&self, presented: &Value<'_>) -> OwnedValue {
        // The proposal differs from the task's action only after an amendment.
        let proposal = self.get("/proposed_digest").and_then(Value::as_str);
        if proposal.is_some_and(|p| p != self.digest)
            && proposal == Some(fingerprint(presented).to_string().as_str())
        {
            if let Some(action) = self.get("/action") {
                return action.clone().into_owned();
            }
        }
        presented.clone().into_owned()
    }
}

/// What a refusal about a task adds to its common members.
enum Extra<'v, 'a> {
    None,
    Drift {
        approved_args: &'v Value<'a>,
        drift: Vec<&'v str>,
    },
    Reasons(&'v Value<'a>),
}

/// `{"error", "task_id", "state", "tool", "fingerprint", "short_fingerprint", "message", ...}`.
fn task_refusal(task: &Task<'_, '_>, code: &str, extra: Extra<'_, '_>) -> Refusal {
    let (id, state, tool) = (task.id, task.state, task.tool);
    let message = match (&extra, code) {
        (
            Extra::Drift {
                approved_args,
                drift,
            },
            _,
        ) => format!(
            "These arguments are not the approved ones (they differ at {}); nothing ran. The \
             approved call is {tool} with {}: call it with exactly these arguments, or propose \
             a new call.",
            drift.join(", "),
            canonicalize(approved_args)
        ),
        (_, "already_claimed") => {
            format!(
                "This approved call was already dispatched (state {state}); it does not run again."
            )
        }
        _ if waiting(state) => match &task.needed {
            Some(needed) => needed.message(tool, state),
            None => format!("{tool} is waiting for a person's approval ({state}); nothing ran."),
        },
        _ => format!("{tool} may not run ({code}, state {state}); nothing ran."),
    };
    let mut members = vec![
        ("error", string(code)),
        ("task_id", string(id)),
        ("state", string(state)),
        ("tool", string(tool)),
        ("fingerprint", string(task.digest)),
        (
            "short_fingerprint",
            string(&short_fingerprint(task.digest).unwrap_or_default()),
        ),
        ("message", string(&message)),
    ];
    if let (Some(needed), false) = (&task.needed, matches!(extra, Extra::Drift { .. })) {
        members.push(("quorum", needed.to_value()));
    }
    match extra {
        Extra::None => {}
        Extra::Drift {
            approved_args,
            drift,
        } => {
            members.push(("approved_args", approved_args.clone().into_owned()));
            members.push(("drift", strings(&drift)));
        }
        Extra::Reasons(reasons) => members.push(("reasons", reasons.clone().into_owned())),
    }
    if code == "already_claimed" && matches!(state, "succeeded" | "failed") {
        let result = task.get("/result").cloned().unwrap_or(Value::Null);
        members.push(("result", result.into_owned()));
    }
    Refusal {
        payload: object(members),
        bad_args: false,
    }
}

/// The part of the ledger's view of a batch (`ledger.batch`) a reviewer needs to find and
/// decide it: `{"id", "approval_id", "digest", "short_fingerprint", "state", "size"}`.
fn batch_of(v: Option<&Value<'_>>) -> Result<Option<OwnedValue>> {
    let Some(v) = v.filter(|v| !matches!(v, Value::Null)) else {
        return Ok(None);
    };
    let text = |p: &str| {
        v.pointer(p).and_then(Value::as_str).ok_or_else(|| {
            Error::new(
                Code::InvalidRequest,
                format!("a batch needs a string at {p}"),
            )
            .in_key("batch")
        })
    };
    let digest = text("/digest")?;
    let short = short_fingerprint(digest).map_err(|e| e.in_key("digest").in_key("batch"))?;
    let Some(Value::Array(items)) = v.pointer("/items") else {
        return Err(Error::new(Code::InvalidRequest, "a batch needs its items").in_key("batch"));
    };
    Ok(Some(object(vec![
        ("id", string(text("/id")?)),
        ("approval_id", string(text("/approval_id")?)),
        ("digest", string(digest)),
        ("short_fingerprint", string(&short)),
        ("state", string(text("/state")?)),
        (
            "size",
            super::values::int(i64::try_from(items.len()).unwrap_or(i64::MAX)),
        ),
    ])))
}

/// A pause: the reviewer's request and what a framework without a pause tells the model. An
/// item's request names its `batch`, which the reviewer decides once for all of its calls.
fn pause(
    task: &Task<'_, '_>,
    code: &str,
    reasons: Option<&Value<'_>>,
    batch: Option<OwnedValue>,
) -> Gate {
    let action = task.get("/action").cloned().unwrap_or(Value::Null);
    let approval_id = task.get("/approval_id").cloned().unwrap_or(Value::Null);
    let mut members = vec![
        ("type", string("actionseal_approval")),
        ("task_id", string(task.id)),
        ("state", string(task.state)),
        ("approval_id", approval_id.into_owned()),
        ("tool", string(task.tool)),
        ("action", action.into_owned()),
        ("fingerprint", string(task.digest)),
        (
            "short_fingerprint",
            string(&short_fingerprint(task.digest).unwrap_or_default()),
        ),
    ];
    // The reviewer sees who already approved, in which role and through which delegation.
    if task.needed.is_some() {
        if let Some(quorum) = task.get("/quorum") {
            members.push(("quorum", quorum.clone().into_owned()));
        }
    }
    if let Some(batch) = batch {
        members.push(("batch", batch));
    }
    let request = object(members);
    let extra = reasons.map_or(Extra::None, Extra::Reasons);
    Gate::Pause {
        task_id: task.id.to_owned(),
        request,
        refusal: task_refusal(task, code, extra),
    }
}

/// The gate after a claim that returned (`ledger.claim`'s result).
fn claimed(out: &Value<'_>) -> Result<Gate> {
    let result = out.pointer("/result").and_then(Value::as_str);
    let need = |p: &str| {
        out.pointer(p).ok_or_else(|| {
            Error::new(
                Code::InvalidRequest,
                format!("a {} outcome needs {p}", result.unwrap_or("claim")),
            )
        })
    };
    match result {
        Some("claimed") => {
            let claim = need("/claim")?;
            // An item's claim carries the item (its frozen action and inclusion proof).
            let unit = match claim.pointer("/item") {
                None | Some(Value::Null) => Unit::Task,
                Some(_) => Unit::Item,
            };
            return Ok(Gate::Run {
                claim: claim.clone().into_owned(),
                unit,
            });
        }
        Some("tool_args_drift" | "awaiting_reapproval" | "rejected_pre_dispatch") => {}
        _ => {
            return Err(Error::new(
                Code::InvalidRequest,
                "a claim outcome's result is claimed, tool_args_drift, awaiting_reapproval or \
                 rejected_pre_dispatch",
            )
            .in_key("result"))
        }
    }
    let task = Task::read(need("/task")?).map_err(|e| e.in_key("task"))?;
    let reasons = need("/verdict/reasons")?;
    match result {
        Some("tool_args_drift") => {
            let Some(Value::Array(drift)) = out.pointer("/verdict/drift") else {
                return Err(Error::new(
                    Code::InvalidRequest,
                    "a tool_args_drift outcome needs /verdict/drift",
                ));
            };
            let drift = drift.iter().filter_map(Value::as_str).collect();
            let extra = Extra::Drift {
                approved_args: need("/approved_action/args")?,
                drift,
            };
            Ok(Gate::Refuse(task_refusal(&task, "tool_args_drift", extra)))
        }
        Some("awaiting_reapproval") => Ok(pause(&task, "awaiting_reapproval", Some(reasons), None)),
        _ => Ok(Gate::Refuse(task_refusal(
            &task,
            "rejected_pre_dispatch",
            Extra::Reasons(reasons),
        ))),
    }
}

#[cfg(test)]
mod tests;
