//! The decision envelope over a batch (issue 28) that a reviewer's approval system sends
//! back: it names the batch and the batch digest the reviewer saw, where a task's envelope
//! names the job, the request and the action digest.

use crate::error::{Code, Result};
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::approval::{Decision, DecisionInput};
use crate::model::fields::Fields;
use crate::model::ledger::values::{int, object, string};

/// `{"approval_id", "decision_id", "batch_id", "batch_digest", "decision", "approver",
/// "decided_at", "expires_at"}`; times integer ms since the epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchEnvelope {
    /// The batch's approval id.
    pub approval_id: String,
    /// The identity of this decision callback: repeated deliveries carry the same one.
    pub decision_id: String,
    /// The batch.
    pub batch_id: String,
    /// The fingerprint of the batch document the reviewer saw (after any deselection).
    pub batch_digest: Digest,
    /// Approved or rejected.
    pub decision: Decision,
    /// Who decided.
    pub approver: String,
    /// When (ms).
    pub decided_at: i64,
    /// Until when the decision holds (ms); after `decided_at`.
    pub expires_at: i64,
}

const FIELDS: [&str; 8] = [
    "approval_id",
    "decision_id",
    "batch_id",
    "batch_digest",
    "decision",
    "approver",
    "decided_at",
    "expires_at",
];

impl BatchEnvelope {
    /// Reads an envelope; problems are [`Code::InvalidDecision`] at the field.
    pub fn from_value(v: &Value<'_>) -> Result<BatchEnvelope> {
        let f = Fields::new(v, Code::InvalidDecision, "batch decision", &FIELDS)?;
        let decision = match f.one_of("decision", &["approved", "rejected"])? {
            "approved" => Decision::Approved,
            _ => Decision::Rejected,
        };
        let decided_at = f.integer("decided_at", 0)?;
        let expires_at = f.integer("expires_at", 0)?;
        if expires_at <= decided_at {
            return Err(crate::Error::new(
                Code::InvalidDecision,
                "expires_at must be after decided_at",
            )
            .in_key("expires_at"));
        }
        Ok(BatchEnvelope {
            approval_id: f.identity("approval_id")?.to_owned(),
            decision_id: f.identity("decision_id")?.to_owned(),
            batch_id: f.identity("batch_id")?.to_owned(),
            batch_digest: f.digest("batch_digest")?,
            decision,
            approver: f.identity("approver")?.to_owned(),
            decided_at,
            expires_at,
        })
    }

    /// The envelope as JSON (what the ledger stores and compares).
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("approval_id", string(&self.approval_id)),
            ("decision_id", string(&self.decision_id)),
            ("batch_id", string(&self.batch_id)),
            ("batch_digest", string(&self.batch_digest.to_string())),
            ("decision", string(self.decision.as_str())),
            ("approver", string(&self.approver)),
            ("decided_at", int(self.decided_at)),
            ("expires_at", int(self.expires_at)),
        ])
    }

    /// As [`super::DecisionEnvelope::check_time`], against when the batch began awaiting
    /// this decision (its proposal or last deselection).
    pub fn check_time(&self, round_started_at: i64, now: i64) -> Result<()> {
        super::decision::check_time(self.decided_at, round_started_at, now)
    }

    /// The decision as core's record input; `proposed_digest` the model's batch digest when
    /// a reviewer deselected items.
    pub fn input(&self, proposed_digest: Option<Digest>) -> DecisionInput<'_> {
        DecisionInput {
            approval_id: &self.approval_id,
            decision_id: &self.decision_id,
            decision: self.decision,
            approver: &self.approver,
            decided_at: self.decided_at,
            expires_at: self.expires_at,
            proposed_digest,
            role: None,
            on_behalf_of: None,
            delegation: None,
        }
    }
}
