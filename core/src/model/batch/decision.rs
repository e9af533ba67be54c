//! A decision over a batch: an approval record whose subject is the batch's header.
//!
//! `{"batch": <the frozen header>, "batch_digest", "approval_id", "decision_id", "decision",
//! "approver", "decided_at", "expires_at"}`, with `proposed_digest` (the batch as the model
//! proposed it, when a reviewer deselected items), `role`, `on_behalf_of` and `delegation`
//! exactly as in an approval of one action ([`crate::Approval`]). It is signed, proven by a
//! passkey, counted in a quorum and decided through a delegation the same way; the two
//! records spell their subject with their own members, so neither reads as the other.

use super::tree::Header;
use crate::error::Result;
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::approval::{decision_record, read_as, DecisionInput, Subject};
use crate::model::decision::Decision;

/// A batch decision record, read.
#[derive(Clone, Debug)]
pub struct BatchDecision {
    record: OwnedValue,
    header: Header,
    batch_digest: Digest,
    decision: Decision,
    decided_at: i64,
    expires_at: i64,
    approver: String,
}

impl BatchDecision {
    /// Records a decision about the batch `header` describes (a [`super::Batch`]'s
    /// [`super::Batch::header`]).
    pub fn decide(header: &Header, d: &DecisionInput<'_>) -> Result<BatchDecision> {
        let frozen = header.to_value();
        let digest = crate::fingerprint(&frozen);
        let record = decision_record(Subject::Batch, frozen, digest, d)?;
        BatchDecision::from_value(&record)
    }

    /// Reads a record, checking its shape ([`crate::Code::InvalidApproval`], or the header's
    /// own error under `/batch`). Whether `batch_digest` is the header's fingerprint is
    /// [`BatchDecision::is_sealed`].
    pub fn from_value(v: &Value<'_>) -> Result<BatchDecision> {
        let r = read_as(v, Subject::Batch)?;
        Ok(BatchDecision {
            header: Header::from_value(r.frozen)?,
            batch_digest: r.action_digest,
            decision: r.decision,
            decided_at: r.decided_at,
            expires_at: r.expires_at,
            approver: r.approver.to_owned(),
            record: v.clone().into_owned(),
        })
    }

    /// The record.
    pub fn value(&self) -> &OwnedValue {
        &self.record
    }

    /// The frozen header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The batch fingerprint the record claims.
    pub fn batch_digest(&self) -> Digest {
        self.batch_digest
    }

    /// Whether `batch_digest` is the fingerprint of the frozen header.
    pub fn is_sealed(&self) -> bool {
        let frozen = self.record.as_object().and_then(|o| o.get("batch"));
        frozen.is_some_and(|h| self.batch_digest.ct_eq(&crate::fingerprint(h)))
    }

    /// Approved or rejected.
    pub fn decision(&self) -> Decision {
        self.decision
    }

    /// When the reviewer decided (ms since the epoch).
    pub fn decided_at(&self) -> i64 {
        self.decided_at
    }

    /// When the decision stops holding (ms since the epoch).
    pub fn expires_at(&self) -> i64 {
        self.expires_at
    }

    /// Who decided.
    pub fn approver(&self) -> &str {
        &self.approver
    }
}
