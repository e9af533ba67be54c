//! The contract's approval rules re-derived from the decisions a bundle proves (issue 25,
//! offline): the proposal needed a person where the rule says so, no decision comes from
//! someone the separation of duties excludes, every round the ledger says met its quorum met
//! it, and no claim came after its approval expired. The ledger applies these as decisions
//! and claims arrive; an honest ledger's bundle always passes, and these catch one that did
//! not apply them.
//!
//! A batch item's events record each member of its batch's round as a task's do (the member's
//! batch record, which holds the item by its inclusion proof), so its round is re-tallied the
//! same way, and its separation judged on the one item the bundle holds (its subject and
//! proposer).

use super::{at_event, detail, named_action, proposed};
use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::action::Action;
use crate::model::approval::{read_as, Subject};
use crate::model::contract::Contract;
use crate::model::decision::Decision;
use crate::model::delegation::Chain;
use crate::model::evidence::bundle::Bundle;
use crate::model::ledger::{EventKind, State};
use crate::model::quorum::{tally, Duty, Member, Veto};

/// A decision the bundle proves.
pub(super) struct Judged {
    /// Its decided event's index in the bundle's events.
    pub(super) event: usize,
    /// It as a quorum counts it: core's reading of its record, as a check's.
    pub(super) member: Member,
    /// When its record expires.
    pub(super) expires_at: i64,
    /// The delegates along its chain, the approver last (none without a delegation).
    pub(super) delegates: Vec<String>,
}

impl Judged {
    /// The decision of the decided event `event`: its record `value` (read, or verified, as
    /// about `subject`), decided through `chain`.
    pub(super) fn of(
        event: usize,
        value: &Value<'_>,
        subject: Subject,
        chain: Chain,
    ) -> Result<Judged> {
        let r = read_as(value, subject)?;
        Ok(Judged {
            event,
            member: r.member(chain.links),
            expires_at: r.expires_at,
            delegates: chain.delegates,
        })
    }
}

/// The proposed event says the action needed a person whenever the contract's rule says so
/// for the action as proposed: a ledger that recorded none needed skipped the decision. (A
/// ledger may ask for one where the rule does not; a batch's items all wait for its decision.)
/// Not re-derived under a contract that marks values sensitive: its rule may read a value the
/// proposal holds only as a commitment. [`Code::EvidenceMismatch`] at the flag otherwise.
pub(super) fn required(
    b: &Bundle,
    contract: &Contract,
    actions: &[(Digest, Action)],
) -> Result<()> {
    let (Some((i, proposed)), Some((_, proposal))) = (proposed(b), actions.first()) else {
        return Ok(());
    };
    if contract.sensitive().is_some() {
        return Ok(());
    }
    // Arguments the contract refuses were never proposed: a person is the safe answer.
    let needed = contract
        .requires_approval(proposal.args())
        .map_or(true, |r| r.required);
    let said = detail(&proposed.event, "approval_required");
    if needed && !matches!(said, Some(Value::Bool(true))) {
        return Err(at_event(i, "event")(
            Error::new(
                Code::EvidenceMismatch,
                "the contract's rule sends the proposed action to a person and the ledger \
                 recorded no approval needed",
            )
            .in_key("approval_required")
            .in_key("detail"),
        ));
    }
    Ok(())
}

