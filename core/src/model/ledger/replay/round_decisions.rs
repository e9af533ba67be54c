//! The decisions of rounds under a quorum (issue 25) as their `decided` events record them,
//! and the ledger's rows of them (`ledger_round_decisions`) held to those events.
//!
//! Each member's decision is a `decided` event that names its `counted_as`, and a row of its
//! round at the position it was recorded in. A row must be there for every such event, at its
//! position, with the event's decision id, counting identity, role, decision, times and proof,
//! and no row may be where no event is. The events hold no argument value, and a record holds
//! the frozen action's, so a row's record is held to its event by rebuilding it: from the
//! event's identities, decision, times and digests, with the row's own frozen action (whose
//! fingerprint must be the event's action digest) and the row's own delegation links (whose
//! digests must be the event's `delegations`); the record must be the rebuilt one byte for byte.
//!
//! A batch's round (issue 28) is the same, with `batch_decided` events about the batch: its
//! rows' records freeze the batch's header (whose fingerprint is the event's digest) and are
//! rebuilt as batch decisions. Each item records every member's decision as a `decided` event
//! of its own (for its evidence); those are the batch's rows, not rows of the item's round.

use super::{decided_of, member, Decided, Mismatch, Place, StoredDecision};
use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::action::Action;
use crate::model::approval::{Approval, Decision, DecisionInput};
use crate::model::batch::{BatchDecision, Header};
use crate::model::ledger::envelope::link_digest;
use crate::model::ledger::event::{Event, EventKind};
use crate::Options;
use std::collections::{HashMap, HashSet};

/// A member's decision as its `decided` event records it, and where that event is.
#[derive(Clone, Debug)]
struct Member {
    decided: Decided,
    decision: Decision,
    counted_as: String,
    role: Option<String>,
    on_behalf_of: Option<String>,
    /// The digests of its delegation links, root first (empty without a delegation).
    delegations: Vec<Digest>,
    action_digest: Digest,
    recorded_at: i64,
    at: Place,
}

/// A round: its task (or batch), and its members in the order recorded.
#[derive(Clone, Debug)]
struct Round {
    task: String,
    members: Vec<Member>,
}

/// Every round the replay has seen, by approval id.
#[derive(Default)]
pub(super) struct Rounds(HashMap<String, Round>);

impl Rounds {
    /// Takes an event about `task` that the replay accepted (`approval_id`: the task's round
    /// after it): the round is known from then on, and a member's decision (a `decided` event
    /// naming `counted_as`) takes its next position. An error names the event's member.
    pub(super) fn apply(
        &mut self,
        task: &str,
        approval_id: Option<&str>,
        e: &Event,
        at: Place,
    ) -> Result<(), &'static str> {
        let Some(apr) = approval_id else {
            return Ok(());
        };
        let round = self.0.entry(apr.to_owned()).or_insert_with(|| Round {
            task: task.to_owned(),
            members: Vec::new(),
        });
        // An item's record of its batch's member is the batch's row, held by its
        // `batch_decided` event.
        let of_item = e.kind == EventKind::Decided && member(&e.detail, "batch_id").is_some();
        let counted_as = match member(&e.detail, "counted_as") {
            Some(c)
                if matches!(e.kind, EventKind::Decided | EventKind::BatchDecided) && !of_item =>
            {
                c
            }
            _ => return Ok(()),
        };
        let decided = decided_of(e, e.outcome.as_deref().unwrap_or(""))?;
        let text = |key, v: Option<&Value<'_>>| match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.to_string())),
            Some(_) => Err(key),
        };
        let delegations = match member(&e.detail, "delegations") {
            None => Vec::new(),
            Some(Value::Array(ds)) => ds
                .iter()
                .map(|d| d.as_str().and_then(|s| s.parse().ok()))
                .collect::<Option<_>>()
                .ok_or("detail/delegations")?,
            Some(_) => return Err("detail/delegations"),
        };
        round.members.push(Member {
            decision: Decision::parse(&decided.decision).map_err(|_| "outcome")?,
            decided,
            counted_as: text("detail/counted_as", Some(counted_as))?.ok_or("detail/counted_as")?,
            role: text("detail/role", member(&e.detail, "role"))?,
            on_behalf_of: text("detail/on_behalf_of", member(&e.detail, "on_behalf_of"))?,
            delegations,
            action_digest: e.action_digest.ok_or("action_digest")?,
            recorded_at: e.at,
            at,
        });
        Ok(())
    }

    /// Holds every row to its round's events: the first mismatch in line order. A row of a
    /// round no event opened is a mismatch at `round_decisions/approval_id` (reported past the
    /// last line); a member's event without its row, or a row where no event is, at
    /// `round_decisions/n` (a row: at its task's last event, `last`); another column, there.
    pub(super) fn compare(
        &self,
        rows: &[StoredDecision<'_>],
        last: impl Fn(&str) -> Option<Place>,
    ) -> Option<(Mismatch, Place)> {
        let mut first: Option<(Mismatch, Place)> = None;
        let mut keep = |task: Option<&str>, field, at: Place| {
            if first.as_ref().is_none_or(|(_, f)| at.0 < f.0) {
                let task = task.map(str::to_owned);
                first = Some((Mismatch { task, field }, at));
            }
        };
        for row in rows {
            let Some(round) = self.0.get(row.approval_id) else {
                keep(None, "round_decisions/approval_id", (i64::MAX, 0, 0));
                continue;
            };
            let task = Some(round.task.as_str());
            let at = usize::try_from(row.n).ok().and_then(|n| n.checked_sub(1));
            match at.and_then(|i| round.members.get(i)) {
                Some(m) => {
                    if let Some(field) = differs(m, row) {
                        keep(task, field, m.at);
                    }
                }
                None => {
                    let at = last(&round.task).unwrap_or((i64::MAX, 0, 0));
                    keep(task, "round_decisions/n", at);
                }
            }
        }
        let stored: HashSet<(&str, i64)> = rows.iter().map(|r| (r.approval_id, r.n)).collect();
        for (apr, round) in &self.0 {
            for (i, m) in round.members.iter().enumerate() {
                let n = i64::try_from(i).map_or(i64::MAX, |i| i + 1);
                if !stored.contains(&(apr.as_str(), n)) {
                    keep(Some(&round.task), "round_decisions/n", m.at);
                }
            }
        }
        first
    }
}

