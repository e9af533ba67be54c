//! What a task under a quorum (issue 25) keeps and is judged by: its contract, kept on the
//! task when the approval needs a quorum or a separation of duties, the separation of duties
//! at decide time, and the round's decisions counted by core's `tally`.

use crate::contracts::Contracts;
use crate::json::{canon, stored};
use crate::store::{RoundDecisionRow, TaskRow, Tx};
use actionseal_core::ledger::DecisionEnvelope;
use actionseal_core::{
    base64url_decode, fingerprint, parse, tally, Action, Code, Contract, Decision, Digest, Duty,
    Error, Member, Options, QuorumState, Result, Value,
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
/// counting identity or, through a delegation, the delegate itself, being the action's
/// subject, the task's proposer or (when listed) the reviewer who last amended the action.
/// The proposer and the amender are the ledger's own records, never the caller's word.
pub(crate) fn check_separate(
    tx: &mut dyn Tx,
    t: &TaskRow,
    action: &Action,
    d: &DecisionEnvelope,
    contract: &Contract,
) -> Result<()> {
    let who = [d.counting_identity(), d.approver.as_str()];
    for duty in contract.separation() {
        let (name, holder) = match duty {
            Duty::Subject => (
                "the action's subject",
                Some(action.field("subject").to_owned()),
            ),
            Duty::Proposer => ("the task's proposer", Some(t.proposer.clone())),
            Duty::Amender => (
                "the reviewer who amended the action",
                match t.amendments {
                    0 => None,
                    _ => tx.amendments(&t.id)?.pop().map(|a| a.reviewer),
                },
            ),
        };
        if let Some(identity) = who.iter().find(|w| Some(**w) == holder.as_deref()) {
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

/// The digests of a decision's delegation links, root first: the fingerprint of each link's
/// delegation document (the payload of a signed envelope, a passkey-approved document without
/// its `passkey`, or a bare document), never of the link's wrapping. A link whose document
/// cannot be read is named by the fingerprint of the link itself (a claim's check refuses it).
pub(crate) fn delegation_digests(d: &DecisionEnvelope) -> Vec<Digest> {
    d.delegation
        .iter()
        .flatten()
        .map(|link| link_document(link).unwrap_or_else(|| fingerprint(link)))
        .collect()
}

fn link_document(link: &Value<'_>) -> Option<Digest> {
    let o = link.as_object()?;
    if let Some(payload) = o.get("payload") {
        let bytes = base64url_decode(payload.as_str()?).ok()?;
        let doc = parse(&bytes, &Options::default()).ok()?;
        return Some(fingerprint(&doc));
    }
    let entries = o
        .iter()
        .filter(|(k, _)| *k != "passkey")
        .map(|(k, v)| (std::borrow::Cow::Borrowed(k), v.clone()))
        .collect();
    let doc = Value::Object(actionseal_core::Object::from_entries(entries).ok()?);
    Some(fingerprint(&doc))
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
        .map(|link| link_document(link).unwrap_or_else(|| fingerprint(link)))
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
