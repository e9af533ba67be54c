//! A reviewer's decision built from the task it is about: the envelope the ledger records and
//! the approval record it would build for it, which is what a signer signs
//! ([`actionseal_core::sign_approval`]). A caller names only what the reviewer decided; the
//! round, the job, the request and the digests come from the task, so that a decision built
//! here is never about something else.

use crate::model::Task;
use actionseal_core::ledger::DecisionEnvelope;
use actionseal_core::{Action, Approval, Code, Decision, DecisionInput, Error, Result};

/// What a reviewer decided about a task (see [`Task::decision`]).
#[derive(Clone, Copy, Debug)]
pub struct DecisionDraft<'a> {
    /// The identity of this decision: a retry that sends it again carries the same one.
    pub decision_id: &'a str,
    /// Approved or rejected.
    pub decision: Decision,
    /// Who decided.
    pub approver: &'a str,
    /// When (ms); no earlier than the round began, no later than the ledger's clock when it
    /// arrives.
    pub decided_at: i64,
    /// Until when it holds (ms); after `decided_at`.
    pub expires_at: i64,
}

/// A decision built for a task's current round.
#[derive(Clone, Debug)]
pub struct DraftedDecision {
    /// The bare decision envelope ([`crate::Ledger::decide`] records its `to_value()`).
    pub envelope: DecisionEnvelope,
    /// The approval record the ledger builds for it: sign its `value()` to prove who decided.
    pub record: Approval,
}

impl Task {
    /// The decision `draft` makes about this task's current approval round: its envelope and
    /// its approval record, the record keeping the model's proposal beside an amended action
    /// as the ledger's does. A task outside a round (none begun, or decided and claimed
    /// since) is [`Code::TaskNotAwaitingDecision`]; a malformed draft is the envelope's or the
    /// record's code.
    pub fn decision(&self, draft: &DecisionDraft<'_>) -> Result<DraftedDecision> {
        let approval_id = self.approval_id.as_deref().ok_or_else(|| {
            Error::new(
                Code::TaskNotAwaitingDecision,
                format!(
                    "task {} is {} and has no approval round to decide",
                    self.id,
                    self.state.as_str()
                ),
            )
        })?;
        let envelope = DecisionEnvelope {
            approval_id: approval_id.to_owned(),
            decision_id: draft.decision_id.to_owned(),
            job_id: self.job_id.clone(),
            request_id: self.request_id.clone(),
            action_digest: self.action_digest,
            decision: draft.decision,
            approver: draft.approver.to_owned(),
            decided_at: draft.decided_at,
            expires_at: draft.expires_at,
            role: None,
            on_behalf_of: None,
            delegation: None,
        };
        // Read back: one set of rules for an envelope's shape, whoever built it.
        let envelope = DecisionEnvelope::from_value(&envelope.to_value())?;
        let action = Action::from_value(self.action.value())?;
        let amended =
            (!self.proposed_digest.ct_eq(&self.action_digest)).then_some(self.proposed_digest);
        let record = Approval::decide(
            &action,
            &DecisionInput {
                proposed_digest: amended,
                ..envelope.input()
            },
        )?;
        Ok(DraftedDecision { envelope, record })
    }
}