/// The first column of `row` that is not what its member's event records.
fn differs(m: &Member, row: &StoredDecision<'_>) -> Option<&'static str> {
    let d = &m.decided;
    let checks = [
        (
            "round_decisions/decision_id",
            row.decision_id == d.decision_id,
        ),
        ("round_decisions/counted_as", row.counted_as == m.counted_as),
        ("round_decisions/role", row.role == m.role.as_deref()),
        ("round_decisions/decision", row.decision == d.decision),
        ("round_decisions/decided_at", row.decided_at == d.decided_at),
        (
            "round_decisions/recorded_at",
            row.recorded_at == m.recorded_at,
        ),
        ("round_decisions/proof", row.proof == d.proof.as_deref()),
    ];
    if let Some((field, _)) = checks.iter().find(|(_, ok)| !ok) {
        return Some(field);
    }
    (!record_holds(row, m)).then_some("round_decisions/record")
}

/// Whether the row's record is the one its member's event rebuilds, with the row's frozen
/// action and delegation links (held to the event's digests).
fn record_holds(row: &StoredDecision<'_>, m: &Member) -> bool {
    let Ok(v) = crate::parse(row.record.as_bytes(), &Options::default()) else {
        return false;
    };
    // A task's record freezes its action, a batch's the batch's header.
    let subject = match (member(&v, "action"), member(&v, "batch")) {
        (Some(a), None) => Action::from_value(a).map(Subject::Action),
        (None, Some(h)) => Header::from_value(h).map(Subject::Batch),
        _ => return false,
    };
    let Ok(subject) = subject else {
        return false;
    };
    let digest = match &subject {
        Subject::Action(a) => a.digest(),
        Subject::Batch(h) => crate::fingerprint(&h.to_value()),
    };
    if !digest.ct_eq(&m.action_digest) {
        return false;
    }
    let links = match member(&v, "delegation") {
        None => None,
        Some(Value::Array(links)) => Some(links.as_slice()),
        Some(_) => return false,
    };
    let digests: Vec<Digest> = links.unwrap_or_default().iter().map(link_digest).collect();
    if digests.len() != m.delegations.len()
        || !digests.iter().zip(&m.delegations).all(|(a, b)| a.ct_eq(b))
    {
        return false;
    }
    let d = &m.decided;
    let input = DecisionInput {
        approval_id: row.approval_id,
        decision_id: &d.decision_id,
        decision: m.decision,
        approver: &d.approver,
        decided_at: d.decided_at,
        expires_at: d.expires_at,
        proposed_digest: d.proposed_digest,
        role: m.role.as_deref(),
        on_behalf_of: m.on_behalf_of.as_deref(),
        delegation: links,
    };
    let rebuilt = match &subject {
        Subject::Action(a) => Approval::decide(a, &input).map(|r| crate::canonicalize(r.value())),
        Subject::Batch(h) => {
            BatchDecision::decide(h, &input).map(|r| crate::canonicalize(r.value()))
        }
    };
    rebuilt.is_ok_and(|rebuilt| rebuilt == row.record)
}

/// What a round's record freezes.
enum Subject {
    Action(Action),
    Batch(Header),
}
