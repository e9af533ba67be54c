//! revoke a batch's approval: its decision stops holding for every item not yet claimed.
//! Each such item is marked revoked as a task's round is, with a `revoked` event of its own,
//! so its next claim finds the decision revoked and sends every remaining item back over a
//! new batch, as an expired decision does; an item already claimed is in flight and finishes
//! under the decision it was claimed with (a claim cannot be taken back from the business
//! system). Revoking before the decision works as for a task: the items it approves later are
//! still revoked.

use super::{lock_by_approval, locked_items};
use crate::json::s;
use crate::model::Revocation;
use crate::ops;
use crate::store::{Done, Tx};
use actionseal_core::ledger::{EventKind, State};
use actionseal_core::Result;

pub(crate) fn run(
    tx: &mut dyn Tx,
    now: i64,
    approval_id: &str,
    actor: &str,
) -> Result<Done<Revocation>> {
    let (_, b) = lock_by_approval(tx, approval_id)?;
    let mut revoked = 0;
    let mut earlier = None;
    for mut t in locked_items(tx, &b)? {
        if !matches!(t.state, State::AwaitingApproval | State::Approved) {
            continue;
        }
        if let Some(at) = t.revoked_at {
            earlier = Some(at);
            continue;
        }
        let before = ops::snapshot(&t);
        t.revoked_at = Some(now);
        t.updated_at = now;
        ops::save(tx, &t, &before)?;
        let mut ev = ops::event(&t, now, EventKind::Revoked, actor);
        ev.decision_id = b.decision_id.clone();
        ev.detail = ops::detail(vec![
            ("approval_id", crate::json::opt_s(t.approval_id.as_deref())),
            ("batch_id", s(&b.id)),
            ("batch_approval_id", s(&b.approval_id)),
        ]);
        tx.append(ev);
        revoked += 1;
    }
    Ok(Done::Ok(Revocation {
        approval_id: b.approval_id,
        task_id: b.id,
        revoked_at: match (revoked, earlier) {
            (0, Some(at)) => at,
            _ => now,
        },
        duplicate: revoked == 0 && earlier.is_some(),
    }))
}
