//! What the batch operations return (issue 28), each with its JSON form.

use super::{Claim, ClaimOutcome};
use crate::json::{n, obj, opt_s, s, stored};
use crate::store::{BatchRow, LineageRow, TaskRow};
use actionseal_core::ledger::{remainder_id, BatchEnvelope, State};
use actionseal_core::{Digest, OwnedValue, Result, Value};

/// A batch, its lineage's caps totals and breaker, and where each of its items is.
#[derive(Clone, Debug)]
pub struct Batch {
    /// `batch_` + 32 hex digits.
    pub id: String,
    /// The id of the lineage's first batch: a remainder re-approved after a trip shares its
    /// totals and breaker.
    pub lineage: String,
    pub tenant: String,
    /// `all_or_nothing` or `per_item`.
    pub semantics: String,
    /// `awaiting_approval`, `approved` or `rejected`.
    pub state: State,
    /// Core's frozen batch document (`{"contract", "tenant", "semantics", "size", "root"}`).
    pub header: OwnedValue,
    /// Its fingerprint: the digest a decision binds.
    pub digest: Digest,
    /// The digest the model proposed (before any deselection).
    pub proposed_digest: Digest,
    /// The approval id a decision over the batch names.
    pub approval_id: String,
    pub decision_id: Option<String>,
    /// The decision record, once decided.
    pub record: Option<OwnedValue>,
    /// How many deselections it went through.
    pub amendments: i64,
    /// The selected items, in the header's order: task id and state.
    pub items: Vec<(String, State)>,
    /// Every item as proposed (task ids).
    pub proposed_items: Vec<String>,
    /// Whether it is its lineage's current batch (the one whose items may be claimed).
    pub current: bool,
    /// The batch its remaining items were sent back in (a trip of the breaker, an expired
    /// decision), the lineage's next: follow it to the items' re-approval. `None` while no
    /// item was sent back from this batch.
    pub successor: Option<String>,
    /// The lineage's running totals (`{"count", "sum", "targets"}`, targets as digests).
    pub totals: OwnedValue,
    /// The lineage's breaker (`{"state", ...}`).
    pub breaker: OwnedValue,
    pub created_at: i64,
    pub updated_at: i64,
}

impl Batch {
    /// The batch of row `b`, lineage `l`, with its selected items' task rows `items`.
    pub(crate) fn from_rows(b: &BatchRow, l: &LineageRow, items: &[TaskRow]) -> Result<Batch> {
        Ok(Batch {
            id: b.id.clone(),
            lineage: b.lineage.clone(),
            tenant: b.tenant.clone(),
            semantics: b.semantics.clone(),
            state: b.state,
            header: stored(&b.header)?.into_owned(),
            digest: b.digest,
            proposed_digest: b.proposed_digest,
            approval_id: b.approval_id.clone(),
            decision_id: b.decision_id.clone(),
            record: b
                .record
                .as_deref()
                .map(|r| stored(r).map(Value::into_owned))
                .transpose()?,
            amendments: b.amendments,
            items: items.iter().map(|t| (t.id.clone(), t.state)).collect(),
            proposed_items: crate::json::strings(&b.proposed_items)?,
            current: l.current == b.id,
            successor: successor(b, l),
            totals: stored(&l.totals)?.into_owned(),
            breaker: stored(&l.breaker)?.into_owned(),
            created_at: b.created_at,
            updated_at: b.updated_at,
        })
    }

    /// `{"id", "lineage", "tenant", "semantics", "state", "header", "digest",
    /// "proposed_digest", "approval_id", "decision_id", "record", "amendments", "items":
    /// [{"task_id", "state"}], "proposed_items", "current", "successor", "totals", "breaker",
    /// "created_at", "updated_at"}`.
    pub fn to_value(&self) -> OwnedValue {
        let items = self
            .items
            .iter()
            .map(|(id, state)| obj(vec![("task_id", s(id)), ("state", s(state.as_str()))]))
            .collect();
        obj(vec![
            ("id", s(&self.id)),
            ("lineage", s(&self.lineage)),
            ("tenant", s(&self.tenant)),
            ("semantics", s(&self.semantics)),
            ("state", s(self.state.as_str())),
            ("header", self.header.clone()),
            ("digest", s(&self.digest.to_string())),
            ("proposed_digest", s(&self.proposed_digest.to_string())),
            ("approval_id", s(&self.approval_id)),
            ("decision_id", opt_s(self.decision_id.as_deref())),
            ("record", self.record.clone().unwrap_or(Value::Null)),
            ("amendments", n(self.amendments)),
            ("items", Value::Array(items)),
            (
                "proposed_items",
                Value::Array(self.proposed_items.iter().map(|i| s(i)).collect()),
            ),
            ("current", Value::Bool(self.current)),
            ("successor", opt_s(self.successor.as_deref())),
            ("totals", self.totals.clone()),
            ("breaker", self.breaker.clone()),
            ("created_at", n(self.created_at)),
            ("updated_at", n(self.updated_at)),
        ])
    }
}

