//! The ledger's proof policy: recorded in the database, so that every handle on it obeys the
//! same requirement, and changed only in an audited event.

use super::{detail, LEDGER_ACTOR};
use crate::json::s;
use crate::store::{Done, PolicyRow, Tx};
use actionseal_core::ledger::{chain_of, Event, EventKind};
use actionseal_core::{OwnedValue, ProofRequirement, Result};

/// Raises the requirement to at least `to` (a handle opened requiring proof); a requirement
/// already as strong stays as it is, with no event.
pub(crate) fn strengthen(
    tx: &mut dyn Tx,
    now: i64,
    to: ProofRequirement,
) -> Result<Done<PolicyRow>> {
    let current = tx.policy()?;
    if current.proof >= to {
        return Ok(Done::Ok(current));
    }
    change(
        tx,
        now,
        to,
        LEDGER_ACTOR,
        "a ledger handle was opened requiring it",
    )
}

/// Sets the requirement to `to`, by `actor`, for `reason`; the same requirement again changes
/// nothing and records nothing.
pub(crate) fn change(
    tx: &mut dyn Tx,
    now: i64,
    to: ProofRequirement,
    actor: &str,
    reason: &str,
) -> Result<Done<PolicyRow>> {
    let current = tx.policy()?;
    if current.proof == to {
        return Ok(Done::Ok(current));
    }
    let row = PolicyRow {
        proof: to,
        changed_at: now,
        changed_by: actor.to_owned(),
    };
    tx.put_policy(&row)?;
    tx.append(event(now, actor, current.proof, to, reason));
    Ok(Done::Ok(row))
}

/// The audit event of a change: about no task, so on the chain of ledger-wide events.
fn event(
    now: i64,
    actor: &str,
    from: ProofRequirement,
    to: ProofRequirement,
    reason: &str,
) -> Event {
    let entries: Vec<(&'static str, OwnedValue)> = vec![
        ("from", s(from.as_str())),
        ("to", s(to.as_str())),
        ("reason", s(reason)),
    ];
    Event {
        chain: chain_of(None),
        seq: 0,
        at: now,
        tenant: LEDGER_ACTOR.to_owned(),
        task: None,
        kind: EventKind::ProofPolicyChanged,
        actor: actor.to_owned(),
        action_digest: None,
        approved_digest: None,
        decision_id: None,
        fence: None,
        outcome: Some(to.as_str().to_owned()),
        reasons: Vec::new(),
        drift: Vec::new(),
        state: None,
        detail: detail(entries),
        prev: None,
    }
}
