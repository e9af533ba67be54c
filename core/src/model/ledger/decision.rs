//! The decision envelope a reviewer's approval system sends back (seed 003): it re-names the
//! approval, the job, the request and the digest it decided about, so the ledger can tell a
//! decision about something else from a decision about this task.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::approval::{Approval, Decision, DecisionInput};
use crate::model::fields::Fields;
use crate::model::ledger::envelope::{
    acting_entries, check_chain, record_members, Acting, Envelope,
};
use crate::model::ledger::values::{int, object, string};

/// `{"approval_id", "decision_id", "job_id", "request_id", "action_digest", "decision",
/// "approver", "decided_at", "expires_at"}`, and optionally `"role"` and, together,
/// `"on_behalf_of"` and `"delegation"` (issue 25); times integer ms since the epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionEnvelope {
    /// The approval round the reviewer was asked about.
    pub approval_id: String,
    /// The identity of this decision callback: repeated deliveries carry the same one.
    pub decision_id: String,
    /// The task's job.
    pub job_id: String,
    /// The task's request.
    pub request_id: String,
    /// The fingerprint of the action the reviewer saw.
    pub action_digest: Digest,
    /// Approved or rejected.
    pub decision: Decision,
    /// Who decided.
    pub approver: String,
    /// When (ms).
    pub decided_at: i64,
    /// Until when the decision holds (ms); after `decided_at`.
    pub expires_at: i64,
    /// The role the approver decides in, under a quorum (its trusted caller's word when the
    /// ledger counts it; a claim holds it to the executor's facts).
    pub role: Option<String>,
    /// Whom the approver decides for, through `delegation`: the counting identity.
    pub on_behalf_of: Option<String>,
    /// The delegation chain, root first (1 to 4 links, each as the approver presented it).
    pub delegation: Option<Vec<OwnedValue>>,
}

const FIELDS: [&str; 12] = [
    "approval_id",
    "decision_id",
    "job_id",
    "request_id",
    "action_digest",
    "decision",
    "approver",
    "decided_at",
    "expires_at",
    "role",
    "on_behalf_of",
    "delegation",
];

impl DecisionEnvelope {
    /// Reads an envelope; problems are [`Code::InvalidDecision`] at the field.
    pub fn from_value(v: &Value<'_>) -> Result<DecisionEnvelope> {
        let f = Fields::new(v, Code::InvalidDecision, "decision", &FIELDS)?;
        let decision = match f.one_of("decision", &["approved", "rejected"])? {
            "approved" => Decision::Approved,
            _ => Decision::Rejected,
        };
        let decided_at = f.integer("decided_at", 0)?;
        let expires_at = f.integer("expires_at", 0)?;
        if expires_at <= decided_at {
            return Err(
                Error::new(Code::InvalidDecision, "expires_at must be after decided_at")
                    .in_key("expires_at"),
            );
        }
        let acting = Acting::read(&f)?;
        Ok(DecisionEnvelope {
            approval_id: f.identity("approval_id")?.to_owned(),
            decision_id: f.identity("decision_id")?.to_owned(),
            job_id: f.identity("job_id")?.to_owned(),
            request_id: f.identity("request_id")?.to_owned(),
            action_digest: f.digest("action_digest")?,
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
            ("job_id", string(&self.job_id)),
            ("request_id", string(&self.request_id)),
            ("action_digest", string(&self.action_digest.to_string())),
            ("decision", string(self.decision.as_str())),
            ("approver", string(&self.approver)),
            ("decided_at", int(self.decided_at)),
            ("expires_at", int(self.expires_at)),
        ];
        entries.extend(acting_entries(
            self.role.as_deref(),
            self.on_behalf_of.as_deref(),
            self.delegation.as_deref(),
        ));
        object(entries)
    }

    /// Checks that the envelope is about this task's frozen action: [`Code::DecisionMismatch`]
    /// at the first field that names something else.
    pub fn check_task(&self, job_id: &str, request_id: &str, frozen: &Digest) -> Result<()> {
        let mismatch = |key: &str, what: &str| {
            Err(Error::new(
                Code::DecisionMismatch,
                format!("the decision is about another {what} than the task's"),
            )
            .in_key(key))
        };
        if self.job_id != job_id {
            return mismatch("job_id", "job");
        }
        if self.request_id != request_id {
            return mismatch("request_id", "request");
        }
        if !self.action_digest.ct_eq(frozen) {
            return mismatch(
                "action_digest",
                "action (the reviewer decided about something else)",
            );
        }
        Ok(())
    }

    /// Checks that the decision was made inside its round: no earlier than `round_started_at`
    /// (when the task began awaiting this decision: its proposal, re-approval or last
    /// amendment, which the reviewer could not have decided about before) and no later than
    /// `now`, the ledger's clock as the decision arrives. `decided_at` is the signer's word;
    /// these bounds are the ledger's ([`Code::DecidedOutsideRound`] at `decided_at`).
    pub fn check_time(&self, round_started_at: i64, now: i64) -> Result<()> {
        check_time(self.decided_at, round_started_at, now)
    }

    /// Checks the decision's delegation chain, if any, about `action`, the task's frozen
    /// envelope (the rules are the batch decision's too): returns every delegate along it.
    pub fn check_chain(&self, action: &Value<'_>, now: i64) -> Result<Vec<String>> {
        check_chain(self, self.decided_at, [action], now)
    }

    /// The decision as the core's approval input.
    pub fn input(&self) -> DecisionInput<'_> {
        DecisionInput {
            approval_id: &self.approval_id,
            decision_id: &self.decision_id,
            decision: self.decision,
            approver: &self.approver,
            decided_at: self.decided_at,
            expires_at: self.expires_at,
            proposed_digest: None,
            role: self.role.as_deref(),
            on_behalf_of: self.on_behalf_of.as_deref(),
            delegation: self.delegation.as_deref(),
        }
    }
}

impl Envelope for DecisionEnvelope {
    type Record = Approval;

    fn from_value(v: &Value<'_>) -> Result<DecisionEnvelope> {
        DecisionEnvelope::from_value(v)
    }

    /// The job, request and digest of the record's frozen action, with the record's own ids,
    /// decision, approver, times, role and delegation.
    fn of_record(record: &Approval) -> Result<DecisionEnvelope> {
        let action = record.action();
        let mut members = record_members(record.value());
        members.extend([
            ("job_id", string(action.field("job_id"))),
            ("request_id", string(action.field("request_id"))),
            ("action_digest", string(&record.action_digest().to_string())),
        ]);
        DecisionEnvelope::from_value(&object(members))
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

/// [`DecisionEnvelope::check_time`] of a decision made at `at` (a batch's as well).
pub(crate) fn check_time(at: i64, round_started_at: i64, now: i64) -> Result<()> {
    let why = if at < round_started_at {
        format!("decided_at {at} is before the round began at {round_started_at}")
    } else if at > now {
        format!("decided_at {at} is after the ledger's clock ({now}) as the decision arrived")
    } else {
        return Ok(());
    };
    Err(Error::new(Code::DecidedOutsideRound, why).in_key("decided_at"))
}
