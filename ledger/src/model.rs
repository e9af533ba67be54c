//! What the ledger returns: plain data, each with its JSON form (`to_value`), so that a
//! binding hands results over as host objects without knowing the ledger.

use crate::json::{n, obj, opt_n, opt_s, s, stored, StoredJson};
use crate::store::{AmendmentRow, BudgetRow, PolicyRow, TaskRow};
use actionseal_core::ledger::{amended_pointers, DecisionEnvelope, State};
use actionseal_core::{Digest, OwnedValue, ProofRequirement, QuorumState, Result, Value, Verdict};

mod batch;

pub use batch::{Batch, BatchClaimOutcome, BatchDecided, DraftedBatchDecision};

/// A task and everything the ledger knows about it.
#[derive(Clone, Debug)]
pub struct Task {
    /// `task_` + 32 hex digits, derived from (tenant, job_id, request_id).
    pub id: String,
    /// The tenant.
    pub tenant: String,
    /// The job.
    pub job_id: String,
    /// The request within the job.
    pub request_id: String,
    /// Where it is.
    pub state: State,
    /// The frozen action: as proposed, or as a reviewer last amended it before the decision.
    /// It is what the reviewer decides about and what a claim must present.
    pub action: StoredJson,
    /// Its fingerprint.
    pub action_digest: Digest,
    /// The action as the model proposed it, when a reviewer amended it (`None`: `action` is
    /// the proposal).
    pub proposed_action: Option<StoredJson>,
    /// The fingerprint of the action as the model proposed it (the first proposal, however
    /// many amendments followed).
    pub proposed_digest: Digest,
    /// How many amendments the action went through.
    pub amendments: i64,
    /// Whether its contract asked for a person's approval when it was proposed.
    pub approval_required: bool,
    /// The current approval round's id (the one a decision must name).
    pub approval_id: Option<String>,
    /// The current approval record, once decided.
    pub approval: Option<StoredJson>,
    /// How the current decision was proven, when it carried proof: `{"signer", "proof",
    /// "verified_at"}`, the proof without the record (a signed envelope without its payload,
    /// or the passkey assertion) and the ledger's time at which its key was judged.
    pub proof: Option<StoredJson>,
    /// When the task began awaiting its current decision (its proposal, re-approval or last
    /// amendment): a decision must be dated between it and its arrival.
    pub round_started_at: i64,
    /// The business idempotency key, the same for the task's whole life.
    pub idempotency_key: String,
    /// Who proposed it.
    pub proposer: String,
    /// The current fence token (0 before the first claim).
    pub fence: i64,
    /// The executor of the current or last claim.
    pub executor: Option<String>,
    /// When the current claim's lease runs out (ms), while the task is claimed.
    pub lease_until: Option<i64>,
    /// The budget account of the current claim.
    pub budget: Option<String>,
    /// Minor units the current claim holds on that budget.
    pub reserved_minor: i64,
    /// What the business system answered.
    pub result: Option<StoredJson>,
    /// When it was proposed (ms).
    pub created_at: i64,
    /// When it last changed (ms).
    pub updated_at: i64,
    /// Where the current round stands, when the task's contract needs a quorum (issue 25):
    /// who counted and what is still missing ("1 of 2 approvals"), on every task the ledger
    /// returns. `None` without a quorum, or outside a round.
    pub quorum: Option<QuorumState>,
    /// The contract kept on the task (a quorum or a separation of duties), whose quorum the
    /// ledger fills in before it returns the task; `None` for every other task.
    pub(crate) kept_contract: Option<String>,
}