/// The batch after `b` in lineage `l`. A lineage's batches are its generations: the first is
/// the lineage itself, each later one `remainder_id(lineage, generation)`, proposed only when
/// items were sent back from the one before; so `b`'s successor is the next generation's
/// batch, once the lineage has one.
fn successor(b: &BatchRow, l: &LineageRow) -> Option<String> {
    let generation = if b.id == l.id {
        1
    } else {
        (2..=l.generation).find(|&g| remainder_id(&l.id, g) == b.id)?
    };
    (generation < l.generation).then(|| remainder_id(&l.id, generation + 1))
}

impl Batch {
    /// The decision envelope `draft` makes about the batch as it is now (its approval id,
    /// id and digest), for [`crate::Ledger::decide_batch`].
    pub fn decision(&self, draft: &crate::DecisionDraft<'_>) -> BatchEnvelope {
        BatchEnvelope {
            approval_id: self.approval_id.clone(),
            decision_id: draft.decision_id.to_owned(),
            batch_id: self.id.clone(),
            batch_digest: self.digest,
            decision: draft.decision,
            approver: draft.approver.to_owned(),
            decided_at: draft.decided_at,
            expires_at: draft.expires_at,
        }
    }
}

/// A recorded batch decision.
#[derive(Clone, Debug)]
pub struct BatchDecided {
    /// The batch after the decision.
    pub batch: Batch,
    /// Whether this delivery repeated a decision already recorded (nothing changed).
    pub duplicate: bool,
    /// Who signed this delivery, when it carried proof.
    pub signer: Option<OwnedValue>,
}

impl BatchDecided {
    /// `{"batch", "duplicate", "signer"}`.
    pub fn to_value(&self) -> OwnedValue {
        obj(vec![
            ("batch", self.batch.to_value()),
            ("duplicate", Value::Bool(self.duplicate)),
            ("signer", self.signer.clone().unwrap_or(Value::Null)),
        ])
    }
}

/// What a claim of a whole all-or-nothing batch did.
#[derive(Clone, Debug)]
pub enum BatchClaimOutcome {
    /// Every remaining item passed its check and was claimed: dispatch them all.
    Claimed(Vec<Claim>),
    /// A presented action is not its item's frozen one: nothing was claimed and nothing
    /// changed; each drifting item's outcome says where.
    Drift(Vec<ClaimOutcome>),
    /// An item's check rejected it or found its decision no longer holds: nothing was
    /// claimed, and every remaining item is `rejected_pre_dispatch` (each outcome says why).
    Stopped(Vec<ClaimOutcome>),
}

impl BatchClaimOutcome {
    /// `claimed`, `tool_args_drift` or `stopped`.
    pub fn result(&self) -> &'static str {
        match self {
            BatchClaimOutcome::Claimed(_) => "claimed",
            BatchClaimOutcome::Drift(_) => "tool_args_drift",
            BatchClaimOutcome::Stopped(_) => "stopped",
        }
    }

    /// `{"result", "claimed", "items": [each item's claim outcome]}`.
    pub fn to_value(&self) -> OwnedValue {
        let items = match self {
            BatchClaimOutcome::Claimed(claims) => claims.iter().map(Claim::to_value).collect(),
            BatchClaimOutcome::Drift(o) | BatchClaimOutcome::Stopped(o) => {
                o.iter().map(ClaimOutcome::to_value).collect()
            }
        };
        obj(vec![
            ("result", s(self.result())),
            (
                "claimed",
                Value::Bool(matches!(self, BatchClaimOutcome::Claimed(_))),
            ),
            ("items", Value::Array(items)),
        ])
    }
}
