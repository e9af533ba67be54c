//! Audit events and the chain verifier.
//!
//! Every ledger operation that changes or refuses something appends one event in the same
//! transaction. An event is a fixed-shape JSON object (every member always present, `null` or
//! empty when it does not apply):
//!
//! `{"seq", "at", "tenant", "task", "kind", "actor", "action_digest", "approved_digest",
//! "decision_id", "fence", "outcome", "reasons", "drift", "state", "detail", "prev"}`
//!
//! `prev` is the previous event's digest (`null` for seq 1), and an event's digest is the
//! fingerprint of its canonical JSON. Events hold digests, identities and JSON Pointers, never
//! argument values. An exported audit is JSON Lines: each line is the event with its `digest`
//! added, so an edited, removed or reordered event is found at its own seq in any runtime.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::fields::Fields;
use crate::model::ledger::state::State;
use crate::model::ledger::values::{int, object, opt_string, string, strings};
use crate::Options;

macro_rules! kinds {
    ($($(#[doc = $doc:literal])* $variant:ident => $name:literal,)*) => {
        /// What an audit event records.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EventKind {
            $($(#[doc = $doc])* $variant,)*
        }

        impl EventKind {
            /// Every kind.
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant,)*];

            /// The stable snake_case name.
            pub const fn as_str(self) -> &'static str {
                match self { $(EventKind::$variant => $name,)* }
            }

            /// The kind with this name.
            pub fn from_name(s: &str) -> Option<EventKind> {
                match s { $($name => Some(EventKind::$variant),)* _ => None }
            }
        }
    };
}

kinds! {
    /// A task was proposed: who proposed it, for whom, which tool, contract and digest.
    Proposed => "proposed",
    /// The same identity and digest was proposed again; the same task was returned.
    ProposeDuplicate => "propose_duplicate",
    /// A proposal was refused (`task_conflict`).
    ProposeRefused => "propose_refused",
    /// A reviewer's decision was recorded.
    Decided => "decided",
    /// A decision callback was delivered again with the same content.
    DecisionDuplicate => "decision_duplicate",
    /// A decision was refused (conflict, mismatch, task not awaiting one).
    DecisionRefused => "decision_refused",
    /// An executor claimed the task: lease, fence and idempotency key.
    Claimed => "claimed",
    /// A claim was refused (already claimed, not claimable, over budget).
    ClaimRefused => "claim_refused",
    /// A claim presented another action than the approved one.
    ToolArgsDrift => "tool_args_drift",
    /// A claim found the approval no longer holds: the task awaits re-approval.
    SentToReapproval => "sent_to_reapproval",
    /// A claim's check rejected the task before dispatch.
    RejectedPreDispatch => "rejected_pre_dispatch",
    /// An executor reported the outcome of its claim.
    Completed => "completed",
    /// A completion was refused (stale fence, lease expired, not claimed).
    CompleteRefused => "complete_refused",
    /// A claim's lease ran out without completion: the outcome is in doubt.
    LeaseExpired => "lease_expired",
    /// The business system's answer about a task in doubt was recorded.
    Reconciled => "reconciled",
    /// A reconciliation was refused (the outcome was not in doubt).
    ReconcileRefused => "reconcile_refused",
    /// An approval was revoked.
    Revoked => "revoked",
}

/// One audit event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Position in the chain, from 1, without gaps.
    pub seq: i64,
    /// When, by the ledger's clock (ms since the epoch).
    pub at: i64,
    /// The tenant of the task.
    pub tenant: String,
    /// The task id.
    pub task: Option<String>,
    /// What happened.
    pub kind: EventKind,
    /// Who did it: the proposer, the approver, the executor, the reconciler, or `ledger`.
    pub actor: String,
    /// The digest of the action concerned (proposed or presented).
    pub action_digest: Option<Digest>,
    /// The digest of the approved action, when there is an approval.
    pub approved_digest: Option<Digest>,
    /// The decision concerned.
    pub decision_id: Option<String>,
    /// The fence token concerned.
    pub fence: Option<i64>,
    /// The verdict outcome, the reported or observed outcome, or the refusal's error code.
    pub outcome: Option<String>,
    /// The check's reasons, when a check ran.
    pub reasons: Vec<String>,
    /// JSON Pointers where a presented action drifted from the approved one.
    pub drift: Vec<String>,
    /// The task's state after the event.
    pub state: Option<State>,
    /// Identities and digests specific to the kind (never argument values).
    pub detail: OwnedValue,
    /// The previous event's digest.
    pub prev: Option<Digest>,
}