impl Task {
    /// The task of a row, which it takes apart (an operation hands its row back once).
    pub(crate) fn from_row(t: TaskRow) -> Result<Task> {
        Ok(Task {
            id: t.id,
            tenant: t.tenant,
            job_id: t.job_id,
            request_id: t.request_id,
            state: t.state,
            action: StoredJson::new(t.action),
            action_digest: t.action_digest,
            proposed_action: t.proposed_action.map(StoredJson::new),
            proposed_digest: t.proposed_digest.unwrap_or(t.action_digest),
            amendments: t.amendments,
            approval_required: t.approval_required,
            approval_id: t.approval_id,
            approval: t.approval.map(StoredJson::new),
            proof: t.proof.map(StoredJson::new),
            round_started_at: t.round_started_at,
            idempotency_key: t.idempotency_key,
            proposer: t.proposer,
            fence: t.fence,
            executor: t.executor,
            lease_until: t.lease_until,
            budget: t.budget,
            reserved_minor: t.reserved,
            result: t.result.map(StoredJson::new),
            created_at: t.created_at,
            updated_at: t.updated_at,
            quorum: None,
            kept_contract: t.contract,
        })
    }

    /// Whether the action a reviewer decides about is not the one the model proposed.
    pub fn is_amended(&self) -> bool {
        !self.proposed_digest.ct_eq(&self.action_digest)
    }

    /// The JSON Pointers at which the action differs from the model's proposal (empty when
    /// it was not amended, or amended back).
    pub fn amended_pointers(&self) -> Vec<String> {
        match &self.proposed_action {
            Some(p) if self.is_amended() => amended_pointers(p, &self.action),
            _ => Vec::new(),
        }
    }

    /// The task as JSON: every field above, plus `amended_pointers`; `quorum` only when the
    /// task has one.
    pub fn to_value(&self) -> OwnedValue {
        let pointers = self.amended_pointers().iter().map(|p| s(p)).collect();
        let mut entries = vec![
            ("id", s(&self.id)),
            ("tenant", s(&self.tenant)),
            ("job_id", s(&self.job_id)),
            ("request_id", s(&self.request_id)),
            ("state", s(self.state.as_str())),
            ("action", self.action.to_owned_value()),
            ("action_digest", s(&self.action_digest.to_string())),
            (
                "proposed_action",
                self.proposed_action
                    .as_ref()
                    .unwrap_or(&self.action)
                    .to_owned_value(),
            ),
            ("proposed_digest", s(&self.proposed_digest.to_string())),
            ("amendments", n(self.amendments)),
            ("amended_pointers", Value::Array(pointers)),
            ("approval_required", Value::Bool(self.approval_required)),
            ("approval_id", opt_s(self.approval_id.as_deref())),
            ("approval", json_or_null(&self.approval)),
            ("proof", json_or_null(&self.proof)),
            ("round_started_at", n(self.round_started_at)),
            ("idempotency_key", s(&self.idempotency_key)),
            ("proposer", s(&self.proposer)),
            ("fence", n(self.fence)),
            ("executor", opt_s(self.executor.as_deref())),
            ("lease_until", opt_n(self.lease_until)),
            ("budget", opt_s(self.budget.as_deref())),
            ("reserved_minor", n(self.reserved_minor)),
            ("result", json_or_null(&self.result)),
            ("created_at", n(self.created_at)),
            ("updated_at", n(self.updated_at)),
        ];
        entries.extend(self.quorum.as_ref().map(|q| ("quorum", q.to_value())));
        obj(entries)
    }
}

fn json_or_null(j: &Option<StoredJson>) -> OwnedValue {
    j.as_ref().map_or(Value::Null, StoredJson::to_owned_value)
}

/// A recorded decision.
#[derive(Clone, Debug)]
pub struct Decided {
    /// The task after the decision.
    pub task: Task,
    /// The decision as recorded.
    pub decision: DecisionEnvelope,
    /// Whether this delivery repeated a decision already recorded (nothing changed).
    pub duplicate: bool,
    /// Who signed this delivery, when it carried proof: `{"kind": "service", "keyid"}` or
    /// `{"kind": "passkey", "credential_id", "algorithm"}`.
    pub signer: Option<OwnedValue>,
}

