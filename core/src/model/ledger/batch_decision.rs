//! The decision envelope over a batch (issue 28) that a reviewer's approval system sends
//! back: it names the batch and the batch digest the reviewer saw, where a task's envelope
//! names the job, the request and the action digest. Its role and delegation are a task
//! envelope's ([`super::envelope`]).

use crate::error::{Code, Result};
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::approval::{Decision, DecisionInput};
use crate::model::batch::BatchDecision;
use crate::model::fields::Fields;
use crate::model::ledger::envelope::{
    acting_entries, check_chain, record_members, Acting, Envelope,
};
use crate::model::ledger::values::{int, object, string};

/// `{"approval_id", "decision_id", "batch_id", "batch_digest", "decision", "approver",
/// "decided_at", "expires_at"}`, and optionally `"role"` and, together, `"on_behalf_of"` and
/// `"delegation"`, as in a task's envelope; times integer ms since the epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchEnvelope {
    /// The batch's approval id.
    pub approval_id: String,
    /// The identity of this decision callback: repeated deliveries carry the same one.
    pub decision_id: String,
    /// The batch: always named by a bare envelope; `None` in one derived from a signed or
    /// passkey-approved record, which names the batch by its approval id and digest only
    /// (a remainder's id is not derived from its header).
    pub batch_id: Option<String>,
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
    /// The role the approver decides in, under a quorum.
    pub role: Option<String>,
    /// Whom the approver decides for, through `delegation`: the counting identity.
    pub on_behalf_of: Option<String>,
    /// The delegation chain, root first.
    pub delegation: Option<Vec<OwnedValue>>,
}

const FIELDS: [&str; 11] = [
    "approval_id",
    "decision_id",
    "batch_id",
    "batch_digest",
    "decision",
    "approver",
    "decided_at",
    "expires_at",
    "role",
    "on_behalf_of",
    "delegation",
];

impl BatchEnvelope {
    /// Reads a bare envelope; problems are [`Code::InvalidDecision`] at the field.
    pub fn from_value(v: &Value<'_>) -> Result<BatchEnvelope> {
        let d = BatchEnvelope::read(v)?;
        if d.batch_id.is_none() {
            return Err(
                crate::Error::new(Code::InvalidDecision, "missing field \"batch_id\"")
                    .in_key("batch_id"),
            );
        }
        Ok(d)
    }

    /// Reads an envelope whose `batch_id` may be absent.
    fn read(v: &Value<'_>) -> Result<BatchEnvelope> {
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
        let acting = Acting::read(&f)?;
        Ok(BatchEnvelope {
            approval_id: f.identity("approval_id")?.to_owned(),
            decision_id: f.identity("decision_id")?.to_owned(),
            batch_id: f
                .get("batch_id")
                .map(|_| f.identity("batch_id").map(str::to_owned))
                .transpose()?,
            batch_digest: f.digest("batch_digest")?,
            decision,
            approver: f.identity("approver")?.to_owned(),
            decided_at,
            expires_at,
            role: acting.role,
            on_behalf_of: acting.on_behalf_of,
            delegation: acting.delegation,
        })
    }

    /// The envelope as JSON (what the ledger stores and compares).
    pub fn to_value(&self) -> OwnedValue {
        let mut entries = vec![
            ("approval_id", string(&self.approval_id)),
            ("decision_id", string(&self.decision_id)),
            ("batch_digest", string(&self.batch_digest.to_string())),
            ("decision", string(self.decision.as_str())),
            ("approver", string(&self.approver)),
            ("decided_at", int(self.decided_at)),
            ("expires_at", int(self.expires_at)),
        ];
        entries.extend(self.batch_id.as_deref().map(|b| ("batch_id", string(b))));
        entries.extend(acting_entries(
            self.role.as_deref(),
            self.on_behalf_of.as_deref(),
            self.delegation.as_deref(),
        ));
        object(entries)
    }

    /// As [`super::DecisionEnvelope::check_time`], against when the batch began awaiting
    /// this decision (its proposal or last deselection).
    pub fn check_time(&self, round_started_at: i64, now: i64) -> Result<()> {
        super::decision::check_time(self.decided_at, round_started_at, now)
    }

    /// As [`super::DecisionEnvelope::check_chain`], about every item's frozen action in
    /// `actions`: one decision covers them all, so its chain must cover each.
    pub fn check_chain<'v, 'a: 'v>(
        &self,
        actions: impl IntoIterator<Item = &'v Value<'a>>,
        now: i64,
    ) -> Result<Vec<String>> {
        check_chain(self, self.decided_at, actions, now)
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
            role: self.role.as_deref(),
            on_behalf_of: self.on_behalf_of.as_deref(),
            delegation: self.delegation.as_deref(),
        }
    }
}

impl Envelope for BatchEnvelope {
    type Record = BatchDecision;

    fn from_value(v: &Value<'_>) -> Result<BatchEnvelope> {
        BatchEnvelope::from_value(v)
    }

    /// The record's batch digest, with its own ids, decision, approver, times, role and
    /// delegation; no batch id (see [`BatchEnvelope::batch_id`]).
    fn of_record(record: &BatchDecision) -> Result<BatchEnvelope> {
        let mut members = record_members(record.value());
        members.push(("batch_digest", string(&record.batch_digest().to_string())));
        BatchEnvelope::read(&object(members))
    }

    fn approver(&self) -> &str {
        &self.approver
    }

    fn on_behalf_of(&self) -> Option<&str> {
        self.on_behalf_of.as_deref()
    }

    fn delegation(&self) -> Option<&[OwnedValue]> {
        self.delegation.as_deref()
    }
}