const FIELDS: [&str; 16] = [
    "seq",
    "at",
    "tenant",
    "task",
    "kind",
    "actor",
    "action_digest",
    "approved_digest",
    "decision_id",
    "fence",
    "outcome",
    "reasons",
    "drift",
    "state",
    "detail",
    "prev",
];

fn opt_digest(d: &Option<Digest>) -> OwnedValue {
    d.map_or(Value::Null, |d| string(&d.to_string()))
}

impl Event {
    /// The event as JSON, without its digest.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("seq", int(self.seq)),
            ("at", int(self.at)),
            ("tenant", string(&self.tenant)),
            ("task", opt_string(self.task.as_deref())),
            ("kind", string(self.kind.as_str())),
            ("actor", string(&self.actor)),
            ("action_digest", opt_digest(&self.action_digest)),
            ("approved_digest", opt_digest(&self.approved_digest)),
            ("decision_id", opt_string(self.decision_id.as_deref())),
            ("fence", self.fence.map_or(Value::Null, int)),
            ("outcome", opt_string(self.outcome.as_deref())),
            ("reasons", strings(&self.reasons)),
            ("drift", strings(&self.drift)),
            ("state", opt_string(self.state.map(State::as_str))),
            ("detail", self.detail.clone()),
            ("prev", opt_digest(&self.prev)),
        ])
    }

    /// The canonical text of [`Event::to_value`]: what a ledger stores.
    pub fn canonical(&self) -> String {
        crate::canonicalize(&self.to_value())
    }

    /// The event's digest: the fingerprint of its canonical JSON.
    pub fn digest(&self) -> Digest {
        Digest::of(self.canonical().as_bytes())
    }

    /// One line of an exported audit: the canonical JSON of the event with its `digest`.
    pub fn line(canonical: &str, digest: &Digest) -> String {
        // Re-read so that `digest` takes its place in canonical key order.
        let v = crate::parse(canonical.as_bytes(), &Options::default())
            .map(|v| with_digest(v.into_owned(), digest))
            .unwrap_or(Value::Null);
        crate::canonicalize(&v)
    }

    /// Reads an event (without `digest`); problems are [`Code::AuditChainBroken`] at the field.
    pub fn from_value(v: &Value<'_>) -> Result<Event> {
        let f = Fields::new(v, Code::AuditChainBroken, "event", &FIELDS)?;
        let opt = |key: &str| -> Result<Option<String>> {
            match f.required(key)? {
                Value::Null => Ok(None),
                _ => f.identity(key).map(|s| Some(s.to_owned())),
            }
        };
        let opt_dig = |key: &str| -> Result<Option<Digest>> {
            match f.required(key)? {
                Value::Null => Ok(None),
                _ => f.digest(key).map(Some),
            }
        };
        let list = |key: &str| -> Result<Vec<String>> {
            match f.required(key)? {
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad(key, "must be an array of strings")),
                _ => Err(bad(key, "must be an array of strings")),
            }
        };
        let kind = f.string("kind")?;
        let state = match opt("state")? {
            None => None,
            Some(s) => Some(State::parse(&s).map_err(|_| bad("state", "is not a task state"))?),
        };
        let detail = f.required("detail")?;
        if !matches!(detail, Value::Object(_)) {
            return Err(bad("detail", "must be an object"));
        }
        Ok(Event {
            seq: f.integer("seq", 1)?,
            at: f.integer("at", 0)?,
            tenant: f.identity("tenant")?.to_owned(),
            task: opt("task")?,
            kind: EventKind::from_name(kind).ok_or_else(|| bad("kind", "is not an event kind"))?,
            actor: f.identity("actor")?.to_owned(),
            action_digest: opt_dig("action_digest")?,
            approved_digest: opt_dig("approved_digest")?,
            decision_id: opt("decision_id")?,
            fence: match f.required("fence")? {
                Value::Null => None,
                _ => Some(f.integer("fence", 0)?),
            },
            outcome: opt("outcome")?,
            reasons: list("reasons")?,
            drift: list("drift")?,
            state,
            detail: detail.clone().into_owned(),
            prev: opt_dig("prev")?,
        })
    }
}

fn bad(key: &str, what: &str) -> Error {
    Error::new(Code::AuditChainBroken, format!("{key} {what}")).in_key(key)
}

