//! amend: a reviewer replaces the task's action before the decision (seed 003: the decision
//! is then made again, about the changed action, in the same task).
//!
//! Concurrency: an amendment names the digest of the action it edits, and is applied only if
//! the task still holds that action, under the task's lock (compare-and-set). Of two reviewers
//! who edit the same action at once, the first to commit wins; the other gets
//! `amend_conflict` and changes nothing. A retry of an amendment that already won (the task
//! holds exactly the action it sends) is a duplicate: nothing changes.
//!
//! Sensitive values (issue 29): the task holds them committed, and the reviewer, who saw them
//! disclosed, sends the amended action in the clear. It is compared with the held action
//! revealed, and committed before it is stored: a value left alone keeps its disclosure and
//! commitment byte for byte, a changed one gets a fresh salt, and the task's disclosures are
//! replaced in the same transaction (the model's value at a changed place goes with it). The
//! audit names the committed digests only: a clear action's fingerprint could be searched
//! for its values.

use super::{detail, event, locked_task, refuse, save, snapshot, view};
use crate::json::{canon, n, opt_s, s, stored};
use crate::model::{Amended, AmendmentRecord};
use crate::sensitive::committed_keeping;
use crate::store::{increment, storage, AmendmentRow, ApprovalRow, Done, Tx};
use actionseal_core::ledger::{
    amend_action, amended_pointers, approval_id, next, Amendment, EventKind, Op,
};
use actionseal_core::sensitive::{reveal, Coverage};
use actionseal_core::{fingerprint, Action, Code, Contract, Error, Result};

pub(crate) fn run(
    tx: &mut dyn Tx,
    now: i64,
    a: &Amendment,
    contract: &Contract,
) -> Result<Done<Amended>> {
    let mut t = locked_task(tx, &a.task_id)?;
    let replacement = fingerprint(&a.action);
    let sensitive = contract.sensitive();
    let mut ev = event(&t, now, EventKind::AmendRefused, &a.reviewer);
    ev.action_digest = sensitive.is_none().then_some(replacement);
    ev.detail = detail(vec![
        ("amends", s(&a.amends.to_string())),
        ("reason_digest", s(&a.reason_digest().to_string())),
    ]);

    // After the decision, a change is a new request with a new decision, never an edit.
    let before = snapshot(&t);
    if let Err(e) = next(&before, Op::Amend, now) {
        return refuse(tx, ev, e);
    }
    // A batch's item is frozen in its batch's document: the reviewer deselects it instead.
    if tx.item(&t.id)?.is_some() {
        return refuse(tx, ev, super::batch::item_only("amend"));
    }
    let current = Action::from_value(&stored(&t.action)?)?;
    let held = match sensitive {
        None => None,
        Some(s) => {
            let disclosures = match super::shred::held(tx, &t)? {
                Ok(d) => d,
                Err(e) => return refuse(tx, ev, e),
            };
            let clear = reveal(s, current.value(), &disclosures, Coverage::Every)
                .map_err(|e| storage("disclosures", e.code()))?;
            Some((s, Action::from_value(&clear)?, disclosures))
        }
    };
    let shown = held.as_ref().map_or(&current, |(_, clear, _)| clear);
    // The action held, in the clear or (under sensitive values) as stored.
    if replacement.ct_eq(&shown.digest()) || replacement.ct_eq(&t.action_digest) {
        ev.kind = EventKind::AmendDuplicate;
        ev.action_digest = Some(t.action_digest);
        tx.append(ev);
        let latest = match t.amendments {
            0 => None,
            k => tx
                .amendments(&t.id)?
                .iter()
                .find(|r| r.n == k)
                .map(AmendmentRecord::from_row)
                .transpose()?,
        };
        return Ok(Done::Ok(Amended {
            task: view(t)?,
            amendment: latest,
            duplicate: true,
        }));
    }
    if !a.amends.ct_eq(&t.action_digest) {
        return refuse(
            tx,
            ev,
            Error::new(
                Code::AmendConflict,
                format!(
                    "the amendment edits action {}, but the task now holds {}: another \
                     amendment came first; reload the task and amend what it holds",
                    a.amends, t.action_digest
                ),
            )
            .in_key("amends"),
        );
    }
    let amended = match amend_action(shown, &a.action, contract) {
        Ok(x) => x,
        Err(e) => return refuse(tx, ev, e.in_key("action")),
    };
    let (amended, disclosures) = match &held {
        None => (amended, None),
        Some((s, _, kept)) => {
            let (committed, disclosures) = committed_keeping(s, &amended, kept)?;
            (committed, Some(disclosures))
        }
    };
    let pointers = amended_pointers(current.value(), amended.value());

    let from = t.action_digest;
    if t.proposed_digest.is_none() {
        // The first amendment: what the model proposed is kept beside it, for good.
        t.proposed_action = Some(t.action.clone());
        t.proposed_digest = Some(t.action_digest);
    }
    t.action = canon(amended.value());
    t.action_digest = amended.digest();
    t.amendments = increment(t.amendments, "amendment count")?;
    t.updated_at = now;
    // The action to decide about changed: a decision dated before now is not about it.
    t.round_started_at = now;
    if !tx.amend_task(&t, &from)? {
        return Err(storage(
            "task amendment",
            format!("{} changed while locked", t.id),
        ));
    }
    let row = AmendmentRow {
        task_id: t.id.clone(),
        n: t.amendments,
        amends: from,
        action: t.action.clone(),
        action_digest: t.action_digest,
        reviewer: a.reviewer.clone(),
        reason: a.reason.clone(),
        at: now,
    };
    tx.insert_amendment(&row)?;
    if let Some(disclosures) = &disclosures {
        super::shred::replace(tx, &t, contract, disclosures, t.created_at)?;
    }
    if contract.quorum().is_some() {
        // Under a quorum the changed action starts a new round: the decisions its members
        // made about the action before do not carry over.
        let before = snapshot(&t);
        t.round = increment(t.round, "approval round")?;
        let apr = approval_id(&t.id, t.round);
        tx.put_approval(&ApprovalRow {
            approval_id: apr.clone(),
            task_id: t.id.clone(),
            round: t.round,
            decision_id: None,
            revoked_at: None,
        })?;
        t.approval_id = Some(apr);
        // The task's row holds its current round's revocation: the new round has none.
        t.revoked_at = None;
        save(tx, &t, &before)?;
    }
    ev.kind = EventKind::Amended;
    ev.action_digest = Some(t.action_digest);
    ev.drift = pointers;
    ev.detail = detail(vec![
        ("n", n(t.amendments)),
        ("amends", s(&from.to_string())),
        (
            "proposed_digest",
            opt_s(t.proposed_digest.map(|d| d.to_string()).as_deref()),
        ),
        ("reason_digest", s(&a.reason_digest().to_string())),
        ("approval_id", opt_s(t.approval_id.as_deref())),
    ]);
    tx.append(ev);
    // Awaiting a decision: no approval record to show, and under a quorum a new round with
    // no decision yet (where it stands needs no read).
    let mut task = super::view(t)?;
    task.quorum = super::quorum::state_of(contract, &[])?;
    Ok(Done::Ok(Amended {
        task,
        amendment: Some(AmendmentRecord::from_row(&row)?),
        duplicate: false,
    }))
}