impl Decided {
    /// `{"task", "decision", "duplicate", "signer"}` (`signer` is `null` for a bare decision).
    pub fn to_value(&self) -> OwnedValue {
        obj(vec![
            ("task", self.task.to_value()),
            ("decision", self.decision.to_value()),
            ("duplicate", Value::Bool(self.duplicate)),
            ("signer", self.signer.clone().unwrap_or(Value::Null)),
        ])
    }
}

/// One amendment of a task's action, as recorded.
#[derive(Clone, Debug)]
pub struct AmendmentRecord {
    /// The task.
    pub task_id: String,
    /// 1 for the task's first amendment, one more for each after it.
    pub n: i64,
    /// The digest of the action it replaced.
    pub amends: Digest,
    /// The amended action.
    pub action: OwnedValue,
    /// Its fingerprint.
    pub action_digest: Digest,
    /// Who amended it.
    pub reviewer: String,
    /// Why, in the reviewer's words.
    pub reason: String,
    /// When (ms).
    pub at: i64,
}

impl AmendmentRecord {
    pub(crate) fn from_row(a: &AmendmentRow) -> Result<AmendmentRecord> {
        Ok(AmendmentRecord {
            task_id: a.task_id.clone(),
            n: a.n,
            amends: a.amends,
            action: stored(&a.action)?.into_owned(),
            action_digest: a.action_digest,
            reviewer: a.reviewer.clone(),
            reason: a.reason.clone(),
            at: a.at,
        })
    }

    /// `{"task_id", "n", "amends", "action", "action_digest", "reviewer", "reason", "at"}`.
    pub fn to_value(&self) -> OwnedValue {
        obj(vec![
            ("task_id", s(&self.task_id)),
            ("n", n(self.n)),
            ("amends", s(&self.amends.to_string())),
            ("action", self.action.clone()),
            ("action_digest", s(&self.action_digest.to_string())),
            ("reviewer", s(&self.reviewer)),
            ("reason", s(&self.reason)),
            ("at", n(self.at)),
        ])
    }
}

/// What an amendment did.
#[derive(Clone, Debug)]
pub struct Amended {
    /// The task after the amendment.
    pub task: Task,
    /// The amendment that set the task's action: this one, or (for a duplicate) the one
    /// recorded earlier; `None` for a duplicate of an action that was never amended.
    pub amendment: Option<AmendmentRecord>,
    /// Whether the task already held the amended action (a retry): nothing changed.
    pub duplicate: bool,
}

impl Amended {
    /// `{"task", "amendment", "duplicate"}`.
    pub fn to_value(&self) -> OwnedValue {
        obj(vec![
            ("task", self.task.to_value()),
            (
                "amendment",
                self.amendment
                    .as_ref()
                    .map_or(Value::Null, AmendmentRecord::to_value),
            ),
            ("duplicate", Value::Bool(self.duplicate)),
        ])
    }
}

/// A won claim: dispatch `action` with `idempotency_key`, then complete with `fence`.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The task.
    pub task_id: String,
    /// The fence token: a completion must present it.
    pub fence: i64,
    /// The business idempotency key to dispatch with.
    pub idempotency_key: String,
    /// When the lease runs out (ms): complete before then.
    pub lease_until: i64,
    /// Who holds the claim.
    pub executor: String,
    /// The exact approved action to dispatch (under a contract that marks values sensitive,
    /// with their commitments: what the approval binds).
    pub action: OwnedValue,
    /// Under a contract that marks values sensitive (issue 29): `action` with its values in
    /// place, each checked against its commitment, to run the call with. `None` otherwise.
    pub revealed: Option<OwnedValue>,
    /// The approval record this claim was checked against (`None` for a tool that needs no
    /// approval): what the executor verifies before it dispatches.
    pub approval: Option<OwnedValue>,
    /// That record's decision as it was proven, whole again (the signed envelope, or the
    /// passkey-approved record; see [`actionseal_core::ledger::reattach`]), with the signer
    /// and the ledger's time at which its key was judged: `{"proven", "signer",
    /// "verified_at"}`. `None` for a bare decision.
    pub proof: Option<OwnedValue>,
    /// Under a quorum (issue 25), the records of the whole round the claim checked as a set,
    /// in the order they were recorded (`approval` is the one that met the quorum); empty
    /// otherwise.
    pub approvals: Vec<OwnedValue>,
    /// For an item of a batch (issue 28): `{"action", "proof"}`, its frozen action and its
    /// inclusion proof in the batch `approval` decided (core's `batch::verify_item`).
    pub item: Option<OwnedValue>,
}

