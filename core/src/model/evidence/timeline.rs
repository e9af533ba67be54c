//! What a verified bundle tells: who proposed, amended, decided, claimed and reported, when,
//! and what the checkpoint it was verified against is.

use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::ledger::values::{int, object, opt_string, string, strings};
use crate::model::ledger::{EventKind, State};
use crate::model::proof::Signer;

/// One event of the task, as the timeline tells it.
#[derive(Clone, Debug)]
pub struct Step {
    /// Its leaf index in the log.
    pub index: u64,
    /// When the ledger recorded it (ms since the epoch).
    pub at: i64,
    /// What happened.
    pub kind: EventKind,
    /// Who did it.
    pub actor: String,
    /// The task's state after it.
    pub state: Option<State>,
    /// The outcome, decision or refusal's code.
    pub outcome: Option<String>,
    /// The action concerned.
    pub action_digest: Option<Digest>,
    /// For a decision: how it was proven (`None`: a bare decision the ledger recorded as
    /// given), with the time its key was judged at and where that time comes from (`ledger`:
    /// when the ledger recorded it; `rfc3161`: the decision's time-stamp token).
    pub proof: Option<(Signer, i64, &'static str)>,
    /// For a decision through a delegation: whom it counts for.
    pub on_behalf_of: Option<String>,
    /// JSON Pointers an amendment changed, or where a claim's action drifted.
    pub drift: Vec<String>,
    /// For a claim: the fence it was given.
    pub fence: Option<i64>,
}

/// Where the bundle's proofs lead: the checkpoint, and how its time is known.
#[derive(Clone, Debug)]
pub struct LogView {
    /// The log's origin line.
    pub origin: String,
    /// How many events the checkpoint covers.
    pub size: u64,
    /// Its root (standard base64, as in the checkpoint).
    pub root: String,
    /// A time the ledger does not choose by which the checkpoint existed, and where it comes
    /// from (`rfc3161` or `witness`); `None` when the bundle carries neither.
    pub time: Option<(i64, &'static str)>,
    /// The names of the trusted witnesses that cosigned it.
    pub witnesses: Vec<String>,
}

/// A verified bundle's story (see [`crate::evidence::verify_evidence`]).
#[derive(Clone, Debug)]
pub struct Timeline {
    /// The task.
    pub task: String,
    /// Its tenant, tool and subject, from the action.
    pub tenant: String,
    pub tool: String,
    pub subject: String,
    /// The contract's fingerprint.
    pub contract: Digest,
    /// The state the task was in at export.
    pub state: Option<State>,
    /// Every event of the task, in log order.
    pub steps: Vec<Step>,
    /// The checkpoint.
    pub log: LogView,
    /// When the ledger exported the bundle, and who asked.
    pub exported_at: i64,
    pub exported_by: String,
    /// The sensitive values the bundle's disclosures prove (issue 29), each `(pointer, class,
    /// value)`: empty unless its exporter disclosed some.
    pub disclosed: Vec<(String, String, OwnedValue)>,
}

fn opt_digest(d: &Option<Digest>) -> OwnedValue {
    d.map_or(Value::Null, |d| string(&d.to_string()))
}

impl Step {
    /// `{"index", "at", "kind", "actor", "state", "outcome", "action_digest", "signer",
    /// "verified_at", "verified_by", "on_behalf_of", "drift", "fence"}`, `null` where it does
    /// not apply.
    pub fn to_value(&self) -> OwnedValue {
        let (signer, verified_at, verified_by) = match &self.proof {
            Some((s, at, source)) => (s.to_value(), int(*at), string(source)),
            None => (Value::Null, Value::Null, Value::Null),
        };
        object(vec![
            ("index", int(self.index as i64)),
            ("at", int(self.at)),
            ("kind", string(self.kind.as_str())),
            ("actor", string(&self.actor)),
            ("state", opt_string(self.state.map(State::as_str))),
            ("outcome", opt_string(self.outcome.as_deref())),
            ("action_digest", opt_digest(&self.action_digest)),
            ("signer", signer),
            ("verified_at", verified_at),
            ("verified_by", verified_by),
            ("on_behalf_of", opt_string(self.on_behalf_of.as_deref())),
            ("drift", strings(&self.drift)),
            ("fence", self.fence.map_or(Value::Null, int)),
        ])
    }
}

impl Timeline {
    /// The timeline as JSON: the task's names, `state`, `steps`, `log` (`origin`, `size`,
    /// `root`, `time`, `time_source`, `witnesses`) and the export's time and actor, and
    /// `disclosed` (`[{"pointer", "class", "value"}]`) when the bundle proves sensitive values.
    /// The same bundle gives the same bytes in every runtime.
    pub fn to_value(&self) -> OwnedValue {
        let (time, source) = match self.log.time {
            Some((at, source)) => (int(at), string(source)),
            None => (Value::Null, Value::Null),
        };
        let disclosed = (!self.disclosed.is_empty()).then(|| {
            (
                "disclosed",
                super::verify::disclosed::to_value(&self.disclosed),
            )
        });
        let mut members = vec![
            ("task", string(&self.task)),
            ("tenant", string(&self.tenant)),
            ("tool", string(&self.tool)),
            ("subject", string(&self.subject)),
            ("contract", string(&self.contract.to_string())),
            ("state", opt_string(self.state.map(State::as_str))),
            (
                "steps",
                Value::Array(self.steps.iter().map(Step::to_value).collect()),
            ),
            (
                "log",
                object(vec![
                    ("origin", string(&self.log.origin)),
                    ("size", int(self.log.size as i64)),
                    ("root", string(&self.log.root)),
                    ("time", time),
                    ("time_source", source),
                    ("witnesses", strings(&self.log.witnesses)),
                ]),
            ),
            ("exported_at", int(self.exported_at)),
            ("exported_by", string(&self.exported_by)),
        ];
        members.extend(disclosed);
        object(members)
    }
}
