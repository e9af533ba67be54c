//! What a claim checks: the trusted context (built here and nowhere else) and how the check's
//! verdict maps to a transition.

use crate::error::{Code, Error, Result};
use crate::json::value::{Object, Value};
use crate::model::contract::Contract;
use crate::model::delegation::LinkSource;
use crate::model::fields::Fields;
use crate::model::ledger::state::Op;
use crate::model::permit::{Context, Verdict};
use crate::model::reason::{Outcome, Reason};
use std::borrow::Cow;

/// The facts only the executor's server knows, which a claim takes from its caller:
/// `{"tenant", "policy_version", "contract", "approver_authorized", "subject_authorized"}`,
/// each authorization naming whom it is about (see [`Context`]), and for a quorum (issue 25)
/// `approver_roles` and `delegations_revoked`. `now`, `revoked`, `proposer` and `amended_by`
/// are never among them: the ledger supplies them from its clock and its own records.
pub const FACT_FIELDS: [&str; 7] = [
    "tenant",
    "policy_version",
    "contract",
    "approver_authorized",
    "subject_authorized",
    "approver_roles",
    "delegations_revoked",
];

/// What the ledger itself records about a task, which a claim's context takes from it and
/// never from the caller: the current round's revocation, who proposed the task, and who
/// last amended its action (issue 25's `proposer` and `amended_by` facts).
#[derive(Clone, Copy, Debug, Default)]
pub struct Recorded<'a> {
    /// The stored approval and whether it was revoked; `None` when the task has none.
    pub revoked: Option<(&'a str, bool)>,
    /// Who proposed the task; `None` leaves the fact out.
    pub proposer: Option<&'a str>,
    /// Who amended the action (`Some(None)`: not amended); `None` leaves the fact out.
    pub amended_by: Option<Option<&'a str>>,
}

/// The trusted context of a claim: the caller's facts plus the ledger's own clock and
/// revocation record (`revoked` names the stored approval and says whether it was revoked;
/// `None` when the task has none). This is the one place a ledger builds a [`Context`].
/// Malformed facts, or facts that try to set `now` or `revoked`, are [`Code::InvalidContext`].
pub fn context(facts: &Value<'_>, now: i64, revoked: Option<(&str, bool)>) -> Result<Context> {
    context_with(facts, now, revoked, Contract::from_value)
}

/// [`context`], with the facts' contract document (when not `null`) turned into a
/// [`Contract`] by `load`: a long-running ledger keeps the contracts it compiled and hands
/// back the one whose document is equal, instead of compiling it for every claim.
pub fn context_with(
    facts: &Value<'_>,
    now: i64,
    revoked: Option<(&str, bool)>,
    load: impl FnOnce(&Value<'_>) -> Result<Contract>,
) -> Result<Context> {
    let recorded = Recorded {
        revoked,
        ..Recorded::default()
    };
    context_recorded(facts, now, &recorded, load)
}

/// [`context_with`], with everything the ledger records about the task ([`Recorded`]).
/// Facts that try to set any of it are [`Code::InvalidContext`].
pub fn context_recorded(
    facts: &Value<'_>,
    now: i64,
    recorded: &Recorded<'_>,
    load: impl FnOnce(&Value<'_>) -> Result<Contract>,
) -> Result<Context> {
    if let Some(key) = ["now", "revoked", "proposer", "amended_by", "breaker"]
        .into_iter()
        .find(|k| facts.as_object().is_some_and(|o| o.get(k).is_some()))
    {
        return Err(Error::new(
            Code::InvalidContext,
            format!("{key} is supplied by the ledger, never by the caller"),
        )
        .in_key(key));
    }
    let f = Fields::new(facts, Code::InvalidContext, "facts", &FACT_FIELDS)?;
    let contract = match f.required("contract")? {
        Value::Null => None,
        doc => Some(load(doc).map_err(|e| e.in_key("contract"))?),
    };
    let mut entries: Vec<(Cow<'_, str>, Value<'_>)> = FACT_FIELDS
        .iter()
        .filter(|k| **k != "contract")
        .filter_map(|k| f.get(k).map(|v| (Cow::Borrowed(*k), v.clone())))
        .collect();
    entries.push((Cow::Borrowed("now"), super::values::int(now)));
    let named = |n: Option<&str>| n.map_or(Value::Null, |n| Value::String(Cow::Owned(n.into())));
    entries.extend(
        recorded
            .proposer
            .map(|p| (Cow::Borrowed("proposer"), named(Some(p)))),
    );
    entries.extend(
        recorded
            .amended_by
            .map(|a| (Cow::Borrowed("amended_by"), named(a))),
    );
    let revoked = match recorded.revoked {
        Some((approval_id, flag)) => Value::Object(Object::from_entries(vec![
            (
                Cow::Borrowed("approval_id"),
                Value::String(Cow::Borrowed(approval_id)),
            ),
            (Cow::Borrowed("revoked"), Value::Bool(flag)),
        ])?),
        None => Value::Null,
    };
    entries.push((Cow::Borrowed("revoked"), revoked));
    let mut ctx = Context::with_contract(&Value::Object(Object::from_entries(entries)?), contract)?;
    // The ledger's `decide` verified every stored link's proof when its decision arrived.
    ctx.link_source = LinkSource::Recorded;
    Ok(ctx)
}

/// What a claim does with a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimStep {
    /// Claim it.
    Permit,
    /// Refuse the call; the task stays approved and the frozen action is returned.
    Drift,
    /// Send the same task back for approval.
    Reapprove,
    /// Reject the task before dispatch.
    Reject,
}

impl ClaimStep {
    /// The operation this step applies to the task.
    pub fn op(self) -> Op {
        match self {
            ClaimStep::Permit => Op::ClaimPermit,
            ClaimStep::Drift => Op::ClaimDrift,
            ClaimStep::Reapprove => Op::ClaimReapprove,
            ClaimStep::Reject => Op::ClaimReject,
        }
    }
}

/// Maps a verdict to a claim step. Drift comes first: a call that is not the approved one is
/// refused without touching the task, whatever else is wrong, so the caller can resume with the
/// frozen action.
pub fn claim_step(v: &Verdict) -> ClaimStep {
    if v.reasons.contains(&Reason::ActionDrift) {
        return ClaimStep::Drift;
    }
    match v.outcome {
        Outcome::Permit => ClaimStep::Permit,
        Outcome::Reapprove => ClaimStep::Reapprove,
        Outcome::Reject => ClaimStep::Reject,
    }
}

/// The JSON Pointers at which `presented` differs from `frozen` (the same pointers a check
/// reports as drift). A task that needed no approval has no approval to compare with, so the
/// ledger compares the presented action with the proposed one itself.
pub fn drift_between(frozen: &Value<'_>, presented: &Value<'_>) -> Vec<String> {
    let mut found = Vec::new();
    crate::model::permit::diff(frozen, presented, &mut String::new(), &mut found);
    let mut out: Vec<String> = Vec::with_capacity(found.len());
    for p in found {
        // Two commitments differ in their digest: the drift is the value's, at its place.
        let p = crate::model::sensitive::place_of_difference(frozen, presented, p);
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}