impl Claim {
    /// `{"task_id", "fence", "idempotency_key", "lease_until", "executor", "action",
    /// "approval", "proof"}`, with `approvals` under a quorum and `item` for a batch's item.
    pub fn to_value(&self) -> OwnedValue {
        let mut entries = vec![
            ("task_id", s(&self.task_id)),
            ("fence", n(self.fence)),
            ("idempotency_key", s(&self.idempotency_key)),
            ("lease_until", n(self.lease_until)),
            ("executor", s(&self.executor)),
            ("action", self.action.clone()),
            ("approval", self.approval.clone().unwrap_or(Value::Null)),
            ("proof", self.proof.clone().unwrap_or(Value::Null)),
        ];
        // Only under a quorum: every other claim is what it always was.
        if !self.approvals.is_empty() {
            entries.push(("approvals", Value::Array(self.approvals.clone())));
        }
        // Only for a batch's item.
        if let Some(item) = &self.item {
            entries.push(("item", item.clone()));
        }
        // Only for an action with sensitive values.
        if let Some(revealed) = &self.revealed {
            entries.push(("revealed", revealed.clone()));
        }
        obj(entries)
    }
}

/// What a claim did.
#[derive(Clone, Debug)]
pub enum ClaimOutcome {
    /// The claim won: dispatch.
    Claimed(Claim, Task),
    /// The presented action is not the approved one: refused, the task stays approved, and the
    /// frozen approved action is returned to resume with.
    Drift {
        /// The task (unchanged).
        task: Task,
        /// The check's verdict (reasons and drift pointers).
        verdict: Verdict,
        /// The action that was approved.
        approved_action: OwnedValue,
    },
    /// The approval no longer holds: the same task now awaits re-approval.
    Reapproval {
        /// The task, now `awaiting_reapproval` with a new approval id.
        task: Task,
        /// Why.
        verdict: Verdict,
    },
    /// The check rejected the call: the task is `rejected_pre_dispatch`.
    Rejected {
        /// The task.
        task: Task,
        /// Why.
        verdict: Verdict,
    },
}

impl ClaimOutcome {
    /// `tool_args_drift`, `awaiting_reapproval`, `rejected_pre_dispatch` or `claimed`.
    pub fn result(&self) -> &'static str {
        match self {
            ClaimOutcome::Claimed(..) => "claimed",
            ClaimOutcome::Drift { .. } => "tool_args_drift",
            ClaimOutcome::Reapproval { .. } => "awaiting_reapproval",
            ClaimOutcome::Rejected { .. } => "rejected_pre_dispatch",
        }
    }

    /// The task after the claim.
    pub fn task(&self) -> &Task {
        match self {
            ClaimOutcome::Claimed(_, task)
            | ClaimOutcome::Drift { task, .. }
            | ClaimOutcome::Reapproval { task, .. }
            | ClaimOutcome::Rejected { task, .. } => task,
        }
    }

    /// `{"result", "claimed", "task", "claim", "verdict", "approved_action"}` (members that do
    /// not apply are `null`).
    pub fn to_value(&self) -> OwnedValue {
        let (claim, verdict, approved) = match self {
            ClaimOutcome::Claimed(c, _) => (c.to_value(), Value::Null, Value::Null),
            ClaimOutcome::Drift {
                verdict,
                approved_action,
                ..
            } => (Value::Null, verdict.to_value(), approved_action.clone()),
            ClaimOutcome::Reapproval { verdict, .. } | ClaimOutcome::Rejected { verdict, .. } => {
                (Value::Null, verdict.to_value(), Value::Null)
            }
        };
        obj(vec![
            ("result", s(self.result())),
            (
                "claimed",
                Value::Bool(matches!(self, ClaimOutcome::Claimed(..))),
            ),
            ("task", self.task().to_value()),
            ("claim", claim),
            ("verdict", verdict),
            ("approved_action", approved),
        ])
    }
}

