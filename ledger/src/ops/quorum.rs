//! What a task under a quorum (issue 25) keeps and is judged by: its contract, kept on the
//! task when the approval needs a quorum or a separation of duties, the separation of duties
//! at decide time, and the round's decisions counted by core's `tally`.

use crate::contracts::Contracts;
use crate::json::{canon, stored};
use crate::store::{RoundDecisionRow, TaskRow, Tx};
use actionseal_core::ledger::{link_digest, DecisionEnvelope, Envelope};
use actionseal_core::{
    tally, Action, Code, Contract, Decision, Duty, Error, Member, QuorumState, Result, Value,
};

/// The contract's document to keep on a task, when its approval needs a quorum or a
/// separation of duties (`None` otherwise: the task's decisions are judged as they always were).
pub(crate) fn kept_contract(contract: &Contract) -> Option<String> {
    (contract.quorum().is_some() || !contract.separation().is_empty())
        .then(|| canon(contract.document()))
}

/// The contract kept on the task, compiled (from the ones the ledger keeps compiled).
pub(crate) fn contract_of(t: &TaskRow, contracts: &Contracts) -> Result<Option<Contract>> {
    t.contract
        .as_deref()
        .map(|doc| contracts.load(&stored(doc)?))
        .transpose()
}

/// Refuses a decision by someone the contract's separation of duties excludes: the decider's
/// counting identity or, through a delegation, any of the `delegates` along its chain (the
/// approver is the last), being the action's subject, the task's proposer or (when listed)
/// any reviewer who amended the action. The proposer and the amender are the ledger's
/// own records, never the caller's word.
pub(crate) fn check_separate(
    tx: &mut dyn Tx,
    t: &TaskRow,
    action: &Action,
    d: &DecisionEnvelope,
    delegates: &[String],
    contract: &Contract,
) -> Result<()> {
    check_duties(d, delegates, contract, |duty| {
        Ok(match duty {
            Duty::Subject => (
                "the action's subject",
                vec![action.field("subject").to_owned()],
            ),
            Duty::Proposer => ("the task's proposer", vec![t.proposer.clone()]),
            // Every reviewer who amended it: one who made the change and let another make a
            // smaller one after would otherwise approve their own.
            Duty::Amender => (
                "a reviewer who amended the action",
                match t.amendments {
                    0 => Vec::new(),
                    _ => tx
                        .amendments(&t.id)?
                        .into_iter()
                        .map(|a| a.reviewer)
                        .collect(),
                },
            ),
        })
    })
}

/// The separation of duties, for a task's decision or a batch's: refuses `d` when its
/// counting identity or any of `delegates` is one of the identities `holders` names for a duty
/// of `contract` (with the duty's name, for the message).
pub(crate) fn check_duties(
    d: &impl Envelope,
    delegates: &[String],
    contract: &Contract,
    mut holders: impl FnMut(&Duty) -> Result<(&'static str, Vec<String>)>,
) -> Result<()> {
    // Through a chain the approver is its last delegate; without one, the counting identity.
    let who: Vec<&str> = std::iter::once(d.counting_identity())
        .chain(delegates.iter().map(String::as_str))
        .collect();
    for duty in contract.separation() {
        let (name, holders) = holders(duty)?;
        if let Some(identity) = who.iter().find(|w| holders.iter().any(|h| h == **w)) {
            return Err(Error::new(
                Code::ApproverNotSeparate,
                format!(
                    "{identity:?} is {name}, whom the contract's separation of duties excludes"
                ),
            )
            .in_key("approver"));
        }
    }
    Ok(())
}

/// A stored round decision as one of core's quorum members.
fn member_of(r: &RoundDecisionRow) -> Result<Member> {
    let record = stored(&r.record)?;
    let field = |k: &str| record.as_object().and_then(|o| o.get(k)).cloned();
    let approver = field("approver")
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let delegations = field("delegation")
        .and_then(|v| match v {
            Value::Array(links) => Some(links),
            _ => None,
        })
        .unwrap_or_default()
        .iter()
        .map(link_digest)
        .collect();
    let delegate = (approver != r.counted_as).then_some(approver);
    Ok(Member {
        approver: r.counted_as.clone(),
        role: r.role.clone(),
        decision: Decision::parse(&r.decision)?,
        decided_at: r.decided_at,
        decision_id: r.decision_id.clone(),
        delegate,
        delegations,
    })
}

/// The quorum's state after the round's decisions, in the order recorded.
pub(crate) fn state_of(
    contract: &Contract,
    rows: &[RoundDecisionRow],
) -> Result<Option<QuorumState>> {
    let Some(q) = contract.quorum() else {
        return Ok(None);
    };
    let members = rows.iter().map(member_of).collect::<Result<Vec<_>>>()?;
    Ok(Some(tally(q, &members)))
}
