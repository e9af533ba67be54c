//! Tool contracts: what a tool is, what arguments it takes, and when a call needs a person.
//!
//! ```json
//! {"tool": "refund_create", "version": "3", "effect": "write",
//!  "args": {"type": "object", "properties": {...}, "required": [...]},
//!  "approval": {"when": [{"pointer": "/amount_minor", "op": "gt", "value": 10000}]},
//!  "cost_minor": 25}
//! ```
//!
//! These six fields are required; three more are optional: `batch`, which lets calls be
//! decided as a batch and bounds one (see [`crate::batch`]), `sensitive`, the places whose
//! values are frozen as salted commitments (see [`crate::sensitive`]), and `max_approval_ms`, the
//! longest an approval of a call may hold (`expires_at - decided_at`, a positive integer number of
//! milliseconds; a "10-minute approval" is 600000). No other field is allowed. `args` is the
//! JSON Schema agent frameworks already give the model (see [`crate::model::schema`]); its top
//! level must be an object schema. `tool` and `version` are identifiers (see
//! [`crate::model::fields`]). A contract has its own fingerprint, which every action made
//! under it carries.
//!
//! `approval` may also ask for a quorum of distinct approvers, in roles and order, and name
//! duties whose holder may not approve (see [`crate::model::quorum`]).

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::held::Held;
use crate::json::value::{OwnedValue, Value};
use crate::model::fields::Fields;
use crate::model::quorum::{Authority, Duty, Quorum};
use crate::model::rule::{ApprovalRule, Requirement};
use crate::model::schema::Schema;
use std::sync::Arc;

/// Whether a tool only reads or also changes something.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Reads only.
    Read,
    /// Has a side effect.
    Write,
}

/// A loaded, validated tool contract. Cloning is cheap (shared).
#[derive(Clone, Debug)]
pub struct Contract(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    document: OwnedValue,
    digest: Digest,
    /// `digest` as text, compared with every action's `contract` field.
    digest_text: String,
    tool: String,
    version: String,
    effect: Effect,
    schema: Schema,
    approval: Authority,
    cost_minor: i64,
    max_approval_ms: Option<i64>,
    batch: Option<crate::model::batch::Policy>,
    sensitive: Option<crate::model::sensitive::Sensitive>,
}

const FIELDS: &[&str] = &[
    "tool",
    "version",
    "effect",
    "args",
    "approval",
    "cost_minor",
    "max_approval_ms",
    "batch",
    "sensitive",
];

impl Contract {
    /// Loads a contract. A malformed field is [`Code::InvalidContract`]; a schema outside the
    /// supported subset is [`Code::UnsupportedSchema`] or [`Code::InvalidSchema`], with the
    /// path inside the contract (`/args/...`).
    pub fn from_value(document: &Value<'_>) -> Result<Contract> {
        let f = Fields::new(document, Code::InvalidContract, "contract", FIELDS)?;
        let tool = f.identity("tool")?.to_owned();
        let version = f.identity("version")?.to_owned();
        let effect = match f.one_of("effect", &["read", "write"])? {
            "read" => Effect::Read,
            _ => Effect::Write,
        };
        let args = f.required("args")?;
        let is_object_schema = args
            .as_object()
            .and_then(|o| o.get("type"))
            .and_then(Value::as_str)
            == Some("object");
        if !is_object_schema {
            return Err(Error::new(
                Code::InvalidContract,
                "args must be a JSON Schema with \"type\": \"object\"",
            )
            .in_key("args"));
        }
        let schema = Schema::compile(args).map_err(|e| e.in_key("args"))?;
        let approval =
            Authority::from_value(f.required("approval")?).map_err(|e| e.in_key("approval"))?;
        let cost_minor = f.integer("cost_minor", 0)?;
        let max_approval_ms = match f.get("max_approval_ms") {
            Some(_) => Some(f.integer("max_approval_ms", 1)?),
            None => None,
        };
        let batch = match f.get("batch") {
            Some(b) => {
                Some(crate::model::batch::Policy::from_value(b).map_err(|e| e.in_key("batch"))?)
            }
            None => None,
        };
        let sensitive = match f.get("sensitive") {
            Some(s) => Some(
                crate::model::sensitive::Sensitive::from_value(s)
                    .map_err(|e| e.in_key("sensitive"))?,
            ),
            None => None,
        };
        let document = document.clone().into_owned();
        let digest = crate::fingerprint(&document);
        Ok(Contract(Arc::new(Inner {
            digest_text: digest.to_string(),
            digest,
            document,
            tool,
            version,
            effect,
            schema,
            approval,
            cost_minor,
            max_approval_ms,
            batch,
            sensitive,
        })))
    }