/// The ledger's policy, as its database records it for every handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Whether every decision must carry proof.
    pub proof: ProofRequirement,
    /// When it was last changed (ms; 0: never).
    pub changed_at: i64,
    /// Who changed it (`ledger`: a handle opened requiring proof).
    pub changed_by: String,
}

impl Policy {
    pub(crate) fn from_row(p: &PolicyRow) -> Policy {
        Policy {
            proof: p.proof,
            changed_at: p.changed_at,
            changed_by: p.changed_by.clone(),
        }
    }

    /// `{"proof", "changed_at", "changed_by"}`.
    pub fn to_value(&self) -> OwnedValue {
        obj(vec![
            ("proof", s(self.proof.as_str())),
            ("changed_at", n(self.changed_at)),
            ("changed_by", s(&self.changed_by)),
        ])
    }
}

/// A revoked approval.
#[derive(Clone, Debug)]
pub struct Revocation {
    /// The approval.
    pub approval_id: String,
    /// Its task; for a batch's approval, the batch.
    pub task_id: String,
    /// When it was revoked (ms).
    pub revoked_at: i64,
    /// Whether it was already revoked (nothing changed).
    pub duplicate: bool,
}

impl Revocation {
    /// `{"approval_id", "task_id", "revoked_at", "duplicate"}`.
    pub fn to_value(&self) -> OwnedValue {
        obj(vec![
            ("approval_id", s(&self.approval_id)),
            ("task_id", s(&self.task_id)),
            ("revoked_at", n(self.revoked_at)),
            ("duplicate", Value::Bool(self.duplicate)),
        ])
    }
}

/// A budget account, in minor units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Its name.
    pub name: String,
    /// The most that may be spent.
    pub limit_minor: i64,
    /// Spent by succeeded claims.
    pub spent_minor: i64,
    /// Held by claims whose outcome is not known yet.
    pub reserved_minor: i64,
}

impl Budget {
    pub(crate) fn from_row(b: &BudgetRow) -> Budget {
        Budget {
            name: b.name.clone(),
            limit_minor: b.limit_minor,
            spent_minor: b.spent_minor,
            reserved_minor: b.reserved_minor,
        }
    }

    /// `{"name", "limit_minor", "spent_minor", "reserved_minor"}`.
    pub fn to_value(&self) -> OwnedValue {
        obj(vec![
            ("name", s(&self.name)),
            ("limit_minor", n(self.limit_minor)),
            ("spent_minor", n(self.spent_minor)),
            ("reserved_minor", n(self.reserved_minor)),
        ])
    }
}

/// What a shredding removed from one task: the places and their classes, never the values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shredded {
    pub task_id: String,
    /// `(pointer, class)` of each disclosure shredded (empty: it held none).
    pub places: Vec<(String, String)>,
}

impl Shredded {
    /// `{"task_id", "places": [{"pointer", "class"}]}`.
    pub fn to_value(&self) -> OwnedValue {
        let places = self
            .places
            .iter()
            .map(|(p, c)| obj(vec![("pointer", s(p)), ("class", s(c))]))
            .collect();
        obj(vec![
            ("task_id", s(&self.task_id)),
            ("places", Value::Array(places)),
        ])
    }
}
