//! revoke: an approval stops holding; the next claim sends the task back for approval (a
//! batch's approval: see `batch::revoke`).

use super::{detail, event, locked_task, save, snapshot};
use crate::json::s;
use crate::model::Revocation;
use crate::store::{Done, Lock, Tx};
use actionseal_core::ledger::EventKind;
use actionseal_core::{Code, Error, Result};

pub(crate) fn run(
    tx: &mut dyn Tx,
    now: i64,
    approval_id: &str,
    actor: &str,
) -> Result<Done<Revocation>> {
    let not_found = || {
        Error::new(
            Code::ApprovalNotFound,
            format!("no approval {approval_id:?}"),
        )
    };
    let Some(approval) = tx.approval(approval_id)? else {
        // A batch's approval id names no task's round.
        if tx.batch_of_approval(approval_id, Lock::None)?.is_some() {
            return super::batch::revoke::run(tx, now, approval_id, actor);
        }
        return Err(not_found());
    };
    let task_id = approval.task_id;
    let mut t = locked_task(tx, &task_id)?;
    let mut a = tx.approval(approval_id)?.ok_or_else(not_found)?;
    if let Some(at) = a.revoked_at {
        return Ok(Done::Ok(Revocation {
            approval_id: a.approval_id,
            task_id,
            revoked_at: at,
            duplicate: true,
        }));
    }
    a.revoked_at = Some(now);
    tx.put_approval(&a)?;
    if t.approval_id.as_deref() == Some(approval_id) {
        // The current round: its claim reads the revocation from the task row.
        let before = snapshot(&t);
        t.revoked_at = Some(now);
        t.updated_at = now;
        save(tx, &t, &before)?;
    }
    let mut ev = event(&t, now, EventKind::Revoked, actor);
    ev.decision_id = a.decision_id.clone();
    ev.detail = detail(vec![("approval_id", s(approval_id))]);
    tx.append(ev);
    Ok(Done::Ok(Revocation {
        approval_id: a.approval_id,
        task_id,
        revoked_at: now,
        duplicate: false,
    }))
}