    /// The contract's fingerprint.
    pub fn digest(&self) -> Digest {
        self.0.digest
    }

    /// The fingerprint as text (`sha256:` + hex).
    pub fn digest_text(&self) -> &str {
        &self.0.digest_text
    }

    /// The contract document as loaded.
    pub fn document(&self) -> &OwnedValue {
        &self.0.document
    }

    /// The tool name.
    pub fn tool(&self) -> &str {
        &self.0.tool
    }

    /// The contract version.
    pub fn version(&self) -> &str {
        &self.0.version
    }

    /// Read or write.
    pub fn effect(&self) -> Effect {
        self.0.effect
    }

    /// The cost of one call, in minor units of the budget's currency.
    pub fn cost_minor(&self) -> i64 {
        self.0.cost_minor
    }

    /// The longest an approval of a call may hold (`expires_at - decided_at`, in ms), if the
    /// contract caps it. [`crate::check`] treats an approval that holds longer as invalid.
    pub fn max_approval_ms(&self) -> Option<i64> {
        self.0.max_approval_ms
    }

    /// Whether the tool's calls may be decided as a batch, and its limits (see
    /// [`crate::batch`]); `None`: one at a time.
    pub fn batch(&self) -> Option<&crate::model::batch::Policy> {
        self.0.batch.as_ref()
    }

    /// The places whose values are sensitive, with their classes (see [`crate::sensitive`]);
    /// `None`: every value is kept as given.
    pub fn sensitive(&self) -> Option<&crate::model::sensitive::Sensitive> {
        self.0.sensitive.as_ref()
    }

    /// The approval rule: when a call needs a person.
    pub fn approval(&self) -> &ApprovalRule {
        &self.0.approval.rule
    }

    /// The quorum the contract asks for, if any (without one, a call needs one approval,
    /// which any rejection vetoes).
    pub fn quorum(&self) -> Option<&Quorum> {
        self.0.approval.quorum.as_ref()
    }

    /// The duties whose holder may not approve: under a quorum `subject` and `proposer`
    /// always and `amender` when listed; without one, those listed (see [`Duty`]).
    pub fn separation(&self) -> &[Duty] {
        &self.0.approval.separation
    }

    /// Validates call arguments; errors carry paths relative to the arguments.
    pub fn validate_args(&self, args: &Value<'_>) -> Result<()> {
        self.0.schema.validate(args)
    }

    /// Whether a call with these arguments needs an approval, and which rule decided. The
    /// arguments are validated first: invalid arguments are an error, never "no approval".
    pub fn requires_approval(&self, args: &Value<'_>) -> Result<Requirement> {
        self.validate_args(args)?;
        Ok(self.requirement_of_valid(args, &Held::default()))
    }

    /// [`Contract::validate_args`] with the values in `held` (inside `args`: a frozen
    /// action's commitments) present but not validated.
    pub(crate) fn validate_args_holding(&self, args: &Value<'_>, held: &Held) -> Result<()> {
        self.0.schema.validate_holding(args, held)
    }

    /// The requirement of arguments already validated, the values in `held` held back (see
    /// [`ApprovalRule::evaluate_holding`](crate::model::rule::ApprovalRule)).
    pub(crate) fn requirement_of_valid(&self, args: &Value<'_>, held: &Held) -> Requirement {
        self.0.approval.rule.evaluate_holding(args, held)
    }
}

#[cfg(test)]
mod tests;
