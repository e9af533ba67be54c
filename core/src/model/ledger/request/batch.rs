//! The ledger's batch requests (issue 28). An item's claim, completion and reconciliation are
//! a task's requests ([`super::Claim`], [`super::Complete`], [`super::Reconcile`]); a batch
//! decision is read by the ledger with its proof, as a task's decision is.

use super::{fields, ClaimTerms};
use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::batch::Semantics;
use crate::model::fields::Fields;
use crate::model::ledger::amend::MAX_REASON_CHARS;
use crate::model::proof::ProofRequirement;

/// `actions`: the batch's action envelopes, in the order a reviewer sees them. Anything but
/// an array is [`Code::InvalidBatch`], as core's batch builder refuses a batch.
fn actions<'v, 'a>(f: &Fields<'v, 'a>) -> Result<&'v [Value<'a>]> {
    match f.required("actions")? {
        Value::Array(items) => Ok(items),
        other => Err(Error::new(
            Code::InvalidBatch,
            format!("a batch is an array of actions, not {}", other.type_name()),
        )
        .in_key("actions")),
    }
}

/// `{"actions", "contract", "semantics", "proposer"}`: a batch's proposal. A `semantics`
/// that is a string but not one of [`Semantics`]'s names is [`Code::InvalidBatch`] (core's
/// code for it in a batch document).
#[derive(Clone, Copy, Debug)]
pub struct ProposeBatch<'v, 'a> {
    /// The items' action envelopes, in order.
    pub actions: &'v [Value<'a>],
    /// The contract document they were made under.
    pub contract: &'v Value<'a>,
    /// How the items stand together.
    pub semantics: Semantics,
    /// Who proposes them (the agent).
    pub proposer: &'v str,
}

impl<'v, 'a> ProposeBatch<'v, 'a> {
    /// Reads a batch proposal.
    pub fn from_value(v: &'v Value<'a>) -> Result<ProposeBatch<'v, 'a>> {
        let f = fields(
            v,
            "a batch proposal",
            &["actions", "contract", "semantics", "proposer"],
        )?;
        let semantics = f.string("semantics")?;
        Ok(ProposeBatch {
            actions: actions(&f)?,
            contract: f.required("contract")?,
            semantics: Semantics::parse(semantics).map_err(|e| e.in_key("semantics"))?,
            proposer: f.identity("proposer")?,
        })
    }
}

/// `{"batch_id", "amends", "deselect", "reviewer", "reason"}`: a reviewer leaves the items at
/// positions `deselect` (from 0, in the batch's order) out of a batch awaiting its decision,
/// having seen digest `amends`; the reason as an amendment's (1 to [`MAX_REASON_CHARS`]
/// characters, not blank). The ledger and core check the positions against the batch.
#[derive(Clone, Debug)]
pub struct AmendBatch<'v> {
    pub batch_id: &'v str,
    /// The batch digest the reviewer saw: applied only if the batch still has it.
    pub amends: Digest,
    pub deselect: Vec<u64>,
    pub reviewer: &'v str,
    pub reason: &'v str,
}

impl<'v> AmendBatch<'v> {
    /// Reads a deselection.
    pub fn from_value(v: &'v Value<'_>) -> Result<AmendBatch<'v>> {
        let f = fields(
            v,
            "a deselection",
            &["batch_id", "amends", "deselect", "reviewer", "reason"],
        )?;
        let not_positions = || {
            Error::new(
                Code::InvalidRequest,
                "deselect must be an array of positions (integers from 0)",
            )
            .in_key("deselect")
        };
        let deselect = match f.required("deselect")? {
            Value::Array(items) => items
                .iter()
                .map(|i| match i {
                    Value::Number(n) => n.as_safe_integer().and_then(|n| u64::try_from(n).ok()),
                    _ => None,
                })
                .collect::<Option<Vec<u64>>>()
                .ok_or_else(not_positions)?,
            _ => return Err(not_positions()),
        };
        let reason = f.string("reason")?;
        if reason.trim().is_empty() || reason.chars().count() > MAX_REASON_CHARS {
            return Err(Error::new(
                Code::InvalidRequest,
                format!("reason must be a non-blank text of at most {MAX_REASON_CHARS} characters"),
            )
            .in_key("reason"));
        }
        Ok(AmendBatch {
            batch_id: f.identity("batch_id")?,
            amends: f.digest("amends")?,
            deselect,
            reviewer: f.identity("reviewer")?,
            reason,
        })
    }
}

/// `{"batch_id", "actions", "facts", "executor", "lease_ms", "budget"?, "proof"?}`: a claim of
/// a whole all-or-nothing batch: every remaining item's action as the executor is about to
/// dispatch it, in the batch's order, with a task claim's facts, executor, lease, budget and
/// proof requirement ([`super::Claim`]), which apply to each item.
#[derive(Clone, Copy, Debug)]
pub struct ClaimBatch<'v, 'a> {
    pub batch_id: &'v str,
    pub actions: &'v [Value<'a>],
    pub facts: &'v Value<'a>,
    pub executor: &'v str,
    pub lease_ms: i64,
    pub budget: Option<&'v str>,
    pub proof: ProofRequirement,
}

impl<'v, 'a> ClaimBatch<'v, 'a> {
    /// Reads a batch claim.
    pub fn from_value(v: &'v Value<'a>) -> Result<ClaimBatch<'v, 'a>> {
        let f = fields(
            v,
            "a batch claim",
            &[
                "batch_id", "actions", "facts", "executor", "lease_ms", "budget", "proof",
            ],
        )?;
        let t = ClaimTerms::read(&f)?;
        Ok(ClaimBatch {
            batch_id: f.identity("batch_id")?,
            actions: actions(&f)?,
            facts: t.facts,
            executor: t.executor,
            lease_ms: t.lease_ms,
            budget: t.budget,
            proof: t.proof,
        })
    }
}