/// Every claim was made while its approval held, as the claim's check requires (`expired`
/// otherwise): before the expiry of the decision that approved the task, or under a quorum
/// before the first expiry among the members its `quorum_met` counts. A re-approval or an
/// amendment starts over. [`Code::EvidenceMismatch`] at the `claimed` event.
pub(super) fn claimed_in_time(b: &Bundle, judged: &[Judged]) -> Result<()> {
    let of_decision = |id: &str| {
        judged
            .iter()
            .find(|j| j.member.decision_id == id)
            .map(|j| j.expires_at)
    };
    let mut until: Option<i64> = None;
    for (i, entry) in b.events.iter().enumerate() {
        let e = &entry.event;
        match e.kind {
            EventKind::Decided if detail(e, "counted_as").is_none() => {
                until = judged.iter().find(|j| j.event == i).map(|j| j.expires_at);
            }
            EventKind::QuorumMet => {
                let counted = match detail(e, "quorum").and_then(|q| q.pointer("/counted")) {
                    Some(Value::Array(members)) => members.as_slice(),
                    _ => &[],
                };
                until = counted
                    .iter()
                    .filter_map(|m| m.pointer("/decision_id").and_then(Value::as_str))
                    .filter_map(of_decision)
                    .min();
            }
            EventKind::SentToReapproval | EventKind::Amended => until = None,
            EventKind::Claimed if until.is_some_and(|u| e.at >= u) => {
                return Err(at_event(i, "event")(Error::new(
                    Code::EvidenceMismatch,
                    "claimed after its approval expired, which the claim's check refuses",
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A batch's decisions answer one round of its items: each decision over a batch is recorded
/// in the item's round that batch was proposed for, so a batch (its `batch_approval_id`)
/// appears under one of this task's approval ids, and one approval id holds decisions of one
/// batch. A record of a batch names the batch's round, not the item's, so without this a
/// ledger could answer a later round (a re-approval the breaker or a claim asked for) with an
/// earlier batch's records. [`Code::EvidenceMismatch`] at the decided event's
/// `batch_approval_id` otherwise.
pub(super) fn one_batch_a_round(b: &Bundle) -> Result<()> {
    let mut rounds: Vec<(Option<&str>, &str)> = Vec::new();
    for (i, entry) in b.events.iter().enumerate() {
        let e = &entry.event;
        let text = |k: &str| detail(e, k).and_then(Value::as_str);
        let (EventKind::Decided, Some(batch)) = (e.kind, text("batch_approval_id")) else {
            continue;
        };
        let round = text("approval_id");
        let clash = rounds.iter().any(|(r, x)| (*x == batch) != (*r == round));
        if clash {
            return Err(at_event(i, "event")(
                Error::new(
                    Code::EvidenceMismatch,
                    "a batch's decision recorded in another round of the item than its batch's \
                     others, or beside another batch's in one round: each batch answers the \
                     one round it was proposed for",
                )
                .in_key("batch_approval_id")
                .in_key("detail"),
            ));
        }
        rounds.push((round, batch));
    }
    Ok(())
}

/// Every decision was made inside its round, as the ledger takes one
/// (`decided_outside_round`): its record's `decided_at` no earlier than the round began (the
/// proposal, the last amendment or re-approval of the task) and no later than the ledger
/// recorded it. A signer's backdated decision, or one a ledger recorded for a round it was not
/// made in, is [`Code::DecidedOutsideRound`] at the decision's `decided_at`. (A batch's round
/// begins with its proposal or last deselection, never before its items' round: an item's
/// decisions are held to the item's.)
pub(super) fn decided_in_round(b: &Bundle, judged: &[Judged]) -> Result<()> {
    let mut began: Option<i64> = None;
    for (i, entry) in b.events.iter().enumerate() {
        let e = &entry.event;
        match e.kind {
            EventKind::Proposed | EventKind::Amended | EventKind::SentToReapproval => {
                began = Some(e.at)
            }
            EventKind::Decided => {
                let Some((k, j)) = judged.iter().enumerate().find(|(_, j)| j.event == i) else {
                    continue;
                };
                let at = j.member.decided_at;
                let why = match began {
                    Some(start) if at < start => {
                        format!("decided_at {at} is before its round began at {start}")
                    }
                    _ if at > e.at => {
                        format!(
                            "decided_at {at} is after the ledger recorded it at {}",
                            e.at
                        )
                    }
                    _ => continue,
                };
                return Err(Error::new(Code::DecidedOutsideRound, why)
                    .in_key("decided_at")
                    .in_index(k)
                    .in_key("decisions"));
            }
            _ => {}
        }
    }
    Ok(())
}

fn not_met(message: impl Into<String>) -> Error {
    Error::new(Code::QuorumNotMet, message)
}

/// No decision comes from a holder of a duty the contract excludes: its counting identity, or
/// a delegate along its chain, is not the subject of the action it decided, not the task's
/// proposer (the proposed event's actor), and, when the contract lists `amender`, no reviewer
/// who amended the action before it (an amended event's actor). [`Code::ApproverNotSeparate`]
/// at the decision's `approver` otherwise, as the ledger refuses it.
pub(super) fn separated(
    b: &Bundle,
    contract: &Contract,
    judged: &[Judged],
    actions: &[(Digest, Action)],
) -> Result<()> {
    let events = &b.events;
    let proposer = proposed(b).map(|(_, e)| e.event.actor.as_str());
    for (k, j) in judged.iter().enumerate() {
        let e = &events[j.event].event;
        let who: Vec<&str> = std::iter::once(j.member.approver.as_str())
            .chain(j.delegates.iter().map(String::as_str))
            .collect();
        for duty in contract.separation() {
            let (name, holders): (&str, Vec<&str>) = match duty {
                Duty::Subject => {
                    let (_, action) = named_action(e, actions)
                        .map_err(|err| err.in_index(k).in_key("decisions"))?;
                    ("the action's subject", vec![action.field("subject")])
                }
                Duty::Proposer => ("the task's proposer", proposer.into_iter().collect()),
                Duty::Amender => (
                    "a reviewer who amended the action",
                    events[..j.event]
                        .iter()
                        .filter(|x| x.event.kind == EventKind::Amended)
                        .map(|x| x.event.actor.as_str())
                        .collect(),
                ),
            };
            if let Some(identity) = who.iter().find(|w| holders.contains(w)) {
                return Err(Error::new(
                    Code::ApproverNotSeparate,
                    format!(
                        "{identity:?} is {name}, whom the contract's separation of duties \
                         excludes: the ledger recorded a decision it had to refuse"
                    ),
                )
                .in_key("approver")
                .in_index(k)
                .in_key("decisions"));
            }
        }
    }
    Ok(())
}

/// Under the contract's quorum every decision about this task (alone, or as an item of the
/// batch decided) counts in a round (its event names `counted_as`) and moves nothing by
/// itself: its event leaves the task awaiting (approval, or re-approval), or rejected by a
/// veto. Each `quorum_met` event's round (the
/// counted decisions before it with its `approval_id`, each about the action it approves)
/// meets the quorum by core's [`tally`]: enough distinct people and roles, with no veto before
/// it, counted as the event says. A round met out of the roles' listed order is the ledger's
/// to record and the claim's to refuse, so no `claimed` event follows one. Without a quorum,
/// no decision counts and no `quorum_met` is recorded. Failures are [`Code::QuorumNotMet`] at
/// the event.
pub(super) fn tallied(b: &Bundle, contract: &Contract, judged: &[Judged]) -> Result<()> {
    let quorum = contract.quorum();
    let events = &b.events;
    let counted = |i: usize| detail(&events[i].event, "counted_as").is_some();
    // Each identity decides once a round (the ledger refuses a second: approver_already_decided).
    let mut seen: Vec<(Option<&str>, &str)> = Vec::new();
    for j in judged {
        let e = &events[j.event].event;
        let at = at_event(j.event, "event");
        if counted(j.event) {
            let member = (
                detail(e, "approval_id").and_then(Value::as_str),
                j.member.approver.as_str(),
            );
            if seen.contains(&member) {
                return Err(at(not_met(format!(
                    "{:?} decided twice in one round, where each identity decides once",
                    member.1
                ))
                .in_key("counted_as")
                .in_key("detail")));
            }
            seen.push(member);
        }
        match quorum {
            None if counted(j.event) => {
                return Err(at(not_met(
                    "a decision counted in a round of a quorum the contract does not ask for",
                )
                .in_key("counted_as")
                .in_key("detail")))
            }
            None => {}
            Some(_) if !counted(j.event) => {
                return Err(at(not_met(
                    "a decision under the contract's quorum that no round counts: it decided \
                     alone",
                )
                .in_key("detail")))
            }
            Some(q) => {
                let vetoes =
                    j.member.decision == Decision::Rejected && q.veto == Veto::AnyRejection;
                let left = match e.state {
                    Some(State::Rejected) => vetoes,
                    Some(State::AwaitingApproval | State::AwaitingReapproval) => !vetoes,
                    _ => false,
                };
                if !left {
                    return Err(at(not_met(
                        "a member's decision under a quorum moves the task by itself: only a \
                         veto rejects it, only quorum_met approves it",
                    )
                    .in_key("state")));
                }
            }
        }
    }
    let mut met: Option<Vec<Member>> = None;
    for (i, entry) in events.iter().enumerate() {
        let e = &entry.event;
        let at = at_event(i, "event");
        match (e.kind, quorum) {
            (EventKind::QuorumMet, None) => {
                return Err(at(not_met(
                    "a quorum_met event under a contract without a quorum",
                )
                .in_key("kind")))
            }
            (EventKind::QuorumMet, Some(q)) => {
                let state = round_met(events, i, q, judged).map_err(&at)?;
                met = Some(state.counted);
            }
            (EventKind::Claimed, Some(q))
                if met
                    .as_deref()
                    .is_some_and(|counted| q.out_of_order(counted)) =>
            {
                return Err(at(not_met(
                    "claimed after a round met out of the order the contract lists its roles \
                     in, which the claim's check refuses",
                )));
            }
            (EventKind::SentToReapproval | EventKind::Amended, _) => met = None,
            _ => {}
        }
    }
    Ok(())
}

/// The quorum the `quorum_met` event `i` says its round met, re-tallied from the bundle's
/// records of the round.
fn round_met(
    events: &[crate::model::evidence::bundle::Entry],
    i: usize,
    q: &crate::model::quorum::Quorum,
    judged: &[Judged],
) -> Result<crate::model::quorum::QuorumState> {
    let e = &events[i].event;
    let of_round = |j: &&Judged| {
        let m = &events[j.event].event;
        j.event < i
            && detail(m, "counted_as").is_some()
            && detail(m, "approval_id").and_then(Value::as_str)
                == detail(e, "approval_id").and_then(Value::as_str)
    };
    let round: Vec<&Judged> = judged.iter().filter(of_round).collect();
    if round
        .iter()
        .any(|j| !same_digest(events[j.event].event.action_digest, e.action_digest))
    {
        return Err(not_met(
            "the round counts a decision about another action than the one it approves",
        ));
    }
    // A batch item's round is its batch's: every member decided that one batch.
    let batch = |j: &&Judged| detail(&events[j.event].event, "batch_digest");
    if round
        .first()
        .is_some_and(|first| round.iter().any(|j| batch(j) != batch(first)))
    {
        return Err(not_met(
            "the round counts decisions about different batches, or a batch's beside the \
             task's own",
        ));
    }
    let members: Vec<Member> = round.iter().map(|j| j.member.clone()).collect();
    let state = tally(q, &members);
    let why = if q.veto == Veto::AnyRejection
        && members.iter().any(|m| m.decision == Decision::Rejected)
    {
        Some("a rejection vetoed the round before it".to_owned())
    } else if !state.holds() {
        Some(format!(
            "the round's decisions count {} of the {} distinct approvals the contract asks for, \
             or lack a role it names",
            state.counted.len(),
            state.required
        ))
    } else {
        None
    };
    if let Some(why) = why {
        return Err(not_met(format!("the quorum was not met: {why}")));
    }
    let said = detail(e, "quorum").map(crate::canonicalize);
    if said != Some(crate::canonicalize(&state.to_value())) {
        return Err(not_met(
            "the event counts other decisions than its round's, as the bundle's records hold them",
        )
        .in_key("quorum")
        .in_key("detail"));
    }
    Ok(state)
}

fn same_digest(a: Option<Digest>, b: Option<Digest>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a.ct_eq(&b))
}