fn with_digest(v: OwnedValue, digest: &Digest) -> OwnedValue {
    let Value::Object(o) = v else { return v };
    let mut entries = o.into_entries();
    entries.push(("digest".into(), string(&digest.to_string())));
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}

/// Why a chain is broken, at the first broken seq.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The line is not an event (not JSON, a missing or unknown field, a bad value).
    Malformed,
    /// The event's content is not what its digest seals (edited).
    DigestMismatch,
    /// The event at this position has another seq (a removed or reordered event).
    SeqGap,
    /// The event's `prev` is not the previous event's digest (an event before it was replaced).
    PrevMismatch,
    /// The chain ends before the head the ledger recorded (events removed from the end).
    HeadMismatch,
}

impl Problem {
    /// The stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Problem::Malformed => "malformed",
            Problem::DigestMismatch => "digest_mismatch",
            Problem::SeqGap => "seq_gap",
            Problem::PrevMismatch => "prev_mismatch",
            Problem::HeadMismatch => "head_mismatch",
        }
    }
}

/// The result of walking a chain.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditReport {
    /// Events read before the first break (all of them when the chain holds).
    pub events: i64,
    /// The digest of the last good event.
    pub head: Option<Digest>,
    /// The first broken seq and why.
    pub broken: Option<(i64, Problem)>,
}

impl AuditReport {
    /// `{"valid", "events", "head", "broken_seq", "problem"}`.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("valid", Value::Bool(self.broken.is_none())),
            ("events", int(self.events)),
            ("head", opt_digest(&self.head)),
            (
                "broken_seq",
                self.broken.map_or(Value::Null, |(s, _)| int(s)),
            ),
            ("problem", opt_string(self.broken.map(|(_, p)| p.as_str()))),
        ])
    }

    /// `Ok` when the chain holds, else [`Code::AuditChainBroken`] naming the seq.
    pub fn into_result(self) -> Result<AuditReport> {
        match self.broken {
            None => Ok(self),
            Some((seq, p)) => Err(Error::new(
                Code::AuditChainBroken,
                format!("the audit chain breaks at seq {seq}: {}", p.as_str()),
            )),
        }
    }
}

/// Walks an exported audit (JSON Lines, one event with its `digest` per line; empty lines
/// ignored) and names the first broken seq. `head` is the (seq, digest) the ledger recorded as
/// its last event, when known: a chain that stops short of it lost events at its end.
pub fn verify_audit(jsonl: &[u8], head: Option<(i64, Digest)>) -> AuditReport {
    let mut report = AuditReport {
        events: 0,
        head: None,
        broken: None,
    };
    let options = Options::default();
    for line in jsonl.split(|b| *b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let expected = report.events + 1;
        let problem = match check_line(line, expected, report.head.as_ref(), &options) {
            Ok(digest) => {
                report.events = expected;
                report.head = Some(digest);
                continue;
            }
            Err(p) => p,
        };
        report.broken = Some((expected, problem));
        return report;
    }
    if let Some((seq, digest)) = head {
        let ends_there = report.events == seq && report.head.is_some_and(|h| h.ct_eq(&digest));
        if !ends_there {
            let at = if report.events < seq {
                report.events + 1
            } else {
                seq
            };
            report.broken = Some((at, Problem::HeadMismatch));
        }
    }
    report
}

fn check_line(
    line: &[u8],
    expected: i64,
    prev: Option<&Digest>,
    options: &Options,
) -> std::result::Result<Digest, Problem> {
    let v = crate::parse(line, options).map_err(|_| Problem::Malformed)?;
    let Value::Object(o) = v else {
        return Err(Problem::Malformed);
    };
    let mut claimed = None;
    let mut rest = Vec::with_capacity(o.len());
    for (k, v) in o.into_entries() {
        if k == "digest" {
            claimed = v.as_str().and_then(|s| s.parse::<Digest>().ok());
        } else {
            rest.push((k, v));
        }
    }
    let claimed = claimed.ok_or(Problem::Malformed)?;
    let body = Value::Object(Object::from_entries(rest).map_err(|_| Problem::Malformed)?);
    let event = Event::from_value(&body).map_err(|_| Problem::Malformed)?;
    if event.seq != expected {
        return Err(Problem::SeqGap);
    }
    if !crate::fingerprint(&body).ct_eq(&claimed) {
        return Err(Problem::DigestMismatch);
    }
    match (event.prev, prev) {
        (None, None) => {}
        (Some(a), Some(b)) if a.ct_eq(b) => {}
        _ => return Err(Problem::PrevMismatch),
    }
    Ok(claimed)
}
